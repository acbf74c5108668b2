package miner

import (
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gonero/gonero/chain"
	"github.com/gonero/gonero/consensus"
	"github.com/gonero/gonero/cryptonote"
	"github.com/gonero/gonero/randomx"
)

// countedHasher counts the hashes of a real RandomX hasher and passes its
// seed preparation on (chain.SeedPreparer).
type countedHasher struct {
	*randomx.Hasher
	n atomic.Int64
	// hashing, if set, is called as each hash begins.
	hashing func()
}

func (h *countedHasher) Hash(seed [32]byte, input []byte) ([32]byte, error) {
	h.n.Add(1)
	if h.hashing != nil {
		h.hashing()
	}
	return h.Hasher.Hash(seed, input)
}

// A block submitted on the chain's top has its proof of work hashed once:
// computed before the chain's lock and taken by the chain's check, which
// still compares it with the difficulty: a block whose hash misses it is
// refused, again after a single hash.
func TestSubmitHashesOnce(t *testing.T) {
	rx, err := randomx.New(randomx.Options{VMs: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer rx.Close()
	pow := &countedHasher{Hasher: rx}
	c := openChain(t, 2, pow, nil)
	m := New(c, Options{Workers: 1})

	submit := submitter(t, m, rx, pow)
	for range 3 {
		height := c.Height()
		hashes, err := submit(true)
		if err != nil {
			t.Fatal(err)
		}
		if c.Height() != height+1 {
			t.Fatalf("the submitted block at height %d was not added", height)
		}
		if hashes != 1 {
			t.Fatalf("submitting the block at height %d hashed its proof of work %d times, want 1", height, hashes)
		}
	}
	height := c.Height()
	hashes, err := submit(false)
	var pe *consensus.PoWError
	if !errors.As(err, &pe) || c.Height() != height {
		t.Fatalf("a block missing the difficulty: %v, height %d -> %d", err, height, c.Height())
	}
	if hashes != 1 {
		t.Fatalf("refusing a block missing the difficulty took %d hashes, want 1", hashes)
	}
}

// submitter returns a function that builds a template on the top whose
// nonce meets the difficulty (meets true) or misses it, submits it, and
// returns what Submit said and the number of hashes it computed.
func submitter(t *testing.T, m *Miner, rx *randomx.Hasher, pow *countedHasher) func(meets bool) (int64, error) {
	return func(meets bool) (int64, error) {
		tpl, err := m.NewTemplate(testAddress(t))
		if err != nil {
			t.Error(err)
			return 0, err
		}
		for nonce := uint32(0); ; nonce++ {
			tpl.Block.Nonce = nonce
			h, err := consensus.BlockPoWHash(rx, tpl.Height, tpl.Block.MajorVersion, tpl.Seed, tpl.Block.HashingBlob())
			if err != nil {
				t.Error(err)
				return 0, err
			}
			if consensus.CheckPoWHash(h, tpl.Difficulty) == meets {
				break
			}
		}
		blob := tpl.Block.Serialize()
		blk, err := cryptonote.ParseBlock(blob)
		if err != nil {
			t.Error(err)
			return 0, err
		}
		before := pow.n.Load()
		_, err = m.Submit(blk, blob)
		return pow.n.Load() - before, err
	}
}

// The submitted block is hashed before chain.Add takes the writer's lock:
// while its hash runs, another writer-side call (registering a listener,
// which takes that lock) goes through. Were the hash under the lock, that
// call would wait for it, and this test fail after 10 s.
func TestSubmitHashesOutsideTheWriterLock(t *testing.T) {
	rx, err := randomx.New(randomx.Options{VMs: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer rx.Close()
	pow := &countedHasher{Hasher: rx}
	c := openChain(t, 2, pow, nil)
	m := New(c, Options{Workers: 1})

	entered, release := make(chan struct{}), make(chan struct{})
	pow.hashing = func() {
		close(entered)
		<-release
	}
	type result struct {
		err    error
		hashes int64
	}
	done := make(chan result, 1)
	go func() {
		hashes, err := submitter(t, m, rx, pow)(true)
		done <- result{err, hashes}
	}()
	<-entered
	registered := make(chan struct{})
	go func() {
		c.OnMainChainChange(func(chain.MainChainChange) {})
		close(registered)
	}()
	select {
	case <-registered:
	case <-time.After(10 * time.Second):
		t.Error("the chain's writer lock was held while the submitted block was hashed")
	}
	close(release)
	r := <-done
	if r.err != nil || r.hashes != 1 || c.Height() != 2 {
		t.Fatalf("submit: %v, %d hashes, height %d; want the block added after one hash", r.err, r.hashes, c.Height())
	}
}
