package chaindb

import (
	"bytes"
	"encoding/binary"

	bolt "go.etcd.io/bbolt"

	"github.com/gonero/gonero/cryptonote"
)

// Reader reads one consistent snapshot of the store; get one from DB.View.
// Every method returns copies, never bytes of the snapshot itself. Methods
// return an *ErrCorrupt if a stored value cannot be decoded or disagrees with
// its index.
type Reader struct {
	tx *stx
}

// Height returns the number of blocks on the main chain (top height + 1).
func (r *Reader) Height() (uint64, error) {
	k, _ := r.tx.Bucket(bucketBlockMeta).Cursor().Last()
	if k == nil {
		return 0, nil
	}
	h, err := decodeHeightKey(k)
	if err != nil {
		return 0, corrupt(bucketBlockMeta, k, err)
	}
	return h + 1, nil
}

// Top returns the meta of the top block, or ErrEmpty.
func (r *Reader) Top() (BlockMeta, error) {
	k, v := r.tx.Bucket(bucketBlockMeta).Cursor().Last()
	if k == nil {
		return BlockMeta{}, ErrEmpty
	}
	h, err := decodeHeightKey(k)
	if err != nil {
		return BlockMeta{}, corrupt(bucketBlockMeta, k, err)
	}
	return decodeMetaAt(h, k, v)
}

// decodeMetaAt decodes the meta stored under height h and checks that it
// says it is at h.
func decodeMetaAt(h uint64, key, v []byte) (BlockMeta, error) {
	m, err := decodeMeta(v)
	if err != nil {
		return BlockMeta{}, corrupt(bucketBlockMeta, key, err)
	}
	if m.Height != h {
		return BlockMeta{}, corruptf(bucketBlockMeta, key, "meta says height %d", m.Height)
	}
	return m, nil
}

// MetaByHeight returns the meta of the main-chain block at height h.
func (r *Reader) MetaByHeight(h uint64) (BlockMeta, error) {
	key := heightKey(h)
	v := r.tx.Bucket(bucketBlockMeta).Get(key)
	if v == nil {
		return BlockMeta{}, notFoundf("no block at height %d", h)
	}
	return decodeMetaAt(h, key, v)
}

// HeightByHash returns the height of the main-chain block with this hash.
func (r *Reader) HeightByHash(hash cryptonote.Hash) (uint64, error) {
	h, _, err := r.blockByHash(hash)
	return h, err
}

// MetaByHash returns the meta of the main-chain block with this hash.
func (r *Reader) MetaByHash(hash cryptonote.Hash) (BlockMeta, error) {
	h, meta, err := r.blockByHash(hash)
	if err != nil {
		return BlockMeta{}, err
	}
	return decodeMetaAt(h, heightKey(h), meta)
}

// blockByHash looks hash up in block_heights and returns its height and
// its stored meta. The LSM may hold the entry of a block this view does not
// have (lsm.go): the entry counts only if the meta at that height names
// this hash.
func (r *Reader) blockByHash(hash cryptonote.Hash) (uint64, []byte, error) {
	v := r.tx.index(bucketBlockHeights).Get(hash[:])
	if v == nil {
		return 0, nil, notFoundf("no block %s on the main chain", hash)
	}
	h, err := decodeU64(v)
	if err != nil {
		return 0, nil, corrupt(bucketBlockHeights, hash[:], err)
	}
	meta := r.tx.Bucket(bucketBlockMeta).Get(heightKey(h))
	if meta == nil {
		return 0, nil, notFoundf("no block %s on the main chain", hash)
	}
	if mh, err := metaHashIn(meta, h); err != nil {
		return 0, nil, corrupt(bucketBlockMeta, heightKey(h), err)
	} else if mh != hash {
		return 0, nil, notFoundf("no block %s on the main chain", hash)
	}
	return h, meta, nil
}

// MetasInRange returns the metas of heights from up to but not including to,
// in height order. It returns an ErrNotFound error unless the whole range is
// on the chain.
func (r *Reader) MetasInRange(from, to uint64) ([]BlockMeta, error) {
	height, err := r.Height()
	if err != nil {
		return nil, err
	}
	if from > to || to > height {
		return nil, notFoundf("no blocks [%d, %d): the chain has heights [0, %d)", from, to, height)
	}
	// The count is bounded by the chain height, checked above.
	metas := make([]BlockMeta, 0, to-from)
	c := r.tx.Bucket(bucketBlockMeta).Cursor()
	want := from
	for k, v := c.Seek(heightKey(from)); want < to; k, v = c.Next() {
		if k == nil {
			return nil, corruptf(bucketBlockMeta, heightKey(want), "height %d is missing below the top %d", want, height-1)
		}
		h, err := decodeHeightKey(k)
		if err != nil {
			return nil, corrupt(bucketBlockMeta, k, err)
		}
		if h != want {
			return nil, corruptf(bucketBlockMeta, heightKey(want), "height %d is missing below the top %d", want, height-1)
		}
		m, err := decodeMetaAt(h, k, v)
		if err != nil {
			return nil, err
		}
		metas = append(metas, m)
		want++
	}
	return metas, nil
}

// BlockBlob returns the serialised block at height h.
func (r *Reader) BlockBlob(h uint64) ([]byte, error) {
	v := r.tx.Bucket(bucketBlockBlobs).Get(heightKey(h))
	if v == nil {
		return nil, notFoundf("no block blob at height %d", h)
	}
	return bytes.Clone(v), nil
}

// TxHashes returns the hashes of the non-coinbase txs of the block at height
// h, in block order.
func (r *Reader) TxHashes(h uint64) ([]cryptonote.Hash, error) {
	key := heightKey(h)
	v := r.tx.Bucket(bucketBlockTxs).Get(key)
	if v == nil {
		return nil, notFoundf("no tx hash list at height %d", h)
	}
	hashes, err := decodeTxHashes(v)
	if err != nil {
		return nil, corrupt(bucketBlockTxs, key, err)
	}
	return hashes, nil
}

// TxBlob returns the blob of a non-coinbase tx on the main chain. For a tx
// whose prunable data a pruned store dropped it returns an error matching
// ErrPruned; TxParts serves both kinds.
func (r *Reader) TxBlob(hash cryptonote.Hash) ([]byte, error) {
	blob, pruned, err := r.storedTxBlob(hash)
	if err != nil {
		return nil, err
	}
	if pruned {
		return nil, &prunedError{hash: hash}
	}
	return blob, nil
}

// storedTxBlob returns the blob stored for hash and whether that is only
// the pruned part.
func (r *Reader) storedTxBlob(hash cryptonote.Hash) ([]byte, bool, error) {
	loc, err := r.TxLocation(hash)
	if err != nil {
		return nil, false, err
	}
	key := heightKey(loc.Height)
	v := r.tx.Bucket(bucketBlockTxBlobs).Get(key)
	if v == nil {
		return nil, false, corruptf(bucketBlockTxBlobs, key, "no tx blobs, but tx %s is located there", hash)
	}
	blob, err := blockTxBlobAt(v, loc.Index)
	if err != nil {
		return nil, false, corrupt(bucketBlockTxBlobs, key, err)
	}
	return bytes.Clone(blob), r.prunableHashOf(hash) != nil, nil
}

// blockTxBlobs returns the n tx blobs stored for height h, aliasing the
// store (valid only in this transaction).
func (r *Reader) blockTxBlobs(h uint64, n int) ([][]byte, error) {
	key := heightKey(h)
	blobs, err := decodeBlockTxBlobs(r.tx.Bucket(bucketBlockTxBlobs).Get(key))
	if err != nil {
		return nil, corrupt(bucketBlockTxBlobs, key, err)
	}
	if len(blobs) != n {
		return nil, corruptf(bucketBlockTxBlobs, key, "%d tx blobs stored but %d tx hashes", len(blobs), n)
	}
	return blobs, nil
}

// TxLocation returns where a non-coinbase tx sits on the main chain (a
// miner tx is not found: TxOutputIndexes finds it).
func (r *Reader) TxLocation(hash cryptonote.Hash) (TxLocation, error) {
	e, found, err := r.txEntryOf(&hash, false)
	if err != nil {
		return TxLocation{}, err
	}
	if !found {
		return TxLocation{}, notFoundf("no tx %s on the main chain", hash)
	}
	if e.slot == 0 {
		return TxLocation{}, notFoundf("no non-coinbase tx %s on the main chain", hash)
	}
	return TxLocation{Height: e.height, Index: e.slot - 1}, nil
}

// HasTx reports whether hash is a transaction of the main chain, its
// blocks' miner transactions included (monerod's have_tx: the pool answers
// "already in the chain" for either). A corrupt entry answers false.
func (r *Reader) HasTx(hash cryptonote.Hash) bool {
	_, found, err := r.txEntryOf(&hash, false)
	return err == nil && found
}

// MinerTxHeight returns the height of the main-chain block whose miner tx
// is hash, for a miner tx of version 1 (miner_txs; a version-2 one is found
// through its first output: TxOutputIndexes, then Output(0, …)).
func (r *Reader) MinerTxHeight(hash cryptonote.Hash) (uint64, error) {
	v := r.tx.Bucket(bucketMinerTxs).Get(hash[:])
	if v == nil {
		return 0, notFoundf("no version-1 miner tx %s on the main chain", hash)
	}
	h, err := decodeUvarint(v)
	if err != nil {
		return 0, corrupt(bucketMinerTxs, hash[:], err)
	}
	return h, nil
}

// TxCount returns the number of non-coinbase txs on the main chain
// (get_info's tx_count).
func (r *Reader) TxCount() (uint64, error) {
	return r.infoCounter(infoTxCount)
}

// AltBlockCount returns the number of stored alternative blocks
// (get_info's alt_blocks_count).
func (r *Reader) AltBlockCount() (uint64, error) {
	return r.infoCounter(infoAltBlockCount)
}

func (r *Reader) infoCounter(key []byte) (uint64, error) {
	n, err := decodeU64(r.tx.Bucket(bucketInfo).Get(key))
	if err != nil {
		return 0, corrupt(bucketInfo, key, err)
	}
	return n, nil
}

// AltBlock returns the alternative block stored under hash.
func (r *Reader) AltBlock(hash cryptonote.Hash) (BlockRecord, error) {
	v := r.tx.Bucket(bucketAltBlocks).Get(hash[:])
	if v == nil {
		return BlockRecord{}, notFoundf("no alternative block %s", hash)
	}
	rec, err := decodeAltBlock(v)
	if err != nil {
		return BlockRecord{}, corrupt(bucketAltBlocks, hash[:], err)
	}
	if rec.Meta.Hash != hash {
		return BlockRecord{}, corruptf(bucketAltBlocks, hash[:], "holds block %s", rec.Meta.Hash)
	}
	return rec, nil
}

// HasAltBlock reports whether an alternative block is stored under hash.
func (r *Reader) HasAltBlock(hash cryptonote.Hash) bool {
	return r.tx.Bucket(bucketAltBlocks).Get(hash[:]) != nil
}

// AltBlockMetas returns the metas of every stored alternative block, in
// hash order.
func (r *Reader) AltBlockMetas() ([]BlockMeta, error) {
	var metas []BlockMeta
	err := r.tx.Bucket(bucketAltBlocks).ForEach(func(k, v []byte) error {
		m, err := decodeAltMeta(v)
		if err != nil {
			return corrupt(bucketAltBlocks, k, err)
		}
		if !bytes.Equal(m.Hash[:], k) {
			return corruptf(bucketAltBlocks, k, "holds block %s", m.Hash)
		}
		metas = append(metas, m)
		return nil
	})
	return metas, err
}

// Size returns the size of the database in bytes as of this snapshot: the
// pages bbolt has allocated, which is the data the file holds (the file
// itself may be a little longer, grown ahead of need). For get_info's
// database_size.
func (r *Reader) Size() int64 { return r.tx.Size() }

// OutputCount returns the number of main-chain outputs indexed under amount
// (0 for RingCT outputs), which is also the index the next one will get.
func (r *Reader) OutputCount(amount uint64) (uint64, error) {
	key := amountKey(amount)
	v := r.tx.Bucket(bucketOutputCounts).Get(key)
	if v == nil {
		return 0, nil
	}
	n, err := decodeU64(v)
	if err != nil {
		return 0, corrupt(bucketOutputCounts, key, err)
	}
	return n, nil
}

// Output returns the output with this index among the outputs of amount, or
// an ErrNotFound error.
func (r *Reader) Output(amount, index uint64) (OutputEntry, error) {
	if amount == 0 {
		o, key, err := rctOutput(r.tx.Bucket(bucketRctOutputs).Cursor(), index)
		if err != nil {
			return OutputEntry{}, err
		}
		if err := r.newOutputReader(true).fill(&o, key); err != nil {
			return OutputEntry{}, err
		}
		return o, nil
	}
	key := outputKey(amount, index)
	v := r.tx.Bucket(bucketOutputs).Get(key)
	if v == nil {
		return OutputEntry{}, notFoundf("no output %d of amount %d", index, amount)
	}
	o, err := decodeOutput(amount, index, v)
	if err != nil {
		return OutputEntry{}, corrupt(bucketOutputs, key, err)
	}
	if err := r.newOutputReader(true).fill(&o, key); err != nil {
		return OutputEntry{}, err
	}
	return o, nil
}

// rctOutput finds amount-0 output index through c, a rct_outputs cursor:
// the entry of the block whose first index is the last at or below it,
// walked to it. It returns the entry's key, for errors.
func rctOutput(c *bolt.Cursor, index uint64) (OutputEntry, []byte, error) {
	key := rctKey(index)
	k, v := c.Seek(key)
	switch {
	case k == nil:
		k, v = c.Last()
	case !bytes.Equal(k, key):
		k, v = c.Prev()
	}
	if k == nil {
		return OutputEntry{}, nil, notFoundf("no output %d of amount 0", index)
	}
	if len(k) != heightKeySize {
		return OutputEntry{}, nil, corruptf(bucketRctOutputs, k, "key is %d bytes, want %d", len(k), heightKeySize)
	}
	o, found, err := rctOutputIn(v, binary.BigEndian.Uint64(k), index)
	if err != nil {
		return OutputEntry{}, nil, corrupt(bucketRctOutputs, k, err)
	}
	if !found {
		return OutputEntry{}, nil, notFoundf("no output %d of amount 0", index)
	}
	return o, k, nil
}

// outputReader completes decoded output entries: the key, unlock time and
// commitment from the tx's bytes (block_tx_blobs, or the block blob for a
// miner tx), and, if txHashes, the tx hash from the block's meta or tx
// hash list; each value read in place without decoding the rest, through
// cursors kept across lookups (Bucket.Get makes a cursor per call).
type outputReader struct {
	blocks, txBlobs *bolt.Cursor
	meta, txs       *bolt.Cursor // nil unless tx hashes are asked for
	key             []byte
}

func (r *Reader) newOutputReader(txHashes bool) *outputReader {
	t := &outputReader{
		blocks:  r.tx.Bucket(bucketBlockBlobs).Cursor(),
		txBlobs: r.tx.Bucket(bucketBlockTxBlobs).Cursor(),
		key:     make([]byte, heightKeySize),
	}
	if txHashes {
		t.meta = r.tx.Bucket(bucketBlockMeta).Cursor()
		t.txs = r.tx.Bucket(bucketBlockTxs).Cursor()
	}
	return t
}

// at is the value c holds at t.key, or nil.
func (t *outputReader) at(c *bolt.Cursor) []byte {
	k, v := c.Seek(t.key)
	if !bytes.Equal(k, t.key) {
		return nil
	}
	return v
}

// fill completes o, the entry stored under key (in rct_outputs for
// amount 0, outputs otherwise).
func (t *outputReader) fill(o *OutputEntry, key []byte) error {
	bucket := bucketOutputs
	if o.Amount == 0 {
		bucket = bucketRctOutputs
	}
	binary.BigEndian.PutUint64(t.key, o.Height)
	var txb []byte
	if o.slot == 0 {
		blob := t.at(t.blocks)
		start, err := minerTxStart(blob)
		if err != nil {
			return corruptf(bucket, key, "names the miner tx of height %d, whose block blob does not start a block: %v", o.Height, err)
		}
		txb = blob[start:]
	} else {
		var err error
		if txb, err = blockTxBlobAt(t.at(t.txBlobs), o.slot-1); err != nil {
			return corruptf(bucket, key, "names tx %d of height %d: %v", o.slot-1, o.Height, err)
		}
	}
	if err := readOutputInTx(o, txb); err != nil {
		return corruptf(bucket, key, "names output %d of tx %d of height %d: %v", o.Position, o.slot, o.Height, err)
	}
	if t.meta == nil {
		return nil
	}
	var err error
	if o.slot == 0 {
		o.TxHash, err = minerTxHashIn(t.at(t.meta), o.Height)
	} else {
		o.TxHash, err = txHashIn(t.at(t.txs), o.Height, o.slot)
	}
	if err != nil {
		return corrupt(bucket, key, err)
	}
	return nil
}

// Outputs returns the outputs of amount at indexes, in the order asked (ring
// members, absolute indexes). It fails with an ErrNotFound error naming the
// first index that does not exist.
func (r *Reader) Outputs(amount uint64, indexes []uint64) ([]OutputEntry, error) {
	out := make([]OutputEntry, len(indexes))
	for i, idx := range indexes {
		var err error
		if out[i], err = r.Output(amount, idx); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// TxOutputIndexes returns the amount index of each output of a main-chain tx
// (miner txs included), in output order (get_o_indexes), or an ErrNotFound
// error. A tx without outputs has an empty list.
func (r *Reader) TxOutputIndexes(txHash cryptonote.Hash) ([]uint64, error) {
	e, found, err := r.txEntryOf(&txHash, true)
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, notFoundf("no tx %s on the main chain", txHash)
	}
	if e.idx == nil {
		return []uint64{}, nil
	}
	return e.idx, nil
}

// RctOutputsUpTo returns the number of amount-0 (RingCT) outputs on the main
// chain from genesis up to and including the block at height, or an
// ErrNotFound error above the top.
func (r *Reader) RctOutputsUpTo(height uint64) (uint64, error) {
	key := heightKey(height)
	v := r.tx.Bucket(bucketRctCounts).Get(key)
	if v == nil {
		return 0, notFoundf("no RingCT output count at height %d", height)
	}
	n, err := decodeUvarint(v)
	if err != nil {
		return 0, corrupt(bucketRctCounts, key, err)
	}
	return n, nil
}

// record reassembles the main-chain block at height h from its meta, blob
// and txs, checking that the tx index agrees with it.
func (r *Reader) record(h uint64) (BlockRecord, error) { return r.recordChecked(h, true) }

// recordChecked is record, checking the tx index only if located: the
// upgrade that rebuilds tx_index reads blocks it has not indexed yet.
func (r *Reader) recordChecked(h uint64, located bool) (BlockRecord, error) {
	m, err := r.MetaByHeight(h)
	if err != nil {
		return BlockRecord{}, err
	}
	blob, err := r.BlockBlob(h)
	if err != nil {
		return BlockRecord{}, err
	}
	hashes, err := r.TxHashes(h)
	if err != nil {
		return BlockRecord{}, err
	}
	if uint64(len(hashes)) != m.NumTxes {
		return BlockRecord{}, corruptf(bucketBlockTxs, heightKey(h), "%d tx hashes stored but the meta says %d", len(hashes), m.NumTxes)
	}
	txs := make([]TxRecord, len(hashes))
	if len(hashes) == 0 {
		return BlockRecord{Meta: m, Blob: blob, Txs: txs}, nil
	}
	blobs, err := r.blockTxBlobs(h, len(hashes))
	if err != nil {
		return BlockRecord{}, err
	}
	for i, th := range hashes {
		if !located {
			txs[i] = TxRecord{Hash: th, Blob: bytes.Clone(blobs[i]), Pruned: r.prunableHashOf(th) != nil}
			continue
		}
		loc, err := r.TxLocation(th)
		if err != nil {
			return BlockRecord{}, err
		}
		if loc != (TxLocation{Height: h, Index: uint32(i)}) {
			return BlockRecord{}, corruptf(bucketTxIndex, th[:], "points at height %d index %d, but the tx is at height %d index %d",
				loc.Height, loc.Index, h, i)
		}
		txs[i] = TxRecord{Hash: th, Blob: bytes.Clone(blobs[i]), Pruned: r.prunableHashOf(th) != nil}
	}
	return BlockRecord{Meta: m, Blob: blob, Txs: txs}, nil
}
