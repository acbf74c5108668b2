package httpd

import (
	"bytes"
	"fmt"
	"net/netip"
	"testing"
	"time"
)

// TestMeteredGroupSlowedOthersServed: a group that spent its budget (one
// big answer) is served through the metered slot only: its request that
// finds the slot taken by its own running request waits and is answered
// busy, while another address's cheap request is answered at once, all
// the time the heavy request runs.
func TestMeteredGroupSlowedOthersServed(t *testing.T) {
	big := bytes.Repeat([]byte("x"), 2<<20) // 20 ms of cost at byteCost
	routes := testRoutes(nil)
	routes["/big"] = func(*Request) Response { return Response{ContentType: "text/plain", Body: big} }
	entered, release := holdRoute(t, routes, 1)
	s := startServer(t, Config{
		// A budget of 3.6 ms that takes an hour to refill: the test's
		// pace does not matter.
		CostRate: 1e-6, CostBurst: time.Hour,
		MeteredSlots: 1, MeteredWait: 200 * time.Millisecond,
	}, routes)

	// Two groups are active (metering protects one from another; a group
	// alone is never held back), for as long as the test takes.
	light := dialFrom(t, s, "127.0.0.3")
	if resp, _ := light.do("POST", "POST /json_rpc HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}"); resp.StatusCode != 200 {
		t.Fatalf("first request: %d", resp.StatusCode)
	}
	heavy := dialFrom(t, s, "127.0.0.2")
	if resp, body := heavy.do("GET", "GET /big HTTP/1.1\r\nHost: x\r\n\r\n"); resp.StatusCode != 200 || len(body) != len(big) {
		t.Fatalf("the first big answer: %d, %d bytes", resp.StatusCode, len(body))
	}
	s.meter.recount()
	holder := dialFrom(t, s, "127.0.0.2")
	holder.send("GET /hold HTTP/1.1\r\nHost: x\r\n\r\n")
	<-entered // in the metered slot now

	third := dialFrom(t, s, "127.0.0.2")
	resp, _ := third.do("POST", "POST /json_rpc HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}")
	if resp.StatusCode != 503 {
		t.Fatalf("a request of the group over budget, with its slot taken, got %d; want the busy answer", resp.StatusCode)
	}

	for i := 0; i < 5; i++ {
		resp, body := light.do("POST", "POST /json_rpc HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}")
		if resp.StatusCode != 200 || !bytes.Equal(body, fixedJSON) {
			t.Fatalf("another address's cheap request got %d %q while the heavy group was metered", resp.StatusCode, body)
		}
	}
	select {
	case <-entered:
		t.Fatal("unexpected second entry into /hold")
	default:
	}
	release()
	if resp, body := holder.read("GET"); resp.StatusCode != 200 || string(body) != "held" {
		t.Fatalf("the metered request got %d %q", resp.StatusCode, body)
	}
	if st := s.GuardStats(); st.MeteredWaits != 1 || st.MeteredBusy != 1 {
		t.Fatalf("%+v; want one metered wait, answered busy", st)
	}
}

func testMeter(slots int) *meter {
	m := newMeter(1e-6, time.Hour, slots, time.Minute, &guardCounters{})
	m.activeWindow = time.Hour
	return m
}

// recount counts the active groups now, as the meter does every second,
// with an hour's window: every group seen so far is active.
func (m *meter) recount() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.activeWindow = time.Hour
	m.sweepLocked(time.Now().UnixNano())
}

// indebted makes group g's budget -debt seconds (creating the group).
func (m *meter) indebted(t *testing.T, g groupKey, debt float64) {
	t.Helper()
	tk, ok := m.acquire(g)
	if !ok {
		t.Fatal("a new group was not served")
	}
	m.release(tk, 0)
	m.mu.Lock()
	m.groups[g].tokens = -debt
	m.mu.Unlock()
}

func (m *meter) queued() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := 0
	for _, g := range m.queue {
		n += len(g.waiters)
	}
	return n
}

func grp(s string) groupKey { return groupKey{netip.MustParseAddr(s)} }

// TestMeterGrantsLeastIndebtedFirst: when the metered slot frees, the
// waiting group least in debt gets it, whatever the order of arrival.
func TestMeterGrantsLeastIndebtedFirst(t *testing.T) {
	m := testMeter(1)
	deep, shallow, holder := grp("10.0.0.1"), grp("10.0.0.2"), grp("10.0.0.3")
	m.indebted(t, deep, 0.003)
	m.indebted(t, shallow, 0.001)
	m.indebted(t, holder, 0.003)
	m.recount()
	held, ok := m.acquire(holder)
	if !ok || !held.metered {
		t.Fatal("the free metered slot was not granted")
	}
	order := make(chan string, 2)
	tickets := make(chan ticket, 2)
	wait := func(name string, g groupKey) {
		go func() {
			tk, ok := m.acquire(g)
			if ok {
				order <- name
				tickets <- tk
			}
		}()
	}
	wait("deep", deep)
	waitFor(t, "the deep group to queue", func() bool { return m.queued() == 1 })
	wait("shallow", shallow)
	waitFor(t, "the shallow group to queue", func() bool { return m.queued() == 2 })

	m.release(held, 0)
	if first := <-order; first != "shallow" {
		t.Fatalf("%s was served first; want the group least in debt", first)
	}
	m.release(<-tickets, 0)
	if second := <-order; second != "deep" {
		t.Fatalf("then %s", second)
	}
	m.release(<-tickets, 0)
	if m.queued() != 0 || m.running != 0 {
		t.Fatalf("%d waiting, %d slots taken at the end", m.queued(), m.running)
	}
}

// TestMeterShareOfSlots: while another group waits, one group holds at
// most half of the metered slots, even when the other is deeper in debt;
// with no one else waiting, a free slot is not left idle.
func TestMeterShareOfSlots(t *testing.T) {
	m := testMeter(2)
	a, b, c := grp("10.0.0.1"), grp("10.0.0.2"), grp("10.0.0.3")
	m.indebted(t, a, 0.001)
	m.indebted(t, b, 0.003)
	m.indebted(t, c, 0.003)
	m.recount()
	a1, ok1 := m.acquire(a)
	c1, ok2 := m.acquire(c)
	if !ok1 || !ok2 || !a1.metered || !c1.metered {
		t.Fatal("the two free metered slots were not granted")
	}
	got := make(chan string, 2)
	tickets := make(chan ticket, 2)
	wait := func(name string, g groupKey) {
		go func() {
			if tk, ok := m.acquire(g); ok {
				got <- name
				tickets <- tk
			}
		}()
	}
	wait("a", a)
	waitFor(t, "a's second request to queue", func() bool { return m.queued() == 1 })
	wait("b", b)
	waitFor(t, "b to queue", func() bool { return m.queued() == 2 })
	m.release(c1, 0)
	if first := <-got; first != "b" {
		t.Fatalf("%s got the slot; want b: a, less in debt, holds its half already", first)
	}
	m.release(a1, 0)
	if second := <-got; second != "a" {
		t.Fatalf("then %s", second)
	}
	m.release(<-tickets, 0)
	m.release(<-tickets, 0)

	// a alone: both slots are a's.
	a1, _ = m.acquire(a)
	a2, ok := m.acquire(a)
	if !ok || !a1.metered || !a2.metered || m.queued() != 0 {
		t.Fatal("a group alone in the queue was refused a free slot")
	}
	m.release(a1, 0)
	m.release(a2, 0)
}

// TestMeterBusyAndClose: a waiter gives up after the wait, or at once when
// the server shuts down; either way it is counted busy and leaves no trace
// in the queue.
func TestMeterBusyAndClose(t *testing.T) {
	m := newMeter(1e-6, time.Hour, 1, 20*time.Millisecond, &guardCounters{})
	a, b := grp("10.0.0.1"), grp("10.0.0.2")
	m.indebted(t, a, 0.001)
	m.indebted(t, b, 0.001)
	m.recount()
	held, _ := m.acquire(a)
	if _, ok := m.acquire(b); ok {
		t.Fatal("a second metered request ran with one slot")
	}
	m.wait = time.Hour
	done := make(chan bool)
	go func() { _, ok := m.acquire(b); done <- ok }()
	waitFor(t, "b to queue", func() bool { return m.queued() == 1 })
	m.close()
	if <-done {
		t.Fatal("a waiter was served after close")
	}
	if m.queued() != 0 || m.guard.meteredBusy.Load() != 2 {
		t.Fatalf("%d still queued, %d busy", m.queued(), m.guard.meteredBusy.Load())
	}
	m.release(held, 0)
}

// TestMeterCharges: cost is route time plus answer bytes, debt is bounded
// (a group recovers in bounded time), and the budget is shared by the
// active groups.
func TestMeterCharges(t *testing.T) {
	m := newMeter(1, time.Second, 2, time.Second, &guardCounters{})
	a := grp("10.0.0.1")
	tk, _ := m.acquire(a)
	tk.start -= int64(300 * time.Millisecond) // ran 0.3 s, answered 0.2 s worth of bytes
	m.release(tk, 20_000_000)
	m.mu.Lock()
	left := m.groups[a].tokens
	m.mu.Unlock()
	if left > 0.5+1e-3 || left < 0.5-0.05 { // what refilled meanwhile at 1 s/s
		t.Fatalf("budget left %v, want about 0.5", left)
	}
	tk, _ = m.acquire(a)
	tk.start -= int64(time.Hour)
	m.release(tk, 0)
	m.mu.Lock()
	left = m.groups[a].tokens
	m.mu.Unlock()
	if left != -1 {
		t.Fatalf("debt %v after an hour-long request, want the bound -1", left)
	}
	// Ten groups active: each refills at a tenth of the capacity.
	m.mu.Lock()
	now := time.Now().UnixNano()
	for i := 0; i < 10; i++ {
		m.groups[grp(fmt.Sprintf("10.0.1.%d", i))] = &meterGroup{seen: now, last: now}
	}
	m.sweepLocked(now)
	rate, ceiling := m.budget()
	m.mu.Unlock()
	if rate != 1.0/11 || ceiling != 1.0/11 {
		t.Fatalf("rate %v, ceiling %v with 11 groups active; want 1/11 each", rate, ceiling)
	}
}

// TestMeterBoundedGroups: the meter forgets idle groups beyond its bound.
func TestMeterBoundedGroups(t *testing.T) {
	m := testMeter(2)
	for i := 0; i < 3*maxMeterGroups; i++ {
		a := [4]byte{10, byte(i >> 16), byte(i >> 8), byte(i)}
		tk, _ := m.acquire(groupKey{netip.AddrFrom4(a)})
		tk.start -= int64(time.Second)
		m.release(tk, 0) // in debt: not forgotten for being full
	}
	if n := len(m.groups); n > maxMeterGroups {
		t.Fatalf("%d groups kept, bound %d", n, maxMeterGroups)
	}
}

// BenchmarkMeter: what metering adds to a request within budget.
func BenchmarkMeter(b *testing.B) {
	m := newMeter(1e6, time.Second, 2, time.Second, &guardCounters{}) // never in debt
	g := grp("10.0.0.1")
	b.ReportAllocs()
	for b.Loop() {
		t, _ := m.acquire(g)
		m.release(t, 100)
	}
}

// TestMeterAloneNotHeld: a group alone is served at once however deep in
// debt (there is no one to protect; a benchmark's client keeps its
// throughput), and charged all the same.
func TestMeterAloneNotHeld(t *testing.T) {
	m := testMeter(1)
	a := grp("10.0.0.1")
	m.indebted(t, a, 0.001)
	var held []ticket
	for i := 0; i < 10; i++ {
		tk, ok := m.acquire(a)
		if !ok || tk.metered {
			t.Fatalf("request %d of a group alone was metered", i+1)
		}
		held = append(held, tk)
	}
	for _, tk := range held {
		m.release(tk, 1000)
	}
	m.mu.Lock()
	debt := m.groups[a].tokens
	m.mu.Unlock()
	if debt >= -0.001-10*1000*byteCost*1e-9 {
		t.Fatalf("budget %v: the requests were not charged", debt)
	}
}
