package importer

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/gonero/gonero/chain"
	"github.com/gonero/gonero/chaindb"
	"github.com/gonero/gonero/chainexport"
	"github.com/gonero/gonero/consensus"
	"github.com/gonero/gonero/cryptonote"
	"github.com/gonero/gonero/internal/monerodlab"
	"github.com/gonero/gonero/internal/testutil"
)

// The block-level oracle: blocks crafted from the regtest chain of testdata, each
// breaking one rule (or none), are imported by monero-blockchain-import
// (monerod v0.18's core, verifying) and by gonero, each into a fresh store,
// and both must give the same verdict. The expected verdict is monerod's,
// read from its store after the import; nothing here says what it should be.
//
// Each crafted chain is an export file: the original blocks 0..H-1, the
// crafted block H, and a sentinel block H+1 whose prev_id names no block.
// The sentinel is there because monero-blockchain-import resumes only when
// the file's last block is above the store's height (blockchain_import.cpp
// import_from_file: `total_source_blocks+block_first-1 <= start_height`
// returns at once), so a file ending at H cannot be imported onto a store
// holding 0..H-1. Both importers stop at it (an orphan for monerod, which
// commits what came before; an unknown parent for gonero), whatever became
// of block H, and the verdict is read for block H alone.
//
// monerod's store for H is a copy of one made once per height from the
// original file (--block-stop H-1), so each case verifies one block; gonero
// imports the whole crafted file into a new store.

// oracleCase is one crafted block.
type oracleCase struct {
	name   string
	height uint64
	// craft changes b (fresh copies of block height's block and txs). After
	// it, the miner output absorbs any change of the fee total (so that only
	// the intended rule breaks), and tx_hashes are recomputed from b.txs.
	craft func(o *oracle, b *crafted) error
}

type crafted struct {
	blk *cryptonote.Block
	txs []*cryptonote.Transaction
}

// oracle holds the original chain and, per base height, a gonero store
// holding blocks 0..H-1 (for the output indexes cases look up).
type oracle struct {
	recs   []*chainexport.Record
	ids    []cryptonote.Hash
	stores map[uint64]*chaindb.DB
}

func (o *oracle) block(h uint64) *crafted {
	rec := o.recs[h]
	blk, err := cryptonote.ParseBlock(rec.BlockBlob)
	if err != nil {
		panic(err)
	}
	c := &crafted{blk: blk}
	for i := range rec.TxBlobs {
		c.txs = append(c.txs, o.tx(h, i))
	}
	return c
}

// tx is a fresh copy of transaction i of block h.
func (o *oracle) tx(h uint64, i int) *cryptonote.Transaction {
	tx, err := cryptonote.ParseTransaction(o.recs[h].TxBlobs[i])
	if err != nil {
		panic(err)
	}
	return tx
}

// outputs calls fn with a reader on the chain 0..h-1 (h a base height).
func (o *oracle) outputs(h uint64, fn func(r *chaindb.Reader) error) error {
	db := o.stores[h]
	if db == nil {
		return fmt.Errorf("no store for base height %d", h)
	}
	return db.View(fn)
}

func fees(txs []*cryptonote.Transaction) (sum uint64) {
	for _, tx := range txs {
		if tx.Rct != nil {
			sum += tx.Rct.TxnFee
		}
	}
	return sum
}

// setRingMember replaces the absolute index of ring member j of input in.
func setRingMember(tx *cryptonote.Transaction, in, j int, index uint64) {
	ki := tx.Inputs[in].(cryptonote.TxInToKey)
	abs := consensus.AbsoluteOffsets(ki.KeyOffsets)
	abs[j] = index
	rel := make([]uint64, len(abs))
	for i := range abs {
		rel[i] = abs[i]
		if i > 0 {
			rel[i] = abs[i] - abs[i-1]
		}
	}
	ki.KeyOffsets = rel
	tx.Inputs[in] = ki
}

// lastRingMember is the absolute index of the last member of input in's ring.
func lastRingMember(tx *cryptonote.Transaction, in int) uint64 {
	abs := consensus.AbsoluteOffsets(tx.Inputs[in].(cryptonote.TxInToKey).KeyOffsets)
	return abs[len(abs)-1]
}

// withOtherExtra gives tx another id without touching its inputs: the
// transaction public key in its extra becomes another valid point (that of
// donor). Its signatures no longer verify (the extra is signed).
func withOtherExtra(tx, donor *cryptonote.Transaction) error {
	if len(tx.Extra) < 33 || tx.Extra[0] != 1 || len(donor.Extra) < 33 || donor.Extra[0] != 1 {
		return errors.New("extra does not start with a transaction public key")
	}
	tx.Extra = append([]byte(nil), tx.Extra...)
	copy(tx.Extra[1:33], donor.Extra[1:33])
	return nil
}

func minerTagged(b *crafted) (*cryptonote.TxOutToTaggedKey, error) {
	t, ok := b.blk.MinerTx.Outputs[0].Target.(cryptonote.TxOutToTaggedKey)
	if !ok {
		return nil, fmt.Errorf("miner output is %T", b.blk.MinerTx.Outputs[0].Target)
	}
	return &t, nil
}

func oracleCases() []oracleCase {
	return []oracleCase{
		{name: "valid block 201 (3 txs)", height: 201, craft: func(*oracle, *crafted) error { return nil }},
		{name: "valid block 290 (4 txs)", height: 290, craft: func(*oracle, *crafted) error { return nil }},
		{name: "miner output view tag changed", height: 201, craft: func(o *oracle, b *crafted) error {
			t, err := minerTagged(b)
			if err != nil {
				return err
			}
			t.ViewTag ^= 0x5a
			b.blk.MinerTx.Outputs[0].Target = *t
			return nil
		}},
		{name: "CLSAG scalar flipped", height: 201, craft: func(o *oracle, b *crafted) error {
			b.txs[0].Rct.Prunable.CLSAGs[0].S[3][0] ^= 1
			return nil
		}},
		{name: "CLSAG c1 flipped (second input)", height: 290, craft: func(o *oracle, b *crafted) error {
			b.txs[2].Rct.Prunable.CLSAGs[1].C1[5] ^= 0x10
			return nil
		}},
		{name: "BP+ proof byte flipped", height: 201, craft: func(o *oracle, b *crafted) error {
			b.txs[1].Rct.Prunable.BulletproofsPlus[0].R1[0] ^= 1
			return nil
		}},
		{name: "pseudo-out changed (balance)", height: 201, craft: func(o *oracle, b *crafted) error {
			p := b.txs[0].Rct.Prunable.PseudoOuts
			p[0] = p[1]
			return nil
		}},
		{name: "txnFee one higher", height: 201, craft: func(o *oracle, b *crafted) error {
			b.txs[2].Rct.TxnFee++
			return nil
		}},
		{name: "two inputs swapped (unsorted key images)", height: 201, craft: func(o *oracle, b *crafted) error {
			tx := b.txs[0]
			tx.Inputs[0], tx.Inputs[1] = tx.Inputs[1], tx.Inputs[0]
			p := tx.Rct.Prunable
			p.CLSAGs[0], p.CLSAGs[1] = p.CLSAGs[1], p.CLSAGs[0]
			p.PseudoOuts[0], p.PseudoOuts[1] = p.PseudoOuts[1], p.PseudoOuts[0]
			return nil
		}},
		{name: "ring member past the outputs", height: 201, craft: func(o *oracle, b *crafted) error {
			return o.outputs(201, func(r *chaindb.Reader) error {
				n, err := r.OutputCount(0)
				if err != nil {
					return err
				}
				setRingMember(b.txs[0], 1, 15, n+3)
				return nil
			})
		}},
		{name: "ring member: newest output (coinbase, locked)", height: 201, craft: func(o *oracle, b *crafted) error {
			return o.outputs(201, func(r *chaindb.Reader) error {
				n, err := r.OutputCount(0)
				if err != nil {
					return err
				}
				e, err := r.Output(0, n-1)
				if err != nil {
					return err
				}
				if e.Height != 200 || e.UnlockTime <= 201 {
					return fmt.Errorf("newest output %d: height %d unlock %d, not block 200's coinbase", n-1, e.Height, e.UnlockTime)
				}
				setRingMember(b.txs[0], 0, 15, n-1)
				return nil
			})
		}},
		{name: "ring member: output younger than 10 blocks", height: 218, craft: func(o *oracle, b *crafted) error {
			return o.outputs(218, func(r *chaindb.Reader) error {
				n, err := r.OutputCount(0)
				if err != nil {
					return err
				}
				tx := b.txs[0]
				for i := n; i > lastRingMember(tx, 0); i-- {
					e, err := r.Output(0, i-1)
					if err != nil {
						return err
					}
					if e.UnlockTime == 0 && e.Height+consensus.TxSpendableAge > 218 {
						setRingMember(tx, 0, 15, i-1)
						return nil
					}
				}
				return errors.New("no unlocked output younger than 10 blocks above the ring")
			})
		}},
		{name: "key image duplicated within a tx", height: 201, craft: func(o *oracle, b *crafted) error {
			tx := b.txs[0]
			in1 := tx.Inputs[1].(cryptonote.TxInToKey)
			in1.KeyImage = tx.Inputs[0].(cryptonote.TxInToKey).KeyImage
			tx.Inputs[1] = in1
			return nil
		}},
		{name: "two txs spending the same key image (copy with another extra)", height: 201, craft: func(o *oracle, b *crafted) error {
			dup := o.tx(201, 0)
			if err := withOtherExtra(dup, b.txs[1]); err != nil {
				return err
			}
			b.txs = append(b.txs, dup)
			return nil
		}},
		{name: "the same tx listed twice", height: 201, craft: func(o *oracle, b *crafted) error {
			b.txs = append(b.txs, o.tx(201, 0))
			return nil
		}},
		{name: "tx already in the chain included again", height: 290, craft: func(o *oracle, b *crafted) error {
			b.txs = append(b.txs, o.tx(201, 1))
			return nil
		}},
		{name: "key image spent earlier on the chain", height: 290, craft: func(o *oracle, b *crafted) error {
			dup := o.tx(201, 1)
			if err := withOtherExtra(dup, o.tx(201, 0)); err != nil {
				return err
			}
			b.txs = append(b.txs, dup)
			return nil
		}},
		{name: "non-tagged output in a tx at HF16", height: 201, craft: func(o *oracle, b *crafted) error {
			out := &b.txs[0].Outputs[0]
			t, ok := out.Target.(cryptonote.TxOutToTaggedKey)
			if !ok {
				return fmt.Errorf("output is %T", out.Target)
			}
			out.Target = cryptonote.TxOutToKey{Key: t.Key}
			return nil
		}},
		{name: "non-tagged miner output at HF16", height: 201, craft: func(o *oracle, b *crafted) error {
			t, err := minerTagged(b)
			if err != nil {
				return err
			}
			b.blk.MinerTx.Outputs[0].Target = cryptonote.TxOutToKey{Key: t.Key}
			return nil
		}},
		{name: "miner tx amount one too high", height: 201, craft: func(o *oracle, b *crafted) error {
			b.blk.MinerTx.Outputs[0].Amount++
			return nil
		}},
		{name: "miner tx amount one too low", height: 201, craft: func(o *oracle, b *crafted) error {
			b.blk.MinerTx.Outputs[0].Amount--
			return nil
		}},
		{name: "no txs, miner tx amount exact", height: 201, craft: func(o *oracle, b *crafted) error {
			b.txs = nil // the miner output loses the fees (below)
			return nil
		}},
		{name: "miner tx unlock time one too high", height: 201, craft: func(o *oracle, b *crafted) error {
			b.blk.MinerTx.UnlockTime++
			return nil
		}},
		{name: "miner tx version 1", height: 201, craft: func(o *oracle, b *crafted) error {
			b.blk.MinerTx.Version, b.blk.MinerTx.Rct = 1, nil
			return nil
		}},
		{name: "tx with one output (proof for two kept)", height: 201, craft: func(o *oracle, b *crafted) error {
			tx := b.txs[0]
			tx.Outputs = tx.Outputs[:1]
			tx.Rct.EcdhInfo = tx.Rct.EcdhInfo[:1]
			tx.Rct.OutPk = tx.Rct.OutPk[:1]
			return nil
		}},
		{name: "block major version 15", height: 201, craft: func(o *oracle, b *crafted) error {
			b.blk.MajorVersion = 15
			return nil
		}},
		{name: "tx version 3", height: 201, craft: func(o *oracle, b *crafted) error {
			b.txs[0].Version = 3
			return nil
		}},
	}
}

// verdict is one importer's outcome for the crafted block.
type verdict struct {
	accepted bool
	height   uint64 // the store's height (number of blocks) afterwards
	rule     string // why it refused: gonero's error, monerod's log
}

func (v verdict) String() string {
	if v.accepted {
		return "accepted"
	}
	return "refused"
}

type oracleResult struct {
	c                 oracleCase
	monerod, gonero   verdict
	monerodT, goneroT time.Duration
}

func TestOracleCraftedBlocksAgainstMonerod(t *testing.T) {
	lab := monerodlab.Require(t)
	start := time.Now()
	path := testutil.Path(t, "testdata", "regtest", "blockchain.raw")
	rd, err := chainexport.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	o := &oracle{stores: map[uint64]*chaindb.DB{}}
	for {
		rec, err := rd.Next()
		if err != nil {
			break
		}
		id, err := rec.Block.ID()
		if err != nil {
			t.Fatal(err)
		}
		o.recs, o.ids = append(o.recs, rec), append(o.ids, id)
	}
	rd.Close()
	if len(o.recs) != 300 {
		t.Fatalf("the regtest chain has %d blocks", len(o.recs))
	}

	cases := oracleCases()
	var heights []uint64
	for _, c := range cases {
		if _, ok := o.stores[c.height]; !ok {
			o.stores[c.height] = nil
			heights = append(heights, c.height)
		}
	}
	sort.Slice(heights, func(i, j int) bool { return heights[i] < heights[j] })

	// gonero stores holding 0..H-1, for the cases' output lookups.
	for _, h := range heights {
		c, db := openChain(t, t.TempDir(), 1)
		defer db.Close()
		if _, err := Import(context.Background(), c, path, h-1, nil); err != nil || c.Height() != h {
			t.Fatalf("importing the original chain to height %d: %v (height %d)", h, err, c.Height())
		}
		o.stores[h] = db
	}

	// monerod stores holding 0..H-1, each built on the previous one.
	bases := map[uint64]string{}
	prev := ""
	for _, h := range heights {
		dir := filepath.Join(t.TempDir(), "base")
		if prev != "" {
			copyDir(t, prev, dir)
		}
		out, err := lab.BlockchainImport(t, dir, path, "--block-stop", fmt.Sprint(h-1))
		if err != nil {
			t.Fatalf("monero-blockchain-import to height %d: %v\n%s", h, err, out)
		}
		bases[h], prev = dir, dir
	}
	t.Logf("base stores at heights %v built in %v", heights, time.Since(start).Round(time.Millisecond))

	results := make([]*oracleResult, len(cases))
	t.Run("cases", func(t *testing.T) {
		for i, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				t.Parallel()
				file, id := o.craft(t, c)
				res := &oracleResult{c: c}
				t0 := time.Now()
				res.monerod = monerodVerdict(t, lab, bases[c.height], file, o, c.height, id)
				res.monerodT = time.Since(t0)
				t0 = time.Now()
				res.gonero = goneroVerdict(t, file, o, c.height, id)
				res.goneroT = time.Since(t0)
				results[i] = res
				if res.monerod.accepted != res.gonero.accepted {
					t.Errorf("monerod %s (%s), gonero %s (%s)", res.monerod, res.monerod.rule, res.gonero, res.gonero.rule)
				}
			})
		}
	})

	var tbl strings.Builder
	fmt.Fprintf(&tbl, "\n%-62s | %-8s | %-8s | %s\n", "case (height)", "monerod", "gonero", "gonero's rule / monerod's log")
	accepted := map[bool]int{}
	var monerodTime, goneroTime time.Duration
	for _, r := range results {
		if r == nil {
			continue
		}
		accepted[r.monerod.accepted]++
		fmt.Fprintf(&tbl, "%-62s | %-8s | %-8s | %s\n", fmt.Sprintf("%s (%d)", r.c.name, r.c.height), r.monerod, r.gonero, r.gonero.rule)
		monerodTime += r.monerodT
		goneroTime += r.goneroT
		if !r.monerod.accepted {
			fmt.Fprintf(&tbl, "%-62s | %-8s | %-8s |   monerod: %s\n", "", "", "", r.monerod.rule)
		}
	}
	t.Logf("%s%d cases: monerod accepted %d, refused %d; monerod %v, gonero %v (summed over cases); total %v", tbl.String(), len(cases),
		accepted[true], accepted[false], monerodTime.Round(time.Millisecond), goneroTime.Round(time.Millisecond), time.Since(start).Round(time.Millisecond))
	// The crafting must not be so broken that monerod refuses everything:
	// the untouched blocks are the control.
	if accepted[true] == 0 {
		t.Error("monerod accepted no crafted block, not even the originals: the crafted files are broken")
	}
}

// craft writes the case's export file and returns it with the crafted
// block's id.
func (o *oracle) craft(t *testing.T, c oracleCase) (string, cryptonote.Hash) {
	t.Helper()
	h := c.height
	b := o.block(h)
	before := fees(b.txs)
	if err := c.craft(o, b); err != nil {
		t.Fatalf("crafting: %v", err)
	}
	// The miner output takes the change of the fee total (block reward is
	// base reward + fees, exactly, at HF16; no weight penalty at these sizes).
	after := fees(b.txs)
	b.blk.MinerTx.Outputs[0].Amount += after - before
	b.blk.TxHashes = b.blk.TxHashes[:0]
	for _, tx := range b.txs {
		b.blk.TxHashes = append(b.blk.TxHashes, tx.ID())
	}
	id, err := b.blk.ID()
	if err != nil {
		t.Fatal(err)
	}
	orig := o.recs[h]
	// The sentinel: block H+1 (or any block) with a prev_id nobody has.
	sentinel, err := cryptonote.ParseBlock(o.recs[h+1].BlockBlob)
	if err != nil {
		t.Fatal(err)
	}
	sentinel.PrevID = cryptonote.Keccak256([]byte("gonero oracle: no such block"))
	sentinel.TxHashes = nil

	file := filepath.Join(t.TempDir(), "crafted.raw")
	w, err := chainexport.Create(file, 0, h+1)
	if err != nil {
		t.Fatal(err)
	}
	for _, rec := range o.recs[:h] {
		if err := w.Write(rec); err != nil {
			t.Fatal(err)
		}
	}
	recs := []*chainexport.Record{
		{Block: b.blk, Txs: b.txs, BlockWeight: orig.BlockWeight, CumulativeDifficulty: orig.CumulativeDifficulty, CoinsGenerated: orig.CoinsGenerated},
		{Block: sentinel, BlockWeight: o.recs[h+1].BlockWeight, CumulativeDifficulty: o.recs[h+1].CumulativeDifficulty, CoinsGenerated: o.recs[h+1].CoinsGenerated},
	}
	for _, rec := range recs {
		if err := w.Write(rec); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return file, id
}

// monerodImports bounds the concurrent monerod processes (import tool and
// the node that reads the result) to what two cores carry.
var monerodImports = make(chan struct{}, 2)

// monerodErrLine picks monerod's error lines (levels E and F) out of the tool's
// output, colour codes removed.
var (
	ansi           = regexp.MustCompile("\x1b\\[[0-9;]*m")
	monerodErrLine = regexp.MustCompile(`\d\d:\d\d:\d\d\.\d+\s+[EF]\s+(.*)`)
)

func monerodReason(out string) string {
	var lines []string
	for _, l := range strings.Split(ansi.ReplaceAllString(out, ""), "\n") {
		if m := monerodErrLine.FindStringSubmatch(l); m != nil {
			msg := strings.TrimSpace(m[1])
			if len(lines) == 0 || lines[len(lines)-1] != msg {
				lines = append(lines, msg)
			}
		}
		if len(lines) == 3 {
			break
		}
	}
	return strings.Join(lines, " / ")
}

// monerodVerdict imports file onto a copy of the store holding 0..h-1 and
// asks monerod, started on the result, for its height and top block.
func monerodVerdict(t *testing.T, lab *monerodlab.Lab, base, file string, o *oracle, h uint64, id cryptonote.Hash) verdict {
	t.Helper()
	monerodImports <- struct{}{}
	defer func() { <-monerodImports }()
	dir := filepath.Join(t.TempDir(), "monerod")
	copyDir(t, base, dir)
	out, err := lab.BlockchainImport(t, dir, file)
	if err != nil {
		t.Fatalf("monero-blockchain-import: %v\n%s", err, out)
	}
	m := lab.StartMonerodOn(t, dir)
	var info struct {
		Height       uint64 `json:"height"`
		TopBlockHash string `json:"top_block_hash"`
	}
	err = m.Call("get_info", nil, &info)
	m.Stop()
	if err != nil {
		t.Fatal(err)
	}
	v := verdict{height: info.Height, rule: monerodReason(out)}
	switch {
	case info.Height == h+1 && info.TopBlockHash == id.String():
		v.accepted = true
	case info.Height == h && info.TopBlockHash == o.ids[h-1].String():
	default:
		t.Fatalf("monerod ended at height %d, top %s: neither the crafted block %s at %d nor block %d\n%s",
			info.Height, info.TopBlockHash, id, h, h-1, out)
	}
	return v
}

// goneroVerdict imports file into a new store.
func goneroVerdict(t *testing.T, file string, o *oracle, h uint64, id cryptonote.Hash) verdict {
	t.Helper()
	c, db := openChain(t, t.TempDir(), 1)
	defer db.Close()
	_, err := Import(context.Background(), c, file, 0, nil)
	v := verdict{height: c.Height()}
	if err == nil {
		t.Fatalf("gonero imported the sentinel block after height %d", h)
	}
	var be *chain.BlockError
	switch {
	case c.Height() == h+1 && c.HashAt(h) == id:
		// Accepted; the import stopped at the sentinel, which must be
		// refused for its unknown parent and nothing else.
		if !errors.As(err, &be) || be.Height != h+1 || !(errors.Is(err, chain.ErrOrphan) || errors.Is(err, chain.ErrPrevMismatch)) {
			t.Fatalf("after accepting block %d gonero stopped with %v; want the sentinel refused as an orphan", h, err)
		}
		v.accepted = true
	case c.Height() == h && c.Top().Hash == o.ids[h-1]:
		v.rule = err.Error()
		var fe *chainexport.FormatError
		if errors.As(err, &be) {
			if be.Height != h {
				t.Fatalf("gonero refused block %d, not the crafted block %d: %v", be.Height, h, err)
			}
			v.rule = be.Rule.String() + ": " + be.Err.Error()
		} else if !errors.As(err, &fe) || fe.Height != h {
			t.Fatalf("gonero stopped at height %d with an error that names no rule of block %d: %v", h, h, err)
		}
	default:
		t.Fatalf("gonero ended at height %d (top %s): neither the crafted block %s nor block %d; error %v",
			c.Height(), c.Top().Hash, id, h-1, err)
	}
	return v
}

// copyDir copies a stopped monerod data directory.
func copyDir(t testing.TB, from, to string) {
	t.Helper()
	if out, err := exec.Command("cp", "-a", from, to).CombinedOutput(); err != nil {
		t.Fatalf("copy %s: %v %s", from, err, out)
	}
}
