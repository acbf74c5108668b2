package chaindb

import (
	"errors"
	"testing"

	"github.com/gonero/gonero/cryptonote"
)

// withKeyImages is rec with the inputs of its first tx spending kis (as
// many as it has inputs), the tx re-serialised under its listed hash.
func withKeyImages(t *testing.T, rec BlockRecord, kis ...cryptonote.Key) BlockRecord {
	t.Helper()
	tx, err := cryptonote.ParseTransaction(rec.Txs[0].Blob)
	if err != nil {
		t.Fatal(err)
	}
	for i := range min(len(kis), len(tx.Inputs)) {
		in := tx.Inputs[i].(cryptonote.TxInToKey)
		in.KeyImage = kis[i]
		tx.Inputs[i] = in
	}
	rec.Txs = append([]TxRecord(nil), rec.Txs...)
	rec.Txs[0].Blob = tx.Serialize()
	return rec
}

// TestSpentKeysSharingAPrefix spends key images whose first 8 bytes (the
// spent_keys key) are those of an image spent earlier, in another block
// and twice in one block: each is told apart from the others, spending
// any of them again is refused with its own block's height, and popping
// the blocks restores the store byte for byte.
func TestSpentKeysSharingAPrefix(t *testing.T) {
	db, _ := openTemp(t)
	db.bolt.NoSync = true
	const seed = 11
	appendSynth(t, db, seed, 0, 20)
	// K: a key image the chain has spent, at h0.
	var k cryptonote.Key
	var h0 uint64
	for h := uint64(0); h < 20 && h0 == 0; h++ {
		rec := synthBlock(seed, h)
		if len(rec.Txs) == 0 {
			continue
		}
		tx, err := cryptonote.ParseTransaction(rec.Txs[0].Blob)
		if err != nil {
			t.Fatal(err)
		}
		k, h0 = tx.Inputs[0].(cryptonote.TxInToKey).KeyImage, h
	}
	if h0 == 0 {
		t.Fatal("no tx in the first 20 blocks")
	}
	sibling := func(b byte) cryptonote.Key { s := k; s[31] ^= b; return s }
	// nextWithTx appends the chain's blocks until one whose first tx has
	// at least inputs inputs, which it returns.
	h := uint64(20)
	nextWithTx := func(inputs int) BlockRecord {
		for ; ; h++ {
			if rec := synthBlock(seed, h); len(rec.Txs) > 0 {
				tx, err := cryptonote.ParseTransaction(rec.Txs[0].Blob)
				if err != nil {
					t.Fatal(err)
				}
				if len(tx.Inputs) >= inputs {
					return rec
				}
			}
			appendSynth(t, db, seed, h, h+1)
		}
	}
	rec := nextWithTx(2)
	before := dump(t, db)
	from := h
	k1, k2 := sibling(1), sibling(2)
	rec = withKeyImages(t, rec, k1, k2) // two images of the prefix in one block
	if err := db.Append(rec); err != nil {
		t.Fatalf("a key image sharing a spent one's prefix: %v", err)
	}
	h1 := h
	h++
	err := db.View(func(r *Reader) error {
		for _, c := range []struct {
			ki     cryptonote.Key
			spent  bool
			height uint64
		}{{k, true, h0}, {k1, true, h1}, {k2, true, h1}, {sibling(4), false, 0}} {
			height, spent, err := r.KeyImageSpent(c.ki)
			if err != nil || spent != c.spent || (spent && height != c.height) {
				t.Errorf("KeyImageSpent(%x…%x) = %d, %v, %v; want %d, %v", c.ki[:8], c.ki[31], height, spent, err, c.height, c.spent)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// Spending k or k1 again is refused, each with its own block.
	next := nextWithTx(1)
	for _, c := range []struct {
		ki     cryptonote.Key
		height uint64
	}{{k, h0}, {k1, h1}} {
		var spent *ErrKeyImageSpent
		if err := db.Append(withKeyImages(t, next, c.ki)); !errors.As(err, &spent) || spent.KeyImage != c.ki || spent.Height != c.height {
			t.Fatalf("spending %x…%x again: %v, want spent at %d", c.ki[:8], c.ki[31], err, c.height)
		}
	}
	// A third image of the prefix is not spent: it goes in.
	if err := db.Append(withKeyImages(t, next, sibling(8))); err != nil {
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
