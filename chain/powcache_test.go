package chain_test

import (
	"errors"
	"sync/atomic"
	"testing"

	"github.com/gonero/gonero/chain"
	"github.com/gonero/gonero/consensus"
	"github.com/gonero/gonero/cryptonote"
	"github.com/gonero/gonero/params"
)

// countingHasher counts its hashes and returns hash for every input.
type countingHasher struct {
	n    atomic.Int32
	hash [32]byte
}

func (h *countingHasher) Hash(seed [32]byte, input []byte) ([32]byte, error) {
	h.n.Add(1)
	return h.hash, nil
}

// Proofs of work computed ahead (as the P2P sync's workers do) are what
// AddBlock then checks: no block is hashed twice. A hash computed under
// another seed or height is not used, and a precomputed hash that misses
// the difficulty still gets the block refused.
func TestPrecomputedPoW(t *testing.T) {
	recs := regtestRecords(t)
	hasher := &countingHasher{} // the zero hash meets every difficulty
	c, _ := openChain(t, chain.Config{Network: params.Regtest, FixedDifficulty: 1000, PoW: hasher})
	genesis := c.HashAt(0)
	const n = 10
	for h := uint64(1); h <= n; h++ {
		if err := c.PrecomputePoW(recs[h].Block, h, genesis); err != nil {
			t.Fatal(err)
		}
	}
	if got := hasher.n.Load(); got != n {
		t.Fatalf("%d hashes computed ahead for %d blocks", got, n)
	}
	for _, rec := range recs[1 : n+1] {
		if err := add(c, rec); err != nil {
			t.Fatal(err)
		}
	}
	if got := hasher.n.Load(); got != n {
		t.Fatalf("adding the %d blocks hashed %d more times", n, got-n)
	}

	// Wrong seed, wrong height: not used, the writer hashes itself.
	if err := c.PrecomputePoW(recs[n+1].Block, n+1, cryptonote.Hash{1}); err != nil {
		t.Fatal(err)
	}
	if err := c.PrecomputePoW(recs[n+1].Block, n+2, genesis); err != nil {
		t.Fatal(err)
	}
	before := hasher.n.Load()
	if err := add(c, recs[n+1]); err != nil {
		t.Fatal(err)
	}
	if got := hasher.n.Load(); got != before+1 {
		t.Fatalf("block %d with only wrongly keyed hashes ahead: %d hashes when added, want 1", n+1, got-before)
	}

	// A hash computed ahead that misses the difficulty refuses the block.
	hasher.hash = [32]byte{0: 0xff, 31: 0xff}
	if err := c.PrecomputePoW(recs[n+2].Block, n+2, genesis); err != nil {
		t.Fatal(err)
	}
	before = hasher.n.Load()
	var pe *consensus.PoWError
	if err := add(c, recs[n+2]); !errors.As(err, &pe) {
		t.Fatalf("block %d with a failing hash computed ahead: %v", n+2, err)
	}
	if got := hasher.n.Load(); got != before {
		t.Fatalf("the failing hash was computed again (%d hashes)", got-before)
	}
	if c.Height() != n+2 {
		t.Fatalf("height %d after the refused block, want %d", c.Height(), n+2)
	}
}

// preparingHasher is a countingHasher that records the seeds it is asked to
// prepare (chain.SeedPreparer).
type preparingHasher struct {
	countingHasher
	prepared []cryptonote.Hash
}

func (h *preparingHasher) Prepare(seed [32]byte) error {
	h.prepared = append(h.prepared, seed)
	return nil
}

// Where the proof of work is hashed, the seed the next block needs is
// prepared when the chain opens, before any block is checked (a node's
// first block after a start), and again after each block. Where it is not
// (difficulty 1, as on fixed-difficulty regtest), no seed memory is built.
func TestSeedPreparedAhead(t *testing.T) {
	recs := regtestRecords(t)
	hasher := &preparingHasher{}
	c, db := openChain(t, chain.Config{Network: params.Regtest, FixedDifficulty: 1000, PoW: hasher})
	genesis := c.HashAt(0) // regtest's seed up to height 2112
	if len(hasher.prepared) == 0 || hasher.prepared[len(hasher.prepared)-1] != genesis {
		t.Fatalf("prepared %v on opening, want the genesis id %s last", hasher.prepared, genesis)
	}
	if hasher.n.Load() != 0 {
		t.Fatalf("%d hashes before any block", hasher.n.Load())
	}
	hasher.prepared = nil
	if err := add(c, recs[1]); err != nil {
		t.Fatal(err)
	}
	if len(hasher.prepared) != 1 || hasher.prepared[0] != genesis {
		t.Fatalf("prepared %v after block 1, want [%s]", hasher.prepared, genesis)
	}

	// Reopened on the same store (a restart): prepared at once.
	hasher.prepared = nil
	if _, err := chain.Open(db, chain.Config{Network: params.Regtest, FixedDifficulty: 1000, PoW: hasher}); err != nil {
		t.Fatal(err)
	}
	if len(hasher.prepared) != 1 || hasher.prepared[0] != genesis {
		t.Fatalf("prepared %v on reopening, want [%s]", hasher.prepared, genesis)
	}

	easy := &preparingHasher{}
	c, _ = openChain(t, chain.Config{Network: params.Regtest, FixedDifficulty: 1, PoW: easy})
	for _, rec := range recs[1:4] {
		if err := add(c, rec); err != nil {
			t.Fatal(err)
		}
	}
	if len(easy.prepared) != 0 || easy.n.Load() != 0 {
		t.Fatalf("difficulty 1: prepared %v, %d hashes; want none", easy.prepared, easy.n.Load())
	}
}
