package httpd

import (
	"sync/atomic"
	"time"
)

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
// Rule 1 needs a group to hold two connections more than the newcomer's;
// a flood from as many addresses as there are slots (each group holding
// one) leaves nothing to take. So a newcomer whose group is in good
// standing (not seen lately, or one of its connections sent a whole
// request lately) may also take, after rule 1 and before rule 2, the slot
// of a connection that has sent no whole request in staleGrace, of any
// group holding more than the newcomer's: an idle or slowloris flood loses
// its silent connections to clients that ask something, while the flood's
// own newcomers, whose groups have sent nothing, cannot take each other's
// slots (each group loses its standing once it was seen, until it asks
// something).
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
	victimSilent
	victimOwnIdle
	victimOtherBusy
)

const (
	// defaultStaleGrace is how long a connection may stay without a whole
	// request before a newcomer in good standing may take its slot: a
	// wallet sends its request at once (a client over Tor, a few round
	// trips later; it is at risk only while the cap is full).
	defaultStaleGrace = 500 * time.Millisecond
	// standingWindow: a group keeps its good standing this long after its
	// last request.
	standingWindow = 10 * time.Minute
	// maxStanding bounds the groups remembered; past it the records of
	// groups without a connection are dropped (they are "not seen lately"
	// again).
	maxStanding = 16384
)

// groupStanding is what the fair slots remember of an address group: when
// one of its connections last sent a whole request (unix ns; 0: never).
type groupStanding struct {
	lastRequest atomic.Int64
}

// goodStandingLocked: grp was not seen lately, or asked something lately.
func (l *limitListener) goodStandingLocked(grp groupKey, now int64) bool {
	return l.standing[grp] == nil || l.askedLatelyLocked(grp, now)
}

// askedLatelyLocked: one of grp's connections sent a whole request within
// standingWindow.
func (l *limitListener) askedLatelyLocked(grp groupKey, now int64) bool {
	st := l.standing[grp]
	if st == nil {
		return false
	}
	last := st.lastRequest.Load()
	return last != 0 && now-last < int64(standingWindow)
}

// standingLocked returns grp's record, making one for a group not seen
// lately; the map is pruned when it outgrows maxStanding.
func (l *limitListener) standingLocked(grp groupKey) *groupStanding {
	if st := l.standing[grp]; st != nil {
		return st
	}
	if len(l.standing) >= maxStanding {
		now := time.Now().UnixNano()
		for g, st := range l.standing {
			if l.perGroup[g] == 0 && now-st.lastRequest.Load() >= int64(standingWindow) {
				delete(l.standing, g)
			}
		}
		if len(l.standing) >= maxStanding/2 {
			for g := range l.standing {
				if l.perGroup[g] == 0 {
					delete(l.standing, g)
				}
			}
		}
	}
	st := &groupStanding{}
	l.standing[grp] = st
	return st
}

// victimLocked picks the connection to close so that a connection of
// group grp can have its slot, or nil. It runs under l.mu, at the cap
// only; its cost is one pass over the open connections (at most
// --rpc-max-connections).
func (l *limitListener) victimLocked(grp groupKey, now int64) *countedConn {
	own := l.perGroup[grp]
	need := own + 2
	recycle := own*len(l.perGroup) < l.open // below an even share
	good := l.goodStandingLocked(grp, now)
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
		case size >= need && idle:
			class = victimOtherIdle
		case size >= need:
			class = victimOtherBusy
		case good && idle && size > own && !c.requested.Load() && now-c.idleSince.Load() >= int64(l.staleGrace):
			class = victimSilent
		default:
			continue
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
func (c *countedConn) markServing() {
	c.state.Store(connServing)
	if !c.requested.Load() {
		c.requested.Store(true)
	}
	if c.standing != nil {
		c.standing.lastRequest.Store(time.Now().UnixNano())
	}
}

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
