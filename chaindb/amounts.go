package chaindb

import "encoding/binary"

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

// EachOutput looks up outputs by (amounts[i], indexes[i]) (len(amounts)
// == len(indexes)) and calls fn with each, in order, through one bucket
// handle and key buffer: the lookup of a wallet's ring members
// (/get_outs.bin), which asks 150 or more at a time. A missing output
// stops the walk with an ErrNotFound error naming it.
func (r *Reader) EachOutput(amounts, indexes []uint64, fn func(i int, o *OutputEntry) error) error {
	b := r.tx.Bucket(bucketOutputs)
	key := make([]byte, outputKeySize)
	var o OutputEntry
	for i := range indexes {
		binary.BigEndian.PutUint64(key, amounts[i])
		binary.BigEndian.PutUint64(key[8:], indexes[i])
		v := b.Get(key)
		if v == nil {
			return notFoundf("no output %d of amount %d", indexes[i], amounts[i])
		}
		var err error
		if o, err = decodeOutput(amounts[i], indexes[i], v); err != nil {
			return corrupt(bucketOutputs, key, err)
		}
		if err := fn(i, &o); err != nil {
			return err
		}
	}
	return nil
}
