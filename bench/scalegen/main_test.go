package main

import (
	"bytes"
	"math/rand/v2"
	"testing"

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
