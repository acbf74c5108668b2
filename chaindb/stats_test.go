package chaindb

import (
	"testing"

	bolt "go.etcd.io/bbolt"
)

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
	// A block's tx blobs are one value of a few hundred bytes to megabytes,
	// so that bucket's fill is bounded by how values of about a page pack,
	// not by the split: it may allocate no more than packing its values in
	// key order does, each leaf taking values while they fit 95% of a page
	// (a value over a page gets the pages it needs to itself), plus 2%.
	pageSize := uint64(db.bolt.Info().PageSize)
	var packed, leaf uint64
	if err := db.bolt.View(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketBlockTxBlobs).ForEach(func(k, v []byte) error {
			n := uint64(len(k)+len(v)) + 16 // with its leaf element header
			if leaf > 0 && 16+leaf+n > pageSize*95/100 {
				packed += (16 + leaf + pageSize - 1) / pageSize * pageSize
				leaf = 0
			}
			leaf += n
			return nil
		})
	}); err != nil {
		t.Fatal(err)
	}
	packed += (16 + leaf + pageSize - 1) / pageSize * pageSize
	for _, s := range st {
		if s.Name == string(bucketBlockTxBlobs) {
			if uint64(s.Allocated) > packed*102/100 {
				t.Errorf("bucket %s: %d bytes allocated, more than its values packed in order (%d)", s.Name, s.Allocated, packed)
			} else {
				t.Logf("bucket %s: %.0f%% full over %d leaf pages, %d bytes allocated, %d packed in order",
					s.Name, 100*float64(s.InUse)/float64(s.Allocated), s.LeafPages, s.Allocated, packed)
			}
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
