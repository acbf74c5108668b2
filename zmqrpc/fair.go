package zmqrpc

import (
	"bytes"
	"context"
	"net"
	"net/netip"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gonero/gonero/internal/addrgroup"
	"github.com/gonero/gonero/membudget"
)

// Fairness per address (docs/zmq.md). The server's bounds (MaxConns
// connections, MaxInFlight request bytes, MaxAnswerBytes answer bytes, a
// few answers rendered at once) are shared by address group, counted as
// the HTTP RPC counts them (internal/addrgroup: a public IPv4 /24, a
// public IPv6 /64, a private or loopback address by itself), so that one
// address cannot hold all of any of them:
//
//   - connections: monerod's per-IP limits of its HTTP RPC (3 a public
//     host, 25 a private one; a public IPv6 /64 is one host), refused at
//     accept; at MaxConns a newcomer takes the slot of a connection of a
//     group holding at least two more than its own (the largest such
//     group; one waiting for a request first, the one idle longest, else
//     the oldest), as the HTTP RPC's fair slots do (its rules 1 and 5), so
//     that the slots converge to an even share per group;
//   - request and answer bytes: membudget's rules (a share per group, an
//     eighth of the total; a group holding nothing may take one claim past
//     it; the last eighth kept for small claims), a claim that does not fit
//     waiting (BudgetWait at most) rather than refused, and the room that
//     frees going to the waiting group that holds the least;
//   - answers rendered at once (a few, the CPU count): the slot that frees
//     goes to the waiting group that holds the fewest, and an answer whose
//     bytes must wait for room gives its slot back while it waits (it is
//     rendered again once the room is there), so that a group's wait never
//     holds another group's get_height.

// groupShareDiv: a group's share of the request and answer bytes is the
// total / groupShareDiv (as the HTTP RPC's share of its memory budget).
const groupShareDiv = 8

// peerConn is one connection with its address keys and state.
type peerConn struct {
	net.Conn
	host, group netip.Addr
	private     bool
	connected   time.Time
	// idleSince is when it began waiting for a request (UnixNano; 0 while
	// a request is read, answered or written).
	idleSince atomic.Int64
	// ctx ends the connection's waits when it is evicted or the server
	// closes.
	ctx    context.Context
	cancel context.CancelFunc
	// counted: it holds a slot in the server's counts (under Server.mu).
	counted bool
}

func (s *Server) newPeerConn(c net.Conn) *peerConn {
	ip := addrgroup.Remote(c)
	private := addrgroup.Private(ip)
	host := addrgroup.Host(ip)
	now := time.Now()
	pc := &peerConn{Conn: c, host: host, group: addrgroup.Group(host, private), private: private, connected: now}
	pc.idleSince.Store(now.UnixNano())
	pc.ctx, pc.cancel = context.WithCancel(s.ctx)
	return pc
}

func (pc *peerConn) markBusy() { pc.idleSince.Store(0) }
func (pc *peerConn) markIdle() { pc.idleSince.Store(time.Now().UnixNano()) }

// hostCap is the connections one host may hold.
func (s *Server) hostCap(private bool) int {
	if private {
		return s.maxPrivate
	}
	return s.maxPublic
}

// admit counts pc in, in the place of another group's connection at
// MaxConns, and in s.wg (under s.mu, so that Close waits for it); "" or
// why it is refused. The victim, if any, is closed.
func (s *Server) admit(pc *peerConn) string {
	s.mu.Lock()
	if s.conns == nil {
		s.mu.Unlock()
		return "closed"
	}
	if s.perHost[pc.host] >= s.hostCap(pc.private) {
		s.refusedHost++
		s.mu.Unlock()
		return "per_host"
	}
	var victim *peerConn
	if len(s.conns) >= MaxConns {
		if victim = s.victimLocked(pc.group); victim == nil {
			s.refusedTotal++
			s.mu.Unlock()
			return "total"
		}
		s.uncountLocked(victim)
		s.evicted++
	}
	s.conns[pc] = struct{}{}
	s.perHost[pc.host]++
	s.perGroup[pc.group]++
	pc.counted = true
	s.wg.Add(1)
	s.mu.Unlock()
	if victim != nil {
		victim.cancel()
		_ = victim.Close()
	}
	return ""
}

// victimLocked is the connection a newcomer of group g may take the slot
// of: of the group holding the most, if it holds at least two more than
// g; one waiting for a request (the one idle longest), else the oldest.
// nil: none.
func (s *Server) victimLocked(g netip.Addr) *peerConn {
	need := s.perGroup[g] + 2
	var best *peerConn
	var bestN int
	var bestIdle int64
	for c := range s.conns {
		n := s.perGroup[c.group]
		if n < need {
			continue
		}
		idle := c.idleSince.Load()
		switch {
		case best == nil, n > bestN:
		case n < bestN:
			continue
		case (idle != 0) != (bestIdle != 0): // idle before busy
			if idle == 0 {
				continue
			}
		case idle != 0: // both idle: the one idle longest
			if idle >= bestIdle {
				continue
			}
		default: // both busy: the oldest
			if !c.connected.Before(best.connected) {
				continue
			}
		}
		best, bestN, bestIdle = c, n, idle
	}
	return best
}

// uncountLocked gives back pc's place in the counts (once).
func (s *Server) uncountLocked(pc *peerConn) {
	if !pc.counted {
		return
	}
	pc.counted = false
	delete(s.conns, pc)
	if s.perHost[pc.host]--; s.perHost[pc.host] <= 0 {
		delete(s.perHost, pc.host)
	}
	if s.perGroup[pc.group]--; s.perGroup[pc.group] <= 0 {
		delete(s.perGroup, pc.group)
		delete(s.lastSizes, pc.group)
	}
}

// lastAnswer is the size of group g's last answer to method name (0: none
// or unknown); setLastAnswer records it. Kept while the group holds a
// connection, for the methods of the table only, so that the memory is
// bounded by the connections.
func (s *Server) lastAnswer(g netip.Addr, name string) int64 {
	if name == "" {
		return 0
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lastSizes[g][name]
}

func (s *Server) setLastAnswer(g netip.Addr, name string, n int64) {
	if _, ok := methods[name]; !ok {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.perGroup[g] == 0 {
		return // its connections are gone (or the server is closed)
	}
	m := s.lastSizes[g]
	if m == nil {
		m = map[string]int64{}
		s.lastSizes[g] = m
	}
	m[name] = n
}

// requestMethod is the method a request names, "" when it names none
// that parses (the answer is then an error, small). Bodies over 64 KiB are
// not looked at: a light wallet's requests are small.
func requestMethod(msg []byte) string {
	if i := bytes.IndexByte(msg, 0); i >= 0 {
		msg = msg[:i]
	}
	if len(msg) > 64<<10 || !validate(msg) {
		return ""
	}
	doc := raw(msg[skipSpace(msg, 0):])
	if doc.kind() != kindObject {
		return ""
	}
	m, ok := parseObject(doc).find("method")
	if !ok || m.kind() != kindString {
		return ""
	}
	name, _, _ := decodeString(m, 0, true)
	return cString(name)
}

// A refused connection is held holdRefused before it is closed, at most
// maxHeld at once (closed at once past that), as the HTTP RPC holds a
// refused host's: a flood that reconnects as soon as its connection
// closes otherwise turns thousands of times a second through the accept
// loop (bench/abuse.sh's zmq-rpc-flood: 88,812 refusals in 15 s), and a
// client's connection waits behind it in the kernel's accept queue.
const (
	holdRefused = time.Second
	maxHeld     = 4096
)

type heldConn struct {
	c     net.Conn
	until time.Time
}

// hold closes c after holdRefused (at once past maxHeld, or once the
// server is closed).
func (s *Server) hold(c net.Conn) {
	s.mu.Lock()
	if s.conns == nil || len(s.held) >= maxHeld {
		s.mu.Unlock()
		_ = c.Close()
		return
	}
	s.held = append(s.held, heldConn{c: c, until: time.Now().Add(holdRefused)})
	if !s.reaping {
		s.reaping = true
		s.wg.Add(1)
		go s.reap()
	}
	s.mu.Unlock()
}

// reap closes the held connections as their time comes, all of them once
// the server closes.
func (s *Server) reap() {
	defer s.wg.Done()
	for {
		s.mu.Lock()
		now := time.Now()
		n := 0
		for n < len(s.held) && (s.ctx.Err() != nil || !s.held[n].until.After(now)) {
			_ = s.held[n].c.Close()
			n++
		}
		s.held = s.held[n:]
		if len(s.held) == 0 {
			s.held = nil
			s.reaping = false
			s.mu.Unlock()
			return
		}
		next := s.held[0].until
		s.mu.Unlock()
		t := time.NewTimer(time.Until(next))
		select {
		case <-t.C:
		case <-s.ctx.Done():
		}
		t.Stop()
	}
}

// fairBytes is a byte budget (membudget's rules: a total, a share per
// address group, the last eighth kept for small claims) whose claims wait
// a bounded time for room instead of being refused. Room that frees goes
// to the waiting claims in order of what their groups hold, least first
// (then the oldest): a group whose answers fill its share waits behind a
// group that holds nothing.
type fairBytes struct {
	acct  *membudget.Account[netip.Addr]
	limit int64 // the account's own bound
	// shared: the account draws on the node's budget, where room also
	// frees when another part (the HTTP RPC, P2P) gives bytes back, which
	// release does not see: while claims wait, one goroutine offers them
	// the room every sharedPoll.
	shared bool

	mu      sync.Mutex
	waiters []*byteWaiter
	seq     uint64
	polling bool
	// onWait, if not nil, is told of a claim that waits (tests).
	onWait func(g netip.Addr)
}

type byteWaiter struct {
	group   netip.Addr
	try     func() bool
	seq     uint64
	done    chan struct{}
	granted bool
}

// The parts of the node's budget the ZMQ RPC may hold, when it draws on
// it: requests a quarter (64 MiB of the default 256 MiB, MaxInFlight),
// answers half (128 MiB, MaxAnswerBytes, as the HTTP RPC's part).
const (
	requestShareDiv = 4
	answerShareDiv  = 2
)

// sharedPoll is how often waiting claims on the node's budget are offered
// the room other parts gave back: a claim waits at most that much longer
// than it must.
const sharedPoll = 20 * time.Millisecond

// newFairBytes returns a byte budget of at most limit bytes: an account on
// node, the node's budget, bounded to the smaller of limit and node's
// total / shareDiv; or, with node nil, a budget of its own of limit bytes.
func newFairBytes(node *membudget.Budget, limit int64, shareDiv int64) *fairBytes {
	b, shared := node, node != nil
	if !shared {
		b = membudget.New(limit)
	} else if total := node.Stats().Total; total > 0 {
		limit = min(limit, total/shareDiv)
	}
	acct := membudget.NewAccount[netip.Addr](b, limit/groupShareDiv)
	if shared {
		acct = acct.WithLimit(limit)
	}
	return &fairBytes{acct: acct, limit: limit, shared: shared}
}

// claim takes n bytes for group g, waiting at most wait (or until ctx
// ends) for room.
func (f *fairBytes) claim(ctx context.Context, g netip.Addr, n int64, wait time.Duration) bool {
	return f.wait(ctx, g, func() bool { return f.acct.Acquire(g, n) }, wait)
}

// grow grows l by n bytes, waiting as claim does.
func (f *fairBytes) grow(ctx context.Context, l *membudget.Lease[netip.Addr], g netip.Addr, n int64, wait time.Duration) bool {
	return f.wait(ctx, g, func() bool { return l.Grow(n) }, wait)
}

// wait runs try now and, while it fails, whenever room frees, in the
// waiting order; false after wait or once ctx ends.
func (f *fairBytes) wait(ctx context.Context, g netip.Addr, try func() bool, wait time.Duration) bool {
	// Tried under mu, so that room freed between the try and the wait
	// is offered to this claim (release takes mu after giving back).
	f.mu.Lock()
	if try() {
		f.mu.Unlock()
		return true
	}
	f.seq++
	w := &byteWaiter{group: g, try: try, seq: f.seq, done: make(chan struct{})}
	f.waiters = append(f.waiters, w)
	onWait := f.onWait
	if f.shared && !f.polling {
		f.polling = true
		go f.poll()
	}
	f.mu.Unlock()
	if onWait != nil {
		onWait(g)
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-w.done:
		return true
	case <-t.C:
	case <-ctx.Done():
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if w.granted {
		return true
	}
	f.waiters = slices.DeleteFunc(f.waiters, func(x *byteWaiter) bool { return x == w })
	return false
}

// poll offers the waiting claims the room of the node's budget every
// sharedPoll, until none waits.
func (f *fairBytes) poll() {
	t := time.NewTicker(sharedPoll)
	defer t.Stop()
	for range t.C {
		f.granted()
		f.mu.Lock()
		if len(f.waiters) == 0 {
			f.polling = false
			f.mu.Unlock()
			return
		}
		f.mu.Unlock()
	}
}

// release gives back n bytes of group g.
func (f *fairBytes) release(g netip.Addr, n int64) {
	f.acct.Release(g, n)
	f.granted()
}

// releaseLease gives back what l holds.
func (f *fairBytes) releaseLease(l *membudget.Lease[netip.Addr]) {
	if l.Held() == 0 {
		return
	}
	l.Release()
	f.granted()
}

// granted offers the room freed to the waiting claims, the group
// holding least first.
func (f *fairBytes) granted() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.waiters) == 0 {
		return
	}
	held := make(map[netip.Addr]int64, len(f.waiters))
	for _, w := range f.waiters {
		if _, ok := held[w.group]; !ok {
			held[w.group] = f.acct.Held(w.group)
		}
	}
	slices.SortFunc(f.waiters, func(a, b *byteWaiter) int {
		if ha, hb := held[a.group], held[b.group]; ha != hb {
			return cmpInt64(ha, hb)
		}
		return cmpInt64(int64(a.seq), int64(b.seq))
	})
	f.waiters = slices.DeleteFunc(f.waiters, func(w *byteWaiter) bool {
		if !w.try() {
			return false
		}
		w.granted = true
		close(w.done)
		return true
	})
}

func cmpInt64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// cheapMethods answer a few hundred bytes, at the cost of a few reads:
// they take no handling slot (their answer's bytes are still claimed).
var cheapMethods = map[string]bool{
	"get_height": true, "get_rpc_version": true, "get_info": true, "get_last_block_header": true,
	"get_block_header_by_hash": true, "get_block_header_by_height": true, "get_block_hash": true,
	"hard_fork_info": true, "get_dynamic_fee_estimate": true,
}

// fairSlots are the answers rendered at once (nil: no bound): a slot that frees goes to
// the waiting group that holds the fewest (then the oldest waiter).
type fairSlots struct {
	mu      sync.Mutex
	free    int
	held    map[netip.Addr]int
	waiters []*slotWaiter
	seq     uint64
	// onWait, if not nil, is told of an acquire that waits (tests).
	onWait func(g netip.Addr)
}

type slotWaiter struct {
	group   netip.Addr
	seq     uint64
	done    chan struct{}
	granted bool
}

func newFairSlots(n int) *fairSlots { return &fairSlots{free: n, held: map[netip.Addr]int{}} }

// acquire takes a slot for group g; false once ctx ends first.
func (f *fairSlots) acquire(ctx context.Context, g netip.Addr) bool {
	if f == nil {
		return true
	}
	f.mu.Lock()
	if f.free > 0 && len(f.waiters) == 0 {
		f.free--
		f.held[g]++
		f.mu.Unlock()
		return true
	}
	f.seq++
	w := &slotWaiter{group: g, seq: f.seq, done: make(chan struct{})}
	f.waiters = append(f.waiters, w)
	onWait := f.onWait
	f.mu.Unlock()
	if onWait != nil {
		onWait(g)
	}
	select {
	case <-w.done:
		return true
	case <-ctx.Done():
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if w.granted {
		return true
	}
	f.waiters = slices.DeleteFunc(f.waiters, func(x *slotWaiter) bool { return x == w })
	return false
}

// release gives back g's slot, to the waiter of the group holding fewest.
func (f *fairSlots) release(g netip.Addr) {
	if f == nil {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.held[g]--; f.held[g] <= 0 {
		delete(f.held, g)
	}
	if len(f.waiters) == 0 {
		f.free++
		return
	}
	best := 0
	for i, w := range f.waiters[1:] {
		b := f.waiters[best]
		if hw, hb := f.held[w.group], f.held[b.group]; hw < hb || (hw == hb && w.seq < b.seq) {
			best = i + 1
		}
	}
	w := f.waiters[best]
	f.waiters = slices.Delete(f.waiters, best, best+1)
	f.held[w.group]++
	w.granted = true
	close(w.done)
}
