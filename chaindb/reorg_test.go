package chaindb

import (
	"errors"
	"fmt"
	"testing"

	"github.com/gonero/gonero/cryptonote"
)

// Two synthetic branches forking at height forkAt of the base chain: the
// base chain's blocks below it, then branch seed's own blocks, the first
// linked to the base.
const (
	seedBase = 42
	forkAt   = 5
)

func branchBlock(seed, h uint64) BlockRecord {
	if h < forkAt {
		return synthBlock(seedBase, h)
	}
	rec := synthBlock(seed, h)
	if h == forkAt {
		rec.Meta.PrevHash = synthHash(seedBase, forkAt-1)
	}
	return rec
}

func branchRange(seed, from, to uint64) []BlockRecord {
	var recs []BlockRecord
	for h := from; h < to; h++ {
		recs = append(recs, branchBlock(seed, h))
	}
	return recs
}

func hashesOf(recs []BlockRecord) []cryptonote.Hash {
	var hs []cryptonote.Hash
	for _, r := range recs {
		hs = append(hs, r.Meta.Hash)
	}
	return hs
}

// checkBranches verifies that the main chain is the base plus nMain blocks
// of branch main, and that the alternative blocks are exactly nAlt blocks of
// branch alt (from the fork), each stored whole.
func checkBranches(t testing.TB, db *DB, main, alt, nMain, nAlt uint64) {
	t.Helper()
	if h := checkConsistent(t, db); h != forkAt+nMain {
		t.Fatalf("height %d, want %d", h, forkAt+nMain)
	}
	err := db.View(func(r *Reader) error {
		for h := uint64(0); h < forkAt+nMain; h++ {
			got, err := readRecord(r, h)
			if err != nil {
				return err
			}
			if d := sameRecord(got, branchBlock(main, h)); d != "" {
				return fmt.Errorf("main height %d: %s", h, d)
			}
		}
		count, err := r.AltBlockCount()
		if err != nil {
			return err
		}
		if count != nAlt {
			return fmt.Errorf("%d alternative blocks, want %d", count, nAlt)
		}
		for h := uint64(forkAt); h < forkAt+nAlt; h++ {
			want := branchBlock(alt, h)
			got, err := r.AltBlock(want.Meta.Hash)
			if err != nil {
				return err
			}
			if d := sameRecord(got, want); d != "" {
				return fmt.Errorf("alt height %d: %s", h, d)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// A reorganisation pops the main blocks above the fork into the alternative
// blocks and appends the other branch, in one call; the reverse switch
// brings the first branch back, each block exactly as stored.
func TestReorganizeSwitchesBranches(t *testing.T) {
	db, _ := openTemp(t)
	const x, y = 100, 200
	for _, rec := range branchRange(x, 0, forkAt+4) {
		if err := db.Append(rec); err != nil {
			t.Fatal(err)
		}
	}
	// Y's first two blocks arrive as alternatives, then the switch.
	for _, rec := range branchRange(y, forkAt, forkAt+2) {
		if err := db.PutAltBlock(rec); err != nil {
			t.Fatal(err)
		}
	}
	popped, err := db.Reorganize(Reorg{Pop: 4, KeepPopped: true,
		DeleteAlts: hashesOf(branchRange(y, forkAt, forkAt+2)), Append: branchRange(y, forkAt, forkAt+6)})
	if err != nil {
		t.Fatal(err)
	}
	if len(popped) != 4 {
		t.Fatalf("%d popped", len(popped))
	}
	for i, p := range popped {
		if d := sameRecord(p, branchBlock(x, forkAt+uint64(i))); d != "" {
			t.Fatalf("popped %d: %s", i, d)
		}
	}
	checkBranches(t, db, y, x, 6, 4)

	_, err = db.Reorganize(Reorg{Pop: 6, KeepPopped: true,
		DeleteAlts: hashesOf(branchRange(x, forkAt, forkAt+4)), Append: branchRange(x, forkAt, forkAt+7)})
	if err != nil {
		t.Fatal(err)
	}
	checkBranches(t, db, x, y, 7, 6)
}

// A reorganisation that fails at any step leaves the store exactly as it was.
func TestReorganizeRefusalsLeaveStoreUnchanged(t *testing.T) {
	db, _ := openTemp(t)
	const x, y = 100, 200
	for _, rec := range branchRange(x, 0, forkAt+4) {
		if err := db.Append(rec); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.PutAltBlock(branchBlock(y, forkAt)); err != nil {
		t.Fatal(err)
	}
	badLink := branchRange(y, forkAt, forkAt+6)
	badLink[4].Meta.PrevHash[0] ^= 1
	dupTx := branchRange(y, forkAt, forkAt+6)
	var withTxs []int
	for i := range dupTx {
		if len(dupTx[i].Txs) > 0 {
			withTxs = append(withTxs, i)
		}
	}
	if len(withTxs) < 2 {
		t.Fatal("the synthetic branch has fewer than two blocks with txs; pick another seed")
	}
	dupTx[withTxs[1]].Txs[0] = dupTx[withTxs[0]].Txs[0]
	cases := []struct {
		name string
		r    Reorg
		want any
	}{
		{"last appended block does not link", Reorg{Pop: 4, KeepPopped: true, Append: badLink}, new(*ErrPrevMismatch)},
		{"appended blocks repeat a tx", Reorg{Pop: 4, Append: dupTx}, new(*ErrDuplicateTx)},
		{"deleting an alt block that is not stored", Reorg{Pop: 4, DeleteAlts: []cryptonote.Hash{synthHash(y, 9)}, Append: branchRange(y, forkAt, forkAt+6)}, ErrNotFound},
		{"appending at the wrong height", Reorg{Pop: 3, Append: branchRange(y, forkAt, forkAt+6)}, new(*ErrHeightMismatch)},
		{"popping the genesis block", Reorg{Pop: forkAt + 4}, nil},
		{"popping more than the chain", Reorg{Pop: 100}, nil},
	}
	before := dump(t, db)
	for _, tc := range cases {
		_, err := db.Reorganize(tc.r)
		if err == nil {
			t.Fatalf("%s: accepted", tc.name)
		}
		switch w := tc.want.(type) {
		case error:
			if !errors.Is(err, w) {
				t.Errorf("%s: %v, want %v", tc.name, err, w)
			}
		case nil:
		default:
			if !errors.As(err, w) {
				t.Errorf("%s: %v, want %T", tc.name, err, w)
			}
		}
		sameDump(t, tc.name, before, dump(t, db))
	}
	checkBranches(t, db, x, y, 4, 1)
}
