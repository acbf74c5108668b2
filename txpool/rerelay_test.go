package txpool

import (
	"testing"
	"time"

	"github.com/gonero/gonero/cryptonote"
)

// get_relay_delay: a step of 5 minutes per 5 minutes the transaction had
// spent in the pool at its last relay (in whole seconds, rounded down),
// 5 minutes at least, 4 hours at most.
func TestRelayDelay(t *testing.T) {
	t0 := time.Unix(1_800_000_000, 0)
	for _, c := range []struct {
		inPool, want time.Duration
	}{
		{0, 5 * time.Minute},
		{time.Second, 5 * time.Minute},
		{299 * time.Second, 5 * time.Minute},
		{300 * time.Second, 10 * time.Minute},
		{301 * time.Second, 10 * time.Minute},
		{900*time.Second + 500*time.Millisecond, 20 * time.Minute},
		{3*time.Hour + 54*time.Minute + 59*time.Second, 3*time.Hour + 55*time.Minute},
		{3*time.Hour + 55*time.Minute, 4 * time.Hour},
		{100 * time.Hour, 4 * time.Hour},
	} {
		if got := relayDelay(t0.Add(c.inPool), t0); got != c.want {
			t.Errorf("relayed %v after it came: next relay %v later, want %v", c.inPool, got, c.want)
		}
	}
}

// The relay pass through the pool's clock: a transaction never relayed is
// not due (as in monerod); once relayed, each relay waits relayDelay since
// the last one (due only once more than that has passed), and RelayDue
// records the relay.
func TestRelayDueBacksOff(t *testing.T) {
	v := &fakeVerifier{invalid: map[cryptonote.Hash]bool{}, inChain: map[cryptonote.Hash]bool{}}
	t0 := time.Unix(1_800_000_000, 0)
	now := t0
	p := New(v, Options{Now: func() time.Time { return now }})
	_, fluffBlob := fakeTx(2, 1, 1)
	fluffed, err := p.Add(fluffBlob, AddOptions{Source: SourceP2P})
	if err != nil {
		t.Fatal(err)
	}
	_, ownBlob := fakeTx(1, 1, 2)
	own, err := p.Add(ownBlob, AddOptions{Source: SourceRPC})
	if err != nil {
		t.Fatal(err)
	}
	pass := func(wantLocal, wantPublic []*Entry) {
		t.Helper()
		local, public := p.RelayDue()
		if !same(local, wantLocal) || !same(public, wantPublic) {
			t.Fatalf("at t0+%v: local %v public %v, want %v and %v", now.Sub(t0), ids(local), ids(public), ids(wantLocal), ids(wantPublic))
		}
		for _, e := range append(local, public...) {
			if got := p.Snapshot(); len(got) == 0 || !lastRelayed(got, e.ID).Equal(now) {
				t.Fatalf("at t0+%v: %x not recorded relayed now", now.Sub(t0), e.ID[:4])
			}
		}
	}
	// Never relayed: neither is due (monerod's set_relayed has not run).
	pass(nil, nil)
	// Both relayed at t0; the own one stays the node's own, not public.
	p.mu.Lock()
	own.LastRelayed, fluffed.LastRelayed = t0, t0
	p.unlock()
	pass(nil, nil) // just relayed
	// The fluffed one is fluffed by a peer's handler (MarkRelayed) at
	// t0+10s; the own one stays as the pass left it (t0).
	now = t0.Add(10 * time.Second)
	p.MarkRelayed(fluffed.ID)
	now = t0.Add(5 * time.Minute)
	pass(nil, nil) // exactly the delay: not yet
	now = now.Add(time.Second)
	pass([]*Entry{own}, nil) // t0+301: 301 > 300
	now = t0.Add(10*time.Second + 5*time.Minute)
	pass(nil, nil)
	now = now.Add(time.Second)
	pass(nil, []*Entry{fluffed}) // 10 s after it came + 5 min + 1 s
	// The own one was last relayed 301 s after it came: 10 minutes now.
	now = t0.Add(301*time.Second + 10*time.Minute)
	pass(nil, nil)
	now = now.Add(time.Second)
	pass([]*Entry{own}, nil) // t0+902
	// Then 20 minutes ((902 + 300) / 300 · 300 s).
	now = t0.Add(902*time.Second + 20*time.Minute)
	pass(nil, []*Entry{fluffed}) // its own back-off: 10 min since t0+311
	now = now.Add(time.Second)
	pass([]*Entry{own}, nil)
}

// Which entries the pass considers, and the cap and the age limits.
func TestRelayDueRules(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	ago := func(d time.Duration) time.Time { return now.Add(-d) }
	fluff := func(received, last time.Time) *Entry {
		return &Entry{Fee: 10, Source: SourceP2P, Broadcasted: true, Relayed: !last.IsZero(), Received: received, LastRelayed: last}
	}
	block := func(received, last time.Time) *Entry {
		e := fluff(received, last)
		e.Source, e.KeptByBlock = SourceBlock, true
		return e
	}
	halfLive, halfFromBlock := Livetime/2, FromBlockLive/2 // 1.5 and 3.5 days
	for _, c := range []struct {
		name       string
		e          *Entry
		due, local bool
	}{
		{"fluffed, never relayed", fluff(ago(time.Hour), time.Time{}), false, false},
		{"own, never relayed", &Entry{Fee: 10, Source: SourceRPC, Received: ago(time.Hour)}, false, false},
		{"own, relayed an hour ago", &Entry{Fee: 10, Source: SourceRPC, Received: ago(time.Hour), LastRelayed: ago(time.Hour)}, true, true},
		{"reloaded after a restart, never relayed since", &Entry{Fee: 10, Source: SourceRPC, Broadcasted: true, Relayed: true, reloaded: true, Received: ago(time.Hour)}, true, false},
		{"own, fluffed", &Entry{Fee: 10, Source: SourceRPC, Broadcasted: true, Received: ago(time.Hour), LastRelayed: ago(time.Hour)}, true, false},
		{"from a block, never relayed", block(ago(time.Hour), time.Time{}), false, false},
		{"zero fee", &Entry{Source: SourceP2P, Broadcasted: true, Received: ago(time.Hour)}, false, false},
		{"own, zero fee", &Entry{Source: SourceRPC, Received: ago(time.Hour)}, false, false},
		{"do_not_relay", &Entry{Fee: 10, Source: SourceRPC, DoNotRelay: true, Received: ago(time.Hour)}, false, false},
		{"stem phase", &Entry{Fee: 10, Source: SourceP2P, Stem: true, Relayed: true, Received: ago(time.Hour), LastRelayed: ago(time.Hour)}, false, false},
		{"own, stem phase", &Entry{Fee: 10, Source: SourceRPC, Stem: true, Relayed: true, Received: ago(time.Hour), LastRelayed: ago(time.Hour)}, false, false},
		{"own, stem phase, fluffed before", &Entry{Fee: 10, Source: SourceRPC, Stem: true, Broadcasted: true, Received: ago(time.Hour)}, false, false},
		{"a peer's, not yet handed on", &Entry{Fee: 10, Source: SourceP2P, ArrivedOnStem: true, Received: ago(time.Hour)}, false, false},
		// The cap: 10 hours in the pool at its last relay, 4 hours wait.
		{"4 h since the last relay", fluff(ago(14*time.Hour), ago(4*time.Hour)), false, false},
		{"4 h 1 s since the last relay", fluff(ago(14*time.Hour), ago(4*time.Hour+time.Second)), true, false},
		// Half the lifetime: 1.5 days, 3.5 for one from a block.
		{"fluffed, half its lifetime old", fluff(ago(halfLive), ago(5*time.Hour)), true, false},
		{"fluffed, older than half its lifetime", fluff(ago(halfLive+time.Second), ago(5*time.Hour)), false, false},
		{"fluffed, never relayed, older than half its lifetime", fluff(ago(halfLive+time.Second), time.Time{}), false, false},
		{"from a block, older than half a fluffed one's lifetime", block(ago(halfLive+time.Second), ago(5*time.Hour)), true, false},
		{"from a block, half its lifetime old", block(ago(halfFromBlock), ago(5*time.Hour)), true, false},
		{"from a block, older than half its lifetime", block(ago(halfFromBlock+time.Second), ago(5*time.Hour)), false, false},
		{"own, older than half its lifetime", &Entry{Fee: 10, Source: SourceRPC, Received: ago(halfLive + time.Second), LastRelayed: ago(5 * time.Hour)}, false, false},
	} {
		if due, local := c.e.relayDue(now); due != c.due || local != c.local {
			t.Errorf("%s: due %v local %v, want %v %v", c.name, due, local, c.due, c.local)
		}
	}
	if Livetime != 3*24*time.Hour || FromBlockLive != 7*24*time.Hour {
		t.Fatal("the lifetimes are monerod's CRYPTONOTE_MEMPOOL_TX_LIVETIME and _FROM_ALT_BLOCK_LIVETIME")
	}
}

// A pool's RelayDue leaves out what relayDue leaves out: zero fee,
// do_not_relay, the stem phase; an entry the embargo fluffed is due again
// only after its back-off.
func TestRelayDueSkips(t *testing.T) {
	v := &fakeVerifier{invalid: map[cryptonote.Hash]bool{}, inChain: map[cryptonote.Hash]bool{}}
	t0 := time.Unix(1_800_000_000, 0)
	now := t0
	p := New(v, Options{Now: func() time.Time { return now }})
	add := func(fee10, ki byte, opts AddOptions) *Entry {
		t.Helper()
		_, blob := fakeTx(fee10, 1, ki)
		e, err := p.Add(blob, opts)
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	add(0, 1, AddOptions{Source: SourceP2P})
	add(1, 2, AddOptions{Source: SourceRPC, DoNotRelay: true})
	stem := add(1, 3, AddOptions{Source: SourceP2P, Stem: true})
	p.MarkStem(stem.ID, t0.Add(time.Minute))
	now = t0.Add(time.Hour)
	if local, public := p.RelayDue(); len(local)+len(public) != 0 {
		t.Fatalf("relayed again: local %v public %v", ids(local), ids(public))
	}
	if out := p.EmbargoExpired(); len(out) != 1 || out[0] != stem {
		t.Fatalf("embargo: %v", ids(out))
	}
	// Fluffed an hour after it came: its next relay 65 minutes later.
	now = now.Add(65 * time.Minute)
	if local, public := p.RelayDue(); len(local)+len(public) != 0 {
		t.Fatalf("relayed again before the back-off: local %v public %v", ids(local), ids(public))
	}
	now = now.Add(time.Second)
	if local, public := p.RelayDue(); len(local) != 0 || !same(public, []*Entry{stem}) {
		t.Fatalf("after the back-off: local %v public %v, want the fluffed one public", ids(local), ids(public))
	}
}

func same(a, b []*Entry) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func lastRelayed(es []Entry, id cryptonote.Hash) time.Time {
	for _, e := range es {
		if e.ID == id {
			return e.LastRelayed
		}
	}
	return time.Time{}
}
