package chain

import (
	"errors"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/gonero/gonero/chaindb"
	"github.com/gonero/gonero/consensus"
	"github.com/gonero/gonero/cryptonote"
	"github.com/gonero/gonero/params"
)

// synthOn builds a block at height h on prev with timestamp ts; nonce tells
// competing blocks apart. Its miner tx pays amount.
func synthOn(prev cryptonote.Hash, h, ts uint64, nonce uint32, amount uint64) *cryptonote.Block {
	blk := &cryptonote.Block{}
	blk.MajorVersion, blk.MinorVersion = 16, 16
	blk.Timestamp, blk.PrevID, blk.Nonce = ts, prev, nonce
	blk.MinerTx = cryptonote.Transaction{
		Version: 2, UnlockTime: h + 60,
		Inputs:  []cryptonote.TxIn{cryptonote.TxInGen{Height: h}},
		Outputs: []cryptonote.TxOut{{Amount: amount, Target: cryptonote.TxOutToTaggedKey{}}},
		Extra:   []byte{},
		Rct:     &cryptonote.RctSig{Type: 0},
	}
	return blk
}

// addOn adds a block on prev, paying the exact reward the chain asks for
// (learnt from its refusal of a 1-atomic-unit reward).
func addOn(c *Chain, prev cryptonote.Hash, h, ts uint64, nonce uint32) (AddBlockResult, *cryptonote.Block, error) {
	blk := synthOn(prev, h, ts, nonce, 1)
	res, err := c.Add(blk, blk.Serialize(), nil, nil)
	var ae *consensus.MinerTxAmountError
	if errors.As(err, &ae) {
		blk = synthOn(prev, h, ts, nonce, ae.Reward+ae.Fees)
		res, err = c.Add(blk, blk.Serialize(), nil, nil)
	}
	return res, blk, err
}

func openAt(t *testing.T, path string, cfg Config) (*Chain, *chaindb.DB) {
	t.Helper()
	db, err := chaindb.Open(path, chaindb.Options{Network: cfg.Network.String()})
	if err != nil {
		t.Fatal(err)
	}
	c, err := Open(db, cfg)
	if err != nil {
		db.Close()
		t.Fatal(err)
	}
	return c, db
}

// mainMetas and altMetas read a store's chain and alternative blocks.
func mainMetas(t *testing.T, c *Chain) []chaindb.BlockMeta {
	t.Helper()
	var metas []chaindb.BlockMeta
	if err := c.Store().View(func(r *chaindb.Reader) error {
		h, err := r.Height()
		if err != nil {
			return err
		}
		metas, err = r.MetasInRange(0, h)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	return metas
}

func altMetas(t *testing.T, c *Chain) map[cryptonote.Hash]chaindb.BlockMeta {
	t.Helper()
	out := map[cryptonote.Hash]chaindb.BlockMeta{}
	if err := c.Store().View(func(r *chaindb.Reader) error {
		metas, err := r.AltBlockMetas()
		for _, m := range metas {
			out[m.Hash] = m
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

// A reorganisation deeper than every window (timestamps 60, weights 100,
// difficulty 735) under the real difficulty algorithm: every alternative
// block gets the meta a node that only ever saw its chain computes (a
// reference chain fed the same blocks in order), the switch happens at the
// first alternative block with strictly more cumulative difficulty, and
// afterwards the store, the next-block figures and the next block's meta
// equal the reference's — also after a restart. The old main blocks are
// alternatives with their metas unchanged.
func TestDeepReorgRealDifficulty(t *testing.T) {
	now := time.Unix(1<<40, 0)
	cfg := Config{Network: params.Regtest, PoW: zeroHash{}, Now: func() time.Time { return now }}
	dir := t.TempDir()
	c, db := openAt(t, filepath.Join(dir, "chain.db"), cfg)
	defer func() { db.Close() }()
	ref, refDB := openAt(t, filepath.Join(dir, "ref.db"), cfg)
	defer refDB.Close()

	const T0 = 1_700_000_000
	const split = 100
	const mainLen = 900 // the main chain's top is at height mainLen-1
	ts := uint64(T0)
	for h := uint64(1); h < mainLen; h++ {
		ts += 100 + (h*7919)%61
		res, blk, err := addOn(c, c.Top().Hash, h, ts, 0)
		if err != nil || !res.MainChain {
			t.Fatalf("main h=%d: %v %+v", h, err, res)
		}
		if h < split {
			if _, err := ref.AddBlock(blk, blk.Serialize(), nil, nil); err != nil {
				t.Fatalf("reference h=%d: %v", h, err)
			}
		}
	}
	oldMain := mainMetas(t, c)
	mainCum := c.Top().CumulativeDifficulty

	// The alternative branch from block split-1: blocks 60-80 s apart, so
	// its difficulty climbs above the main chain's and it overtakes it.
	ts = oldMain[split-1].Timestamp
	prev := oldMain[split-1].Hash
	var switched bool
	var h uint64
	for h = split; !switched; h++ {
		if h > 3000 {
			t.Fatal("the alternative branch never overtook the main chain")
		}
		ts += 60 + (h*31)%21
		res, blk, err := addOn(c, prev, h, ts, 1)
		if err != nil {
			t.Fatalf("alt h=%d: %v", h, err)
		}
		want, err := ref.AddBlock(blk, blk.Serialize(), nil, nil)
		if err != nil {
			t.Fatalf("reference h=%d: %v", h, err)
		}
		if res.Meta != want {
			t.Fatalf("alt h=%d: meta %+v, reference %+v", h, res.Meta, want)
		}
		more := want.CumulativeDifficulty.Cmp(mainCum) > 0
		if res.MainChain != more || res.Reorganized != more {
			t.Fatalf("alt h=%d: cumulative %v vs main %v, result %+v", h, want.CumulativeDifficulty, mainCum, res)
		}
		if !more && c.Top() != oldMain[mainLen-1] {
			t.Fatalf("alt h=%d: the main top moved before the switch", h)
		}
		if more {
			switched = true
			if res.Popped != mainLen-split {
				t.Fatalf("popped %d, want %d", res.Popped, mainLen-split)
			}
		}
		prev = mustID(blk)
	}
	t.Logf("switched at alternative height %d (%d blocks above the split), %d main blocks popped", h-1, h-split, mainLen-split)

	check := func(when string) {
		t.Helper()
		if got, want := mainMetas(t, c), mainMetas(t, ref); !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: main chain differs from the reference (%d vs %d blocks)", when, len(got), len(want))
		}
		got, want := c.NextBlockFacts(), ref.NextBlockFacts()
		got.AltBlockCount, want.AltBlockCount = 0, 0
		if got != want {
			t.Fatalf("%s: next-block figures %+v, reference %+v", when, got, want)
		}
		alts := altMetas(t, c)
		if uint64(len(alts)) != c.NextBlockFacts().AltBlockCount || len(alts) != mainLen-split {
			t.Fatalf("%s: %d alternative blocks, counter %d, want %d", when, len(alts), c.NextBlockFacts().AltBlockCount, mainLen-split)
		}
		for _, m := range oldMain[split:] {
			if alts[m.Hash] != m {
				t.Fatalf("%s: old main block %d is not an alternative with its meta", when, m.Height)
			}
			if !c.HasBlock(m.Hash) || c.IsMainChain(m.Hash) {
				t.Fatalf("%s: old main block %d: HasBlock %v IsMainChain %v", when, m.Height, c.HasBlock(m.Hash), c.IsMainChain(m.Hash))
			}
		}
		if !c.IsMainChain(c.Top().Hash) {
			t.Fatalf("%s: the top is not on the main chain", when)
		}
	}
	check("after the switch")
	// One more block on both: the rebuilt windows give the same meta.
	ts += 70
	res, blk, err := addOn(c, c.Top().Hash, c.Height(), ts, 2)
	if err != nil {
		t.Fatal(err)
	}
	if want, err := ref.AddBlock(blk, blk.Serialize(), nil, nil); err != nil || want != res.Meta {
		t.Fatalf("next block: %+v, reference %+v %v", res.Meta, want, err)
	}
	check("after one more block")
	db.Close()
	c, db = openAt(t, filepath.Join(dir, "chain.db"), cfg)
	check("after a restart")
}

// Equal cumulative difficulty does not switch (monerod switches only on
// strictly more); one more block does. Known blocks and orphans are refused
// as such.
func TestEqualWorkDoesNotSwitch(t *testing.T) {
	now := time.Unix(1<<40, 0)
	c, db := openAt(t, filepath.Join(t.TempDir(), "chain.db"), Config{Network: params.Regtest, FixedDifficulty: 1, Now: func() time.Time { return now }})
	defer db.Close()
	ts := uint64(1_700_000_000)
	for h := uint64(1); h < 80; h++ {
		ts += 120
		if _, _, err := addOn(c, c.Top().Hash, h, ts, 0); err != nil {
			t.Fatal(err)
		}
	}
	metas := mainMetas(t, c)
	top := c.Top()
	prev := metas[76].Hash
	var alt []*cryptonote.Block
	for h := uint64(77); h < 80; h++ {
		res, blk, err := addOn(c, prev, h, metas[h].Timestamp+1, 9)
		if err != nil {
			t.Fatalf("alt h=%d: %v", h, err)
		}
		if res.MainChain || c.Top() != top {
			t.Fatalf("alt h=%d (cumulative %v, main %v): switched", h, res.Meta.CumulativeDifficulty, top.CumulativeDifficulty)
		}
		alt = append(alt, blk)
		prev = mustID(blk)
	}
	if got := c.NextBlockFacts().AltBlockCount; got != 3 {
		t.Fatalf("alt_blocks_count %d", got)
	}
	// Known blocks, main or alternative.
	for _, blk := range []*cryptonote.Block{alt[1]} {
		if _, err := c.AddBlock(blk, blk.Serialize(), nil, nil); !errors.Is(err, ErrAlreadyInChain) {
			t.Fatalf("re-adding an alternative block: %v", err)
		}
	}
	// An orphan: its parent is nowhere.
	orphan := synthOn(cryptonote.Hash{1}, 81, ts, 0, 1)
	var be *BlockError
	if _, err := c.AddBlock(orphan, orphan.Serialize(), nil, nil); !errors.Is(err, ErrOrphan) || !errors.As(err, &be) {
		t.Fatalf("orphan: %v", err)
	}
	res, blk, err := addOn(c, prev, 80, ts+200, 9)
	if err != nil || !res.Reorganized || res.Popped != 3 || c.Top().Hash != mustID(blk) {
		t.Fatalf("the fourth alternative block: %+v %v", res, err)
	}
	if got := c.NextBlockFacts().AltBlockCount; got != 3 {
		t.Fatalf("alt_blocks_count after the switch %d", got)
	}
	for _, m := range metas[77:] {
		if c.IsMainChain(m.Hash) || !c.HasBlock(m.Hash) {
			t.Fatalf("old main block %d is not an alternative", m.Height)
		}
	}
}

// A switch whose third block breaks a main-chain rule (a timestamp beyond
// the future limit, which monerod does not check for alternative blocks)
// fails: the main chain stays exactly as it was, the bad block and all its
// descendants (on this branch and on a side branch) are discarded, and the
// good block before it stays an alternative.
func TestFailedSwitchKeepsMainChain(t *testing.T) {
	now := time.Unix(1_700_100_000, 0)
	c, db := openAt(t, filepath.Join(t.TempDir(), "chain.db"), Config{Network: params.Regtest, FixedDifficulty: 1, Now: func() time.Time { return now }})
	defer db.Close()
	ts := uint64(1_700_000_000)
	for h := uint64(1); h < 70; h++ {
		ts += 120
		if _, _, err := addOn(c, c.Top().Hash, h, ts, 0); err != nil {
			t.Fatal(err)
		}
	}
	before := mainMetas(t, c)
	facts := c.NextBlockFacts()
	const split = 66
	future := uint64(now.Unix()) + consensus.BlockFutureTimeLimit + 1
	add := func(prev cryptonote.Hash, h, ts uint64, nonce uint32) (cryptonote.Hash, AddBlockResult, error) {
		res, blk, err := addOn(c, prev, h, ts, nonce)
		return mustID(blk), res, err
	}
	good, _, err := add(before[split-1].Hash, split, before[split].Timestamp+1, 5)
	if err != nil {
		t.Fatal(err)
	}
	bad, _, err := add(good, split+1, future, 5)
	if err != nil {
		t.Fatalf("a future timestamp on an alternative block: %v", err)
	}
	side, _, err := add(bad, split+2, before[split+2].Timestamp, 6) // a side branch on the bad block
	if err != nil {
		t.Fatal(err)
	}
	next, _, err := add(bad, split+2, before[split+2].Timestamp+1, 5)
	if err != nil {
		t.Fatal(err)
	}
	last, res, err := add(next, split+3, before[split+2].Timestamp+2, 5)
	if err != nil || res.MainChain {
		t.Fatalf("an alternative block as long as the main chain: %+v %v", res, err)
	}
	_, _, err = add(last, split+4, before[split+2].Timestamp+3, 5)
	var be *BlockError
	if !errors.Is(err, consensus.ErrTimestampTooNew) || !errors.As(err, &be) || be.Hash != bad {
		t.Fatalf("the switch: %v", err)
	}
	t.Logf("refused: %v", err)
	if after := mainMetas(t, c); !reflect.DeepEqual(after, before) {
		t.Fatal("the main chain changed")
	}
	if got := c.NextBlockFacts(); got.AltBlockCount != 1 || got.Top != facts.Top || got.Difficulty != facts.Difficulty {
		t.Fatalf("next-block figures after the failed switch: %+v", got)
	}
	if !c.HasBlock(good) || c.HasBlock(bad) || c.HasBlock(side) || c.HasBlock(next) || c.HasBlock(last) {
		t.Fatalf("kept: good %v bad %v side %v next %v last %v", c.HasBlock(good), c.HasBlock(bad), c.HasBlock(side), c.HasBlock(next), c.HasBlock(last))
	}
	if alts := altMetas(t, c); len(alts) != 1 {
		t.Fatalf("%d alternative blocks stored", len(alts))
	}
	// The main chain still grows.
	if res, _, err := addOn(c, c.Top().Hash, c.Height(), ts+120, 0); err != nil || !res.MainChain {
		t.Fatalf("extending the kept main chain: %v", err)
	}
}

func mustID(blk *cryptonote.Block) cryptonote.Hash {
	id, err := blk.ID()
	if err != nil {
		panic(err)
	}
	return id
}
