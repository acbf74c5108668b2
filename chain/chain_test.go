package chain_test

import (
	"errors"
	"io"
	"path/filepath"
	"testing"
	"time"

	"github.com/gonero/gonero/chain"
	"github.com/gonero/gonero/chaindb"
	"github.com/gonero/gonero/chainexport"
	"github.com/gonero/gonero/consensus"
	"github.com/gonero/gonero/cryptonote"
	"github.com/gonero/gonero/internal/testutil"
	"github.com/gonero/gonero/params"
)

func regtestRecords(t testing.TB) []*chainexport.Record {
	t.Helper()
	rd, err := chainexport.Open(testutil.Path(t, "testdata", "regtest", "blockchain.raw"))
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	var recs []*chainexport.Record
	for {
		rec, err := rd.Next()
		if err == io.EOF {
			return recs
		}
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, rec)
	}
}

func openChain(t testing.TB, cfg chain.Config) (*chain.Chain, *chaindb.DB) {
	t.Helper()
	db, err := chaindb.Open(filepath.Join(t.TempDir(), "chain.db"), chaindb.Options{Network: cfg.Network.String()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	c, err := chain.Open(db, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c, db
}

func add(c *chain.Chain, rec *chainexport.Record) error {
	_, err := c.AddBlock(rec.Block, rec.BlockBlob, rec.Txs, rec.TxBlobs)
	return err
}

// tampered returns a copy of rec's block changed by edit, re-serialized.
func tampered(t *testing.T, rec *chainexport.Record, edit func(b *cryptonote.Block)) *chainexport.Record {
	t.Helper()
	blk, err := cryptonote.ParseBlock(rec.BlockBlob) // a deep copy
	if err != nil {
		t.Fatal(err)
	}
	edit(blk)
	out := *rec
	out.Block, out.BlockBlob = blk, blk.Serialize()
	return &out
}

// Each tampered block is refused with an error naming the rule, and the
// store is left exactly as it was; the genuine block is accepted afterwards.
func TestTamperedBlocksAreRefused(t *testing.T) {
	recs := regtestRecords(t)
	now := time.Unix(int64(recs[len(recs)-1].Block.Timestamp), 0)
	c, db := openChain(t, chain.Config{Network: params.Regtest, FixedDifficulty: 1, Now: func() time.Time { return now }})
	const at = 201 // a block with three transactions, past the 60-block timestamp window
	for _, rec := range recs[1:at] {
		if err := add(c, rec); err != nil {
			t.Fatal(err)
		}
	}
	target := recs[at]
	cases := []struct {
		name string
		rec  *chainexport.Record
		want error
		rule chain.BlockRule
	}{
		{"unknown previous block (orphan)", tampered(t, target, func(b *cryptonote.Block) { b.PrevID[0] ^= 1 }), chain.ErrOrphan, chain.RuleAlternativeChain},
		{"major version not in the fork table", tampered(t, target, func(b *cryptonote.Block) { b.MajorVersion = 15 }), consensus.ErrWrongMajorVersion, chain.RuleHardForkVersion},
		{"vote below the fork version", tampered(t, target, func(b *cryptonote.Block) { b.MinorVersion = 15 }), consensus.ErrVoteTooLow, chain.RuleHardForkVersion},
		{"timestamp below the median of the last 60", tampered(t, target, func(b *cryptonote.Block) { b.Timestamp = recs[at-40].Block.Timestamp - 1 }), consensus.ErrTimestampTooOld, chain.RuleTimestamp},
		{"timestamp over two hours ahead", tampered(t, target, func(b *cryptonote.Block) { b.Timestamp = uint64(now.Unix()) + 7201 }), consensus.ErrTimestampTooNew, chain.RuleTimestamp},
		{"inflated reward", tampered(t, target, func(b *cryptonote.Block) { b.MinerTx.Outputs[0].Amount++ }), consensus.ErrMinerTxOverspend, chain.RuleMinerTxAmount},
		{"reduced reward (exact from v13)", tampered(t, target, func(b *cryptonote.Block) { b.MinerTx.Outputs[0].Amount-- }), consensus.ErrMinerTxNotExact, chain.RuleMinerTxAmount},
		{"miner tx for another height", tampered(t, target, func(b *cryptonote.Block) { b.MinerTx.Inputs[0] = cryptonote.TxInGen{Height: at + 1} }), chain.ErrBadMinerTx, chain.RuleMinerTx},
		{"miner tx unlock time", tampered(t, target, func(b *cryptonote.Block) { b.MinerTx.UnlockTime++ }), chain.ErrBadMinerTx, chain.RuleMinerTx},
		{"miner tx without view tags at v16", tampered(t, target, func(b *cryptonote.Block) {
			k := b.MinerTx.Outputs[0].Target.(cryptonote.TxOutToTaggedKey)
			b.MinerTx.Outputs[0].Target = cryptonote.TxOutToKey{Key: k.Key}
		}), chain.ErrBadMinerTx, chain.RuleMinerTx},
		{"tx_hashes naming another transaction", tampered(t, target, func(b *cryptonote.Block) { b.TxHashes[1][0] ^= 1 }), chain.ErrTxMismatch, chain.RuleTransactions},
	}
	missingTx := *target
	missingTx.Txs, missingTx.TxBlobs = target.Txs[:2], target.TxBlobs[:2]
	cases = append(cases, struct {
		name string
		rec  *chainexport.Record
		want error
		rule chain.BlockRule
	}{"a transaction missing", &missingTx, chain.ErrTxMismatch, chain.RuleTransactions})

	before := snapshot(t, db)
	for _, tc := range cases {
		err := add(c, tc.rec)
		var be *chain.BlockError
		if !errors.Is(err, tc.want) || !errors.As(err, &be) || be.Height != at || be.Rule != tc.rule {
			t.Errorf("%s: got %v, want %v (rule %q)", tc.name, err, tc.want, tc.rule)
			continue
		}
		t.Logf("%s: %v", tc.name, err)
		if after := snapshot(t, db); after != before {
			t.Fatalf("%s: the store changed", tc.name)
		}
		if c.Height() != at {
			t.Fatalf("%s: chain height %d", tc.name, c.Height())
		}
	}
	if err := add(c, target); err != nil {
		t.Fatalf("the genuine block after the refusals: %v", err)
	}
	// A block already in the chain is refused as such.
	if err := add(c, recs[at-1]); !errors.Is(err, chain.ErrAlreadyInChain) {
		t.Fatalf("re-adding block %d: %v", at-1, err)
	}
}

// snapshot summarises the store: height, top hash, tx count and size.
type storeState struct {
	height, txs uint64
	top         cryptonote.Hash
}

func snapshot(t *testing.T, db *chaindb.DB) storeState {
	t.Helper()
	var s storeState
	err := db.View(func(r *chaindb.Reader) error {
		var err error
		if s.height, err = r.Height(); err != nil {
			return err
		}
		top, err := r.Top()
		s.top = top.Hash
		if err != nil {
			return err
		}
		s.txs, err = r.TxCount()
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// Under a real difficulty the proof of work is checked: with no hasher the
// chain says so rather than accepting the block.
func TestPoWNeedsAHasher(t *testing.T) {
	recs := regtestRecords(t)
	c, _ := openChain(t, chain.Config{Network: params.Regtest, FixedDifficulty: 1000})
	err := add(c, recs[1])
	if !errors.Is(err, chain.ErrNoPoWHasher) {
		t.Fatalf("got %v", err)
	}
}

// Without --fixed-difficulty the real algorithm runs: blocks 1 and 2 have
// difficulty 1; block 3 of a chain mined at difficulty 1 seconds apart gets
// a real difficulty that its nonce does not meet.
func TestRealDifficultyAlgorithm(t *testing.T) {
	recs := regtestRecords(t)
	c, _ := openChain(t, chain.Config{Network: params.Regtest, PoW: noHash{}})
	for _, rec := range recs[1:3] {
		if err := add(c, rec); err != nil {
			t.Fatal(err)
		}
	}
	if d := c.Top().Difficulty; d.Lo != 1 || d.Hi != 0 {
		t.Fatalf("difficulty of block 2 = %v, want 1", d)
	}
	err := add(c, recs[3])
	var pe *consensus.PoWError
	if !errors.As(err, &pe) {
		t.Fatalf("block 3: %v", err)
	}
	// (ts[1..2], cumulative 2..3): work 1 over span ts2-ts1 (at least 1), target 120.
	span := recs[2].Block.Timestamp - recs[1].Block.Timestamp
	if span == 0 {
		span = 1
	}
	if want := (120 + span - 1) / span; pe.Difficulty.Lo != want {
		t.Fatalf("difficulty of block 3 = %v, want %d", pe.Difficulty, want)
	}
}

// noHash returns the all-ones hash, which meets no difficulty above 1.
type noHash struct{}

func (noHash) Hash(seed [32]byte, input []byte) ([32]byte, error) {
	var h [32]byte
	for i := range h {
		h[i] = 0xff
	}
	return h, nil
}
