package httpd

import "time"

// Fair connection slots. monerod refuses every connection once
// --rpc-max-connections are open, so whoever fills the slots first, and
// keeps them filled by reconnecting, shuts everyone else out. Here a
// connection that arrives at the cap takes the place of another, chosen
// in this order:
//
//  1. an idle connection (between requests, or one that never sent a
//     whole request: slowloris) of a group holding at least two
//     connections more than the newcomer's, the largest such group, the
//     one idle longest;
//  2. an idle connection of the newcomer's own group, the one idle
//     longest, if the group holds no more than an even share of the open
//     connections: a client that closed and reconnected before the server
//     saw the close does not find its own dead connection in its way (a
//     group above its share is refused instead, so that a flood cannot
//     spin through its own slots);
//  3. a connection in the middle of a request of a group as in 1, the
//     oldest: the last resort.
//
// "Two more" keeps two groups from taking each other's slots in turn: at
// the cap the slots converge to an even share per group, and a group that
// reconnects as fast as it can only ever gets its own share back. With no
// candidate the connection is refused, as monerod refuses it.
//
// Below the cap nothing changes: monerod's limits apply as they are (the
// per-IP limits are never lifted).

// maxEvictTries bounds the evictions one accepted connection may cause;
// more than one is needed only when a victim was closing already.
const maxEvictTries = 3

// Victim classes, in order of preference (see above).
const (
	victimOtherIdle = iota
	victimOwnIdle
	victimOtherBusy
)

// victimLocked picks the connection to close so that a connection of
// group grp can have its slot, or nil. It runs under l.mu, at the cap
// only; its cost is one pass over the open connections (at most
// --rpc-max-connections).
func (l *limitListener) victimLocked(grp groupKey) *countedConn {
	own := l.perGroup[grp]
	need := own + 2
	recycle := own*len(l.perGroup) <= l.open // within an even share
	var best *countedConn
	var bestClass, bestSize int
	var bestSince int64
	for c := range l.conns {
		if c.evicted || c.closed.Load() { // closing already: its slot is on its way back
			continue
		}
		idle := !c.busy.Load()
		size := l.perGroup[c.group]
		var class int
		switch {
		case c.group == grp:
			if !idle || !recycle {
				continue
			}
			class = victimOwnIdle
		case size < need:
			continue
		case idle:
			class = victimOtherIdle
		default:
			class = victimOtherBusy
		}
		since := c.connectedAt
		if idle {
			since = c.idleSince.Load()
		}
		better := best == nil
		if !better {
			switch {
			case class != bestClass:
				better = class < bestClass
			case size != bestSize:
				better = size > bestSize
			default:
				better = since < bestSince
			}
		}
		if better {
			best, bestClass, bestSize, bestSince = c, class, size, since
		}
	}
	if best != nil {
		best.evicted = true
		best.evictedBusy = bestClass == victimOtherBusy
	}
	return best
}

// evict closes a connection to free its slot for another group's, at
// once: its serving goroutine, if any, sees its next read or write fail
// and its Close is then a no-op.
func (c *countedConn) evict() {
	if c.closed.Swap(true) {
		return // closing already; the slot comes back with its own Close
	}
	_ = c.Conn.Close()
	c.ln.release(c)
}

// markBusy records that a whole request is in and being served, so that
// eviction spares the connection while others are idle.
func (c *countedConn) markBusy() { c.busy.Store(true) }

// markIdle records that the server waits for the client's bytes (the
// connection reads its next request). It is called on every read, and
// stamps the time only when the connection turns idle.
func (c *countedConn) markIdle() {
	if c.busy.Load() {
		c.idleSince.Store(time.Now().UnixNano())
		c.busy.Store(false)
	}
}
