package chaindb

import (
	"bytes"
	"encoding/binary"
)

// ForEachOutputAmount calls fn with every amount that has outputs on the
// main chain and their count, in ascending amount order (amount 0, the
// RingCT outputs, first): the output_counts index walked as
// get_output_histogram walks monerod's output_amounts table. fn's error
// stops the walk and is returned.
func (r *Reader) ForEachOutputAmount(fn func(amount, count uint64) error) error {
	c := r.tx.Bucket(bucketOutputCounts).Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		if len(k) != 8 {
			return corruptf(bucketOutputCounts, k, "amount key is %d bytes, want 8", len(k))
		}
		n, err := decodeU64(v)
		if err != nil {
			return corrupt(bucketOutputCounts, k, err)
		}
		if err := fn(binary.BigEndian.Uint64(k), n); err != nil {
			return err
		}
	}
	return nil
}

// EachOutput looks up n outputs, the i-th by ref(i)'s amount and index,
// and calls fn with each, in order, through one cursor and key buffer: the
// lookup of a wallet's ring members (/get_outs.bin), which asks 150 or
// more at a time. A missing output stops the walk with an ErrNotFound
// error naming it.
func (r *Reader) EachOutput(n int, ref func(i int) (amount, index uint64), fn func(i int, o *OutputEntry) error) error {
	return r.eachOutput(n, ref, fn, true)
}

// EachRingMember is EachOutput without the tx hashes (TxHash is left
// zero): what verifying a ring and a get_outs without get_txid need. An
// entry stores its tx's slot in the block, not its hash (schema.go), and
// resolving it is one more lookup per output (the key and commitment, read
// from the tx's blob, are one already).
func (r *Reader) EachRingMember(n int, ref func(i int) (amount, index uint64), fn func(i int, o *OutputEntry) error) error {
	return r.eachOutput(n, ref, fn, false)
}

func (r *Reader) eachOutput(n int, ref func(i int) (amount, index uint64), fn func(i int, o *OutputEntry) error, txHashes bool) error {
	// One cursor for every lookup: Bucket.Get makes a cursor (and grows
	// its page stack) per call, which for a wallet's 150 ring members was
	// most of the allocations of a get_outs.
	c := r.tx.Bucket(bucketOutputs).Cursor()
	rc := r.tx.Bucket(bucketRctOutputs).Cursor()
	key := make([]byte, outputKeySize)
	var o OutputEntry
	blobs := r.newOutputReader(txHashes)
	for i := range n {
		amount, index := ref(i)
		var err error
		if amount == 0 {
			var k []byte
			if o, k, err = rctOutput(rc, index); err != nil {
				return err
			}
			if err := blobs.fill(&o, k); err != nil {
				return err
			}
		} else {
			binary.BigEndian.PutUint64(key, amount)
			binary.BigEndian.PutUint64(key[8:], index)
			k, v := c.Seek(key)
			if !bytes.Equal(k, key) || v == nil {
				return notFoundf("no output %d of amount %d", index, amount)
			}
			if o, err = decodeOutput(amount, index, v); err != nil {
				return corrupt(bucketOutputs, key, err)
			}
			if err := blobs.fill(&o, key); err != nil {
				return err
			}
		}
		if err := fn(i, &o); err != nil {
			return err
		}
	}
	return nil
}
