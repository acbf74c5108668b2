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
