package main

import (
	"bytes"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/gonero/gonero/cryptonote"
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
