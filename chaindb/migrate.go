package chaindb

import (
	"errors"
	"fmt"

	bolt "go.etcd.io/bbolt"
)

// errNeedsIndexes is check's answer for a store of schema version 1: sound,
// but without the transaction-verification indexes.
var errNeedsIndexes = errors.New("chaindb: store has no transaction-verification indexes")

// migrateBatch is the number of blocks indexed per write transaction while
// upgrading: large enough that fsyncs do not dominate, small enough that one
// transaction's dirty pages stay modest on a mainnet-sized chain.
var migrateBatch uint64 = 2000

// migrateIndexes upgrades a schema-1 store to schema 2: it drops whatever
// index buckets a previous, interrupted upgrade left, builds the indexes
// from the main-chain blocks in order (the same derivation Append uses), and
// only then writes the new schema version. A crash at any point leaves a
// schema-1 store that the next Open upgrades from scratch.
func (db *DB) migrateIndexes(progress func(done, total uint64)) error {
	fail := func(err error) error {
		return fmt.Errorf("chaindb: upgrade %s from schema %d to %d: %w", db.path, schemaVersionNoIndexes, schemaVersion, err)
	}
	var height uint64
	err := db.update(func(tx *bolt.Tx) error {
		for _, name := range allBuckets {
			if tx.Bucket(name) == nil && !isIndexBucket(name) && string(name) != string(bucketTxPool) {
				return fmt.Errorf("corrupt store: bucket %s is missing", name)
			}
		}
		if _, err := tx.CreateBucketIfNotExists(bucketTxPool); err != nil {
			return fmt.Errorf("create bucket %s: %w", bucketTxPool, err)
		}
		for _, name := range indexBuckets {
			if tx.Bucket(name) != nil {
				if err := tx.DeleteBucket(name); err != nil {
					return fmt.Errorf("drop bucket %s: %w", name, err)
				}
			}
			if _, err := tx.CreateBucket(name); err != nil {
				return fmt.Errorf("create bucket %s: %w", name, err)
			}
		}
		var err error
		height, err = (&Reader{tx: tx}).Height()
		return err
	})
	if err != nil {
		return fail(err)
	}
	for from := uint64(0); from < height; from += migrateBatch {
		to := min(height, from+migrateBatch)
		err := db.update(func(tx *bolt.Tx) error {
			r := &Reader{tx: tx}
			for h := from; h < to; h++ {
				rec, err := r.record(h)
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
	err = db.update(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketInfo).Put(infoSchemaVersion, encodeU32(schemaVersion))
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
