package httpd

import (
	"fmt"
	"net"
	"testing"
	"time"
)

// shortProbation shortens s's fair-slot times so that tests run in
// milliseconds: a connection is silent after grace, on probation for
// window, and a claim waits claimWait.
func shortProbation(s *Server, grace, window, claimWait time.Duration, max int) {
	s.ln.mu.Lock()
	defer s.ln.mu.Unlock()
	s.ln.staleGrace = grace
	s.ln.probationLimits = probationLimits{window: window, claimWait: claimWait, max: max}
}

// silentFlood opens n silent connections from n addresses of 127.0.5.0/24
// (n groups, one connection each) and waits until they fill the cap.
func silentFlood(t *testing.T, s *Server, n int) []net.Conn {
	t.Helper()
	var flood []net.Conn
	for i := 0; i < n; i++ {
		c, err := dialFromAddr(s, fmt.Sprintf("127.0.5.%d", i+1))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		flood = append(flood, c)
	}
	waitFor(t, "the flood to fill the cap", func() bool { return s.OpenConnections() == n })
	return flood
}

// waitPastGrace waits until n of s's connections have sent nothing for the
// grace, by the listener's own records and clock: the moment a silent
// connection becomes a candidate to give up its slot.
func waitPastGrace(t *testing.T, s *Server, n int) {
	t.Helper()
	waitFor(t, fmt.Sprintf("%d connections silent past the grace", n), func() bool {
		l := s.ln
		l.mu.Lock()
		defer l.mu.Unlock()
		now := time.Now().UnixNano()
		silent := 0
		for c := range l.conns {
			if !c.evicted && !c.closed.Load() && c.idle() && !c.requested.Load() && now-c.idleSince.Load() >= int64(l.staleGrace) {
				silent++
			}
		}
		return silent >= n
	})
}

// stillOpen: the server has not closed c (a read waits rather than ends).
func stillOpen(c net.Conn) bool {
	c.SetReadDeadline(time.Now().Add(20 * time.Millisecond))
	_, err := c.Read(make([]byte, 1))
	ne, ok := err.(net.Error)
	return ok && ne.Timeout()
}

// TestProbationNewSilentGroupsDisplaceNothing: silent connections from as
// many addresses as there are slots hold the cap, and have been silent
// past the grace. Newcomers from addresses never seen before that stay
// silent too (the same flood from fresh addresses: an IPv6 /48 has 65,536
// groups) are put on probation and closed when it ends: not one flood
// connection loses its slot to them. A newcomer that asks something is
// served in the place of one of them.
func TestProbationNewSilentGroupsDisplaceNothing(t *testing.T) {
	t.Parallel() // waits on timeouts and holds, not on the CPU
	const slots = 6
	s := startServer(t, Config{MaxConnections: slots, ConnectionRate: -1}, testRoutes(nil))
	shortProbation(s, 30*time.Millisecond, 150*time.Millisecond, 500*time.Millisecond, 64)
	flood := silentFlood(t, s, slots)
	waitPastGrace(t, s, slots)

	var fresh []net.Conn
	for i := 0; i < 20; i++ {
		c, err := dialFromAddr(s, fmt.Sprintf("127.0.6.%d", i+1))
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		fresh = append(fresh, c)
	}
	for i, c := range fresh {
		c.SetReadDeadline(time.Now().Add(5 * time.Second))
		if n, err := c.Read(make([]byte, 1)); n != 0 || err == nil {
			t.Fatalf("silent newcomer %d: read %d, %v; want closed without a byte", i+1, n, err)
		}
	}
	st := s.GuardStats()
	if st.EvictedIdle != 0 || st.EvictedBusy != 0 {
		t.Fatalf("silent newcomers from unseen addresses evicted flood connections: %+v", st)
	}
	if got := s.ln.guard.probationExpired.Load(); got != 20 {
		t.Fatalf("%d probations expired, want 20", got)
	}
	for i, c := range flood {
		if !stillOpen(c) {
			t.Fatalf("flood connection %d closed", i+1)
		}
	}

	good := dialFrom(t, s, "127.0.7.1")
	if !good.served() {
		t.Fatalf("a newcomer that asks was not served while a silent flood holds the cap (%+v)", s.GuardStats())
	}
	if st := s.GuardStats(); st.EvictedIdle != 1 || st.Open != slots {
		t.Fatalf("after the newcomer: %+v; want one silent connection evicted, the cap open", st)
	}
	if got := s.ln.guard.probationAdmitted.Load(); got != 1 {
		t.Fatalf("%d admitted from probation, want 1", got)
	}
}

// TestProbationClaimWaitsForStale: the flood's connections are fresh when
// a new client asks, so there is no silent slot yet; its request waits on
// probation until one goes stale, and is then served.
func TestProbationClaimWaitsForStale(t *testing.T) {
	t.Parallel() // waits on timeouts and holds, not on the CPU
	const slots = 4
	s := startServer(t, Config{MaxConnections: slots, ConnectionRate: -1}, testRoutes(nil))
	shortProbation(s, 200*time.Millisecond, 2*time.Second, 2*time.Second, 64)
	silentFlood(t, s, slots)
	good := dialFrom(t, s, "127.0.7.1")
	if !good.served() {
		t.Fatalf("a new client's request did not wait for a slot to go stale (%+v)", s.GuardStats())
	}
	if st := s.GuardStats(); st.EvictedIdle != 1 {
		t.Fatalf("%+v; want one silent connection evicted", st)
	}
}

// TestProbationRefusedWithoutSlot: every slot is busy, one per group, so
// no rule frees one: a new client's request waits out the claim on
// probation and its connection is closed without an answer, as a refused
// one is; the busy requests are answered.
func TestProbationRefusedWithoutSlot(t *testing.T) {
	t.Parallel() // waits on timeouts and holds, not on the CPU
	routes := testRoutes(nil)
	entered, release := holdRoute(t, routes, 4)
	s := startServer(t, Config{MaxConnections: 2, ConnectionRate: -1}, routes)
	shortProbation(s, 10*time.Millisecond, time.Second, 100*time.Millisecond, 64)
	var busy []*rawClient
	for _, ip := range []string{"127.0.5.1", "127.0.5.2"} {
		c := dialFrom(t, s, ip)
		c.send("GET /hold HTTP/1.1\r\nHost: x\r\n\r\n")
		<-entered
		busy = append(busy, c)
	}
	refusedBefore := s.GuardStats().RefusedTotal
	newcomer := dialFrom(t, s, "127.0.7.1")
	newcomer.send("OPTIONS / HTTP/1.1\r\nHost: x\r\n\r\n")
	if !closedByServer(t, newcomer.conn, newcomer.br, 5*time.Second) {
		t.Fatal("a request on probation with every slot busy was neither served nor refused")
	}
	if st := s.GuardStats(); st.RefusedTotal != refusedBefore+1 || st.EvictedBusy != 0 || st.EvictedIdle != 0 {
		t.Fatalf("%+v; want the newcomer refused, nothing evicted", st)
	}
	release()
	for i, c := range busy {
		if resp, body := c.read("GET"); resp.StatusCode != 200 || string(body) != "held" {
			t.Fatalf("busy request %d: %d %q", i+1, resp.StatusCode, body)
		}
	}
}

// TestProbationBumpsOldest: when every place on probation is taken, a
// newcomer closes the connection on probation longest, so that a flood of
// new groups cannot keep a client out of probation itself; a second
// connection of a group on probation is refused (one place per group),
// and monerod's per-IP limit counts connections on probation.
func TestProbationBumpsOldest(t *testing.T) {
	t.Parallel() // waits on timeouts and holds, not on the CPU
	const slots = 2
	s := startServer(t, Config{MaxConnections: slots, MaxConnectionsPerPrivateIP: 2, ConnectionRate: -1}, testRoutes(nil))
	shortProbation(s, 30*time.Millisecond, 10*time.Second, time.Second, 2)
	silentFlood(t, s, slots)
	open := func(ip string) net.Conn {
		c, err := dialFromAddr(s, ip)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
	a := open("127.0.6.1")
	waitFor(t, "a on probation", func() bool { return s.ln.guard.probationStarted.Load() == 1 })
	b := open("127.0.6.2")
	waitFor(t, "b on probation", func() bool { return s.ln.guard.probationStarted.Load() == 2 })
	// A second connection of b's group: refused, b stays.
	b2 := open("127.0.6.2")
	b2.SetReadDeadline(time.Now().Add(5 * time.Second))
	if n, err := b2.Read(make([]byte, 1)); n != 0 || err == nil {
		t.Fatalf("a second connection of a group on probation: read %d, %v; want refused", n, err)
	}
	if !stillOpen(a) || !stillOpen(b) {
		t.Fatal("a connection on probation closed before its window")
	}
	waitPastGrace(t, s, slots) // the flood
	good := dialFrom(t, s, "127.0.7.1")
	a.SetReadDeadline(time.Now().Add(5 * time.Second))
	if n, err := a.Read(make([]byte, 1)); n != 0 || err == nil {
		t.Fatalf("the oldest connection on probation: read %d, %v; want it closed for the newcomer", n, err)
	}
	if !stillOpen(b) {
		t.Fatal("the newer connection on probation was closed, not the oldest")
	}
	if !good.served() {
		t.Fatalf("the newcomer that bumped a probation was not served (%+v)", s.GuardStats())
	}
	if got := s.ln.guard.probationBumped.Load(); got != 1 {
		t.Fatalf("%d probations bumped, want 1", got)
	}
}
