package txpool

import (
	"errors"
	"sync"
	"testing"

	"github.com/gonero/gonero/consensus"
	"github.com/gonero/gonero/cryptonote"
)

// gatedVerifier is fakeVerifier whose CheckPoolTx, for the ids held,
// reports that it entered verification and waits for the test to release
// it (once per id); it counts the verifications of each id.
type gatedVerifier struct {
	fakeVerifier
	entered chan cryptonote.Hash
	mu      sync.Mutex
	held    map[cryptonote.Hash]chan struct{}
	calls   map[cryptonote.Hash]int
}

func newGatedVerifier() *gatedVerifier {
	return &gatedVerifier{fakeVerifier: fakeVerifier{invalid: map[cryptonote.Hash]bool{}, inChain: map[cryptonote.Hash]bool{}},
		entered: make(chan cryptonote.Hash, 8), held: map[cryptonote.Hash]chan struct{}{}, calls: map[cryptonote.Hash]int{}}
}

// hold makes the next verification of id wait; closing the channel releases it.
func (g *gatedVerifier) hold(id cryptonote.Hash) chan struct{} {
	g.mu.Lock()
	defer g.mu.Unlock()
	ch := make(chan struct{})
	g.held[id] = ch
	return ch
}

func (g *gatedVerifier) count(id cryptonote.Hash) int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.calls[id]
}

func (g *gatedVerifier) CheckPoolTx(tx *cryptonote.Transaction, id cryptonote.Hash, blob []byte, keptByBlock bool, inPool func(cryptonote.Key) bool) (uint64, uint64, error) {
	g.mu.Lock()
	g.calls[id]++
	ch := g.held[id]
	delete(g.held, id)
	g.mu.Unlock()
	if ch != nil {
		g.entered <- id
		<-ch
	}
	return g.fakeVerifier.CheckPoolTx(tx, id, blob, keptByBlock, inPool)
}

type addResult struct {
	e   *Entry
	err error
}

func addAsync(p *Pool, blob []byte) chan addResult {
	out := make(chan addResult, 1)
	go func() {
		e, err := p.Add(blob, AddOptions{Source: SourceP2P})
		out <- addResult{e, err}
	}()
	return out
}

// While a transaction is inside verification, every cheap read of the pool
// completes: verification holds no lock they need (before, Add held the
// pool's lock throughout, and these reads waited until it was released:
// here, for ever).
func TestVerificationDoesNotBlockReads(t *testing.T) {
	v := newGatedVerifier()
	p := New(v, Options{})
	inPool, inPoolBlob := fakeTx(5, 2, 1)
	if _, err := p.Add(inPoolBlob, AddOptions{Source: SourceRPC}); err != nil {
		t.Fatal(err)
	}
	tx, blob := fakeTx(7, 3, 2)
	release := v.hold(tx.ID())
	res := addAsync(p, blob)
	if id := <-v.entered; id != tx.ID() {
		t.Fatalf("verifying %s, want %s", id, tx.ID())
	}
	// Verification is blocked: the reads must still answer.
	if n := p.Len(); n != 1 {
		t.Errorf("Len = %d during verification, want 1", n)
	}
	if w := p.Weight(); w != 200 {
		t.Errorf("Weight = %d during verification, want 200", w)
	}
	if n, _ := p.Stats(); n != 1 {
		t.Errorf("Stats count = %d, want 1", n)
	}
	if h := p.Hashes(); len(h) != 1 || h[0] != inPool.ID() {
		t.Errorf("Hashes = %v, want [%s]", h, inPool.ID())
	}
	if len(p.Entries()) != 1 || len(p.Snapshot()) != 1 || len(p.PublicEntries()) != 1 {
		t.Error("Entries, Snapshot or PublicEntries miss the pool transaction")
	}
	if p.Has(tx.ID()) || !p.Has(inPool.ID()) || !p.KeyImageInPool(cryptonote.Key{1}) {
		t.Error("Has or KeyImageInPool wrong during verification")
	}
	close(release)
	r := <-res
	if r.err != nil {
		t.Fatalf("Add: %v", r.err)
	}
	if !p.Has(tx.ID()) || p.Len() != 2 {
		t.Fatal("the verified transaction did not enter the pool")
	}
}

// Two transactions spending one key image, verified at once: the first to
// finish enters, the other is refused a double spend, as monerod (one
// transaction at a time) refuses the second, and the one in the pool is
// marked as double-spent.
func TestConcurrentDoubleSpend(t *testing.T) {
	v := newGatedVerifier()
	p := New(v, Options{VerifySlots: 2}) // both inside verification at once, whatever the cores
	a, ab := fakeTx(5, 2, 1)
	b, bb := fakeTx(6, 2, 1, 2)
	releaseA, releaseB := v.hold(a.ID()), v.hold(b.ID())
	resA := addAsync(p, ab)
	<-v.entered
	resB := addAsync(p, bb)
	<-v.entered
	close(releaseA)
	if r := <-resA; r.err != nil {
		t.Fatalf("first: %v", r.err)
	}
	close(releaseB)
	r := <-resB
	var te *consensus.TxError
	if !errors.As(r.err, &te) || te.Rule != consensus.RuleKeyImageInPool || te.Flags&consensus.FlagDoubleSpend == 0 {
		t.Fatalf("second: %v, want a key image in the pool (double spend)", r.err)
	}
	if p.Has(b.ID()) || !p.Has(a.ID()) {
		t.Fatal("wrong transaction in the pool")
	}
	if e, _ := p.Get(a.ID()); !e.DoubleSpendSeen {
		t.Error("the pool transaction is not marked double-spent")
	}
	if p.KeyImageInPool(cryptonote.Key{2}) {
		t.Error("the refused transaction's key image is in the pool")
	}
}

// The same transaction arriving twice at once is verified once: the second
// Add waits for the first and finds it in the pool.
func TestConcurrentSameTransaction(t *testing.T) {
	v := newGatedVerifier()
	p := New(v, Options{})
	tx, blob := fakeTx(5, 2, 1)
	release := v.hold(tx.ID())
	first := addAsync(p, blob)
	<-v.entered
	second := addAsync(p, blob)
	// The second cannot finish before the first: it waits on it.
	close(release)
	if r := <-first; r.err != nil {
		t.Fatal(r.err)
	}
	if r := <-second; !errors.Is(r.err, ErrAlreadyInPool) || r.e == nil || r.e.ID != tx.ID() {
		t.Fatalf("second Add: %v, want ErrAlreadyInPool with the entry", r.err)
	}
	if n := v.count(tx.ID()); n != 1 {
		t.Errorf("verified %d times, want once", n)
	}
}

// A chain change during verification sends it round again against the new
// chain: a transaction a block included meanwhile is not added.
func TestChainChangeDuringVerification(t *testing.T) {
	v := newGatedVerifier()
	p := New(v, Options{})
	tx, blob := fakeTx(5, 2, 1)
	release := v.hold(tx.ID())
	res := addAsync(p, blob)
	<-v.entered
	v.inChain[tx.ID()] = true // the block including it is on the chain
	p.BlockAdded([]*cryptonote.Transaction{tx}, []cryptonote.Hash{tx.ID()})
	close(release)
	if r := <-res; !errors.Is(r.err, ErrAlreadyInChain) {
		t.Fatalf("Add: %v, want ErrAlreadyInChain", r.err)
	}
	if p.Has(tx.ID()) || p.KeyImageInPool(cryptonote.Key{1}) {
		t.Fatal("a transaction of the chain entered the pool")
	}
}

type panickyVerifier struct{ fakeVerifier }

func (panickyVerifier) CheckPoolTx(*cryptonote.Transaction, cryptonote.Hash, []byte, bool, func(cryptonote.Key) bool) (uint64, uint64, error) {
	panic("verifier bug")
}

// A verifier that panics outside the lock leaves the pool usable: the id
// is no longer marked in verification and its slot is free, so the same
// transaction can be tried again and the reads answer.
func TestVerifierPanicLeavesPoolUsable(t *testing.T) {
	p := New(&panickyVerifier{}, Options{})
	_, blob := fakeTx(5, 2, 1)
	for range cap(p.verifySlots) + 1 {
		func() {
			defer func() {
				if recover() == nil {
					t.Fatal("the verifier's panic did not reach the caller")
				}
			}()
			_, _ = p.Add(blob, AddOptions{Source: SourceRPC})
		}()
	}
	if p.Len() != 0 || len(p.verifying) != 0 {
		t.Fatal("the pool kept state from a panicked verification")
	}
}
