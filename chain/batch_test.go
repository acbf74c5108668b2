package chain_test

import (
	"errors"
	"testing"
	"time"

	"github.com/gonero/gonero/chain"
	"github.com/gonero/gonero/chaindb"
	"github.com/gonero/gonero/chainexport"
	"github.com/gonero/gonero/consensus"
	"github.com/gonero/gonero/cryptonote"
	"github.com/gonero/gonero/params"
)

func batchOf(recs []*chainexport.Record) []chain.BatchBlock {
	out := make([]chain.BatchBlock, len(recs))
	for i, r := range recs {
		out[i] = chain.BatchBlock{Block: r.Block, Blob: r.BlockBlob, Txs: r.Txs, TxBlobs: r.TxBlobs}
	}
	return out
}

// Blocks added in batches end up exactly as blocks added one by one: the
// same metadata at every height, the same counters, and the listeners
// hear every block in order.
func TestAddBatchMatchesAddBlock(t *testing.T) {
	recs := regtestRecords(t)
	one, _ := openChain(t, chain.Config{Network: params.Regtest, FixedDifficulty: 1})
	for _, rec := range recs[1:] {
		if err := add(one, rec); err != nil {
			t.Fatal(err)
		}
	}
	batched, _ := openChain(t, chain.Config{Network: params.Regtest, FixedDifficulty: 1})
	next := uint64(1)
	batched.OnMainChainChange(func(ch chain.MainChainChange) {
		for _, b := range ch.Added {
			if b.Meta.Height != next {
				t.Errorf("listener heard height %d, want %d", b.Meta.Height, next)
			}
			next++
		}
	})
	for from := 1; from < len(recs); from += 20 {
		batch := batchOf(recs[from:min(from+20, len(recs))])
		n, err := batched.AddBatch(batch)
		if err != nil || n != len(batch) {
			t.Fatalf("batch from %d: %d of %d added, %v", from, n, len(batch), err)
		}
	}
	if next != uint64(len(recs)) {
		t.Fatalf("listener heard %d blocks, want %d", next-1, len(recs)-1)
	}
	a, b := one.NextBlockFacts(), batched.NextBlockFacts()
	if a != b {
		t.Fatalf("after one by one: %+v\nafter batches:  %+v", a, b)
	}
	for h := uint64(0); h < one.Height(); h++ {
		var ma, mb chaindb.BlockMeta
		_ = one.Store().View(func(r *chaindb.Reader) (err error) { ma, err = r.MetaByHeight(h); return })
		_ = batched.Store().View(func(r *chaindb.Reader) (err error) { mb, err = r.MetaByHeight(h); return })
		if ma != mb {
			t.Fatalf("height %d: %+v vs %+v", h, ma, mb)
		}
	}
}

// A refused block in a batch keeps the blocks before it and nothing from
// it on; a block that does not extend the top (here one already added)
// ends the batch without an error, for Add to handle.
func TestAddBatchStops(t *testing.T) {
	recs := regtestRecords(t)
	c, _ := openChain(t, chain.Config{Network: params.Regtest, FixedDifficulty: 1})
	bad := tampered(t, recs[3], func(b *cryptonote.Block) { b.MinerTx.UnlockTime++ })
	n, err := c.AddBatch(batchOf([]*chainexport.Record{recs[1], recs[2], bad, recs[4]}))
	var be *chain.BlockError
	if n != 2 || !errors.As(err, &be) || be.Height != 3 || !errors.Is(err, chain.ErrBadMinerTx) {
		t.Fatalf("batch with a bad third block: %d added, %v", n, err)
	}
	if id2, _ := recs[2].Block.ID(); c.Height() != 3 || c.Top().Hash != id2 {
		t.Fatalf("height %d, top %s after the refused block", c.Height(), c.Top().Hash)
	}
	n, err = c.AddBatch(batchOf([]*chainexport.Record{recs[3], recs[3], recs[4]}))
	if n != 1 || err != nil {
		t.Fatalf("batch repeating a block: %d added, %v; want 1, nil", n, err)
	}
	if err := add(c, recs[4]); err != nil {
		t.Fatal(err)
	}
}

// A batch verifies its signatures aside while it checks its later blocks;
// a block with a bad CLSAG in the middle of a batch is still refused with
// the error a block-by-block check gives, the blocks before it committed
// and nothing after, and the genuine block goes in after it.
func TestAddBatchBadSignature(t *testing.T) {
	recs := regtestRecords(t)
	now := time.Unix(int64(recs[len(recs)-1].Block.Timestamp), 0)
	cfg := chain.Config{Network: params.Regtest, FixedDifficulty: 1, Now: func() time.Time { return now }}
	const at = 201 // three CLSAG/BP+ transactions
	badSig := withTx(t, recs[at], 2, func(tx *cryptonote.Transaction) { tx.Rct.Prunable.CLSAGs[0].S[5][0] ^= 1 })

	one, _ := openChain(t, cfg)
	for _, rec := range recs[1:at] {
		if err := add(one, rec); err != nil {
			t.Fatal(err)
		}
	}
	want := add(one, badSig)
	if !errors.Is(want, consensus.ErrSignature) {
		t.Fatalf("block by block: %v, want a signature error", want)
	}

	batched, _ := openChain(t, cfg)
	// The blocks after the bad one do not extend it: the batch stops there.
	blocks := append(append(append([]*chainexport.Record{}, recs[1:at]...), badSig), recs[at+1:]...)
	n, err := batched.AddBatch(batchOf(blocks))
	if n != at-1 || err == nil || err.Error() != want.Error() {
		t.Fatalf("batch: %d added, %v; want %d, %v", n, err, at-1, want)
	}
	if batched.Height() != at || batched.Top().Hash != one.Top().Hash {
		t.Fatalf("batch: height %d top %s, want %d %s", batched.Height(), batched.Top().Hash, at, one.Top().Hash)
	}
	if n, err := batched.AddBatch(batchOf(recs[at:])); n != len(recs)-at || err != nil {
		t.Fatalf("the genuine blocks after: %d added, %v", n, err)
	}
}
