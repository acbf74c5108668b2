package chaindb

import (
	"errors"
	"fmt"

	"github.com/cockroachdb/pebble/v2"
	bolt "go.etcd.io/bbolt"
)

// errNeedsUpgrade is check's answer for a store of an older schema this
// build upgrades: 1 (no transaction-verification indexes, tx blobs keyed by
// hash), 2 and 3 (tx blobs keyed by hash, no miner_txs; 3 pruned), 4 and 5
// (no miner_txs; 5 pruned), 6 and 7 (the indexes' fixed-width values; 7
// pruned), 8 and 9 (tx_index keyed by whole hashes, output entries holding
// keys and commitments; 9 pruned), 10 and 11 (the hash-keyed indexes in the
// bbolt file; 11 pruned).
var errNeedsUpgrade = errors.New("chaindb: store of an older schema")

// upgrade brings a store of schema 1 to 9 to this build's layout: tx blobs
// regrouped per block (migrateBlobs, schemas 1-3), then every index rebuilt
// from the stored blocks (migrateIndexes). Each step is resumable, and the
// schema version is written last, so a crash anywhere leaves a store the
// next Open upgrades.
func (db *DB) upgrade(progress func(done, total uint64)) error {
	var version uint32
	err := db.view(func(tx *stx) (err error) {
		version, err = decodeU32(tx.Bucket(bucketInfo).Get(infoSchemaVersion))
		return err
	})
	if err != nil {
		return err
	}
	if err := db.migrateBlobs(version, progress); err != nil {
		return err
	}
	target := schemaVersion
	switch version {
	case schemaVersionHashKeyedBlobsPruned, schemaVersionNoMinerTxsPruned, schemaVersionFixedIndexesPruned,
		schemaVersionWideIndexesPruned, schemaVersionBoltIndexesPruned:
		target = schemaVersionPruned
	}
	if version == schemaVersionBoltIndexes || version == schemaVersionBoltIndexesPruned {
		// Schema 10's indexes are this build's, only in the bbolt file.
		return db.moveIndexesToLSM(version, target, progress)
	}
	// Older stores: block_heights moves as it is; the other indexes are
	// rebuilt, straight into the LSM.
	if err := db.moveIndexesToLSM(version, 0, nil); err != nil {
		return err
	}
	return db.migrateIndexes(version, target, progress)
}

// moveIndexesToLSM copies the lsmBuckets the bbolt file still has into the
// LSM, then drops them from the file, writing schema version target (0: the
// version stays) in the same transaction. A crash before that transaction
// leaves the buckets in the file, and the next Open copies them again.
func (db *DB) moveIndexesToLSM(version, target uint32, progress func(done, total uint64)) error {
	fail := func(err error) error {
		return fmt.Errorf("chaindb: upgrade %s from schema %d: move the hash-keyed indexes into %s: %w", db.path, version, lsmPath(db.path), err)
	}
	var present [][]byte
	var total uint64
	err := db.view(func(tx *stx) error {
		for _, name := range lsmBuckets {
			if b := tx.Bucket(name); b != nil {
				present = append(present, name)
				total += uint64(b.Stats().KeyN)
			}
		}
		return nil
	})
	if err != nil {
		return fail(err)
	}
	if len(present) > 0 {
		if err := wipeLSMBuckets(db.lsm.db, present...); err != nil {
			return fail(err)
		}
		var done uint64
		err = db.bolt.View(func(tx *bolt.Tx) error {
			for _, name := range present {
				p, _ := lsmPrefix(name)
				batch := db.lsm.db.NewBatch()
				c := tx.Bucket(name).Cursor()
				for k, v := c.First(); k != nil; k, v = c.Next() {
					if err := batch.Set(append([]byte{p}, k...), v, nil); err != nil {
						return err
					}
					done++
					if batch.Len() >= 4<<20 {
						if err := batch.Commit(pebble.NoSync); err != nil {
							return err
						}
						_ = batch.Close()
						batch = db.lsm.db.NewBatch()
						if progress != nil {
							progress(done, total)
						}
					}
				}
				if err := batch.Commit(pebble.Sync); err != nil {
					return err
				}
				_ = batch.Close()
			}
			return nil
		})
		if err != nil {
			return fail(err)
		}
		if progress != nil {
			progress(total, total)
		}
	}
	err = db.update(func(tx *stx) error {
		for _, name := range present {
			if err := tx.DeleteBucket(name); err != nil {
				return fmt.Errorf("drop bucket %s: %w", name, err)
			}
		}
		if target == 0 {
			return nil
		}
		return tx.Bucket(bucketInfo).Put(infoSchemaVersion, encodeU32(target))
	})
	if err != nil {
		return fail(err)
	}
	return nil
}

// migrateBlobs moves the tx blobs of schema 1-3 (bucket tx_blobs, one value
// per tx keyed by hash) into block_tx_blobs (one value per block), in
// batches of Options.MigrationBatch blocks, each batch recording where the next
// starts; the old bucket is dropped once every block is done. Pruned blobs
// move as they are (the pruning records are keyed by tx hash and stay).
func (db *DB) migrateBlobs(version uint32, progress func(done, total uint64)) error {
	fail := func(err error) error {
		return fmt.Errorf("chaindb: upgrade %s from schema %d: regroup tx blobs per block: %w", db.path, version, err)
	}
	var height, next uint64
	var pending bool
	err := db.update(func(tx *stx) error {
		if tx.Bucket(bucketTxBlobsByHash) == nil {
			return nil // done already (or a schema-1 store written by this build's layout)
		}
		pending = true
		if _, err := tx.CreateBucketIfNotExists(bucketBlockTxBlobs); err != nil {
			return fmt.Errorf("create bucket %s: %w", bucketBlockTxBlobs, err)
		}
		r := &Reader{tx: tx}
		var err error
		if height, err = r.Height(); err != nil {
			return err
		}
		if v := tx.Bucket(bucketInfo).Get(infoBlobUpgradeNext); v != nil {
			if next, err = decodeU64(v); err != nil {
				return corrupt(bucketInfo, infoBlobUpgradeNext, err)
			}
		}
		return nil
	})
	if err != nil {
		return fail(err)
	}
	if !pending {
		return nil
	}
	for from := next; from < height; from += db.migrateBatch {
		to := min(height, from+db.migrateBatch)
		err := db.update(func(tx *stx) error { return regroupBlobs(tx, from, to) })
		if err != nil {
			return fail(err)
		}
		if progress != nil {
			progress(to, height)
		}
	}
	err = db.update(func(tx *stx) error {
		if err := tx.DeleteBucket(bucketTxBlobsByHash); err != nil {
			return err
		}
		return tx.Bucket(bucketInfo).Delete(infoBlobUpgradeNext)
	})
	if err != nil {
		return fail(err)
	}
	return nil
}

// DefaultMigrationBatch is the number of blocks upgraded per write
// transaction (Options.MigrationBatch): large enough that fsyncs do not
// dominate, small enough that one transaction's dirty pages stay modest on
// a mainnet-sized chain.
const DefaultMigrationBatch = 2000

// migrateIndexes rebuilds the indexes of a store of schema 1 (which has
// none) to 9 (whose values have an older layout): it drops whatever index
// buckets the store or a previous, interrupted upgrade left, builds the
// indexes from the main-chain blocks in order (the same derivation Append
// uses), and only then writes the schema version target. A crash at any
// point leaves a store of the old version that the next Open upgrades from
// scratch.
func (db *DB) migrateIndexes(version, target uint32, progress func(done, total uint64)) error {
	fail := func(err error) error {
		return fmt.Errorf("chaindb: upgrade %s from schema %d to %d: rebuild the indexes: %w", db.path, version, target, err)
	}
	var height uint64
	err := db.update(func(tx *stx) error {
		for _, name := range allBuckets {
			if tx.Bucket(name) == nil && !isIndexBucket(name) && string(name) != string(bucketTxPool) {
				return fmt.Errorf("corrupt store: bucket %s is missing", name)
			}
		}
		if _, err := tx.CreateBucketIfNotExists(bucketTxPool); err != nil {
			return fmt.Errorf("create bucket %s: %w", bucketTxPool, err)
		}
		for _, name := range indexBuckets {
			if err := recreateBucket(tx, name); err != nil {
				return err
			}
		}
		// Schema 1-7's tx buckets, which tx_index replaces.
		for _, name := range [][]byte{bucketTxLocationsV1, bucketTxOutputsV2} {
			if tx.Bucket(name) == nil {
				continue
			}
			if err := tx.DeleteBucket(name); err != nil {
				return fmt.Errorf("drop bucket %s: %w", name, err)
			}
		}
		var err error
		height, err = (&Reader{tx: tx}).Height()
		return err
	})
	if err != nil {
		return fail(err)
	}
	for from := uint64(0); from < height; from += db.migrateBatch {
		to := min(height, from+db.migrateBatch)
		err := db.update(func(tx *stx) error {
			r := &Reader{tx: tx}
			for h := from; h < to; h++ {
				rec, err := r.recordChecked(h, false)
				if err != nil {
					return err
				}
				if err := appendIndexes(tx, &rec); err != nil {
					// A stored block that does not index (blobs that do not
					// parse, a key image spent twice) is a corrupt store.
					var inv *ErrInvalidRecord
					var spent *ErrKeyImageSpent
					if errors.As(err, &inv) || errors.As(err, &spent) {
						err = corrupt(bucketBlockBlobs, heightKey(h), err)
					}
					return fmt.Errorf("block %d (%s): %w", h, rec.Meta.Hash, err)
				}
			}
			return nil
		})
		if err != nil {
			return fail(err)
		}
		if progress != nil {
			progress(to, height)
		}
	}
	err = db.update(func(tx *stx) error {
		return tx.Bucket(bucketInfo).Put(infoSchemaVersion, encodeU32(target))
	})
	if err != nil {
		return fail(err)
	}
	return nil
}

func isIndexBucket(name []byte) bool {
	for _, b := range indexBuckets {
		if string(b) == string(name) {
			return true
		}
	}
	return false
}

// regroupBlobs is one batch of migrateBlobs: the tx blobs of heights
// [from, to) from tx_blobs into block_tx_blobs, and the height the next
// batch starts at.
func regroupBlobs(tx *stx, from, to uint64) error {
	r := &Reader{tx: tx}
	old := tx.Bucket(bucketTxBlobsByHash)
	dst := tx.Bucket(bucketBlockTxBlobs)
	for h := from; h < to; h++ {
		ids, err := r.TxHashes(h)
		if err != nil {
			return err
		}
		if len(ids) == 0 {
			continue
		}
		blobs := make([][]byte, len(ids))
		for i, id := range ids {
			if blobs[i] = old.Get(id[:]); blobs[i] == nil {
				return corruptf(bucketTxBlobsByHash, id[:], "tx listed at height %d has no blob", h)
			}
			if !fitsU32(len(blobs[i])) {
				return corruptf(bucketTxBlobsByHash, id[:], "blob of %d bytes", len(blobs[i]))
			}
		}
		if err := dst.Put(heightKey(h), encodeBlockTxBlobs(blobs)); err != nil {
			return err
		}
	}
	return tx.Bucket(bucketInfo).Put(infoBlobUpgradeNext, encodeU64(to))
}

// recreateBucket empties an index about to be rebuilt: a rebuild that an
// interruption cut short starts again from nothing.
func recreateBucket(tx *stx, name []byte) error {
	if isLSMBucket(name) {
		// Only in the LSM; an older store may still have the bucket.
		if tx.Bucket(name) != nil {
			if err := tx.DeleteBucket(name); err != nil {
				return fmt.Errorf("drop bucket %s: %w", name, err)
			}
		}
		return wipeLSMBuckets(tx.ix.lsm, name)
	}
	if tx.Bucket(name) != nil {
		if err := tx.DeleteBucket(name); err != nil {
			return fmt.Errorf("drop bucket %s: %w", name, err)
		}
	}
	if _, err := tx.CreateBucket(name); err != nil {
		return fmt.Errorf("create bucket %s: %w", name, err)
	}
	return nil
}
