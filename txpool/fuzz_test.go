package txpool

import (
	"sync"
	"testing"

	"github.com/gonero/gonero/chain"
	"github.com/gonero/gonero/internal/testutil"
)

var (
	fuzzOnce  sync.Once
	fuzzChain *chain.Chain
)

// FuzzPoolAdd sends random and mutated real transactions through the whole
// verifier (parse, semantics, RingCT proofs, inputs against the real
// chain's indexes, signatures): never a panic, and nothing but the one
// valid seed is ever accepted unchanged.
func FuzzPoolAdd(f *testing.F) {
	valid := testutil.WalletTx(f, "2-transfer.jsonl", 14)
	f.Add(valid)
	f.Add(testutil.WalletTx(f, "6-sweep-all.jsonl", 15))
	f.Add([]byte{2, 0, 1, 2, 0})
	f.Fuzz(func(t *testing.T, blob []byte) {
		fuzzOnce.Do(func() {
			// One chain per fuzz worker process, kept for its lifetime.
			fuzzChain, _ = openChainNoCleanup(t, testutil.Path(t, "testdata", "regtest", "blockchain.raw"))
		})
		p := New(fuzzChain, Options{})
		e, err := p.Add(blob, AddOptions{Source: SourceP2P})
		if err == nil && string(e.Blob) != string(valid) {
			t.Fatalf("a mutated transaction %s was accepted", e.ID)
		}
	})
}
