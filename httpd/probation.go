package httpd

import (
	"bytes"
	"time"
)

// Probation: a place at the cap earned by asking.
//
// The silent rule (fairslots.go) gives a newcomer the slot of a connection
// that has sent no whole request for staleGrace. Applied at accept, it
// cannot tell a client from the flood: a connection refused or admitted
// there has not said a word yet. gonero first let any group that was not
// seen lately, or had asked lately, apply it at accept. That handed every
// attacker address one free eviction (a public IPv6 /48 holds 65,536
// groups), and an attacker that asked one cheap question per address kept
// its standing for ten minutes: its newcomers replaced each silent
// connection with a new silent one as soon as it went stale, before a real
// client got there (bench/abuse.sh: 93.6 % and 97.4 % for the legitimate
// client under the reconnecting slowloris flood).
//
// So the silent rule is applied only to a connection that has asked. A
// connection that finds the cap full, when no other rule frees a slot for
// it at once, is not refused but put on probation: it is handed to the HTTP
// server outside the cap (it holds no slot and counts in no group) and must
// send a whole request within probationWindow, or it is closed. Its first
// request then claims a slot by every rule, the silent one included,
// waiting up to claimWait for a silent connection to go stale; if none
// comes, the connection is closed without an answer, as a refused one is.
// An idle or slowloris flood never sends a whole request, so its probation
// connections only ever expire, and its connections in slots, unable to
// take each other's, go stale for the clients that ask.
//
// At most maxProbation connections are on probation, one per group; a
// newcomer that finds them all taken closes the one on probation longest
// (it had the most time to ask), so that a flood of new groups cannot keep
// a real client out of probation itself. monerod's per-IP limits count
// connections on probation.

const (
	// probationWindow: how long a connection on probation may take to
	// send its first whole request.
	probationWindow = time.Second
	// claimWait bounds how long a request on probation waits for a slot:
	// long enough for any silent connection to go stale.
	claimWait = defaultStaleGrace + 250*time.Millisecond
	// claimPoll: how often a waiting claim looks again (silent
	// connections go stale with time, not with an event).
	claimPoll = 20 * time.Millisecond
	// maxProbation bounds the connections on probation per listener.
	maxProbation = 256
)

// probationLimits are the above, per listener (tests shorten them).
type probationLimits struct {
	window, claimWait time.Duration
	max               int
}

var defaultProbation = probationLimits{window: probationWindow, claimWait: claimWait, max: maxProbation}

// probationLocked puts cc on probation unless its group has a connection
// on probation already. It takes the place of the connection on probation
// longest when all places are taken, returning that one for the caller to
// close outside the lock.
func (l *limitListener) probationLocked(key hostKey, grp groupKey, cc *countedConn) (ok bool, bumped *countedConn) {
	if cc == nil || l.probationGroups[grp] {
		return false, nil
	}
	if len(l.probation) >= l.probationLimits.max {
		if bumped = l.bumpVictimLocked(); bumped == nil {
			return false, nil // every one is claiming: refused
		}
		l.dropProbationLocked(bumped)
	}
	cc.onProbation = true
	cc.probationPending.Store(true)
	l.probation[cc] = struct{}{}
	l.probationGroups[grp] = true
	l.probationOrder.insert(cc)
	n := l.probationPrefixes[cc.prefix] + 1
	l.probationPrefixes[cc.prefix] = n
	l.holdingMovedLocked(n-1, n)
	l.perHost[key]++
	cc.probationTimer = time.AfterFunc(l.probationLimits.window, func() { l.expireProbation(cc) })
	return true, bumped
}

// ownHeldLocked is how many connections grp holds, those closing aside:
// closed or evicted and not yet released, or done with their last answer
// (a client that makes a new connection for each request reconnects as
// soon as it has read its answer; a loaded server may not yet have
// finished the write, let alone the close, and the client must not look
// like a group that holds one).
func (l *limitListener) ownHeldLocked(grp groupKey) int {
	own := l.perGroup[grp]
	if own > 0 {
		for c := range l.conns {
			if c.group == grp && (c.evicted || c.closed.Load() || c.lastAnswer.Load() && c.state.Load() == connWriting) {
				own--
			}
		}
	}
	return own
}

// dropProbationLocked takes cc off probation and out of the counts; its
// connection is closed by the caller (its Close then releases nothing).
func (l *limitListener) dropProbationLocked(cc *countedConn) {
	if !cc.onProbation {
		return
	}
	cc.onProbation = false
	delete(l.probation, cc)
	delete(l.probationGroups, cc.group)
	l.probationOrder.remove(cc)
	n := l.probationPrefixes[cc.prefix] - 1
	if n > 0 {
		l.probationPrefixes[cc.prefix] = n
	} else {
		delete(l.probationPrefixes, cc.prefix)
	}
	l.holdingMovedLocked(n+1, n)
	if n := l.perHost[cc.key] - 1; n > 0 {
		l.perHost[cc.key] = n
	} else {
		delete(l.perHost, cc.key)
	}
	if cc.probationTimer != nil {
		cc.probationTimer.Stop()
	}
}

// expireProbation closes cc if it is still on probation without a whole
// request when its window ends.
func (l *limitListener) expireProbation(cc *countedConn) {
	l.mu.Lock()
	expire := cc.onProbation && !cc.claiming
	if expire {
		l.dropProbationLocked(cc)
	}
	l.mu.Unlock()
	if expire {
		l.guard.probationExpired.Add(1)
		cc.closeUncounted()
	}
}

// claim is called with cc's first whole request: a connection that is not
// on probation holds its slot already; one on probation gets a slot now
// or within claimWait (see above), or false: the caller closes it
// without an answer.
func (cc *countedConn) claim() bool {
	l := cc.ln
	if !cc.probationPending.Load() {
		return true // admitted at accept: the one load on every request
	}
	l.mu.Lock()
	if !cc.onProbation {
		// Admitted at accept, or dropped from probation (expired,
		// bumped, shut down) while its request came in.
		counted := cc.counted
		l.mu.Unlock()
		return counted
	}
	cc.claiming = true
	// The request is in: the group has asked, which is the standing the
	// silent rule wants.
	st := l.standingLocked(cc.group)
	st.lastRequest.Store(time.Now().UnixNano())
	wait := l.probationLimits.claimWait
	l.mu.Unlock()

	deadline := time.Now().Add(wait)
	for {
		victim, ok, gone := l.claimOnce(cc)
		if victim != nil {
			l.evicted(victim, cc)
		}
		if ok {
			l.guard.probationAdmitted.Add(1)
			return true
		}
		if gone || !time.Now().Before(deadline) {
			break
		}
		time.Sleep(claimPoll)
	}
	l.mu.Lock()
	l.dropProbationLocked(cc)
	l.refused++
	l.mu.Unlock()
	l.guard.refusedTotal.Add(1)
	l.guard.pressure()
	return false
}

// claimOnce tries once to move cc from probation into a slot, freeing one
// by the fair-slot rules if need be; it returns the connection to close
// for it, if any, and gone when cc is no longer on probation (closed,
// Shutdown): there is nothing to wait for.
func (l *limitListener) claimOnce(cc *countedConn) (victim *countedConn, ok, gone bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !cc.onProbation {
		return nil, false, true
	}
	if l.maxTotal >= 0 && l.open >= l.maxTotal {
		victim = l.victimLocked(cc.group, time.Now().UnixNano(), true)
		if victim == nil {
			return nil, false, false
		}
		// The victim's slot is cc's from here: victim.evict (outside the
		// lock) closes it without giving the slot back twice.
		l.releaseLocked(victim)
	}
	l.dropProbationLocked(cc)
	if reason := l.admitLocked(cc.key, cc.group, cc); reason != "" {
		return victim, false, true // cannot happen: the slot and the host's place were just given back
	}
	cc.standing = l.standingLocked(cc.group)
	// Not a silent victim in the moment before its handler says so (its
	// handler's markServing counts the request).
	cc.requested.Store(true)
	cc.state.Store(connServing)
	cc.probationPending.Store(false)
	return victim, true, false
}

// How far a connection on probation has come with its first request.
const (
	readyNone  int32 = iota // nothing sent
	readyBytes              // some bytes, the head not whole yet
	readyHead               // the whole head (a GET's whole request)
)

// maxBumpPeeks bounds the connections on probation looked at for buffered
// bytes per newcomer that bumps one (a syscall each).
const maxBumpPeeks = 4

// headEnd ends an HTTP request head.
var headEnd = []byte("\r\n\r\n")

// noteRead records what the serving goroutine read of cc's first request
// while it is on probation.
func (cc *countedConn) noteRead(p []byte) {
	var joined [6]byte
	k := copy(joined[:], cc.headTail[:])
	k += copy(joined[k:], p)
	if bytes.Contains(joined[:k], headEnd) || bytes.Contains(p, headEnd) {
		cc.ready.Store(readyHead)
		return
	}
	cc.ready.CompareAndSwap(readyNone, readyBytes)
	if len(p) >= 3 {
		copy(cc.headTail[:], p[len(p)-3:])
	} else {
		copy(cc.headTail[:], joined[k-3:k])
	}
}

// bumpVictimLocked picks the connection on probation to close for a
// newcomer when every place is taken, or nil: the newcomer is refused. A
// connection whose request is in (claiming), or whose whole head is in
// (read by the server, or waiting in the socket: a prompt client whose
// serving goroutine has not run yet), is never bumped: a newcomer that
// has shown nothing yet does not go before a request that is there. Of
// the others, one that has sent nothing goes first, then one that sent
// part of a head (slowloris); within each, the one of the prefix holding
// the most places (a flood from one /48 or /24 bumps itself), then the
// oldest (it had the most time to ask). So a flood of new addresses, from
// however many prefixes, that does not send whole requests at once cycles
// through its own places and never through a client that asked at once.
//
// The connections are walked oldest first, and the walk stops at the
// first that has sent nothing and is of a prefix holding the most places:
// none after it can go before it. Under a flood that is the first few;
// the whole walk is left only for when the prefixes holding the most are
// all claiming or partway through a head.
func (l *limitListener) bumpVictimLocked() *countedConn {
	for peeks := 0; ; peeks++ {
		var best *countedConn
		var bestReady int32
		var bestSize int
		for c := l.probationOrder.head; c != nil; c = c.probationNext {
			if c.claiming || c.closed.Load() {
				continue
			}
			ready := c.ready.Load()
			size := l.probationPrefixes[c.prefix]
			better := best == nil
			if !better {
				switch {
				case ready != bestReady:
					better = ready < bestReady
				case size != bestSize:
					better = size > bestSize
				default:
					better = c.connectedAt < best.connectedAt
				}
			}
			if better {
				best, bestReady, bestSize = c, ready, size
				if ready == readyNone && size == l.maxPrefixHold {
					break // the best there can be: the rest are younger
				}
			}
		}
		if best == nil || bestReady == readyHead {
			return nil
		}
		if peeks >= maxBumpPeeks {
			return best
		}
		got := peekReady(best.Conn)
		if got <= bestReady {
			return best
		}
		best.ready.Store(got) // its request is on the way: look again
	}
}

// holdingMovedLocked records that a prefix's places on probation went from
// was to now (one more or one less), for maxPrefixHold.
func (l *limitListener) holdingMovedLocked(was, now int) {
	if was > 0 {
		l.prefixHolding[was]--
	}
	if now > 0 {
		for len(l.prefixHolding) <= now {
			l.prefixHolding = append(l.prefixHolding, 0)
		}
		l.prefixHolding[now]++
	}
	l.maxPrefixHold = max(l.maxPrefixHold, now)
	for l.maxPrefixHold > 0 && l.prefixHolding[l.maxPrefixHold] == 0 {
		l.maxPrefixHold--
	}
}

// probationList is the connections on probation in connectedAt order,
// linked through their probationPrev and probationNext.
type probationList struct{ head, tail *countedConn }

// insert puts cc in its place: at the tail but for a connection accepted
// before the last ones put on probation, which goes a few places up.
func (pl *probationList) insert(cc *countedConn) {
	after := pl.tail
	for after != nil && after.connectedAt > cc.connectedAt {
		after = after.probationPrev
	}
	cc.probationPrev = after
	if after == nil {
		cc.probationNext = pl.head
		pl.head = cc
	} else {
		cc.probationNext = after.probationNext
		after.probationNext = cc
	}
	if cc.probationNext == nil {
		pl.tail = cc
	} else {
		cc.probationNext.probationPrev = cc
	}
}

func (pl *probationList) remove(cc *countedConn) {
	if cc.probationPrev == nil {
		pl.head = cc.probationNext
	} else {
		cc.probationPrev.probationNext = cc.probationNext
	}
	if cc.probationNext == nil {
		pl.tail = cc.probationPrev
	} else {
		cc.probationNext.probationPrev = cc.probationPrev
	}
	cc.probationPrev, cc.probationNext = nil, nil
}
