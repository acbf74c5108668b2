package main

import (
	"bytes"
	"math/rand/v2"
	"path/filepath"
	"testing"
	"time"

	"github.com/gonero/gonero/chain"
	"github.com/gonero/gonero/chaindb"
	"github.com/gonero/gonero/cryptonote"
	"github.com/gonero/gonero/params"
	"github.com/gonero/gonero/pruning"
)

// Every era's synthetic txs must parse with gonero's own decoder (the store
// parses them on Append) and re-serialise to the same bytes.
func TestEveryEraParses(t *testing.T) {
	g := &gen{rng: rand.New(rand.NewPCG(1, 2)), weights: []uint64{80000}, endTime: 1 << 40}
	for _, h := range []uint64{100, 1_100_000, 1_300_000, 1_700_000, 2_300_000, 3_000_000} {
		for range 50 {
			tx := g.tx(h)
			blob := tx.Serialize()
			got, err := cryptonote.ParseTransaction(blob)
			if err != nil {
				t.Fatalf("height %d: %v", h, err)
			}
			if !bytes.Equal(got.Serialize(), blob) {
				t.Fatalf("height %d: round trip differs", h)
			}
		}
		m := g.minerTx(h, h, 600_000_000_000)
		if _, err := cryptonote.ParseTransaction(m.Serialize()); err != nil {
			t.Fatalf("miner tx at %d: %v", h, err)
		}
	}
}

// The commit table's percentiles are nearest-rank: the p99 of 100 batches
// is the second slowest, of fewer than 100 the slowest; the shares
// split the summed Update time.
func TestSummarise(t *testing.T) {
	var st []batchStat
	for i := 1; i <= 100; i++ {
		d := time.Duration(i) * time.Millisecond
		st = append(st, batchStat{total: d, append: d / 2, spill: d / 4, write: d / 8, wait: d / 2})
	}
	l := summarise(st)
	if l.p50 != 50 || l.p99 != 99 || l.max != 100 || l.cp99 != 49.5 || l.own99 != 49.5 {
		t.Fatalf("p50 %v p99 %v max %v commit p99 %v own p99 %v, want 50 99 100 49.5 49.5", l.p50, l.p99, l.max, l.cp99, l.own99)
	}
	if l.appendP != 50 || l.spillP != 25 || l.writeP != 12.5 || l.otherP != 12.5 || l.waitP != 50 {
		t.Fatalf("shares append %v spill %v write %v other %v wait %v", l.appendP, l.spillP, l.writeP, l.otherP, l.waitP)
	}
	if l := summarise(st[:10]); l.p99 != 10 || l.max != 10 {
		t.Fatalf("10 batches: p99 %v max %v, want 10 10", l.p99, l.max)
	}
}

// pruneSample leaves the sample alone in the store, every v2 tx of it
// pruned as a node of the stripe prunes it below the tip, its blocks and
// the rest of its txs' data untouched.
func TestPruneSample(t *testing.T) {
	db, err := chaindb.Open(filepath.Join(t.TempDir(), "gonero.db"), chaindb.Options{Network: params.Regtest.String()})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := chain.Open(db, chain.Config{Network: params.Regtest, FixedDifficulty: 1}); err != nil {
		t.Fatal(err)
	}
	var top chaindb.BlockMeta
	if err := db.View(func(r *chaindb.Reader) (err error) { top, err = r.Top(); return err }); err != nil {
		t.Fatal(err)
	}
	g := &gen{rng: rand.New(rand.NewPCG(1, 2)), scale: 0.2, weights: []uint64{80000}, endTime: 1 << 40, offset: 3_000_000, prev: top}
	const n = 40
	var txs []chaindb.TxRecord
	if err := db.Update(func(w *chaindb.Writer) error {
		for h := uint64(1); h <= n; h++ {
			rec := g.block(h)
			txs = append(txs, rec.Txs...)
			if err := w.Append(rec); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(txs) == 0 {
		t.Fatal("the sample has no txs to prune")
	}
	pruneSample(db, g, 2, 500)
	err = db.View(func(r *chaindb.Reader) error {
		if h, err := r.Height(); err != nil || h != n+1 {
			t.Fatalf("height %d after pruning (%v), want %d", h, err, n+1)
		}
		if seed, err := r.PruningSeed(); err != nil || seed != pruning.SeedForStripe(2) {
			t.Fatalf("seed %#x (%v), want stripe 2's", seed, err)
		}
		for _, tx := range txs {
			p, err := r.TxParts(tx.Hash)
			if err != nil {
				return err
			}
			if p.HasPrunable || !bytes.HasPrefix(tx.Blob, p.Pruned) || len(p.Pruned) >= len(tx.Blob) {
				t.Fatalf("tx %s: prunable part kept %v, %d of %d bytes stored", tx.Hash, p.HasPrunable, len(p.Pruned), len(tx.Blob))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
