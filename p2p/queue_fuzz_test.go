package p2p

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gonero/gonero/cryptonote"
)

// checkQueue verifies the block queue's bookkeeping: spans in start order,
// the id index naming exactly the queued ids, the byte count of the
// received spans, and an overview of monerod's alphabet.
func checkQueue(q *blockQueue) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	ids, bytes := 0, 0
	for i, s := range q.spans {
		if i > 0 && q.spans[i-1].start > s.start {
			return fmt.Errorf("span %d starts at %d after one at %d", i, s.start, q.spans[i-1].start)
		}
		if len(s.ids) == 0 {
			return fmt.Errorf("empty span at %d", s.start)
		}
		for _, id := range s.ids {
			if q.ids[id] == s {
				ids++
			}
		}
		if s.received() {
			bytes += s.size
		}
	}
	if ids != len(q.ids) {
		return fmt.Errorf("id index holds %d ids, the spans own %d", len(q.ids), ids)
	}
	if bytes != q.bytes {
		return fmt.Errorf("byte count %d, received spans hold %d", q.bytes, bytes)
	}
	return nil
}

// The queue driven by arbitrary sequences of reservations (over two
// competing chains), answers, stalls, closed connections and additions
// keeps its bookkeeping, and the writer's next span never starts above
// the height.
func FuzzBlockQueue(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9})
	f.Add([]byte{0, 0, 0, 16, 17, 18, 32, 48, 64, 80, 96, 112})
	f.Fuzz(func(t *testing.T, ops []byte) {
		if len(ops) > 512 {
			ops = ops[:512]
		}
		// Two chains of 200 blocks above height 1 sharing their first 50.
		chainID := func(fork byte, h uint64) cryptonote.Hash {
			if h < 50 {
				fork = 0
			}
			return cryptonote.Hash{fork, byte(h), byte(h >> 8), 1}
		}
		q := newBlockQueue()
		conns := make([]*conn, 4)
		for i := range conns {
			conns[i] = &conn{done: make(chan struct{})}
		}
		height := uint64(1)
		now := time.Unix(1000, 0)
		reserved := map[*conn]*span{}
		for _, op := range ops {
			c := conns[op&3]
			fork := (op >> 2) & 1
			switch op >> 3 {
			case 0, 1, 2: // reserve from c's view of its chain
				var needed []cryptonote.Hash
				for h := height; h < 200; h++ {
					needed = append(needed, chainID(fork, h))
				}
				if s, _ := q.reserve(c, height, needed, 20, now); s != nil {
					reserved[c] = s
				}
			case 3, 4: // c answers its span
				if s := reserved[c]; s != nil {
					blocks := make([]syncBlock, len(s.ids))
					q.fill(c, s.start, s.ids, blocks, 100*len(s.ids), now.Add(time.Second))
					delete(reserved, c)
				}
			case 5: // the writer adds what it can, a run of spans at a time
				run := q.nextRun(height, 30, 5000)
				blocks, size := 0, 0
				for i, s := range run {
					if i == 0 && s.start > height {
						t.Fatalf("next span starts at %d above the height %d", s.start, height)
					}
					if i > 0 && s.start != run[i-1].start+uint64(len(run[i-1].blocks)) {
						t.Fatalf("run span %d starts at %d, not where span %d ends", i, s.start, i-1)
					}
					if !s.received() || !s.prepared {
						t.Fatalf("run span %d at %d is not ready", i, s.start)
					}
					blocks, size = blocks+len(s.blocks), size+s.size
					if i > 0 && (blocks > 30 || size > 5000) {
						t.Fatalf("run of %d blocks, %d bytes is over its bounds", blocks, size)
					}
					height = max(height, s.start+uint64(len(s.ids)))
					q.remove(s)
				}
			case 6: // c closes
				close(c.done)
				conns[op&3] = &conn{done: make(chan struct{})}
				q.release(height, func(cryptonote.Hash) bool { return true })
			case 7: // time passes; another takes over a stalled span
				now = now.Add(7 * time.Second)
				if s := q.takeStalled(c, now, 30*time.Second, func(*span) bool { return true }); s != nil {
					reserved[c] = s
				}
			case 8: // c turns out bad
				q.dropFrom(c)
			default: // mark everything received as prepared
				q.mu.Lock()
				for _, s := range q.spans {
					if s.received() {
						s.prepared = true
					}
				}
				q.mu.Unlock()
			}
			if err := checkQueue(q); err != nil {
				t.Fatal(err)
			}
			ov := q.overview(height)
			if !strings.HasPrefix(ov, "[") || !strings.HasSuffix(ov, "]") || strings.Trim(ov[1:len(ov)-1], "_.om<") != "" {
				t.Fatalf("overview %q", ov)
			}
			_ = q.spanInfo()
		}
	})
}
