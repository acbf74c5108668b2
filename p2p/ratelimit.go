package p2p

import (
	"math"
	"sync"
	"sync/atomic"
	"time"
)

// The P2P rate limits in kB/s (1 kB = 1024 bytes, as monerod's
// network_throttle counts them): P2P_DEFAULT_LIMIT_RATE_UP and
// P2P_DEFAULT_LIMIT_RATE_DOWN of cryptonote_config.h since monerod 0.18.4.0.
// They are what --limit-rate-up/--limit-rate-down default to and what
// set_limit's -1 restores.
const (
	DefaultLimitRateUp   = 8192
	DefaultLimitRateDown = 32768
)

// rateChunk is the most bytes one connection sends before it queues again
// for the upload limiter: the unit of its round robin. Small enough that
// a peer waiting behind fifty others waits a fraction of a second at the
// default rate, large enough that sending costs few system calls.
const rateChunk = 32 << 10

// rateLimiter is a token bucket over the bytes of every P2P connection in
// one direction, monerod's global throttle (network_throttle_manager's
// global in and out throttles, which every P2P connection waits on before
// each read and write).
//
// Tokens may go negative: a reservation takes its bytes at once and its
// caller sleeps until the debt is paid off. So reservations are served in
// the order they were made, and since a connection reserves its next
// chunk only after sending the previous one, the connections that want to
// send share the rate in turn, chunk by chunk, whatever each one asks for:
// one peer asking for blocks as fast as they come cannot take the upload
// from the others.
type rateLimiter struct {
	mu     sync.Mutex // L9, a leaf
	rate   float64    // bytes per second; 0: unlimited
	burst  float64    // the most tokens an idle limiter saves up
	tokens float64
	last   time.Time

	kbps   atomic.Int64  // the limit in kB/s, as set (0: unlimited)
	bytes  atomic.Uint64 // bytes that went through
	waited atomic.Int64  // nanoseconds callers were told to wait, summed
}

// setLimit sets the rate in kB/s (0 or less: unlimited). The debt of past
// reservations stays, now paid off at the new rate.
func (l *rateLimiter) setLimit(kbps int64, now time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.refill(now)
	if kbps <= 0 {
		l.rate, l.burst, l.tokens = 0, 0, 0
		l.kbps.Store(0)
		return
	}
	unlimited := l.rate == 0
	l.rate = float64(kbps) * 1024
	// A quarter of a second of traffic, and at least a chunk: a connection
	// that was alone and idle sends its next chunk without waiting, and a
	// burst never passes the rate by more than that.
	l.burst = max(l.rate/4, rateChunk)
	l.tokens = min(l.tokens, l.burst)
	if unlimited {
		l.tokens = l.burst // an idle limiter, full
	}
	l.kbps.Store(kbps)
}

// limit is the rate in kB/s (0: unlimited).
func (l *rateLimiter) limit() int64 { return l.kbps.Load() }

func (l *rateLimiter) refill(now time.Time) {
	if l.rate > 0 && now.After(l.last) {
		l.tokens = min(l.burst, l.tokens+l.rate*now.Sub(l.last).Seconds())
	}
	l.last = now
}

// reserve takes n bytes and says how long the caller must wait before
// moving them.
func (l *rateLimiter) reserve(n int, now time.Time) time.Duration {
	l.bytes.Add(uint64(n))
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.rate == 0 {
		return 0
	}
	l.refill(now)
	l.tokens -= float64(n)
	if l.tokens >= 0 {
		return 0
	}
	d := time.Duration(math.Ceil(-l.tokens / l.rate * float64(time.Second)))
	l.waited.Add(int64(d))
	return d
}

// wait reserves n bytes and sleeps until they may move, or until done is
// closed (false).
func (l *rateLimiter) wait(n int, done <-chan struct{}) bool {
	d := l.reserve(n, time.Now())
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-done:
		return false
	}
}

// chunk is how many bytes a connection sends per reservation at the
// current rate: rateChunk, or less at a rate so low that a chunk would
// take more than a quarter of a second (the burst then also bounds it).
func (l *rateLimiter) chunk() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.rate == 0 {
		return rateChunk
	}
	return int(max(1024, min(rateChunk, l.rate/4)))
}
