package txpool

import (
	"slices"
	"testing"
	"time"

	"github.com/gonero/gonero/chaindb"
	"github.com/gonero/gonero/cryptonote"
)

func byID(a, b Entry) int { return slices.Compare(a.ID[:], b.ID[:]) }

func entryIDs(es []Entry) []cryptonote.Hash {
	out := make([]cryptonote.Hash, len(es))
	for i, e := range es {
		out[i] = e.ID
	}
	return out
}

func sameIDs(a, b []cryptonote.Hash) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	cmp := func(x, y cryptonote.Hash) int { return slices.Compare(x[:], y[:]) }
	slices.SortFunc(a, cmp)
	slices.SortFunc(b, cmp)
	return slices.Equal(a, b)
}

// Changes follows tx_memory_pool::get_pool_info: the whole pool until both
// an addition and a removal were recorded before the time asked, then the
// additions and removals at or after it; private transactions and their
// removals only for a listener that may see them; a transaction that
// becomes public counts as added again; a count cap moves the rest to
// Remaining.
func TestPoolChanges(t *testing.T) {
	v := &fakeVerifier{invalid: map[cryptonote.Hash]bool{}, inChain: map[cryptonote.Hash]bool{}}
	now := time.Unix(1_800_000_000, 0)
	p := New(v, Options{Now: func() time.Time { return now }})
	add := func(opts AddOptions, fee10 byte, ki byte) cryptonote.Hash {
		t.Helper()
		tx, blob := fakeTx(fee10, 1, ki)
		if _, err := p.Add(blob, opts); err != nil {
			t.Fatal(err)
		}
		return tx.ID()
	}
	check := func(name string, since int64, private bool, max int, incremental bool, added, removed, remaining []cryptonote.Hash) {
		t.Helper()
		c := p.Changes(since, private, max, byID)
		if c.Incremental != incremental || !sameIDs(entryIDs(c.Added), added) || !sameIDs(c.Removed, removed) || !sameIDs(c.Remaining, remaining) {
			t.Errorf("%s: incremental %v added %v removed %v remaining %v; want %v %v %v %v", name, c.Incremental,
				entryIDs(c.Added), c.Removed, c.Remaining, incremental, added, removed, remaining)
		}
	}
	t0 := now.Unix()
	a := add(AddOptions{Source: SourceRPC}, 5, 1)
	hidden := add(AddOptions{Source: SourceRPC, DoNotRelay: true}, 6, 2)
	check("no removal yet", t0+1, true, -1, false, []cryptonote.Hash{a, hidden}, nil, nil)
	check("whole pool, public", 0, false, -1, false, []cryptonote.Hash{a}, nil, nil)

	now = now.Add(time.Second) // t0+1
	p.Remove([]cryptonote.Hash{a})
	check("removal at the time asked", now.Unix(), true, -1, false, []cryptonote.Hash{hidden}, nil, nil)

	now = now.Add(2 * time.Second) // t0+3
	since := now.Unix()
	b := add(AddOptions{Source: SourceP2P}, 7, 3)
	p.Remove([]cryptonote.Hash{hidden})
	check("incremental, private", since, true, -1, true, []cryptonote.Hash{b}, []cryptonote.Hash{hidden}, nil)
	check("incremental, public", since, false, -1, true, []cryptonote.Hash{b}, nil, nil)
	check("before the first removal", t0+1, true, -1, false, []cryptonote.Hash{b}, nil, nil)

	// A stem transaction is private until it is fluffed, then it is new.
	now = now.Add(5 * time.Second)
	stem := add(AddOptions{Source: SourceRPC}, 8, 4)
	p.MarkStem(stem, now.Add(time.Minute))
	now = now.Add(5 * time.Second)
	fluffed := now.Unix()
	check("stem, public", fluffed, false, -1, true, nil, nil, nil)
	p.MarkRelayed(stem)
	check("fluffed, public", fluffed, false, -1, true, []cryptonote.Hash{stem}, nil, nil)

	// The count cap.
	c := p.Changes(0, true, 1, byID)
	if len(c.Added) != 1 || len(c.Remaining) != 1 || c.Added[0].ID == c.Remaining[0] {
		t.Errorf("cap 1: added %v remaining %v", entryIDs(c.Added), c.Remaining)
	}

	// Removals older than half an hour are forgotten, and so is anything
	// before them: asking from then is no longer incremental.
	now = now.Add(31 * time.Minute)
	p.Remove([]cryptonote.Hash{b})
	check("after 31 minutes", since, true, -1, false, []cryptonote.Hash{stem}, nil, nil)
	check("recent", now.Unix(), true, -1, true, nil, []cryptonote.Hash{b}, nil)
}

// Revalidate keeps in the store the transactions it keeps in the pool.
func TestRevalidateKeepsStore(t *testing.T) {
	v := &fakeVerifier{invalid: map[cryptonote.Hash]bool{}, inChain: map[cryptonote.Hash]bool{}}
	store := &memStore{m: map[cryptonote.Hash]chaindb.PoolTxRecord{}}
	p := New(v, Options{Store: store})
	good, gb := fakeTx(5, 1, 1)
	bad, bb := fakeTx(6, 1, 2)
	for _, blob := range [][]byte{gb, bb} {
		if _, err := p.Add(blob, AddOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	v.invalid[bad.ID()] = true
	if n := p.Revalidate(); n != 1 {
		t.Fatalf("dropped %d", n)
	}
	if _, ok := store.m[good.ID()]; !ok || len(store.m) != 1 {
		t.Fatalf("store after Revalidate: %v (want only %s)", store.m, good.ID())
	}
}
