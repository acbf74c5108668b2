package txpool

import (
	"slices"

	"github.com/gonero/gonero/cryptonote"
)

// The pool's recent changes, for wallets that refresh the pool
// incrementally through /getblocks.bin's pool_info_since (RPC 3.13+,
// tx_memory_pool's "transient lists" m_added_txs_by_id and
// m_removed_txs_by_time). Times are whole seconds, as monerod's time_t.

// maxRemovedTracked bounds the removed list: past it the oldest quarter is
// forgotten (track_removed_tx's MAX_REMOVED); otherwise entries older than
// removedTrackedFor are.
const (
	maxRemovedTracked = 20000
	removedTrackedFor = 30 * 60 // seconds
)

type removedTx struct {
	id        cryptonote.Hash
	at        int64
	sensitive bool // the transaction was not public (stem or do-not-relay)
}

// changeLog is kept under the pool's lock.
type changeLog struct {
	added        map[cryptonote.Hash]int64
	addedStart   int64       // when the first addition was tracked; 0: never
	removed      []removedTx // by time
	removedStart int64       // the earliest time the removed list is complete from; 0: never
}

// trackAdded records that id entered the pool, or became public (a wallet
// that may not see private transactions must see it now).
func (c *changeLog) trackAdded(id cryptonote.Hash, now int64) {
	if c.added == nil {
		c.added = map[cryptonote.Hash]int64{}
	}
	c.added[id] = now
	if c.addedStart == 0 {
		c.addedStart = now
	}
}

// trackRemoved records that id left the pool.
func (c *changeLog) trackRemoved(id cryptonote.Hash, sensitive bool, now int64) {
	delete(c.added, id)
	c.removed = append(c.removed, removedTx{id: id, at: now, sensitive: sensitive})
	if c.removedStart == 0 {
		c.removedStart = now
	}
	if len(c.removed) > maxRemovedTracked {
		drop := maxRemovedTracked/4 + 1
		c.removed = slices.Delete(c.removed, 0, drop)
		c.removedStart = c.removed[0].at
		return
	}
	earliest := now - removedTrackedFor
	n := 0
	for n < len(c.removed) && c.removed[n].at < earliest {
		n++
	}
	if n > 0 {
		c.removed = slices.Delete(c.removed, 0, n)
		c.removedStart = earliest
	}
}

// PoolChanges is what changed in the pool since a time, as a listener sees
// it (tx_memory_pool::get_pool_info).
type PoolChanges struct {
	// Incremental: Added and Removed are the changes since the time asked;
	// otherwise Added is the whole pool and Removed is empty.
	Incremental bool
	Added       []Entry
	// Remaining are the ids of added transactions past the count asked for.
	Remaining []cryptonote.Hash
	Removed   []cryptonote.Hash
}

// Changes returns the pool's changes since since (Unix seconds; 0 for the
// whole pool). With includePrivate false, transactions in their stem phase
// or kept from relaying are left out, as are their removals. At most
// maxTxs entries are returned whole; the ids of the rest are in Remaining.
// order sorts the whole pool's entries as the caller's clients expect (the
// order of a full answer); an incremental answer has no defined order.
func (p *Pool) Changes(since int64, includePrivate bool, maxTxs int, order func(a, b Entry) int) PoolChanges {
	p.mu.Lock()
	defer p.unlock()
	c := &p.changes
	out := PoolChanges{Incremental: since != 0 && c.addedStart != 0 && c.removedStart != 0 &&
		since > c.addedStart && since > c.removedStart}
	visible := func(e *Entry) bool { return includePrivate || !(e.DoNotRelay || e.Stem) }
	var added []Entry
	if !out.Incremental {
		for _, e := range p.txs {
			if visible(e) {
				added = append(added, *e)
			}
		}
		slices.SortFunc(added, order)
	} else {
		for id, at := range c.added {
			if e, ok := p.txs[id]; ok && at >= since && visible(e) {
				added = append(added, *e)
			}
		}
		for _, r := range c.removed {
			if r.at >= since && (includePrivate || !r.sensitive) {
				out.Removed = append(out.Removed, r.id)
			}
		}
	}
	if maxTxs >= 0 && len(added) > maxTxs {
		for _, e := range added[maxTxs:] {
			out.Remaining = append(out.Remaining, e.ID)
		}
		added = added[:maxTxs]
	}
	out.Added = added
	return out
}

// public reports whether every listener may see e (relay_category::broadcasted).
func (e *Entry) public() bool { return !e.DoNotRelay && !e.Stem }

// trackPublic re-stamps e's addition when it has just become public.
func (p *Pool) trackPublic(e *Entry, wasPublic bool) {
	if !wasPublic && e.public() {
		p.changes.trackAdded(e.ID, p.now().Unix())
	}
}
