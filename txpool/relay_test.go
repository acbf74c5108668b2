package txpool

import (
	"errors"
	"testing"
	"time"

	"github.com/gonero/gonero/cryptonote"
	"github.com/gonero/gonero/internal/testutil"
)

// acceptAll is a Verifier that takes every transaction.
type acceptAll struct{}

func (acceptAll) CheckPoolTx(tx *cryptonote.Transaction, id cryptonote.Hash, blob []byte, keptByBlock bool, inPool func(cryptonote.Key) bool) (uint64, uint64, error) {
	return 1000, uint64(len(blob)), nil
}
func (acceptAll) HasTx(cryptonote.Hash) bool { return false }

// The Dandelion++ relay state only moves forward: stem, then fluffed (by
// a peer's fluff or the embargo); a stem-phase or do-not-relay entry is not
// public; a second Add returns the entry already there.
func TestRelayState(t *testing.T) {
	now := time.Unix(1_000_000, 0)
	p := New(acceptAll{}, Options{Now: func() time.Time { return now }})
	blob := testutil.WalletTx(t, "2-transfer.jsonl", 14)
	e, err := p.Add(blob, AddOptions{Source: SourceP2P})
	if err != nil {
		t.Fatal(err)
	}
	if again, err := p.Add(blob, AddOptions{Source: SourceP2P}); !errors.Is(err, ErrAlreadyInPool) || again != e {
		t.Fatalf("second Add: %v, %p (want the entry %p)", err, again, e)
	}
	if _, ok := p.Public(e.ID); !ok {
		t.Fatal("a new entry that is not do-not-relay is public")
	}

	p.MarkStem(e.ID, now.Add(39*time.Second))
	if in, stem := p.StemPhase(e.ID); !in || !stem {
		t.Fatalf("after MarkStem: in pool %v, stem %v", in, stem)
	}
	if _, ok := p.Public(e.ID); ok || len(p.PublicEntries()) != 0 {
		t.Fatal("a stem-phase entry is public")
	}
	if out := p.EmbargoExpired(); len(out) != 0 {
		t.Fatalf("%d entries fluffed before the embargo ran out", len(out))
	}
	now = now.Add(39 * time.Second)
	if out := p.EmbargoExpired(); len(out) != 1 || out[0] != e {
		t.Fatalf("embargo over: %d entries to fluff, want the stem one", len(out))
	}
	if _, stem := p.StemPhase(e.ID); stem {
		t.Fatal("still stem after the embargo")
	}
	// Fluffed is final: a later MarkStem does not go back.
	p.MarkStem(e.ID, now.Add(time.Hour))
	if _, stem := p.StemPhase(e.ID); stem {
		t.Fatal("a fluffed entry went back to the stem phase")
	}
	if out := p.EmbargoExpired(); len(out) != 0 {
		t.Fatal("a fluffed entry fluffed again")
	}

	q := New(acceptAll{}, Options{Now: func() time.Time { return now }})
	d, err := q.Add(blob, AddOptions{Source: SourceRPC, DoNotRelay: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := q.Public(d.ID); ok || len(q.PublicEntries()) != 0 {
		t.Fatal("a do-not-relay entry is public")
	}
	q.MarkStem(d.ID, now)
	q.MarkRelayed(d.ID)
	if _, stem := q.StemPhase(d.ID); stem {
		t.Fatal("MarkRelayed leaves the stem phase")
	}
}
