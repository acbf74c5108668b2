package httpd

import (
	"bytes"
	"fmt"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gonero/gonero/membudget"
)

// memoryRoutes: /big answers size bytes; /hold reserves held bytes, says
// so on entered, and waits for release before answering "held"; Busy
// answers "busy".
func memoryRoutes(t *testing.T, size, held int, calls *atomic.Int64) (map[string]Route, <-chan struct{}, func()) {
	in := make(chan struct{}, 4)
	gate := make(chan struct{})
	var closed atomic.Bool
	release := func() {
		if !closed.Swap(true) {
			close(gate)
		}
	}
	t.Cleanup(release)
	big := bytes.Repeat([]byte("x"), size)
	return map[string]Route{
		"/big": func(*Request) Response {
			if calls != nil {
				calls.Add(1)
			}
			return Response{ContentType: "text/plain", Body: big}
		},
		"/hold": func(req *Request) Response {
			if !req.Reserve(held) {
				return Response{ContentType: "text/plain", Body: []byte("refused")}
			}
			in <- struct{}{}
			<-gate
			return Response{ContentType: "text/plain", Body: []byte("held")}
		},
	}, in, release
}

func busyRoute(*Request) Response {
	return Response{ContentType: "text/plain", Body: []byte("busy")}
}

func getReq(path string) string { return "GET " + path + " HTTP/1.1\r\nHost: x\r\n\r\n" }

// TestMemoryAnswerRefusesNewest: while one request holds most of the global
// budget, another group's answer that does not fit is dropped for the busy
// answer (the newest claimant loses, the holder is served); once the
// holder's answer is written, the budget is free and the same request is
// answered in full.
func TestMemoryAnswerRefusesNewest(t *testing.T) {
	budget := membudget.New(100_000)
	acct := membudget.NewAccount[netip.Addr](budget, 0)
	routes, entered, release := memoryRoutes(t, 60_000, 60_000, nil)
	s := startServer(t, Config{Memory: acct, Busy: busyRoute, CostRate: -1}, routes)

	a := dialFrom(t, s, "127.0.0.2")
	a.send(getReq("/hold"))
	<-entered
	b := dialFrom(t, s, "127.0.0.3")
	if _, body := b.do("GET", getReq("/big")); string(body) != "busy" {
		t.Fatalf("an answer past the global budget got %d bytes, want the busy answer", len(body))
	}
	if st := budget.Stats(); st.Used > 100_000 || st.Refused != 1 {
		t.Fatalf("budget %+v: want at most the total used and one refusal", st)
	}
	if got := s.GuardStats().MemoryRefused; got != 1 {
		t.Fatalf("MemoryRefused %d, want 1", got)
	}
	release()
	if _, body := a.read("GET"); string(body) != "held" {
		t.Fatalf("the holder got %q", body)
	}
	waitFor(t, "the holder's answer to go back to the budget", func() bool { return budget.Stats().Used == 0 })
	if _, body := b.do("GET", getReq("/big")); len(body) != 60_000 {
		t.Fatalf("after the release the answer got %d bytes, want 60000", len(body))
	}
}

// TestMemoryPerClient: a group holding its share cannot take more (its
// second request gets the busy answer), while another group's same request
// is served; a group holding nothing may take one answer past its share.
func TestMemoryPerClient(t *testing.T) {
	acct := membudget.NewAccount[netip.Addr](membudget.New(1<<20), 50_000)
	routes, entered, release := memoryRoutes(t, 30_000, 60_000, nil)
	s := startServer(t, Config{Memory: acct, Busy: busyRoute, CostRate: -1}, routes)

	a := dialFrom(t, s, "127.0.0.2")
	a.send(getReq("/hold")) // 60,000 > 50,000: granted, the group held nothing
	<-entered
	a2 := dialFrom(t, s, "127.0.0.2")
	if _, body := a2.do("GET", getReq("/big")); string(body) != "busy" {
		t.Fatalf("a group past its share got %d bytes, want the busy answer", len(body))
	}
	c := dialFrom(t, s, "127.0.0.3")
	if _, body := c.do("GET", getReq("/big")); len(body) != 30_000 {
		t.Fatalf("another group got %q..., want its 30000 bytes", body[:min(len(body), 10)])
	}
	release()
	a.read("GET")
}

// TestMemoryBodyRefusedUnread: a body announced larger than the budget has
// free is refused (413) before a byte of it is read, and its route never
// runs; a body that fits is served.
func TestMemoryBodyRefusedUnread(t *testing.T) {
	acct := membudget.NewAccount[netip.Addr](membudget.New(10_000), 0)
	var calls atomic.Int64
	routes, _, _ := memoryRoutes(t, 10, 0, &calls)
	s := startServer(t, Config{Memory: acct, Busy: busyRoute, CostRate: -1}, routes)

	c := newRawClient(t, s)
	// Only the head: the server must answer without waiting for the body.
	c.send("POST /big HTTP/1.1\r\nHost: x\r\nContent-Length: 20000\r\n\r\n")
	resp, _ := c.read("POST")
	if resp.StatusCode != 413 || calls.Load() != 0 {
		t.Fatalf("status %d, route called %d times; want 413 unread and no call", resp.StatusCode, calls.Load())
	}
	c = newRawClient(t, s)
	body := strings.Repeat("y", 5000)
	if resp, got := c.do("POST", fmt.Sprintf("POST /big HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n%s", len(body), body)); resp.StatusCode != 200 || len(got) != 10 {
		t.Fatalf("a body that fits: status %d, %d bytes", resp.StatusCode, len(got))
	}
}

// TestMemoryReleasedAtClose: a request whose connection is closed while it
// holds memory gives it back.
func TestMemoryReleasedAtClose(t *testing.T) {
	budget := membudget.New(1 << 20)
	acct := membudget.NewAccount[netip.Addr](budget, 0)
	routes, entered, release := memoryRoutes(t, 10, 100_000, nil)
	s := startServer(t, Config{Memory: acct, Busy: busyRoute, CostRate: -1}, routes)
	c := newRawClient(t, s)
	c.send(getReq("/hold"))
	<-entered
	if used := budget.Stats().Used; used < 100_000 {
		t.Fatalf("used %d while the route holds 100000", used)
	}
	c.conn.Close()
	release()
	waitFor(t, "the closed connection's memory to go back", func() bool { return budget.Stats().Used == 0 })
}

// TestCheckpointCharges: a route that does several requests' work charges
// each part to its group as it goes: with another group active, a part past
// the budget leaves the group in debt at once, before the route ends.
func TestCheckpointCharges(t *testing.T) {
	debt := make(chan float64, 1)
	var s *Server
	routes := map[string]Route{
		"/parts": func(req *Request) Response {
			req.Checkpoint(200 << 20) // 200 MB of answer: ~2 s of cost
			s.meter.mu.Lock()
			debt <- s.meter.groups[req.conn.group].tokens
			s.meter.mu.Unlock()
			return Response{ContentType: "text/plain", Body: []byte("ok")}
		},
	}
	s = startServer(t, Config{CostRate: 1, CostBurst: time.Second, MeteredWait: 50 * time.Millisecond}, routes)
	if !(&Request{}).Checkpoint(1) {
		t.Fatal("Checkpoint without a meter refused")
	}
	c := newRawClient(t, s)
	if _, body := c.do("GET", getReq("/parts")); string(body) != "ok" && string(body) != "" {
		t.Fatalf("got %q", body)
	}
	if d := <-debt; d >= 0 {
		t.Fatalf("after a checkpoint of 200 MB the group's budget is %.3f s, want a debt", d)
	}
}
