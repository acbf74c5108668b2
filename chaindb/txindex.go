package chaindb

// tx_index is keyed by the first 8 bytes of a tx hash (schema.go): a key
// takes 8 bytes where the hash takes 32, in pages that random keys keep
// half full. A key holds the entries of every main-chain tx of that
// prefix, so two txs sharing a prefix (chance, or ground on purpose) both
// fit, and an entry is confirmed against the tx hash its block stores
// (block_txs, or the meta's miner tx hash) before it is taken for the tx's:
// the answer is exact whatever the prefixes do. The confirmation reads one
// hash out of a block's list, without decoding the rest.

import (
	"bytes"
	"encoding/binary"
	"fmt"

	"github.com/gonero/gonero/cryptonote"
)

// txEntryOf finds hash's tx_index entry; with indexes false its index list
// is checked but not decoded. found is false when no main-chain tx has
// this hash.
func (r *Reader) txEntryOf(hash *cryptonote.Hash, indexes bool) (e txEntry, found bool, err error) {
	key := hash[:txIndexKeySize]
	v := r.tx.index(bucketTxIndex).Get(key)
	if v == nil {
		return txEntry{}, false, nil
	}
	entries, err := decodeTxEntries(v, indexes)
	if err != nil {
		return txEntry{}, false, corrupt(bucketTxIndex, key, err)
	}
	top, err := r.Height()
	if err != nil {
		return txEntry{}, false, err
	}
	for _, e := range entries {
		if e.height >= top {
			// A block this view does not have (lsm.go).
			break
		}
		h, err := r.txHashAt(e.height, e.slot)
		if err != nil {
			// A leftover naming a slot that a block appended since at
			// its height does not have (lsm.go).
			continue
		}
		if h == *hash {
			return e, true, nil
		}
	}
	return txEntry{}, false, nil
}

// txHashAt is the hash of the tx at slot of the main-chain block at height
// (slot 0 its miner tx, i+1 its i-th tx).
func (r *Reader) txHashAt(height uint64, slot uint32) (cryptonote.Hash, error) {
	key := heightKey(height)
	if slot == 0 {
		return minerTxHashIn(r.tx.Bucket(bucketBlockMeta).Get(key), height)
	}
	return txHashIn(r.tx.Bucket(bucketBlockTxs).Get(key), height, slot)
}

// minerTxHashIn reads the miner tx hash out of an encoded meta in place.
func minerTxHashIn(meta []byte, height uint64) (cryptonote.Hash, error) {
	if len(meta) != metaSize || meta[0] != metaLayoutV1 {
		return cryptonote.Hash{}, fmt.Errorf("height %d has no meta", height)
	}
	return cryptonote.Hash(meta[metaMinerTxHashOffset : metaMinerTxHashOffset+hashSize]), nil
}

// txHashIn reads the hash of tx slot-1 out of a block's tx hash list in
// place.
func txHashIn(list []byte, height uint64, slot uint32) (cryptonote.Hash, error) {
	if len(list) < 4 || uint64(slot) > uint64(binary.LittleEndian.Uint32(list)) || uint64(len(list)) < 4+uint64(slot)*uint64(hashSize) {
		return cryptonote.Hash{}, fmt.Errorf("the block at height %d has no tx %d", height, slot-1)
	}
	off := 4 + int(slot-1)*hashSize
	return cryptonote.Hash(list[off : off+hashSize]), nil
}

// putTxIndex appends each of a block's entries (kvs, in slot order; the
// key a prefix, the value the entry) to the value of its prefix.
// checkIndexesFree has found none of the txs on the chain. Heights only
// grow on the main chain, so each value stays in ascending order.
func putTxIndex(tx *stx, height uint64, kvs []kv) error {
	b := tx.index(bucketTxIndex)
	seen := make(map[string]bool, len(kvs))
	for _, e := range kvs {
		v := b.Get(e.key)
		if !seen[string(e.key)] {
			// Entries from the appended height up are the LSM's
			// leftovers (lsm.go).
			var err error
			if v, err = txEntriesBelow(v, height, e.key); err != nil {
				return err
			}
		}
		seen[string(e.key)] = true
		nv := make([]byte, 0, len(v)+len(e.value))
		nv = append(append(nv, v...), e.value...)
		if v != nil {
			// The entries stay in ascending order: no entry of a later
			// block, nor of a later slot of this one, sits below it.
			if _, err := decodeTxEntries(nv, false); err != nil {
				return corruptf(bucketTxIndex, e.key, "appending height %d: %v", height, err)
			}
		}
		if err := b.Put(e.key, nv); err != nil {
			return fmt.Errorf("chaindb: append height %d: put %s: %w", height, bucketTxIndex, err)
		}
	}
	return nil
}

// txIndexAfterPop is what the values of the top block's tx prefixes become
// once it is popped (empty: the key goes), checking that each ends with
// the block's entries exactly as putTxIndex left them: it reads, never
// writes, so a pop checks everything before deleting anything.
func txIndexAfterPop(tx *stx, height uint64, kvs []kv) (map[string][]byte, error) {
	b := tx.index(bucketTxIndex)
	after := make(map[string][]byte, len(kvs))
	for i := len(kvs) - 1; i >= 0; i-- {
		e := kvs[i]
		v, seen := after[string(e.key)]
		if !seen {
			var err error
			// Entries above the top are the LSM's leftovers (lsm.go).
			if v, err = txEntriesBelow(b.Get(e.key), height+1, e.key); err != nil {
				return nil, err
			}
			if len(v) == 0 {
				return nil, corruptf(bucketTxIndex, e.key, "the top block's entry is missing")
			}
		}
		entries, err := decodeTxEntries(v, false)
		if err != nil {
			return nil, corrupt(bucketTxIndex, e.key, err)
		}
		last := entries[len(entries)-1].raw
		if !bytes.Equal(last, e.value) {
			return nil, corruptf(bucketTxIndex, e.key, "ends with %x, but the top block makes %x", last, e.value)
		}
		after[string(e.key)] = v[:len(v)-len(last)]
	}
	return after, nil
}

// popTxIndex removes the top block's entries; checkIndexesPresent has
// passed.
func popTxIndex(tx *stx, height uint64, kvs []kv) error {
	after, err := txIndexAfterPop(tx, height, kvs)
	if err != nil {
		return err
	}
	b := tx.index(bucketTxIndex)
	for key, v := range after {
		if len(v) == 0 {
			err = b.Delete([]byte(key))
		} else {
			err = b.Put([]byte(key), bytes.Clone(v))
		}
		if err != nil {
			return fmt.Errorf("chaindb: pop height %d: update %s: %w", height, bucketTxIndex, err)
		}
	}
	return nil
}

// txEntriesBelow is the leading part of tx_index value v (nil: none) whose
// entries are below height limit.
func txEntriesBelow(v []byte, limit uint64, key []byte) ([]byte, error) {
	if v == nil {
		return nil, nil
	}
	entries, err := decodeTxEntries(v, false)
	if err != nil {
		return nil, corrupt(bucketTxIndex, key, err)
	}
	n := len(v)
	for i := len(entries) - 1; i >= 0 && entries[i].height >= limit; i-- {
		n -= len(entries[i].raw)
	}
	return v[:n], nil
}
