package chaindb

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	bolt "go.etcd.io/bbolt"

	"github.com/cockroachdb/pebble/v2"
	"github.com/gonero/gonero/cryptonote"
)

// downgrade turns a closed store into the schema-1 layout: tx blobs keyed
// by hash (ungroupBlobs), the index buckets gone, version 1. With
// leftovers, it keeps some junk in one index bucket, as an upgrade
// interrupted by a crash would.
func downgrade(t *testing.T, path string, leftovers bool) {
	t.Helper()
	ungroupBlobs(t, path, schemaVersionNoIndexes)
	rawUpdate(t, path, func(tx *bolt.Tx) error {
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
		return nil
	})
}

// ungroupBlobs rewrites a closed store's tx blobs into the layout of
// schema versions 1-3 (bucket tx_blobs: tx hash → blob, pruned or not) and
// writes version.
func ungroupBlobs(t *testing.T, path string, version uint32) {
	t.Helper()
	indexesToBolt(t, path)
	rawUpdate(t, path, func(tx *bolt.Tx) error {
		old, err := tx.CreateBucket(bucketTxBlobsByHash)
		if err != nil {
			return err
		}
		r := &Reader{tx: &stx{Tx: tx}}
		height, err := r.Height()
		if err != nil {
			return err
		}
		for h := range height {
			ids, err := r.TxHashes(h)
			if err != nil || len(ids) == 0 {
				if err != nil {
					return err
				}
				continue
			}
			blobs, err := decodeBlockTxBlobs(tx.Bucket(bucketBlockTxBlobs).Get(heightKey(h)))
			if err != nil {
				return err
			}
			for i, id := range ids {
				if err := old.Put(id[:], append([]byte(nil), blobs[i]...)); err != nil {
					return err
				}
			}
		}
		if err := tx.DeleteBucket(bucketBlockTxBlobs); err != nil {
			return err
		}
		return tx.Bucket(bucketInfo).Put(infoSchemaVersion, encodeU32(version))
	})
}

// fixedWidthIndexes rewrites, inside tx, every index value into the layout
// of schema versions 2-7: outputs of layout 1 (fixed-width, with the tx
// hash), index lists as a u32 count and u64s, heights and counts as u64s.
func fixedWidthIndexes(tx *bolt.Tx) error {
	r := &Reader{tx: &stx{Tx: tx}}
	type entry struct{ k, v []byte }
	rewrite := func(name []byte, conv func(k, v []byte) ([]byte, error)) error {
		var all []entry
		err := tx.Bucket(name).ForEach(func(k, v []byte) error {
			nv, err := conv(k, v)
			all = append(all, entry{append([]byte(nil), k...), nv})
			return err
		})
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		for _, e := range all {
			if err := tx.Bucket(name).Put(e.k, e.v); err != nil {
				return err
			}
		}
		return nil
	}
	u64 := func(_, v []byte) ([]byte, error) {
		n, err := decodeUvarint(v)
		return encodeU64(n), err
	}
	le := binary.LittleEndian
	for _, step := range []struct {
		name []byte
		conv func(k, v []byte) ([]byte, error)
	}{
		{bucketMinerTxs, u64}, {bucketRctCounts, u64},
	} {
		if err := rewrite(step.name, step.conv); err != nil {
			return err
		}
	}
	err := oneEntryAnOutput(tx, func(o *OutputEntry) []byte {
		old := append([]byte{1}, o.Key[:]...)
		if o.Amount == 0 {
			old = append(old, o.Commitment[:]...)
		}
		old = le.AppendUint64(le.AppendUint64(old, o.UnlockTime), o.Height)
		old = append(old, o.TxHash[:]...)
		return le.AppendUint32(old, o.Position)
	})
	if err != nil {
		return err
	}
	// spent_keys back to whole key images → u64 height, from the blocks.
	if err := recreateBoltBucket(tx, bucketSpentKeys); err != nil {
		return err
	}
	height, err := r.Height()
	if err != nil {
		return err
	}
	for h := range height {
		rec, err := r.recordChecked(h, false)
		if err != nil {
			return err
		}
		bi, err := deriveIndexes(&rec)
		if err != nil {
			return err
		}
		for _, ki := range bi.keyImages {
			if err := tx.Bucket(bucketSpentKeys).Put(append([]byte(nil), ki[:]...), encodeU64(h)); err != nil {
				return err
			}
		}
	}
	// tx_index back into tx_locations (non-coinbase txs: u64 height, u32
	// index) and tx_outputs (every tx: u32 count, u64 indexes).
	locs, err := tx.CreateBucket(bucketTxLocationsV1)
	if err != nil {
		return err
	}
	outs, err := tx.CreateBucket(bucketTxOutputsV2)
	if err != nil {
		return err
	}
	err = tx.Bucket(bucketTxIndex).ForEach(func(_, v []byte) error {
		entries, err := decodeTxEntries(v, true)
		if err != nil {
			return err
		}
		for _, e := range entries {
			hash, err := r.txHashAt(e.height, e.slot)
			if err != nil {
				return err
			}
			if e.slot > 0 {
				loc := le.AppendUint32(le.AppendUint64(nil, e.height), e.slot-1)
				if err := locs.Put(bytes.Clone(hash[:]), loc); err != nil {
					return err
				}
			}
			old := le.AppendUint32(nil, uint32(len(e.idx)))
			for _, i := range e.idx {
				old = le.AppendUint64(old, i)
			}
			if err := outs.Put(bytes.Clone(hash[:]), old); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	return tx.DeleteBucket(bucketTxIndex)
}

// wideIndexes rewrites, inside tx, the indexes into the layout of schema
// versions 8 and 9: tx_index keyed by whole tx hashes, one entry a key,
// and output entries of layout 2 (the key, the commitment for amount 0,
// then uvarints unlock time, height, slot and position).
func wideIndexes(tx *bolt.Tx) error {
	r := &Reader{tx: &stx{Tx: tx}}
	type entry struct{ k, v []byte }
	err := oneEntryAnOutput(tx, func(o *OutputEntry) []byte {
		v := append([]byte{2}, o.Key[:]...)
		if o.Amount == 0 {
			v = append(v, o.Commitment[:]...)
		}
		for _, n := range []uint64{o.UnlockTime, o.Height, uint64(o.slot), uint64(o.Position)} {
			v = binary.AppendUvarint(v, n)
		}
		return v
	})
	if err != nil {
		return err
	}
	var all []entry
	err = tx.Bucket(bucketTxIndex).ForEach(func(_, v []byte) error {
		entries, err := decodeTxEntries(v, false)
		if err != nil {
			return err
		}
		for _, e := range entries {
			hash, err := r.txHashAt(e.height, e.slot)
			if err != nil {
				return err
			}
			all = append(all, entry{bytes.Clone(hash[:]), bytes.Clone(e.raw)})
		}
		return nil
	})
	if err != nil {
		return err
	}
	if err := recreateBoltBucket(tx, bucketTxIndex); err != nil {
		return err
	}
	for _, e := range all {
		if err := tx.Bucket(bucketTxIndex).Put(e.k, e.v); err != nil {
			return err
		}
	}
	return nil
}

// oneEntryAnOutput rewrites, inside tx, the outputs bucket as schema
// versions 2-9 kept it: every output, amount 0 included, in an entry of
// its own that encode makes; rct_outputs goes.
func oneEntryAnOutput(tx *bolt.Tx, encode func(o *OutputEntry) []byte) error {
	r := &Reader{tx: &stx{Tx: tx}}
	var all []OutputEntry
	err := r.ForEachOutputAmount(func(amount, count uint64) error {
		for index := range count {
			o, err := r.Output(amount, index)
			if err != nil {
				return err
			}
			all = append(all, o)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if err := recreateBoltBucket(tx, bucketOutputs); err != nil {
		return err
	}
	for i := range all {
		if err := tx.Bucket(bucketOutputs).Put(outputKey(all[i].Amount, all[i].Index), encode(&all[i])); err != nil {
			return err
		}
	}
	return tx.DeleteBucket(bucketRctOutputs)
}

// recreateBoltBucket empties bbolt bucket name, creating it if needed.
func recreateBoltBucket(tx *bolt.Tx, name []byte) error {
	if tx.Bucket(name) != nil {
		if err := tx.DeleteBucket(name); err != nil {
			return err
		}
	}
	_, err := tx.CreateBucket(name)
	return err
}

// indexesToBolt puts a closed store's LSM indexes back into its bbolt file,
// as buckets, and removes the LSM: the layout of schema 10 and earlier,
// which the helpers above rewrite further.
func indexesToBolt(t *testing.T, path string) {
	t.Helper()
	lsm, err := openLSM(path, false)
	if err != nil {
		t.Fatal(err)
	}
	rawUpdate(t, path, func(tx *bolt.Tx) error {
		for _, name := range lsmBuckets {
			b, err := tx.CreateBucketIfNotExists(name)
			if err != nil {
				return err
			}
			var putErr error
			forEachLSM(&stx{Tx: tx, ix: &indexTxn{lsm: lsm}}, name, func(k, v []byte) {
				if err := b.Put(k, v); err != nil && putErr == nil {
					putErr = err
				}
			})
			if putErr != nil {
				return putErr
			}
		}
		return nil
	})
	if err := lsm.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(lsmPath(path)); err != nil {
		t.Fatal(err)
	}
}

// rawUpdate runs fn in one bbolt transaction on a closed store's file.
func rawUpdate(t *testing.T, path string, fn func(tx *bolt.Tx) error) {
	t.Helper()
	bdb, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer bdb.Close()
	if err := bdb.Update(fn); err != nil {
		t.Fatal(err)
	}
}

// TestMigrationFromSchema2And3 upgrades stores whose tx blobs are keyed by
// hash (schema 2, and 3 once pruned) to blobs grouped per block, also from
// an upgrade interrupted after two batches: the stores equal those this
// build writes, and work on.
// testMigrationBatch makes an upgrade of the 300-block regtest chain take
// several batches, so that resuming between them is exercised.
const testMigrationBatch = 70

func TestMigrationFromSchema2And3(t *testing.T) {
	c := regtest(t)
	for _, tc := range []struct {
		name        string
		pruned      bool
		interrupted bool
	}{{"schema 2", false, false}, {"schema 3 (pruned)", true, false}, {"schema 2 interrupted", false, true}} {
		db, path := openTemp(t)
		db.bolt.NoSync = true
		version, wantVersion := schemaVersionHashKeyedBlobs, schemaVersion
		if tc.pruned {
			// A synthetic chain long enough to leave the pruning tip, so
			// that blobs really are pruned (prune_test.go's).
			appendSynth(t, db, 1, 0, pruneChainHeight)
			if res, err := db.Prune(PruneAll, 1); err != nil || res.PrunedTxs == 0 {
				t.Fatalf("prune: %+v %v", res, err)
			}
			version, wantVersion = schemaVersionHashKeyedBlobsPruned, schemaVersionPruned
		} else {
			appendAll(t, db, c.recs)
		}
		var height uint64
		_ = db.View(func(r *Reader) (err error) { height, err = r.Height(); return })
		want := dump(t, db)
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
		ungroupBlobs(t, path, version)
		if tc.interrupted {
			// What two committed batches of migrateBlobs leave.
			rawUpdate(t, path, func(tx *bolt.Tx) error {
				if _, err := tx.CreateBucket(bucketBlockTxBlobs); err != nil {
					return err
				}
				if err := regroupBlobs(&stx{Tx: tx}, 0, 70); err != nil {
					return err
				}
				return regroupBlobs(&stx{Tx: tx}, 70, 140)
			})
		}
		var calls [][2]uint64
		db, err := Open(path, Options{Network: testNetwork, MigrationBatch: testMigrationBatch, MigrationProgress: func(done, total uint64) {
			calls = append(calls, [2]uint64{done, total})
		}})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if d := diffDumps(dump(t, db), want); d != "" {
			t.Fatalf("%s: upgraded store differs from one this build wrote:%s", tc.name, d)
		}
		start := uint64(0)
		if tc.interrupted {
			start = 140
		}
		// The blobs' batches, then migrateMinerTxs' over the whole chain.
		if wantCalls := int((height-start+69)/70 + (height+69)/70); len(calls) != wantCalls || calls[len(calls)-1] != [2]uint64{height, height} {
			t.Fatalf("%s: progress calls %v", tc.name, calls)
		}
		err = db.View(func(r *Reader) error {
			v, err := decodeU32(r.tx.Bucket(bucketInfo).Get(infoSchemaVersion))
			if err == nil && v != wantVersion {
				err = fmt.Errorf("schema version %d, want %d", v, wantVersion)
			}
			if r.tx.Bucket(bucketTxBlobsByHash) != nil || r.tx.Bucket(bucketInfo).Get(infoBlobUpgradeNext) != nil {
				err = errors.New("the old bucket or the progress key is left")
			}
			return err
		})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if !tc.pruned {
			if _, err := db.PopTop(); err != nil {
				t.Fatal(err)
			}
			checkMatchesFresh(t, db)
		}
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

func TestMigrationFromSchema1(t *testing.T) {
	c := regtest(t)
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
		db, err := Open(path, Options{Network: testNetwork, MigrationBatch: testMigrationBatch, MigrationProgress: func(done, total uint64) {
			calls = append(calls, [2]uint64{done, total})
		}})
		if err != nil {
			t.Fatal(err)
		}
		if d := diffDumps(dump(t, db), want); d != "" {
			t.Fatalf("leftovers %v: upgraded store differs from one built at schema 2:%s", leftovers, d)
		}
		// Five batches regrouping the tx blobs, then five building the indexes.
		if len(calls) != 10 || calls[9] != [2]uint64{300, 300} || calls[0] != [2]uint64{70, 300} || calls[5] != [2]uint64{70, 300} {
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
		db, err = Open(path, Options{Network: testNetwork, MigrationBatch: testMigrationBatch, MigrationProgress: func(done, total uint64) {
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
	setRaw(t, path, bucketTxBlobsByHash, c.recs[212].Txs[0].Hash[:], []byte{2, 0, 1})
	_, err := Open(path, Options{Network: testNetwork})
	var ce *ErrCorrupt
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), "block 212") || !strings.Contains(err.Error(), "upgrade") {
		t.Fatalf("upgrade over a corrupt tx blob: err = %v", err)
	}
	t.Logf("corrupt tx blob: %v", err)

	// Repaired, but with block 218 spending block 201's key images again:
	// a store that cannot be indexed is refused, not half-upgraded.
	// The failed upgrade had regrouped the tx blobs per block already (a
	// resumable step of its own); the repair goes there.
	setBlockTxBlob(t, path, 212, 0, c.recs[212].Txs[0].Blob)
	setBlockTxBlob(t, path, 218, 0, c.recs[201].Txs[0].Blob)
	_, err = Open(path, Options{Network: testNetwork})
	var ks *ErrKeyImageSpent
	if !errors.As(err, &ks) || ks.Height != 201 || !strings.Contains(err.Error(), "block 218") {
		t.Fatalf("upgrade over a double spend: err = %v", err)
	}
	t.Logf("double spend: %v", err)

	setBlockTxBlob(t, path, 218, 0, c.recs[218].Txs[0].Blob)
	db, err = Open(path, Options{Network: testNetwork})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	checkMatchesFresh(t, db)
}

// setBlockTxBlob replaces tx i's blob of height h in a closed store.
func setBlockTxBlob(t *testing.T, path string, h uint64, i int, blob []byte) {
	t.Helper()
	rawUpdate(t, path, func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketBlockTxBlobs)
		blobs, err := decodeBlockTxBlobs(b.Get(heightKey(h)))
		if err != nil {
			return err
		}
		blobs[i] = blob
		return b.Put(heightKey(h), encodeBlockTxBlobs(blobs))
	})
}

// TestMigrationFromSchema4To9 upgrades stores without miner_txs (schema 4,
// and 5 once pruned), also with a bucket an interrupted upgrade left half
// built, and stores whose index values have the fixed-width layout 1
// (schema 6, and 7 once pruned): the stores equal those this build writes,
// the genesis block's version-1 miner tx is found by its hash, and they
// work on.
func TestMigrationFromSchema4To9(t *testing.T) {
	c := regtest(t)
	for _, tc := range []struct {
		name        string
		pruned      bool
		interrupted bool
		fixedWidth  bool
		wide        bool // schemas 8 and 9
	}{
		{"schema 4", false, false, false, false}, {"schema 5 (pruned)", true, false, false, false},
		{"schema 4 interrupted", false, true, false, false},
		{"schema 6", false, false, true, false}, {"schema 7 (pruned)", true, false, true, false},
		{"schema 8", false, false, false, true}, {"schema 9 (pruned)", true, false, false, true},
	} {
		db, path := openTemp(t)
		db.bolt.NoSync = true
		version, wantVersion := schemaVersionNoMinerTxs, schemaVersion
		if tc.fixedWidth {
			version = schemaVersionFixedIndexes
		}
		if tc.wide {
			version = schemaVersionWideIndexes
		}
		if tc.pruned {
			appendSynth(t, db, 1, 0, pruneChainHeight)
			if res, err := db.Prune(PruneAll, 1); err != nil || res.PrunedTxs == 0 {
				t.Fatalf("prune: %+v %v", res, err)
			}
			version, wantVersion = schemaVersionNoMinerTxsPruned, schemaVersionPruned
			if tc.fixedWidth {
				version = schemaVersionFixedIndexesPruned
			}
			if tc.wide {
				version = schemaVersionWideIndexesPruned
			}
		} else {
			appendAll(t, db, c.recs)
		}
		var genesisMiner cryptonote.Hash
		var minerTxs int
		_ = db.View(func(r *Reader) error {
			m, err := r.MetaByHeight(0)
			genesisMiner = m.MinerTxHash
			minerTxs = r.tx.Bucket(bucketMinerTxs).Stats().KeyN
			return err
		})
		if minerTxs == 0 && !tc.pruned { // the synthetic chain's are version 2
			t.Fatalf("%s: this build indexed no version-1 miner tx", tc.name)
		}
		want := dump(t, db)
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
		indexesToBolt(t, path)
		rawUpdate(t, path, func(tx *bolt.Tx) error {
			convert := fixedWidthIndexes // schemas 4-7's layout
			if tc.wide {
				convert = wideIndexes
			}
			if err := convert(tx); err != nil {
				return err
			}
			switch { // schemas 6 to 9 have miner_txs; 4 and 5 not
			case tc.interrupted:
				// Half built, with an entry no block makes.
				if err := tx.Bucket(bucketMinerTxs).Put(make([]byte, 32), encodeU64(7)); err != nil {
					return err
				}
			case !tc.fixedWidth && !tc.wide:
				if err := tx.DeleteBucket(bucketMinerTxs); err != nil {
					return err
				}
			}
			return tx.Bucket(bucketInfo).Put(infoSchemaVersion, encodeU32(version))
		})
		db, err := Open(path, Options{Network: testNetwork, MigrationBatch: testMigrationBatch})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if d := diffDumps(dump(t, db), want); d != "" {
			t.Fatalf("%s: upgraded store differs from one this build wrote:%s", tc.name, d)
		}
		err = db.View(func(r *Reader) error {
			v, err := decodeU32(r.tx.Bucket(bucketInfo).Get(infoSchemaVersion))
			if err == nil && v != wantVersion {
				return fmt.Errorf("schema version %d, want %d", v, wantVersion)
			}
			if err != nil || tc.pruned { // the regtest chain's genesis has one
				return err
			}
			if h, err := r.MinerTxHeight(genesisMiner); err != nil || h != 0 {
				return fmt.Errorf("the genesis miner tx: height %d, %v", h, err)
			}
			return nil
		})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if !tc.pruned {
			if _, err := db.PopTop(); err != nil {
				t.Fatal(err)
			}
			checkMatchesFresh(t, db)
		}
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// TestMigrationFromSchema10 opens stores of schema 10 and 11 (pruned), whose
// hash-keyed indexes are buckets of the bbolt file: Open moves them into
// the LSM, also when an earlier, interrupted Open left a partial copy and
// leftovers there; the stores equal those this build writes, and work on.
func TestMigrationFromSchema10(t *testing.T) {
	c := regtest(t)
	for _, tc := range []struct {
		name        string
		pruned      bool
		interrupted bool
	}{{"schema 10", false, false}, {"schema 11 (pruned)", true, false}, {"schema 10 interrupted", false, true}} {
		db, path := openTemp(t)
		db.bolt.NoSync = true
		version, wantVersion := schemaVersionBoltIndexes, schemaVersion
		if tc.pruned {
			appendSynth(t, db, 1, 0, pruneChainHeight)
			if res, err := db.Prune(PruneAll, 1); err != nil || res.PrunedTxs == 0 {
				t.Fatalf("prune: %+v %v", res, err)
			}
			version, wantVersion = schemaVersionBoltIndexesPruned, schemaVersionPruned
		} else {
			appendAll(t, db, c.recs)
		}
		want := dump(t, db)
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
		indexesToBolt(t, path)
		rawUpdate(t, path, func(tx *bolt.Tx) error {
			return tx.Bucket(bucketInfo).Put(infoSchemaVersion, encodeU32(version))
		})
		if tc.interrupted {
			// Half a copy, and a leftover no block confirms.
			lsm, err := openLSM(path, false)
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			forEach := func(name []byte, fn func(k, v []byte)) {
				rawUpdate(t, path, func(tx *bolt.Tx) error {
					return tx.Bucket(name).ForEach(func(k, v []byte) error { fn(k, v); return nil })
				})
			}
			forEach(bucketTxIndex, func(k, v []byte) {
				if n++; n%2 == 0 {
					_ = lsm.Set(append([]byte{'t'}, k...), v, pebble.NoSync)
				}
			})
			_ = lsm.Set(append([]byte{'s'}, "leftover"...), encodeSpentHeights([]uint64{3}), pebble.Sync)
			if err := lsm.Close(); err != nil {
				t.Fatal(err)
			}
		}
		var calls [][2]uint64
		db, err := Open(path, Options{Network: testNetwork, MigrationProgress: func(done, total uint64) {
			calls = append(calls, [2]uint64{done, total})
		}})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if d := diffDumps(dump(t, db), want); d != "" {
			t.Fatalf("%s: upgraded store differs from one this build wrote:%s", tc.name, d)
		}
		if len(calls) == 0 || calls[len(calls)-1][0] != calls[len(calls)-1][1] {
			t.Fatalf("%s: progress calls %v", tc.name, calls)
		}
		err = db.View(func(r *Reader) error {
			v, err := decodeU32(r.tx.Bucket(bucketInfo).Get(infoSchemaVersion))
			if err == nil && v != wantVersion {
				err = fmt.Errorf("schema version %d, want %d", v, wantVersion)
			}
			for _, name := range lsmBuckets {
				if r.tx.Bucket(name) != nil {
					err = fmt.Errorf("bucket %s is still in the bbolt file", name)
				}
			}
			return err
		})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if !tc.pruned {
			if _, err := db.PopTop(); err != nil {
				t.Fatal(err)
			}
			checkMatchesFresh(t, db)
		}
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// TestOpenRefusesAnotherIndexStore: a store whose LSM directory is gone,
// or is another store's, is refused at Open with a message that says what
// to do, instead of answering from empty indexes.
func TestOpenRefusesAnotherIndexStore(t *testing.T) {
	db, path := openTemp(t)
	appendSynth(t, db, seedMain, 0, 5)
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(lsmPath(path)); err != nil {
		t.Fatal(err)
	}
	_, err := Open(path, Options{Network: testNetwork})
	if err == nil || !strings.Contains(err.Error(), "does not know the top block") {
		t.Fatalf("Open without its index store: %v", err)
	}
}
