package httpd

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gonero/gonero/internal/addrgroup"
	"github.com/gonero/gonero/membudget"
)

// limitListener enforces monerod's RPC connection limits
// (--rpc-max-connections, --rpc-max-connections-per-public-ip,
// --rpc-max-connections-per-private-ip): a connection over a limit is
// accepted by TCP and closed at once, without any HTTP, which is what
// monerod's is_host_limit does (and what the v0.18 captures show for the
// 26th connection from loopback). Refusing costs one accept and one close
// in the accept loop: no goroutine, no buffer, no HTTP parsing, so a client
// reconnecting in a loop cannot slow down the admitted connections beyond
// the kernel's cost of its handshakes.
//
// Beyond monerod, at the total limit it shares the slots fairly among
// address groups (fairslots.go) and, from half the limit on, limits the
// rate of new connections per group (guard.go).
//
// It also counts open connections for OpenConnections and keeps the set of
// open connections so that Shutdown can close stragglers.
type limitListener struct {
	net.Listener
	maxTotal, maxPublic, maxPrivate int // < 0: no limit
	sndBuf                          int // > 0: SO_SNDBUF of admitted connections (--rpc-response-soft-limit)
	log                             *slog.Logger

	mu       sync.Mutex
	open     int
	perHost  map[hostKey]int
	perGroup map[groupKey]int // for the fair slots (fairslots.go)
	// perPrefix: slots held per prefix (/24, /48) for the fair slots'
	// order of eviction (fairslots.go).
	perPrefix map[prefixKey]int
	// standing: what each address group seen lately did (fairslots.go).
	standing   map[groupKey]*groupStanding
	staleGrace time.Duration // standing rule: how long a silent connection is spared
	conns      map[*countedConn]struct{}
	// probation: connections at the cap without a slot, each waiting for
	// its first request to claim one (probation.go); probationGroups
	// their groups.
	probation       map[*countedConn]struct{}
	probationGroups map[groupKey]bool
	// probationPrefixes: places on probation per prefix (probation.go).
	probationPrefixes map[prefixKey]int
	// probationOrder: the connections on probation, oldest (connectedAt)
	// first; prefixHolding[n]: how many prefixes hold n places, up to
	// maxPrefixHold, the most any holds (bumpVictimLocked).
	probationOrder  probationList
	prefixHolding   []int
	maxPrefixHold   int
	probationLimits probationLimits
	accepted        uint64 // connections admitted since start
	refused         uint64 // connections closed at once because of a limit

	openNow atomic.Int64 // == open, readable without the lock

	connRate connRate       // new connections per address group (guard.go); accept loop only
	guard    *guardCounters // shared with the Server's request meter

	lastRefused map[hostKey]time.Time // when each host was last refused
	held        []heldConn            // refused connections waiting to be closed
	reaping     bool                  // reap is running
}

func newLimitListener(inner net.Listener, maxTotal, maxPublic, maxPrivate, sndBuf int, log *slog.Logger) *limitListener {
	return &limitListener{
		Listener:          inner,
		maxTotal:          maxTotal,
		maxPublic:         maxPublic,
		maxPrivate:        maxPrivate,
		sndBuf:            sndBuf,
		log:               log,
		perHost:           make(map[hostKey]int),
		perGroup:          make(map[groupKey]int),
		perPrefix:         make(map[prefixKey]int),
		standing:          make(map[groupKey]*groupStanding),
		staleGrace:        defaultStaleGrace,
		conns:             make(map[*countedConn]struct{}),
		probation:         make(map[*countedConn]struct{}),
		probationGroups:   make(map[groupKey]bool),
		probationPrefixes: make(map[prefixKey]int),
		probationLimits:   defaultProbation,
		connRate:          newConnRate(0, 1),
		guard:             &guardCounters{},
	}
}

// Accept returns the next connection within the limits; connections over a
// limit are closed here and never reach the HTTP server.
func (l *limitListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		ip := remoteIP(c)
		key := hostKeyOf(ip)
		grp := groupOf(key)
		now := time.Now().UnixNano()
		if l.underPressure() && !l.connRate.allow(grp, now) {
			l.guard.refusedRate.Add(1)
			l.mu.Lock()
			l.refused++
			l.mu.Unlock()
			l.refuse(c, key, "rate")
			continue
		}
		cc := &countedConn{Conn: c, ln: l, key: key, group: grp, prefix: prefixOf(grp), connectedAt: now}
		cc.idleSince.Store(now)
		if reason := l.admitOrEvict(key, grp, cc); reason != "" {
			l.refuse(c, key, reason)
			continue
		}
		if l.sndBuf > 0 {
			if tc, ok := c.(interface{ SetWriteBuffer(int) error }); ok {
				_ = tc.SetWriteBuffer(l.sndBuf)
			}
		}
		return cc, nil
	}
}

// Refusing. monerod closes a connection over a limit at once. A client
// that reconnects in a loop (wrk does, a misconfigured pool may) then
// costs both sides a TCP handshake, an accept and a close per turn, as
// fast as it can go: tens of thousands per second on loopback, CPU that
// the admitted connections no longer get. So a host's first refusal is
// an immediate close, as in monerod; a host refused again within
// refuseMemory has its next refused connections held (unread, no byte
// sent) for refuseHold before they are closed. The client still sees
// what monerod shows it, a connection that ends without a byte, only
// later, and its loop turns a few times per second instead of thousands.
// At most maxHeldRefused connections are held (beyond that they are
// closed at once), so holding costs bounded memory and descriptors.
const (
	refuseMemory   = time.Second
	refuseHold     = time.Second
	maxHeldRefused = 4096
	// maxRefusedHosts bounds the memory of recently refused hosts.
	maxRefusedHosts = 4096
)

type heldConn struct {
	c       net.Conn
	closeAt time.Time
}

func (l *limitListener) refuse(c net.Conn, key hostKey, reason string) {
	now := time.Now()
	l.mu.Lock()
	if l.lastRefused == nil || len(l.lastRefused) >= maxRefusedHosts {
		l.lastRefused = make(map[hostKey]time.Time)
	}
	last, seen := l.lastRefused[key]
	l.lastRefused[key] = now
	// A group that holds no connection and asked something lately is not
	// held: it is a client that came back at the cap, not a loop (the fair
	// slots, fairslots.go, find it a place soon).
	grp := groupOf(key)
	comeback := l.perGroup[grp] == 0 && l.askedLatelyLocked(grp, now.UnixNano())
	hold := seen && now.Sub(last) < refuseMemory && len(l.held) < maxHeldRefused && !comeback
	if hold {
		l.held = append(l.held, heldConn{c: c, closeAt: now.Add(refuseHold)})
		if !l.reaping {
			l.reaping = true
			go l.reap()
		}
	}
	l.mu.Unlock()
	if !hold {
		_ = c.Close()
	}
	l.guard.pressure()
	l.log.Debug("httpd: connection refused: limit reached", "remote", c.RemoteAddr().String(), "reason", reason, "held", hold)
}

// holdEvicted holds an evicted connection's socket for refuseHold before
// closing it (fairslots.go, evict): its reader is woken now (its read
// deadline passes, so its serving goroutine ends without a byte written),
// the socket is closed by reap. false: the held list is full; the caller
// closes it now.
func (l *limitListener) holdEvicted(c net.Conn) bool {
	now := time.Now()
	l.mu.Lock()
	if len(l.held) >= maxHeldRefused {
		l.mu.Unlock()
		return false
	}
	l.held = append(l.held, heldConn{c: c, closeAt: now.Add(refuseHold)})
	if !l.reaping {
		l.reaping = true
		go l.reap()
	}
	l.mu.Unlock()
	_ = c.SetReadDeadline(now)
	return true
}

// reap closes held refused connections when their time is up; it runs
// while any are held. They are queued in closing order (same hold for
// all), so it only ever looks at the front.
func (l *limitListener) reap() {
	for {
		l.mu.Lock()
		if len(l.held) == 0 {
			l.reaping = false
			l.mu.Unlock()
			return
		}
		first := l.held[0]
		wait := time.Until(first.closeAt)
		if wait <= 0 {
			l.held[0] = heldConn{}
			l.held = l.held[1:]
			if len(l.held) == 0 {
				l.held = nil
			}
		}
		l.mu.Unlock()
		if wait > 0 {
			time.Sleep(wait)
			continue
		}
		_ = first.c.Close()
	}
}

// Close stops accepting and closes held refused connections.
func (l *limitListener) Close() error {
	err := l.Listener.Close()
	l.mu.Lock()
	held := l.held
	l.held = nil
	l.mu.Unlock()
	for _, h := range held {
		_ = h.c.Close()
	}
	return err
}

// remoteIP is the peer's address without port (addrgroup.Remote).
func remoteIP(c net.Conn) netip.Addr { return addrgroup.Remote(c) }

// hostKey is what one "IP" is for the per-IP limits (addrgroup.Host): the
// address itself, a public IPv6 address per /64.
type hostKey struct {
	addr    netip.Addr
	private bool
}

func hostKeyOf(ip netip.Addr) hostKey {
	return hostKey{addr: addrgroup.Host(ip), private: addrgroup.Private(ip)}
}

// admit applies the limits to a connection from key without eviction
// (what monerod does); cc may be nil (tests).
func (l *limitListener) admit(key hostKey, cc *countedConn) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.admitLocked(key, groupOf(key), cc) != "" {
		l.refused++
		return false
	}
	return true
}

// admitOrEvict admits cc within monerod's limits or, at the total cap,
// in the place of another group's connection (fairslots.go), or on
// probation (probation.go). It returns "" or the reason for the refusal
// (counted).
func (l *limitListener) admitOrEvict(key hostKey, grp groupKey, cc *countedConn) string {
	for try := 0; ; try++ {
		l.mu.Lock()
		now := time.Now().UnixNano()
		reason := l.admitLocked(key, grp, cc)
		var victim, bumped *countedConn
		if reason == reasonTotal && try < maxEvictTries {
			victim = l.victimLocked(grp, now, false)
		}
		probation := false
		if victim == nil && reason == reasonTotal {
			if probation, bumped = l.probationLocked(key, grp, cc); probation {
				reason = ""
			}
		}
		if reason == "" && cc != nil && !probation {
			cc.standing = l.standingLocked(grp)
		}
		var snapshot string
		if victim == nil && reason != "" {
			l.refused++
			if reason == reasonTotal && l.log.Enabled(context.Background(), slog.LevelDebug) {
				snapshot = l.slotsSnapshotLocked(grp, try)
			}
		}
		l.mu.Unlock()
		if snapshot != "" {
			l.log.Debug("httpd: no fair slot", "remote", cc.Conn.RemoteAddr().String(), "slots", snapshot)
		}
		if bumped != nil {
			l.guard.probationBumped.Add(1)
			bumped.closeUncounted()
		}
		if probation {
			l.guard.probationStarted.Add(1)
			l.guard.pressure()
			l.log.Debug("httpd: connection on probation at the cap", "remote", cc.Conn.RemoteAddr().String())
			return ""
		}
		if victim == nil {
			switch reason {
			case reasonPerIP:
				l.guard.refusedPerIP.Add(1)
			case reasonTotal:
				l.guard.refusedTotal.Add(1)
			}
			return reason
		}
		l.evicted(victim, cc)
	}
}

// evicted closes victim, chosen to make room for cc, and counts it.
func (l *limitListener) evicted(victim, cc *countedConn) {
	victim.evict()
	if victim.evictedBusy {
		l.guard.evictedBusy.Add(1)
	} else {
		l.guard.evictedIdle.Add(1)
	}
	l.guard.pressure()
	l.log.Debug("httpd: connection evicted for another address group", "remote", victim.Conn.RemoteAddr().String(),
		"rule", victimRules[victim.evictedClass], "for", cc.Conn.RemoteAddr().String())
}

// admitLocked takes a slot for cc, or says which limit refuses it: "",
// reasonPerIP or reasonTotal. The per-IP limit, monerod's, is never
// lifted by eviction.
func (l *limitListener) admitLocked(key hostKey, grp groupKey, cc *countedConn) string {
	perHost := l.maxPublic
	if key.private {
		perHost = l.maxPrivate
	}
	if perHost >= 0 && l.perHost[key] >= perHost {
		return reasonPerIP
	}
	if l.maxTotal >= 0 && l.open >= l.maxTotal {
		return reasonTotal
	}
	l.open++
	l.openNow.Store(int64(l.open))
	l.perHost[key]++
	l.perGroup[grp]++
	l.perPrefix[prefixOf(grp)]++
	l.accepted++
	if cc != nil {
		l.conns[cc] = struct{}{}
		cc.counted = true
		cc.prefix = prefixOf(grp)
	}
	return ""
}

// release gives back what cc holds: its slot, or its place on probation.
// It may be called more than once.
func (l *limitListener) release(cc *countedConn) {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case cc.counted:
		l.releaseLocked(cc)
	case cc.onProbation:
		l.dropProbationLocked(cc)
	}
}

// releaseLocked gives back cc's slot.
func (l *limitListener) releaseLocked(cc *countedConn) {
	cc.counted = false
	l.open--
	l.openNow.Store(int64(l.open))
	if n := l.perHost[cc.key] - 1; n > 0 {
		l.perHost[cc.key] = n
	} else {
		delete(l.perHost, cc.key)
	}
	if n := l.perGroup[cc.group] - 1; n > 0 {
		l.perGroup[cc.group] = n
	} else {
		delete(l.perGroup, cc.group)
	}
	if n := l.perPrefix[cc.prefix] - 1; n > 0 {
		l.perPrefix[cc.prefix] = n
	} else {
		delete(l.perPrefix, cc.prefix)
	}
	delete(l.conns, cc)
}

// closeAll closes every open admitted connection (Shutdown after its
// deadline).
func (l *limitListener) closeAll() {
	l.mu.Lock()
	conns := make([]*countedConn, 0, len(l.conns)+len(l.probation))
	for c := range l.conns {
		conns = append(conns, c)
	}
	for c := range l.probation {
		conns = append(conns, c)
	}
	l.mu.Unlock()
	for _, c := range conns {
		_ = c.Close()
	}
}

// Open is the number of admitted connections not yet closed.
func (l *limitListener) Open() int { return int(l.openNow.Load()) }

// stats returns the admitted and refused totals (for tests).
func (l *limitListener) stats() (accepted, refused uint64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.accepted, l.refused
}

// countedConn is an admitted connection. It gives its slot back exactly
// once, however often it is closed, and carries what the server keeps per
// connection so that a request costs no allocation: the digest session, the
// remote address as a string, and the Request handed to routes (requests on
// one connection are served one after the other).
type countedConn struct {
	net.Conn
	ln     *limitListener
	key    hostKey
	group  groupKey
	prefix prefixKey // prefixOf(group)
	closed atomic.Bool
	// ready: how far its first request has come while on probation
	// (readyNone, readyBytes, readyHead: probation.go spares the
	// furthest); headTail: the last bytes read, to find the head's end
	// across reads.
	ready    atomic.Int32
	headTail [3]byte

	// Fair slots (fairslots.go): state is connIdle, connServing or
	// connWriting; idleSince is when it last turned idle (unix ns).
	// evicted and evictedBusy are guarded by ln.mu.
	state        atomic.Int32
	inWrite      atomic.Bool
	idleSince    atomic.Int64
	connectedAt  int64
	evicted      bool
	evictedBusy  bool
	evictedClass int // the rule that chose it (victimOtherIdle...)
	// counted: it holds a slot (guarded by ln.mu). onProbation: it holds
	// none yet, and must claim one with its first request; claiming: that
	// request is in and waits for a slot (probation.go).
	counted, onProbation, claiming bool
	probationTimer                 *time.Timer
	// probationPending: it was put on probation and has not claimed a
	// slot (read on every request without the lock).
	probationPending atomic.Bool
	// probationPrev, probationNext: its neighbours in ln.probationOrder
	// (guarded by ln.mu).
	probationPrev, probationNext *countedConn
	// lastAnswer: the answer being made or written closes the connection.
	lastAnswer atomic.Bool
	// requested: a whole request came in on it; standing is its group's
	// record, stamped by every request (fairslots.go).
	requested atomic.Bool
	requests  atomic.Int32 // whole requests served on it (fairslots.go)
	standing  *groupStanding

	started bool // the first Read happened
	// drainOnClose: the server is hanging up on a request whose body it
	// did not read (413); see Close.
	drainOnClose bool
	remote       string // RemoteAddr().String(), made on first use
	// The memory budget's claim of the request being served and of its
	// answer until written (memory.go); leaseMu because a close (an
	// eviction) may come from another goroutine.
	leaseMu   sync.Mutex
	lease     membudget.Lease[netip.Addr]
	leaseInit bool
	leaseHeld atomic.Bool
	auth      authSession
	req       Request
}

func (c *countedConn) Close() error {
	if c.closed.Swap(true) {
		return nil
	}
	c.releaseMemory()
	if c.drainOnClose {
		// Closing a socket with unread bytes sends a RST, which can
		// destroy our answer (the 413) before the client has read it.
		// Half-close, discard what the client is still sending for a
		// moment (bounded in time and bytes), then close, as net/http does.
		_ = c.CloseWrite()
		go func() {
			limit := int64(drainBytes)
			if c.ln.underPressure() {
				// Another group may be waiting for this slot, and a
				// client that sends megabytes to be refused is more
				// likely an attacker: its answer gets less care.
				limit = drainBytesUnderPressure
			}
			_ = c.Conn.SetReadDeadline(time.Now().Add(drainTime))
			_, _ = io.CopyN(io.Discard, c.Conn, limit)
			_ = c.Conn.Close()
			c.ln.release(c)
		}()
		return nil
	}
	err := c.Conn.Close()
	c.ln.release(c)
	return err
}

// drainTime and drainBytes bound the discarding of a refused request's
// body before the connection closes.
const (
	drainTime               = 500 * time.Millisecond
	drainBytes              = 8 << 20
	drainBytesUnderPressure = 256 << 10
)

// tlsHandshakeRecord is the first byte of a TLS ClientHello.
const tlsHandshakeRecord = 0x16

// notTLSAnswer is sent to a client that opens with a TLS handshake: plain
// bytes that are not a TLS record, so that the client's handshake fails at
// once ("wrong version number") and a wallet in --daemon-ssl autodetect
// reconnects in plain HTTP (docs/wallet-rpc.md §2.1). Waiting instead for a line
// end that a ClientHello never contains would hold the wallet until its
// handshake timed out.
var notTLSAnswer = []byte("HTTP/1.1 400 Bad Request\r\nServer: Epee-based\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")

// Read looks at the first byte a client sends: a TLS handshake is answered
// with notTLSAnswer and the connection ends (EOF to the HTTP server, which
// then closes it without a word of its own).
func (c *countedConn) Read(p []byte) (int, error) {
	c.markIdle()
	// The last answer is written: what it held goes back to the budget.
	c.releaseMemory()
	n, err := c.Conn.Read(p)
	if n > 0 && !c.requested.Load() && c.ready.Load() != readyHead {
		c.noteRead(p[:n])
	}
	if !c.started && n > 0 {
		c.started = true
		if p[0] == tlsHandshakeRecord {
			_, _ = c.Conn.Write(notTLSAnswer)
			return 0, io.EOF
		}
	}
	return n, err
}

// remoteAddr is RemoteAddr().String(), computed once per connection.
func (c *countedConn) remoteAddr() string {
	if c.remote == "" {
		c.remote = c.Conn.RemoteAddr().String()
	}
	return c.remote
}

// CloseWrite lets the server half-close before it hangs up on a client
// whose request body it did not read (413), so that the client can still
// read the answer instead of being reset.
func (c *countedConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

// slotsSnapshotLocked describes the slots as the fair-slot rules see them
// when a connection of grp is refused at the cap (debug logs).
func (l *limitListener) slotsSnapshotLocked(grp groupKey, tries int) string {
	sizes := make(map[int]int)
	for _, n := range l.perGroup {
		sizes[n]++
	}
	var idle, busy, closing, ownIdle, ownBusy int
	now := time.Now().UnixNano()
	var silent int
	for c := range l.conns {
		switch {
		case c.evicted || c.closed.Load():
			closing++
		case c.group == grp && c.idle():
			ownIdle++
		case c.group == grp:
			ownBusy++
		case c.idle():
			idle++
			if !c.requested.Load() && now-c.idleSince.Load() >= int64(l.staleGrace) {
				silent++
			}
		default:
			busy++
		}
	}
	return fmt.Sprintf("open=%d groups=%d own=%d asked=%v sizes=%v idle=%d silent=%d busy=%d closing=%d own_idle=%d own_busy=%d tries=%d",
		l.open, len(l.perGroup), l.perGroup[grp], l.askedLatelyLocked(grp, now), sizes, idle, silent, busy, closing, ownIdle, ownBusy, tries)
}
