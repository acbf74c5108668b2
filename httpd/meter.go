package httpd

import (
	"runtime"
	"sync"
	"time"
)

// Request metering. Some requests cost a thousand times more than others
// (/getblocks.bin from far back, get_output_distribution from 0, get_outs
// of thousands of outputs, ...), so counting requests says little; the
// meter charges each request what it really cost: the wall time of its
// route plus byteCost per byte of answer. Each address group has a budget
// of cost that refills: the serving capacity (Config.CostRate seconds of
// serving per second) shared evenly by the groups active in the last
// activeWindow. A group alone, or within its budget, is served at once.
// A group over it, while others are active, is served through a few
// metered slots (Config.MeteredSlots), granted to waiting groups in order
// of budget, least in debt first, and at most half of them to one group
// while another waits: a client that asks for little is served next even
// among a crowd of heavy ones, heavy work from one group cannot take all
// the slots, and heavy work as a whole cannot take all the handler
// capacity, so cheap requests of other groups keep their latency. A
// request that has waited Config.MeteredWait for a slot gets monerod's
// busy answer (Config.Busy; rpc answers status "BUSY", JSON-RPC error -9
// "Core is busy", as monerod does while it cannot serve).
//
// Why wait first and only then answer "BUSY": wallets (wallet2) treat
// BUSY as a failed refresh and retry later, so answering it at once would
// make a lone heavy client fail for nothing; waiting is work-conserving
// (a metered request runs at once when a slot is free) and what waits is
// bounded by the connection limits (one request per connection at a
// time).
//
// Wall time is what a route costs as seen from outside: under contention
// every group's requests take longer, which charges all of them alike.
// Go has no per-goroutine CPU clock; the wall time is the honest
// approximation.

// byteCost is the cost charged per byte of answer, in nanoseconds: about
// what encoding and sending a byte takes (1 MB ~ 10 ms).
const byteCost = 10

// activeWindow: a group is active (shares the capacity) for this long
// after its last request.
const activeWindow = 2 * time.Second

// maxMeterGroups bounds the meter's memory; idle groups beyond it are
// forgotten (their debt with them).
const maxMeterGroups = 4096

// sweepEvery spaces the passes that recount active groups and drop idle,
// refilled ones.
const sweepEvery = time.Second

// DefaultMeteredWait is how long a request over budget may wait for a
// metered slot before it is answered "BUSY".
const DefaultMeteredWait = 5 * time.Second

// DefaultCostRate is the serving capacity the groups share: half of the
// machine's processors, in seconds of serving per second; the other half
// stays for the groups within budget. DefaultMeteredSlots is the number
// of requests over budget that run at once: one processor fewer than the
// machine has (at least one), so that heavy work over budget never takes
// every core and a cheap request finds one free. With one per core, on 2
// cores, a legitimate client's p99 beside 20 addresses posting batches of
// the costliest calls was 31-38 ms; with one fewer, 5-6 ms (monerod,
// which refuses batches: 6 ms), the floods' answers halving
// (docs/public-node.md).
func DefaultCostRate() float64 { return float64(runtime.GOMAXPROCS(0)) / 2 }
func DefaultMeteredSlots() int { return max(1, runtime.GOMAXPROCS(0)-1) }

// DefaultCostBurst is how long a group may use the whole capacity before
// it is metered (with more groups active, each gets its share of it).
const DefaultCostBurst = time.Second

type meterGroup struct {
	tokens  float64 // budget left, seconds of cost; negative: in debt
	last    int64   // unix ns of the last refill
	seen    int64   // unix ns of the last request
	running int     // requests running, metered or not
	metered int     // of which in metered slots
	waiters []*meterWaiter
	inQueue bool
}

type meterWaiter struct {
	ready   chan struct{}
	granted bool // under meter.mu
}

// ticket is what a running request holds; release gives it back.
type ticket struct {
	g       *meterGroup
	metered bool
	start   int64 // unix ns when the request began to run
}

type meter struct {
	capacity  float64 // seconds of serving per second, shared
	window    float64 // seconds: a group's budget cap is capacity*window/active
	slots     int
	perGroup  int // metered slots one group may hold
	wait      time.Duration
	guard     *guardCounters
	done      chan struct{} // closed at Shutdown: waiters give up
	closeOnce sync.Once

	mu           sync.Mutex
	activeWindow time.Duration // activeWindow (tests change it)
	groups       map[groupKey]*meterGroup
	active       int // groups seen within activeWindow (at least 1)
	nextSweep    int64
	running      int // metered slots taken
	queue        []*meterGroup
}

func newMeter(capacity float64, window time.Duration, slots int, wait time.Duration, guard *guardCounters) *meter {
	return &meter{
		capacity: capacity, window: window.Seconds(), slots: slots, perGroup: max(1, slots/2),
		wait: wait, guard: guard, done: make(chan struct{}),
		groups: make(map[groupKey]*meterGroup), active: 1, activeWindow: activeWindow,
	}
}

// budget is a group's refill rate (per second) and cap now.
func (m *meter) budget() (rate, ceiling float64) {
	rate = m.capacity / float64(m.active)
	return rate, rate * m.window
}

// refillLocked brings g's budget up to now.
func (m *meter) refillLocked(g *meterGroup, now int64) {
	rate, ceiling := m.budget()
	g.tokens = min(ceiling, g.tokens+float64(now-g.last)*1e-9*rate)
	g.last = now
}

// acquire lets a request of group key run, at once or after a wait for
// a metered slot; false: no slot came within the wait (answer busy).
func (m *meter) acquire(key groupKey) (ticket, bool) {
	now := time.Now().UnixNano()
	m.mu.Lock()
	if now >= m.nextSweep || len(m.groups) >= maxMeterGroups {
		m.sweepLocked(now)
	}
	g := m.groups[key]
	if g == nil {
		_, ceiling := m.budget()
		g = &meterGroup{tokens: ceiling, last: now}
		m.groups[key] = g
	}
	g.seen = now
	m.refillLocked(g, now)
	// Alone, a group is served at once (charged all the same): there is
	// no one to protect, and a benchmark's single client keeps its full
	// throughput. Within budget, likewise; but while other groups are
	// active, one group runs at most `slots` such requests at once: a
	// burst of concurrent requests is charged only as each ends, and must
	// not occupy every processor before the first charge lands.
	if m.active == 1 || (g.tokens > 0 && g.running-g.metered < m.slots) {
		g.running++
		m.mu.Unlock()
		return ticket{g: g, start: now}, true
	}
	// Over budget: queue, and take a slot at once if one is free and no
	// group with a better claim waits.
	w := &meterWaiter{ready: make(chan struct{})}
	g.waiters = append(g.waiters, w)
	if !g.inQueue {
		g.inQueue = true
		m.queue = append(m.queue, g)
	}
	m.grantLocked(now)
	if w.granted {
		m.mu.Unlock()
		return ticket{g: g, metered: true, start: now}, true
	}
	m.mu.Unlock()
	m.guard.meteredWaits.Add(1)
	m.guard.pressure()

	timer := time.NewTimer(m.wait)
	defer timer.Stop()
	select {
	case <-w.ready:
		return ticket{g: g, metered: true, start: time.Now().UnixNano()}, true
	case <-timer.C:
	case <-m.done:
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if w.granted { // granted while the timer fired
		return ticket{g: g, metered: true, start: time.Now().UnixNano()}, true
	}
	for i, x := range g.waiters {
		if x == w {
			g.waiters = append(g.waiters[:i], g.waiters[i+1:]...)
			break
		}
	}
	if len(g.waiters) == 0 {
		g.waiters = nil
		m.unqueueLocked(g)
	}
	m.guard.meteredBusy.Add(1)
	return ticket{}, false
}

func (m *meter) takeSlotLocked(g *meterGroup) {
	m.running++
	g.running++
	g.metered++
}

func (m *meter) unqueueLocked(g *meterGroup) {
	if !g.inQueue {
		return
	}
	g.inQueue = false
	for i, x := range m.queue {
		if x == g {
			m.queue = append(m.queue[:i], m.queue[i+1:]...)
			return
		}
	}
}

// release charges a finished request its cost (its run time and its
// answer's size) and, if it held a metered slot, hands the slot on.
func (m *meter) release(t ticket, answerBytes int) {
	now := time.Now().UnixNano()
	cost := float64(now-t.start+int64(answerBytes)*byteCost) * 1e-9
	m.mu.Lock()
	g := t.g
	m.refillLocked(g, now)
	// A group's debt is bounded, so that it recovers in bounded time once
	// it stops; what it does beyond the bound is still served only
	// through the metered slots.
	g.tokens = max(g.tokens-cost, -m.capacity*m.window)
	g.running--
	if t.metered {
		g.metered--
		m.running--
		m.grantLocked(now)
	}
	m.mu.Unlock()
}

// grantLocked gives free metered slots to waiting groups: the one least in
// debt first (first queued among equals), at most perGroup slots each
// while another group waits (with no one else waiting, a free slot is not
// left idle).
func (m *meter) grantLocked(now int64) {
	for m.running < m.slots && len(m.queue) > 0 {
		best, bestFull := -1, -1
		for i, g := range m.queue {
			m.refillLocked(g, now)
			if g.metered >= m.perGroup {
				if bestFull < 0 || g.tokens > m.queue[bestFull].tokens {
					bestFull = i
				}
				continue
			}
			if best < 0 || g.tokens > m.queue[best].tokens {
				best = i
			}
		}
		if best < 0 {
			best = bestFull // every waiting group holds its share: work conserving
		}
		g := m.queue[best]
		w := g.waiters[0]
		g.waiters[0] = nil
		g.waiters = g.waiters[1:]
		w.granted = true
		close(w.ready)
		m.takeSlotLocked(g)
		// Round robin among equals: the group goes to the back.
		m.queue = append(m.queue[:best], m.queue[best+1:]...)
		if len(g.waiters) > 0 {
			m.queue = append(m.queue, g)
		} else {
			g.waiters = nil
			g.inQueue = false
		}
	}
}

// sweepLocked recounts the active groups and forgets idle groups whose
// budget is full again (or, over maxMeterGroups, every idle group).
func (m *meter) sweepLocked(now int64) {
	m.nextSweep = now + int64(sweepEvery)
	active := 0
	for _, g := range m.groups {
		if now-g.seen < int64(m.activeWindow) || g.running > 0 {
			active++
		}
	}
	m.active = max(1, active)
	_, ceiling := m.budget()
	crowded := len(m.groups) >= maxMeterGroups
	for k, g := range m.groups {
		if g.running > 0 || g.inQueue {
			continue
		}
		m.refillLocked(g, now)
		if crowded || g.tokens >= ceiling {
			delete(m.groups, k)
		}
	}
}

// close makes every waiting request give up (Shutdown).
func (m *meter) close() { m.closeOnce.Do(func() { close(m.done) }) }

// serveMetered runs a route under the meter of cc's address group, or
// answers busy.
func (s *Server) serveMetered(fn Route, req *Request, cc *countedConn) Response {
	if s.meter == nil {
		return s.call(fn, req)
	}
	t, ok := s.meter.acquire(cc.group)
	if !ok {
		return s.busy(req)
	}
	req.meter, req.ticket, req.ticketOK = s.meter, t, true
	resp := s.call(fn, req)
	if req.ticketOK {
		s.meter.release(req.ticket, max(0, resp.Len()-int(req.charged)))
	}
	return resp
}

// Checkpoint charges the meter for what the request has cost so far (its
// run time since the last checkpoint and answerBytes more bytes of
// answer) and lets it go on as a new request of its address group would:
// at once within budget, or after waiting for a metered slot. A route
// that does many requests' work in one (a JSON-RPC batch) calls it
// between them, so that each part is metered as if it came alone. false:
// no slot came in time; the route should answer the rest busy. Without a
// meter it always succeeds.
func (r *Request) Checkpoint(answerBytes int) bool {
	if r.meter == nil {
		return true
	}
	if !r.ticketOK {
		return false
	}
	r.meter.release(r.ticket, answerBytes)
	r.charged += int64(answerBytes)
	r.ticketOK = false
	t, ok := r.meter.acquire(r.conn.group)
	if !ok {
		return false
	}
	r.ticket, r.ticketOK = t, true
	return true
}

// busy is the answer to a request that found no metered slot in time.
func (s *Server) busy(req *Request) Response {
	if s.cfg.Busy != nil {
		return s.call(s.cfg.Busy, req)
	}
	return Response{Status: 503, ContentType: "text/plain"}
}
