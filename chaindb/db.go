// Package chaindb is gonero's embedded chain store: the main chain's blocks
// with their metadata, transactions and indexes, plus the alternative blocks,
// in one bbolt file.
//
// Writes (Append, PopTop, alternative-block puts and deletes, and a whole
// reorganisation with Reorganize) each run in one bbolt transaction, so after a crash the store holds the chain as of the last
// completed write and every index agrees with it. Reads run in read-only
// bbolt transactions (View), which see one consistent snapshot and do not wait
// for the writer. The store checks the chain's linkage (height, prev hash) and
// its own indexes, nothing else: consensus rules live in package consensus.
//
// The layout of every bucket, key and value is in schema.go.
package chaindb

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"time"

	bolt "go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"

	"github.com/gonero/gonero/cryptonote"
	"github.com/gonero/gonero/internal/u128"
)

// BlockMeta is what the store keeps about each block besides its blob: the
// header fields the RPC serves and the values the consensus windows read.
type BlockMeta struct {
	Height               uint64
	Hash                 cryptonote.Hash
	PrevHash             cryptonote.Hash
	Timestamp            uint64
	MajorVersion         uint8
	MinorVersion         uint8
	Nonce                uint32
	BlobSize             uint64    // length of the block blob in bytes
	Weight               uint64    // block weight (RPC block_size and block_weight)
	LongTermWeight       uint64    // long-term block weight
	Difficulty           u128.U128 // difficulty of this block
	CumulativeDifficulty u128.U128 // sum of difficulties from genesis through this block
	Reward               uint64    // sum of the miner tx outputs (base reward plus fees)
	GeneratedCoins       uint64    // coins emitted by the chain up to and including this block
	MinerTxHash          cryptonote.Hash
	NumTxes              uint64 // number of txs in the block, miner tx excluded
}

// TxRecord is one non-coinbase transaction of a block.
type TxRecord struct {
	Hash cryptonote.Hash
	Blob []byte
	// Pruned says Blob is only the pruned part (prefix and RingCT base):
	// true only in records a pruned store hands back (PopTop of a block
	// whose prunable data was dropped, see prune.go). Append and
	// PutAltBlock refuse such records.
	Pruned bool
}

// BlockRecord is everything the store keeps for one block.
type BlockRecord struct {
	Meta BlockMeta
	Blob []byte     // the serialised block (header, miner tx, tx hash list)
	Txs  []TxRecord // the block's non-coinbase txs, in block order
}

// TxLocation is where a transaction sits on the main chain.
type TxLocation struct {
	Height uint64 // height of the block holding the tx
	Index  uint32 // position in the block's tx hash list (miner tx not counted)
}

// Store is the seam between the chain manager and the storage backend: the
// writer operations and a consistent read view. *DB implements it. A test
// double wraps a *DB opened in a temporary directory (for instance to make
// Append fail); Reader is concrete because a store on a temp file is already
// a cheap and faithful fake.
type Store interface {
	Append(rec BlockRecord) error
	PopTop() (BlockRecord, error)
	PutAltBlock(rec BlockRecord) error
	DeleteAltBlock(hash cryptonote.Hash) error
	Reorganize(r Reorg) ([]BlockRecord, error)
	View(fn func(r *Reader) error) error
	Update(fn func(w *Writer) error) error
}

var _ Store = (*DB)(nil)

// Defaults for Options fields left zero.
const (
	// DefaultLockTimeout is short: the lock is released as soon as the
	// holder exits (even on kill -9), so a longer wait only delays the error.
	DefaultLockTimeout = time.Second

	// DefaultInitialMmapSize is the address space reserved at Open. bbolt
	// must wait for every open read transaction before it can grow the
	// mapping, so reserving generously keeps the writer from ever waiting
	// for readers until the file outgrows it. It costs address space only.
	DefaultInitialMmapSize = 1 << 30
)

// Options configure Open.
type Options struct {
	// Network names the chain's network ("mainnet", "testnet", "stagenet",
	// "regtest", ...). Required. It is recorded when the store is created
	// and must match on every later Open.
	Network string

	// LockTimeout bounds the wait for a file lock held by another process;
	// zero means DefaultLockTimeout.
	LockTimeout time.Duration

	// InitialMmapSize in bytes; zero means DefaultInitialMmapSize.
	InitialMmapSize int

	// MigrationProgress, if set, is called while Open upgrades a store of an
	// older schema (building the transaction-verification indexes from the
	// stored blocks): with the blocks done so far and the chain height, after
	// every batch. Open does nothing else until the upgrade is done.
	MigrationProgress func(done, total uint64)

	// MigrationBatch is the number of blocks such an upgrade handles per
	// write transaction (and between two MigrationProgress calls); zero
	// means DefaultMigrationBatch.
	MigrationBatch uint64
}

// DB is an open chain store. Its methods are safe for concurrent use; writes
// are serialised by bbolt.
type DB struct {
	bolt         *bolt.DB
	lsm          lsmStore // the hash-keyed indexes (lsm.go)
	path         string
	migrateBatch uint64 // Options.MigrationBatch
}

// Open opens the store at path, creating it if the file does not exist. It
// removes the copy an interrupted Compact left beside it (compact.go).
func Open(path string, opts Options) (*DB, error) { return open(path, opts, true) }

func open(path string, opts Options, removeCopy bool) (*DB, error) {
	if opts.Network == "" {
		return nil, errors.New("chaindb: Options.Network is required")
	}
	if opts.LockTimeout <= 0 {
		opts.LockTimeout = DefaultLockTimeout
	}
	if opts.InitialMmapSize <= 0 {
		opts.InitialMmapSize = DefaultInitialMmapSize
	}
	if opts.MigrationBatch == 0 {
		opts.MigrationBatch = DefaultMigrationBatch
	}
	// Compact renames a new file over path while it holds the old one's
	// lock: a bolt.Open that opened the old file and then waited for its
	// lock gets it once the file is gone from the directory, so the path is
	// checked to still name the file that was locked.
	before, statErr := os.Stat(path)
	bdb, err := bolt.Open(path, 0o600, &bolt.Options{
		Timeout: opts.LockTimeout,
		// Every commit is fsynced: a block acknowledged by Append survives
		// kill -9 and power loss. Durability matters more than import speed.
		NoSync:     false,
		NoGrowSync: false,
		// The free list is written with each commit (NoFreelistSync false) so
		// that Open does not have to scan the whole file to rebuild it.
		NoFreelistSync: false,
		// The hashmap free list stays fast once a large file is fragmented
		// by reorganisations; the array one degrades.
		FreelistType:    bolt.FreelistMapType,
		InitialMmapSize: opts.InitialMmapSize,
	})
	if errors.Is(err, bolterrors.ErrTimeout) {
		return nil, fmt.Errorf("chaindb: open %s: %w", path, ErrInUse)
	}
	if err != nil {
		return nil, fmt.Errorf("chaindb: open %s: %w", path, err)
	}
	if statErr == nil {
		if now, err := os.Stat(path); err != nil || !os.SameFile(before, now) {
			_ = bdb.Close()
			return open(path, opts, removeCopy)
		}
	}
	if removeCopy {
		if err := removeCompactCopy(path); err != nil {
			_ = bdb.Close()
			return nil, fmt.Errorf("chaindb: open %s: remove an unfinished compaction's copy: %w", path, err)
		}
	}
	// A file without buckets is a new store: an LSM directory beside it is
	// an earlier store's, and goes.
	fresh := false
	if err := bdb.View(func(tx *bolt.Tx) error {
		k, _ := tx.Cursor().First()
		fresh = k == nil
		return nil
	}); err != nil {
		_ = bdb.Close()
		return nil, fmt.Errorf("chaindb: open %s: %w", path, err)
	}
	lsm, err := openLSM(path, fresh)
	if err != nil {
		_ = bdb.Close()
		return nil, err
	}
	db := &DB{bolt: bdb, lsm: lsmStore{db: lsm}, path: path, migrateBatch: opts.MigrationBatch}
	if err := db.initOrCheck(opts.Network, opts.MigrationProgress); err != nil {
		_ = db.Close()
		return nil, err
	}
	return db, nil
}

// initOrCheck creates the buckets of a fresh file, or checks that an existing
// file is a store of this schema and network.
func (db *DB) initOrCheck(network string, progress func(done, total uint64)) error {
	fresh, old := false, false
	err := db.view(func(tx *stx) error {
		if tx.Bucket(bucketInfo) == nil {
			if k, _ := tx.Cursor().First(); k != nil {
				return fmt.Errorf("chaindb: %s is a bbolt file but not a chain store (it has no %q bucket)", db.path, bucketInfo)
			}
			fresh = true
			return nil
		}
		err := db.check(tx, network)
		if errors.Is(err, errNeedsUpgrade) {
			old = true
			return nil
		}
		return err
	})
	if err != nil {
		return err
	}
	if old {
		if err := db.upgrade(progress); err != nil {
			return err
		}
		return db.view(func(tx *stx) error { return db.check(tx, network) })
	}
	if !fresh {
		return nil
	}
	return db.update(func(tx *stx) error {
		for _, name := range allBuckets {
			if _, err := tx.CreateBucket(name); err != nil {
				return fmt.Errorf("chaindb: create bucket %s: %w", name, err)
			}
		}
		info := tx.Bucket(bucketInfo)
		for _, kv := range []struct{ k, v []byte }{
			{infoSchemaVersion, encodeU32(schemaVersion)},
			{infoNetwork, []byte(network)},
			{infoTxCount, encodeU64(0)},
			{infoAltBlockCount, encodeU64(0)},
		} {
			if err := info.Put(kv.k, kv.v); err != nil {
				return fmt.Errorf("chaindb: write %s: %w", kv.k, err)
			}
		}
		return nil
	})
}

func (db *DB) check(tx *stx, network string) error {
	info := tx.Bucket(bucketInfo)
	version, err := decodeU32(info.Get(infoSchemaVersion))
	if err != nil {
		return corrupt(bucketInfo, infoSchemaVersion, err)
	}
	old := false
	switch version {
	case schemaVersion, schemaVersionPruned:
	case schemaVersionNoIndexes, schemaVersionHashKeyedBlobs, schemaVersionHashKeyedBlobsPruned,
		schemaVersionNoMinerTxs, schemaVersionNoMinerTxsPruned,
		schemaVersionFixedIndexes, schemaVersionFixedIndexesPruned,
		schemaVersionWideIndexes, schemaVersionWideIndexesPruned,
		schemaVersionBoltIndexes, schemaVersionBoltIndexesPruned:
		old = true
	default:
		return &ErrSchemaVersion{Path: db.path, Found: version, Want: schemaVersion}
	}
	if stored := string(info.Get(infoNetwork)); stored != network {
		return &ErrNetworkMismatch{Path: db.path, Stored: stored, Requested: network}
	}
	if old {
		return errNeedsUpgrade
	}
	for _, name := range allBuckets {
		if tx.Bucket(name) == nil {
			return fmt.Errorf("chaindb: corrupt store %s: bucket %s is missing", db.path, name)
		}
	}
	r := Reader{tx: tx}
	if _, err := r.TxCount(); err != nil {
		return err
	}
	if _, err = r.AltBlockCount(); err != nil {
		return err
	}
	// The LSM must know the top block: a directory removed or replaced
	// by another store's would otherwise pass for indexes that are empty
	// (every key image unspent).
	top, err := r.Top()
	if errors.Is(err, ErrEmpty) {
		return nil
	}
	if err != nil {
		return err
	}
	if _, err := r.HeightByHash(top.Hash); err != nil {
		return fmt.Errorf("chaindb: corrupt store %s: its index store %s does not know the top block %s (height %d): %v; "+
			"it must be the one written with this file: restore both, or remove both and sync again",
			db.path, lsmPath(db.path), top.Hash, top.Height, err)
	}
	return nil
}

// update runs fn in one bbolt write transaction whose append-ordered
// buckets split their pages full (see appendOrderedBuckets in schema.go).
// Every write of the store goes through it.
//
// The LSM indexes' changes are written around bbolt's commit (lsm.go).
func (db *DB) update(fn func(tx *stx) error) error {
	db.lsm.mu.Lock()
	defer db.lsm.mu.Unlock()
	ix := &indexTxn{lsm: db.lsm.db, writable: true, changes: make(map[string]*indexChange), read: make(map[string][]byte)}
	tx, err := db.bolt.Begin(true)
	if err != nil {
		return err
	}
	// Rolls back on an error and on a panic in fn (as bbolt's Update does),
	// so that the write lock is never left held; a no-op after Commit.
	defer func() { _ = tx.Rollback() }()
	fillForAppends(tx)
	if err := fn(&stx{Tx: tx, ix: ix}); err != nil {
		return err
	}
	return ix.commitIndexes(tx.Commit)
}

// view runs fn in one read-only transaction.
func (db *DB) view(fn func(tx *stx) error) error {
	return db.bolt.View(func(tx *bolt.Tx) error {
		ix := &indexTxn{lsm: db.lsm.db}
		if err := fn(&stx{Tx: tx, ix: ix}); err != nil {
			return err
		}
		return ix.firstErr()
	})
}

// Close releases the file and the LSM. It waits for open read views to
// finish.
func (db *DB) Close() error {
	err := db.bolt.Close()
	if db.lsm.db != nil {
		if lerr := db.lsm.db.Close(); err == nil {
			err = lerr
		}
		db.lsm.db = nil
	}
	return err
}

// View runs fn on a read-only snapshot of the store; the Reader must not be
// used after fn returns (the values it returned are copies and stay valid).
// Views and the writer do not wait for each other, with one exception: when
// the file outgrows the mapped size (Options.InitialMmapSize, then 1 GiB
// steps), the commit that grows it waits for the views open at that moment,
// and new views wait for that commit. Keep views short.
func (db *DB) View(fn func(r *Reader) error) error {
	return db.view(func(tx *stx) error { return fn(&Reader{tx: tx}) })
}

// Writer is one write transaction of the store, from DB.Update: every Reader
// method, reading the transaction's own writes, plus the writer operations.
// It must not be used after the function given to Update returns.
//
// A refusal (a linkage, duplicate, invalid-record or spent-key-image error)
// is returned before anything is written, so the function may go on after
// one; any other error may leave the transaction half-written, and the
// function must return it so that Update rolls everything back.
type Writer struct {
	Reader
}

// Update runs fn in one write transaction: everything fn writes through w is
// committed together if fn returns nil, and nothing is if it returns an error
// (which Update returns). After a crash the store holds all of it or none.
func (db *DB) Update(fn func(w *Writer) error) error {
	return db.update(func(tx *stx) error { return fn(&Writer{Reader{tx: tx}}) })
}

// Append is DB.Append inside the transaction.
func (w *Writer) Append(rec BlockRecord) error {
	if err := validateRecord(&rec); err != nil {
		return err
	}
	return appendIn(w.tx, &rec)
}

// PopTop is DB.PopTop inside the transaction.
func (w *Writer) PopTop() (BlockRecord, error) { return popIn(w.tx) }

// PutAltBlock is DB.PutAltBlock inside the transaction.
func (w *Writer) PutAltBlock(rec BlockRecord) error {
	if err := validateRecord(&rec); err != nil {
		return err
	}
	return putAltIn(w.tx, &rec)
}

// DeleteAltBlock is DB.DeleteAltBlock inside the transaction.
func (w *Writer) DeleteAltBlock(hash cryptonote.Hash) error { return deleteAltIn(w.tx, hash) }

// validateRecord checks that rec agrees with itself before anything is written.
func validateRecord(rec *BlockRecord) error {
	if rec.Meta.BlobSize != uint64(len(rec.Blob)) {
		return &ErrInvalidRecord{Field: "Meta.BlobSize",
			Reason: fmt.Sprintf("is %d but the blob has %d bytes", rec.Meta.BlobSize, len(rec.Blob))}
	}
	if rec.Meta.NumTxes != uint64(len(rec.Txs)) {
		return &ErrInvalidRecord{Field: "Meta.NumTxes",
			Reason: fmt.Sprintf("is %d but %d txs were supplied", rec.Meta.NumTxes, len(rec.Txs))}
	}
	if !fitsU32(len(rec.Blob)) || !fitsU32(len(rec.Txs)) {
		return &ErrInvalidRecord{Field: "Blob", Reason: "block blob or tx list longer than 2^32-1"}
	}
	seen := make(map[cryptonote.Hash]uint32, len(rec.Txs))
	for i := range rec.Txs {
		tx := &rec.Txs[i]
		if !fitsU32(len(tx.Blob)) {
			return &ErrInvalidRecord{Field: fmt.Sprintf("Txs[%d].Blob", i), Reason: "longer than 2^32-1 bytes"}
		}
		if tx.Pruned {
			return &ErrInvalidRecord{Field: fmt.Sprintf("Txs[%d].Pruned", i), Reason: "a pruned tx cannot be stored as a full one"}
		}
		if first, dup := seen[tx.Hash]; dup {
			return &ErrDuplicateTx{Hash: tx.Hash, Existing: TxLocation{Height: rec.Meta.Height, Index: first}}
		}
		seen[tx.Hash] = uint32(i)
	}
	return nil
}

// Append adds rec as the new top block, with its txs and every index, in one
// transaction. It refuses, leaving the store unchanged, unless
// rec.Meta.Height is the current chain height and (above genesis)
// rec.Meta.PrevHash is the current top hash, and unless its blobs parse (the
// block's tx hash list naming rec.Txs in order) and none of its key images is
// spent already or twice in the block (*ErrKeyImageSpent). It adds the
// block's outputs, key images and output indexes to the transaction
// verification indexes (schema.go). The blobs in rec are stored, not
// retained, once Append returns.
func (db *DB) Append(rec BlockRecord) error {
	if err := validateRecord(&rec); err != nil {
		return err
	}
	return db.update(func(tx *stx) error { return appendIn(tx, &rec) })
}

// appendIn is Append inside the caller's transaction; rec has been validated.
func appendIn(tx *stx, rec *BlockRecord) error {
	m := &rec.Meta
	r := Reader{tx: tx}
	height, err := r.Height()
	if err != nil {
		return err
	}
	if m.Height != height {
		return &ErrHeightMismatch{Got: m.Height, Want: height}
	}
	if height > 0 {
		top, err := r.MetaByHeight(height - 1)
		if err != nil {
			return err
		}
		if m.PrevHash != top.Hash {
			return &ErrPrevMismatch{Height: m.Height, Got: m.PrevHash, Want: top.Hash}
		}
	}
	if existing, err := r.HeightByHash(m.Hash); err == nil {
		return &ErrDuplicateBlock{Hash: m.Hash, Height: existing}
	} else if !errors.Is(err, ErrNotFound) {
		return err
	}
	for i := range rec.Txs {
		// A main-chain tx of the same hash; a miner tx's (slot 0) is
		// refused by checkIndexesFree, as any tx whose outputs are indexed.
		if loc, err := r.TxLocation(rec.Txs[i].Hash); err == nil {
			return &ErrDuplicateTx{Hash: rec.Txs[i].Hash, Existing: loc}
		} else if !errors.Is(err, ErrNotFound) {
			return err
		}
	}
	txCount, err := r.TxCount()
	if err != nil {
		return err
	}

	// The indexes are derived and checked first: a refused block (a spent key
	// image, blobs that do not parse) leaves the transaction untouched.
	if err := appendIndexes(tx, rec); err != nil {
		return err
	}

	key := heightKey(m.Height)
	puts := []struct {
		bucket, key, value []byte
	}{
		{bucketBlockMeta, key, encodeMeta(m)},
		{bucketBlockBlobs, key, rec.Blob},
		{bucketBlockTxs, key, encodeTxHashes(rec.Txs)},
		{bucketBlockHeights, m.Hash[:], encodeU64(m.Height)},
		{bucketInfo, infoTxCount, encodeU64(txCount + uint64(len(rec.Txs)))},
	}
	for _, p := range puts {
		if err := tx.put(p.bucket, p.key, p.value); err != nil {
			return fmt.Errorf("chaindb: append height %d: put %s: %w", m.Height, p.bucket, err)
		}
	}
	if len(rec.Txs) > 0 {
		blobs := make([][]byte, len(rec.Txs))
		for i := range rec.Txs {
			blobs[i] = rec.Txs[i].Blob
		}
		if err := tx.Bucket(bucketBlockTxBlobs).Put(key, encodeBlockTxBlobs(blobs)); err != nil {
			return fmt.Errorf("chaindb: append height %d: put tx blobs: %w", m.Height, err)
		}
	}
	return nil
}

// PopTop removes the top block with its txs and index entries in one
// transaction and returns what it removed, so the caller can keep it as an
// alternative block. It returns ErrEmpty on an empty store.
func (db *DB) PopTop() (BlockRecord, error) {
	var rec BlockRecord
	err := db.update(func(tx *stx) error {
		var err error
		rec, err = popIn(tx)
		return err
	})
	if err != nil {
		return BlockRecord{}, err
	}
	return rec, nil
}

// popIn is PopTop inside the caller's transaction. Everything is read and
// checked before anything is deleted.
func popIn(tx *stx) (BlockRecord, error) {
	r := Reader{tx: tx}
	top, err := r.Top()
	if err != nil {
		return BlockRecord{}, err
	}
	h := top.Height
	key := heightKey(h)
	rec, err := r.record(h)
	if err != nil {
		return BlockRecord{}, err
	}
	txs := rec.Txs
	indexed, err := r.HeightByHash(top.Hash)
	if errors.Is(err, ErrNotFound) {
		return BlockRecord{}, corruptf(bucketBlockHeights, top.Hash[:], "the top block's entry is missing")
	}
	if err != nil {
		return BlockRecord{}, err
	}
	if indexed != h {
		return BlockRecord{}, corruptf(bucketBlockHeights, top.Hash[:], "points at height %d, but the block is at %d", indexed, h)
	}
	txCount, err := r.TxCount()
	if err != nil {
		return BlockRecord{}, err
	}
	if txCount < uint64(len(txs)) {
		return BlockRecord{}, corruptf(bucketInfo, infoTxCount, "tx count %d is below the %d txs of the top block", txCount, len(txs))
	}
	if err := popIndexes(tx, &rec); err != nil {
		return BlockRecord{}, err
	}

	if err := tx.Bucket(bucketBlockTxBlobs).Delete(key); err != nil {
		return BlockRecord{}, fmt.Errorf("chaindb: pop height %d: delete tx blobs: %w", h, err)
	}
	if err := popPruning(tx, h, txs); err != nil {
		return BlockRecord{}, err
	}
	for _, d := range []struct{ bucket, key []byte }{
		{bucketBlockMeta, key},
		{bucketBlockBlobs, key},
		{bucketBlockTxs, key},
		{bucketBlockHeights, top.Hash[:]},
	} {
		if err := tx.del(d.bucket, d.key); err != nil {
			return BlockRecord{}, fmt.Errorf("chaindb: pop height %d: delete from %s: %w", h, d.bucket, err)
		}
	}
	if err := tx.Bucket(bucketInfo).Put(infoTxCount, encodeU64(txCount-uint64(len(txs)))); err != nil {
		return BlockRecord{}, fmt.Errorf("chaindb: pop height %d: update tx count: %w", h, err)
	}
	return rec, nil
}

// PutAltBlock stores rec as an alternative block under rec.Meta.Hash,
// replacing any alternative block stored under that hash. The store does not
// check its linkage: alternative blocks are the chain manager's business.
func (db *DB) PutAltBlock(rec BlockRecord) error {
	if err := validateRecord(&rec); err != nil {
		return err
	}
	return db.update(func(tx *stx) error { return putAltIn(tx, &rec) })
}

// putAltIn is PutAltBlock inside the caller's transaction; rec has been validated.
func putAltIn(tx *stx, rec *BlockRecord) error {
	if err := refusePruned(rec); err != nil {
		return err
	}
	alts := tx.Bucket(bucketAltBlocks)
	isNew := alts.Get(rec.Meta.Hash[:]) == nil
	if err := alts.Put(rec.Meta.Hash[:], encodeAltBlock(rec)); err != nil {
		return fmt.Errorf("chaindb: put alt block %s: %w", rec.Meta.Hash, err)
	}
	if isNew {
		return changeAltBlockCount(tx, true)
	}
	return nil
}

// DeleteAltBlock removes the alternative block stored under hash; it returns
// an ErrNotFound error if there is none.
func (db *DB) DeleteAltBlock(hash cryptonote.Hash) error {
	return db.update(func(tx *stx) error { return deleteAltIn(tx, hash) })
}

func deleteAltIn(tx *stx, hash cryptonote.Hash) error {
	alts := tx.Bucket(bucketAltBlocks)
	if alts.Get(hash[:]) == nil {
		return notFoundf("no alternative block %s", hash)
	}
	if err := alts.Delete(hash[:]); err != nil {
		return fmt.Errorf("chaindb: delete alt block %s: %w", hash, err)
	}
	return changeAltBlockCount(tx, false)
}

// Reorg is one chain reorganisation, applied by Reorganize in this order:
// pop Pop blocks off the main chain (keeping them as alternative blocks if
// KeepPopped), delete the alternative blocks DeleteAlts, append Append as
// the new main-chain blocks, then store PutAlts as alternative blocks.
type Reorg struct {
	Pop        uint64
	KeepPopped bool
	DeleteAlts []cryptonote.Hash
	Append     []BlockRecord
	PutAlts    []BlockRecord
}

// Reorganize applies r in one transaction: after a crash the store holds the
// chain either as it was before or as it is after, never a mix, and if any
// step fails (a linkage, duplicate, spent-key-image or missing-alt error)
// nothing is changed. Each appended block's key images are checked against
// the chain as it stands after the pops and the earlier appended blocks.
// It returns the popped blocks, lowest height first.
func (db *DB) Reorganize(r Reorg) ([]BlockRecord, error) {
	for _, list := range [][]BlockRecord{r.Append, r.PutAlts} {
		for i := range list {
			if err := validateRecord(&list[i]); err != nil {
				return nil, err
			}
		}
	}
	var popped []BlockRecord
	err := db.update(func(tx *stx) error {
		popped = popped[:0]
		height, err := (&Reader{tx: tx}).Height()
		if err != nil {
			return err
		}
		// Genesis stays: a reorganisation forks above it.
		if r.Pop >= height && r.Pop > 0 {
			return fmt.Errorf("chaindb: reorganize: cannot pop %d blocks off a chain of %d (the genesis block stays)", r.Pop, height)
		}
		for range r.Pop {
			rec, err := popIn(tx)
			if err != nil {
				return err
			}
			popped = append(popped, rec)
		}
		slices.Reverse(popped)
		if r.KeepPopped {
			for i := range popped {
				if err := putAltIn(tx, &popped[i]); err != nil {
					return err
				}
			}
		}
		for _, h := range r.DeleteAlts {
			if err := deleteAltIn(tx, h); err != nil {
				return err
			}
		}
		for i := range r.Append {
			if err := appendIn(tx, &r.Append[i]); err != nil {
				return err
			}
		}
		for i := range r.PutAlts {
			if err := putAltIn(tx, &r.PutAlts[i]); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return popped, nil
}

// changeAltBlockCount adds one to the alternative block counter, or takes one away.
func changeAltBlockCount(tx *stx, add bool) error {
	n, err := (&Reader{tx: tx}).AltBlockCount()
	if err != nil {
		return err
	}
	switch {
	case add:
		n++
	case n == 0:
		return corruptf(bucketInfo, infoAltBlockCount, "count is 0 but an alternative block was deleted")
	default:
		n--
	}
	return tx.Bucket(bucketInfo).Put(infoAltBlockCount, encodeU64(n))
}

// CommitTimes are the cumulative times the store's write transactions spent
// committing since Open, from bbolt's own counters, so that a benchmark can
// split a batch commit's latency into its parts (bench/scalegen).
type CommitTimes struct {
	// Spill turns the changed nodes into pages: it allocates them, and
	// growing the memory map (a remap, which waits for every open read
	// view) happens there.
	Spill time.Duration
	// Write writes the dirty pages and the meta page, each followed by an
	// fdatasync: nearly all of it is the two fdatasyncs, the writes only
	// copying into the page cache.
	Write time.Duration
	// Pages is the number of page runs written (bbolt's write calls).
	Pages int64
}

// CommitTimes reports the cumulative commit times since Open.
func (db *DB) CommitTimes() CommitTimes {
	s := db.bolt.Stats().TxStats
	return CommitTimes{Spill: s.GetSpillTime(), Write: s.GetWriteTime(), Pages: s.GetWrite()}
}
