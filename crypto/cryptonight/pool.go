package cryptonight

import "runtime"

// Pool lends Hashers to concurrent callers with a fixed bound: at most n
// scratchpads (2 MiB each) ever exist, allocated on first need and reused.
// A caller beyond n waits for a free one — more would not run faster on n
// cores and each costs 2 MiB.
type Pool struct {
	free chan *Hasher
}

// NewPool makes a pool of at most n Hashers (at least one).
func NewPool(n int) *Pool {
	n = max(n, 1)
	p := &Pool{free: make(chan *Hasher, n)}
	for range n {
		p.free <- nil // a slot whose Hasher is not allocated yet
	}
	return p
}

// Sum is Hasher.Sum on a pooled Hasher; safe for concurrent use.
func (p *Pool) Sum(data []byte, variant int, height uint64) ([Size]byte, error) {
	h := <-p.free
	if h == nil {
		h = NewHasher()
	}
	defer func() { p.free <- h }()
	return h.Sum(data, variant, height)
}

// defaultPool serves Sum: one scratchpad per processor.
var defaultPool = NewPool(runtime.GOMAXPROCS(0))

// Sum is cn_slow_hash(data, variant, height) on the package pool.
func Sum(data []byte, variant int, height uint64) ([Size]byte, error) {
	return defaultPool.Sum(data, variant, height)
}
