package chaindb

import (
	"fmt"

	"github.com/cockroachdb/pebble/v2"
)

// BucketStat is the space one bucket takes in the file, for the scale
// benchmark (bench/scale.sh) and operators: bytes in use versus bytes
// allocated shows how full its pages are. For an index in the LSM, InUse
// is its keys' and values' bytes and Allocated its tables' share of the
// directory.
type BucketStat struct {
	Name       string
	Keys       int
	Depth      int
	InUse      int // bytes of pages holding data (leaves, branches, overflow)
	Allocated  int // bytes of the pages themselves
	LeafPages  int
	OverflowPg int
}

// BucketStats walks every page of every bucket: it reads the whole file, so
// it is for benchmarks and offline inspection, not for a serving node.
func (db *DB) BucketStats() ([]BucketStat, error) {
	var out []BucketStat
	err := db.view(func(tx *stx) error {
		// A pruned store also has the prunable hashes' bucket (prune.go).
		for _, name := range append(allBuckets[:len(allBuckets):len(allBuckets)], bucketTxPrunableHash) {
			b := tx.Bucket(name)
			if b == nil {
				continue
			}
			s := b.Stats()
			out = append(out, BucketStat{
				Name: string(name), Keys: s.KeyN, Depth: s.Depth,
				InUse:     s.LeafInuse + s.BranchInuse,
				Allocated: s.LeafAlloc + s.BranchAlloc,
				LeafPages: s.LeafPageN, OverflowPg: s.LeafOverflowN,
			})
		}
		return nil
	})
	if err != nil {
		return out, err
	}
	// The LSM indexes: their keys, their keys' and values' bytes, and the
	// bytes of the tables holding them (after a flush, so that what sits in
	// the memtable and its log is counted as it will be stored).
	if err := db.lsm.db.Flush(); err != nil {
		return out, fmt.Errorf("chaindb: flush the index store: %w", err)
	}
	for _, name := range lsmBuckets {
		p, _ := lsmPrefix(name)
		lo, hi := []byte{p}, []byte{p + 1}
		it, err := db.lsm.db.NewIter(&pebble.IterOptions{LowerBound: lo, UpperBound: hi})
		if err != nil {
			return out, err
		}
		st := BucketStat{Name: string(name)}
		for it.First(); it.Valid(); it.Next() {
			st.Keys++
			st.InUse += len(it.Key()) - 1 + len(it.Value())
		}
		if err := it.Close(); err != nil {
			return out, err
		}
		n, err := db.lsm.db.EstimateDiskUsage(lo, hi)
		if err != nil {
			return out, err
		}
		st.Allocated = int(n)
		out = append(out, st)
	}
	return out, nil
}

// FreeStat is the file's space outside the buckets: pages freed by
// copy-on-write and not yet reused (the free list that names them, 8 bytes
// a page, is written with every commit).
type FreeStat struct {
	PageSize     int
	FreePages    int
	PendingPages int // freed by the last writes, reusable once no reader needs them
}

// FreeStats reports the file's free space.
func (db *DB) FreeStats() FreeStat {
	s := db.bolt.Stats()
	return FreeStat{PageSize: db.bolt.Info().PageSize, FreePages: s.FreePageN, PendingPages: s.PendingPageN}
}
