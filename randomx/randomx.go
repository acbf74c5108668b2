// Package randomx computes RandomX, Monero's proof-of-work hash, by calling the
// reference C library (tevador's librandomx, the one monerod links) through
// cgo. Consensus needs results that are bit-identical to monerod's, and no Go
// implementation is available, so the node uses the reference code itself.
//
// # Concurrency model
//
// A [Hasher] is safe for concurrent use by any number of goroutines. It owns
// two kinds of C memory:
//
//   - Seed memory: for each seed (key), the 256 MiB RandomX cache (light mode)
//     or the 2 GiB dataset (fast mode). Building it takes about half a second
//     (light) or half a minute (fast), so it is built once per seed: the first
//     caller starts the build and every caller needing that seed waits for the
//     same build. Monero changes seed every 2048 blocks and both the old and
//     the new seed are in use around a change, so the memory of the two most
//     recently used seeds is kept. An older seed's memory is freed as soon as
//     no hash still reads it (each hash holds a reference while it runs), so
//     around a seed change a third seed's memory may briefly exist.
//   - Virtual machines: a VM is not safe for concurrent use, so each hash
//     borrows one VM exclusively from a pool of at most [Options.VMs];
//     callers block until one is free. VMs are created lazily and re-pointed
//     at another seed's memory when needed, which is cheap compared with
//     hashing.
//
// A failed build (out of memory) is reported to the callers waiting for it
// and not remembered, so the next call for that seed tries again.
//
// [Hasher.Close] waits for running hashes, then frees all C memory; calls
// made after it return [ErrClosed].
package randomx

/*
#cgo LDFLAGS: -lrandomx
#include <randomx.h>
*/
import "C"

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"unsafe"
)

// Hashes are returned as [32]byte, into which the library writes
// RANDOMX_HASH_SIZE bytes; this fails to compile if the two ever differ.
var _ = [1]struct{}{}[32-C.RANDOMX_HASH_SIZE]

// keptSeeds is how many seeds keep their memory while unused: the current
// Monero seed and the previous one, both needed around a seed change.
const keptSeeds = 2

// ErrClosed is returned by hashes requested after [Hasher.Close].
var ErrClosed = errors.New("randomx: hasher is closed")

// Options configures a [Hasher]. The zero value selects light mode with one
// VM per CPU.
type Options struct {
	// VMs bounds how many hashes run at the same time; each VM owns a 2 MiB
	// scratchpad. Zero means runtime.NumCPU().
	VMs int
	// FullMemory selects fast mode: a 2 GiB dataset per seed, built from the
	// cache by all CPUs (about 30 s on two cores), makes each hash about seven
	// times faster. It pays off only when one seed serves many thousands of
	// hashes; light mode, the default, keeps just the 256 MiB cache per seed.
	// Two seeds are kept, so fast mode holds 4 GiB.
	FullMemory bool
}

// Hasher computes RandomX hashes; see the package documentation for its
// concurrency model. Create it with [New] and release it with [Hasher.Close].
type Hasher struct {
	flags      C.randomx_flags // randomx_get_flags(), plus FULL_MEM in fast mode
	fullMemory bool

	vmSlots chan struct{}  // a token per busy VM; its capacity bounds the pool
	closing chan struct{}  // closed by Close to wake callers waiting for a VM
	ops     sync.WaitGroup // running hashes and builds, which Close waits for

	mu     sync.Mutex
	closed bool
	// seeds holds every seed whose memory is allocated or being built, one
	// entry per key; an entry leaves it when its memory is freed or its
	// build fails.
	seeds map[string]*seedMemory
	// recent lists the keptSeeds most recently used seeds, newest first.
	recent []*seedMemory
	idle   []*vm
	// seedBuilds counts seed memory builds, so tests can check that
	// concurrent callers share one build.
	seedBuilds int
}

// seedMemory is what the VMs read for one seed: the cache in light mode, the
// dataset in fast mode.
type seedMemory struct {
	key   string
	ready chan struct{} // closed when the build has finished, well or not
	err   error         // why the build failed; written before ready closes

	cache   *C.randomx_cache
	dataset *C.randomx_dataset

	// users counts the running hashes and the build that hold this memory;
	// guarded by Hasher.mu. The memory is freed once users is zero and
	// Hasher.recent no longer lists it.
	users int
}

// vm is a RandomX virtual machine and the seed memory it currently reads.
type vm struct {
	ptr  *C.randomx_vm
	seed *seedMemory
}

// New returns a Hasher using the fastest flags this CPU supports. No large
// memory is allocated until the first hash.
func New(opts Options) (*Hasher, error) {
	if opts.VMs < 0 {
		return nil, fmt.Errorf("randomx: negative VM count %d", opts.VMs)
	}
	if opts.VMs == 0 {
		opts.VMs = runtime.NumCPU()
	}
	flags := C.randomx_get_flags()
	if opts.FullMemory {
		flags |= C.RANDOMX_FLAG_FULL_MEM
	}
	return &Hasher{
		flags:      flags,
		fullMemory: opts.FullMemory,
		vmSlots:    make(chan struct{}, opts.VMs),
		closing:    make(chan struct{}),
		seeds:      make(map[string]*seedMemory),
	}, nil
}

// Hash returns the RandomX hash of input under a Monero seed, the 32-byte id
// of the seed block.
func (h *Hasher) Hash(seed [32]byte, input []byte) ([32]byte, error) {
	return h.HashWithKeyContext(context.Background(), seed[:], input)
}

// HashContext is Hash that gives up, returning ctx.Err(), when ctx is done
// before a VM is free or the seed's memory is built.
func (h *Hasher) HashContext(ctx context.Context, seed [32]byte, input []byte) ([32]byte, error) {
	return h.HashWithKeyContext(ctx, seed[:], input)
}

// HashWithKey returns the RandomX hash of input under a key of any length;
// RandomX's published test vectors use short text keys.
func (h *Hasher) HashWithKey(key, input []byte) ([32]byte, error) {
	return h.HashWithKeyContext(context.Background(), key, input)
}

// HashWithKeyContext is HashWithKey that gives up, returning ctx.Err(), when
// ctx is done before a VM is free or the key's memory is built. A hash
// already running in C cannot be interrupted.
func (h *Hasher) HashWithKeyContext(ctx context.Context, key, input []byte) ([32]byte, error) {
	var out [32]byte
	if err := ctx.Err(); err != nil {
		return out, err
	}
	if err := h.beginOp(); err != nil {
		return out, err
	}
	defer h.ops.Done()

	seed, err := h.acquireSeed(ctx, string(key))
	if err != nil {
		return out, err
	}
	machine, err := h.acquireVM(ctx, seed)
	if err != nil {
		h.release(nil, seed)
		return out, err
	}
	C.randomx_calculate_hash(machine.ptr, readOnlyPtr(input), C.size_t(len(input)), unsafe.Pointer(&out[0]))
	h.release(machine, seed)
	return out, nil
}

// Close waits for running hashes and seed builds, then frees every VM and all
// seed memory. Callers waiting for a VM get ErrClosed, as do later calls.
// Close may be called more than once.
func (h *Hasher) Close() {
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return
	}
	h.closed = true
	close(h.closing)
	h.mu.Unlock()

	h.ops.Wait()

	h.mu.Lock()
	machines := h.idle
	var seeds []*seedMemory
	for _, s := range h.seeds {
		seeds = append(seeds, s)
	}
	h.idle, h.recent, h.seeds = nil, nil, nil
	h.mu.Unlock()
	free(machines, seeds)
}

// beginOp registers a running operation so that Close waits for it.
func (h *Hasher) beginOp() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return ErrClosed
	}
	h.ops.Add(1)
	return nil
}

// Prepare starts building the memory of a Monero seed, the 32-byte id of the
// seed block, in the background and returns at once, so that the first hash
// under that seed need not wait the half second (light mode, more on a busy
// machine) the build takes: monerod prepares its main seed the same way
// when the seed changes (rx-slow-hash.c rx_set_main_seedhash). The seed
// counts as used now, so it is among the kept seeds; preparing a seed that
// is built or being built only does that. It returns ErrClosed after Close.
func (h *Hasher) Prepare(seed [32]byte) error {
	return h.PrepareKey(seed[:])
}

// PrepareKey is Prepare for a key of any length.
func (h *Hasher) PrepareKey(key []byte) error {
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return ErrClosed
	}
	s := h.startBuild(string(key))
	machines, evicted := h.markUsed(s)
	h.mu.Unlock()
	free(machines, evicted)
	return nil
}

// startBuild returns the entry of key, first starting its build if nobody
// has. Called with h.mu held and h not closed.
func (h *Hasher) startBuild(key string) *seedMemory {
	s := h.seeds[key]
	if s == nil {
		s = &seedMemory{key: key, ready: make(chan struct{})}
		h.seeds[key] = s
		h.seedBuilds++
		s.users++     // the build's reference
		h.ops.Add(1)  // Close waits for the build (h is not closed, so Wait has not begun)
		go h.build(s) // in its own goroutine so that callers can stop waiting
	}
	return s
}

// acquireSeed returns the built memory for key with a reference the caller
// must drop through release, starting the build if nobody has.
func (h *Hasher) acquireSeed(ctx context.Context, key string) (*seedMemory, error) {
	h.mu.Lock()
	s := h.startBuild(key)
	s.users++
	machines, evicted := h.markUsed(s)
	h.mu.Unlock()
	free(machines, evicted)

	select {
	case <-s.ready:
	case <-ctx.Done():
		h.release(nil, s)
		return nil, ctx.Err()
	}
	if s.err != nil {
		h.release(nil, s)
		return nil, s.err
	}
	return s, nil
}

// markUsed moves s to the front of recent. Seeds pushed out whose memory
// nobody uses are forgotten, in the same critical section so that nobody can
// pick them up again, and returned with their VMs for the caller to free.
// Called with h.mu held.
func (h *Hasher) markUsed(s *seedMemory) (machines []*vm, unused []*seedMemory) {
	if i := slices.Index(h.recent, s); i >= 0 {
		h.recent = slices.Delete(h.recent, i, i+1)
	}
	h.recent = slices.Insert(h.recent, 0, s)
	for len(h.recent) > keptSeeds {
		old := h.recent[len(h.recent)-1]
		h.recent = h.recent[:len(h.recent)-1]
		if old.users == 0 {
			machines = append(machines, h.forget(old)...)
			unused = append(unused, old)
		}
	}
	return machines, unused
}

// forget removes s, which nobody uses and recent no longer lists, from the
// Hasher, together with the idle VMs reading it, and returns those VMs for
// the caller to free with s. Called with h.mu held.
//
// Destroying the VMs keeps this invariant: every VM reads memory that is
// still allocated. It matters beyond the obvious: randomx_vm_set_cache does
// nothing when the VM's previous cache had the same key, so a VM left on
// freed memory of key K would silently stay there even if re-pointed at a
// fresh cache for K.
func (h *Hasher) forget(s *seedMemory) []*vm {
	if h.seeds[s.key] == s {
		delete(h.seeds, s.key)
	}
	var gone []*vm
	h.idle = slices.DeleteFunc(h.idle, func(m *vm) bool {
		if m.seed == s {
			gone = append(gone, m)
			return true
		}
		return false
	})
	return gone
}

// build allocates and initialises s, then drops the build's reference.
func (h *Hasher) build(s *seedMemory) {
	defer h.ops.Done()
	err := h.initSeedMemory(s)
	if err != nil {
		// Unlist the failed seed so that the next caller tries again; callers
		// already waiting see err.
		h.mu.Lock()
		if h.seeds[s.key] == s {
			delete(h.seeds, s.key)
		}
		h.recent = slices.DeleteFunc(h.recent, func(r *seedMemory) bool { return r == s })
		h.mu.Unlock()
		s.err = err
	}
	close(s.ready)
	h.release(nil, s)
}

// initSeedMemory fills s.cache, and in fast mode s.dataset; whatever it
// allocated stays in s to be freed with it, even on error.
func (h *Hasher) initSeedMemory(s *seedMemory) error {
	s.cache = C.randomx_alloc_cache(h.flags)
	if s.cache == nil {
		return fmt.Errorf("randomx: cannot allocate the 256 MiB cache (flags %#x)", int(h.flags))
	}
	key := []byte(s.key)
	C.randomx_init_cache(s.cache, readOnlyPtr(key), C.size_t(len(key)))
	if !h.fullMemory {
		return nil
	}

	s.dataset = C.randomx_alloc_dataset(h.flags)
	if s.dataset == nil {
		return errors.New("randomx: cannot allocate the 2 GiB dataset")
	}
	items := uint64(C.randomx_dataset_item_count())
	workers := uint64(runtime.NumCPU())
	var wg sync.WaitGroup
	for w := range workers {
		start, end := items*w/workers, items*(w+1)/workers
		wg.Go(func() {
			C.randomx_init_dataset(s.dataset, s.cache, C.ulong(start), C.ulong(end-start))
		})
	}
	wg.Wait()
	// Fast-mode VMs read only the dataset.
	C.randomx_release_cache(s.cache)
	s.cache = nil
	return nil
}

// acquireVM returns a VM, reading s, for the caller's exclusive use until it
// hands the VM back through release. s must be built and referenced.
func (h *Hasher) acquireVM(ctx context.Context, s *seedMemory) (*vm, error) {
	select {
	case h.vmSlots <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-h.closing:
		return nil, ErrClosed
	}
	select {
	case <-h.closing:
		// select picks at random among ready cases; without this check,
		// queued callers would keep hashing, one at a time, while Close waits.
		<-h.vmSlots
		return nil, ErrClosed
	default:
	}

	h.mu.Lock()
	var m *vm
	if len(h.idle) > 0 {
		// Prefer a VM already reading s: re-pointing one recompiles its
		// SuperscalarHash programs (light mode).
		i := slices.IndexFunc(h.idle, func(m *vm) bool { return m.seed == s })
		if i < 0 {
			i = len(h.idle) - 1
		}
		m = h.idle[i]
		h.idle = slices.Delete(h.idle, i, i+1)
	}
	h.mu.Unlock()

	if m == nil {
		ptr := C.randomx_create_vm(h.flags, s.cache, s.dataset)
		if ptr == nil {
			<-h.vmSlots
			return nil, fmt.Errorf("randomx: cannot create a VM (flags %#x)", int(h.flags))
		}
		return &vm{ptr: ptr, seed: s}, nil
	}
	if m.seed != s {
		// m.seed is still allocated (see forget) and, as h.seeds holds one
		// entry per key, has a different key from s, so set_cache really
		// switches.
		if h.fullMemory {
			C.randomx_vm_set_dataset(m.ptr, s.dataset)
		} else {
			C.randomx_vm_set_cache(m.ptr, s.cache)
		}
		m.seed = s
	}
	return m, nil
}

// release hands back m (if not nil) and the caller's reference to s, freeing
// s if that was the last use of memory that recent no longer lists.
func (h *Hasher) release(m *vm, s *seedMemory) {
	h.mu.Lock()
	if m != nil {
		// Back in idle before the slot is freed, so that the next slot holder
		// finds it instead of creating a VM beyond the bound.
		h.idle = append(h.idle, m)
	}
	s.users--
	var machines []*vm
	var seeds []*seedMemory
	if s.users == 0 && !slices.Contains(h.recent, s) {
		machines, seeds = h.forget(s), []*seedMemory{s}
	}
	h.mu.Unlock()
	if m != nil {
		<-h.vmSlots
	}
	free(machines, seeds)
}

// free releases the C memory of VMs and seeds that nothing references any
// more; VMs go first since they read the seeds' memory.
func free(machines []*vm, seeds []*seedMemory) {
	for _, m := range machines {
		C.randomx_destroy_vm(m.ptr)
		m.ptr = nil
	}
	for _, s := range seeds {
		if s.dataset != nil {
			C.randomx_release_dataset(s.dataset)
			s.dataset = nil
		}
		if s.cache != nil {
			C.randomx_release_cache(s.cache)
			s.cache = nil
		}
	}
}

// nonEmpty gives empty inputs a valid address: the library rejects NULL even
// for zero bytes.
var nonEmpty [1]byte

// readOnlyPtr returns a pointer to b's bytes for one C call that only reads
// them. cgo allows passing Go memory that holds no Go pointers for the
// duration of a call, and librandomx keeps no pointer to keys or inputs
// (init_cache copies the key).
func readOnlyPtr(b []byte) unsafe.Pointer {
	if len(b) == 0 {
		return unsafe.Pointer(&nonEmpty[0])
	}
	return unsafe.Pointer(unsafe.SliceData(b))
}
