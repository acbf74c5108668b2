package chaindb

import (
	"fmt"

	"github.com/gonero/gonero/cryptonote"
)

// PoolTxRecord is a transaction-pool entry as the store keeps it.
type PoolTxRecord struct {
	Hash        cryptonote.Hash
	Blob        []byte
	Received    uint64 // Unix seconds
	DoNotRelay  bool
	KeptByBlock bool
}

// PutPoolTx stores (or replaces) a pool entry, in its own transaction.
func (db *DB) PutPoolTx(rec PoolTxRecord) error {
	return db.update(func(tx *stx) error {
		if err := tx.Bucket(bucketTxPool).Put(rec.Hash[:], encodePoolTx(&rec)); err != nil {
			return fmt.Errorf("chaindb: put pool tx %s: %w", rec.Hash, err)
		}
		return nil
	})
}

// DeletePoolTxs removes pool entries (absent ones are ignored), in one
// transaction.
func (db *DB) DeletePoolTxs(hashes ...cryptonote.Hash) error {
	if len(hashes) == 0 {
		return nil
	}
	return db.update(func(tx *stx) error {
		b := tx.Bucket(bucketTxPool)
		for _, h := range hashes {
			if err := b.Delete(h[:]); err != nil {
				return fmt.Errorf("chaindb: delete pool tx %s: %w", h, err)
			}
		}
		return nil
	})
}

// PoolTxs returns every stored pool entry. A corrupt entry is an error
// naming it.
func (r *Reader) PoolTxs() ([]PoolTxRecord, error) {
	var out []PoolTxRecord
	err := r.tx.Bucket(bucketTxPool).ForEach(func(k, v []byte) error {
		rec, err := decodePoolTx(k, v)
		if err != nil {
			return corrupt(bucketTxPool, k, err)
		}
		out = append(out, rec)
		return nil
	})
	return out, err
}
