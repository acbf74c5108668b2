package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gonero/gonero/address"
	"github.com/gonero/gonero/chain"
	"github.com/gonero/gonero/chaindb"
	"github.com/gonero/gonero/chainexport"
	"github.com/gonero/gonero/cryptonote"
	"github.com/gonero/gonero/internal/monerodlab"
	"github.com/gonero/gonero/miner"
	"github.com/gonero/gonero/params"
	"github.com/gonero/gonero/params/blockhashes"
)

// longChainHeight is the height of the test chain: two whole groups of 512
// and a few blocks more, so the list covers all but its top.
const longChainHeight = 1030

// longChain is a regtest chain of longChainHeight blocks that monerod
// verified and stores, with its block-hash lists as monerod and gonero
// make them.
type longChain struct {
	nodeDir string // monerod's data directory (copy it before use)
	recs    []*chainexport.Record
	metas   []chaindb.BlockMeta // gonero's, by height
	// monerodList is monero-blockchain-export --blocksdat's file;
	// goneroList blockhashes.Generate's over gonero's store.
	monerodList, goneroList []byte
}

var (
	longOnce sync.Once
	long     *longChain
	longErr  error
	longDir  string // removed by TestMain
)

// TestMain removes what the tests of this package shared: the long chain
// and gonerod's binary.
func TestMain(m *testing.M) {
	code := m.Run()
	for _, dir := range []string{longDir, buildDir} {
		if dir != "" {
			os.RemoveAll(dir)
		}
	}
	os.Exit(code)
}

// buildLongChain extends the fresh regtest chain (monerod-mined, with
// transactions) to longChainHeight blocks with blocks gonero's miner builds
// as monerod's would (difficulty 1), has monerod verify and store all of it
// (monero-blockchain-import, verifying), and exports monerod's block-hash
// list. Mining the 730 blocks with monerod's generateblocks would cost
// about a minute of RandomX hashing; the verifying import costs one hash
// per block.
func buildLongChain(t *testing.T, lab *monerodlab.Lab) (*longChain, error) {
	began := time.Now()
	fresh := lab.FreshChain(t)
	dir, err := os.MkdirTemp("", "gonero-long-chain-")
	if err != nil {
		return nil, err
	}
	longDir = dir
	db, err := chaindb.Open(filepath.Join(dir, "gonero.db"), chaindb.Options{Network: params.Regtest.String()})
	if err != nil {
		return nil, err
	}
	defer db.Close()
	c, err := chain.Open(db, chain.Config{Network: params.Regtest, FixedDifficulty: 1})
	if err != nil {
		return nil, err
	}
	rd, err := chainexport.Open(fresh.RawFile)
	if err != nil {
		return nil, err
	}
	lc := &longChain{}
	for {
		rec, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			rd.Close()
			return nil, err
		}
		if rec.Height > 0 {
			if _, err := c.AddBlock(rec.Block, rec.BlockBlob, rec.Txs, rec.TxBlobs); err != nil {
				rd.Close()
				return nil, err
			}
		}
		lc.recs = append(lc.recs, rec)
	}
	rd.Close()
	to, err := address.Parse(monerodlab.AliceAddress)
	if err != nil {
		return nil, err
	}
	m := miner.New(c, miner.Options{})
	for c.Height() < longChainHeight {
		tmpl, err := m.NewTemplate(to)
		if err != nil {
			return nil, err
		}
		blob := tmpl.Block.Serialize()
		res, err := m.Submit(&tmpl.Block, blob)
		if err != nil {
			return nil, err
		}
		blk := tmpl.Block
		lc.recs = append(lc.recs, &chainexport.Record{Height: res.Meta.Height, Block: &blk, BlockBlob: blob,
			BlockWeight: res.Meta.Weight, CumulativeDifficulty: res.Meta.CumulativeDifficulty, CoinsGenerated: res.Meta.GeneratedCoins})
	}
	if err := c.Store().View(func(r *chaindb.Reader) error {
		for h := uint64(0); h < c.Height(); h++ {
			meta, err := r.MetaByHeight(h)
			if err != nil {
				return err
			}
			lc.metas = append(lc.metas, meta)
		}
		return nil
	}); err != nil {
		return nil, err
	}
	gl, err := blockhashes.Generate(uint64(len(lc.metas)), lc.source(nil))
	if err != nil {
		return nil, err
	}
	lc.goneroList = gl.Marshal()

	t.Logf("%.1fs: gonero built the %d-block chain", time.Since(began).Seconds(), len(lc.recs))
	raw := filepath.Join(dir, "long.raw")
	if err := writeRaw(raw, lc.recs); err != nil {
		return nil, err
	}
	// monerod already holds the fresh chain: it verifies only the rest.
	lc.nodeDir = filepath.Join(dir, "node")
	if out, err := exec.Command("cp", "-a", fresh.NodeDir, lc.nodeDir).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("copying %s: %v %s", fresh.NodeDir, err, out)
	}
	os.Remove(filepath.Join(lc.nodeDir, "monerod.pid"))
	out, err := lab.BlockchainImport(t, lc.nodeDir, raw)
	if err != nil {
		return nil, fmt.Errorf("monero-blockchain-import: %v\n%s", err, out)
	}
	t.Logf("%.1fs: monerod imported it, verifying", time.Since(began).Seconds())
	dat := filepath.Join(dir, "blocks.dat")
	exp := exec.Command("monero-blockchain-export", "--data-dir", filepath.Join(lc.nodeDir, "fake"), "--blocksdat", "--output-file", dat)
	exp.Dir = dir // the tool writes its log to the working directory
	if out, err := exp.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("monero-blockchain-export --blocksdat: %v\n%s", err, out)
	}
	if lc.monerodList, err = os.ReadFile(dat); err != nil {
		return nil, err
	}
	return lc, nil
}

func writeRaw(path string, recs []*chainexport.Record) error {
	w, err := chainexport.Create(path, 0, uint64(len(recs)-1))
	if err != nil {
		return err
	}
	for _, rec := range recs {
		if err := w.Write(rec); err != nil {
			w.Close()
			return err
		}
	}
	return w.Close()
}

// source reads gonero's ids and weights, edit changing them on the way.
func (lc *longChain) source(edit func(h uint64, id *cryptonote.Hash, weight *uint64)) blockhashes.Source {
	return func(h uint64) (cryptonote.Hash, uint64, error) {
		if h >= uint64(len(lc.metas)) {
			return cryptonote.Hash{}, 0, errors.New("beyond the chain")
		}
		id, w := lc.metas[h].Hash, lc.metas[h].Weight
		if edit != nil {
			edit(h, &id, &w)
		}
		return id, w, nil
	}
}

func requireLongChain(t *testing.T) (*monerodlab.Lab, *longChain) {
	t.Helper()
	lab := monerodlab.Require(t)
	longOnce.Do(func() { long, longErr = buildLongChain(t, lab) })
	if longErr != nil {
		t.Fatal(longErr)
	}
	return lab, long
}

// gonero's generator writes, for a chain monerod verified and stores, the
// same bytes as monero-blockchain-export --blocksdat; its verifier accepts
// that chain against monerod's file and finds a tampered id or weight.
func TestBlockHashListMatchesMonerodExport(t *testing.T) {
	_, lc := requireLongChain(t)
	if !bytes.Equal(lc.goneroList, lc.monerodList) {
		t.Fatalf("gonero's list (%d bytes) differs from monerod's --blocksdat export (%d bytes)", len(lc.goneroList), len(lc.monerodList))
	}
	l, err := blockhashes.Parse(lc.monerodList)
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Groups) != longChainHeight/blockhashes.GroupSize {
		t.Fatalf("monerod's export has %d groups for %d blocks", len(l.Groups), longChainHeight)
	}
	if err := l.Verify(lc.source(nil)); err != nil {
		t.Fatal(err)
	}
	var me *blockhashes.MismatchError
	err = l.Verify(lc.source(func(h uint64, id *cryptonote.Hash, _ *uint64) {
		if h == 700 {
			id[31] ^= 0x80
		}
	}))
	if !errors.As(err, &me) || me.Group != 1 || me.Weights {
		t.Fatalf("a tampered id at height 700: %v", err)
	}
	err = l.Verify(lc.source(func(h uint64, _ *cryptonote.Hash, w *uint64) {
		if h == 3 {
			*w++
		}
	}))
	if !errors.As(err, &me) || me.Group != 0 || !me.Weights {
		t.Fatalf("a tampered weight at height 3: %v", err)
	}
}

// writeList writes list data to a file for --block-hashes-file.
func writeList(t *testing.T, data []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "checkpoints.dat")
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// gonerod syncs the 1,030-block chain from monerod over P2P with monerod's
// block-hash list and ends at monerod's top, synchronized (past the list).
// With a list one of whose groups is false, it bans monerod at the first
// chain entry and stores nothing.
func TestFastSyncFromMonerod(t *testing.T) {
	lab, lc := requireLongChain(t)
	bin := inProcess
	m := lab.StartMonerod(t, lc.nodeDir, "--online")
	mi := monerodInfo(t, m)
	if mi.Height != longChainHeight {
		t.Fatalf("monerod's height %d", mi.Height)
	}
	peer := "127.0.0.1:" + strconv.Itoa(m.P2PPort)

	t.Run("true list", func(t *testing.T) {
		g := startGonerod(t, bin, t.TempDir(), "--add-exclusive-node", peer, "--block-hashes-file", writeList(t, lc.monerodList))
		waitFor(t, 90*time.Second, "gonerod at monerod's top, synchronized", func() bool {
			gi := g.info(t)
			return gi.Height == mi.Height && gi.TopHash == mi.TopHash && gi.Synchronized
		})
		log, _ := os.ReadFile(g.logPath)
		if !strings.Contains(string(log), "block-hash list loaded") {
			t.Fatal("gonerod did not load the list")
		}
	})

	t.Run("false list", func(t *testing.T) {
		bad := append([]byte(nil), lc.monerodList...)
		bad[4+64+5] ^= 1 // the id hash of group 1
		// Banning monerod's 127.0.0.1 closes gonerod's RPC to that host
		// too (monerod's connection filter): the test asks from another.
		g := startGonerodClient(t, rpcClientFrom("127.0.0.3"), bin, t.TempDir(), "--add-exclusive-node", peer, "--block-hashes-file", writeList(t, bad))
		waitFor(t, 60*time.Second, "gonerod to ban monerod", func() bool { return len(g.bans(t)) > 0 })
		if h := g.info(t).Height; h != 1 {
			t.Fatalf("gonerod stored blocks from a chain its list refutes: height %d", h)
		}
		if b := g.bans(t); b[0] != "127.0.0.1" {
			t.Fatalf("bans %v", b)
		}
	})
}

// While its chain is inside the block-hash list, gonerod does not call
// itself synchronized, even level with its peer; without the list
// (--fast-block-sync 0) the same pair is synchronized. The height is below
// 512: like monerod, a node loads a list only if it reaches a whole group
// past its chain (load_compiled_in_block_hashes).
func TestNotSynchronizedInsideList(t *testing.T) {
	lab, lc := requireLongChain(t)
	const height = 500
	bin := inProcess
	m := lab.StartMonerod(t, lc.nodeDir, "--online")
	if body, err := m.Post("/pop_blocks", []byte(fmt.Sprintf(`{"nblocks":%d}`, longChainHeight-height))); err != nil || !bytes.Contains(body, []byte(`"OK"`)) {
		t.Fatalf("pop_blocks: %v %s", err, body)
	}
	mi := monerodInfo(t, m)
	if mi.Height != height {
		t.Fatalf("monerod at %d after pop_blocks", mi.Height)
	}
	raw := filepath.Join(t.TempDir(), "short.raw")
	if err := writeRaw(raw, lc.recs[:height]); err != nil {
		t.Fatal(err)
	}
	list := writeList(t, lc.monerodList)
	peer := "127.0.0.1:" + strconv.Itoa(m.P2PPort)
	for _, fast := range []string{"1", "0"} {
		t.Run("fast-block-sync="+fast, func(t *testing.T) {
			data := t.TempDir()
			importInto(t, bin, data, raw)
			g := startGonerod(t, bin, data, "--add-exclusive-node", peer, "--block-hashes-file", list, "--fast-block-sync", fast)
			waitFor(t, 30*time.Second, "a connection to monerod", func() bool {
				gi := g.info(t)
				return gi.Outgoing == 1 && gi.Height == height && gi.TopHash == mi.TopHash
			})
			if fast == "0" {
				waitFor(t, 30*time.Second, "synchronized", func() bool { return g.info(t).Synchronized })
				return
			}
			// monerod's handshake answer settles it at once; give it time.
			time.Sleep(3 * time.Second)
			if g.info(t).Synchronized {
				t.Fatal("synchronized while inside the block-hash list")
			}
		})
	}
}

// bans lists the hosts gonerod bans (get_bans).
func (g *gonerod) bans(t *testing.T) []string {
	t.Helper()
	var r struct {
		Bans []struct {
			Host string `json:"host"`
		} `json:"bans"`
	}
	if err := g.call("get_bans", struct{}{}, &r); err != nil {
		t.Fatal(err)
	}
	var hosts []string
	for _, b := range r.Bans {
		hosts = append(hosts, b.Host)
	}
	return hosts
}
