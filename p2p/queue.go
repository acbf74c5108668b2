package p2p

import (
	"sort"
	"sync"
	"time"

	"github.com/gonero/gonero/cryptonote"
	"github.com/gonero/gonero/membudget"
	"github.com/gonero/gonero/peerinfo"
)

// Limits of the shared block queue (block_queue.cpp,
// cryptonote_protocol_handler.inl; docs/mainnet.md §5.2).
const (
	// standbySpans and DefaultBlockDownloadMaxSize: a connection pauses
	// while the queue holds at least this many spans and bytes.
	standbySpans                = 10
	DefaultBlockDownloadMaxSize = 100 << 20 // --block-download-max-size
	// urgentDistance: a span starting this close to the chain height is
	// fetched even when the queue is full (it is what the writer waits for).
	urgentDistance = 1000
	// DefaultSpanTimeout: a span not received this long after it was
	// reserved may be asked of another peer (REQUEST_NEXT_SCHEDULED_SPAN_THRESHOLD).
	DefaultSpanTimeout = 30 * time.Second
	// standbyWake is how often paused connections look again.
	standbyWake = 100 * time.Millisecond
)

// syncBlock is one downloaded block with its transactions, parsed.
type syncBlock struct {
	blk     *cryptonote.Block
	blob    []byte
	txs     []*cryptonote.Transaction
	txBlobs [][]byte
	// prepErr is set by the prep worker whose verification of the block
	// panicked (queue_writer.go): the writer refuses the block with it.
	prepErr error
}

// span is block_queue::span: consecutive heights reserved for, then
// received from, a connection.
type span struct {
	start uint64
	ids   []cryptonote.Hash
	// owners are the connections the span was asked of (the reserving one,
	// and any that took it over when it stalled), with when.
	owners     map[*conn]time.Time
	origin     *conn // the reserving connection (sync_info's connection_id)
	reservedAt time.Time

	// Set once received.
	blocks   []syncBlock
	from     *conn // the connection whose answer filled the span
	size     int   // bytes of the answer's blocks and txs
	rate     float64
	prepared bool // PoW and preverification done (prepBlocks)
}

func (s *span) received() bool { return s.blocks != nil }

// blockQueue is monerod's block_queue: the spans being downloaded, shared
// by every connection, kept in height order. The writer (Node.writeLoop)
// adds received spans strictly in height order.
type blockQueue struct {
	mu    sync.Mutex // L8 (Node's lock order): taken under conn.mu, takes nothing
	spans []*span    // by start height (spans of competing chains may overlap)
	ids   map[cryptonote.Hash]*span
	bytes int // size of the received spans not yet added
	wake  chan struct{}
	// mem, when set, is the node's memory budget part the received spans
	// are counted in (sync_blocks, budget.go): taken, never refused (the
	// node asked for them and bounds them by the standby rule), but a
	// queue holding them leaves less room to every refusable claim, and
	// the queue stands by while the node's total is nearly spent.
	mem *membudget.Account[*conn]
}

func newBlockQueue() *blockQueue {
	return &blockQueue{ids: map[cryptonote.Hash]*span{}, wake: make(chan struct{}, 1)}
}

// signal wakes the writer.
func (q *blockQueue) signal() {
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// heightOf is the height of a queued block id.
func (q *blockQueue) heightOf(id cryptonote.Hash) (uint64, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	s := q.ids[id]
	if s == nil {
		return 0, false
	}
	for i, x := range s.ids {
		if x == id {
			return s.start + uint64(i), true
		}
	}
	return 0, false
}

// idAt is the id a queued span expects at height h (for RandomX seeds of
// blocks whose seed block is still in the queue).
func (q *blockQueue) idAt(h uint64) (cryptonote.Hash, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for _, s := range q.spans {
		if h >= s.start && h < s.start+uint64(len(s.ids)) {
			return s.ids[h-s.start], true
		}
	}
	return cryptonote.Hash{}, false
}

// full is the standby condition: at least standbySpans spans and maxBytes
// received bytes wait, or as many spans while the node's memory budget
// has less than a quarter of maxBytes of room left for large claims.
func (q *blockQueue) full(maxBytes int) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.spans) < standbySpans {
		return false
	}
	return q.bytes >= maxBytes || (q.mem != nil && q.mem.Budget().Room() < int64(maxBytes)/4)
}

// empty says whether no span is queued.
func (q *blockQueue) empty() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.spans) == 0
}

func (q *blockQueue) insert(s *span) {
	i := sort.Search(len(q.spans), func(i int) bool { return q.spans[i].start > s.start })
	q.spans = append(q.spans, nil)
	copy(q.spans[i+1:], q.spans[i:])
	q.spans[i] = s
	for _, id := range s.ids {
		q.ids[id] = s
	}
}

// removeLocked takes s out of the queue.
func (q *blockQueue) removeLocked(s *span) {
	for i, x := range q.spans {
		if x == s {
			q.spans = append(q.spans[:i], q.spans[i+1:]...)
			break
		}
	}
	for _, id := range s.ids {
		if q.ids[id] == s {
			delete(q.ids, id)
		}
	}
	if s.received() {
		q.bytes -= s.size
		if q.mem != nil {
			q.mem.Release(nil, int64(s.size))
		}
	}
}

// reserve is reserve_span: from a connection's needed ids (needed[0] at
// height start), the first run of at most max ids no span holds yet,
// reserved for c. It also returns how many leading ids are already
// queued (the caller drops them from its list).
func (q *blockQueue) reserve(c *conn, start uint64, needed []cryptonote.Hash, max int, now time.Time) (*span, int) {
	q.mu.Lock()
	defer q.mu.Unlock()
	skip := 0
	for skip < len(needed) && q.ids[needed[skip]] != nil {
		skip++
	}
	end := skip
	for end < len(needed) && end-skip < max && q.ids[needed[end]] == nil {
		end++
	}
	if end == skip {
		return nil, skip
	}
	s := &span{start: start + uint64(skip), ids: append([]cryptonote.Hash(nil), needed[skip:end]...),
		owners: map[*conn]time.Time{c: now}, origin: c, reservedAt: now}
	q.insert(s)
	return s, skip
}

// takeStalled is the re-request of a scheduled span (get_next_span with
// its stall rules, simplified): a span not received may be asked of c when
// it was reserved more than timeout ago, or more than timeout/6 ago while
// every connection it was asked of has been silent for timeout/15 (30 s,
// 5 s and 2 s at monerod's figures). has says whether c's chain holds the
// span's ids. Spans whose every owner is gone are handed out at once.
func (q *blockQueue) takeStalled(c *conn, now time.Time, timeout time.Duration, has func(*span) bool) *span {
	q.mu.Lock()
	defer q.mu.Unlock()
	for _, s := range q.spans {
		if s.received() {
			continue
		}
		if _, mine := s.owners[c]; mine {
			continue
		}
		age := now.Sub(s.reservedAt)
		orphaned, silent := true, true
		for o := range s.owners {
			if !o.closed() {
				orphaned = false
			}
			if last := o.lastRecv.Load(); last != 0 && now.Sub(time.Unix(0, last)) < timeout/15 {
				silent = false
			}
		}
		if !orphaned && age < timeout && (age < timeout/6 || !silent) {
			continue
		}
		if !has(s) {
			continue
		}
		s.owners[c] = now
		s.reservedAt = now
		return s
	}
	return nil
}

// fill stores the blocks c returned for the span starting at start with
// ids; it returns the span, or nil when the span is gone or already
// received (a late answer to a span another peer delivered first).
func (q *blockQueue) fill(c *conn, start uint64, ids []cryptonote.Hash, blocks []syncBlock, size int, now time.Time) *span {
	q.mu.Lock()
	defer q.mu.Unlock()
	s := q.ids[ids[0]]
	if s == nil || c.closed() || s.received() || s.start != start || len(s.ids) != len(ids) {
		return nil
	}
	s.blocks, s.from, s.size = blocks, c, size
	if dt := now.Sub(s.owners[c]).Seconds(); dt > 0 {
		s.rate = float64(size) / dt
	}
	q.bytes += size
	if q.mem != nil {
		q.mem.Take(nil, int64(size))
	}
	return s
}

// next is the span the writer adds next: the received, prepared span of
// lowest start whose first block can join the chain (start at most the
// height; a span above a gap waits for the gap).
func (q *blockQueue) next(height uint64) *span {
	q.mu.Lock()
	defer q.mu.Unlock()
	for _, s := range q.spans {
		if s.start > height {
			return nil
		}
		if s.received() && s.prepared {
			return s
		}
	}
	return nil
}

// nextRun is next(height) followed by the received, prepared spans that
// continue it without a gap, each starting where the one before ends,
// while the run holds at most maxBlocks blocks and maxBytes bytes (its
// first span is taken whatever its size): the writer adds a run in one
// store commit.
func (q *blockQueue) nextRun(height uint64, maxBlocks, maxBytes int) []*span {
	first := q.next(height)
	if first == nil {
		return nil
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	run := []*span{first}
	blocks, size := len(first.blocks), first.size
	end := first.start + uint64(len(first.blocks))
	for _, s := range q.spans {
		if s.start < end || s == first {
			continue
		}
		if s.start > end || !s.received() || !s.prepared ||
			blocks+len(s.blocks) > maxBlocks || size+s.size > maxBytes {
			break
		}
		run = append(run, s)
		blocks, size = blocks+len(s.blocks), size+s.size
		end = s.start + uint64(len(s.blocks))
	}
	return run
}

// remove takes s out of the queue (added, or thrown away).
func (q *blockQueue) remove(s *span) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.removeLocked(s)
}

// dropFrom removes every span c delivered and not yet added (its blocks
// are no longer trusted) and forgets c as an owner.
func (q *blockQueue) dropFrom(c *conn) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for _, s := range append([]*span(nil), q.spans...) {
		if s.from == c {
			q.removeLocked(s)
			continue
		}
		delete(s.owners, c)
	}
}

// release drops spans that can no longer be useful: below the height and
// not received (another peer's copy was added), or whose owners are all
// gone and which no one took over (released so that another connection
// reserves them afresh). known says whether a block id is on the chain.
func (q *blockQueue) release(height uint64, known func(cryptonote.Hash) bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for _, s := range append([]*span(nil), q.spans...) {
		if s.received() {
			continue
		}
		last := s.start + uint64(len(s.ids)) - 1
		if last < height && known(s.ids[len(s.ids)-1]) {
			q.removeLocked(s)
			continue
		}
		gone := true
		for o := range s.owners {
			if !o.closed() {
				gone = false
				break
			}
		}
		if gone {
			q.removeLocked(s)
		}
	}
}

// spanInfo lists the spans for sync_info, speed relative to the fastest
// connection as block_queue::get_speed computes it.
func (q *blockQueue) spanInfo() []peerinfo.SyncSpan {
	q.mu.Lock()
	defer q.mu.Unlock()
	speeds := map[*conn]float64{}
	for _, s := range q.spans {
		if !s.received() {
			continue
		}
		if v, ok := speeds[s.from]; ok {
			speeds[s.from] = (v + s.rate) / 2
		} else {
			speeds[s.from] = s.rate
		}
	}
	best := 0.0
	for _, v := range speeds {
		best = max(best, v)
	}
	out := make([]peerinfo.SyncSpan, 0, len(q.spans))
	for _, s := range q.spans {
		who := s.origin
		if s.received() {
			who = s.from
		}
		speed := 1.0
		if v, ok := speeds[who]; ok && v > 0 && best > 0 {
			speed = v / best
		}
		out = append(out, peerinfo.SyncSpan{StartBlockHeight: s.start, NBlocks: uint64(len(s.ids)),
			ConnectionID: hexID(who.id), Rate: uint32(s.rate + 0.5), Speed: uint32(100*speed + 0.5),
			Size: uint64(s.size), RemoteAddress: who.addr.String()})
	}
	return out
}

// overview is block_queue::get_overview: one character per span from the
// chain height: '_' for gaps, '.' requested, 'o' received, 'm' received
// and next to add, '<' below the height.
func (q *blockQueue) overview(height uint64) string {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.spans) == 0 {
		return "[]"
	}
	b := []byte{'['}
	expected := height
	for _, s := range q.spans {
		if expected > s.start {
			b = append(b, '<')
			continue
		}
		n := uint64(max(1, len(s.ids)))
		if expected < s.start {
			for range max(1, (s.start-expected)/n) {
				b = append(b, '_')
			}
		}
		switch {
		case !s.received():
			b = append(b, '.')
		case s.start == height:
			b = append(b, 'm')
		default:
			b = append(b, 'o')
		}
		expected = s.start + uint64(len(s.ids))
	}
	return string(append(b, ']'))
}

// covers says whether a queued span holds the block at height h.
func (q *blockQueue) covers(h uint64) bool {
	_, ok := q.idAt(h)
	return ok
}
