package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gonero/gonero/chaindb"
	"github.com/gonero/gonero/chainexport"
	"github.com/gonero/gonero/internal/monerodlab"
	"github.com/gonero/gonero/internal/testutil"
	"github.com/gonero/gonero/params"
	"github.com/gonero/gonero/portable"
	"github.com/gonero/gonero/pruning"
)

// pruneChainTop is the height of the chain the pruning test builds: blocks
// below pruneChainTop-5,500 = 4,300 leave the tip, i.e. all of stripe 1
// (heights 0-4,095, holding the fresh chain's transactions) and the start
// of stripe 2 (4,096-4,299, where the test puts two more).
const pruneChainTop = 9800

// pruneAnswer is prune_blockchain's result.
type pruneAnswer struct {
	Pruned      bool   `json:"pruned"`
	PruningSeed uint32 `json:"pruning_seed"`
}

// runGonerod is startGonerod with a stop function, for a node the test
// restarts with other flags on the same data directory.
func runGonerod(t *testing.T, bin, data string, extra ...string) (*gonerod, func()) {
	t.Helper()
	g := &gonerod{rpcPort: freePort(t), p2pPort: freePort(t), client: &http.Client{Timeout: 60 * time.Second}}
	exited, stop := launchGonerod(t, g, bin, append([]string{"--regtest", "--fixed-difficulty", "1", "--data-dir", data, "--log-level", "debug",
		"--rpc-bind-port", strconv.Itoa(g.rpcPort), "--p2p-bind-ip", "127.0.0.1", "--p2p-bind-port", strconv.Itoa(g.p2pPort)}, extra...))
	waitFor(t, 5*time.Minute, "gonerod's RPC", func() bool {
		select {
		case <-exited:
			log, _ := os.ReadFile(g.logPath)
			t.Fatalf("gonerod %v exited:\n%s", extra, clipText(log, 20000))
		default:
		}
		_, err := g.post("/get_height", nil)
		return err == nil
	})
	return g, stop
}

// buildPruneChain makes the long chain with gonerod (generateblocks at
// fixed difficulty 1 is fast in gonerod; monerod's takes about 0.1-0.2 s a
// block here): the fresh chain (transactions below height 300) extended to
// 4,102, two transactions of alice's wallet mined at 4,102 (stripe 2), the
// chain extended to pruneChainTop-10, one more transaction mined in the
// tip, and the rest to pruneChainTop. It returns gonerod's data directory
// (gonerod stopped).
func buildPruneChain(t *testing.T, lab *monerodlab.Lab, bin string) string {
	t.Helper()
	fresh := lab.FreshChain(t)
	data := importChain(t, bin, fresh)
	g, stop := runGonerod(t, bin, data, "--offline")
	generateTo := func(height uint64) {
		t.Helper()
		for {
			info := g.info(t)
			if info.Height >= height {
				return
			}
			n := min(height-info.Height, 1000)
			if err := g.call("generateblocks", map[string]any{"amount_of_blocks": n, "wallet_address": monerodlab.AliceAddress}, nil); err != nil {
				t.Fatal(err)
			}
		}
	}
	w := lab.OpenWallet(t, fresh, "alice", g.rpcPort)
	send := func() {
		t.Helper()
		if err := w.Call("refresh", struct{}{}, nil); err != nil {
			t.Fatal(err)
		}
		if err := w.Call("transfer", map[string]any{"destinations": []map[string]any{{"amount": 1_000_000_000_000, "address": monerodlab.AliceAddress}},
			"priority": 0}, nil); err != nil {
			t.Fatal(err)
		}
	}
	generateTo(4102)
	send()
	send()
	generateTo(4103)
	generateTo(pruneChainTop - 10)
	send()
	generateTo(pruneChainTop)
	stop()
	return data
}

// exportStore writes gonerod's store in data as an export file.
func exportStore(t *testing.T, data, out string) {
	t.Helper()
	db, err := chaindb.Open(filepath.Join(data, params.Regtest.DataSubdir(), "gonero.db"), chaindb.Options{Network: params.Regtest.String()})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	err = db.View(func(r *chaindb.Reader) error {
		height, err := r.Height()
		if err != nil {
			return err
		}
		w, err := chainexport.Create(out, 0, height-1)
		if err != nil {
			return err
		}
		for h := range height {
			m, err := r.MetaByHeight(h)
			if err != nil {
				return err
			}
			rec := chainexport.Record{BlockWeight: m.Weight, CumulativeDifficulty: m.CumulativeDifficulty, CoinsGenerated: m.GeneratedCoins}
			if rec.BlockBlob, err = r.BlockBlob(h); err != nil {
				return err
			}
			ids, err := r.TxHashes(h)
			if err != nil {
				return err
			}
			rec.TxBlobs = [][]byte{}
			for _, id := range ids {
				b, err := r.TxBlob(id)
				if err != nil {
					return err
				}
				rec.TxBlobs = append(rec.TxBlobs, b)
			}
			if err := w.Write(&rec); err != nil {
				return err
			}
		}
		return w.Close()
	})
	if err != nil {
		t.Fatal(err)
	}
}

// chainTxs lists the transactions of monerod's chain with their heights.
func chainTxs(t *testing.T, m *monerodlab.Monerod) (txs []string, heights map[string]uint64) {
	t.Helper()
	heights = map[string]uint64{}
	for from := uint64(0); from < pruneChainTop; from += 1000 {
		var hr struct {
			Headers []struct {
				Height  uint64 `json:"height"`
				NumTxes uint64 `json:"num_txes"`
			} `json:"headers"`
		}
		if err := m.Call("get_block_headers_range", map[string]any{"start_height": from, "end_height": min(from+999, pruneChainTop-1)}, &hr); err != nil {
			t.Fatal(err)
		}
		for _, h := range hr.Headers {
			if h.NumTxes == 0 {
				continue
			}
			var b struct {
				TxHashes []string `json:"tx_hashes"`
			}
			if err := m.Call("get_block", map[string]any{"height": h.Height}, &b); err != nil {
				t.Fatal(err)
			}
			for _, id := range b.TxHashes {
				txs = append(txs, id)
				heights[id] = h.Height
			}
		}
	}
	return txs, heights
}

// samePrunedTxs compares, tx by tx, gonerod's and the pruned monerod's
// /get_transactions answers in four forms (same bytes), and checks that
// the txs monerod returns without their prunable part are exactly those
// its seed lacks. It returns how many are pruned.
func samePrunedTxs(t *testing.T, g *gonerod, p *monerodlab.Monerod, seed uint32, txs []string, heights map[string]uint64) int {
	t.Helper()
	pruned := 0
	for _, id := range txs {
		h := heights[id]
		want := !pruning.HasUnprunedBlock(h, pruneChainTop, seed)
		for _, form := range []string{`"decode_as_json":true`, `"prune":true`, `"split":true`, `"split":true,"decode_as_json":true`} {
			body := []byte(`{"txs_hashes":["` + id + `"],` + form + `}`)
			ours, err := g.post("/get_transactions", body)
			if err != nil {
				t.Fatal(err)
			}
			theirs, err := p.Post("/get_transactions", body)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(ours, theirs) {
				t.Fatalf("tx %s at height %d, {%s}: gonerod\n%s\nmonerod\n%s", id, h, form, clipText(ours, 3000), clipText(theirs, 3000))
			}
			if form != `"split":true` {
				continue
			}
			var r struct {
				Txs []struct {
					Prunable string `json:"prunable_as_hex"`
				} `json:"txs"`
			}
			if err := json.Unmarshal(theirs, &r); err != nil || len(r.Txs) != 1 {
				t.Fatalf("tx %s: %v %s", id, err, clipText(theirs, 3000))
			}
			if got := r.Txs[0].Prunable == ""; got != want {
				t.Fatalf("tx %s at height %d: returned pruned=%v, seed %#x says %v", id, h, got, seed, want)
			}
			if want {
				pruned++
			}
		}
	}
	if pruned == 0 || pruned == len(txs) {
		t.Fatalf("%d of %d txs pruned: the chain does not tell stripes apart", pruned, len(txs))
	}
	return pruned
}

// sameGetBlocksPruned compares /get_blocks.bin with prune from every height
// holding a transaction (at most 1,000 blocks each): the same bytes from
// gonerod and the pruned monerod, pruned and unpruned blocks alike.
func sameGetBlocksPruned(t *testing.T, g *gonerod, p *monerodlab.Monerod, heights map[string]uint64) {
	t.Helper()
	seen := map[uint64]bool{}
	for _, h := range heights {
		if seen[h] {
			continue
		}
		seen[h] = true
		var s portable.Section
		s.Set("start_height", portable.NewUint64(h))
		s.Set("prune", portable.NewBool(true))
		body, err := portable.Encode(s)
		if err != nil {
			t.Fatal(err)
		}
		ours, err := g.post("/get_blocks.bin", body)
		if err != nil {
			t.Fatal(err)
		}
		theirs, err := p.Post("/get_blocks.bin", body)
		if err != nil {
			t.Fatal(err)
		}
		testutil.SameDaemonTime(t, ours, theirs)
		if !bytes.Equal(ours, theirs) {
			t.Fatalf("/get_blocks.bin prune from %d: gonerod %d bytes, monerod %d bytes, differ", h, len(ours), len(theirs))
		}
	}
}

// samePruneAnswers compares prune_blockchain (check and not) of both.
func samePruneAnswers(t *testing.T, g *gonerod, p *monerodlab.Monerod) pruneAnswer {
	t.Helper()
	var last pruneAnswer
	for _, check := range []bool{true, false, true} {
		var a, b pruneAnswer
		if err := g.call("prune_blockchain", map[string]any{"check": check}, &a); err != nil {
			t.Fatal(err)
		}
		if err := p.Call("prune_blockchain", map[string]any{"check": check}, &b); err != nil {
			t.Fatal(err)
		}
		if a != b {
			t.Fatalf("prune_blockchain check=%v: gonerod %+v, monerod %+v", check, a, b)
		}
		last = a
	}
	return last
}

// The issue's acceptance: "gonerod with --prune-blockchain holds what a
// pruned monerod holds (same stripes), and both sync from each other".
// Steps 2-4 run in every test run (about 3-4 minutes, most of it building
// and importing the 9,800-block chain); steps 1 and 5, where monerod syncs
// thousands of blocks at its regtest pace of 15-30 blocks/s, are a soak that
// runs only with GONERO_PRUNE_TEST=1 (about 7 minutes more; all five took 11
// minutes on a loaded 2-core machine).
//
//  2. A pruned monerod P (--prune-blockchain on the whole chain, its random
//     stripe S) and that gonerod restarted with --prune-blockchain on
//     stripe S (pruning its existing store in place): prune_blockchain
//     answers and /get_transactions answers for every tx in four forms are
//     the same bytes, and the txs returned pruned are those S lacks.
//  3. A gonerod started empty with --prune-blockchain on stripe S syncs
//     from an unpruned monerod; after prune_blockchain (monerod prunes
//     synced blocks only at its 5-hourly update or at this call) it answers
//     as P does, as in 2.
//  4. Pruned to pruned: a pruned gonerod (which never syncs pruned blocks)
//     syncing from P gets only what P holds unpruned from the genesis on:
//     P clips its chain answers at its next pruned height, so the gonerod
//     ends at NextPrunedHeight(0) if S is stripe 1 and at the genesis
//     otherwise. On regtest nothing could serve it the rest in full.
//  1. (soak) A pruned monerod (--prune-blockchain, empty,
//     --sync-pruned-blocks) syncs the whole chain from an unpruned gonerod
//     and ends at the same top. Regtest has no block-hash area, so monerod
//     never asks for pruned blocks (should_ask_for_pruned_data): gonerod's
//     log shows no 2003 with prune=true.
//  5. (soak) Pruned to pruned the other way: a pruned monerod syncing from
//     a gonerod pruned on stripe 1 gets exactly the blocks that gonerod
//     holds from the genesis on (0-4,095: gonerod clips its chain answers
//     at its next pruned height, as monerod does in 4) and goes no further.
func TestPrunedNodesMatchMonerod(t *testing.T) {
	lab := monerodlab.Require(t)
	began := time.Now()
	step := func(format string, args ...any) {
		t.Helper()
		t.Logf("%6.1fs  %s", time.Since(began).Seconds(), fmt.Sprintf(format, args...))
	}
	bin := inProcess
	gdata := buildPruneChain(t, lab, bin)
	step("gonerod built a chain of %d blocks", pruneChainTop)
	raw := filepath.Join(t.TempDir(), "blockchain.raw")
	exportStore(t, gdata, raw)
	mdata := t.TempDir()
	// The import only gives the reference nodes the chain; monerod verifies
	// the same blocks in full when it syncs them from gonerod in step 1.
	if out, err := lab.BlockchainImport(t, mdata, raw, "--dangerous-unverified-import", "1"); err != nil {
		t.Fatalf("monero-blockchain-import: %v\n%s", err, out)
	}
	step("monerod store imported")

	// 2. Pruned monerod and gonerod pruned in place on its stripe.
	p := lab.StartMonerod(t, mdata, "--prune-blockchain")
	var pa pruneAnswer
	if err := p.Call("prune_blockchain", map[string]any{"check": true}, &pa); err != nil || !pa.Pruned || pruning.ValidateSeed(pa.PruningSeed) != nil {
		t.Fatalf("monerod's prune_blockchain check: %+v %v", pa, err)
	}
	stripe := pruning.StripeOf(pa.PruningSeed)
	txs, heights := chainTxs(t, p)
	step("pruned monerod on stripe %d (seed %#x); %d txs on the chain", stripe, pa.PruningSeed, len(txs))
	pdata := filepath.Join(t.TempDir(), "pruned")
	if out, err := exec.Command("cp", "-a", gdata, pdata).CombinedOutput(); err != nil {
		t.Fatalf("copy gonerod's store: %v %s", err, out)
	}
	gp, stopGP := runGonerod(t, bin, pdata, "--offline", "--prune-blockchain", "--prune-blockchain-stripe", strconv.Itoa(int(stripe)))
	if a := samePruneAnswers(t, gp, p); a != pa {
		t.Fatalf("prune_blockchain %+v, first check said %+v", a, pa)
	}
	n := samePrunedTxs(t, gp, p, pa.PruningSeed, txs, heights)
	sameGetBlocksPruned(t, gp, p, heights)
	stopGP()
	step("gonerod pruned in place: %d of %d txs pruned on both, same answers", n, len(txs))

	// 3. Pruned gonerod from unpruned monerod.
	u := lab.StartMonerod(t, mdata, "--online")
	g3, _ := runGonerod(t, bin, t.TempDir(), "--prune-blockchain", "--prune-blockchain-stripe", strconv.Itoa(int(stripe)),
		"--add-exclusive-node", "127.0.0.1:"+strconv.Itoa(u.P2PPort))
	waitFor(t, 10*time.Minute, "the pruned gonerod synchronized from monerod", func() bool {
		return g3.info(t).Height == pruneChainTop
	})
	var ga pruneAnswer
	if err := g3.call("prune_blockchain", map[string]any{"check": false}, &ga); err != nil || ga != pa {
		t.Fatalf("prune_blockchain after the sync: %+v %v (monerod %+v)", ga, err, pa)
	}
	n = samePrunedTxs(t, g3, p, pa.PruningSeed, txs, heights)
	step("pruned gonerod synchronized from monerod: same answers, %d txs pruned", n)
	u.Stop()

	// 4. Pruned gonerod from pruned monerod.
	// This monerod prunes its copy on a stripe of its own choosing.
	p2 := lab.StartMonerod(t, mdata, "--online", "--prune-blockchain")
	var p2a pruneAnswer
	if err := p2.Call("prune_blockchain", map[string]any{"check": true}, &p2a); err != nil || !p2a.Pruned {
		t.Fatalf("second pruned monerod: %+v %v", p2a, err)
	}
	g4, _ := runGonerod(t, bin, t.TempDir(), "--prune-blockchain", "--prune-blockchain-stripe", strconv.Itoa(int(stripe)),
		"--add-exclusive-node", "127.0.0.1:"+strconv.Itoa(p2.P2PPort))
	want := uint64(1)
	if pruning.StripeOf(p2a.PruningSeed) == 1 {
		want = pruning.NextPrunedHeight(0, pruneChainTop, p2a.PruningSeed)
	}
	waitFor(t, 5*time.Minute, fmt.Sprintf("the pruned gonerod at height %d from the pruned monerod", want), func() bool {
		return g4.info(t).Height == want
	})
	time.Sleep(10 * time.Second)
	if h := g4.info(t).Height; h != want {
		t.Fatalf("pruned gonerod went on to height %d from the pruned monerod, want %d", h, want)
	}
	step("pruned gonerod from pruned monerod (seed %#x) stops at height %d", p2a.PruningSeed, want)

	if os.Getenv("GONERO_PRUNE_TEST") == "" {
		t.Log("steps 1 and 5 (monerod syncing 9,800 and 4,096 blocks, about 7 minutes) run with GONERO_PRUNE_TEST=1")
		return
	}

	// 1 (soak). Pruned monerod from unpruned gonerod.
	g, stopG := runGonerod(t, bin, gdata)
	m2 := lab.StartMonerod(t, "", "--online", "--prune-blockchain", "--sync-pruned-blocks", "--add-exclusive-node", "127.0.0.1:"+strconv.Itoa(g.p2pPort))
	gtop := g.info(t).TopHash
	waitFor(t, 40*time.Minute, "the pruned monerod synchronized from gonerod", func() bool {
		mi := monerodInfo(t, m2)
		return mi.Height == pruneChainTop && mi.TopHash == gtop
	})
	var m2a pruneAnswer
	if err := m2.Call("prune_blockchain", map[string]any{"check": true}, &m2a); err != nil || !m2a.Pruned {
		t.Fatalf("the syncing monerod is not pruned: %+v %v", m2a, err)
	}
	m2.Stop()
	stopG()
	log, err := os.ReadFile(g.logPath)
	if err != nil {
		t.Fatal(err)
	}
	served := strings.Count(string(log), `msg="serving objects"`)
	if served == 0 || strings.Contains(string(log), `prune=true`) {
		t.Fatalf("gonerod served %d object requests; prune=true among them: %v", served, strings.Contains(string(log), `prune=true`))
	}
	step("pruned monerod (seed %#x) synchronized from gonerod: %d object requests, none pruned", m2a.PruningSeed, served)

	// 5 (soak). Pruned monerod from a gonerod pruned on stripe 1.
	s1data := filepath.Join(t.TempDir(), "stripe1")
	if out, err := exec.Command("cp", "-a", gdata, s1data).CombinedOutput(); err != nil {
		t.Fatalf("copy gonerod's store: %v %s", err, out)
	}
	g5, _ := runGonerod(t, bin, s1data, "--prune-blockchain", "--prune-blockchain-stripe", "1")
	var g5a pruneAnswer
	if err := g5.call("prune_blockchain", map[string]any{"check": true}, &g5a); err != nil || !g5a.Pruned || pruning.StripeOf(g5a.PruningSeed) != 1 {
		t.Fatalf("gonerod pruned on stripe 1: %+v %v", g5a, err)
	}
	holds := pruning.NextPrunedHeight(0, pruneChainTop, g5a.PruningSeed)
	m5 := lab.StartMonerod(t, "", "--online", "--prune-blockchain", "--add-exclusive-node", "127.0.0.1:"+strconv.Itoa(g5.p2pPort))
	waitFor(t, 30*time.Minute, fmt.Sprintf("the pruned monerod at height %d from the gonerod pruned on stripe 1", holds), func() bool {
		return monerodInfo(t, m5).Height == holds
	})
	time.Sleep(10 * time.Second)
	if h := monerodInfo(t, m5).Height; h != holds {
		t.Fatalf("the pruned monerod went on to height %d from the gonerod pruned on stripe 1, want %d", h, holds)
	}
	step("pruned monerod synchronized from the gonerod pruned on stripe 1 up to height %d, where that gonerod's stripe ends", holds)
}

func clipText(b []byte, n int) string {
	if len(b) > n {
		return string(b[:n]) + "…"
	}
	return string(b)
}
