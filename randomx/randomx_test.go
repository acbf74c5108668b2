package randomx

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"
)

func mustHex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func newHasher(t testing.TB, opts Options) *Hasher {
	t.Helper()
	h, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(h.Close)
	return h
}

// seedOf builds a distinct 32-byte seed for tests.
func seedOf(b byte) (seed [32]byte) {
	for i := range seed {
		seed[i] = b + byte(i)
	}
	return seed
}

// checkInvariants verifies, between operations, the bookkeeping that keeps C
// memory safe: at most keptSeeds seeds allocated, all of them listed in
// recent, nobody holding a reference, and every idle VM reading one of them.
func checkInvariants(t *testing.T, h *Hasher, maxVMs int) {
	t.Helper()
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.seeds) > keptSeeds || len(h.recent) != len(h.seeds) {
		t.Errorf("%d seeds allocated, %d recent; want equal and at most %d", len(h.seeds), len(h.recent), keptSeeds)
	}
	for _, s := range h.recent {
		if h.seeds[s.key] != s {
			t.Errorf("recent seed %q is not in seeds", s.key)
		}
		if s.users != 0 {
			t.Errorf("seed %q has %d users while idle", s.key, s.users)
		}
	}
	if len(h.idle) > maxVMs {
		t.Errorf("%d idle VMs, bound is %d", len(h.idle), maxVMs)
	}
	for _, m := range h.idle {
		if h.seeds[m.seed.key] != m.seed {
			t.Errorf("idle VM reads seed %q, which is no longer allocated", m.seed.key)
		}
	}
	if len(h.vmSlots) != 0 {
		t.Errorf("%d VM slots still taken", len(h.vmSlots))
	}
}

// The tevador/RandomX reference vectors (README and tests).
func TestKnownAnswers(t *testing.T) {
	h := newHasher(t, Options{})
	for _, v := range []struct{ key, input, want string }{
		{"test key 000", "This is a test", "639183aae1bf4c9a35884cb46b09cad9175f04efd7684e7262a0ac1c2f0b4e3f"},
		{"test key 000", "Lorem ipsum dolor sit amet", "300a0adb47603dedb42228ccb2b211104f4da45af709cd7547cd049e9489c969"},
		{"test key 000", "sed do eiusmod tempor incididunt ut labore et dolore magna aliqua", "c36d4ed4191e617309867ed66a443be4075014e2b061bcdaf9ce7b721d2b77a8"},
		{"test key 001", "sed do eiusmod tempor incididunt ut labore et dolore magna aliqua", "e9ff4503201c0c2cca26d285c93ae883f9b1d30c9eb240b820756f2d5a7905fc"},
	} {
		got, err := h.HashWithKey([]byte(v.key), []byte(v.input))
		if err != nil {
			t.Fatal(err)
		}
		if hex.EncodeToString(got[:]) != v.want {
			t.Errorf("key %q input %q: got %x, want %s", v.key, v.input, got, v.want)
		}
	}
}

// monerod's calc_pow answer for mainnet height 2286447 (captured by Cuprate,
// testdata/mainnet/rpc/calc_pow_2286447.json): a 32-byte seed
// block id, as the node uses it.
func TestMainnetCalcPow(t *testing.T) {
	h := newHasher(t, Options{VMs: 1})
	seed := [32]byte(mustHex(t, "d432f499205150873b2572b5f033c9c6e4b7c6f3394bd2dd93822cd7085e7307"))
	blob := mustHex(t, "0e0ed286da8006ecdc1aab3033cf1716c52f13f9d8ae0051615a2453643de94643b550d543becd0000000002abc78b0101ffefc68b0101fcfcf0d4b422025014bb4a1eade6622fd781cb1063381cad396efa69719b41aa28b4fce8c7ad4b5f019ce1dc670456b24a5e03c2d9058a2df10fec779e2579753b1847b74ee644f16b023c00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000051399a1bc46a846474f5b33db24eae173a26393b976054ee14f9feefe99925233802867097564c9db7a36af5bb5ed33ab46e63092bd8d32cef121608c3258edd55562812e21cc7e3ac73045745a72f7d74581d9a0849d6f30e8b2923171253e864f4e9ddea3acb5bc755f1c4a878130a70c26297540bc0b7a57affb6b35c1f03d8dbd54ece8457531f8cba15bb74516779c01193e212050423020e45aa2c15dcb")
	const want = "d0402d6834e26fb94a9ce38c6424d27d2069896a9b8b1ce685d79936bca6e0a8"
	got, err := h.Hash(seed, blob)
	if err != nil {
		t.Fatal(err)
	}
	if hex.EncodeToString(got[:]) != want {
		t.Errorf("got %x, want %s", got, want)
	}
	// Hash is HashWithKey on the seed's bytes.
	viaKey, err := h.HashWithKey(seed[:], blob)
	if err != nil || viaKey != got {
		t.Errorf("HashWithKey = %x, %v; want %x", viaKey, err, got)
	}
}

func TestEmptyKeyAndInput(t *testing.T) {
	h := newHasher(t, Options{VMs: 1})
	a, err := h.HashWithKey(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := h.HashWithKey([]byte{}, []byte{})
	if err != nil {
		t.Fatal(err)
	}
	if a != b || a == [32]byte{} {
		t.Errorf("empty key and input: %x then %x", a, b)
	}
}

// Using a third seed evicts the least recently used one; asking for that one
// again rebuilds it and still gives the same hashes.
func TestEvictionRebuilds(t *testing.T) {
	h := newHasher(t, Options{VMs: 1})
	input := []byte("eviction")
	first := map[byte][32]byte{}
	for _, b := range []byte{1, 2, 3, 1} {
		got, err := h.Hash(seedOf(b), input)
		if err != nil {
			t.Fatal(err)
		}
		if want, ok := first[b]; ok && got != want {
			t.Errorf("seed %d after rebuild: %x, want %x", b, got, want)
		}
		first[b] = got
		checkInvariants(t, h, 1)
	}
	if h.seedBuilds != 4 {
		t.Errorf("%d seed builds, want 4 (seed 1 evicted by seed 3, then rebuilt)", h.seedBuilds)
	}
	// Seeds 3 and 1 are kept: using them again builds nothing.
	for _, b := range []byte{3, 1} {
		if _, err := h.Hash(seedOf(b), input); err != nil {
			t.Fatal(err)
		}
	}
	if h.seedBuilds != 4 {
		t.Errorf("%d seed builds after reusing kept seeds, want 4", h.seedBuilds)
	}
}

// Concurrent callers needing the same new seed share one build.
func TestOneBuildPerSeed(t *testing.T) {
	h := newHasher(t, Options{VMs: 2})
	const callers = 8
	var wg sync.WaitGroup
	results := make([][32]byte, callers)
	errs := make([]error, callers)
	for i := range callers {
		wg.Go(func() { results[i], errs[i] = h.Hash(seedOf(7), []byte("same")) })
	}
	wg.Wait()
	for i := range callers {
		if errs[i] != nil || results[i] != results[0] {
			t.Errorf("caller %d: %x, %v; caller 0: %x", i, results[i], errs[i], results[0])
		}
	}
	if h.seedBuilds != 1 {
		t.Errorf("%d builds for one seed, want 1", h.seedBuilds)
	}
	checkInvariants(t, h, 2)
}

// Many goroutines alternate between two seeds while a third one keeps forcing
// evictions; every hash must equal the one computed serially.
func TestConcurrentMatchesSerial(t *testing.T) {
	seeds := [][32]byte{seedOf(10), seedOf(20), seedOf(30)}
	input := func(i int) []byte { return fmt.Appendf(nil, "input %d", i) }
	const inputs = 3

	serial := newHasher(t, Options{VMs: 1})
	want := make([][inputs][32]byte, len(seeds))
	for s := range seeds {
		for i := range inputs {
			var err error
			if want[s][i], err = serial.Hash(seeds[s], input(i)); err != nil {
				t.Fatal(err)
			}
		}
	}
	serial.Close()

	const vms = 4
	h := newHasher(t, Options{VMs: vms})
	const goroutines, rounds = 8, 6
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			for r := range rounds {
				s := (g + r) % 2
				if g%4 == 3 && r == 2 {
					s = 2 // the third seed, evicting whichever of the two is older
				}
				i := (g*rounds + r) % inputs
				got, err := h.Hash(seeds[s], input(i))
				if err != nil {
					t.Error(err)
					return
				}
				if got != want[s][i] {
					t.Errorf("goroutine %d round %d seed %d input %d: %x, want %x", g, r, s, i, got, want[s][i])
				}
			}
		})
	}
	wg.Wait()
	checkInvariants(t, h, vms)
	t.Logf("%d seed builds for %d seeds", h.seedBuilds, len(seeds))
}

func TestHashAfterClose(t *testing.T) {
	h := newHasher(t, Options{VMs: 1})
	if _, err := h.HashWithKey([]byte("k"), []byte("x")); err != nil {
		t.Fatal(err)
	}
	h.Close()
	if _, err := h.HashWithKey([]byte("k"), []byte("x")); !errors.Is(err, ErrClosed) {
		t.Errorf("Hash after Close: %v, want ErrClosed", err)
	}
	h.Close() // a second Close is harmless
	if len(h.seeds) != 0 || len(h.idle) != 0 {
		t.Errorf("after Close: %d seeds, %d VMs still held", len(h.seeds), len(h.idle))
	}
}

// Close while a hash is running and others are queued: each one either
// finishes correctly or reports ErrClosed. The test holds the only VM until
// all six callers hold the seed (and so wait for a VM), then lets one hash
// finish before closing, so that Close meets the rest running or queued
// whatever the machine's load.
func TestCloseWhileHashing(t *testing.T) {
	const callers = 6
	key := []byte("closing")
	h := newHasher(t, Options{VMs: 1})
	want, err := h.HashWithKey(key, []byte("x"))
	if err != nil {
		t.Fatal(err)
	}
	h.vmSlots <- struct{}{} // occupy the only VM
	results := make(chan error, callers)
	for range callers {
		go func() {
			got, err := h.HashWithKey(key, []byte("x"))
			if err == nil && got != want {
				err = fmt.Errorf("got %x, want %x", got, want)
			}
			results <- err
		}()
	}
	waitUntil(t, "every caller to hold the seed", func() bool {
		h.mu.Lock()
		defer h.mu.Unlock()
		return h.seeds[string(key)].users == callers
	})
	<-h.vmSlots // the queue moves
	if err := <-results; err != nil {
		t.Fatalf("the first hash, before Close: %v", err)
	}
	h.Close()
	for range callers - 1 {
		if err := <-results; err != nil && !errors.Is(err, ErrClosed) {
			t.Errorf("%v; want the hash or ErrClosed", err)
		}
	}
}

// waitUntil polls cond until it holds, failing the test after a minute.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); !cond(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

func TestContextWhileVMsBusy(t *testing.T) {
	h := newHasher(t, Options{VMs: 1})
	key := []byte("ctx")
	if _, err := h.HashWithKey(key, []byte("warm")); err != nil {
		t.Fatal(err)
	}
	h.vmSlots <- struct{}{} // occupy the only VM
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, err := h.HashWithKeyContext(ctx, key, []byte("x")); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("got %v, want DeadlineExceeded", err)
	}
	<-h.vmSlots
	checkInvariants(t, h, 1)

	cancelled, cancel2 := context.WithCancel(context.Background())
	cancel2()
	if _, err := h.HashContext(cancelled, seedOf(1), []byte("x")); !errors.Is(err, context.Canceled) {
		t.Errorf("got %v, want Canceled", err)
	}
}

// A caller that stops waiting for a seed build does not cancel the build:
// others still get the seed, built once.
func TestContextWhileSeedBuilds(t *testing.T) {
	h := newHasher(t, Options{VMs: 1})
	ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
	defer cancel()
	if _, err := h.HashContext(ctx, seedOf(5), []byte("x")); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("got %v, want DeadlineExceeded", err)
	}
	if _, err := h.Hash(seedOf(5), []byte("x")); err != nil {
		t.Fatal(err)
	}
	if h.seedBuilds != 1 {
		t.Errorf("%d builds, want 1", h.seedBuilds)
	}
	checkInvariants(t, h, 1)
}

// Fast mode needs 2 GiB per seed and about half a minute per build on two
// cores, so it runs only on request.
func TestFullMemory(t *testing.T) {
	if os.Getenv("RANDOMX_TEST_FULL_MEMORY") == "" {
		t.Skip("set RANDOMX_TEST_FULL_MEMORY=1 to build a 2 GiB dataset")
	}
	h := newHasher(t, Options{FullMemory: true})
	got, err := h.HashWithKey([]byte("test key 000"), []byte("This is a test"))
	if err != nil {
		t.Fatal(err)
	}
	const want = "639183aae1bf4c9a35884cb46b09cad9175f04efd7684e7262a0ac1c2f0b4e3f"
	if hex.EncodeToString(got[:]) != want {
		t.Errorf("got %x, want %s", got, want)
	}
	start := time.Now()
	const n = 100
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			if _, err := h.HashWithKey([]byte("test key 000"), fmt.Appendf(nil, "%d", i)); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	t.Logf("fast mode: %.0f hashes/s", n/time.Since(start).Seconds())
}

// BenchmarkHash measures light-mode throughput with a built cache, all VMs
// busy.
func BenchmarkHash(b *testing.B) {
	h := newHasher(b, Options{})
	seed := seedOf(42)
	if _, err := h.Hash(seed, []byte("warm")); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		input := make([]byte, 76) // a typical hashing blob's size
		for n := uint64(0); pb.Next(); n++ {
			input[39], input[40] = byte(n), byte(n>>8) // vary the nonce bytes
			if _, err := h.Hash(seed, input); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "hashes/s")
}

// built waits until the memory of key, which must be allocated or being
// built, is ready, and reports whether its build succeeded.
func built(t *testing.T, h *Hasher, key string) bool {
	t.Helper()
	h.mu.Lock()
	s := h.seeds[key]
	h.mu.Unlock()
	if s == nil {
		t.Fatalf("seed %q is neither built nor being built", key)
	}
	<-s.ready
	return s.err == nil
}

// Prepare builds a seed's memory without a hash asking for it, and the hash
// that comes next uses that build: the reference vector, with one build.
func TestPrepare(t *testing.T) {
	h := newHasher(t, Options{VMs: 1})
	key := []byte("test key 000")
	if err := h.PrepareKey(key); err != nil {
		t.Fatal(err)
	}
	if !built(t, h, string(key)) {
		t.Fatal("the prepared seed's build failed")
	}
	got, err := h.HashWithKey(key, []byte("This is a test"))
	if err != nil {
		t.Fatal(err)
	}
	if want := mustHex(t, "639183aae1bf4c9a35884cb46b09cad9175f04efd7684e7262a0ac1c2f0b4e3f"); string(got[:]) != string(want) {
		t.Errorf("hash after Prepare: %x, want %x", got, want)
	}
	// Preparing it again, or a hash racing a Prepare, builds nothing more.
	if err := h.PrepareKey(key); err != nil {
		t.Fatal(err)
	}
	if h.seedBuilds != 1 {
		t.Errorf("%d builds, want 1", h.seedBuilds)
	}
	checkInvariants(t, h, 1)
}

// Prepared seeds count as used: preparing the current and the next seed
// keeps both (as around a seed change), and an older one is freed.
func TestPrepareKeepsSeeds(t *testing.T) {
	h := newHasher(t, Options{VMs: 1})
	if _, err := h.Hash(seedOf(1), []byte("x")); err != nil {
		t.Fatal(err)
	}
	for _, b := range []byte{2, 3} {
		s := seedOf(b)
		if err := h.Prepare(s); err != nil {
			t.Fatal(err)
		}
		built(t, h, string(s[:]))
	}
	// A build closes ready, then drops its own reference: wait for the
	// builds themselves (nothing else is in flight here) before counting.
	h.ops.Wait()
	checkInvariants(t, h, 1)
	for _, b := range []byte{3, 2} {
		if _, err := h.Hash(seedOf(b), []byte("x")); err != nil {
			t.Fatal(err)
		}
	}
	if h.seedBuilds != 3 {
		t.Errorf("%d builds, want 3 (seeds 2 and 3 prepared, then used)", h.seedBuilds)
	}
	one := seedOf(1)
	h.mu.Lock()
	_, kept := h.seeds[string(one[:])]
	h.mu.Unlock()
	if kept {
		t.Error("seed 1, used before seeds 2 and 3 were prepared, is still allocated")
	}
}

// Close waits for a prepared build; Prepare after Close is refused.
func TestPrepareAndClose(t *testing.T) {
	h, err := New(Options{VMs: 1})
	if err != nil {
		t.Fatal(err)
	}
	if err := h.Prepare(seedOf(9)); err != nil {
		t.Fatal(err)
	}
	h.Close()
	if len(h.seeds) != 0 {
		t.Errorf("%d seeds left after Close", len(h.seeds))
	}
	if err := h.Prepare(seedOf(9)); !errors.Is(err, ErrClosed) {
		t.Errorf("Prepare after Close: %v, want ErrClosed", err)
	}
}
