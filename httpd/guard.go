package httpd

import (
	"log/slog"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gonero/gonero/internal/addrgroup"
)

// The defences of a public RPC listener beyond monerod's connection
// limits (docs/public-node.md): fair connection slots, a per-group rate of
// new connections, and metering of request cost per group. They all count
// clients by address group, not by address, because one party easily owns
// many addresses of one network but rarely many networks.

// groupKey is an address group (addrgroup.Group): a public IPv4
// address's /24, a public IPv6 address's /64, a private or loopback
// address itself.
type groupKey struct{ addr netip.Addr }

func groupOf(key hostKey) groupKey { return groupKey{addrgroup.Group(key.addr, key.private)} }

// prefixKey is the wider network an address group lies in
// (addrgroup.Prefix: an IPv4 /24, an IPv6 /48). A flood from many /64s of
// one /48, or many addresses of one /24, is one prefix: the fair slots
// evict from the prefix holding the most first, and probation bumps from
// it first.
type prefixKey struct{ addr netip.Addr }

func prefixOf(grp groupKey) prefixKey { return prefixKey{addrgroup.Prefix(grp.addr)} }

// Defaults of the defences (Config).
const (
	// DefaultConnectionRate is the new connections per second one address
	// group may open, sustained, while the listener holds half its cap or
	// more; DefaultConnectionBurst how many it may open at once. A wallet
	// keeps one connection open; a client that reconnects for every
	// request stays below 200 per second; a reconnect flood goes at
	// thousands per second and is refused at the cost of an accept and a
	// close.
	DefaultConnectionRate  = 200
	DefaultConnectionBurst = 400
)

// Reasons admitOrEvict refuses a connection for.
const (
	reasonPerIP = "per_ip" // monerod's per-IP limit
	reasonTotal = "total"  // at --rpc-max-connections, and no fair slot to take
)

// GuardStats counts what the defences of one listener (or, summed, of
// several) did since start.
type GuardStats struct {
	Open                                    int    // connections open now
	RefusedPerIP, RefusedTotal, RefusedRate uint64 // connections refused, by reason
	EvictedIdle, EvictedBusy                uint64 // connections closed to make room for another group's
	// MeteredWaits are requests of groups over their serving budget that
	// waited for a metered slot; MeteredBusy those answered "BUSY" after
	// waiting MeteredWait in vain.
	MeteredWaits, MeteredBusy uint64
	// Connections put on probation at the cap (probation.go), and of
	// those: admitted by their first request, closed without one, closed
	// for a newer one. A request on probation that found no slot counts in
	// RefusedTotal.
	ProbationStarted, ProbationAdmitted, ProbationExpired, ProbationBumped uint64
	// MemoryRefused are claims on the memory budget refused (memory.go):
	// bodies refused before or after reading, answers dropped for the busy
	// answer, parts of batch answers refused.
	MemoryRefused uint64
}

// Add sums two listeners' counts.
func (g GuardStats) Add(o GuardStats) GuardStats {
	return GuardStats{
		Open:         g.Open + o.Open,
		RefusedPerIP: g.RefusedPerIP + o.RefusedPerIP, RefusedTotal: g.RefusedTotal + o.RefusedTotal,
		RefusedRate: g.RefusedRate + o.RefusedRate,
		EvictedIdle: g.EvictedIdle + o.EvictedIdle, EvictedBusy: g.EvictedBusy + o.EvictedBusy,
		MeteredWaits: g.MeteredWaits + o.MeteredWaits, MeteredBusy: g.MeteredBusy + o.MeteredBusy,
		ProbationStarted: g.ProbationStarted + o.ProbationStarted, ProbationAdmitted: g.ProbationAdmitted + o.ProbationAdmitted,
		ProbationExpired: g.ProbationExpired + o.ProbationExpired, ProbationBumped: g.ProbationBumped + o.ProbationBumped,
		MemoryRefused: g.MemoryRefused + o.MemoryRefused,
	}
}

// pressureLogEvery spaces the "under pressure" log lines: at most 6 a
// minute per listener, however hard it is attacked.
const pressureLogEvery = 10 * time.Second

// guardCounters are a listener's GuardStats, counted with atomics from the
// accept loop and the request goroutines, and its rate-limited log.
type guardCounters struct {
	refusedPerIP, refusedTotal, refusedRate atomic.Uint64
	evictedIdle, evictedBusy                atomic.Uint64
	meteredWaits, meteredBusy               atomic.Uint64
	// probation.go: connections put on probation, admitted by their
	// first request, closed without one, bumped by a newer one.
	probationStarted, probationAdmitted, probationExpired, probationBumped atomic.Uint64
	memoryRefused                                                          atomic.Uint64

	log     *slog.Logger
	addr    string
	nextLog atomic.Int64 // unix nanoseconds before which nothing is logged

	logMu  sync.Mutex
	logged GuardStats // the counts at the last line
}

func (g *guardCounters) stats() GuardStats {
	return GuardStats{
		RefusedPerIP: g.refusedPerIP.Load(), RefusedTotal: g.refusedTotal.Load(), RefusedRate: g.refusedRate.Load(),
		EvictedIdle: g.evictedIdle.Load(), EvictedBusy: g.evictedBusy.Load(),
		MeteredWaits: g.meteredWaits.Load(), MeteredBusy: g.meteredBusy.Load(),
		ProbationStarted: g.probationStarted.Load(), ProbationAdmitted: g.probationAdmitted.Load(),
		ProbationExpired: g.probationExpired.Load(), ProbationBumped: g.probationBumped.Load(),
		MemoryRefused: g.memoryRefused.Load(),
	}
}

// pressure is called after each defensive act; it logs one warning with
// the counts since the last one, at most once per pressureLogEvery. Its
// cost between lines is one clock read and one atomic load.
func (g *guardCounters) pressure() {
	if g.log == nil {
		return
	}
	now := time.Now().UnixNano()
	next := g.nextLog.Load()
	if now < next || !g.nextLog.CompareAndSwap(next, now+int64(pressureLogEvery)) {
		return
	}
	cur := g.stats()
	g.logMu.Lock()
	last := g.logged
	g.logged = cur
	g.logMu.Unlock()
	g.log.Warn("httpd: RPC listener under pressure", "listener", g.addr,
		"refused_per_ip", cur.RefusedPerIP-last.RefusedPerIP,
		"refused_total", cur.RefusedTotal-last.RefusedTotal,
		"refused_rate", cur.RefusedRate-last.RefusedRate,
		"evicted_idle", cur.EvictedIdle-last.EvictedIdle,
		"evicted_busy", cur.EvictedBusy-last.EvictedBusy,
		"metered_waits", cur.MeteredWaits-last.MeteredWaits,
		"metered_busy", cur.MeteredBusy-last.MeteredBusy,
		"probation", cur.ProbationStarted-last.ProbationStarted,
		"probation_admitted", cur.ProbationAdmitted-last.ProbationAdmitted,
		"memory_refused", cur.MemoryRefused-last.MemoryRefused)
}

// underPressure: the listener holds at least half its cap. Only then is
// the rate of new connections limited, so that below it the listener
// behaves as monerod's does; a reconnect flood that matters fills the
// cap quickly anyway.
func (l *limitListener) underPressure() bool {
	return l.maxTotal >= 0 && 2*l.openNow.Load() >= int64(l.maxTotal)
}

// connBucket is one group's token bucket of new connections.
type connBucket struct {
	tokens float64
	last   int64 // unix nanoseconds of the last refill
}

// connRate limits new connections per address group with token buckets
// (lazy refill: O(1) per connection, no timer). It is used by the accept
// loop only, so it needs no lock.
type connRate struct {
	rate, burst float64 // rate <= 0: no limit
	buckets     map[groupKey]*connBucket
}

// maxRateGroups bounds the memory of connection buckets; beyond it the
// full ones are dropped (a full bucket is the same as none).
const maxRateGroups = 4096

func newConnRate(rate float64, burst int) connRate {
	if burst < 1 {
		burst = 1
	}
	return connRate{rate: rate, burst: float64(burst), buckets: make(map[groupKey]*connBucket)}
}

// allow takes a token from g's bucket, if it has one.
func (r *connRate) allow(g groupKey, now int64) bool {
	if r.rate <= 0 {
		return true
	}
	b := r.buckets[g]
	if b == nil {
		if len(r.buckets) >= maxRateGroups {
			r.prune(now)
		}
		b = &connBucket{tokens: r.burst, last: now}
		r.buckets[g] = b
	}
	b.tokens = min(r.burst, b.tokens+float64(now-b.last)*r.rate/1e9)
	b.last = now
	if b.tokens < 1 {
		return false
	}
	b.tokens--
	return true
}

// prune drops the buckets that have refilled; if none has, it forgets
// them all (an attacker with thousands of groups gains a burst each,
// which the connection limits still bound).
func (r *connRate) prune(now int64) {
	for g, b := range r.buckets {
		if b.tokens+float64(now-b.last)*r.rate/1e9 >= r.burst {
			delete(r.buckets, g)
		}
	}
	if len(r.buckets) >= maxRateGroups {
		clear(r.buckets)
	}
}

// fillGuardDefaults applies the defaults of the defences to cfg.
func fillGuardDefaults(cfg *Config) {
	if cfg.ConnectionRate == 0 {
		cfg.ConnectionRate = DefaultConnectionRate
	}
	if cfg.ConnectionBurst <= 0 {
		cfg.ConnectionBurst = DefaultConnectionBurst
	}
	if cfg.CostRate == 0 {
		cfg.CostRate = DefaultCostRate()
	}
	if cfg.CostBurst <= 0 {
		cfg.CostBurst = DefaultCostBurst
	}
	if cfg.MeteredSlots <= 0 {
		cfg.MeteredSlots = DefaultMeteredSlots()
	}
	if cfg.MeteredWait <= 0 {
		cfg.MeteredWait = DefaultMeteredWait
	}
}

// GuardStats counts what this server's defences did since start.
func (s *Server) GuardStats() GuardStats {
	st := s.guard.stats()
	st.Open = s.OpenConnections()
	return st
}
