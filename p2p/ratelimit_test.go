package p2p

import (
	"testing"
	"time"
)

// Bytes reserved at once wait until the rate has paid for everything past
// the burst: n bytes reserved at t0 may all have moved by t0+d only if
// n <= burst + rate*d.
func TestRateLimiterCapsBytes(t *testing.T) {
	var l rateLimiter
	t0 := time.Unix(1_000_000, 0)
	l.setLimit(100, t0) // 100 kB/s
	rate := 100 * 1024.0
	burst := max(rate/4, rateChunk)
	moved := 0
	for i := 0; i < 1000; i++ {
		d := l.reserve(rateChunk, t0)
		moved += rateChunk
		if float64(moved) > burst+rate*d.Seconds()+1 {
			t.Fatalf("%d bytes may move within %v at %v B/s with a burst of %v", moved, d, rate, burst)
		}
		// And no longer than that: the limiter does not wait more than the
		// rate needs.
		if want := (float64(moved) - burst) / rate; d.Seconds() > want+1e-6 && want > 0 {
			t.Fatalf("reservation %d waits %v, the rate needs %.6fs", i, d, want)
		}
	}
	// Unlimited: nothing waits.
	l.setLimit(0, t0)
	if d := l.reserve(1<<30, t0); d != 0 {
		t.Fatalf("an unlimited limiter made a reservation wait %v", d)
	}
	if l.limit() != 0 {
		t.Fatalf("unlimited reads %d kB/s", l.limit())
	}
}

// Connections that each want to send all the time take turns: over a
// simulated minute three connections that always have something to send
// move the same bytes, to the burst (which the first to ask takes) and a
// chunk, however often each asks; and together no more than the rate
// allows.
func TestRateLimiterSharesInTurn(t *testing.T) {
	var l rateLimiter
	t0 := time.Unix(1_000_000, 0)
	l.setLimit(64, t0) // 64 kB/s: a chunk is 16 KiB
	type sender struct {
		ready time.Time
		sent  int
	}
	// Three connections; the first asks first every time it can (it is
	// earlier in the loop), the way a peer hammering requests would.
	s := []*sender{{ready: t0}, {ready: t0}, {ready: t0}}
	end := t0.Add(time.Minute)
	for {
		// The connection whose previous chunk went out first reserves
		// its next one.
		next := s[0]
		for _, c := range s[1:] {
			if c.ready.Before(next.ready) {
				next = c
			}
		}
		if !next.ready.Before(end) {
			break
		}
		n := l.chunk()
		d := l.reserve(n, next.ready)
		next.ready = next.ready.Add(d)
		if next.ready.Before(end) {
			next.sent += n
		}
	}
	chunk := l.chunk()
	rate, burst := 64*1024.0, max(64*1024.0/4, rateChunk)
	total := 0
	for i, c := range s {
		total += c.sent
		for j, o := range s {
			if c.sent > o.sent+int(burst)+chunk {
				t.Errorf("connection %d sent %d bytes, connection %d %d: not in turn", i, c.sent, j, o.sent)
			}
		}
	}
	if max := burst + rate*60; float64(total) > max+float64(chunk) {
		t.Errorf("%d bytes sent in a minute at %v B/s (burst %v)", total, rate, burst)
	}
	if min := rate*60 - float64(3*chunk); float64(total) < min {
		t.Errorf("only %d bytes sent in a minute at %v B/s: the limiter holds back more than the rate", total, rate)
	}
}

// set_limit's forms (monerod's on_set_limit): a positive value sets, 0
// leaves, -1 restores the default, and get_limit reads the limits back.
func TestSetRateLimits(t *testing.T) {
	n := &Node{}
	n.mem = newMemParts(&n.cfg)
	n.SetRateLimits(-1, -1)
	if up, down := n.RateLimits(); up != DefaultLimitRateUp || down != DefaultLimitRateDown {
		t.Fatalf("after -1: up %d, down %d", up, down)
	}
	n.SetRateLimits(100, 0)
	if up, down := n.RateLimits(); up != 100 || down != DefaultLimitRateDown {
		t.Fatalf("after 100, 0: up %d, down %d", up, down)
	}
	n.SetRateLimits(0, 200)
	if up, down := n.RateLimits(); up != 100 || down != 200 {
		t.Fatalf("after 0, 200: up %d, down %d", up, down)
	}
	n.SetRateLimits(-5, -1)
	if up, down := n.RateLimits(); up != 100 || down != DefaultLimitRateDown {
		t.Fatalf("after -5, -1: up %d, down %d", up, down)
	}
	if st := n.LimitStats(); st.RateUp != 100*1024 || st.RateDown != DefaultLimitRateDown*1024 {
		t.Fatalf("stats: %+v", st)
	}
}
