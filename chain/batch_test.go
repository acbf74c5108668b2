package chain_test

import (
	"errors"
	"testing"

	"github.com/gonero/gonero/chain"
	"github.com/gonero/gonero/chaindb"
	"github.com/gonero/gonero/chainexport"
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
