package httpd

import (
	"io"
	"log/slog"
	"net"
	"net/netip"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestPublicAndPrivateLimits: the per-IP limit depends on the kind of
// address, a public IPv6 /64 is one host, and the total applies to all.
func TestPublicAndPrivateLimits(t *testing.T) {
	l := newLimitListener(nil, 10, 3, 5, 0, slog.New(slog.NewTextHandler(io.Discard, nil)))
	admit := func(ip string) bool { return l.admit(hostKeyOf(netip.MustParseAddr(ip)), nil) }
	for i := 0; i < 3; i++ {
		if !admit("8.8.8.8") {
			t.Fatalf("public connection %d refused", i+1)
		}
	}
	if admit("8.8.8.8") {
		t.Fatal("4th connection from one public IP admitted (limit 3)")
	}
	for _, ip := range []string{"2001:db8::1", "2001:db8::2", "2001:db8::3"} {
		if !admit(ip) {
			t.Fatalf("%s refused", ip)
		}
	}
	if admit("2001:db8::4") {
		t.Fatal("4th connection from one public /64 admitted")
	}
	for i := 0; i < 4; i++ {
		if !admit("127.0.0.1") {
			t.Fatalf("private connection %d refused", i+1)
		}
	}
	// 10 open now: the total limit refuses even a new host
	if admit("9.9.9.9") || admit("127.0.0.2") {
		t.Fatal("connection over the total limit admitted")
	}
	if acc, ref := l.stats(); acc != 10 || ref != 4 {
		t.Fatalf("admitted %d, refused %d; want 10, 4", acc, ref)
	}
}

// TestRefusedLoopKeepsServing: connections over the per-IP limit that
// reconnect in a tight loop (as wrk does) are refused without a byte, and
// the admitted connections keep being served; a host refused again and
// again is held back, so its loop turns only a few times per second.
func TestRefusedLoopKeepsServing(t *testing.T) {
	t.Parallel() // waits on timeouts and holds, not on the CPU
	const admitted, looping = 5, 20
	s := startServer(t, Config{MaxConnectionsPerPrivateIP: admitted}, testRoutes(nil))
	var clients []*rawClient
	for i := 0; i < admitted; i++ {
		c := newRawClient(t, s)
		if !c.served() {
			t.Fatalf("connection %d refused", i+1)
		}
		clients = append(clients, c)
	}

	stop := make(chan struct{})
	var turns, gotBytes atomic.Int64
	var wg sync.WaitGroup
	for i := 0; i < looping; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			buf := make([]byte, 64)
			for {
				select {
				case <-stop:
					return
				default:
				}
				c, err := net.DialTimeout("tcp", s.Addr().String(), time.Second)
				if err != nil {
					continue
				}
				_, _ = io.WriteString(c, "OPTIONS / HTTP/1.1\r\nHost: x\r\n\r\n")
				c.SetReadDeadline(time.Now().Add(2 * time.Second))
				n, _ := c.Read(buf)
				gotBytes.Add(int64(n))
				c.Close()
				turns.Add(1)
			}
		}()
	}
	const period = 2 * time.Second
	served := 0
	for start := time.Now(); time.Since(start) < period; {
		for _, c := range clients {
			if !c.served() {
				t.Fatal("an admitted connection stopped being served while others were refused")
			}
			served++
		}
	}
	close(stop)
	wg.Wait()
	if gotBytes.Load() != 0 {
		t.Errorf("refused connections received %d bytes", gotBytes.Load())
	}
	// Each looping client: one immediate refusal, then one per refuseHold.
	maxTurns := int64(looping) * int64(period/refuseHold+3)
	if turns.Load() > maxTurns {
		t.Errorf("refused clients looped %d times in %v, want at most %d", turns.Load(), period, maxTurns)
	}
	if n := s.OpenConnections(); n != admitted {
		t.Errorf("OpenConnections = %d, want %d", n, admitted)
	}
	t.Logf("%d requests served on %d admitted connections while %d refused clients looped %d times",
		served, admitted, looping, turns.Load())
}
