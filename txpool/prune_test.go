package txpool

import (
	"bytes"
	"testing"
	"time"

	"github.com/gonero/gonero/chaindb"
	"github.com/gonero/gonero/cryptonote"
)

// The weight limit as tx_memory_pool::prune applies it: after each
// addition, the worst payers per weight go first, the later one first
// among equal payers received in the same second only by id; an entry kept
// by block is never pruned, nor the best entry, even when the pool stays
// over its limit.
func TestPruneFollowsMonerod(t *testing.T) {
	v := &fakeVerifier{invalid: map[cryptonote.Hash]bool{}, inChain: map[cryptonote.Hash]bool{}}
	now := time.Unix(1_800_000_000, 0)
	p := New(v, Options{MaxWeight: 500, Now: func() time.Time { return now }})
	add := func(blob []byte, src Source) {
		t.Helper()
		if _, err := p.Add(blob, AddOptions{Source: src}); err != nil {
			t.Fatal(err)
		}
	}
	// Kept by block and the worst payer: it stays whatever comes.
	kept, keptBlob := fakeTx(1, 2, 1) // 10 per 200
	add(keptBlob, SourceBlock)
	// Two equal payers in the same second: the greater id goes first.
	x, xb := fakeTx(4, 2, 2) // 40 per 200
	y, yb := fakeTx(4, 2, 3)
	add(xb, SourceRPC)
	add(yb, SourceRPC) // 600 > 500: one of x, y goes
	low, high := x, y
	if xid, yid := x.ID(), y.ID(); bytes.Compare(xid[:], yid[:]) > 0 {
		low, high = y, x
	}
	if !p.Has(kept.ID()) || !p.Has(low.ID()) || p.Has(high.ID()) || p.Weight() != 400 {
		t.Fatalf("after an equal payer: kept %v, lower id %v, greater id %v, weight %d",
			p.Has(kept.ID()), p.Has(low.ID()), p.Has(high.ID()), p.Weight())
	}
	// Equal payers a second apart: the later one goes, whatever its id.
	now = now.Add(time.Second)
	z, zb := fakeTx(4, 2, 4)
	add(zb, SourceRPC)
	if !p.Has(low.ID()) || p.Has(z.ID()) {
		t.Fatalf("the later equal payer stayed (%v) or the earlier left (%v)", p.Has(z.ID()), !p.Has(low.ID()))
	}
	// A heavy best payer alone over the limit with the kept one: nothing
	// else can go, so the pool stays over its limit.
	big, bigb := fakeTx(200, 9, 5) // 2000 per 900
	add(bigb, SourceRPC)
	if !p.Has(big.ID()) || !p.Has(kept.ID()) || p.Has(low.ID()) || p.Weight() != 1100 {
		t.Fatalf("heavy best payer: big %v kept %v low %v weight %d", p.Has(big.ID()), p.Has(kept.ID()), p.Has(low.ID()), p.Weight())
	}
}

// A stored pool over a lowered limit loads whole (tx_memory_pool::init
// does not prune); the next addition prunes it.
func TestLoadDoesNotPrune(t *testing.T) {
	v := &fakeVerifier{invalid: map[cryptonote.Hash]bool{}, inChain: map[cryptonote.Hash]bool{}}
	store := &memStore{m: map[cryptonote.Hash]chaindb.PoolTxRecord{}}
	now := time.Unix(1_800_000_000, 0)
	big := New(v, Options{Store: store, Now: func() time.Time { return now }})
	for i := byte(1); i <= 4; i++ {
		_, b := fakeTx(i, 2, i)
		if _, err := big.Add(b, AddOptions{Source: SourceRPC}); err != nil {
			t.Fatal(err)
		}
	}
	var recs []chaindb.PoolTxRecord
	for _, r := range store.m {
		recs = append(recs, r)
	}
	small := New(v, Options{MaxWeight: 300, Now: func() time.Time { return now }})
	if kept := small.Load(recs); kept != 4 || small.Weight() != 800 {
		t.Fatalf("loaded %d, weight %d: want 4 and 800", kept, small.Weight())
	}
	_, b := fakeTx(9, 1, 9)
	if _, err := small.Add(b, AddOptions{Source: SourceRPC}); err != nil {
		t.Fatal(err)
	}
	if small.Weight() > 300 || small.Len() != 2 {
		t.Fatalf("after an addition: %d entries weighing %d", small.Len(), small.Weight())
	}
}
