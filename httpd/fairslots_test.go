package httpd

import (
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// dialFromAddr connects from ip (loopback aliases) without failing the
// test: a flood goroutine only counts its failures.
func dialFromAddr(s *Server, ip string) (net.Conn, error) {
	d := net.Dialer{Timeout: 2 * time.Second, LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}
	return d.Dial("tcp", s.Addr().String())
}

// TestFairSlotsReconnectFlood: four addresses fill the connection cap and
// reconnect as fast as they can whenever they are cut off, some silent,
// some sending a request head a byte at a time (slowloris). monerod would
// refuse everyone else; here every connection from a fifth address is
// served, one after the other, and so is a sixth address's keep-alive
// connection, meanwhile.
func TestFairSlotsReconnectFlood(t *testing.T) {
	const perIP, floodAddrs = 3, 4
	s := startServer(t, Config{
		MaxConnections:             perIP * floodAddrs,
		MaxConnectionsPerPrivateIP: perIP,
		ConnectionRate:             -1, // the slots alone must hold
	}, testRoutes(nil))

	stop := make(chan struct{})
	var wg sync.WaitGroup
	var turns atomic.Int64
	for i := 0; i < floodAddrs; i++ {
		ip := []string{"127.0.0.2", "127.0.0.3", "127.0.0.4", "127.0.0.5"}[i]
		slowloris := i%2 == 1
		for j := 0; j < 2*perIP; j++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					select {
					case <-stop:
						return
					default:
					}
					c, err := dialFromAddr(s, ip)
					if err != nil {
						continue
					}
					turns.Add(1)
					go func() { <-stop; c.Close() }()
					if slowloris {
						_, _ = io.WriteString(c, "POST /json_rpc HTTP/1.1\r\nHost: x\r\nX-Slow: z")
					}
					_, _ = c.Read(make([]byte, 1)) // until the server closes it
					c.Close()
				}
			}()
		}
	}
	defer func() { close(stop); wg.Wait() }()
	waitFor(t, "the flood to fill the cap", func() bool { return s.OpenConnections() == perIP*floodAddrs })

	for i := 0; i < 20; i++ {
		c := dialFrom(t, s, "127.0.0.9")
		if !c.served() {
			t.Fatalf("connection %d from a new address refused while a reconnecting flood holds the cap (%+v)", i+1, s.GuardStats())
		}
		// The next connection comes at once, perhaps before the server
		// sees this one close: then it takes this one's place.
		c.conn.Close()
	}
	keep := dialFrom(t, s, "127.0.0.10")
	for i := 0; i < 20; i++ {
		if !keep.served() {
			t.Fatalf("request %d on a keep-alive connection from a new address not served (%+v)", i+1, s.GuardStats())
		}
	}
	st := s.GuardStats()
	// The first newcomer found the cap full: at least that one evicted.
	if st.EvictedIdle < 1 || st.EvictedBusy != 0 {
		t.Errorf("evictions %+v; want idle flood connections evicted, none busy", st)
	}
	if st.Open > perIP*floodAddrs {
		t.Errorf("%d connections open, over the cap %d", st.Open, perIP*floodAddrs)
	}
	t.Logf("%d flood connections; %+v", turns.Load(), st)
}

// TestEvictIdleBeforeBusy: at the cap, a newcomer takes the slot of an
// idle connection (here one that sent half a request) rather than an
// older one that is being served; a busy connection is taken only when
// the largest group has no idle one left.
func TestEvictIdleBeforeBusy(t *testing.T) {
	t.Parallel() // waits on timeouts and holds, not on the CPU
	routes := testRoutes(nil)
	entered, release := holdRoute(t, routes, 4)
	s := startServer(t, Config{MaxConnections: 3, MaxConnectionsPerPrivateIP: 3, ConnectionRate: -1}, routes)

	hold := func() *rawClient {
		c := dialFrom(t, s, "127.0.0.2")
		c.send("GET /hold HTTP/1.1\r\nHost: x\r\n\r\n")
		<-entered
		return c
	}
	busyOld := hold() // oldest, busy
	half := dialFrom(t, s, "127.0.0.2")
	half.send("POST /json_rpc HTTP/1.1\r\nHost: x\r\n") // half a head: idle
	waitFor(t, "the half request to be admitted", func() bool { return s.OpenConnections() == 2 })
	busyNew := hold()

	b := dialFrom(t, s, "127.0.0.3")
	if !b.served() {
		t.Fatal("a newcomer was refused at the cap")
	}
	if !closedByServer(t, half.conn, half.br, 5*time.Second) {
		t.Fatal("the idle (half-request) connection was not the one evicted")
	}
	if st := s.GuardStats(); st.EvictedIdle != 1 || st.EvictedBusy != 0 {
		t.Fatalf("evictions %+v; want one idle", st)
	}

	// Now 127.0.0.2 holds 2 busy connections, 127.0.0.3 one: a third
	// group's newcomer can only have a busy slot, the oldest.
	c := dialFrom(t, s, "127.0.0.4")
	if !c.served() {
		t.Fatal("a newcomer was refused although the largest group held two slots")
	}
	if !closedByServer(t, busyOld.conn, busyOld.br, 5*time.Second) {
		t.Fatal("the oldest busy connection was not evicted")
	}
	if st := s.GuardStats(); st.EvictedIdle != 1 || st.EvictedBusy != 1 {
		t.Fatalf("evictions %+v; want one idle, then one busy", st)
	}
	// The younger busy one is still served.
	release()
	if resp, body := busyNew.read("GET"); resp.StatusCode != 200 || string(body) != "held" {
		t.Fatalf("the remaining busy connection got %d %q", resp.StatusCode, body)
	}
	// 127.0.0.2, .3 and .4 hold one slot each, each idle after its
	// request: monerod refuses a fourth group; here its request, in hand
	// on probation, takes the slot of one of them (the churn rule,
	// fairslots.go), so that arrivals cannot keep a prompt client out.
	if !dialFrom(t, s, "127.0.0.5").served() {
		t.Fatal("a request from a group holding nothing was refused while every slot was idle after its request")
	}
	if st := s.GuardStats(); st.EvictedIdle != 2 || st.EvictedBusy != 1 || st.Open != 3 {
		t.Fatalf("evictions %+v; want a second idle one, the cap open", st)
	}
}

// TestConnectionRate: while the listener holds half its cap or more, a
// group's connections beyond its burst are refused until its bucket
// refills; other groups are not affected. Below that, the rate is not
// limited (monerod's behaviour).
func TestConnectionRate(t *testing.T) {
	s := startServer(t, Config{MaxConnections: 10, ConnectionRate: 0.001, ConnectionBurst: 3}, testRoutes(nil))
	for i := 0; i < 5; i++ {
		c := dialFrom(t, s, "127.0.0.2")
		if !c.served() {
			t.Fatalf("connection %d below half the cap refused", i+1)
		}
		c.conn.Close()
	}
	waitFor(t, "the closes", func() bool { return s.OpenConnections() == 0 })
	for i := 0; i < 5; i++ { // half the cap
		if !dialFrom(t, s, "127.0.0.7").served() {
			t.Fatalf("connection %d from 127.0.0.7 refused", i+1)
		}
	}
	for i := 0; i < 3; i++ {
		c := dialFrom(t, s, "127.0.0.3")
		if !c.served() {
			t.Fatalf("connection %d within the burst refused", i+1)
		}
		c.conn.Close()
	}
	if dialFrom(t, s, "127.0.0.3").served() {
		t.Fatal("a connection beyond the burst was admitted")
	}
	if !dialFrom(t, s, "127.0.0.4").served() {
		t.Fatal("another address was refused")
	}
	if st := s.GuardStats(); st.RefusedRate != 1 {
		t.Fatalf("%+v; want one refusal by rate", st)
	}
}

// TestConnRateBuckets checks the buckets' arithmetic with a made-up
// clock, and that their number stays bounded.
func TestConnRateBuckets(t *testing.T) {
	r := newConnRate(2, 4) // 2 per second, 4 at once
	g := groupOf(hostKeyOf(netip.MustParseAddr("8.8.8.8")))
	now := int64(1e9)
	for i := 0; i < 4; i++ {
		if !r.allow(g, now) {
			t.Fatalf("connection %d of the burst refused", i+1)
		}
	}
	if r.allow(g, now) {
		t.Fatal("5th connection at once admitted")
	}
	if !r.allow(g, now+int64(500*time.Millisecond)) || r.allow(g, now+int64(500*time.Millisecond)) {
		t.Fatal("after half a second exactly one more connection should pass (2/s)")
	}
	// the /24 is one group
	if r.allow(groupOf(hostKeyOf(netip.MustParseAddr("8.8.8.200"))), now+int64(500*time.Millisecond)) {
		t.Fatal("another address of the same /24 has a bucket of its own")
	}
	for i := 0; i < 3*maxRateGroups; i++ {
		a := netip.MustParseAddr("10.0.0.0").As4()
		a[1], a[2], a[3] = byte(i>>16), byte(i>>8), byte(i)
		r.allow(groupKey{netip.AddrFrom4(a)}, now)
	}
	if len(r.buckets) > maxRateGroups {
		t.Fatalf("%d buckets kept, bound %d", len(r.buckets), maxRateGroups)
	}
}

func TestGroups(t *testing.T) {
	for _, tc := range []struct{ ip, group string }{
		{"8.8.8.8", "8.8.8.0"},
		{"8.8.8.77", "8.8.8.0"},
		{"127.0.0.2", "127.0.0.2"}, // private: per address
		{"192.168.1.7", "192.168.1.7"},
		{"2001:db8:1:2:aaaa::1", "2001:db8:1:2::"},
		{"::ffff:8.8.4.4", "8.8.4.0"},
	} {
		if g := groupOf(hostKeyOf(netip.MustParseAddr(tc.ip).Unmap())); g.addr.String() != tc.group {
			t.Errorf("%s: group %s, want %s", tc.ip, g.addr, tc.group)
		}
	}
}

// TestPressureLog: many refusals give one warning line with their count,
// not one line each.
func TestPressureLog(t *testing.T) {
	t.Parallel() // waits on timeouts and holds, not on the CPU
	var buf lockedBuffer
	log := slog.New(slog.NewTextHandler(&buf, nil))
	s := startServer(t, Config{MaxConnectionsPerPrivateIP: 1, Logger: log}, testRoutes(nil))
	first := dialFrom(t, s, "127.0.0.2")
	if !first.served() {
		t.Fatal("first connection refused")
	}
	for i := 0; i < 10; i++ {
		if dialFrom(t, s, "127.0.0.2").served() {
			t.Fatal("a connection over the per-IP limit was admitted")
		}
	}
	waitFor(t, "10 refusals", func() bool { return s.GuardStats().RefusedPerIP == 10 })
	out := buf.String()
	if n := strings.Count(out, "under pressure"); n != 1 {
		t.Fatalf("%d pressure lines, want 1:\n%s", n, out)
	}
	if !strings.Contains(out, "refused_per_ip=1") {
		t.Fatalf("the line does not count the first refusal:\n%s", out)
	}
}

// wrappedConn stands for a TLS connection over an admitted one.
type wrappedConn struct{ net.Conn }

func (w wrappedConn) NetConn() net.Conn { return w.Conn }

func TestConnOfUnwraps(t *testing.T) {
	cc := &countedConn{}
	if connOf(wrappedConn{cc}) != cc || connOf(cc) != cc {
		t.Fatal("connOf does not find the admitted connection under a wrapper")
	}
	if connOf(wrappedConn{&net.TCPConn{}}) != nil {
		t.Fatal("connOf invented an admitted connection")
	}
}

func TestGuardStatsAdd(t *testing.T) {
	a := GuardStats{Open: 1, RefusedPerIP: 2, RefusedTotal: 3, RefusedRate: 4, EvictedIdle: 5, EvictedBusy: 6, MeteredWaits: 7, MeteredBusy: 8,
		ProbationStarted: 9, ProbationAdmitted: 10, ProbationExpired: 11, ProbationBumped: 12, MemoryRefused: 13}
	if got, want := a.Add(a), (GuardStats{2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26}); got != want {
		t.Fatalf("%+v, want %+v", got, want)
	}
}

// waitIdle waits until every connection from ip is idle: the server has
// written its answers and reads again.
func waitIdle(t *testing.T, s *Server, ip string) {
	t.Helper()
	g := groupOf(hostKeyOf(netip.MustParseAddr(ip)))
	waitFor(t, ip+"'s connections to be idle", func() bool {
		s.ln.mu.Lock()
		defer s.ln.mu.Unlock()
		for c := range s.ln.conns {
			if c.group == g && c.state.Load() != connIdle {
				return false
			}
		}
		return true
	})
}

// TestConnIdleStates: a connection is idle while the server waits for its
// client (reading, or with its answer handed to the kernel), busy while a
// request is answered or a write blocks.
func TestConnIdleStates(t *testing.T) {
	c := &countedConn{}
	if !c.idle() {
		t.Fatal("a new connection is not idle")
	}
	c.markServing()
	if c.idle() {
		t.Fatal("a connection being served is idle")
	}
	c.markWriting()
	c.inWrite.Store(true)
	if c.idle() {
		t.Fatal("a connection blocked writing its answer is idle")
	}
	c.inWrite.Store(false)
	if !c.idle() {
		t.Fatal("a connection whose answer is written is not idle")
	}
	stamped := c.idleSince.Load()
	c.markIdle()
	if !c.idle() || c.idleSince.Load() != stamped {
		t.Fatal("reading again: not idle, or the idle time moved from when the answer was made")
	}
}

// TestFairSlotsPublicGroups: 34 public addresses of one /24 fill the cap
// (3 each, monerod's per-IP limit, up to 100): they are one group, so an
// address of another network takes the slot of one of them, while a 35th
// address of their /24 is refused, its group holding far more than an
// even share.
func TestFairSlotsPublicGroups(t *testing.T) {
	l := newLimitListener(nil, 100, 3, 25, 0, slog.New(slog.NewTextHandler(io.Discard, nil)))
	conn := func(ip string) *countedConn {
		a, b := net.Pipe()
		t.Cleanup(func() { a.Close(); b.Close() })
		key := hostKeyOf(netip.MustParseAddr(ip))
		return &countedConn{Conn: a, ln: l, key: key, group: groupOf(key)}
	}
	admit := func(ip string) string {
		c := conn(ip)
		return l.admitOrEvict(c.key, c.group, c)
	}
	for i := 0; i < 34; i++ {
		for j := 0; j < 3; j++ {
			if r := admit(fmt.Sprintf("203.0.113.%d", i+1)); r != "" && l.Open() < 100 {
				t.Fatalf("connection %d of address %d refused (%s) below the cap", j+1, i+1, r)
			}
		}
	}
	if l.Open() != 100 {
		t.Fatalf("%d open, want the cap, 100", l.Open())
	}
	if r := admit("203.0.113.200"); r != reasonTotal {
		t.Fatalf("a 35th address of the flooding /24: %q, want refused at the cap", r)
	}
	if r := admit("198.51.100.7"); r != "" {
		t.Fatalf("an address of another network refused (%s) while one /24 holds the cap", r)
	}
	if l.Open() != 100 || l.guard.evictedIdle.Load() != 1 {
		t.Fatalf("%d open, %d evicted; want 100, 1", l.Open(), l.guard.evictedIdle.Load())
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if n := l.perGroup[groupOf(hostKeyOf(netip.MustParseAddr("203.0.113.1")))]; n != 99 {
		t.Fatalf("the /24 holds %d, want 99", n)
	}
}

// TestFairSlotsManySilentGroups: as many addresses as there are slots each
// hold one silent connection (an idle or slowloris flood spread over many
// addresses: rule 1 finds no group holding two more). A newcomer from an
// address not seen before takes a silent connection's slot once that one
// has sent nothing for the grace; a flood address that was seen and never
// asked anything cannot take another flood connection's slot.
func TestFairSlotsManySilentGroups(t *testing.T) {
	t.Parallel() // waits on timeouts and holds, not on the CPU
	const slots = 6
	s := startServer(t, Config{MaxConnections: slots, ConnectionRate: -1}, testRoutes(nil))
	s.ln.mu.Lock()
	s.ln.staleGrace = 50 * time.Millisecond
	s.ln.mu.Unlock()
	var flood []net.Conn
	defer func() {
		for _, c := range flood {
			c.Close()
		}
	}()
	for i := 0; i < slots; i++ {
		c, err := dialFromAddr(s, fmt.Sprintf("127.0.3.%d", i+1))
		if err != nil {
			t.Fatal(err)
		}
		if i%2 == 1 {
			_, _ = io.WriteString(c, "POST /json_rpc HTTP/1.1\r\nHost: x\r\nX-Slow: z")
		}
		flood = append(flood, c)
	}
	waitFor(t, "the flood to fill the cap", func() bool { return s.OpenConnections() == slots })

	// A seen, silent flood address: its group has no standing, so it is
	// refused (closed at once), and every flood connection stays.
	evictedBefore := s.GuardStats().EvictedIdle
	c, err := dialFromAddr(s, "127.0.3.1")
	if err != nil {
		t.Fatal(err)
	}
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	if n, err := c.Read(make([]byte, 1)); n != 0 || err == nil {
		t.Fatalf("a silent flood address got a slot at the cap: read %d, %v", n, err)
	}
	c.Close()
	if st := s.GuardStats(); st.EvictedIdle != evictedBefore {
		t.Fatalf("a silent flood address evicted a flood connection: %+v", st)
	}

	// Newcomers that ask something are served, one after the other.
	waitPastGrace(t, s, 3) // the silent half of the flood: one for each newcomer
	for i := 0; i < 3; i++ {
		good := dialFrom(t, s, fmt.Sprintf("127.0.4.%d", i+1))
		if !good.served() {
			t.Fatalf("newcomer %d refused while a silent flood from %d addresses holds the cap (%+v)", i+1, slots, s.GuardStats())
		}
		// The served one keeps its slot against a newcomer: it asked.
		good.conn.Close()
	}
	if st := s.GuardStats(); st.EvictedIdle < 1 || st.EvictedBusy != 0 {
		t.Errorf("evictions %+v; want silent flood connections evicted, none busy", st)
	}
}

// TestFairSlotsOwnClosingNotCounted: at the cap, 49 groups hold two busy
// connections each and a client one connection that the server is
// closing (the client closed it and reconnects at once; a loaded server
// has not yet given its slot back). The client's new connection must not
// be refused as though its group held one: with every other group at
// two, nothing would be "two more". It takes a busy slot, the last
// resort, as a newcomer holding nothing would.
func TestFairSlotsOwnClosingNotCounted(t *testing.T) {
	l := newLimitListener(nil, 99, 25, 25, 0, slog.New(slog.NewTextHandler(io.Discard, nil)))
	conn := func(ip string) *countedConn {
		a, b := net.Pipe()
		t.Cleanup(func() { a.Close(); b.Close() })
		key := hostKeyOf(netip.MustParseAddr(ip))
		return &countedConn{Conn: a, ln: l, key: key, group: groupOf(key)}
	}
	admit := func(c *countedConn) string { return l.admitOrEvict(c.key, c.group, c) }
	for i := 0; i < 49; i++ {
		for j := 0; j < 2; j++ {
			c := conn(fmt.Sprintf("127.1.0.%d", i+1))
			if r := admit(c); r != "" {
				t.Fatalf("flood connection refused (%s) below the cap", r)
			}
			c.markServing()
		}
	}
	old := conn("127.0.0.200")
	if r := admit(old); r != "" {
		t.Fatalf("the client's first connection refused (%s) below the cap", r)
	}
	old.markServing()
	old.markWriting()
	old.closed.Store(true) // Close has begun; release has not run yet
	if l.Open() != 99 {
		t.Fatalf("%d open, want the cap, 99", l.Open())
	}
	if r := admit(conn("127.0.0.200")); r != "" {
		t.Fatalf("the client's next connection refused (%s) while its last one was closing", r)
	}
	if got := l.guard.evictedBusy.Load(); got != 1 {
		t.Fatalf("%d busy connections evicted, want 1", got)
	}
	// Once the old one no longer counts as closing, the group holds two
	// for real (the old and the new): a third takes no slot, as every
	// other group holds no more than two; it waits on probation
	// (probation.go), where its request will find nothing either.
	old.closed.Store(false)
	third := conn("127.0.0.200")
	if r := admit(third); r != "" || !third.onProbation || l.Open() != 99 {
		t.Fatalf("a group holding two, at the cap: %q, on probation %v, %d open; want probation, 99 open", r, third.onProbation, l.Open())
	}
	if got := l.guard.evictedBusy.Load(); got != 1 {
		t.Fatalf("%d busy connections evicted, want 1", got)
	}
	l.release(third)

	// The same when the last connection is still writing its last answer
	// (the client said "Connection: close", read the answer and
	// reconnected before the server's write returned): it is on its way
	// out, as a closing one is.
	old.closed.Store(true)
	var last *countedConn
	for c := range l.conns {
		if c.group == old.group && c != old {
			last = c
		}
	}
	last.markServing()
	last.markLastAnswer()
	last.markWriting()
	last.inWrite.Store(true) // busy: not an idle victim of its own group
	if r := admit(conn("127.0.0.200")); r != "" {
		t.Fatalf("the client's next connection refused (%s) while its last one wrote its last answer", r)
	}
	if got := l.guard.evictedBusy.Load(); got != 2 {
		t.Fatalf("%d busy connections evicted, want 2", got)
	}
}
