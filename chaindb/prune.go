package chaindb

// Pruning the store in place, as monerod's BlockchainLMDB::prune_worker
// does: the prunable part of v2 txs in blocks the node's stripe does not
// keep is dropped, everything else (blocks, prefixes, RingCT bases, indexes)
// stays. Layout in schema.go.

import (
	"errors"
	"fmt"

	"github.com/gonero/gonero/cryptonote"
	"github.com/gonero/gonero/pruning"
)

// ErrPruned is matched (errors.Is) by TxBlob for a tx whose prunable data
// the store dropped.
var ErrPruned = errors.New("chaindb: the tx's prunable data is pruned")

type prunedError struct{ hash cryptonote.Hash }

func (e *prunedError) Error() string {
	return fmt.Sprintf("chaindb: tx %s is pruned: only its prefix and RingCT base are stored", e.hash)
}
func (e *prunedError) Is(target error) bool { return target == ErrPruned }

// pruneBatch bounds the txs pruned per bbolt transaction (monerod commits
// every 4,096 records too), so pruning a long chain does not build one
// huge transaction.
const pruneBatch = 4096

// PruningSeed is the store's pruning seed, 0 while unpruned
// (get_blockchain_pruning_seed).
func (r *Reader) PruningSeed() (uint32, error) {
	v := r.tx.Bucket(bucketInfo).Get(infoPruningSeed)
	if v == nil {
		return 0, nil
	}
	seed, err := decodeU32(v)
	if err != nil {
		return 0, corrupt(bucketInfo, infoPruningSeed, err)
	}
	if seed == 0 || pruning.ValidateSeed(seed) != nil {
		return 0, corruptf(bucketInfo, infoPruningSeed, "seed %#x is not a pruning seed", seed)
	}
	return seed, nil
}

func (r *Reader) pruneNext() (uint64, error) {
	v := r.tx.Bucket(bucketInfo).Get(infoPruneNext)
	if v == nil {
		return 0, nil
	}
	n, err := decodeU64(v)
	if err != nil {
		return 0, corrupt(bucketInfo, infoPruneNext, err)
	}
	return n, nil
}

// prunableHashOf is the stored prunable hash of a pruned tx, nil if the tx
// is not pruned.
func (r *Reader) prunableHashOf(hash cryptonote.Hash) []byte {
	b := r.tx.Bucket(bucketTxPrunableHash)
	if b == nil {
		return nil
	}
	return b.Get(hash[:])
}

// TxParts is a main-chain tx split as monerod's store splits it.
type TxParts struct {
	Pruned       []byte          // prefix, and for v2 the RingCT base
	Prunable     []byte          // the rest; nil when the store pruned it
	PrunableHash cryptonote.Hash // keccak of the prunable part for v2, zero for v1
	Version1     bool            // v1 txs are never pruned
	HasPrunable  bool            // false once pruned
}

// TxParts returns the tx's pruned part, its prunable part unless pruned,
// and its prunable hash (get_pruned_tx_blob, get_prunable_tx_blob,
// get_prunable_tx_hash).
func (r *Reader) TxParts(hash cryptonote.Hash) (TxParts, error) {
	blob, _, err := r.storedTxBlob(hash)
	if err != nil {
		return TxParts{}, err
	}
	if ph := r.prunableHashOf(hash); ph != nil {
		if len(ph) != hashSize {
			return TxParts{}, corruptf(bucketTxPrunableHash, hash[:], "value is %d bytes, want %d", len(ph), hashSize)
		}
		return TxParts{Pruned: blob, PrunableHash: cryptonote.Hash(ph)}, nil
	}
	tx, err := cryptonote.ParseTransaction(blob)
	if err != nil {
		return TxParts{}, corrupt(bucketBlockTxBlobs, hash[:], err)
	}
	n := prunedLen(tx)
	if n > len(blob) {
		return TxParts{}, corruptf(bucketBlockTxBlobs, hash[:], "pruned part longer than the blob")
	}
	p := TxParts{Pruned: blob[:n:n], Prunable: blob[n:], Version1: tx.Version == 1, HasPrunable: true}
	if !p.Version1 {
		p.PrunableHash = cryptonote.Keccak256(p.Prunable)
	}
	return p, nil
}

// prunedLen is the length of tx's pruned part (serialize_base).
func prunedLen(tx *cryptonote.Transaction) int {
	_, n := tx.SplitBlob()
	return n
}

// PruneMode selects what Prune does, as monerod's prune_worker modes.
type PruneMode int

const (
	// PruneAll is prune_blockchain: set the seed if unpruned (stripe 0 =
	// random) and prune every block outside the seed's stripe and the tip.
	PruneAll PruneMode = iota
	// PruneUpdate is update_pruning: prune the blocks that left the tip
	// since the last run; nothing on an unpruned store.
	PruneUpdate
)

// PruneResult reports one run.
type PruneResult struct {
	Seed      uint32 // the store's seed after the run (0: unpruned)
	PrunedTxs uint64 // txs whose prunable part this run dropped
	Bytes     uint64 // prunable bytes dropped
}

// Prune prunes the store in place. With PruneAll on an unpruned store it
// first records the seed of stripe (1…8, or 0 for a random stripe); on a
// pruned store stripe must be 0 or the store's stripe ("Blockchain already
// pruned with different seed"). Work is committed in batches, and the
// progress with each batch, so an interrupted run resumes where it stopped.
func (db *DB) Prune(mode PruneMode, stripe uint32) (PruneResult, error) {
	if stripe > pruning.Stripes {
		return PruneResult{}, fmt.Errorf("chaindb: pruning stripe %d not in range", stripe)
	}
	var res PruneResult
	var from, to, height uint64
	err := db.update(func(tx *stx) error {
		r := &Reader{tx: tx}
		seed, err := r.PruningSeed()
		if err != nil {
			return err
		}
		if seed == 0 {
			if mode != PruneAll {
				return nil
			}
			if stripe == 0 {
				stripe = pruning.RandomStripe()
			}
			seed = pruning.SeedForStripe(stripe)
			if _, err := tx.CreateBucketIfNotExists(bucketTxPrunableHash); err != nil {
				return err
			}
			// A pruned store says so in its schema version, so that a gonerod
			// built before pruning refuses it instead of misreading the pruned
			// blobs as whole transactions.
			if err := tx.Bucket(bucketInfo).Put(infoSchemaVersion, encodeU32(schemaVersionPruned)); err != nil {
				return err
			}
			if err := tx.Bucket(bucketInfo).Put(infoPruningSeed, encodeU32(seed)); err != nil {
				return err
			}
			if err := tx.Bucket(bucketInfo).Put(infoPruneNext, encodeU64(0)); err != nil {
				return err
			}
		} else if stripe != 0 && stripe != pruning.StripeOf(seed) {
			return fmt.Errorf("chaindb: blockchain already pruned with different seed (%#x, asked stripe %d)", seed, stripe)
		}
		res.Seed = seed
		if height, err = r.Height(); err != nil {
			return err
		}
		if mode == PruneUpdate {
			if from, err = r.pruneNext(); err != nil {
				return err
			}
		}
		if height > pruning.TipBlocks {
			to = height - pruning.TipBlocks
		}
		return nil
	})
	if err != nil || res.Seed == 0 {
		return res, err
	}
	h := from
	for {
		err := db.update(func(tx *stx) error {
			var err error
			h, err = pruneRange(tx, res.Seed, h, to, height, &res)
			if err != nil {
				return err
			}
			next := h
			if h >= to {
				next = max(to, from)
			}
			return tx.Bucket(bucketInfo).Put(infoPruneNext, encodeU64(next))
		})
		if err != nil || h >= to {
			return res, err
		}
	}
}

// pruneRange prunes from height h up to to (exclusive) for a chain of
// height blocks until a batch is full, and returns where it stopped.
func pruneRange(tx *stx, seed uint32, h, to, height uint64, res *PruneResult) (uint64, error) {
	r := &Reader{tx: tx}
	blobs := tx.Bucket(bucketBlockTxBlobs)
	hashes := tx.Bucket(bucketTxPrunableHash)
	done := 0
	for h < to && done < pruneBatch {
		if pruning.HasUnprunedBlock(h, height, seed) {
			// Skip the rest of the seed's own stripe in one step.
			h = max(h+1, pruning.NextPrunedHeight(h, height, seed))
			continue
		}
		ids, err := r.TxHashes(h)
		if err != nil {
			return h, err
		}
		if len(ids) == 0 {
			h++
			continue
		}
		stored, err := r.blockTxBlobs(h, len(ids))
		if err != nil {
			return h, err
		}
		// The block's value is rewritten once, with each tx pruned in place.
		kept := make([][]byte, len(ids))
		changed := false
		for i, id := range ids {
			blob := stored[i]
			kept[i] = blob
			if hashes.Get(id[:]) != nil {
				continue // pruned already
			}
			t, err := cryptonote.ParseTransaction(blob)
			if err != nil {
				return h, corrupt(bucketBlockTxBlobs, id[:], err)
			}
			if t.Version == 1 {
				continue // a v1 id covers the whole blob: never pruned
			}
			n := prunedLen(t)
			if n >= len(blob) {
				continue // nothing prunable (no inputs, RingCT type 0)
			}
			ph := cryptonote.Keccak256(blob[n:])
			res.Bytes += uint64(len(blob) - n)
			kept[i] = blob[:n]
			changed = true
			if err := hashes.Put(id[:], ph[:]); err != nil {
				return h, err
			}
			res.PrunedTxs++
			done++
		}
		if changed {
			// encodeBlockTxBlobs copies kept, which aliases the old value,
			// before the Put replaces it.
			if err := blobs.Put(heightKey(h), encodeBlockTxBlobs(kept)); err != nil {
				return h, err
			}
		}
		h++
	}
	return h, nil
}

// CheckPruning is check_pruning: on a pruned store, every tx below the
// pruned horizon must be pruned exactly when the seed lacks its block, and
// every pruned tx's stored parts must still give its id. It returns the
// store's seed (0: unpruned, nothing checked) and the first inconsistency.
func (db *DB) CheckPruning() (uint32, error) {
	var seed uint32
	err := db.View(func(r *Reader) error {
		var err error
		if seed, err = r.PruningSeed(); err != nil || seed == 0 {
			return err
		}
		height, err := r.Height()
		if err != nil {
			return err
		}
		next, err := r.pruneNext()
		if err != nil {
			return err
		}
		for h := uint64(0); h < next && h < height; h++ {
			ids, err := r.TxHashes(h)
			if err != nil {
				return err
			}
			want := !pruning.HasUnprunedBlock(h, height, seed)
			for _, id := range ids {
				p, err := r.TxParts(id)
				if err != nil {
					return err
				}
				if p.HasPrunable && want && !p.Version1 && len(p.Prunable) > 0 {
					return fmt.Errorf("chaindb: prunable data found for pruned height %d/%d, seed %#x (tx %s)", h, height, seed, id)
				}
				if !p.HasPrunable {
					if !want {
						return fmt.Errorf("chaindb: prunable data not found for unpruned height %d/%d, seed %#x (tx %s)", h, height, seed, id)
					}
					t, err := cryptonote.ParsePrunedTransaction(p.Pruned)
					if err != nil {
						return corrupt(bucketBlockTxBlobs, id[:], err)
					}
					if got := cryptonote.PrunedTxID(t, p.PrunableHash); got != id {
						return corruptf(bucketTxPrunableHash, id[:], "pruned parts give id %s", got)
					}
				}
			}
		}
		return nil
	})
	return seed, err
}

// popPruning keeps the pruning records in step with a pop of height h:
// the popped txs' prunable hashes go, and the pruned horizon comes down so
// that the blocks that replace them get pruned in their turn.
func popPruning(tx *stx, h uint64, txs []TxRecord) error {
	hashes := tx.Bucket(bucketTxPrunableHash)
	if hashes == nil {
		return nil
	}
	for _, t := range txs {
		if err := hashes.Delete(t.Hash[:]); err != nil {
			return fmt.Errorf("chaindb: pop height %d: delete prunable hash %s: %w", h, t.Hash, err)
		}
	}
	next, err := (&Reader{tx: tx}).pruneNext()
	if err != nil {
		return err
	}
	if h < next {
		return tx.Bucket(bucketInfo).Put(infoPruneNext, encodeU64(h))
	}
	return nil
}

// refusePruned keeps pruned txs out of the alternative blocks, whose
// layout has no room for the pruned flag: a reorganisation that would keep a
// popped pruned block fails as a whole (pruned blocks lie more than
// pruning.TipBlocks below the top, so only a reorganisation that deep).
func refusePruned(rec *BlockRecord) error {
	for i := range rec.Txs {
		if rec.Txs[i].Pruned {
			return &ErrInvalidRecord{Field: fmt.Sprintf("Txs[%d].Pruned", i), Reason: "a pruned block cannot be kept as an alternative block"}
		}
	}
	return nil
}
