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
//     longest, if the group holds less than an even share of the open
//     connections: a client that closed and reconnected before the server
//     saw the close does not find its own dead connection in its way (a
//     group at or above its share, a flood alone at the cap for one, is
//     refused instead, so that it cannot spin through its own slots);
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
	recycle := own*len(l.perGroup) < l.open // below an even share
	var best *countedConn
	var bestClass, bestSize int
	var bestSince int64
	for c := range l.conns {
		if c.evicted || c.closed.Load() { // closing already: its slot is on its way back
			continue
		}
		idle := c.idle()
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
		// A busy connection is ranked by age, an idle one by how long it
		// has been idle.
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

// Connection states for the fair slots. A connection is idle while the
// server waits for a request's bytes, serving while a whole request is in
// and being answered, writing once the answer is made and until the
// server reads again (fasthttp writes it after the handler returns).
const (
	connIdle int32 = iota
	connServing
	connWriting
)

// markServing records that a whole request is in and being served, so that
// eviction spares the connection while others are idle.
func (c *countedConn) markServing() { c.state.Store(connServing) }

// markWriting records that the handler is done: what is left is writing
// the answer. The time is stamped here: once the answer is handed to the
// kernel the connection counts as idle (see idle).
func (c *countedConn) markWriting() {
	c.idleSince.Store(time.Now().UnixNano())
	c.state.Store(connWriting)
}

// idle: the server waits for the client, either reading its next request
// or with the answer written and not yet reading again (under load the
// serving goroutine may take a while to get there; a client that closed
// and reconnected meanwhile must find its old connection idle). A write
// in progress (a slow reader of a big answer) is busy.
func (c *countedConn) idle() bool {
	switch c.state.Load() {
	case connIdle:
		return true
	case connWriting:
		return !c.inWrite.Load()
	}
	return false
}

// Write notes a write in progress (see idle).
func (c *countedConn) Write(p []byte) (int, error) {
	c.inWrite.Store(true)
	n, err := c.Conn.Write(p)
	c.inWrite.Store(false)
	return n, err
}

// markIdle records that the server waits for the client's bytes (the
// connection reads its next request). It is called on every read; the
// idle time was stamped when the answer was made (markWriting), so that
// the order of idle times does not depend on when each serving goroutine
// gets to read again.
func (c *countedConn) markIdle() {
	switch c.state.Load() {
	case connIdle:
	case connServing: // cannot happen: fasthttp does not read while serving
		c.idleSince.Store(time.Now().UnixNano())
		c.state.Store(connIdle)
	default:
		c.state.Store(connIdle)
	}
}
