package zmqrpc

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-zeromq/zmq4"
	"github.com/go-zeromq/zmq4/security/null"

	"github.com/gonero/gonero/internal/testutil"
)

// dialFrom connects to addr from the local address from (a loopback
// address: 127.0.0.0/8 is all this host's) and handshakes; an error when
// the server closed the connection instead.
func dialFrom(t testing.TB, addr, from string) (*client, error) {
	t.Helper()
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}, Timeout: 5 * time.Second}
	c, err := d.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	_ = c.SetDeadline(time.Now().Add(60 * time.Second))
	if _, err := zmq4.Open(c, null.Security(), zmq4.Dealer, zmq4.SocketIdentity(nil), false, nil); err != nil {
		return nil, err
	}
	return &client{c: c, r: bufio.NewReader(c), w: bufio.NewWriter(c)}, nil
}

// pipeConn is an admitted connection of a test that never reads or
// writes: admit and eviction only look at its address and state.
func (s *Server) pipeConn(t *testing.T, ip string) *peerConn {
	t.Helper()
	a, b := net.Pipe()
	t.Cleanup(func() { a.Close(); b.Close() })
	pc := s.newPeerConn(addrConn{a, netip.MustParseAddr(ip)})
	return pc
}

// addrConn is a connection from a given address.
type addrConn struct {
	net.Conn
	ip netip.Addr
}

func (c addrConn) RemoteAddr() net.Addr {
	return net.TCPAddrFromAddrPort(netip.AddrPortFrom(c.ip, 40000))
}

// TestPerHostLimit: monerod's per-IP limits of its HTTP RPC (3 a public
// host, 25 a private one) bound the connections of one address; a public
// IPv6 /64 is one host; other hosts are admitted.
func TestPerHostLimit(t *testing.T) {
	s, err := New(Config{}, Backend{Chain: noChain{}})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		hosts []string // all one host
		limit int
	}{
		{[]string{"8.8.8.8"}, 3},
		{[]string{"2001:db8:1:2::1", "2001:db8:1:2::ffff", "2001:db8:1:2:aaaa::7"}, 3},
		{[]string{"127.0.0.2"}, 25},
		{[]string{"192.168.7.7"}, 25},
	} {
		for i := range tc.limit {
			if why := s.admit(s.pipeConn(t, tc.hosts[i%len(tc.hosts)])); why != "" {
				t.Fatalf("%v: connection %d refused (%s)", tc.hosts, i+1, why)
			}
		}
		for _, h := range tc.hosts {
			if why := s.admit(s.pipeConn(t, h)); why != "per_host" {
				t.Fatalf("%s past its limit of %d: %q, want per_host", h, tc.limit, why)
			}
		}
	}
	// Another address of the IPv4 /24 and another /64 are other hosts.
	for _, h := range []string{"8.8.8.9", "2001:db8:1:3::1", "127.0.0.3"} {
		if why := s.admit(s.pipeConn(t, h)); why != "" {
			t.Fatalf("%s refused (%s)", h, why)
		}
	}
	if st := s.ConnStats(); st != (ConnStats{Open: 3 + 3 + 25 + 25 + 3, RefusedPerHost: 1 + 3 + 1 + 1}) {
		t.Fatalf("connection counts %+v", st)
	}
}

// TestFairSlotsAtMaxConns: at MaxConns a newcomer takes the slot of a
// connection of the group holding the most, if it holds two more than the
// newcomer's: one waiting for a request before one answering, the one
// idle longest; a group at an even share is refused, so that groups
// converge to even shares and never take each other's slots in turn.
func TestFairSlotsAtMaxConns(t *testing.T) {
	s, err := New(Config{MaxConnsPerPrivateHost: MaxConns}, Backend{Chain: noChain{}})
	if err != nil {
		t.Fatal(err)
	}
	// 8 private addresses (each its own group) fill the slots, 32 each,
	// all answering (busy) but for two of the first address's.
	var all []*peerConn
	base := time.Now()
	for i := range MaxConns {
		pc := s.pipeConn(t, fmt.Sprintf("127.0.1.%d", 1+i%8))
		pc.connected = base.Add(time.Duration(i))
		if why := s.admit(pc); why != "" {
			t.Fatalf("connection %d refused (%s)", i+1, why)
		}
		pc.markBusy()
		all = append(all, pc)
	}
	idleOld, idleNew := all[16], all[8] // both of 127.0.1.1
	idleOld.idleSince.Store(1)
	idleNew.idleSince.Store(2)
	// A flood address is refused: every group holds the same.
	if why := s.admit(s.pipeConn(t, "127.0.1.8")); why != "total" {
		t.Fatalf("a group at an even share got a slot (%q)", why)
	}
	// A new address takes an idle slot of a largest group, the one idle
	// longest; then, that group holding one less, the oldest busy slot of
	// the largest groups, twice.
	for i, want := range []*peerConn{idleOld, all[1], all[2]} {
		// A new address each time: a group holding nothing.
		if why := s.admit(s.pipeConn(t, fmt.Sprintf("127.0.0.%d", 9+i))); why != "" {
			t.Fatalf("a new address refused (%s)", why)
		}
		if want.counted || want.ctx.Err() == nil {
			t.Fatalf("eviction %d: connection %v (idle since %d) still counted", i+1, want.connected.Sub(base), want.idleSince.Load())
		}
	}
	if n := len(s.conns); n != MaxConns {
		t.Fatalf("%d connections counted", n)
	}
	if st := s.ConnStats(); st != (ConnStats{Open: MaxConns, RefusedTotal: 1, Evicted: 3}) {
		t.Fatalf("connection counts %+v", st)
	}
}

// TestFloodingAddressDoesNotStarveAnother: one address holds its cap of
// connections (25, loopback), each pipelining get_blocks_fast and never
// reading the answers; once it waits at its share of the answers' budget,
// a second address still connects and gets its get_height answered, and a
// get_blocks_fast of its own; a 26th connection of the first is refused.
// Before the shares, the flood's unread answers held the whole budget and
// the second address's request waited behind them until its connection
// was dropped.
func TestFloodingAddressDoesNotStarveAnother(t *testing.T) {
	c, pool := openChain(t, testutil.Path(t, "testdata", "regtest", "blockchain.raw"), 0)
	s, err := New(Config{Addr: "127.0.0.1:0"}, Backend{Chain: NewChainSource(c), Pool: NewPoolSource(pool)})
	if err != nil {
		t.Fatal(err)
	}
	gen := c.HashAt(0).String()
	blocksReq := `{"jsonrpc":"2.0","id":1,"method":"get_blocks_fast","params":{"block_ids":["` + gen + `"],"start_height":0,"prune":false}}`
	// The answers' budget: 16 answers' worth, which the flood's unread
	// answers would fill; a group's share is two answers.
	probe, err := New(Config{}, Backend{Chain: NewChainSource(c), Pool: NewPoolSource(pool)})
	if err != nil {
		t.Fatal(err)
	}
	size := int64(len(probe.handle([]byte(blocksReq))))
	if size < 100<<10 {
		t.Fatalf("get_blocks_fast answers %d bytes: %s", size, probe.handle([]byte(blocksReq)))
	}
	total := 16 * size
	s.answers = newFairBytes(nil, total, 1)
	s.maxAnswer = total - total/8
	// One answer rendered at a time, and waits for room that never give
	// up: a flood's answer waiting for room while it held the slot would
	// keep every other address's request out (its client's 60 s deadline
	// ends the test).
	s.handling = newFairSlots(1)
	s.budgetWait, s.writeIdle = time.Hour, time.Hour
	const flood = "127.0.0.2"
	waited := make(chan struct{})
	var once sync.Once
	s.answers.onWait = func(g netip.Addr) {
		if g == netip.MustParseAddr(flood) {
			once.Do(func() { close(waited) })
		}
	}
	// The flood's answers left unread fill its share (over loopback the
	// kernel's buffers take a few answers first; a 13.6 MB answer of the
	// heavy chain stays in the server): all but two reservations' worth,
	// so that its next answers are reserved, rendered, and then wait for
	// room.
	share := s.answers.acct.Stats().Total
	s.answers.acct.Take(netip.MustParseAddr(flood), share-2*answerReserve)
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	addr := s.Addr().String()
	for i := range s.maxPrivate {
		cl, err := dialFrom(t, addr, flood)
		if err != nil {
			t.Fatalf("flood connection %d: %v", i+1, err)
		}
		// Never reads: a small receive buffer, so that its answers stay
		// in the server.
		_ = cl.c.(*net.TCPConn).SetReadBuffer(4 << 10)
		go func() {
			for range 200 {
				for j, f := range [][]byte{nil, []byte(blocksReq)} {
					writeFrame(cl.w, f, j == 0)
				}
				if cl.w.Flush() != nil {
					return
				}
			}
		}()
	}
	if _, err := dialFrom(t, addr, flood); err == nil {
		t.Fatal("a connection past the address's limit was served")
	}
	select {
	case <-waited:
	case <-time.After(60 * time.Second):
		t.Fatal("the flood never waited for the answers' budget")
	}
	other, err := dialFrom(t, addr, "127.0.0.3")
	if err != nil {
		t.Fatal(err)
	}
	for range 20 {
		if a := other.call(t, heightReq); !strings.Contains(a, fmt.Sprintf(`"height":%d`, c.Height())) {
			t.Fatalf("get_height: %q", a)
		}
	}
	if a := other.call(t, blocksReq); int64(len(a)) != size {
		t.Fatalf("get_blocks_fast: %d bytes, want %d", len(a), size)
	}
	t.Logf("answer %d bytes; answers budget %+v", size, s.answers.acct.Stats())
	if st := s.answers.acct.Stats(); st.Refused == 0 || st.Peak > total {
		t.Fatalf("answers' budget %+v: want refusals and a peak within %d", st, total)
	}
}

// TestLoneMessagePastShare: a message of several frames larger than a
// group's share of the request bytes (MaxInFlight/8) is read whole when
// it is its group's only holding, and answered.
func TestLoneMessagePastShare(t *testing.T) {
	s := startLocal(t)
	cl := dial(t, s.Addr().String())
	frame := bytes.Repeat([]byte(" "), 3<<20)
	cl.send(t, nil, []byte(heightReq), frame, frame, frame) // 9 MiB: past the 8 MiB share, within MaxMessage
	if m := cl.recv(t); len(m) != 2 || !strings.Contains(string(m[1]), `"height":1`) {
		t.Fatalf("answer %.200q", m)
	}
}

// TestFairOrder: a slot, and room, that free go to the waiting group
// holding the least, before an older waiter of a group holding more.
func TestFairOrder(t *testing.T) {
	a, b, c := netip.MustParseAddr("127.0.0.2"), netip.MustParseAddr("127.0.0.3"), netip.MustParseAddr("127.0.0.4")
	ctx := context.Background()
	waiting := make(chan netip.Addr, 4)
	onWait := func(g netip.Addr) { waiting <- g }
	got := make(chan netip.Addr, 2)

	// a holds both slots; a waits for a third, then b.
	slots := newFairSlots(2)
	slots.onWait = onWait
	for range 2 {
		if !slots.acquire(ctx, a) {
			t.Fatal("no free slot")
		}
	}
	for _, g := range []netip.Addr{a, b} {
		go func() {
			if slots.acquire(ctx, g) {
				got <- g
			}
		}()
		<-waiting
	}
	slots.release(a) // a holds one, b none: b first
	if g := <-got; g != b {
		t.Fatalf("slot granted to %s, want %s (holding none)", g, b)
	}
	slots.release(a)
	if g := <-got; g != a {
		t.Fatalf("slot granted to %s, want %s", g, a)
	}

	// 8 MiB: large claims may fill 7; c holds 7 MiB, a 512 KiB; a waits
	// for 256 KiB, then b.
	const k = 1 << 10
	budget := newFairBytes(nil, 8<<20, 1)
	budget.onWait = onWait
	budget.acct.Take(c, 7<<20)
	budget.acct.Take(a, 512*k)
	for _, g := range []netip.Addr{a, b} {
		go func() {
			if budget.claim(ctx, g, 256*k, time.Hour) {
				got <- g
			}
		}()
		<-waiting
	}
	budget.release(c, 768*k) // room for one claim: b's, holding none
	if g := <-got; g != b {
		t.Fatalf("room granted to %s, want %s (holding none)", g, b)
	}
	budget.release(c, 256*k)
	if g := <-got; g != a {
		t.Fatalf("room granted to %s, want %s", g, a)
	}
	if used := budget.acct.Used(); used != 7<<20 {
		t.Fatalf("%d bytes used, want %d", used, 7<<20)
	}
}

// TestNewAddressServedAtMaxConns: 11 addresses open 24 connections each
// and keep them (264, past MaxConns); a new address still connects, in
// the place of one of theirs, and is answered.
func TestNewAddressServedAtMaxConns(t *testing.T) {
	s := startLocal(t)
	addr := s.Addr().String()
	served := 0
	for i := range 11 * 24 {
		if _, err := dialFrom(t, addr, fmt.Sprintf("127.0.2.%d", 1+i%11)); err == nil {
			served++
		}
	}
	if served < MaxConns {
		t.Fatalf("%d flood connections served, want at least %d", served, MaxConns)
	}
	cl, err := dialFrom(t, addr, "127.0.0.4")
	if err != nil {
		t.Fatalf("a new address refused at MaxConns: %v", err)
	}
	if a := cl.call(t, heightReq); !strings.Contains(a, `"height":1`) {
		t.Fatalf("get_height: %q", a)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.conns) > MaxConns || s.evicted == 0 {
		t.Fatalf("%d connections counted, %d evicted", len(s.conns), s.evicted)
	}
}

// TestCheapMethodsTakeNoSlot: while every handling slot is held (big
// answers being rendered), get_height and get_info are still answered.
func TestCheapMethodsTakeNoSlot(t *testing.T) {
	s := startLocal(t)
	busy := netip.MustParseAddr("192.0.2.1")
	for range s.handling.free {
		if !s.handling.acquire(context.Background(), busy) {
			t.Fatal("no free slot")
		}
	}
	cl := dial(t, s.Addr().String())
	if a := cl.call(t, heightReq); !strings.Contains(a, `"height":1`) {
		t.Fatalf("get_height: %q", a)
	}
	if a := cl.call(t, `{"jsonrpc":"2.0","id":2,"method":"get_info","params":{}}`); !strings.Contains(a, `"id":2`) {
		t.Fatalf("get_info: %q", a)
	}
}
