package chaindb

import (
	"errors"
	"testing"

	"github.com/gonero/gonero/cryptonote"
)

// withTxHashes is rec with its miner tx hash and tx hashes replaced (the
// store takes a record's hashes as given; the block blob lists the new
// ones).
func withTxHashes(t *testing.T, rec BlockRecord, miner cryptonote.Hash, txs ...cryptonote.Hash) BlockRecord {
	t.Helper()
	blk, err := cryptonote.ParseBlock(rec.Blob)
	if err != nil {
		t.Fatal(err)
	}
	rec.Txs = append([]TxRecord(nil), rec.Txs...)
	for i := range min(len(txs), len(rec.Txs)) {
		blk.TxHashes[i] = txs[i]
		rec.Txs[i].Hash = txs[i]
	}
	rec.Blob = blk.Serialize()
	rec.Meta.BlobSize = uint64(len(rec.Blob))
	rec.Meta.MinerTxHash = miner
	return rec
}

// TestTxIndexSharingAPrefix appends txs, and a miner tx, whose hashes
// share their first 8 bytes (the tx_index key) with a tx the chain has,
// two of them in one block: each is found where it is, with its own output
// indexes, a hash of the prefix that no tx has is not found, a tx of a
// taken hash is refused, and popping the blocks restores the store byte
// for byte.
func TestTxIndexSharingAPrefix(t *testing.T) {
	db, _ := openTemp(t)
	db.bolt.NoSync = true
	const seed = 13
	appendSynth(t, db, seed, 0, 20)
	var base cryptonote.Hash
	var baseLoc TxLocation
	for h := uint64(0); h < 20; h++ {
		if rec := synthBlock(seed, h); len(rec.Txs) > 0 {
			base, baseLoc = rec.Txs[0].Hash, TxLocation{Height: h}
			break
		}
	}
	if base.IsZero() {
		t.Fatal("no tx in the first 20 blocks")
	}
	sibling := func(b byte) cryptonote.Hash { s := base; s[31] ^= b; return s }
	h := uint64(20)
	for ; len(synthBlock(seed, h).Txs) < 2; h++ {
		appendSynth(t, db, seed, h, h+1)
	}
	before := dump(t, db)
	from := h
	rec := withTxHashes(t, synthBlock(seed, h), sibling(1), sibling(2), sibling(4))
	if err := db.Append(rec); err != nil {
		t.Fatalf("txs sharing a prefix with a chain's tx: %v", err)
	}
	want := map[cryptonote.Hash][]uint64{}
	for _, c := range []struct {
		hash cryptonote.Hash
		loc  TxLocation
	}{{base, baseLoc}, {sibling(2), TxLocation{Height: h, Index: 0}}, {sibling(4), TxLocation{Height: h, Index: 1}}} {
		err := db.View(func(r *Reader) error {
			loc, err := r.TxLocation(c.hash)
			if err != nil || loc != c.loc {
				t.Errorf("TxLocation(%s) = %+v, %v; want %+v", c.hash, loc, err, c.loc)
			}
			idx, err := r.TxOutputIndexes(c.hash)
			if err != nil {
				t.Errorf("TxOutputIndexes(%s) = %v, %v", c.hash, idx, err)
			}
			want[c.hash] = idx
			if !r.HasTx(c.hash) {
				t.Errorf("HasTx(%s) = false", c.hash)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	err := db.View(func(r *Reader) error {
		// The miner tx: found by its indexes, not as a located tx.
		if idx, err := r.TxOutputIndexes(sibling(1)); err != nil || len(idx) == 0 {
			t.Errorf("the miner tx of the prefix: %v, %v", idx, err)
		}
		if _, err := r.TxLocation(sibling(1)); !errors.Is(err, ErrNotFound) {
			t.Errorf("TxLocation of a miner tx: %v", err)
		}
		for _, hash := range []cryptonote.Hash{sibling(8), sibling(16)} {
			if _, err := r.TxLocation(hash); !errors.Is(err, ErrNotFound) {
				t.Errorf("TxLocation(%s) of no tx: %v", hash, err)
			}
			if _, err := r.TxOutputIndexes(hash); !errors.Is(err, ErrNotFound) {
				t.Errorf("TxOutputIndexes(%s) of no tx: %v", hash, err)
			}
			if r.HasTx(hash) {
				t.Errorf("HasTx(%s) of no tx", hash)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if a, b := want[sibling(2)], want[sibling(4)]; len(a) > 0 && len(b) > 0 && a[0] == b[0] && a[len(a)-1] == b[len(b)-1] {
		t.Errorf("two txs of one prefix answer the same indexes %v", a)
	}
	// A tx of a taken hash, or a miner tx of one, is refused; a third of
	// the prefix goes in.
	h++
	next := synthBlock(seed, h)
	for ; len(next.Txs) == 0; next = synthBlock(seed, h) {
		appendSynth(t, db, seed, h, h+1)
		h++
	}
	var dup *ErrDuplicateTx
	if err := db.Append(withTxHashes(t, next, next.Meta.MinerTxHash, sibling(2))); !errors.As(err, &dup) || dup.Existing != (TxLocation{Height: from, Index: 0}) {
		t.Fatalf("a tx of a taken hash: %v", err)
	}
	var inv *ErrInvalidRecord
	if err := db.Append(withTxHashes(t, next, sibling(1))); !errors.As(err, &inv) {
		t.Fatalf("a miner tx of a taken hash: %v", err)
	}
	if err := db.Append(withTxHashes(t, next, sibling(32), sibling(64))); err != nil {
		t.Fatal(err)
	}
	checkConsistent(t, db)
	for {
		var height uint64
		if err := db.View(func(r *Reader) (err error) { height, err = r.Height(); return }); err != nil {
			t.Fatal(err)
		}
		if height == from {
			break
		}
		if _, err := db.PopTop(); err != nil {
			t.Fatalf("pop %d: %v", height-1, err)
		}
	}
	sameDump(t, "popped back", before, dump(t, db))
}
