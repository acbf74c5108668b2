package chaindb

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/cockroachdb/pebble/v2"
	"github.com/gonero/gonero/cryptonote"
)

const seedMain = 1

func TestRoundTrip(t *testing.T) {
	db, _ := openTemp(t)
	const n = 300
	appendSynth(t, db, seedMain, 0, n)

	err := db.View(func(r *Reader) error {
		height, err := r.Height()
		if err != nil || height != n {
			t.Fatalf("Height = %d, %v; want %d", height, err, n)
		}
		top, err := r.Top()
		if err != nil || top != synthBlock(seedMain, n-1).Meta {
			t.Fatalf("Top = %+v, %v", top, err)
		}
		var txs uint64
		for h := uint64(0); h < n; h++ {
			want := synthBlock(seedMain, h)
			txs += uint64(len(want.Txs))
			got, err := readRecord(r, h)
			if err != nil {
				t.Fatalf("height %d: %v", h, err)
			}
			if d := sameRecord(got, want); d != "" {
				t.Fatalf("height %d: %s", h, d)
			}
			byHash, err := r.MetaByHash(want.Meta.Hash)
			if err != nil || byHash != want.Meta {
				t.Fatalf("MetaByHash(height %d) = %+v, %v", h, byHash, err)
			}
			if hh, err := r.HeightByHash(want.Meta.Hash); err != nil || hh != h {
				t.Fatalf("HeightByHash(height %d) = %d, %v", h, hh, err)
			}
			for i, tx := range want.Txs {
				loc, err := r.TxLocation(tx.Hash)
				if err != nil || loc != (TxLocation{Height: h, Index: uint32(i)}) {
					t.Fatalf("TxLocation(height %d, tx %d) = %+v, %v", h, i, loc, err)
				}
			}
		}
		if got, err := r.TxCount(); err != nil || got != txs {
			t.Fatalf("TxCount = %d, %v; want %d", got, err, txs)
		}
		if r.Size() <= 0 {
			t.Fatalf("Size = %d", r.Size())
		}

		for _, rg := range [][2]uint64{{0, n}, {0, 0}, {n, n}, {10, 11}, {100, 235}, {n - 15, n}} {
			metas, err := r.MetasInRange(rg[0], rg[1])
			if err != nil {
				t.Fatalf("MetasInRange%v: %v", rg, err)
			}
			if uint64(len(metas)) != rg[1]-rg[0] {
				t.Fatalf("MetasInRange%v returned %d metas", rg, len(metas))
			}
			for i, m := range metas {
				if m != synthBlock(seedMain, rg[0]+uint64(i)).Meta {
					t.Fatalf("MetasInRange%v[%d] differs", rg, i)
				}
			}
		}
		for _, rg := range [][2]uint64{{0, n + 1}, {5, 4}, {n + 1, n + 2}} {
			if _, err := r.MetasInRange(rg[0], rg[1]); !errors.Is(err, ErrNotFound) {
				t.Fatalf("MetasInRange%v: err = %v, want ErrNotFound", rg, err)
			}
		}

		var unknown cryptonote.Hash
		unknown[0] = 0xAA
		for what, err := range map[string]error{
			"MetaByHeight": second(r.MetaByHeight(n)),
			"MetaByHash":   second(r.MetaByHash(unknown)),
			"HeightByHash": second(r.HeightByHash(unknown)),
			"BlockBlob":    second(r.BlockBlob(n)),
			"TxHashes":     second(r.TxHashes(n)),
			"TxBlob":       second(r.TxBlob(unknown)),
			"TxLocation":   second(r.TxLocation(unknown)),
			"AltBlock":     second(r.AltBlock(unknown)),
		} {
			if !errors.Is(err, ErrNotFound) {
				t.Errorf("%s of something absent: err = %v, want ErrNotFound", what, err)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	checkConsistent(t, db)
}

func second[T any](_ T, err error) error { return err }

func TestEmptyStore(t *testing.T) {
	db, _ := openTemp(t)
	err := db.View(func(r *Reader) error {
		if h, err := r.Height(); err != nil || h != 0 {
			t.Fatalf("Height = %d, %v", h, err)
		}
		if _, err := r.Top(); !errors.Is(err, ErrEmpty) {
			t.Fatalf("Top: err = %v, want ErrEmpty", err)
		}
		if n, err := r.TxCount(); err != nil || n != 0 {
			t.Fatalf("TxCount = %d, %v", n, err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.PopTop(); !errors.Is(err, ErrEmpty) {
		t.Fatalf("PopTop: err = %v, want ErrEmpty", err)
	}
	// Genesis must be at height 0; its prev hash is not checked.
	genesis := synthBlock(seedMain, 0)
	genesis.Meta.Height = 1
	var hm *ErrHeightMismatch
	if err := db.Append(genesis); !errors.As(err, &hm) || hm.Got != 1 || hm.Want != 0 {
		t.Fatalf("Append at height 1 of empty store: err = %v", err)
	}
	genesis = synthBlock(seedMain, 0)
	genesis.Meta.PrevHash[3] = 7
	if err := db.Append(genesis); err != nil {
		t.Fatal(err)
	}
}

func TestAppendRefusalsLeaveStoreUnchanged(t *testing.T) {
	db, _ := openTemp(t)
	const n = 20
	appendSynth(t, db, seedMain, 0, n)
	before := dump(t, db)
	next := func() BlockRecord { return synthBlock(seedMain, n) }

	// A tx that is already on the chain, and a block hash already on it.
	var onChain BlockRecord
	for h := uint64(n - 1); ; h-- {
		if onChain = synthBlock(seedMain, h); len(onChain.Txs) > 0 {
			break
		}
	}

	cases := []struct {
		name  string
		rec   func() BlockRecord
		check func(error) bool
	}{
		{"height too high", func() BlockRecord { r := next(); r.Meta.Height++; return r },
			func(err error) bool {
				var e *ErrHeightMismatch
				return errors.As(err, &e) && e.Got == n+1 && e.Want == n
			}},
		{"height too low", func() BlockRecord { return synthBlock(seedMain, n-1) },
			func(err error) bool {
				var e *ErrHeightMismatch
				return errors.As(err, &e) && e.Got == n-1 && e.Want == n
			}},
		{"wrong prev", func() BlockRecord { r := next(); r.Meta.PrevHash[0] ^= 1; return r },
			func(err error) bool {
				var e *ErrPrevMismatch
				return errors.As(err, &e) && e.Height == n && e.Want == synthHash(seedMain, n-1)
			}},
		{"blob size", func() BlockRecord { r := next(); r.Meta.BlobSize++; return r },
			func(err error) bool { var e *ErrInvalidRecord; return errors.As(err, &e) && e.Field == "Meta.BlobSize" }},
		{"tx count", func() BlockRecord { r := next(); r.Meta.NumTxes++; return r },
			func(err error) bool { var e *ErrInvalidRecord; return errors.As(err, &e) && e.Field == "Meta.NumTxes" }},
		{"tx twice in block", func() BlockRecord {
			r := next()
			r.Txs = []TxRecord{{Hash: cryptonote.Hash{1}}, {Hash: cryptonote.Hash{2}}, {Hash: cryptonote.Hash{1}}}
			r.Meta.NumTxes = 3
			return r
		}, func(err error) bool {
			var e *ErrDuplicateTx
			return errors.As(err, &e) && e.Hash == cryptonote.Hash{1} && e.Existing == TxLocation{Height: n, Index: 0}
		}},
		{"tx already on chain", func() BlockRecord {
			r := next()
			r.Txs = append(r.Txs, onChain.Txs[0])
			r.Meta.NumTxes++
			return r
		}, func(err error) bool {
			var e *ErrDuplicateTx
			return errors.As(err, &e) && e.Hash == onChain.Txs[0].Hash && e.Existing.Height == onChain.Meta.Height
		}},
		{"block already on chain", func() BlockRecord { r := next(); r.Meta.Hash = onChain.Meta.Hash; return r },
			func(err error) bool {
				var e *ErrDuplicateBlock
				return errors.As(err, &e) && e.Height == onChain.Meta.Height
			}},
	}
	for _, c := range cases {
		err := db.Append(c.rec())
		if err == nil || !c.check(err) {
			t.Errorf("%s: err = %v (%T)", c.name, err, err)
		}
		sameDump(t, c.name, before, dump(t, db))
	}
	// The store still takes the right block.
	appendSynth(t, db, seedMain, n, n+1)
	checkConsistent(t, db)
}

func TestPopTopToEmptyAndReappend(t *testing.T) {
	db, _ := openTemp(t)
	const n = 60
	appendSynth(t, db, seedMain, 0, n)
	for h := uint64(n); h > 0; h-- {
		rec, err := db.PopTop()
		if err != nil {
			t.Fatalf("pop height %d: %v", h-1, err)
		}
		if d := sameRecord(rec, synthBlock(seedMain, h-1)); d != "" {
			t.Fatalf("popped height %d: %s", h-1, d)
		}
		if got := checkConsistent(t, db); got != h-1 {
			t.Fatalf("height after pop = %d, want %d", got, h-1)
		}
	}
	if _, err := db.PopTop(); !errors.Is(err, ErrEmpty) {
		t.Fatalf("PopTop of empty store: err = %v", err)
	}
	for k := range dump(t, db) {
		if !strings.HasPrefix(k, string(bucketInfo)+"/") {
			t.Fatalf("entry %q left after popping everything", k)
		}
	}
	// Re-append the same chain, then a different branch after a partial pop.
	appendSynth(t, db, seedMain, 0, n)
	checkSynthContent(t, db, seedMain, n)
	for range 10 {
		if _, err := db.PopTop(); err != nil {
			t.Fatal(err)
		}
	}
	fork := synthBlock(2, n-10)
	fork.Meta.PrevHash = synthHash(seedMain, n-11)
	if err := db.Append(fork); err != nil {
		t.Fatal(err)
	}
	if got := checkConsistent(t, db); got != n-9 {
		t.Fatalf("height = %d, want %d", got, n-9)
	}
}

func TestAltBlocks(t *testing.T) {
	db, _ := openTemp(t)
	appendSynth(t, db, seedMain, 0, 5)
	alts := []BlockRecord{synthBlock(7, 3), synthBlock(7, 4), synthBlock(8, 4)}
	alts[2].Txs = nil // also a block without txs
	alts[2].Meta.NumTxes = 0
	for _, a := range alts {
		if err := db.PutAltBlock(a); err != nil {
			t.Fatal(err)
		}
	}
	wantCount := func(want uint64) {
		t.Helper()
		err := db.View(func(r *Reader) error {
			n, err := r.AltBlockCount()
			if err != nil || n != want {
				t.Fatalf("AltBlockCount = %d, %v; want %d", n, err, want)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	wantCount(3)
	// Replacing keeps the count.
	if err := db.PutAltBlock(alts[0]); err != nil {
		t.Fatal(err)
	}
	wantCount(3)
	err := db.View(func(r *Reader) error {
		for _, a := range alts {
			got, err := r.AltBlock(a.Meta.Hash)
			if err != nil {
				t.Fatal(err)
			}
			if d := sameRecord(got, a); d != "" {
				t.Fatalf("alt %s: %s", a.Meta.Hash, d)
			}
			// Alternative blocks are not on the main chain.
			if _, err := r.MetaByHash(a.Meta.Hash); !errors.Is(err, ErrNotFound) {
				t.Fatalf("alt block found on the main chain: %v", err)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.DeleteAltBlock(alts[1].Meta.Hash); err != nil {
		t.Fatal(err)
	}
	if err := db.DeleteAltBlock(alts[1].Meta.Hash); !errors.Is(err, ErrNotFound) {
		t.Fatalf("second delete: err = %v, want ErrNotFound", err)
	}
	wantCount(2)
	bad := synthBlock(9, 1)
	bad.Meta.BlobSize = 0
	var inv *ErrInvalidRecord
	if err := db.PutAltBlock(bad); !errors.As(err, &inv) {
		t.Fatalf("invalid alt block: err = %v", err)
	}
	wantCount(2)
	checkConsistent(t, db)

	// A popped block goes to the alternative store as it is.
	popped, err := db.PopTop()
	if err != nil {
		t.Fatal(err)
	}
	if err := db.PutAltBlock(popped); err != nil {
		t.Fatal(err)
	}
	wantCount(3)
	checkConsistent(t, db)
}

func TestReopenKeepsData(t *testing.T) {
	db, path := openTemp(t)
	appendSynth(t, db, seedMain, 0, 100)
	if err := db.PutAltBlock(synthBlock(5, 50)); err != nil {
		t.Fatal(err)
	}
	before := dump(t, db)
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db, err := Open(path, Options{Network: testNetwork})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	sameDump(t, "reopen", before, dump(t, db))
	checkSynthContent(t, db, seedMain, 100)
	appendSynth(t, db, seedMain, 100, 110)
	checkConsistent(t, db)
}

func TestOpenRefusals(t *testing.T) {
	db, path := openTemp(t)
	appendSynth(t, db, seedMain, 0, 3)

	// A second Open while the file is held: the lock wait ends with ErrInUse.
	start := time.Now()
	_, err := Open(path, Options{Network: testNetwork, LockTimeout: 200 * time.Millisecond})
	if !errors.Is(err, ErrInUse) || !strings.Contains(err.Error(), "database is in use by another process") {
		t.Fatalf("second Open: err = %v, want ErrInUse", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("second Open took %v", d)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	_, err = Open(path, Options{Network: "mainnet"})
	var nm *ErrNetworkMismatch
	if !errors.As(err, &nm) || nm.Stored != testNetwork || nm.Requested != "mainnet" {
		t.Fatalf("Open as mainnet: err = %v", err)
	}
	t.Logf("network mismatch: %v", err)

	if _, err := Open(path, Options{}); err == nil || !strings.Contains(err.Error(), "Network is required") {
		t.Fatalf("Open without network: err = %v", err)
	}

	// Rewrite the schema version behind the store's back.
	// (schemaVersionPruned is the newest layout this build reads.)
	future := schemaVersionPruned + 1
	setRaw(t, path, bucketInfo, infoSchemaVersion, encodeU32(future))
	_, err = Open(path, Options{Network: testNetwork})
	var sv *ErrSchemaVersion
	if !errors.As(err, &sv) || sv.Found != future || sv.Want != schemaVersion {
		t.Fatalf("Open with schema %d: err = %v", future, err)
	}
	t.Logf("schema mismatch: %v", err)

	// A bbolt file that is not a chain store, and a file that is not bbolt.
	other := filepath.Join(t.TempDir(), "other.db")
	bdb, err := bolt.Open(other, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := bdb.Update(func(tx *bolt.Tx) error { _, err := tx.CreateBucket([]byte("x")); return err }); err != nil {
		t.Fatal(err)
	}
	_ = bdb.Close()
	if _, err := Open(other, Options{Network: testNetwork}); err == nil || !strings.Contains(err.Error(), "not a chain store") {
		t.Fatalf("Open of a foreign bbolt file: err = %v", err)
	}
	junk := filepath.Join(t.TempDir(), "junk.db")
	if err := os.WriteFile(junk, make([]byte, 64<<10), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(junk, Options{Network: testNetwork}); err == nil {
		t.Fatal("Open of a zero-filled file succeeded")
	}
}

// setRaw overwrites one stored value directly, bypassing the package.
func setRaw(t *testing.T, path string, bucket, key, value []byte) {
	t.Helper()
	if p, ok := lsmPrefix(bucket); ok {
		lsm, err := openLSM(path, false)
		if err != nil {
			t.Fatal(err)
		}
		defer lsm.Close()
		if err := lsm.Set(append([]byte{p}, key...), value, pebble.Sync); err != nil {
			t.Fatal(err)
		}
		return
	}
	bdb, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer bdb.Close()
	if err := bdb.Update(func(tx *bolt.Tx) error { return tx.Bucket(bucket).Put(key, value) }); err != nil {
		t.Fatal(err)
	}
}

func TestCorruptValuesAreReported(t *testing.T) {
	db, path := openTemp(t)
	appendSynth(t, db, seedMain, 0, 10)
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	top := synthBlock(seedMain, 9)
	setRaw(t, path, bucketBlockMeta, heightKey(4), []byte{metaLayoutV1, 1, 2, 3})
	setRaw(t, path, bucketBlockTxs, heightKey(5), []byte{9, 0, 0, 0, 1})
	setRaw(t, path, bucketAltBlocks, []byte("0123456789abcdef0123456789abcdef"), []byte{altLayoutV1, 0})

	db, err := Open(path, Options{Network: testNetwork})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	// The top block's hash entry names another height. (Open checks the
	// top block's entry: it is changed after.)
	p, _ := lsmPrefix(bucketBlockHeights)
	if err := db.lsm.db.Set(append([]byte{p}, top.Meta.Hash[:]...), encodeU64(3), pebble.Sync); err != nil {
		t.Fatal(err)
	}
	err = db.View(func(r *Reader) error {
		var altKey cryptonote.Hash
		copy(altKey[:], "0123456789abcdef0123456789abcdef")
		for what, err := range map[string]error{
			"MetaByHeight(4)":   second(r.MetaByHeight(4)),
			"MetasInRange(0,9)": second(r.MetasInRange(0, 9)),
			"TxHashes(5)":       second(r.TxHashes(5)),
			"AltBlock":          second(r.AltBlock(altKey)),
		} {
			var c *ErrCorrupt
			if !errors.As(err, &c) {
				t.Errorf("%s: err = %v, want *ErrCorrupt", what, err)
			} else {
				t.Logf("%s: %v", what, err)
			}
		}
		// An LSM entry naming another block is one the view does not have
		// (lsm.go): the top block is not found by its hash.
		if _, err := r.MetaByHash(top.Meta.Hash); !errors.Is(err, ErrNotFound) {
			t.Errorf("MetaByHash(top) over an entry naming height 3: err = %v, want ErrNotFound", err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// The top block's hash index is wrong: popping must refuse, not half-delete.
	before := dump(t, db)
	var c *ErrCorrupt
	if _, err := db.PopTop(); !errors.As(err, &c) {
		t.Fatalf("PopTop over a corrupt index: err = %v", err)
	}
	sameDump(t, "refused pop", before, dump(t, db))
}

// A panic inside Update rolls the transaction back and releases the write
// lock, as bbolt's own Update does: the next write goes through.
func TestUpdatePanicReleasesTheWriter(t *testing.T) {
	// Not openTemp: its cleanup's Close would wait forever for a write
	// lock left held, and the test would hang instead of failing.
	db, err := Open(filepath.Join(t.TempDir(), "chain.db"), Options{Network: testNetwork})
	if err != nil {
		t.Fatal(err)
	}
	appendSynth(t, db, seedMain, 0, 2)
	func() {
		defer func() { _ = recover() }()
		_ = db.Update(func(w *Writer) error {
			if _, err := w.PopTop(); err != nil {
				return err
			}
			panic("boom")
		})
	}()
	done := make(chan error, 1)
	go func() { done <- db.Append(synthBlock(seedMain, 2)) }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("append after a panicking Update: %v (the pop must have been rolled back)", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the write lock is still held after a panicking Update")
	}
	checkConsistent(t, db)
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
}
