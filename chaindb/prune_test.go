package chaindb

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/gonero/gonero/cryptonote"
	"github.com/gonero/gonero/pruning"
	bolt "go.etcd.io/bbolt"
)

// pruneChainHeight puts heights [0, 4200) outside the 5,500-block tip:
// all of stripe 1 and the start of stripe 2.
const pruneChainHeight = 9700

// expectPruned checks every tx of blocks [0, height) against the synthetic
// chain it was built from: pruned exactly when seed lacks its block (v2
// only), the pruned part and prunable hash those of the original blob
// split by the codec, and the full blob back where not pruned.
func expectPruned(t *testing.T, db *DB, seed, synth uint64, height, horizon uint64, pruningSeed uint32) (pruned int) {
	t.Helper()
	err := db.View(func(r *Reader) error {
		for h := uint64(0); h < height; h++ {
			rec := synthBlock(synth, h)
			for _, tr := range rec.Txs {
				tx, err := cryptonote.ParseTransaction(tr.Blob)
				if err != nil {
					return err
				}
				blob, n := tx.SplitBlob()
				p, err := r.TxParts(tr.Hash)
				if err != nil {
					return err
				}
				want := h < horizon && !pruning.HasUnprunedBlock(h, height, pruningSeed) && tx.Version > 1
				if p.HasPrunable == want {
					t.Fatalf("height %d tx %s: has prunable %v, want pruned %v", h, tr.Hash, p.HasPrunable, want)
				}
				if string(p.Pruned) != string(blob[:n]) {
					t.Fatalf("height %d tx %s: pruned part differs", h, tr.Hash)
				}
				if tx.Version > 1 && p.PrunableHash != cryptonote.Keccak256(blob[n:]) {
					t.Fatalf("height %d tx %s: prunable hash differs", h, tr.Hash)
				}
				full, err := r.TxBlob(tr.Hash)
				if want {
					pruned++
					if !errors.Is(err, ErrPruned) {
						t.Fatalf("height %d: TxBlob of a pruned tx: %v", h, err)
					}
				} else if err != nil || string(full) != string(tr.Blob) {
					t.Fatalf("height %d: TxBlob of an unpruned tx: %v", h, err)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return pruned
}

// everyOutput reads every output of the main chain, by amount and index.
func everyOutput(t *testing.T, db *DB) []OutputEntry {
	t.Helper()
	var all []OutputEntry
	err := db.View(func(r *Reader) error {
		return r.ForEachOutputAmount(func(amount, count uint64) error {
			return r.EachOutput(int(count), func(i int) (uint64, uint64) { return amount, uint64(i) }, func(_ int, o *OutputEntry) error {
				all = append(all, *o)
				return nil
			})
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(all) == 0 {
		t.Fatal("no outputs")
	}
	return all
}

func TestPruneInPlace(t *testing.T) {
	db := openFast(t)
	const synth = 77
	appendSynth(t, db, synth, 0, pruneChainHeight)

	// Incremental pruning does nothing to an unpruned store.
	if res, err := db.Prune(PruneUpdate, 0); err != nil || res.Seed != 0 || res.PrunedTxs != 0 {
		t.Fatalf("update on unpruned store: %+v %v", res, err)
	}
	outputs := everyOutput(t, db)
	// Stripe 1 keeps 0-4,095 and drops 4,096-4,199 (stripe 2).
	res, err := db.Prune(PruneAll, 1)
	if err != nil {
		t.Fatal(err)
	}
	// Output entries point into the tx blobs, which pruning cut short:
	// the places are in the part it keeps, so every output reads the same.
	if after := everyOutput(t, db); !reflect.DeepEqual(after, outputs) {
		t.Fatalf("the outputs read differently after pruning (%d before, %d after)", len(outputs), len(after))
	}
	if res.Seed != 0x180 {
		t.Fatalf("seed %#x, want 0x180", res.Seed)
	}
	horizon := uint64(pruneChainHeight - pruning.TipBlocks)
	n := expectPruned(t, db, 0, synth, pruneChainHeight, horizon, res.Seed)
	if n == 0 || uint64(n) != res.PrunedTxs {
		t.Fatalf("pruned %d txs, run reported %d", n, res.PrunedTxs)
	}
	// The prunable hashes take space too: BucketStats, which the storage
	// benchmarks add up, counts their bucket.
	st, err := db.BucketStats()
	if err != nil {
		t.Fatal(err)
	}
	if i := slices.IndexFunc(st, func(s BucketStat) bool { return s.Name == string(bucketTxPrunableHash) }); i < 0 ||
		uint64(st[i].Keys) != res.PrunedTxs || st[i].Allocated == 0 {
		t.Fatalf("BucketStats of a pruned store: %+v, want tx_prunable_hash with %d keys", st, res.PrunedTxs)
	}
	var seed uint32
	_ = db.View(func(r *Reader) (err error) { seed, err = r.PruningSeed(); return })
	if seed != 0x180 {
		t.Fatalf("stored seed %#x", seed)
	}
	// The store now carries the pruned layout's schema version, which a build
	// that cannot read pruned records refuses.
	var version []byte
	_ = db.bolt.View(func(tx *bolt.Tx) error {
		version = append(version, tx.Bucket(bucketInfo).Get(infoSchemaVersion)...)
		return nil
	})
	if v, err := decodeU32(version); err != nil || v != schemaVersionPruned {
		t.Fatalf("schema version after pruning: %d %v, want %d", v, err, schemaVersionPruned)
	}
	// Once pruned, stays pruned with that seed.
	if _, err := db.Prune(PruneAll, 3); err == nil {
		t.Fatal("re-pruning with another stripe accepted")
	}
	if again, err := db.Prune(PruneAll, 0); err != nil || again.PrunedTxs != 0 || again.Seed != 0x180 {
		t.Fatalf("second full prune: %+v %v", again, err)
	}

	// Growing by 300 blocks moves 4,200-4,499 out of the tip; the update
	// prunes them (stripe 2) and nothing else.
	const grown = pruneChainHeight + 300
	appendSynth(t, db, synth, pruneChainHeight, grown)
	up, err := db.Prune(PruneUpdate, 0)
	if err != nil {
		t.Fatal(err)
	}
	n2 := expectPruned(t, db, 0, synth, grown, grown-pruning.TipBlocks, res.Seed)
	if uint64(n2-n) != up.PrunedTxs || up.PrunedTxs == 0 {
		t.Fatalf("update pruned %d, store shows %d more", up.PrunedTxs, n2-n)
	}

	// A pruned block cannot become an alternative block.
	var rec BlockRecord
	if err := db.View(func(r *Reader) (err error) { rec, err = r.record(4150); return }); err != nil {
		t.Fatal(err)
	}
	anyPruned := false
	for _, tx := range rec.Txs {
		anyPruned = anyPruned || tx.Pruned
	}
	if !anyPruned {
		t.Fatal("block 4150 has no pruned tx")
	}
	if err := db.PutAltBlock(rec); err == nil {
		t.Fatal("pruned block stored as alternative block")
	}

	// Popping down into pruned blocks works, lowers the pruned horizon, and
	// leaves every index as a fresh append of the shorter chain makes it.
	for range grown - 4300 {
		if _, err := db.PopTop(); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.View(func(r *Reader) error {
		next, err := r.pruneNext()
		if next != 4300 {
			t.Fatalf("prune_next %d after popping to 4300", next)
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	checkPrunedMatchesFresh(t, db, synth)
}

// checkPrunedMatchesFresh asserts that a pruned store holds, apart from the
// tx blobs and the pruning records (checked by expectPruned), exactly what
// appending its blocks to an empty store gives: every index stays.
func checkPrunedMatchesFresh(t *testing.T, db *DB, synth uint64) {
	t.Helper()
	var height uint64
	_ = db.View(func(r *Reader) (err error) { height, err = r.Height(); return })
	fresh := openFast(t)
	appendSynth(t, fresh, synth, 0, height)
	strip := func(d map[string]string) map[string]string {
		for k := range d {
			if strings.HasPrefix(k, string(bucketBlockTxBlobs)+"/") || strings.HasPrefix(k, string(bucketTxPrunableHash)+"/") {
				delete(d, k)
			}
		}
		delete(d, string(bucketInfo)+"/"+string(infoPruningSeed))
		delete(d, string(bucketInfo)+"/"+string(infoPruneNext))
		delete(d, string(bucketInfo)+"/"+string(infoSchemaVersion)) // schemaVersionPruned, checked above
		return d
	}
	if d := diffDumps(strip(mainChainDump(t, db)), strip(mainChainDump(t, fresh))); d != "" {
		t.Fatalf("pruned store's indexes differ from a fresh append of its %d blocks:%s", height, d)
	}
}
