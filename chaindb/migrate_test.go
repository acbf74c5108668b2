package chaindb

import (
	"errors"
	"strings"
	"testing"

	bolt "go.etcd.io/bbolt"
)

// downgrade turns a closed schema-2 store into the schema-1 layout: the
// index buckets gone, version 1. With leftovers, it keeps some junk in one
// index bucket, as an upgrade interrupted by a crash would.
func downgrade(t *testing.T, path string, leftovers bool) {
	t.Helper()
	bdb, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer bdb.Close()
	err = bdb.Update(func(tx *bolt.Tx) error {
		for _, name := range indexBuckets {
			if err := tx.DeleteBucket(name); err != nil {
				return err
			}
		}
		if leftovers {
			b, err := tx.CreateBucket(bucketOutputs)
			if err != nil {
				return err
			}
			if err := b.Put(outputKey(0, 999), []byte("half-built")); err != nil {
				return err
			}
		}
		return tx.Bucket(bucketInfo).Put(infoSchemaVersion, encodeU32(schemaVersionNoIndexes))
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestMigrationFromSchema1(t *testing.T) {
	c := regtest(t)
	old := migrateBatch
	migrateBatch = 70 // several batches over 300 blocks
	defer func() { migrateBatch = old }()
	for _, leftovers := range []bool{false, true} {
		db, path := openTemp(t)
		db.bolt.NoSync = true
		appendAll(t, db, c.recs)
		if err := db.PutAltBlock(synthBlock(3, 7)); err != nil {
			t.Fatal(err)
		}
		want := dump(t, db)
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
		downgrade(t, path, leftovers)

		var calls [][2]uint64
		db, err := Open(path, Options{Network: testNetwork, MigrationProgress: func(done, total uint64) {
			calls = append(calls, [2]uint64{done, total})
		}})
		if err != nil {
			t.Fatal(err)
		}
		if d := diffDumps(dump(t, db), want); d != "" {
			t.Fatalf("leftovers %v: upgraded store differs from one built at schema 2:%s", leftovers, d)
		}
		if len(calls) != 5 || calls[4] != [2]uint64{300, 300} || calls[0] != [2]uint64{70, 300} {
			t.Fatalf("progress calls %v", calls)
		}
		// The upgraded store works on.
		if _, err := db.PopTop(); err != nil {
			t.Fatal(err)
		}
		checkMatchesFresh(t, db)
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
		// And opens again without another upgrade.
		calls = nil
		db, err = Open(path, Options{Network: testNetwork, MigrationProgress: func(done, total uint64) {
			calls = append(calls, [2]uint64{done, total})
		}})
		if err != nil || len(calls) != 0 {
			t.Fatalf("second open: %v, %d progress calls", err, len(calls))
		}
		_ = db.Close()
	}
}

func TestMigrationOfCorruptStore(t *testing.T) {
	c := regtest(t)
	db, path := openTemp(t)
	db.bolt.NoSync = true
	appendAll(t, db, c.recs[:220])
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	downgrade(t, path, false)

	// A tx blob that no longer parses.
	setRaw(t, path, bucketTxBlobs, c.recs[212].Txs[0].Hash[:], []byte{2, 0, 1})
	_, err := Open(path, Options{Network: testNetwork})
	var ce *ErrCorrupt
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), "block 212") || !strings.Contains(err.Error(), "upgrade") {
		t.Fatalf("upgrade over a corrupt tx blob: err = %v", err)
	}
	t.Logf("corrupt tx blob: %v", err)

	// Repaired, but with block 218 spending block 201's key images again:
	// a store that cannot be indexed is refused, not half-upgraded.
	setRaw(t, path, bucketTxBlobs, c.recs[212].Txs[0].Hash[:], c.recs[212].Txs[0].Blob)
	setRaw(t, path, bucketTxBlobs, c.recs[218].Txs[0].Hash[:], c.recs[201].Txs[0].Blob)
	_, err = Open(path, Options{Network: testNetwork})
	var ks *ErrKeyImageSpent
	if !errors.As(err, &ks) || ks.Height != 201 || !strings.Contains(err.Error(), "block 218") {
		t.Fatalf("upgrade over a double spend: err = %v", err)
	}
	t.Logf("double spend: %v", err)

	setRaw(t, path, bucketTxBlobs, c.recs[218].Txs[0].Hash[:], c.recs[218].Txs[0].Blob)
	db, err = Open(path, Options{Network: testNetwork})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	checkMatchesFresh(t, db)
}
