package httpd

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestHostileLoad runs every kind of misbehaving client at once against one
// server, on loopback only, for a bounded time: slowloris headers, silent
// (half-open) connections, slow readers of big answers, pipelined floods,
// oversized headers and bodies, and connect loops from one address and
// from many. Meanwhile a well-behaved client on its own address must keep
// getting every answer, the heap must stay bounded, and nothing may panic
// (a panic fails the test binary).
func TestHostileLoad(t *testing.T) {
	const attack = 3 * time.Second
	big := bytes.Repeat([]byte("b"), 256<<10)
	routes := testRoutes(nil)
	routes["/big"] = func(*Request) Response { return Response{ContentType: "application/json", Body: big} }
	s := startServer(t, Config{
		ReadHeaderTimeout: 500 * time.Millisecond,
		ReadTimeout:       500 * time.Millisecond,
		WriteTimeout:      500 * time.Millisecond,
		IdleTimeout:       30 * time.Second, // the good client idles while the attackers stop
	}, routes)
	addr := s.Addr().String()

	good := dialFrom(t, s, "127.0.0.250")
	if !good.served() {
		t.Fatal("the good client was not served before the attack")
	}
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	baseline := ms.HeapAlloc

	stop := make(chan struct{})
	var wg sync.WaitGroup
	var turns atomic.Int64
	attacker := func(name, from string, n int, f func(c net.Conn)) {
		if raceEnabled {
			n = (n + 4) / 5
		}
		for i := 0; i < n; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				d := net.Dialer{Timeout: time.Second, LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}}
				for {
					select {
					case <-stop:
						return
					default:
					}
					c, err := d.Dial("tcp", addr)
					if err != nil {
						time.Sleep(10 * time.Millisecond)
						continue
					}
					c.SetDeadline(time.Now().Add(attack + time.Second))
					f(c)
					c.Close()
					turns.Add(1)
				}
			}()
		}
	}
	// slowloris: a header byte every 100 ms
	attacker("slowloris", "127.0.0.2", 20, func(c net.Conn) {
		for _, b := range []byte("POST /json_rpc HTTP/1.1\r\nHost: x\r\nX-Slow: zzzzzzzzzzzzzzzzzzzz") {
			if _, err := c.Write([]byte{b}); err != nil {
				return
			}
			select {
			case <-stop:
				return
			case <-time.After(100 * time.Millisecond):
			}
		}
	})
	// half-open: connect, send nothing, wait to be closed
	attacker("silent", "127.0.0.3", 20, func(c net.Conn) { _, _ = c.Read(make([]byte, 1)) })
	// slow readers: pipeline big answers and never read them
	attacker("slowread", "127.0.0.4", 10, func(c net.Conn) {
		req := strings.Repeat("GET /big HTTP/1.1\r\nHost: x\r\n\r\n", 64)
		_, _ = io.WriteString(c, req)
		_, _ = c.Read(make([]byte, 1)) // one byte, then nothing: the server's writes block
		<-time.After(2 * time.Second)
	})
	// pipelined floods, read completely
	attacker("flood", "127.0.0.5", 4, func(c net.Conn) {
		go func() {
			_, _ = io.WriteString(c, strings.Repeat("POST /json_rpc HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}", 500))
		}()
		_, _ = io.Copy(io.Discard, io.LimitReader(c, int64(500*(len(fixedJSON)+150))))
	})
	// oversized header sections and bodies
	attacker("oversize", "127.0.0.6", 4, func(c net.Conn) {
		go func() {
			_, _ = io.WriteString(c, "POST /json_rpc HTTP/1.1\r\nHost: x\r\nX-Big: "+strings.Repeat("y", 200000)+"\r\n\r\n")
		}()
		_, _ = io.Copy(io.Discard, c)
		c2, err := net.DialTimeout("tcp", addr, time.Second)
		if err != nil {
			return
		}
		defer c2.Close()
		c2.SetDeadline(time.Now().Add(2 * time.Second))
		go func() {
			_, _ = io.WriteString(c2, "POST /json_rpc HTTP/1.1\r\nHost: x\r\nContent-Length: 5000000\r\n\r\n")
			_, _ = c2.Write(make([]byte, 5000000))
		}()
		_, _ = io.Copy(io.Discard, c2)
	})
	// connect loops: many connections from one address, and from many
	attacker("loop-one", "127.0.0.7", 50, func(c net.Conn) { _, _ = c.Read(make([]byte, 1)) })
	for i := 0; i < 40; i++ {
		attacker("loop-many", fmt.Sprintf("127.0.1.%d", i+1), 2, func(c net.Conn) {
			_, _ = io.WriteString(c, "OPTIONS / HTTP/1.1\r\nHost: x\r\n\r\n")
			_, _ = c.Read(make([]byte, 512))
		})
	}

	// the good client, meanwhile
	var lat []time.Duration
	var peak uint64
	deadline := time.Now().Add(attack)
	for time.Now().Before(deadline) {
		start := time.Now()
		resp, _, err := func() (r any, b []byte, err error) {
			good.send("POST /json_rpc HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}")
			resp, body, err := readResponse(good.conn, good.br, "POST", 5*time.Second)
			return resp, body, err
		}()
		if err != nil || resp == nil {
			t.Fatalf("the good client's request failed under attack after %d answers: %v", len(lat), err)
		}
		lat = append(lat, time.Since(start))
		runtime.ReadMemStats(&ms)
		peak = max(peak, ms.HeapAlloc)
		time.Sleep(5 * time.Millisecond)
	}
	close(stop)
	wg.Wait()

	t.Logf("defences: %+v", s.GuardStats())
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	p99 := lat[len(lat)*99/100]
	t.Logf("good client: %d answers, p50 %v, p99 %v, max %v; attacker connections %d; heap baseline %d MiB, peak %d MiB",
		len(lat), lat[len(lat)/2], p99, lat[len(lat)-1], turns.Load(), baseline>>20, peak>>20)
	// The good client is served all along. How many answers it gets in the
	// attack's time measures the machine (other processes share its two
	// cores) as much as the defences, so only a few are asked; what the
	// defences decide is the wait: a request that had to wait for a slot
	// or a worker freed by the attackers' timeouts (500 ms) would take that
	// long, so most answers must come sooner. Under the race detector
	// (~10x slower) the answers are only counted.
	if len(lat) < 3 {
		t.Errorf("the good client got only %d answers in %v", len(lat), attack)
	}
	if p50 := lat[len(lat)/2]; p50 >= 500*time.Millisecond && !raceEnabled {
		t.Errorf("the good client's median answer took %v, as long as the attackers' timeouts", p50)
	}
	// Bounded memory: per connection a 100 kB read buffer and at most one
	// 1 MiB body; at most 100 connections.
	if peak > baseline+256<<20 {
		t.Errorf("heap grew from %d to %d MiB under attack", baseline>>20, peak>>20)
	}
	// Every attacker's slot comes back: the timeouts close what they left.
	deadline = time.Now().Add(5 * time.Second)
	for s.OpenConnections() != 1 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := s.OpenConnections(); n != 1 {
		s.ln.mu.Lock()
		for c := range s.ln.conns {
			t.Logf("still open: %v closed=%v drain=%v", c.key.addr, c.closed.Load(), c.drainOnClose)
		}
		s.ln.mu.Unlock()
		t.Fatalf("%d connections open after the attack, want 1 (the good client's)", n)
	}
	if !good.served() {
		t.Fatal("the good client is not served after the attack")
	}
}
