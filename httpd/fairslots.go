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
// After the silent rule below and before 2, the churn rule: a newcomer that has sent a whole request, of a group that holds no
// slot, may take the slot of any connection idle after its answer: the
// one of the prefix (prefixOf: /24, /48) holding the most slots, then one
// that asked once before one kept alive for more, then the one idle
// longest. A flood of one cheap request per address, then idle, from as
// many addresses as there are slots (issue 33: 2,000 addresses, 0 % for
// the client) otherwise leaves nothing to take: each group holds one, and
// every connection has asked. With the rule, arrival order stops
// mattering: a request in hand beats an idle connection. Groups that hold
// slots do not use it, so that they keep converging to an even share
// without taking each other's slots in turn.
//
// Rule 1 needs a group to hold two connections more than the newcomer's;
// a flood from as many addresses as there are slots (each group holding
// one) leaves nothing to take. So a newcomer that has sent a whole request
// may also take, after rule 1 and before rule 2, the slot of a connection
// that has sent no whole request in staleGrace, of any group holding more
// than the newcomer's: an idle or slowloris flood loses its silent
// connections to clients that ask something, while the flood's own
// newcomers, which never ask, cannot take each other's slots. A newcomer
// has not sent anything when it is accepted: where this rule would apply,
// or none does, it is put on probation (probation.go) and claims its slot
// with its first request.
//
// "Two more" keeps two groups from taking each other's slots in turn: at
// the cap the slots converge to an even share per group, and a group that
// reconnects as fast as it can only ever gets its own share back. With no
// candidate, and no place on probation, the connection is refused, as
// monerod refuses it; one on probation whose request finds no candidate
// within claimWait is closed without an answer.
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
	victimAskedIdle
	victimOwnIdle
	victimOtherBusy
)

// victimRules names the victim classes in debug logs.
var victimRules = [...]string{"other-idle", "silent", "asked-idle", "own-idle", "other-busy"}

const (
	// defaultStaleGrace is how long a connection may stay without a whole
	// request before a newcomer that asked may take its slot: a
	// wallet sends its request at once (a client over Tor, a few round
	// trips later; it is at risk only while the cap is full).
	defaultStaleGrace = 500 * time.Millisecond
	// standingWindow: a group counts as having asked lately this long
	// after its last request (a refused connection of such a group that
	// holds nothing is not held: listener.go, refuse).
	standingWindow = 10 * time.Minute
	// maxStanding bounds the groups remembered; past it the records of
	// groups without a connection are dropped, those that did not ask
	// lately first.
	maxStanding = 16384
)

// groupStanding is what the fair slots remember of an address group: when
// one of its connections last sent a whole request (unix ns; 0: never).
// Groups are remembered from their first slot on.
type groupStanding struct {
	lastRequest atomic.Int64
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
//
// proven says that the newcomer has sent a whole request (it claims a slot
// from probation): only such a one may take a silent connection's slot.
// Otherwise, when a silent connection is the best victim, there is none:
// the newcomer goes on probation and shows first that it asks.
func (l *limitListener) victimLocked(grp groupKey, now int64, proven bool) *countedConn {
	for peeks := 0; ; peeks++ {
		best, class := l.victimOnceLocked(grp, now, proven)
		if best == nil || class != victimSilent || !proven || peeks >= maxBumpPeeks {
			return l.markVictimLocked(best, class, proven)
		}
		// A silent connection whose whole head waits in its socket (its
		// serving goroutine has not run yet) is a prompt client, not a
		// silent one: look again without it.
		if peekReady(best.Conn) != readyHead {
			return l.markVictimLocked(best, class, proven)
		}
		best.ready.Store(readyHead)
	}
}

// markVictimLocked marks best, of class, as chosen, unless only a newcomer
// that asked may have it.
func (l *limitListener) markVictimLocked(best *countedConn, bestClass int, proven bool) *countedConn {
	if best != nil && bestClass == victimSilent && !proven {
		return nil
	}
	if best != nil {
		best.evicted = true
		best.evictedBusy = bestClass == victimOtherBusy
		best.evictedClass = bestClass
	}
	return best
}

// victimOnceLocked is one pass of victimLocked: the best candidate and its
// class.
func (l *limitListener) victimOnceLocked(grp groupKey, now int64, proven bool) (*countedConn, int) {
	// The newcomer's own connections that are closing already do not
	// count: a client that closes and reconnects at once (one connection
	// per request) finds its last connection still in the count while the
	// server finishes closing it, a moment that a loaded server stretches
	// (Close waits for the serving goroutine to let go of the socket).
	// Counted, it would make the client look like a group holding one,
	// which at an even share of one or two per group finds nothing to take.
	own := l.ownHeldLocked(grp)
	need := own + 2
	recycle := own*len(l.perGroup) < l.open // below an even share
	var best *countedConn
	var bestClass, bestSize int
	var bestSince int64
	var bestKept bool
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
		case idle && size > own && !c.requested.Load() && c.ready.Load() != readyHead && now-c.idleSince.Load() >= int64(l.staleGrace):
			class = victimSilent
		case proven && own == 0 && idle && c.requested.Load():
			// Only a newcomer with a whole request in hand: one that has
			// said nothing goes on probation first (a silent flood from
			// fresh addresses must not cycle through answered clients).
			// Only for a group that holds no slot: groups that hold some
			// keep converging to an even share by the rules above,
			// without taking each other's slots in turn.
			class = victimAskedIdle
			// Ranked by the prefix's hold, not the group's: a flood of
			// single connections from many /64s of one /48 (or many
			// addresses of one /24) loses its slots before anyone else.
			size = l.perPrefix[c.prefix]
		default:
			continue
		}
		// A busy connection is ranked by age, an idle one by how long it
		// has been idle.
		since := c.connectedAt
		if idle {
			since = c.idleSince.Load()
		}
		// kept: it was used for more than one request, as a wallet's
		// keep-alive connection is; among answered idle connections one
		// that asked once and idles, the churning flood's shape, goes
		// first.
		kept := class == victimAskedIdle && c.requests.Load() > 1
		better := best == nil
		if !better {
			switch {
			case class != bestClass:
				better = class < bestClass
			case size != bestSize:
				better = size > bestSize
			case kept != bestKept:
				better = !kept
			default:
				better = since < bestSince
			}
		}
		if better {
			best, bestClass, bestSize, bestSince, bestKept = c, class, size, since, kept
		}
	}
	return best, bestClass
}

// evict closes a connection to free its slot for another group's, at
// once: its serving goroutine, if any, sees its next read or write fail
// and its Close is then a no-op.
//
// An idle connection that asked once and was evicted for a newcomer's
// request (rule 3, the churn rule) is closed only refuseHold later, as a
// refused connection is held: its slot is free at once, its serving
// goroutine ends at once (its read deadline passes), but its client sees
// the close a second later. A flood of many addresses that reconnects as
// soon as its idle connection is closed (issue 33) otherwise keeps every
// one of its addresses in the kernel's accept queue, which a legitimate
// client's connection waits in behind them (~1,600 of 2,000 addresses,
// 300-500 ms at the accept loop's pace); held, most of them wait here,
// where they cost a descriptor and no goroutine. A connection used for
// more than one request (a wallet's keep-alive one) is closed at once.
func (c *countedConn) evict() {
	if c.closed.Swap(true) {
		return // closing already; the slot comes back with its own Close
	}
	c.releaseMemory()
	if c.evictedClass == victimAskedIdle && c.requests.Load() <= 1 && c.ln.holdEvicted(c.Conn) {
		c.ln.release(c)
		return
	}
	_ = c.Conn.Close()
	c.ln.release(c)
}

// closeUncounted closes a connection that holds no slot any more (taken
// off probation): its serving goroutine's Close is then a no-op.
func (c *countedConn) closeUncounted() {
	if !c.closed.Swap(true) {
		c.releaseMemory()
		_ = c.Conn.Close()
	}
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
	c.requests.Add(1)
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

// markLastAnswer records that the answer being written is the
// connection's last (the client or the server said "Connection: close"):
// once the handler is done, the connection's group no longer holds it
// (ownHeldLocked), even while the write and the close are still to come.
func (c *countedConn) markLastAnswer() {
	c.lastAnswer.Store(true)
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
