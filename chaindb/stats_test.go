package chaindb

import "testing"

// The append-ordered buckets keep their pages nearly full whether blocks
// come one per transaction (the chain manager) or many per transaction
// (import, sync batches): with bbolt's default 50 % split they would stay
// half empty and the file would need twice the pages (bench/scale.sh).
func TestAppendOrderedBucketsStayFull(t *testing.T) {
	db, _ := openTemp(t)
	appendSynth(t, db, 7, 0, 1500) // one transaction per block
	if err := db.Update(func(w *Writer) error {
		for h := uint64(1500); h < 3000; h++ {
			if err := w.Append(synthBlock(7, h)); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	st, err := db.BucketStats()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range st {
		if s.Name == string(bucketOutputs) {
			// Only outputs of amounts above 0 (the synthetic chain's v1
			// txs, of many amounts) are here since schema 10: appends
			// are in order per amount, in the middle of the key space
			// otherwise, so no bound either (amount-0 outputs, the
			// chain's appends, are in rct_outputs, which is held to it).
			t.Logf("bucket %s: %.0f%% full over %d leaf pages", s.Name, 100*float64(s.InUse)/float64(s.Allocated), s.LeafPages)
			continue
		}
		if s.Name == string(bucketBlockTxBlobs) {
			// A block's tx blobs are one value of a few hundred bytes to
			// megabytes: how full its pages are follows from how values of
			// about a page pack (a leaf of one 3 KB value has no room for
			// the next), not from the split, so no bound is asserted here;
			// bench/scale.sh --extrapolate and --compare measure its size.
			t.Logf("bucket %s: %.0f%% full over %d leaf pages", s.Name, 100*float64(s.InUse)/float64(s.Allocated), s.LeafPages)
			continue
		}
		for _, name := range appendOrderedBuckets {
			if s.Name != string(name) || s.LeafPages < 20 {
				continue
			}
			if fill := float64(s.InUse) / float64(s.Allocated); fill < 0.8 {
				t.Errorf("bucket %s: %d of %d bytes in use (%.0f%%) over %d leaf pages, want >= 80%%",
					s.Name, s.InUse, s.Allocated, 100*fill, s.LeafPages)
			} else {
				t.Logf("bucket %s: %.0f%% full over %d leaf pages", s.Name, 100*fill, s.LeafPages)
			}
		}
	}
	if f := db.FreeStats(); f.PageSize == 0 {
		t.Fatal("FreeStats: page size 0")
	}
}

// BucketStats reports the LSM indexes too: a key a block in block_heights,
// a key a tx prefix in tx_index, and the bytes of their tables.
func TestBucketStatsCountsTheLSM(t *testing.T) {
	db, _ := openTemp(t)
	appendSynth(t, db, 7, 0, 300)
	st, err := db.BucketStats()
	if err != nil {
		t.Fatal(err)
	}
	var txs uint64
	if err := db.View(func(r *Reader) (err error) { txs, err = r.TxCount(); return }); err != nil {
		t.Fatal(err)
	}
	seen := map[string]BucketStat{}
	for _, s := range st {
		seen[s.Name] = s
	}
	for _, c := range []struct {
		name []byte
		keys int
	}{{bucketBlockHeights, 300}, {bucketTxIndex, 300 + int(txs)}} {
		s, ok := seen[string(c.name)]
		if !ok || s.Keys != c.keys || s.InUse <= 0 || s.Allocated <= 0 {
			t.Errorf("%s: %+v (listed %v), want %d keys and some bytes", c.name, s, ok, c.keys)
		}
	}
	if s := seen[string(bucketSpentKeys)]; txs > 0 && s.Keys == 0 {
		t.Errorf("spent_keys: %+v with %d txs on the chain", s, txs)
	}
}
