package chaindb

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	bolt "go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"
	"golang.org/x/sys/unix"
)

// Giving space back. bbolt never shrinks its file: pages freed by a prune
// (shorter blobs), an upgrade (rebuilt indexes) or popped blocks go to the
// free list, which later appends reuse but which keeps the file's size.
// Compact copies every bucket, in key order, into a new file, where the
// pages come out full and in order, and renames that file over the store:
//
//   - The copy records where it stands in the new file itself, in the same
//     transaction as the data it copied (compact_progress, schema.go), so a
//     run that is killed resumes from its last commit, not from zero.
//   - Every transaction of the copy is fsynced, as every commit of the store
//     is: a copy that survived a crash is whole up to its recorded state.
//   - The source is opened as Open opens it, with its exclusive file lock,
//     held until after the rename: a node cannot write to it meanwhile, and
//     a running node makes Compact fail with ErrInUse.
//   - The rename is atomic, and the directory is fsynced after it: at any
//     kill the store's path names either the old complete file or the new
//     complete one. A leftover copy is resumed by the next Compact, or
//     removed by the next Open (a node that writes the store makes the copy
//     stale).

// DefaultCompactTxBytes is the key and value bytes Compact copies per write
// transaction: large enough that the commits' fsyncs and the pages each
// commit rewrites (the bucket's last leaf, its branches, the free list) do
// not matter, small enough to bound the memory of the dirty pages.
const DefaultCompactTxBytes = 64 << 20

// compactFillAppends is the split fill of the append-ordered buckets in the
// copy: their pages are never written again except at the chain's tip.
const compactFillAppends = 1.0

// compactFillRandom is the split fill of the hash-keyed buckets in the copy.
// Their later inserts land on random pages: a page copied full splits into
// two halves at its first insert, so full pages are the smallest copy for
// only days. Measured on the synthetic chain (3,000 blocks, then blocks
// appended one a transaction; the hash-keyed buckets' pages): copied full
// 1.10 MB, after 1 % more blocks 1.74 MB, after 3 % 2.09; copied 80 % full
// 1.37 MB, unchanged up to 10 % more blocks, 1.63 after 20 %; 50 % (bbolt's
// default, and what an import leaves) 2.18 MB. Mainnet adds about 15 % of
// its transactions a year. TestCompactFillOfRandomBuckets keeps the order.
const compactFillRandom = 0.8

// CompactOptions configure Compact.
type CompactOptions struct {
	// Network is the store's network, as Options.Network.
	Network string
	// LockTimeout is Options.LockTimeout.
	LockTimeout time.Duration
	// TxBytes is the key and value bytes copied per write transaction;
	// zero means DefaultCompactTxBytes.
	TxBytes int
	// Progress, if set, is called after every committed transaction of the
	// copy with the key and value bytes copied so far and an estimate of the
	// total (the source's pages in use, which also count page and element
	// headers: done ends below total).
	Progress func(done, total uint64)
	// MigrationProgress is Options.MigrationProgress: a store of an older
	// schema is upgraded before it is copied.
	MigrationProgress func(done, total uint64)

	// randomFill, for tests, replaces compactFillRandom.
	randomFill float64
}

// CompactResult is what Compact did.
type CompactResult struct {
	// Resumed says a copy left by an interrupted run was carried on
	// (CopiedBefore of its bytes were copied by that run).
	Resumed      bool
	CopiedBefore uint64
	// Copied is the key and value bytes copied into the new file, by this
	// run and the interrupted ones it resumed (0 when only the rename was
	// left to do).
	Copied uint64
	// SizeBefore and SizeAfter are the store file's sizes; FreeBefore and
	// FreeAfter the bytes of its free pages.
	SizeBefore, SizeAfter int64
	FreeBefore, FreeAfter int64
	Elapsed               time.Duration
}

// compactHook, set by tests, is called at points of Compact: "committed"
// after each transaction of the copy, "complete" once the copy is closed and
// before the rename, "renamed" after the rename and before the directory's
// fsync and the source's close.
var compactHook func(point string)

func compactAt(point string) {
	if compactHook != nil {
		compactHook(point)
	}
}

// Compact rewrites the store at path into a new file without free pages and
// renames it over path; see the comment at the top of compact.go. A store
// of an older schema is upgraded first. When ctx is cancelled Compact stops
// after the transaction under way and returns ctx's error: the copy is kept
// and the next Compact resumes it. It fails with ErrInUse while another
// process (a running node) holds the store.
func Compact(ctx context.Context, path string, opts CompactOptions) (CompactResult, error) {
	start := time.Now()
	var res CompactResult
	if _, err := os.Stat(path); err != nil {
		return res, fmt.Errorf("chaindb: compact: %w", err)
	}
	if opts.TxBytes <= 0 {
		opts.TxBytes = DefaultCompactTxBytes
	}
	db, err := open(path, Options{Network: opts.Network, LockTimeout: opts.LockTimeout,
		MigrationProgress: opts.MigrationProgress}, false)
	if err != nil {
		return res, err
	}
	defer func() { _ = db.Close() }()
	src, err := db.bolt.Begin(false)
	if err != nil {
		return res, fmt.Errorf("chaindb: compact %s: %w", path, err)
	}
	defer func() { _ = src.Rollback() }()

	pageSize := db.bolt.Info().PageSize
	st := db.bolt.Stats()
	if fi, err := os.Stat(path); err == nil {
		res.SizeBefore = fi.Size()
	}
	res.FreeBefore = int64(st.FreePageN+st.PendingPageN) * int64(pageSize)
	used := src.Size() - res.FreeBefore

	tmp := path + compactTempSuffix
	dst, state, complete, err := openCopy(tmp, src, pageSize, used, opts.LockTimeout)
	if err != nil {
		return res, fmt.Errorf("chaindb: compact %s: %w", path, err)
	}
	closeDst := func() error {
		if dst == nil {
			return nil
		}
		err := dst.Close()
		dst = nil
		return err
	}
	defer func() { _ = closeDst() }()
	res.Resumed = complete || state.copied > 0 || state.bucket != nil
	res.CopiedBefore = state.copied
	if !complete {
		if err := checkFreeSpace(tmp, used); err != nil {
			return res, fmt.Errorf("chaindb: compact %s: %w", path, err)
		}
		if opts.randomFill == 0 {
			opts.randomFill = compactFillRandom
		}
		if err := copyStore(ctx, src, dst, &state, opts.TxBytes, opts.randomFill, func(done uint64) {
			if opts.Progress != nil {
				opts.Progress(done, uint64(max(used, 0)))
			}
		}); err != nil {
			if ctx.Err() == nil {
				err = fmt.Errorf("chaindb: compact %s: %w", path, err)
			}
			return res, err
		}
		err := dst.Update(func(tx *bolt.Tx) error { return tx.DeleteBucket(bucketCompactProgress) })
		if err != nil {
			return res, fmt.Errorf("chaindb: compact %s: finish the copy: %w", path, err)
		}
	}
	res.Copied = state.copied
	ds := dst.Stats()
	res.FreeAfter = int64(ds.FreePageN+ds.PendingPageN) * int64(pageSize)
	var end int64
	_ = dst.View(func(tx *bolt.Tx) error { end = tx.Size(); return nil })
	if err := closeDst(); err != nil {
		return res, fmt.Errorf("chaindb: compact %s: close the copy: %w", path, err)
	}
	// bbolt grows a file ahead of its pages, by up to 16 MiB (AllocSize):
	// the copy ends at its last page instead. A node writing the store grows
	// it again, by one step.
	if err := truncateSync(tmp, end); err != nil {
		return res, fmt.Errorf("chaindb: compact %s: %w", path, err)
	}
	compactAt("complete")
	if err := os.Rename(tmp, path); err != nil {
		return res, fmt.Errorf("chaindb: compact %s: %w", path, err)
	}
	compactAt("renamed")
	if err := syncDir(filepath.Dir(path)); err != nil {
		return res, fmt.Errorf("chaindb: compact %s: the copy is in place, but: %w", path, err)
	}
	if fi, err := os.Stat(path); err == nil {
		res.SizeAfter = fi.Size()
	}
	res.Elapsed = time.Since(start)
	return res, nil
}

// openCopy opens the copy at tmp: the one an interrupted Compact of this
// same source left (its state, or complete when only the rename was
// missing), or a fresh one. A copy that does not open, or is of another
// state of the source, is removed.
func openCopy(tmp string, src *bolt.Tx, pageSize int, used int64, timeout time.Duration) (*bolt.DB, compactState, bool, error) {
	if timeout <= 0 {
		timeout = DefaultLockTimeout
	}
	bopts := &bolt.Options{
		Timeout:         timeout,
		PageSize:        pageSize,
		FreelistType:    bolt.FreelistMapType,
		InitialMmapSize: int(min(max(used, 1<<20), 1<<40)),
	}
	txid := uint64(src.ID())
	if _, err := os.Stat(tmp); err == nil {
		d, err := bolt.Open(tmp, 0o600, bopts)
		if errors.Is(err, bolterrors.ErrTimeout) {
			return nil, compactState{}, false, fmt.Errorf("%s: %w", tmp, ErrInUse)
		}
		if err == nil {
			var state compactState
			var resume, complete bool
			_ = d.View(func(tx *bolt.Tx) error {
				if pb := tx.Bucket(bucketCompactProgress); pb != nil {
					s, err := decodeCompactState(pb.Get(compactStateKey))
					resume = err == nil && s.sourceTxID == txid
					state = s
					return nil
				}
				complete = sameEnds(src, tx)
				return nil
			})
			if resume || complete {
				return d, state, complete, nil
			}
			_ = d.Close()
		}
		if err := os.Remove(tmp); err != nil {
			return nil, compactState{}, false, err
		}
	}
	d, err := bolt.Open(tmp, 0o600, bopts)
	if err != nil {
		return nil, compactState{}, false, fmt.Errorf("create %s: %w", tmp, err)
	}
	state := compactState{sourceTxID: txid}
	err = d.Update(func(tx *bolt.Tx) error {
		b, err := tx.CreateBucket(bucketCompactProgress)
		if err != nil {
			return err
		}
		return b.Put(compactStateKey, encodeCompactState(&state))
	})
	if err != nil {
		_ = d.Close()
		return nil, compactState{}, false, fmt.Errorf("create %s: %w", tmp, err)
	}
	return d, state, false, nil
}

// sameEnds reports whether a complete copy is of the source as it stands:
// the same root buckets, the same info bucket and the same last entry in
// every bucket. Open removes a copy once the store is written, so this only
// guards against a copy that an older build's node left behind.
func sameEnds(src, cp *bolt.Tx) bool {
	same := true
	var names [][]byte
	_ = src.ForEach(func(name []byte, b *bolt.Bucket) error {
		names = append(names, name)
		c := cp.Bucket(name)
		if c == nil {
			same = false
			return errors.New("stop")
		}
		k1, v1 := b.Cursor().Last()
		k2, v2 := c.Cursor().Last()
		if !bytes.Equal(k1, k2) || !bytes.Equal(v1, v2) {
			same = false
			return errors.New("stop")
		}
		return nil
	})
	if !same {
		return false
	}
	n := 0
	_ = cp.ForEach(func([]byte, *bolt.Bucket) error { n++; return nil })
	if n != len(names) {
		return false
	}
	si, ci := src.Bucket(bucketInfo), cp.Bucket(bucketInfo)
	if si == nil || ci == nil || si.Stats().KeyN != ci.Stats().KeyN {
		return false
	}
	_ = si.ForEach(func(k, v []byte) error {
		if !bytes.Equal(ci.Get(k), v) {
			same = false
		}
		return nil
	})
	return same
}

// copyStore copies every root bucket of src into dst from where state says
// the copy stands, txBytes of keys and values per transaction, each
// transaction also writing the new state.
func copyStore(ctx context.Context, src *bolt.Tx, dst *bolt.DB, state *compactState, txBytes int, randomFill float64,
	progress func(done uint64)) error {
	c := src.Cursor()
	for name, v := c.First(); name != nil; name, v = c.Next() {
		if v != nil {
			return fmt.Errorf("root key %q is not a bucket", name)
		}
		if bytes.Equal(name, bucketCompactProgress) {
			return fmt.Errorf("the store holds bucket %s: it is an unfinished copy, not a store", name)
		}
		if state.bucket != nil && bytes.Compare(name, state.bucket) < 0 {
			continue // copied whole by an earlier run
		}
		var after []byte
		if bytes.Equal(name, state.bucket) {
			after = state.lastKey
		}
		sb := src.Bucket(name)
		fill := randomFill
		for _, a := range appendOrderedBuckets {
			if bytes.Equal(a, name) {
				fill = compactFillAppends
			}
		}
		for done := false; !done; {
			if err := ctx.Err(); err != nil {
				return err
			}
			next := compactState{sourceTxID: state.sourceTxID, copied: state.copied,
				bucket: append([]byte(nil), name...), lastKey: after}
			err := dst.Update(func(tx *bolt.Tx) error {
				b, err := tx.CreateBucketIfNotExists(name)
				if err != nil {
					return err
				}
				b.FillPercent = fill
				cur := sb.Cursor()
				var k, v []byte
				if after == nil {
					k, v = cur.First()
				} else if k, v = cur.Seek(after); bytes.Equal(k, after) {
					k, v = cur.Next()
				}
				n := 0
				for ; k != nil && n < txBytes; k, v = cur.Next() {
					if v == nil {
						return fmt.Errorf("bucket %s holds a bucket (%q): a chain store has none", name, k)
					}
					// k and v point into the source's map, which stays as it
					// is while src is open: bbolt keeps them until the commit
					// without copying them (as its own compaction does).
					if err := b.Put(k, v); err != nil {
						return fmt.Errorf("bucket %s: %w", name, err)
					}
					n += len(k) + len(v)
					next.lastKey = k
				}
				done = k == nil
				next.copied += uint64(n)
				next.lastKey = append([]byte(nil), next.lastKey...)
				return tx.Bucket(bucketCompactProgress).Put(compactStateKey, encodeCompactState(&next))
			})
			if err != nil {
				return err
			}
			*state = next
			after = state.lastKey
			progress(state.copied)
			compactAt("committed")
		}
	}
	return nil
}

// checkFreeSpace refuses to start or resume a copy that cannot fit beside
// the store: the copy needs about the source's bytes in use.
func checkFreeSpace(tmp string, used int64) error {
	var fs unix.Statfs_t
	if err := unix.Statfs(filepath.Dir(tmp), &fs); err != nil {
		return nil // not knowing is no reason to refuse
	}
	avail := int64(fs.Bavail) * int64(fs.Bsize) //nolint:unconvert // the field types differ between systems
	have := int64(0)
	if fi, err := os.Stat(tmp); err == nil {
		have = fi.Size()
	}
	if need := used - have; need > avail {
		return fmt.Errorf("the copy needs about %d MB more beside the store, and %s has %d MB free",
			need>>20, filepath.Dir(tmp), avail>>20)
	}
	return nil
}

// truncateSync cuts the file at path to size bytes, if longer, durably.
func truncateSync(path string, size int64) error {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	fi, err := f.Stat()
	if err == nil && fi.Size() > size {
		if err = f.Truncate(size); err == nil {
			err = f.Sync()
		}
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// syncDir makes a rename in dir durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}

// removeCompactCopy removes the copy an interrupted Compact left beside the
// store at path; Open calls it once it holds the store's lock, before
// anything can write the store and make the copy stale.
func removeCompactCopy(path string) error {
	err := os.Remove(path + compactTempSuffix)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	return err
}
