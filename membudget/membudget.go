// Package membudget is the node's memory budget: the bytes that outsiders
// can make the node hold (RPC request bodies and answers, levin messages
// read and queued for sending, the sync's pending blocks) are counted
// against one global total, against the limit of the part of the node that
// holds them (an Account's own sub-limit), and, per client, against a
// per-client limit, and a claim that would take any past its bound is
// refused.
//
// Refusing the newest claimant is the rule: what is already held stays
// held (it is being used to serve someone), and the claim that does not
// fit is refused at once, without waiting, so that a flood cannot queue
// up memory behind the bound either. The caller decides what a refusal
// means (an error answer, a closed connection, a dropped message) and
// must do it before it takes the memory, or drop what it took.
//
// A Budget is the global total; an Account is one part of the node (the
// RPC, P2P) drawing on it, with its own per-client limit and its own
// client keys, so that parts with different kinds of clients (an address
// group, a peer) share one total. Accounting is a mutex and two map
// updates per claim: cheap next to what the claimed bytes cost to make.
package membudget

import (
	"sync"
	"sync/atomic"
)

// Budget is the global total of bytes that every Account draws on. The
// zero value is not usable: see New.
type Budget struct {
	total int64

	mu   sync.Mutex // guards used and every Account's clients
	used int64
	peak int64

	refused atomic.Uint64
}

// The last part of the total is kept for small claims: a claim of more
// than total/smallDiv bytes may only fill the total up to
// total - total/reserveDiv. A flood of large answers from many clients
// then fills the budget to that point, and a light client's small claims
// (a get_info answer, a header: a few kB) still find room; holding the
// reserve itself takes many small claims held at once, which the callers'
// connection limits bound (100 RPC connections × 128 kB is 12.8 MB, within
// the reserve of a 128 MiB budget).
const (
	reserveDiv = 8
	smallDiv   = 1024
)

// limitFor is how far the budget may be filled by a claim of n bytes.
func (b *Budget) limitFor(n int64) int64 {
	if n > b.total/smallDiv {
		return b.total - b.total/reserveDiv
	}
	return b.total
}

// New returns a budget of total bytes; total <= 0 means no global bound
// (the per-client limits still hold).
func New(total int64) *Budget {
	return &Budget{total: total}
}

// Stats is what a Budget or an Account reports (metrics).
type Stats struct {
	Total   int64  // the bound (0: none): the global total, or an Account's per-client limit
	Limit   int64  // an Account's own sub-limit (0: none; Budget: unused)
	Used    int64  // bytes held now
	Peak    int64  // most bytes held at once since start
	Claims  uint64 // claims granted
	Refused uint64 // claims refused (global or per-client bound)
	Clients int    // clients holding bytes now (Account only)
}

// Stats reports the global use.
func (b *Budget) Stats() Stats {
	b.mu.Lock()
	defer b.mu.Unlock()
	return Stats{Total: max(b.total, 0), Used: b.used, Peak: b.peak, Refused: b.refused.Load()}
}

// Free is what the global total has left (with no bound, the largest
// int64): a caller about to read n bytes it cannot claim piecemeal (a
// request body) asks first, and claims once it has them.
func (b *Budget) Free() int64 {
	if b.total <= 0 {
		return 1<<63 - 1
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.total - b.used
}

// Room is how many bytes a claim larger than the small-claim size may
// still take before the global total refuses it (with no bound, the
// largest int64): the parts that can wait rather than be refused (a
// P2P connection's reader) hold back while it is low.
func (b *Budget) Room() int64 {
	if b.total <= 0 {
		return 1<<63 - 1
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.total - b.total/reserveDiv - b.used
}

// Account is one part of the node drawing on a Budget, with a per-client
// limit and its own sub-limit; K identifies a client (an address group, a
// peer). Its memory is bounded by the clients holding bytes at once: a
// client that holds nothing is forgotten.
type Account[K comparable] struct {
	b         *Budget
	perClient int64
	limit     int64 // the account's own bound (<= 0: only the global one)

	used    int64 // under b.mu
	peak    int64
	clients map[K]int64

	claims, refused atomic.Uint64
}

// NewAccount returns an account drawing on b whose clients may each hold
// at most perClient bytes (<= 0: no per-client bound). A client that holds
// nothing may still claim more than perClient in one claim, within the
// global bound: one answer larger than a client's share (a wallet's first
// /getblocks.bin to a lone node) is served, while a second one in
// parallel is refused.
func NewAccount[K comparable](b *Budget, perClient int64) *Account[K] {
	return &Account[K]{b: b, perClient: perClient, clients: make(map[K]int64)}
}

// WithLimit bounds what the account's clients hold together to limit
// bytes (<= 0: no bound of its own), within the global total: a part of
// the node that keeps a flag of its own (--p2p-send-budget) is a
// sub-limit of the one budget. It returns a, and is called before any
// claim.
func (a *Account[K]) WithLimit(limit int64) *Account[K] {
	a.limit = limit
	return a
}

// Acquire claims n bytes for client k. It returns false, taking nothing,
// when the claim would take the global total, the account's own limit, or
// k's share while k holds something, past its bound. n <= 0 always
// succeeds and takes nothing.
func (a *Account[K]) Acquire(k K, n int64) bool {
	return a.acquire(k, n, 0, false)
}

// AcquireGlobal claims n bytes for client k against the global total only:
// past the account's own and the per-client limits, but never past the
// total. For the claims a part must not refuse for its own flood (a peer's
// handshake while large messages fill the P2P part) and may refuse for the
// node's (the total spent).
func (a *Account[K]) AcquireGlobal(k K, n int64) bool {
	return a.acquire(k, n, 0, true)
}

// acquire claims n bytes for k, of which k already holds own in the claim
// that grows (a Lease): the per-client bound applies only when k holds
// something besides; globalOnly skips the account's and the client's.
func (a *Account[K]) acquire(k K, n, own int64, globalOnly bool) bool {
	if n <= 0 {
		return true
	}
	b := a.b
	b.mu.Lock()
	held := a.clients[k]
	// A lease growing in small steps is as large as what it holds: its
	// steps may not eat into the reserve kept for small claims.
	if (b.total > 0 && b.used+n > b.limitFor(own+n)) || (!globalOnly && ((a.limit > 0 && a.used+n > a.limit) ||
		(a.perClient > 0 && held > own && held+n > a.perClient))) {
		b.mu.Unlock()
		a.refused.Add(1)
		b.refused.Add(1)
		return false
	}
	a.take(k, held, n)
	b.mu.Unlock()
	return true
}

// take counts n more bytes for k, who held held; callers hold b.mu.
func (a *Account[K]) take(k K, held, n int64) {
	b := a.b
	a.clients[k] = held + n
	a.used += n
	a.peak = max(a.peak, a.used)
	b.used += n
	b.peak = max(b.peak, b.used)
	a.claims.Add(1)
}

// Take counts n bytes for client k without refusing them, past any bound:
// for what the node holds by its own choice and bounds by its own rules
// (the blocks it asked for, a peer's small messages that must never wait
// for a flood: a handshake, a timed sync). What it takes still leaves
// less room to every refusable claim, so that the total it is counted
// against stays the node's. Give it back with Release.
func (a *Account[K]) Take(k K, n int64) {
	if n <= 0 {
		return
	}
	a.b.mu.Lock()
	a.take(k, a.clients[k], n)
	a.b.mu.Unlock()
}

// Release gives back n bytes that client k acquired.
func (a *Account[K]) Release(k K, n int64) {
	if n <= 0 {
		return
	}
	b := a.b
	b.mu.Lock()
	held := a.clients[k] - n
	if held > 0 {
		a.clients[k] = held
	} else {
		// More given back than held would be a caller's bug; the counts
		// never go negative, so that it cannot open the bound.
		n += held
		delete(a.clients, k)
	}
	a.used -= n
	b.used -= n
	b.mu.Unlock()
}

// Held is what client k holds now.
func (a *Account[K]) Held(k K) int64 {
	a.b.mu.Lock()
	defer a.b.mu.Unlock()
	return a.clients[k]
}

// Stats reports the account's use (Total is the per-client limit).
func (a *Account[K]) Stats() Stats {
	a.b.mu.Lock()
	defer a.b.mu.Unlock()
	return Stats{Total: max(a.perClient, 0), Limit: max(a.limit, 0), Used: a.used, Peak: a.peak, Claims: a.claims.Load(),
		Refused: a.refused.Load(), Clients: len(a.clients)}
}

// Used is what the account's clients hold now.
func (a *Account[K]) Used() int64 {
	a.b.mu.Lock()
	defer a.b.mu.Unlock()
	return a.used
}

// Budget is the global budget the account draws on.
func (a *Account[K]) Budget() *Budget { return a.b }

// Lease is bytes held by one client of an account, given back at once by
// Release (for a holder that claims in steps and gives back at one point:
// a request's body and answer). The zero Lease holds nothing; a Lease is
// used by one goroutine at a time.
type Lease[K comparable] struct {
	a *Account[K]
	k K
	n int64
}

// NewLease returns an empty lease of client k on a.
func NewLease[K comparable](a *Account[K], k K) Lease[K] { return Lease[K]{a: a, k: k} }

// Grow claims n more bytes for the lease; false: refused, nothing taken.
// As for Acquire, a client whose only holding is this lease may grow it
// past the per-client limit (within the global bound). A lease without an
// account (nil) grants everything.
func (l *Lease[K]) Grow(n int64) bool {
	if l.a == nil || n <= 0 {
		return true
	}
	if !l.a.acquire(l.k, n, l.n, false) {
		return false
	}
	l.n += n
	return true
}

// Held is the bytes the lease holds.
func (l *Lease[K]) Held() int64 { return l.n }

// Release gives back everything the lease holds; it may be called again.
func (l *Lease[K]) Release() {
	if l.a != nil && l.n > 0 {
		l.a.Release(l.k, l.n)
	}
	l.n = 0
}
