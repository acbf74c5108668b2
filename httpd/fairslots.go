package httpd

import "time"

// Fair connection slots. monerod refuses every connection once
// --rpc-max-connections are open, so whoever fills the slots first, and
// keeps them filled by reconnecting, shuts everyone else out. Here a
// connection that arrives at the cap from an address group holding fewer
// connections than another group takes the place of one of that group's:
// an idle one first (between requests, or one that never sent a whole
// request: slowloris), the one idle longest; a connection in the middle
// of a request only if no eligible group has an idle one. A group is
// eligible when it holds at least two connections more than the newcomer's
// group, so that the two cannot take each other's slots in turn: at the
// cap, the slots converge to an even share per group, and a group that
// reconnects as fast as it can only ever gets its share back.
//
// Below the cap nothing changes: monerod's limits apply as they are.

// maxEvictTries bounds the evictions one accepted connection may cause;
// more than one is needed only when a victim was closing already.
const maxEvictTries = 3

// victimLocked picks the connection to close so that a connection of
// group grp can have its slot, or nil. It runs under l.mu, at the cap
// only; its cost is one pass over the open connections (at most
// --rpc-max-connections).
func (l *limitListener) victimLocked(grp groupKey) *countedConn {
	need := l.perGroup[grp] + 2
	var best *countedConn
	var bestIdle bool
	var bestSize int
	var bestSince int64
	for c := range l.conns {
		if c.evicted || c.closed.Load() { // closing already: its slot is on its way back
			continue
		}
		size := l.perGroup[c.group]
		if size < need {
			continue
		}
		idle := !c.busy.Load()
		since := c.connectedAt
		if idle {
			since = c.idleSince.Load()
		}
		better := best == nil
		if !better {
			switch {
			case idle != bestIdle:
				better = idle
			case size != bestSize:
				better = size > bestSize
			default:
				better = since < bestSince
			}
		}
		if better {
			best, bestIdle, bestSize, bestSince = c, idle, size, since
		}
	}
	if best != nil {
		best.evicted = true
		best.evictedBusy = !bestIdle
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
