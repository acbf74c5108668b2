package ringct

import (
	"errors"
	"math/rand"
	"sync"
	"testing"

	"github.com/gonero/gonero/cryptonote"
	"github.com/gonero/gonero/internal/boundedcache"
)

// TestCLSAGKeyCache: a signature verifies the same with its ring keys in
// the cache, from many goroutines at once; a changed key misses the cache
// and fails; a key or commitment that does not decode is refused every time
// and never cached; the cache stays bounded.
func TestCLSAGKeyCache(t *testing.T) {
	v := loadCLSAGVector(t)
	p := v.tx.Rct.Prunable
	verify := func(i int, ring []RingMember) error {
		ki := v.tx.Inputs[i].(cryptonote.TxInToKey).KeyImage
		return VerifyCLSAG(v.msg, ring, p.PseudoOuts[i], ki, &p.CLSAGs[i])
	}
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range v.rings {
				errs <- verify(i, v.rings[i])
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	for j := range v.rings[0] {
		if _, ok := ringKeys.Get(v.rings[0][j]); !ok {
			t.Fatalf("ring key %d not cached", j)
		}
	}

	// One bit of one key flipped: another key, which must not verify.
	ring := append([]RingMember(nil), v.rings[0]...)
	ring[5].Dest[0] ^= 1
	if err := verify(0, ring); err == nil {
		t.Fatal("a changed ring key verified")
	}
	if err := verify(0, v.rings[0]); err != nil {
		t.Fatalf("after a miss: %v", err)
	}

	// A key that does not decode (y = p, not canonical).
	bad := append([]RingMember(nil), v.rings[0]...)
	bad[3].Dest = [32]byte{0xed, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f}
	for range 2 {
		if err := verify(0, bad); !errors.Is(err, ErrPoint) {
			t.Fatalf("undecodable ring key: %v", err)
		}
	}
	if _, ok := ringKeys.Get(bad[3]); ok {
		t.Fatal("an undecodable key was cached")
	}

	// A cached key with a commitment that does not decode: another
	// member, refused.
	badC := append([]RingMember(nil), v.rings[0]...)
	badC[7].Mask = bad[3].Dest
	if err := verify(0, badC); !errors.Is(err, ErrPoint) {
		t.Fatalf("undecodable commitment: %v", err)
	}

	c := boundedcache.New[RingMember, keyPoints](keyCacheSize, 0, nil)
	kp, _ := ringKeys.Get(v.rings[0][0])
	for i := range keyCacheSize + 10 {
		var k RingMember
		k.Dest[0], k.Dest[1], k.Dest[2] = byte(i), byte(i>>8), byte(i>>16)
		c.Put(k, kp)
	}
	if n := c.Len(); n != keyCacheSize {
		t.Fatalf("%d entries, bound %d", n, keyCacheSize)
	}
}

// BenchmarkRingKeyCache is the cache's own cost on a stream of ring members
// drawn as wallets draw decoys, a few often and most rarely (Zipf over a
// million outputs): a look-up, and a store after each miss, evicting once
// the cache is full. It reports the hit rate.
func BenchmarkRingKeyCache(b *testing.B) {
	z := rand.NewZipf(rand.New(rand.NewSource(1)), 1.01, 1, 1_000_000)
	keys := make([]RingMember, 1<<20)
	for i := range keys {
		n := z.Uint64()
		keys[i].Dest[0], keys[i].Dest[1], keys[i].Dest[2] = byte(n), byte(n>>8), byte(n>>16)
	}
	c := boundedcache.New[RingMember, keyPoints](keyCacheSize, 0, nil)
	hits, i := 0, 0
	for b.Loop() {
		k := keys[i%len(keys)]
		i++
		if _, ok := c.Get(k); ok {
			hits++
		} else {
			c.Put(k, keyPoints{})
		}
	}
	b.ReportMetric(100*float64(hits)/float64(i), "hit%")
}
