package httpd

import (
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/netip"
	"testing"
	"time"
)

// bumpByWalk is bumpVictimLocked's rule applied by a walk over every
// connection on probation (one look, no peek): what the ordered walk and
// its early stop must choose.
func bumpByWalk(l *limitListener) *countedConn {
	var best *countedConn
	for c := range l.probation {
		if c.claiming || c.closed.Load() {
			continue
		}
		if best == nil {
			best = c
			continue
		}
		r, br := c.ready.Load(), best.ready.Load()
		s, bs := l.probationPrefixes[c.prefix], l.probationPrefixes[best.prefix]
		switch {
		case r != br:
			if r < br {
				best = c
			}
		case s != bs:
			if s > bs {
				best = c
			}
		case c.connectedAt < best.connectedAt:
			best = c
		}
	}
	if best == nil || best.ready.Load() == readyHead {
		return nil
	}
	return best
}

// TestBumpVictimMatchesWalk: on random probation states (connections put
// on probation out of their accept order, from prefixes holding one to
// many places, some claiming, closed, partway through a head or with it
// whole), and as places are taken and freed, the connection bumped is the
// one the rule's full walk picks.
func TestBumpVictimMatchesWalk(t *testing.T) {
	rng := rand.New(rand.NewPCG(33, 1))
	nc, _ := net.Pipe()
	t.Cleanup(func() { nc.Close() })
	for round := range 200 {
		l := newLimitListener(nil, -1, -1, -1, 0, slog.New(slog.DiscardHandler))
		l.probationLimits.window = time.Hour
		prefixes := 1 + rng.IntN(20)
		var on []*countedConn
		for i := range 1 + rng.IntN(60) {
			ip := fmt.Sprintf("2001:db8:%x:%x::1", rng.IntN(prefixes), i)
			key := hostKeyOf(netip.MustParseAddr(ip))
			// Distinct accept times, put on probation a little out of order.
			at := int64(i*10 + rng.IntN(25))
			cc := &countedConn{Conn: nc, ln: l, key: key, group: groupOf(key), prefix: prefixOf(groupOf(key)), connectedAt: at}
			if ok, _ := l.probationLocked(cc.key, cc.group, cc); !ok {
				t.Fatalf("%s not on probation", ip)
			}
			on = append(on, cc)
		}
		for step := range 30 {
			for _, c := range on {
				if !c.onProbation {
					continue
				}
				switch rng.IntN(10) {
				case 0:
					c.claiming = true
				case 1:
					c.ready.Store(readyBytes)
				case 2:
					c.ready.Store(readyHead)
				case 3:
					c.closed.Store(true)
				}
			}
			want, got := bumpByWalk(l), l.bumpVictimLocked()
			if got != want {
				t.Fatalf("round %d step %d: bumped %v, want %v", round, step, describe(got), describe(want))
			}
			// Free a few places, the victim's among them.
			if got != nil {
				l.dropProbationLocked(got)
			}
			for _, c := range on {
				if c.onProbation && rng.IntN(8) == 0 {
					l.dropProbationLocked(c)
				}
			}
		}
		for _, c := range on {
			l.dropProbationLocked(c)
		}
		if l.probationOrder.head != nil || l.probationOrder.tail != nil || l.maxPrefixHold != 0 || len(l.probationPrefixes) != 0 {
			t.Fatalf("round %d: probation left %v %v, most held %d", round, describe(l.probationOrder.head), describe(l.probationOrder.tail), l.maxPrefixHold)
		}
	}
}

func describe(c *countedConn) string {
	if c == nil {
		return "none"
	}
	return fmt.Sprintf("%v (accepted %d, ready %d)", c.key, c.connectedAt, c.ready.Load())
}
