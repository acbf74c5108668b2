package httpd

import (
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// churnAddr is the n-th of the flood's addresses: 127.1.0.1 on, 250 per
// /24, so that 2,000 addresses span eight prefixes.
func churnAddr(n int) string {
	return fmt.Sprintf("127.%d.%d.%d", 1+n/62500, (n/250)%250, n%250+1)
}

// churnFlood runs until stop is closed: asked goroutines connect from
// address after address, send one cheap request at once and leave the
// connection idle (the shape of issue 33: one request, then idle,
// reconnecting), silent ones connect and say nothing, as fast as they can
// (they cycle through the places on probation). Each keeps its last keep connections open.
func churnFlood(s *Server, addrs, asked, silent, keep int, stop <-chan struct{}, wg *sync.WaitGroup, sent *atomic.Int64) {
	for g := 0; g < asked+silent; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			var open []net.Conn
			defer func() {
				for _, c := range open {
					c.Close()
				}
			}()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				c, err := dialFromAddr(s, churnAddr((g+i*(asked+silent))%addrs))
				if err != nil {
					continue
				}
				if g < asked {
					// One cheap request, its answer read (or the
					// connection refused), then idle.
					if _, err := c.Write([]byte("GET /get_info HTTP/1.1\r\nHost: x\r\n\r\n")); err == nil {
						sent.Add(1)
					}
					if _, _, err := readResponse(c, newReader(c), "GET", 5*time.Second); err != nil {
						c.Close()
						continue
					}
				}
				open = append(open, c)
				if len(open) > keep {
					open[0].Close()
					open = open[1:]
				}
			}
		}(g)
	}
}

// TestChurnFloodPromptClientServed: 2,000 addresses, one connection each,
// fill the cap with connections that asked one cheap question and idle,
// while silent newcomers from the same addresses churn through the places
// on probation (fewer than the addresses). monerod, and gonero before the
// churn rule, served the legitimate client none of its requests (issue
// 33). Here a client that connects and asks at once gets every answer: its
// request, in hand on probation, is never bumped and takes the slot of a
// connection idle after its one request; every connection evicted is the
// flood's.
func TestChurnFloodPromptClientServed(t *testing.T) {
	if testing.Short() {
		t.Skip("floods loopback for a few seconds")
	}
	churnPromptClient(t, churnShape{addrs: 2000})
}

// churnShape is the address shape of a churn flood: the flood dials from
// addrs loopback addresses (churnAddr); with remote set, the server sees
// the n-th connection of the flood come from remote(n) and the prompt
// client's (which dials from 127.0.0.1) from client (remapListener).
type churnShape struct {
	addrs  int
	remote func(n uint64) netip.Addr
	client netip.Addr
	warm   uint64 // with remote: the flood connections made before the client comes
}

// churnPromptClient runs a churn flood of the given shape and a prompt
// client's 30 requests through it (TestChurnFloodPromptClientServed), and
// returns the listener that served them.
func churnPromptClient(t *testing.T, shape churnShape) *remapListener {
	t.Helper()
	var logs lockedBuffer
	log := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	const slots = 16
	clientIP := "127.0.0.1"
	var remap *remapListener
	var wrap func(net.Listener) net.Listener
	if shape.remote != nil {
		clientIP = shape.client.String()
		wrap = func(inner net.Listener) net.Listener {
			remap = &remapListener{Listener: inner, flood: shape.remote, client: shape.client}
			return remap
		}
	}
	// How the client's address shows in the logs' remote= and for=.
	clientTag := net.JoinHostPort(clientIP, "")
	s := startServerWrapped(t, Config{MaxConnections: slots, ConnectionRate: -1, Logger: log}, testRoutes(nil), wrap)
	shortProbation(s, defaultStaleGrace, probationWindow, claimWait, 64)

	stop := make(chan struct{})
	var wg sync.WaitGroup
	var sent atomic.Int64
	churnFlood(s, shape.addrs, 6, 2, 48, stop, &wg, &sent)
	stopped := false
	halt := func() {
		if !stopped {
			stopped = true
			close(stop)
			wg.Wait()
		}
	}
	defer halt()
	g := s.ln.guard
	// The flood holds the cap and churns through probation before the
	// client comes.
	waitFor(t, "the flood to churn", func() bool {
		return s.OpenConnections() == slots && g.probationBumped.Load() > 20 && s.GuardStats().EvictedIdle > 20 &&
			(remap == nil || remap.next.Load() >= shape.warm)
	})

	// A request whose bytes reach the server after the flood pushed a
	// whole probation's worth of silent connections through accept can
	// still be bumped (docs/public-node.md says why that stays); under a
	// loaded machine (and under the race detector) that happens now and
	// then, and a served connection of the client's is, now and then,
	// evicted for a flood group's request (rule other-busy, counted
	// below), so the client may lose some of its 30 requests, never a
	// third of them (before the slot rules of issue 33 it lost every one).
	const requests, mayLose = 30, 10
	lost := 0
	for i := 0; i < requests; i++ {
		evictedBefore := s.GuardStats().EvictedIdle
		c := dialFrom(t, s, "127.0.0.1") // seen as clientIP
		c.send("GET /get_info HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
		// A refused request is closed without an answer at once; the
		// deadline only stops a hang (probation window plus claim wait
		// is 2 s).
		resp, body, err := readResponse(c.conn, c.br, "GET", 10*time.Second)
		if err != nil || resp.StatusCode != 200 || string(body) != `{"status": "OK"}` {
			for _, line := range strings.Split(logs.String(), "\n") {
				if strings.Contains(line, c.conn.LocalAddr().String()) {
					t.Log(line)
				}
			}
			t.Logf("request %d of the prompt client: %v (%+v, probation %d started, %d bumped, %d admitted)",
				i+1, err, s.GuardStats(), g.probationStarted.Load(), g.probationBumped.Load(), g.probationAdmitted.Load())
			if lost++; lost > mayLose {
				t.Fatalf("the prompt client lost %d of %d requests", lost, i+1)
			}
		}
		c.conn.Close()
		// Nothing the flood makes the server keep grows past its bound:
		// the slots, the places on probation, the groups it remembers.
		s.ln.mu.Lock()
		open, onProbation, groups, standing := s.ln.open, len(s.ln.probation), len(s.ln.perGroup), len(s.ln.standing)
		s.ln.mu.Unlock()
		if open > slots || onProbation > 64 || groups > slots || standing > maxStanding {
			t.Fatalf("unbounded under the flood: %d open (cap %d), %d on probation (max 64), %d groups in slots, %d remembered (max %d)",
				open, slots, onProbation, groups, standing, maxStanding)
		}
		// The flood went on meanwhile.
		waitFor(t, "the flood to go on", func() bool { return s.GuardStats().EvictedIdle > evictedBefore })
	}
	halt()

	if g.probationBumped.Load() == 0 || g.probationAdmitted.Load() < requests-mayLose {
		t.Fatalf("probation %d bumped, %d admitted: the flood did not churn through it", g.probationBumped.Load(), g.probationAdmitted.Load())
	}
	evictions, clientEvicted := 0, 0
	for _, line := range strings.Split(logs.String(), "\n") {
		if !strings.Contains(line, "connection evicted") {
			continue
		}
		evictions++
		// Its own last connection, closed by it and not yet seen closed
		// by the server, may make way for its next (rule 2); any other
		// eviction of the client's is one of its lost requests.
		if strings.Contains(line, "remote="+clientTag) && !strings.Contains(line, "for="+clientTag) {
			t.Logf("the prompt client's connection was evicted: %s", line)
			clientEvicted++
		}
	}
	if evictions == 0 {
		t.Fatal("no eviction logged")
	}
	t.Logf("flood requests %d, evictions %d (%d of the client's), the client lost %d of %d, %+v",
		sent.Load(), evictions, clientEvicted, lost, requests, s.GuardStats())
	return remap
}

// TestChurnVictimOrder: at the cap, a request in hand from a group that
// holds nothing takes an idle connection that asked once, from the
// prefix (/24, /48) holding the most slots, before a keep-alive
// connection that asked more than once; a newcomer that has said nothing
// takes none of them (it goes on probation first). The addresses are
// synthetic: public IPv6 /64s of one /48 (the flood) and elsewhere.
func TestChurnVictimOrder(t *testing.T) {
	l := newLimitListener(nil, 4, -1, -1, 0, slog.New(slog.DiscardHandler))
	admit := func(ip string, requests int) *countedConn {
		key := hostKeyOf(netip.MustParseAddr(ip))
		a, _ := net.Pipe()
		t.Cleanup(func() { a.Close() })
		cc := &countedConn{Conn: a, ln: l, key: key, group: groupOf(key)}
		if r := l.admitLocked(key, cc.group, cc); r != "" {
			t.Fatalf("%s refused: %s", ip, r)
		}
		cc.requested.Store(requests > 0)
		cc.requests.Store(int32(requests))
		cc.state.Store(connIdle)
		return cc
	}
	wallet := admit("2001:db8:1::1", 5)   // keep-alive, idle longest
	other := admit("2001:db8:2::1", 1)    // asked once, alone in its /48
	flood1 := admit("2001:db8:f:1::1", 1) // the flood: two /64s of one /48
	flood2 := admit("2001:db8:f:2::1", 1)
	wallet.idleSince.Store(1)
	other.idleSince.Store(2)
	flood1.idleSince.Store(4)
	flood2.idleSince.Store(3)
	now := time.Now().UnixNano()
	newcomer := groupOf(hostKeyOf(netip.MustParseAddr("2001:db8:9::1")))

	if v := l.victimLocked(newcomer, now, false); v != nil {
		t.Fatalf("a newcomer with no request took %v's slot", v.key)
	}
	v := l.victimLocked(newcomer, now, true)
	if v != flood2 {
		t.Fatalf("victim %v; want the flood's /48 first, idle longest (%v)", v.key, flood2.key)
	}
	l.releaseLocked(v)
	admit("2001:db8:9::1", 1).idleSince.Store(5)
	// The flood's /48 holds one slot now, like the others: the one that
	// asked once and idles longest goes before the keep-alive wallet.
	if v := l.victimLocked(groupOf(hostKeyOf(netip.MustParseAddr("2001:db8:a::1"))), now, true); v != other {
		t.Fatalf("victim %v; want the connection that asked once (%v), not the wallet", v.key, other.key)
	}
	// A group that holds a slot does not take another's this way.
	for c := range l.conns {
		c.evicted = false
	}
	if v := l.victimLocked(flood1.group, now, true); v != nil {
		t.Fatalf("a group holding a slot took %v's", v.key)
	}
	if got := prefixOf(flood1.group); got != prefixOf(flood2.group) || got == prefixOf(other.group) {
		t.Fatalf("prefixes: %v %v %v", prefixOf(flood1.group), prefixOf(flood2.group), prefixOf(other.group))
	}
}

// TestChurnVictimHeld: at the cap, a newcomer's request takes the slot of
// a connection that asked once and idles (rule 3); that connection's
// slot is free at once but its socket is held and closed a moment later,
// without a byte (so that a reconnecting flood waits here, not in the
// accept queue in front of a client). A keep-alive connection that asked
// more than once is closed at once when it is the victim.
func TestChurnVictimHeld(t *testing.T) {
	get := "GET /get_info HTTP/1.1\r\nHost: x\r\n\r\n"
	held := func(s *Server) int {
		s.ln.mu.Lock()
		defer s.ln.mu.Unlock()
		return len(s.ln.held)
	}
	for _, c := range []struct {
		name     string
		requests int
		held     int
	}{
		{"asked once", 1, 1},
		{"keep-alive", 2, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := startServer(t, Config{MaxConnections: 1, ConnectionRate: -1}, testRoutes(nil))
			victim := dialFrom(t, s, "127.0.3.1")
			for range c.requests {
				if resp, _ := victim.do("GET", get); resp.StatusCode != 200 {
					t.Fatal(resp.Status)
				}
			}
			a := dialFrom(t, s, "127.0.3.3")
			if resp, body := a.do("GET", get); resp.StatusCode != 200 || string(body) != `{"status": "OK"}` {
				t.Fatalf("the newcomer got %v %q", resp.Status, body)
			}
			if n := held(s); n != c.held {
				t.Fatalf("%d sockets held after the eviction, want %d", n, c.held)
			}
			if !closedByServer(t, victim.conn, victim.br, 5*time.Second) {
				t.Fatal("the victim was never closed")
			}
			waitFor(t, "nothing held", func() bool { return held(s) == 0 })
		})
	}
}
