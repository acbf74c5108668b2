package chaindb

// The hash-keyed indexes (block_heights, tx_index, spent_keys: lsmBuckets
// in schema.go) live in a log-structured store beside the bbolt file, not
// in it. In a B+tree a random key lands on a leaf of its own once the tree
// is large, so every commit rewrites (copy-on-write) a leaf and a branch
// page per new key: at 4 M blocks a commit wrote twice the pages it wrote
// at 100 k for the same blocks (docs/benchmarks.md). A log-structured
// store appends the batch to its log and sorts in the background, so a
// commit costs the same at any size.
//
// Two stores cannot commit atomically, so the LSM is kept a superset of the
// truth and every read of it is confirmed against the bbolt view:
//
//   - A write transaction keeps its index changes in memory (indexTxn). At
//     commit the LSM first receives, synced, the union of each touched
//     value's old and new contents (unionIndexValue), then bbolt commits,
//     then the LSM receives the exact new values. A crash between the
//     steps leaves entries of blocks bbolt does not hold (rolled back or
//     popped), never misses an entry of a block it holds.
//   - Every entry names a height, and a reader confirms it in the block at
//     that height of its own view (block hash, tx hash, key image): an
//     entry at or above the view's height, or one its block does not
//     confirm, is not there. So a reader is exact whatever the LSM holds
//     beyond the truth, and a reader whose view is older than the LSM's
//     newest values is too. (A view older than a pop's commit may miss
//     the popped block's entries, which the next view no longer has.)
//   - A writer drops, on reading an entry, the heights at or above the
//     block it appends or pops: they can only be such leftovers.

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"log"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/bloom"
	"github.com/cockroachdb/pebble/v2/vfs"
	bolt "go.etcd.io/bbolt"
)

// stx is one store transaction: the bbolt one and its view of the LSM
// indexes.
type stx struct {
	*bolt.Tx
	ix *indexTxn
}

// indexTxn is a transaction's view of the LSM: reads fall through to the
// LSM; a write transaction's changes stay in changes until commit.
type indexTxn struct {
	lsm      *pebble.DB
	writable bool
	changes  map[string]*indexChange // by LSM key (prefix byte ‖ bucket key)
	// read keeps what a write transaction read from the LSM (nil: absent):
	// appending a block reads each of its keys several times (the checks,
	// then the update), and an LSM read costs microseconds, not bbolt's
	// pointer walk through mapped pages.
	read map[string][]byte
	// errMu guards err, the first LSM read error, which fails the commit
	// or the view: a view's Reader may be shared by goroutines.
	errMu sync.Mutex
	err   error
}

func (t *indexTxn) fail(err error) {
	t.errMu.Lock()
	if t.err == nil {
		t.err = err
	}
	t.errMu.Unlock()
}

func (t *indexTxn) firstErr() error {
	t.errMu.Lock()
	defer t.errMu.Unlock()
	return t.err
}

// indexChange is one key a write transaction changed: its value in the LSM
// when first touched (nil: absent) and its new value (nil: deleted).
type indexChange struct {
	bucket []byte
	old    []byte
	new    []byte
}

// indexBucket is one LSM index seen through a transaction, with the calls
// of a bbolt bucket that the index code uses.
type indexBucket struct {
	t      *indexTxn
	name   []byte
	prefix byte
}

// index returns the LSM index name (one of lsmBuckets).
func (tx *stx) index(name []byte) indexBucket {
	p, ok := lsmPrefix(name)
	if !ok {
		panic(fmt.Sprintf("chaindb: %s is not an LSM index", name))
	}
	return indexBucket{t: tx.ix, name: name, prefix: p}
}

func (b indexBucket) key(k []byte) []byte {
	out := make([]byte, 1+len(k))
	out[0] = b.prefix
	copy(out[1:], k)
	return out
}

// Get returns a copy of key's value, or nil. An LSM read error is kept
// (the transaction fails at commit, a view at its end) and reads as nil.
func (b indexBucket) Get(k []byte) []byte {
	lk := b.key(k)
	if b.t.writable {
		if c, ok := b.t.changes[string(lk)]; ok {
			return c.new
		}
	}
	v, err := b.t.lsmGet(lk)
	if err != nil {
		b.t.fail(err)
	}
	return v
}

func (t *indexTxn) lsmGet(lk []byte) ([]byte, error) {
	if v, ok := t.read[string(lk)]; ok {
		return v, nil
	}
	v, closer, err := t.lsm.Get(lk)
	var out []byte
	switch {
	case errors.Is(err, pebble.ErrNotFound):
	case err != nil:
		return nil, fmt.Errorf("chaindb: read the index store: %w", err)
	default:
		out = bytes.Clone(v)
		_ = closer.Close()
	}
	if t.read != nil {
		t.read[string(lk)] = out
	}
	return out, nil
}

// Put sets key's value in the transaction.
func (b indexBucket) Put(k, v []byte) error { return b.set(k, bytes.Clone(v)) }

// Delete removes key in the transaction.
func (b indexBucket) Delete(k []byte) error { return b.set(k, nil) }

func (b indexBucket) set(k, v []byte) error {
	if !b.t.writable {
		return errors.New("chaindb: write to an index in a read-only transaction")
	}
	lk := b.key(k)
	c, ok := b.t.changes[string(lk)]
	if !ok {
		old, err := b.t.lsmGet(lk)
		if err != nil {
			return err
		}
		c = &indexChange{bucket: b.name, old: old}
		b.t.changes[string(lk)] = c
	}
	c.new = v
	return nil
}

// lsmStore is the DB's LSM and the lock that orders write transactions'
// two LSM batches around their bbolt commits.
type lsmStore struct {
	db *pebble.DB
	// mu is held by a write transaction from its start to its last LSM
	// batch, so that one transaction's exact values are never written
	// after the next one's union (bbolt serialises the transactions
	// themselves, but releases its lock before the last batch).
	mu sync.Mutex
}

// lsmPath is the LSM directory of the store at path.
func lsmPath(path string) string { return path + lsmDirSuffix }

// quietLogger drops pebble's informational lines; its errors go to the
// standard logger, as the store has no other.
type quietLogger struct{}

func (quietLogger) Infof(string, ...any)         {}
func (quietLogger) Errorf(f string, args ...any) { log.Printf("chaindb: index store: "+f, args...) }
func (quietLogger) Fatalf(f string, args ...any) { log.Fatalf("chaindb: index store: "+f, args...) }

// openLSM opens (creating it if needed) the LSM directory of the store at
// path; fresh removes whatever an earlier store of that name left there.
func openLSM(path string, fresh bool) (*pebble.DB, error) {
	dir := lsmPath(path)
	if fresh {
		if err := os.RemoveAll(dir); err != nil {
			return nil, fmt.Errorf("chaindb: remove %s left by an earlier store: %w", dir, err)
		}
	}
	cache := pebble.NewCache(lsmCacheBytes)
	defer cache.Unref()
	opts := &pebble.Options{
		Cache:              cache,
		MemTableSize:       lsmMemTableBytes,
		FormatMajorVersion: pebble.FormatNewest,
		Logger:             quietLogger{},
		FS:                 noPreallocFS{vfs.Default},
	}
	opts.EnsureDefaults()
	for i := range opts.Levels {
		// Point lookups of absent keys (a new tx, an unspent key image)
		// are most of the reads: a Bloom filter answers them without
		// reading the table's blocks.
		opts.Levels[i].FilterPolicy = bloom.FilterPolicy(10)
	}
	db, err := pebble.Open(dir, opts)
	if err != nil {
		return nil, fmt.Errorf("chaindb: open the index store %s: %w", dir, err)
	}
	return db, nil
}

// commitIndexes writes t's changes around commit, bbolt's: their union,
// synced, then commit, then the exact values (see the top of this file).
func (t *indexTxn) commitIndexes(commit func() error) error {
	if err := t.firstErr(); err != nil {
		return err
	}
	if len(t.changes) == 0 {
		return commit()
	}
	union := t.lsm.NewBatch()
	exact := t.lsm.NewBatch()
	defer union.Close()
	defer exact.Close()
	keys := make([]string, 0, len(t.changes))
	for k := range t.changes {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		c := t.changes[k]
		u, err := unionIndexValue(c.bucket, c.old, c.new)
		if err != nil {
			return err
		}
		if u != nil && !bytes.Equal(u, c.old) {
			if err := union.Set([]byte(k), u, nil); err != nil {
				return err
			}
		}
		if bytes.Equal(u, c.new) {
			continue
		}
		if c.new == nil {
			err = exact.Delete([]byte(k), nil)
		} else {
			err = exact.Set([]byte(k), c.new, nil)
		}
		if err != nil {
			return err
		}
	}
	if !union.Empty() {
		if err := union.Commit(pebble.Sync); err != nil {
			return fmt.Errorf("chaindb: write the index store: %w", err)
		}
	}
	if err := commit(); err != nil {
		return err
	}
	if !exact.Empty() {
		// Not synced: losing it leaves leftovers the reads ignore; the
		// next synced batch makes it durable.
		if err := exact.Commit(pebble.NoSync); err != nil {
			return fmt.Errorf("chaindb: write the index store: %w", err)
		}
	}
	return nil
}

// wipeLSMBuckets removes every key of the named LSM indexes, synced.
func wipeLSMBuckets(lsm *pebble.DB, names ...[]byte) error {
	for _, name := range names {
		p, _ := lsmPrefix(name)
		if err := lsm.DeleteRange([]byte{p}, []byte{p + 1}, pebble.Sync); err != nil {
			return fmt.Errorf("chaindb: clear index %s: %w", name, err)
		}
	}
	return nil
}

// put writes to bucket name, in bbolt or (an LSM index) in the LSM.
func (tx *stx) put(name, k, v []byte) error {
	if isLSMBucket(name) {
		return tx.index(name).Put(k, v)
	}
	return tx.Bucket(name).Put(k, v)
}

// del deletes from bucket name, in bbolt or (an LSM index) in the LSM.
func (tx *stx) del(name, k []byte) error {
	if isLSMBucket(name) {
		return tx.index(name).Delete(k)
	}
	return tx.Bucket(name).Delete(k)
}

// DiskSize is the bytes the store at path takes: its bbolt file and its LSM
// directory.
func DiskSize(path string) (int64, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return 0, err
	}
	n := fi.Size()
	err = filepath.WalkDir(lsmPath(path), func(_ string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() {
			if info, err := d.Info(); err == nil {
				n += info.Size()
			}
		}
		return nil
	})
	if errors.Is(err, fs.ErrNotExist) {
		err = nil
	}
	return n, err
}

// noPreallocFS is the operating system's file system without
// preallocation: pebble reserves 110 % of a memtable on disk for each WAL
// file (two at times), 18 MB of blocks, three times a small chain's whole
// store. The reservation saves a metadata update per synced write while a
// WAL file grows; without it the file grows as it is written.
type noPreallocFS struct{ vfs.FS }

func (fs noPreallocFS) Create(name string, c vfs.DiskWriteCategory) (vfs.File, error) {
	f, err := fs.FS.Create(name, c)
	if err != nil {
		return nil, err
	}
	return noPreallocFile{f}, nil
}

func (fs noPreallocFS) ReuseForWrite(oldname, newname string, c vfs.DiskWriteCategory) (vfs.File, error) {
	f, err := fs.FS.ReuseForWrite(oldname, newname, c)
	if err != nil {
		return nil, err
	}
	return noPreallocFile{f}, nil
}

type noPreallocFile struct{ vfs.File }

func (noPreallocFile) Preallocate(offset, length int64) error { return nil }
