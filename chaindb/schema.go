package chaindb

// This file owns the on-disk layout of the chain store: every bucket name,
// every key and every value encoding. Nothing outside this file builds or
// parses stored bytes, so a layout change is a change to this file (and to
// schemaVersion) only.
//
// Schema version 12. All buckets sit at the root of the bbolt file, but
// for block_heights, tx_index and spent_keys, which live in the LSM beside
// it (see "the LSM" below); their layouts are given here with the others.
//
//	bucket         key                    value
//	-------------  ---------------------  ------------------------------------------------
//	info           "schema_version"       u32 schemaVersion (schemaVersionPruned once pruned)
//	               "network"              network name as given to Open ("mainnet", ...)
//	               "tx_count"             u64 non-coinbase txs on the main chain
//	               "alt_block_count"      u64 entries in alt_blocks
//	               "blob_upgrade_next"    u64 lowest height whose tx blobs are not yet
//	                                      regrouped; only while Open upgrades a store of
//	                                      schema 1-3 (migrate.go)
//	block_meta     u64 height (BE)        block meta, see the meta layout below
//	block_blobs    u64 height (BE)        raw block blob
//	block_txs      u64 height (BE)        u32 count, then count × 32-byte tx hash (block order)
//	block_heights  32-byte block hash     u64 height
//	block_tx_blobs u64 height (BE)        the block's non-coinbase tx blobs, see the
//	                                      layout below; absent for a block without txs
//	alt_blocks     32-byte block hash     alternative block, see the alt layout below
//
// A block's tx blobs are one value (schema version 4): layout byte 1, u32
// count, count × u32 blob length, then the blobs in block order. A tx is
// found through tx_index. One value per block, keyed by height, keeps
// the blobs in append order, packed into few pages; schema versions 1-3
// kept one value per tx keyed by its hash (bucket tx_blobs), which left a
// page per 2-4 KB tx about a quarter empty and scattered every append over
// the file. Open rewrites such a store into this layout (migrate.go).
//
// The transaction-verification indexes (added in schema version 2; a
// version-1 store gets them rebuilt from its blocks at Open, see migrate.go):
//
//	bucket         key                    value
//	-------------  ---------------------  ------------------------------------------------
//	outputs        u64 amount (BE) ‖      output entry, see the output layout below; for
//	               u64 amount index (BE)  amounts above 0 (schema versions 2-9: all)
//	rct_outputs    u64 amount-0 index     the amount-0 (RingCT) outputs of one block, from
//	               (BE) of the block's    that index on, see the rct outputs layout below;
//	               first such output      absent for a block without any (schema version 10)
//	output_counts  u64 amount (BE)        u64 outputs of that amount on the main chain
//	                                      (absent, never 0, when there are none)
//	spent_keys     key image's first      uvarint heights, ascending (a height repeats for
//	               8 bytes                each of its images of that prefix), of the
//	                                      main-chain blocks that spent an image of that
//	                                      prefix; a match is confirmed in the block (spent.go)
//	tx_index       tx hash's first        one entry per main-chain tx of that prefix (miner
//	               8 bytes                txs included), ascending by (height, slot): uvarint
//	                                      height, uvarint slot in the block (0 the miner tx,
//	                                      i+1 the block's i-th tx), then the amount index of
//	                                      each output in tx order as a run or a list (see the
//	                                      index list layout below); an entry is confirmed
//	                                      against the hash its block stores (txindex.go)
//	rct_counts     u64 height (BE)        uvarint amount-0 outputs from genesis through
//	                                      that block
//	miner_txs      32-byte tx hash        uvarint height, for each main-chain block whose
//	                                      miner tx is of version 1 (added in schema version 6)
//
// Schema version 8 gave the index values their compact layouts (output
// entries without the tx hash, uvarints, runs of indexes) and merged
// tx_locations (non-coinbase tx hash → u64 height, u32 index) and
// tx_outputs (tx hash → u32 count, u64 indexes) into tx_index: one 32-byte
// key and one bbolt element a tx instead of two, in the two buckets whose
// random keys leave their pages 50-70 % full. Versions 6 and 7 are 8 and 9
// with those buckets and fixed-width values; Open rebuilds their indexes
// from the stored blocks (migrate.go).
//
// Schema version 10 keyed tx_index by a tx hash's first 8 bytes (as
// spent_keys), made output entries point into the tx blobs for the output
// key and commitment instead of holding them (see the output layout
// below: 64 of an entry's ~71 bytes were copies of bytes the blobs keep),
// and moved the amount-0 outputs into rct_outputs, one entry a block
// instead of one an output. Versions 8 and 9 are 10 and 11 with
// whole-hash keys and every output in outputs, of layout 2; Open rebuilds
// their indexes.
//
// A version-2 miner tx is found through its first output (amount 0, whose
// entry names its height); a version-1 one files its outputs under their
// amounts, which its hash does not tell, hence miner_txs (the genesis
// block's, and on mainnet, testnet and stagenet those before RingCT).
// Schema versions 4 and 5 are 6 and 7 without it; Open builds it for them
// (migrate.go).
//
// The transaction pool, kept so that it survives a restart as monerod's
// does (its entries are verified again when the pool loads them):
//
//	txpool         32-byte tx hash        layout byte 1, u64 received (Unix seconds),
//	                                      flags byte (1 do_not_relay, 2 kept_by_block),
//	                                      then the tx blob
//
// Pruning (prune.go; monerod's txs_pruned / txs_prunable / txs_prunable_hash
// split of BlockchainLMDB). A store is unpruned until Prune writes its seed;
// from then on it stays pruned. For a v2 tx in a block the seed does not
// keep (pruning.HasUnprunedBlock), the stored blob is only the pruned part
// (prefix and RingCT base) and tx_prunable_hash the hash of the dropped
// part, from which the tx id is rebuilt (block_tx_blobs then holds the
// pruned part in the tx's place). Every index stays. The bucket is
// created by the first Prune, so unpruned stores of schema version 2 need no
// migration; its absence means nothing is pruned.
//
//	bucket            key                 value
//	----------------  ------------------  ---------------------------------------------
//	tx_prunable_hash  32-byte tx hash     32-byte keccak of the dropped prunable part
//	info              "pruning_seed"      u32 seed (0x180…0x187); absent when unpruned
//	                  "prune_next"        u64 lowest height not yet pruned: blocks below
//	                                      it that the seed lacks have been pruned
//
// Output numbering is monerod's (BlockchainDB::add_block): per block the
// miner tx first, then the txs in block order, each tx's outputs in order;
// an output's index is the number of outputs of its amount before it. The
// amount an output is filed under is its own for v1 txs (miner or not), and 0
// for v2 txs; a v2 miner tx output's commitment is zeroCommit(amount), a v2
// non-coinbase output's is the tx's rct outPk. These buckets are derived from
// the stored blocks only (indexes.go), so a pop removes exactly what the
// append of the same block added and the store after any sequence of
// appends, pops and reorganisations is byte-for-byte the store a fresh
// append of the same chain makes.
//
// Heights used as keys are big-endian so that bbolt's byte-ordered cursors
// walk them in ascending numeric order (range reads are one cursor sweep).
// Integers inside values are little-endian. Values that hold more than one
// integer start with a layout byte, so a future layout can be recognised
// value by value instead of needing a flag day.
//
// Decoders check every length against the bytes actually present before
// slicing or allocating: a corrupt or truncated value yields an error, never a
// panic and never an allocation sized by an unchecked number.

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	bolt "go.etcd.io/bbolt"

	"github.com/gonero/gonero/cryptonote"
	"github.com/gonero/gonero/internal/u128"
)

// schemaVersion is written at creation and must match at Open.
const schemaVersion uint32 = 12

// schemaVersionPruned is schemaVersion's layout once the store is pruned
// (bucketTxPrunableHash exists and v2 transaction blobs outside the seed's
// stripes are pruned); Prune writes it, and only builds that read pruned
// records open such a store.
const schemaVersionPruned uint32 = 13

// Schema versions 10 and 11 are 12 and 13 with block_heights, tx_index and
// spent_keys in the bbolt file; Open moves them into the LSM (migrate.go).
const (
	schemaVersionBoltIndexes       uint32 = 10
	schemaVersionBoltIndexesPruned uint32 = 11
)

// Schema versions 8 and 9 are 10 and 11 with tx_index keyed by the whole
// tx hash and output entries holding the output key and commitment; Open
// rebuilds the indexes (migrate.go).
const (
	schemaVersionWideIndexes       uint32 = 8
	schemaVersionWideIndexesPruned uint32 = 9
)

// Schema versions 6 and 7 are 8 and 9 with the index values of layout 1
// (fixed-width outputs holding the tx hash, u32+u64 index lists, u64
// heights and counts); Open rebuilds the indexes (migrate.go).
const (
	schemaVersionFixedIndexes       uint32 = 6
	schemaVersionFixedIndexesPruned uint32 = 7
)

// Schema versions 4 and 5 are 6 and 7 without bucket miner_txs; Open
// rebuilds their indexes (migrate.go).
const (
	schemaVersionNoMinerTxs       uint32 = 4
	schemaVersionNoMinerTxsPruned uint32 = 5
)

// schemaVersionNoIndexes is the layout without the transaction-verification
// indexes; Open upgrades such a store by building them (migrate.go).
const schemaVersionNoIndexes uint32 = 1

// Schema versions 2 and 3 are 4 and 5 with tx blobs keyed by tx hash
// (bucketTxBlobsByHash); Open rewrites them (migrate.go).
const (
	schemaVersionHashKeyedBlobs       uint32 = 2
	schemaVersionHashKeyedBlobsPruned uint32 = 3
)

// Bucket names.
var (
	bucketInfo         = []byte("info")
	bucketBlockMeta    = []byte("block_meta")
	bucketBlockBlobs   = []byte("block_blobs")
	bucketBlockTxs     = []byte("block_txs")
	bucketBlockHeights = []byte("block_heights")
	bucketBlockTxBlobs = []byte("block_tx_blobs")
	bucketTxIndex      = []byte("tx_index")
	bucketAltBlocks    = []byte("alt_blocks")

	bucketOutputs      = []byte("outputs")
	bucketRctOutputs   = []byte("rct_outputs")
	bucketOutputCounts = []byte("output_counts")
	bucketSpentKeys    = []byte("spent_keys")
	bucketRctCounts    = []byte("rct_counts")
	bucketMinerTxs     = []byte("miner_txs")
	bucketTxPool       = []byte("txpool")

	// bucketTxPrunableHash is created by the first Prune (prune.go).
	bucketTxPrunableHash = []byte("tx_prunable_hash")

	// bucketTxBlobsByHash is schema versions 1-3's tx blob bucket (32-byte
	// tx hash → tx blob); only the upgrade reads it (migrate.go).
	bucketTxBlobsByHash = []byte("tx_blobs")

	// Schema versions 1-7's tx buckets, merged into tx_index by version 8;
	// the upgrade drops them.
	bucketTxLocationsV1 = []byte("tx_locations")
	bucketTxOutputsV2   = []byte("tx_outputs")
)

// allBuckets is every bucket a valid store's bbolt file has; Open creates
// or checks them.
var allBuckets = [][]byte{
	bucketInfo, bucketBlockMeta, bucketBlockBlobs, bucketBlockTxs,
	bucketBlockTxBlobs, bucketAltBlocks,
	bucketOutputs, bucketRctOutputs, bucketOutputCounts, bucketRctCounts,
	bucketTxPool, bucketMinerTxs,
}

// indexBuckets hold nothing but what indexes.go derives from the main
// chain's blocks, so a migration can drop and rebuild them (those of
// lsmBuckets in the LSM).
var indexBuckets = [][]byte{
	bucketOutputs, bucketRctOutputs, bucketOutputCounts, bucketSpentKeys, bucketTxIndex, bucketRctCounts, bucketMinerTxs,
}

// ---- the LSM (schema version 12) ----
//
// block_heights, tx_index and spent_keys, whose keys are hashes and so land
// at random places, are kept in a log-structured store (pebble), the
// directory lsmDirSuffix beside the bbolt file, instead of in it (lsm.go
// says why, and how the two stores stay consistent). An LSM key is the
// index's prefix byte followed by the key the bucket had; values are as
// above. The LSM may hold entries beyond the truth (of blocks bbolt does
// not hold); unionIndexValue is how a commit merges them.
//
//	index          prefix   key, value
//	-------------  -------  ----------------------------------------------
//	block_heights  'h'      as the bucket above
//	tx_index       't'      as the bucket above
//	spent_keys     's'      as the bucket above

// lsmDirSuffix names the LSM directory: the bbolt file's path with it
// appended (gonero.db.idx).
const lsmDirSuffix = ".idx"

// lsmBuckets are the indexes kept in the LSM.
var lsmBuckets = [][]byte{bucketBlockHeights, bucketTxIndex, bucketSpentKeys}

// lsmPrefix is the LSM key prefix of index name.
func lsmPrefix(name []byte) (byte, bool) {
	switch string(name) {
	case string(bucketBlockHeights):
		return 'h', true
	case string(bucketTxIndex):
		return 't', true
	case string(bucketSpentKeys):
		return 's', true
	}
	return 0, false
}

// isLSMBucket reports whether name is kept in the LSM.
func isLSMBucket(name []byte) bool { _, ok := lsmPrefix(name); return ok }

// The LSM's memory: its block cache and each of its (at most two) memtables.
const (
	lsmCacheBytes    = 16 << 20
	lsmMemTableBytes = 8 << 20
)

// unionIndexValue is a value holding the entries of both old and new (either
// may be nil) of index bucket: what the LSM holds while a commit is under
// way. A list value (spent_keys, tx_index) is the merge of both lists; a
// single value (block_heights), new if there is one.
func unionIndexValue(bucket, old, new []byte) ([]byte, error) {
	if old == nil {
		return new, nil
	}
	if new == nil {
		return old, nil
	}
	switch string(bucket) {
	case string(bucketSpentKeys):
		a, err := decodeSpentHeights(old)
		if err != nil {
			return nil, corrupt(bucket, nil, err)
		}
		b, err := decodeSpentHeights(new)
		if err != nil {
			return nil, corrupt(bucket, nil, err)
		}
		return encodeSpentHeights(mergeHeights(a, b)), nil
	case string(bucketTxIndex):
		a, err := decodeTxEntries(old, false)
		if err != nil {
			return nil, corrupt(bucket, nil, err)
		}
		b, err := decodeTxEntries(new, false)
		if err != nil {
			return nil, corrupt(bucket, nil, err)
		}
		var out []byte
		i, j := 0, 0
		for i < len(a) || j < len(b) {
			switch {
			case j == len(b) || i < len(a) && (a[i].height < b[j].height || a[i].height == b[j].height && a[i].slot < b[j].slot):
				out = append(out, a[i].raw...)
				i++
			case i == len(a) || b[j].height < a[i].height || b[j].height == a[i].height && b[j].slot < a[i].slot:
				out = append(out, b[j].raw...)
				j++
			default: // the same (height, slot): new's entry
				out = append(out, b[j].raw...)
				i++
				j++
			}
		}
		return out, nil
	}
	return new, nil
}

// mergeHeights merges two ascending lists, a height as often as in the list
// that has it more often.
func mergeHeights(a, b []uint64) []uint64 {
	out := make([]uint64, 0, max(len(a), len(b)))
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case j == len(b) || i < len(a) && a[i] < b[j]:
			out = append(out, a[i])
			i++
		case i == len(a) || b[j] < a[i]:
			out = append(out, b[j])
			j++
		default:
			out = append(out, a[i])
			i++
			j++
		}
	}
	return out
}

// appendOrderedBuckets are the buckets whose keys grow with the chain
// (heights, and for amount 0 — every RingCT output — the output index), so
// nearly every insert lands at the end of the last leaf. bbolt splits a leaf
// at its bucket's FillPercent, 50 % by default: right for random keys (the
// left half gets the later inserts), but for appends the left half is never
// written again, so those buckets would stay half empty, doubling the bytes
// per block. They are split at appendFillPercent instead; a pop at the tip
// only empties the last pages. The hash-keyed buckets keep bbolt's default.
var appendOrderedBuckets = [][]byte{
	bucketBlockMeta, bucketBlockBlobs, bucketBlockTxs, bucketBlockTxBlobs, bucketOutputs, bucketRctOutputs, bucketRctCounts,
}

// appendFillPercent leaves a little room in each split leaf, so that a
// slightly larger value rewritten in place does not split it again.
const appendFillPercent = 0.95

// fillForAppends sets the split fill of the append-ordered buckets for one
// write transaction (bbolt does not store FillPercent: it is a property of
// the transaction's bucket handle, which bbolt caches for the transaction).
func fillForAppends(tx *bolt.Tx) {
	for _, name := range appendOrderedBuckets {
		if b := tx.Bucket(name); b != nil {
			b.FillPercent = appendFillPercent
		}
	}
}

// Keys of the info bucket.
var (
	infoSchemaVersion = []byte("schema_version")
	infoNetwork       = []byte("network")
	infoTxCount       = []byte("tx_count")
	infoAltBlockCount = []byte("alt_block_count")
	infoPruningSeed   = []byte("pruning_seed")
	infoPruneNext     = []byte("prune_next")
	// infoBlobUpgradeNext is the lowest height whose tx blobs migrateBlobs
	// has not yet regrouped (present only while an upgrade is under way).
	infoBlobUpgradeNext = []byte("blob_upgrade_next")
)

const hashSize = len(cryptonote.Hash{})

// ---- heights as keys ----

const heightKeySize = 8

func heightKey(h uint64) []byte {
	k := make([]byte, heightKeySize)
	binary.BigEndian.PutUint64(k, h)
	return k
}

func decodeHeightKey(k []byte) (uint64, error) {
	if len(k) != heightKeySize {
		return 0, fmt.Errorf("height key is %d bytes, want %d", len(k), heightKeySize)
	}
	return binary.BigEndian.Uint64(k), nil
}

// ---- plain integers as values (info counters, block_heights) ----

func encodeU64(v uint64) []byte { return binary.LittleEndian.AppendUint64(nil, v) }

func decodeU64(v []byte) (uint64, error) {
	if len(v) != 8 {
		return 0, fmt.Errorf("u64 value is %d bytes, want 8", len(v))
	}
	return binary.LittleEndian.Uint64(v), nil
}

func encodeU32(v uint32) []byte { return binary.LittleEndian.AppendUint32(nil, v) }

func decodeU32(v []byte) (uint32, error) {
	if len(v) != 4 {
		return 0, fmt.Errorf("u32 value is %d bytes, want 4", len(v))
	}
	return binary.LittleEndian.Uint32(v), nil
}

// ---- block meta ----

// metaLayoutV1 is the first byte of every encoded BlockMeta.
//
// Layout v1, 199 bytes, little-endian integers:
//
//	off  size  field
//	  0     1  layout (= 1)
//	  1     8  Height
//	  9    32  Hash
//	 41    32  PrevHash
//	 73     8  Timestamp
//	 81     1  MajorVersion
//	 82     1  MinorVersion
//	 83     4  Nonce
//	 87     8  BlobSize
//	 95     8  Weight
//	103     8  LongTermWeight
//	111    16  Difficulty (Lo, then Hi)
//	127    16  CumulativeDifficulty (Lo, then Hi)
//	143     8  Reward
//	151     8  GeneratedCoins
//	159    32  MinerTxHash
//	191     8  NumTxes
const metaLayoutV1 byte = 1

// metaSize is the length of an encoded v1 meta.
const metaSize = 199

// metaMinerTxHashOffset is where MinerTxHash sits in an encoded v1 meta
// (an output entry's tx hash is resolved from it without decoding the meta).
const metaMinerTxHashOffset = 159

// metaHashOffset is where Hash sits in an encoded v1 meta.
const metaHashOffset = 9

// metaHashIn reads the block hash out of an encoded meta in place.
func metaHashIn(meta []byte, height uint64) (cryptonote.Hash, error) {
	if len(meta) != metaSize || meta[0] != metaLayoutV1 {
		return cryptonote.Hash{}, fmt.Errorf("height %d has no meta", height)
	}
	return cryptonote.Hash(meta[metaHashOffset : metaHashOffset+hashSize]), nil
}

// appendMeta appends the v1 encoding of m to dst.
func appendMeta(dst []byte, m *BlockMeta) []byte {
	le := binary.LittleEndian
	dst = append(dst, metaLayoutV1)
	dst = le.AppendUint64(dst, m.Height)
	dst = append(dst, m.Hash[:]...)
	dst = append(dst, m.PrevHash[:]...)
	dst = le.AppendUint64(dst, m.Timestamp)
	dst = append(dst, m.MajorVersion, m.MinorVersion)
	dst = le.AppendUint32(dst, m.Nonce)
	dst = le.AppendUint64(dst, m.BlobSize)
	dst = le.AppendUint64(dst, m.Weight)
	dst = le.AppendUint64(dst, m.LongTermWeight)
	dst = le.AppendUint64(dst, m.Difficulty.Lo)
	dst = le.AppendUint64(dst, m.Difficulty.Hi)
	dst = le.AppendUint64(dst, m.CumulativeDifficulty.Lo)
	dst = le.AppendUint64(dst, m.CumulativeDifficulty.Hi)
	dst = le.AppendUint64(dst, m.Reward)
	dst = le.AppendUint64(dst, m.GeneratedCoins)
	dst = append(dst, m.MinerTxHash[:]...)
	dst = le.AppendUint64(dst, m.NumTxes)
	return dst
}

func encodeMeta(m *BlockMeta) []byte { return appendMeta(make([]byte, 0, metaSize), m) }

// decodeMeta parses exactly one v1 meta value.
func decodeMeta(v []byte) (BlockMeta, error) {
	var m BlockMeta
	if len(v) == 0 {
		return m, errors.New("meta value is empty")
	}
	if v[0] != metaLayoutV1 {
		return m, fmt.Errorf("meta layout %d is not known (this build reads layout %d)", v[0], metaLayoutV1)
	}
	if len(v) != metaSize {
		return m, fmt.Errorf("meta value is %d bytes, layout %d needs %d", len(v), metaLayoutV1, metaSize)
	}
	le := binary.LittleEndian
	m.Height = le.Uint64(v[1:])
	copy(m.Hash[:], v[9:41])
	copy(m.PrevHash[:], v[41:73])
	m.Timestamp = le.Uint64(v[73:])
	m.MajorVersion = v[81]
	m.MinorVersion = v[82]
	m.Nonce = le.Uint32(v[83:])
	m.BlobSize = le.Uint64(v[87:])
	m.Weight = le.Uint64(v[95:])
	m.LongTermWeight = le.Uint64(v[103:])
	m.Difficulty = u128.U128{Lo: le.Uint64(v[111:]), Hi: le.Uint64(v[119:])}
	m.CumulativeDifficulty = u128.U128{Lo: le.Uint64(v[127:]), Hi: le.Uint64(v[135:])}
	m.Reward = le.Uint64(v[143:])
	m.GeneratedCoins = le.Uint64(v[151:])
	copy(m.MinerTxHash[:], v[159:191])
	m.NumTxes = le.Uint64(v[191:])
	return m, nil
}

// ---- a block's tx hash list ----

// The count prefix makes the value self-checking (length must be 4+32·count)
// and keeps it non-empty for blocks without txs.

func encodeTxHashes(txs []TxRecord) []byte {
	v := make([]byte, 4, 4+hashSize*len(txs))
	binary.LittleEndian.PutUint32(v, uint32(len(txs))) // len(txs) ≤ MaxUint32: checked by validateRecord
	for i := range txs {
		v = append(v, txs[i].Hash[:]...)
	}
	return v
}

func decodeTxHashes(v []byte) ([]cryptonote.Hash, error) {
	if len(v) < 4 {
		return nil, fmt.Errorf("tx hash list is %d bytes, shorter than its 4-byte count", len(v))
	}
	n := binary.LittleEndian.Uint32(v)
	if uint64(len(v)-4) != uint64(n)*uint64(hashSize) {
		return nil, fmt.Errorf("tx hash list announces %d hashes but holds %d bytes of them", n, len(v)-4)
	}
	hashes := make([]cryptonote.Hash, n)
	for i := range hashes {
		copy(hashes[i][:], v[4+i*hashSize:])
	}
	return hashes, nil
}

// ---- a block's tx blobs ----

const blockTxBlobsLayout = 1

// encodeBlockTxBlobs lays out a block's tx blobs (validateRecord bounds
// their count and lengths to u32).
func encodeBlockTxBlobs(blobs [][]byte) []byte {
	size := 5 + 4*len(blobs)
	for _, b := range blobs {
		size += len(b)
	}
	v := make([]byte, 5, size)
	v[0] = blockTxBlobsLayout
	binary.LittleEndian.PutUint32(v[1:], uint32(len(blobs)))
	for _, b := range blobs {
		v = binary.LittleEndian.AppendUint32(v, uint32(len(b)))
	}
	for _, b := range blobs {
		v = append(v, b...)
	}
	return v
}

// splitBlockTxBlobs checks a block's tx blob value's header and returns
// its length table and the concatenated blobs.
func splitBlockTxBlobs(v []byte) (n uint64, lengths, data []byte, err error) {
	if len(v) < 5 || v[0] != blockTxBlobsLayout {
		return 0, nil, nil, fmt.Errorf("tx blob list is %d bytes or of an unknown layout", len(v))
	}
	n = uint64(binary.LittleEndian.Uint32(v[1:]))
	if n == 0 || n*4 > uint64(len(v)-5) {
		return 0, nil, nil, fmt.Errorf("tx blob list announces %d blobs in %d bytes", n, len(v))
	}
	return n, v[5 : 5+4*n], v[5+4*n:], nil
}

// decodeBlockTxBlobs splits a block's tx blob value; the blobs alias v.
// The lengths must add up to exactly the bytes present.
func decodeBlockTxBlobs(v []byte) ([][]byte, error) {
	n, lengths, data, err := splitBlockTxBlobs(v)
	if err != nil {
		return nil, err
	}
	blobs := make([][]byte, n)
	off := uint64(0)
	for i := range blobs {
		l := uint64(binary.LittleEndian.Uint32(lengths[4*i:]))
		if l > uint64(len(data))-off {
			return nil, fmt.Errorf("tx blob %d of %d overruns the value", i, n)
		}
		blobs[i] = data[off : off+l : off+l]
		off += l
	}
	if off != uint64(len(data)) {
		return nil, fmt.Errorf("tx blob list holds %d bytes after its %d blobs", uint64(len(data))-off, n)
	}
	return blobs, nil
}

// blockTxBlobAt is blob i of a block's tx blob value, aliasing v, without
// splitting the others (a lookup by tx reads one length table).
func blockTxBlobAt(v []byte, i uint32) ([]byte, error) {
	n, lengths, data, err := splitBlockTxBlobs(v)
	if err != nil {
		return nil, err
	}
	if uint64(i) >= n {
		return nil, fmt.Errorf("tx blob list has %d blobs, no blob %d", n, i)
	}
	off := uint64(0)
	for k := uint64(0); k < uint64(i); k++ {
		off += uint64(binary.LittleEndian.Uint32(lengths[4*k:]))
	}
	l := uint64(binary.LittleEndian.Uint32(lengths[4*uint64(i):]))
	if off > uint64(len(data)) || l > uint64(len(data))-off {
		return nil, fmt.Errorf("tx blob %d of %d overruns the value", i, n)
	}
	return data[off : off+l : off+l], nil
}

// ---- tx index entries ----

// txIndexKeySize is the length of a tx_index key: a tx hash's prefix
// (schema versions 6-9 keyed the whole 32-byte hash). A key holds every
// main-chain tx of that prefix; a lookup confirms the entry against the
// tx hash its block stores (txindex.go).
const txIndexKeySize = 8

func txIndexKey(h *cryptonote.Hash) []byte { return append([]byte(nil), h[:txIndexKeySize]...) }

// encodeTxEntry is one tx's entry in a tx_index value: where it is (slot
// 0 its block's miner tx, i+1 the block's i-th tx) and its outputs' amount
// indexes (a run or a list, each self-delimiting).
func encodeTxEntry(height uint64, slot uint32, idx []uint64) []byte {
	v := binary.AppendUvarint(nil, height)
	v = binary.AppendUvarint(v, uint64(slot))
	return append(v, encodeIndexList(idx)...)
}

// txEntry is one decoded entry of a tx_index value; raw is its bytes.
type txEntry struct {
	height uint64
	slot   uint32
	idx    []uint64
	raw    []byte
}

// decodeTxEntries parses a tx_index value: one or more entries, in
// strictly ascending (height, slot) order (the order appends make them,
// so that the value has one encoding and a pop removes the last ones).
// With indexes false the index lists are checked but not kept.
func decodeTxEntries(v []byte, indexes bool) ([]txEntry, error) {
	if len(v) == 0 {
		return nil, errors.New("tx index value is empty")
	}
	d := decoder{buf: v}
	var out []txEntry
	for len(d.buf) > 0 {
		start := d.buf
		var e txEntry
		var err error
		if e.height, err = d.uvarint("height"); err != nil {
			return nil, err
		}
		s, err := d.uvarint("slot")
		if err != nil {
			return nil, err
		}
		if s > math.MaxUint32 {
			return nil, fmt.Errorf("tx slot %d is beyond a u32", s)
		}
		e.slot = uint32(s)
		if n := len(out); n > 0 && (e.height < out[n-1].height || e.height == out[n-1].height && e.slot <= out[n-1].slot) {
			return nil, fmt.Errorf("tx entries (%d, %d) then (%d, %d) are not ascending", out[n-1].height, out[n-1].slot, e.height, e.slot)
		}
		if e.idx, err = d.indexList(indexes); err != nil {
			return nil, err
		}
		e.raw = start[:len(start)-len(d.buf)]
		out = append(out, e)
	}
	return out, nil
}

// ---- alternative blocks ----

// altLayoutV1 is the first byte of every encoded alternative block.
//
// Layout v1:
//
//	u8   layout (= 1)
//	     meta, metaSize bytes (with its own layout byte)
//	u32  block blob length, then the blob
//	u32  tx count, then per tx: 32-byte hash, u32 blob length, blob
const altLayoutV1 byte = 1

// altTxMinSize is the smallest encoding of one tx entry (hash and length, empty blob).
const altTxMinSize = hashSize + 4

// encodeAltBlock encodes rec; validateRecord has checked that every length fits a u32.
func encodeAltBlock(rec *BlockRecord) []byte {
	size := 1 + metaSize + 4 + len(rec.Blob) + 4
	for i := range rec.Txs {
		size += altTxMinSize + len(rec.Txs[i].Blob)
	}
	le := binary.LittleEndian
	v := make([]byte, 0, size)
	v = append(v, altLayoutV1)
	v = appendMeta(v, &rec.Meta)
	v = le.AppendUint32(v, uint32(len(rec.Blob)))
	v = append(v, rec.Blob...)
	v = le.AppendUint32(v, uint32(len(rec.Txs)))
	for i := range rec.Txs {
		v = append(v, rec.Txs[i].Hash[:]...)
		v = le.AppendUint32(v, uint32(len(rec.Txs[i].Blob)))
		v = append(v, rec.Txs[i].Blob...)
	}
	return v
}

// decodeAltBlock parses an alternative block. The returned blobs are copies,
// so they stay valid after the bbolt transaction ends.
func decodeAltBlock(v []byte) (BlockRecord, error) {
	var rec BlockRecord
	if len(v) == 0 {
		return rec, errors.New("alt block value is empty")
	}
	if v[0] != altLayoutV1 {
		return rec, fmt.Errorf("alt block layout %d is not known (this build reads layout %d)", v[0], altLayoutV1)
	}
	d := decoder{buf: v[1:]}
	metaBytes, err := d.bytes(metaSize, "meta")
	if err != nil {
		return rec, err
	}
	if rec.Meta, err = decodeMeta(metaBytes); err != nil {
		return rec, err
	}
	if rec.Blob, err = d.lengthPrefixed("block blob"); err != nil {
		return rec, err
	}
	n, err := d.u32("tx count")
	if err != nil {
		return rec, err
	}
	if uint64(n) > uint64(len(d.buf)/altTxMinSize) {
		return rec, fmt.Errorf("alt block announces %d txs but only %d bytes follow", n, len(d.buf))
	}
	rec.Txs = make([]TxRecord, n)
	for i := range rec.Txs {
		h, err := d.bytes(hashSize, "tx hash")
		if err != nil {
			return rec, err
		}
		copy(rec.Txs[i].Hash[:], h)
		if rec.Txs[i].Blob, err = d.lengthPrefixed("tx blob"); err != nil {
			return rec, err
		}
	}
	if len(d.buf) != 0 {
		return rec, fmt.Errorf("alt block has %d trailing bytes", len(d.buf))
	}
	return rec, nil
}

// decodeAltMeta parses only the meta of an alternative block, for listings
// that need no blobs.
func decodeAltMeta(v []byte) (BlockMeta, error) {
	if len(v) == 0 {
		return BlockMeta{}, errors.New("alt block value is empty")
	}
	if v[0] != altLayoutV1 {
		return BlockMeta{}, fmt.Errorf("alt block layout %d is not known (this build reads layout %d)", v[0], altLayoutV1)
	}
	if len(v) < 1+metaSize {
		return BlockMeta{}, fmt.Errorf("alt block value is %d bytes, shorter than its meta", len(v))
	}
	return decodeMeta(v[1 : 1+metaSize])
}

// ---- transaction-verification indexes ----

// amountKey is the key of output_counts: the amount, big-endian, so that a
// cursor walks amounts in numeric order.
func amountKey(amount uint64) []byte { return heightKey(amount) }

// outputKeySize is the length of a key of the outputs bucket.
const outputKeySize = 16

// outputKey is amount ‖ index, both big-endian: the outputs of one amount are
// contiguous and in index order, and appends are sequential per amount.
func outputKey(amount, index uint64) []byte {
	k := make([]byte, outputKeySize)
	binary.BigEndian.PutUint64(k, amount)
	binary.BigEndian.PutUint64(k[8:], index)
	return k
}

func decodeOutputKey(k []byte) (amount, index uint64, err error) {
	if len(k) != outputKeySize {
		return 0, 0, fmt.Errorf("output key is %d bytes, want %d", len(k), outputKeySize)
	}
	return binary.BigEndian.Uint64(k), binary.BigEndian.Uint64(k[8:]), nil
}

// outputLayout is the first byte of every encoded output entry. Layout 1
// (schema versions 2-7) held the key, the commitment and the 32-byte tx
// hash, fixed-width; layout 2 (schema versions 8-9) the key, the
// commitment, then uvarints unlock time, height, slot and position.
//
// Layout 3 (schema version 10), for an output filed under an amount
// above 0 (a pre-RingCT output: amount-0 outputs are in rct_outputs):
//
//	size  field
//	   1  layout (= 3)
//	 var  height of the block holding the tx (uvarint)
//	 var  the tx's slot in that block (uvarint): 0 its miner tx, i+1 its i-th tx
//	 var  position of the output in the tx's outputs (uvarint)
//	 var  where the output (amount varint, target tag, key) starts in the
//	      tx's bytes (uvarint)
//
// The tx's bytes are its stored blob for slot i+1 (block_tx_blobs),
// whole or pruned: both start with the prefix and the RingCT base, which
// hold every output and commitment, so pruning leaves the offsets valid.
// For slot 0 they are the block blob after its header (minerTxStart).
// Reader reads the key, the unlock time (the tx's second varint) and, for
// amount 0, the commitment from there, and the tx hash from the slot
// (block_txs, or the meta's miner tx hash) when asked. Layout 2 took 70-72
// bytes for an amount-0 entry, 64 of them copies of bytes the blob keeps.
// The decoder takes the amount from the key, so a value is only read
// together with its key.
const outputLayout byte = 3

// encodeOutput encodes o, of an amount above 0, for the outputs bucket.
func encodeOutput(o *OutputEntry) []byte {
	v := make([]byte, 0, 1+4*binary.MaxVarintLen64)
	v = append(v, outputLayout)
	v = binary.AppendUvarint(v, o.Height)
	v = binary.AppendUvarint(v, uint64(o.slot))
	v = binary.AppendUvarint(v, uint64(o.Position))
	return binary.AppendUvarint(v, uint64(o.outOff))
}

// decodeOutput parses the value stored under (amount, index), amount above
// 0. Key, UnlockTime and TxHash are left zero: Reader fills them from the
// blobs (readOutputInTx, outputReader).
func decodeOutput(amount, index uint64, v []byte) (OutputEntry, error) {
	o := OutputEntry{Amount: amount, Index: index}
	if amount == 0 {
		return o, errors.New("an amount-0 output in the outputs bucket (they are in rct_outputs)")
	}
	if len(v) == 0 {
		return o, errors.New("output value is empty")
	}
	if v[0] != outputLayout {
		return o, fmt.Errorf("output layout %d is not known (this build reads layout %d)", v[0], outputLayout)
	}
	d := decoder{buf: v[1:]}
	var err error
	if o.Height, err = d.uvarint("height"); err != nil {
		return o, err
	}
	var f [3]uint64
	for i, what := range []string{"tx slot", "position", "output offset"} {
		if f[i], err = d.uvarint(what); err != nil {
			return o, err
		}
		if f[i] > math.MaxUint32 {
			return o, fmt.Errorf("output %s %d is beyond a u32", what, f[i])
		}
	}
	o.slot, o.Position, o.outOff = uint32(f[0]), uint32(f[1]), uint32(f[2])
	if len(d.buf) != 0 {
		return o, fmt.Errorf("output value has %d trailing bytes", len(d.buf))
	}
	return o, nil
}

// rctOutputsLayout is the first byte of a rct_outputs value: one block's
// amount-0 outputs, in their index order (schema version 10).
//
//	u8   layout (= 1)
//	var  height of the block (uvarint)
//	then, for each tx of the block with amount-0 outputs, by ascending slot:
//	var  the tx's slot (uvarint): 0 its miner tx, i+1 its i-th tx
//	var  n, its amount-0 outputs (uvarint, at least 1)
//	var  where its commitments (rct outPk) start in the tx's bytes
//	     (uvarint), or 0: the commitments follow the offsets
//	n ×  uvarint position in the tx's outputs (ascending), uvarint where
//	     the output starts in the tx's bytes
//	n×32 the commitments, after a 0 only: a v2 miner tx's zeroCommit(amount)
//	     (computing one costs ~100 µs, too much for each ring member a
//	     lookup reads; one output a block), or the zero keys of a v1 tx's
//	     amount-0 outputs
//
// The commitment of the output at position p is at start + 32p. One
// bbolt entry a block instead of one an output: an amount-0 output takes
// 2-4 bytes here where an entry of its own took a 16-byte key, a 16-byte
// element header and its value. A lookup seeks the block (the last key at
// or below the index) and walks its outputs to the one asked.
const rctOutputsLayout byte = 1

// rctKey is a rct_outputs key: an amount-0 index, big-endian.
func rctKey(index uint64) []byte { return heightKey(index) }

// encodeRctOutputs encodes a block's amount-0 outputs (in index order,
// each with its slot, position, outOff, and commitOff or Commitment).
func encodeRctOutputs(height uint64, outs []OutputEntry) []byte {
	v := binary.AppendUvarint([]byte{rctOutputsLayout}, height)
	for i := 0; i < len(outs); {
		j := i
		for j < len(outs) && outs[j].slot == outs[i].slot {
			j++
		}
		g := outs[i:j]
		var start uint64
		if g[0].commitOff != 0 {
			start = uint64(g[0].commitOff) - 32*uint64(g[0].Position)
		}
		v = binary.AppendUvarint(v, uint64(g[0].slot))
		v = binary.AppendUvarint(v, uint64(len(g)))
		v = binary.AppendUvarint(v, start)
		for k := range g {
			v = binary.AppendUvarint(v, uint64(g[k].Position))
			v = binary.AppendUvarint(v, uint64(g[k].outOff))
		}
		if start == 0 {
			for k := range g {
				v = append(v, g[k].Commitment[:]...)
			}
		}
		i = j
	}
	return v
}

// walkRctOutputs parses a rct_outputs value whose first output has index
// first, calling fn with each output in order (Amount 0, Index, Height,
// slot, Position, outOff, and commitOff or the Commitment) until fn
// returns false; a stop leaves the rest unchecked. o is reused between
// calls.
func walkRctOutputs(v []byte, first uint64, fn func(o *OutputEntry) bool) error {
	_, _, err := rctWalk(v, first, 0, fn)
	return err
}

// rctOutputIn finds output index in a rct_outputs value whose first
// output has index first (found false: the value ends before it).
func rctOutputIn(v []byte, first, index uint64) (OutputEntry, bool, error) {
	return rctWalk(v, first, index, nil)
}

// rctWalk is walkRctOutputs with fn, and rctOutputIn (target) without:
// one parser for both, and a lookup that only decodes the outputs of the
// tx holding the one it looks for.
func rctWalk(v []byte, first, target uint64, fn func(o *OutputEntry) bool) (OutputEntry, bool, error) {
	var o OutputEntry
	if len(v) == 0 || v[0] != rctOutputsLayout {
		return o, false, fmt.Errorf("rct outputs value of %d bytes is empty or of an unknown layout", len(v))
	}
	d := decoder{buf: v[1:]}
	height, err := d.uvarint("height")
	if err != nil {
		return o, false, err
	}
	index := first
	slot, groups := uint64(0), 0
	for len(d.buf) > 0 {
		s, err := d.uvarint("tx slot")
		if err != nil {
			return o, false, err
		}
		if s > math.MaxUint32 || groups > 0 && s <= slot {
			return o, false, fmt.Errorf("tx slot %d after %d", s, slot)
		}
		slot = s
		n, err := d.uvarint("output count")
		if err != nil {
			return o, false, err
		}
		if n == 0 || n > uint64(len(d.buf))/2 { // a position and an offset take 2 bytes at least
			return o, false, fmt.Errorf("%d outputs announced in %d bytes", n, len(d.buf))
		}
		start, err := d.uvarint("commitment start")
		if err != nil {
			return o, false, err
		}
		if start > math.MaxUint32 {
			return o, false, fmt.Errorf("commitment start %d is beyond a u32", start)
		}
		if index+n < index {
			return o, false, fmt.Errorf("output index %d overflows", index)
		}
		if fn == nil && (target < index || target-index >= n) {
			// A lookup skips the other txs' outputs unchecked (bounds
			// aside): their bytes decide nothing it answers.
			for range 2 * n {
				_, m := binary.Uvarint(d.buf)
				if m <= 0 {
					return o, false, errors.New("output position or offset is not a valid uvarint")
				}
				d.buf = d.buf[m:]
			}
			if start == 0 {
				if _, err := d.bytes(int(n)*32, "commitments"); err != nil {
					return o, false, err
				}
			}
			groups++
			index += n
			continue
		}
		// First pass: check the pairs and find the commitments.
		pairs := d.buf
		var pos uint64
		for k := range n {
			p, err := d.uvarint("position")
			if err != nil {
				return o, false, err
			}
			off, err := d.uvarint("output offset")
			if err != nil {
				return o, false, err
			}
			if k > 0 && p <= pos || off > math.MaxUint32 || p > math.MaxUint32 || start+32*p > math.MaxUint32 {
				return o, false, fmt.Errorf("output at position %d (after %d), offset %d, commitments from %d", p, pos, off, start)
			}
			pos = p
		}
		pairs = pairs[:len(pairs)-len(d.buf)]
		var commitments []byte
		if start == 0 {
			if commitments, err = d.bytes(int(n)*32, "commitments"); err != nil {
				return o, false, err
			}
		}
		groups++
		// Second pass: the outputs (for a lookup, up to its own).
		pd := decoder{buf: pairs}
		for k := range n {
			p, _ := pd.uvarint("position")
			off, _ := pd.uvarint("output offset")
			if fn == nil && index != target {
				index++
				continue
			}
			o = OutputEntry{Amount: 0, Index: index, Height: height, slot: uint32(slot), Position: uint32(p), outOff: uint32(off)}
			if start != 0 {
				o.commitOff = uint32(start + 32*p)
			} else {
				copy(o.Commitment[:], commitments[32*k:])
			}
			if fn == nil {
				return o, true, nil
			}
			index++
			if !fn(&o) {
				return o, false, nil
			}
		}
	}
	if groups == 0 {
		return o, false, errors.New("rct outputs value holds no output")
	}
	return o, false, nil
}

// Output targets as a tx blob tags them (cryptonote's txout_to_key and
// txout_to_tagged_key).
const (
	outTagKey       = 2
	outTagTaggedKey = 3
)

// minerTxStart is where the miner tx starts in a block blob: after the
// header's three varints (versions, timestamp), prev id and nonce.
func minerTxStart(blob []byte) (int, error) {
	d := decoder{buf: blob}
	for _, what := range []string{"major version", "minor version", "timestamp"} {
		if _, err := d.uvarint(what); err != nil {
			return 0, err
		}
	}
	if _, err := d.bytes(hashSize+4, "prev id and nonce"); err != nil {
		return 0, err
	}
	return len(blob) - len(d.buf), nil
}

// readOutputInTx fills o's Key, UnlockTime and (when its entry gives its
// place) Commitment from txb, the bytes of its tx, checking that they are
// an output there (of o's amount, unless filed under 0).
func readOutputInTx(o *OutputEntry, txb []byte) error {
	d := decoder{buf: txb}
	version, err := d.uvarint("tx version")
	if err != nil {
		return err
	}
	if o.UnlockTime, err = d.uvarint("unlock time"); err != nil {
		return err
	}
	if uint64(o.outOff) >= uint64(len(txb)) || o.outOff < 2 {
		return fmt.Errorf("output offset %d is outside the tx's %d bytes", o.outOff, len(txb))
	}
	d = decoder{buf: txb[o.outOff:]}
	amount, err := d.uvarint("output amount")
	if err != nil {
		return err
	}
	tag, err := d.bytes(1, "output tag")
	if err != nil {
		return err
	}
	if tag[0] != outTagKey && tag[0] != outTagTaggedKey {
		return fmt.Errorf("output offset %d holds target tag %d, not a key", o.outOff, tag[0])
	}
	key, err := d.bytes(32, "output key")
	if err != nil {
		return err
	}
	copy(o.Key[:], key)
	if o.Amount != 0 && amount != o.Amount {
		return fmt.Errorf("output offset %d holds amount %d, the entry %d", o.outOff, amount, o.Amount)
	}
	if o.Amount == 0 && o.commitOff != 0 {
		if version < 2 || uint64(o.commitOff) > uint64(len(txb))-32 || len(txb) < 32 {
			return fmt.Errorf("commitment offset %d in a v%d tx of %d bytes", o.commitOff, version, len(txb))
		}
		copy(o.Commitment[:], txb[o.commitOff:])
	}
	return nil
}

// txOutputPlaces returns where each output of tx, parsed from txb (whole
// or pruned), starts in txb, and where its RingCT outPk starts (0 if it
// has none). The places follow from the fields' encoded lengths (the
// parser takes only canonical varints), and each is checked against the
// bytes: a place that does not hold its output is an error.
func txOutputPlaces(tx *cryptonote.Transaction, txb []byte) (outs []uint32, outPk int, err error) {
	vl := cryptonote.VarintLen
	off := vl(tx.Version) + vl(tx.UnlockTime) + vl(uint64(len(tx.Inputs)))
	for _, in := range tx.Inputs {
		switch in := in.(type) {
		case cryptonote.TxInGen:
			off += 1 + vl(in.Height)
		case cryptonote.TxInToKey:
			off += 1 + vl(in.Amount) + vl(uint64(len(in.KeyOffsets))) + 32
			for _, k := range in.KeyOffsets {
				off += vl(k)
			}
		default:
			return nil, 0, fmt.Errorf("input of type %T", in)
		}
	}
	off += vl(uint64(len(tx.Outputs)))
	outs = make([]uint32, len(tx.Outputs))
	for i, out := range tx.Outputs {
		if !fitsU32(off) {
			return nil, 0, errors.New("tx longer than 2^32-1 bytes")
		}
		outs[i] = uint32(off)
		var tag byte
		var key cryptonote.Key
		switch t := out.Target.(type) {
		case cryptonote.TxOutToKey:
			tag, key = outTagKey, t.Key
		case cryptonote.TxOutToTaggedKey:
			tag, key = outTagTaggedKey, t.Key
		default:
			return nil, 0, fmt.Errorf("output %d is not to a key (%T)", i, out.Target)
		}
		n := vl(out.Amount)
		if off+n+33 > len(txb) || !bytes.Equal(txb[off:off+n], cryptonote.AppendVarint(nil, out.Amount)) ||
			txb[off+n] != tag || !bytes.Equal(txb[off+n+1:off+n+33], key[:]) {
			return nil, 0, fmt.Errorf("output %d is not at byte %d, where the fields before it end", i, off)
		}
		off += n + 33
		if tag == outTagTaggedKey {
			off++ // the view tag
		}
	}
	off += vl(uint64(len(tx.Extra))) + len(tx.Extra)
	if tx.Version < 2 || tx.Rct == nil || tx.Rct.Type == cryptonote.RctTypeNull {
		return outs, 0, nil
	}
	off += 1 + vl(tx.Rct.TxnFee)
	if tx.Rct.Type == cryptonote.RctTypeSimple {
		off += 32 * len(tx.Inputs)
	}
	if tx.Rct.Type >= cryptonote.RctTypeBulletproof2 {
		off += 8 * len(tx.Outputs)
	} else {
		off += 64 * len(tx.Outputs)
	}
	if len(tx.Rct.OutPk) != len(tx.Outputs) || off+32*len(tx.Outputs) > len(txb) || !fitsU32(off+32*len(tx.Outputs)) {
		return nil, 0, fmt.Errorf("%d commitments for %d outputs, or beyond the tx's %d bytes", len(tx.Rct.OutPk), len(tx.Outputs), len(txb))
	}
	for i := range tx.Rct.OutPk {
		if !bytes.Equal(txb[off+32*i:off+32*i+32], tx.Rct.OutPk[i][:]) {
			return nil, 0, fmt.Errorf("commitment %d is not at byte %d, where the fields before it end", i, off+32*i)
		}
	}
	return outs, off, nil
}

// A tx's output indexes (in tx_index, schema version 8 on) are one of:
//
//	layout 2 (a run):  u8 2, uvarint count (≥ 1), uvarint first index: the
//	                   indexes first … first+count-1, as every tx whose
//	                   outputs share one amount (all RingCT txs) has
//	layout 3 (a list): u8 3, uvarint count, count × uvarint index: any
//	                   other list (v1 txs of mixed amounts, no outputs)
//
// The encoder picks the run whenever it applies, and the decoder refuses a
// list that should have been a run, so every list has one encoding (a pop
// compares stored bytes with what the block makes). Layout 1 (schema
// versions 2-7) was a u32 count and count × u64: 4+8n bytes where a run
// takes 3-6.
const (
	indexListRun  = 2
	indexListList = 3
)

// maxIndexRun bounds a decoded run (a tx has far fewer outputs), so that a
// corrupt count cannot size an allocation.
const maxIndexRun = 1 << 20

// isRun reports whether idx is a non-empty run of consecutive indexes.
func isRun(idx []uint64) bool {
	if len(idx) == 0 || idx[0]+uint64(len(idx)-1) < idx[0] {
		return false
	}
	for i := 1; i < len(idx); i++ {
		if idx[i] != idx[0]+uint64(i) {
			return false
		}
	}
	return true
}

func encodeIndexList(idx []uint64) []byte {
	if isRun(idx) && len(idx) <= maxIndexRun {
		v := binary.AppendUvarint([]byte{indexListRun}, uint64(len(idx)))
		return binary.AppendUvarint(v, idx[0])
	}
	v := binary.AppendUvarint([]byte{indexListList}, uint64(len(idx)))
	for _, i := range idx {
		v = binary.AppendUvarint(v, i)
	}
	return v
}

func decodeIndexList(v []byte) ([]uint64, error) {
	d := decoder{buf: v}
	idx, err := d.indexList(true)
	if err != nil {
		return nil, err
	}
	if len(d.buf) != 0 {
		return nil, fmt.Errorf("output index list has %d trailing bytes", len(d.buf))
	}
	return idx, nil
}

// indexList reads one index list; with keep false it checks the list
// without allocating it (and returns nil).
func (d *decoder) indexList(keep bool) ([]uint64, error) {
	if len(d.buf) == 0 {
		return nil, errors.New("output index list is empty")
	}
	layout := d.buf[0]
	d.buf = d.buf[1:]
	n, err := d.uvarint("output index count")
	if err != nil {
		return nil, err
	}
	var idx []uint64
	switch layout {
	case indexListRun:
		first, err := d.uvarint("first output index")
		if err != nil {
			return nil, err
		}
		if n == 0 || n > maxIndexRun || first+(n-1) < first {
			return nil, fmt.Errorf("output index run of %d from %d", n, first)
		}
		if keep {
			idx = make([]uint64, n)
			for i := range idx {
				idx[i] = first + uint64(i)
			}
		}
	case indexListList:
		if n > uint64(len(d.buf)) { // each index takes at least a byte
			return nil, fmt.Errorf("output index list announces %d indexes in %d bytes", n, len(d.buf))
		}
		// A list is a run stored as a list when it is non-empty, each
		// index follows the previous one, and it is short enough to be
		// one (isRun's conditions, checked on the fly).
		run := n > 0 && n <= maxIndexRun
		var first, prev uint64
		if keep {
			idx = make([]uint64, n)
		}
		for i := range n {
			x, err := d.uvarint("output index")
			if err != nil {
				return nil, err
			}
			if i == 0 {
				first = x
			} else if x != prev+1 || prev+1 < prev {
				run = false
			}
			prev = x
			if keep {
				idx[i] = x
			}
		}
		if run && first+(n-1) >= first {
			return nil, errors.New("output index list is a run stored as a list")
		}
	default:
		return nil, fmt.Errorf("output index list layout %d is not known", layout)
	}
	return idx, nil
}

// Heights and counts in index values (spent_keys, miner_txs, rct_counts;
// schema version 8) are uvarints: 1-4 bytes where a u64 took 8.

// spentKeySize is the length of a spent_keys key: a key image's prefix
// (schema versions 2-7 keyed the whole 32-byte image).
const spentKeySize = 8

func spentKey(ki *cryptonote.Key) []byte { return append([]byte(nil), ki[:spentKeySize]...) }

// encodeSpentHeights is a spent_keys value: uvarint heights, ascending.
func encodeSpentHeights(heights []uint64) []byte {
	var v []byte
	for _, h := range heights {
		v = binary.AppendUvarint(v, h)
	}
	return v
}

// decodeSpentHeights parses a spent_keys value: at least one height, in
// ascending order (repeats allowed), each in its shortest uvarint.
func decodeSpentHeights(v []byte) ([]uint64, error) {
	if len(v) == 0 {
		return nil, errors.New("spent heights value is empty")
	}
	d := decoder{buf: v}
	var heights []uint64
	for len(d.buf) > 0 {
		h, err := d.uvarint("spent height")
		if err != nil {
			return nil, err
		}
		if n := len(heights); n > 0 && h < heights[n-1] {
			return nil, fmt.Errorf("spent heights %d then %d are not ascending", heights[n-1], h)
		}
		heights = append(heights, h)
	}
	return heights, nil
}

func encodeUvarint(v uint64) []byte { return binary.AppendUvarint(nil, v) }

func decodeUvarint(v []byte) (uint64, error) {
	d := decoder{buf: v}
	n, err := d.uvarint("value")
	if err == nil && len(d.buf) != 0 {
		err = fmt.Errorf("uvarint value has %d trailing bytes", len(d.buf))
	}
	return n, err
}

// decoder consumes a byte slice front to back, checking every length first.
type decoder struct{ buf []byte }

func (d *decoder) bytes(n int, what string) ([]byte, error) {
	if n < 0 || n > len(d.buf) {
		return nil, fmt.Errorf("%s needs %d bytes, %d left", what, n, len(d.buf))
	}
	b := d.buf[:n]
	d.buf = d.buf[n:]
	return b, nil
}

func (d *decoder) u32(what string) (uint32, error) {
	b, err := d.bytes(4, what)
	if err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint32(b), nil
}

// uvarint reads one uvarint in its shortest form: a longer encoding of the
// same number is refused, so that every value has exactly one encoding.
func (d *decoder) uvarint(what string) (uint64, error) {
	v, n := binary.Uvarint(d.buf)
	if n <= 0 {
		return 0, fmt.Errorf("%s is not a valid uvarint", what)
	}
	// A longer encoding than needed ends with a zero byte, and only it
	// (the cheap test of n != uvarintLen(v), on every lookup's path).
	if n > 1 && d.buf[n-1] == 0 {
		return 0, fmt.Errorf("%s is a uvarint of %d bytes where %d suffice", what, n, uvarintLen(v))
	}
	d.buf = d.buf[n:]
	return v, nil
}

func uvarintLen(v uint64) int {
	n := 1
	for ; v >= 0x80; v >>= 7 {
		n++
	}
	return n
}

// lengthPrefixed reads a u32 length and that many bytes, returning a copy.
func (d *decoder) lengthPrefixed(what string) ([]byte, error) {
	n, err := d.u32(what + " length")
	if err != nil {
		return nil, err
	}
	if uint64(n) > uint64(len(d.buf)) {
		return nil, fmt.Errorf("%s announces %d bytes, %d left", what, n, len(d.buf))
	}
	b, _ := d.bytes(int(n), what)
	return append([]byte(nil), b...), nil
}

// fitsU32 reports whether n can be written as a u32 length or count.
func fitsU32(n int) bool { return uint64(n) <= math.MaxUint32 }

// ---- transaction pool ----

const (
	poolLayout1         = 1
	poolFlagDoNotRelay  = 1
	poolFlagKeptByBlock = 2
	poolHeaderSize      = 1 + 8 + 1
)

func encodePoolTx(rec *PoolTxRecord) []byte {
	v := make([]byte, 0, poolHeaderSize+len(rec.Blob))
	v = append(v, poolLayout1)
	v = binary.LittleEndian.AppendUint64(v, rec.Received)
	var flags byte
	if rec.DoNotRelay {
		flags |= poolFlagDoNotRelay
	}
	if rec.KeptByBlock {
		flags |= poolFlagKeptByBlock
	}
	v = append(v, flags)
	return append(v, rec.Blob...)
}

func decodePoolTx(k, v []byte) (PoolTxRecord, error) {
	if len(k) != cryptonote.HashSize {
		return PoolTxRecord{}, fmt.Errorf("pool key is %d bytes, want %d", len(k), cryptonote.HashSize)
	}
	if len(v) < poolHeaderSize {
		return PoolTxRecord{}, fmt.Errorf("pool entry is %d bytes, want at least %d", len(v), poolHeaderSize)
	}
	if v[0] != poolLayout1 {
		return PoolTxRecord{}, fmt.Errorf("unknown pool entry layout %d", v[0])
	}
	flags := v[9]
	if flags&^(poolFlagDoNotRelay|poolFlagKeptByBlock) != 0 {
		return PoolTxRecord{}, fmt.Errorf("unknown pool entry flags %#x", flags)
	}
	return PoolTxRecord{
		Hash:        cryptonote.Hash(k),
		Received:    binary.LittleEndian.Uint64(v[1:9]),
		DoNotRelay:  flags&poolFlagDoNotRelay != 0,
		KeptByBlock: flags&poolFlagKeptByBlock != 0,
		Blob:        append([]byte(nil), v[poolHeaderSize:]...),
	}, nil
}

// ---- compaction (compact.go) ----
//
// Compact copies the store into a new file beside it, named path +
// compactTempSuffix, and renames that over path once the copy is complete.
// Until then the copy holds one more root bucket, which a complete store
// never has:
//
//	bucket            key      value
//	----------------  -------  ------------------------------------------------
//	compact_progress  "state"  layout byte 1, u64 the source's bbolt txid, u64
//	                           key and value bytes copied so far, uvarint length
//	                           of a bucket name, that name, then the last key
//	                           copied from it (every root bucket ordered before
//	                           it is copied whole; no key: none of it yet); name
//	                           and key empty before the first bucket
//
// A copy whose txid is not the source's (the source was written since) is
// discarded; Open removes any copy it finds, so one never outlives a write to
// the store it was taken from.
const compactTempSuffix = ".compact"

var (
	bucketCompactProgress = []byte("compact_progress")
	compactStateKey       = []byte("state")
)

const compactStateLayout1 = 1

// compactState is where a copy stopped.
type compactState struct {
	sourceTxID uint64
	copied     uint64 // key and value bytes copied
	bucket     []byte // the root bucket being copied; nil before the first
	lastKey    []byte // the last key of bucket copied; nil if none yet
}

func encodeCompactState(s *compactState) []byte {
	v := make([]byte, 0, 1+16+binary.MaxVarintLen64+len(s.bucket)+len(s.lastKey))
	v = append(v, compactStateLayout1)
	v = binary.LittleEndian.AppendUint64(v, s.sourceTxID)
	v = binary.LittleEndian.AppendUint64(v, s.copied)
	v = binary.AppendUvarint(v, uint64(len(s.bucket)))
	v = append(v, s.bucket...)
	return append(v, s.lastKey...)
}

func decodeCompactState(v []byte) (compactState, error) {
	if len(v) < 1+16+1 {
		return compactState{}, fmt.Errorf("compaction state is %d bytes, want at least %d", len(v), 1+16+1)
	}
	if v[0] != compactStateLayout1 {
		return compactState{}, fmt.Errorf("unknown compaction state layout %d", v[0])
	}
	s := compactState{
		sourceTxID: binary.LittleEndian.Uint64(v[1:9]),
		copied:     binary.LittleEndian.Uint64(v[9:17]),
	}
	rest := v[17:]
	n, w := binary.Uvarint(rest)
	if w <= 0 || len(binary.AppendUvarint(nil, n)) != w {
		return compactState{}, errors.New("compaction state: bad bucket name length")
	}
	rest = rest[w:]
	if n > uint64(len(rest)) {
		return compactState{}, fmt.Errorf("compaction state: bucket name of %d bytes, %d left", n, len(rest))
	}
	if n == 0 && len(rest) > 0 {
		return compactState{}, errors.New("compaction state: a last key without a bucket")
	}
	if n > 0 {
		s.bucket = append([]byte(nil), rest[:n]...)
		s.lastKey = append([]byte(nil), rest[n:]...)
	}
	return s, nil
}
