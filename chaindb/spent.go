package chaindb

// spent_keys is keyed by the first 8 bytes of a key image (schema.go): a
// key takes 8 bytes where the image takes 32, in pages that random keys
// keep half full. A key holds the heights of the blocks that spent an
// image of that prefix, so two images sharing a prefix (chance, or ground
// on purpose) both fit, and a match is confirmed against the spending
// block's transactions before anything is called spent: the answer is
// exact whatever the prefixes do.

import (
	"fmt"

	"github.com/gonero/gonero/cryptonote"
)

// KeyImageSpent reports whether a main-chain tx has spent ki, and if so the
// height of its block.
func (r *Reader) KeyImageSpent(ki cryptonote.Key) (height uint64, spent bool, err error) {
	key := spentKey(&ki)
	v := r.tx.index(bucketSpentKeys).Get(key)
	if v == nil {
		return 0, false, nil
	}
	heights, err := decodeSpentHeights(v)
	if err != nil {
		return 0, false, corrupt(bucketSpentKeys, key, err)
	}
	top, err := r.Height()
	if err != nil {
		return 0, false, err
	}
	for i, h := range heights {
		if i > 0 && h == heights[i-1] {
			continue
		}
		if h >= top {
			// A block this view does not have (lsm.go).
			break
		}
		in, err := r.blockSpends(h, &ki)
		if err != nil {
			return 0, false, corruptf(bucketSpentKeys, key, "names height %d: %v", h, err)
		}
		if in {
			return h, true, nil
		}
	}
	return 0, false, nil
}

// blockSpends reports whether a tx of the main-chain block at height h has
// ki among its inputs' key images (read from its blobs, pruned or not: the
// key images are in the pruned part).
func (r *Reader) blockSpends(h uint64, ki *cryptonote.Key) (bool, error) {
	return r.blockSpendsAny(h, func(k *cryptonote.Key) bool { return *k == *ki })
}

// blockSpendsAny reports whether a key image among the inputs of the
// main-chain block at height h satisfies match.
func (r *Reader) blockSpendsAny(h uint64, match func(*cryptonote.Key) bool) (bool, error) {
	rec, err := r.recordChecked(h, false)
	if err != nil {
		return false, err
	}
	for i := range rec.Txs {
		parse := cryptonote.ParseTransaction
		if rec.Txs[i].Pruned {
			parse = cryptonote.ParsePrunedTransaction
		}
		tx, err := parse(rec.Txs[i].Blob)
		if err != nil {
			return false, fmt.Errorf("tx %d does not parse: %w", i, err)
		}
		for _, in := range tx.Inputs {
			if k, ok := in.(cryptonote.TxInToKey); ok && match(&k.KeyImage) {
				return true, nil
			}
		}
	}
	return false, nil
}

// putSpent adds height to the entry of each key image (the block's, in
// order; checkIndexesFree has found none spent). Heights only grow on the
// main chain, so each list stays in ascending order.
func putSpent(tx *stx, height uint64, kis []cryptonote.Key) error {
	b := tx.index(bucketSpentKeys)
	seen := make(map[string]bool, len(kis))
	for i := range kis {
		key := spentKey(&kis[i])
		var heights []uint64
		if v := b.Get(key); v != nil {
			var err error
			if heights, err = decodeSpentHeights(v); err != nil {
				return corrupt(bucketSpentKeys, key, err)
			}
			if !seen[string(key)] {
				// Heights from the appended one up name blocks the chain
				// does not have: the LSM's leftovers (lsm.go).
				heights = belowHeight(heights, height)
			}
		}
		seen[string(key)] = true
		if err := b.Put(key, encodeSpentHeights(append(heights, height))); err != nil {
			return fmt.Errorf("chaindb: append height %d: put %s: %w", height, bucketSpentKeys, err)
		}
	}
	return nil
}

// spentAfterPop is what the entries of the top block's key images become
// once it is popped (nil: the entry goes), checking that each ends with
// the block's height as putSpent left it: it reads, never writes, so a pop
// checks everything before deleting anything.
func spentAfterPop(tx *stx, height uint64, kis []cryptonote.Key) (map[string][]uint64, error) {
	b := tx.index(bucketSpentKeys)
	after := make(map[string][]uint64, len(kis))
	for i := len(kis) - 1; i >= 0; i-- {
		key := spentKey(&kis[i])
		heights, seen := after[string(key)]
		if !seen {
			v := b.Get(key)
			if v == nil {
				return nil, corruptf(bucketSpentKeys, key, "the top block's entry is missing")
			}
			var err error
			if heights, err = decodeSpentHeights(v); err != nil {
				return nil, corrupt(bucketSpentKeys, key, err)
			}
			heights = belowHeight(heights, height+1) // leftovers above the top (lsm.go)
		}
		if len(heights) == 0 || heights[len(heights)-1] != height {
			return nil, corruptf(bucketSpentKeys, key, "lists heights %v, not ending with the top block's %d", heights, height)
		}
		after[string(key)] = heights[:len(heights)-1]
	}
	return after, nil
}

// popSpent removes the top block's key images; checkIndexesPresent has
// passed.
func popSpent(tx *stx, height uint64, kis []cryptonote.Key) error {
	after, err := spentAfterPop(tx, height, kis)
	if err != nil {
		return err
	}
	b := tx.index(bucketSpentKeys)
	for key, heights := range after {
		if len(heights) == 0 {
			err = b.Delete([]byte(key))
		} else {
			err = b.Put([]byte(key), encodeSpentHeights(heights))
		}
		if err != nil {
			return fmt.Errorf("chaindb: pop height %d: update %s: %w", height, bucketSpentKeys, err)
		}
	}
	return nil
}

// belowHeight is the leading part of ascending heights below limit.
func belowHeight(heights []uint64, limit uint64) []uint64 {
	n := len(heights)
	for n > 0 && heights[n-1] >= limit {
		n--
	}
	return heights[:n]
}
