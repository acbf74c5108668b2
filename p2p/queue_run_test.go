package p2p

import (
	"testing"
	"time"

	"github.com/gonero/gonero/cryptonote"
)

// TestNextRunTakesContiguousReadySpans checks the writer's runs: the next
// span, then those that continue it without a gap, received and prepared,
// within the block and byte bounds (the first span whatever its size).
func TestNextRunTakesContiguousReadySpans(t *testing.T) {
	q := newBlockQueue()
	c := &conn{done: make(chan struct{})}
	now := time.Unix(1000, 0)
	var needed []cryptonote.Hash
	for h := uint64(1); h <= 40; h++ {
		needed = append(needed, cryptonote.Hash{byte(h), 7})
	}
	// Four spans of 10: heights 1-10, 11-20, 21-30, 31-40.
	spans := make([]*span, 4)
	for i := range spans {
		s, _ := q.reserve(c, 1, needed, 10, now)
		if s == nil || s.start != uint64(1+10*i) {
			t.Fatalf("span %d: %+v", i, s)
		}
		spans[i] = s
	}
	ready := func(i int) {
		s := spans[i]
		if q.fill(c, s.start, s.ids, make([]syncBlock, len(s.ids)), 1000, now) == nil {
			t.Fatalf("span %d not filled", i)
		}
		q.mu.Lock()
		s.prepared = true
		q.mu.Unlock()
	}
	starts := func(run []*span) (out []uint64) {
		for _, s := range run {
			out = append(out, s.start)
		}
		return out
	}
	same := func(what string, run []*span, want ...uint64) {
		t.Helper()
		got := starts(run)
		if len(got) != len(want) {
			t.Fatalf("%s: run starts at %v, want %v", what, got, want)
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("%s: run starts at %v, want %v", what, got, want)
			}
		}
	}
	if run := q.nextRun(1, 500, 1<<20); run != nil {
		t.Fatalf("nothing received, run %v", starts(run))
	}
	ready(0)
	ready(1)
	ready(3) // 21-30 missing: 31-40 is past a gap
	same("two ready, then a gap", q.nextRun(1, 500, 1<<20), 1, 11)
	same("block bound", q.nextRun(1, 19, 1<<20), 1)
	same("byte bound", q.nextRun(1, 500, 1999), 1)
	same("a first span larger than the bounds", q.nextRun(1, 5, 10), 1)
	ready(2)
	same("all four", q.nextRun(1, 500, 1<<20), 1, 11, 21, 31)
	q.remove(spans[0])
	same("after the first is added", q.nextRun(11, 500, 1<<20), 11, 21, 31)
}
