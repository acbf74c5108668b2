package chaindb

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"testing"

	bolt "go.etcd.io/bbolt"

	"github.com/cockroachdb/pebble/v2"
	"github.com/gonero/gonero/cryptonote"
	"github.com/gonero/gonero/internal/u128"
)

const testNetwork = "regtest"

// openTemp opens a fresh store in a test directory and closes it at cleanup.
func openTemp(t testing.TB) (*DB, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "chain.db")
	db, err := Open(path, Options{Network: testNetwork})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db, path
}

// synthHash is the hash of synthetic block h of chain seed; the block's other
// values are drawn from the same stream, so a block can be rebuilt from
// (seed, h) alone, and its prev hash from (seed, h-1).
func synthHash(seed, h uint64) cryptonote.Hash {
	rng := rand.New(rand.NewPCG(seed, h))
	return randHash(rng)
}

func randHash(rng *rand.Rand) cryptonote.Hash {
	var h cryptonote.Hash
	for i := 0; i < len(h); i += 8 {
		v := rng.Uint64()
		for j := 0; j < 8; j++ {
			h[i+j] = byte(v >> (8 * j))
		}
	}
	return h
}

func randBytes(rng *rand.Rand, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
	return b
}

// synthAmounts are the clear amounts synthetic v1 outputs use: few, so
// that several outputs share an amount and indexes above 0 occur.
var synthAmounts = []uint64{1, 2, 5, 10, 20, 50, 17592186044415}

func randKey(rng *rand.Rand) cryptonote.Key { return cryptonote.Key(randHash(rng)) }

func randKeys(rng *rand.Rand, n int) []cryptonote.Key {
	ks := make([]cryptonote.Key, n)
	for i := range ks {
		ks[i] = randKey(rng)
	}
	return ks
}

// synthOutputs makes n outputs to random keys; tagged view keys now and then.
func synthOutputs(rng *rand.Rand, n int) []cryptonote.TxOut {
	outs := make([]cryptonote.TxOut, n)
	for i := range outs {
		outs[i].Amount = synthAmounts[rng.IntN(len(synthAmounts))]
		if rng.IntN(2) == 0 {
			outs[i].Target = cryptonote.TxOutToTaggedKey{Key: randKey(rng), ViewTag: byte(rng.Uint32())}
		} else {
			outs[i].Target = cryptonote.TxOutToKey{Key: randKey(rng)}
		}
	}
	return outs
}

// synthMinerTx is a parseable miner tx for height h, v1 or v2.
func synthMinerTx(rng *rand.Rand, h uint64) cryptonote.Transaction {
	tx := cryptonote.Transaction{
		Version:    1 + rng.Uint64N(2),
		UnlockTime: h + 60,
		Inputs:     []cryptonote.TxIn{cryptonote.TxInGen{Height: h}},
		Outputs:    synthOutputs(rng, 1+rng.IntN(3)),
		Extra:      randBytes(rng, 33),
	}
	if tx.Version == 1 {
		tx.Signatures = [][]cryptonote.Signature{nil}
	} else {
		tx.Rct = &cryptonote.RctSig{Type: cryptonote.RctTypeNull}
	}
	return tx
}

// synthTx is a parseable non-coinbase tx with random key images (so every
// one is new): v1 with ring signatures, or v2 of type 6 (CLSAG, BP+) with
// random proof elements. Nothing in it verifies; chaindb does not look.
func synthTx(rng *rand.Rand) *cryptonote.Transaction {
	ring := 1 + rng.IntN(3)
	tx := &cryptonote.Transaction{
		Version:    1 + rng.Uint64N(2),
		UnlockTime: rng.Uint64N(3),
		Outputs:    synthOutputs(rng, rng.IntN(4)), // sometimes none
		Extra:      randBytes(rng, 10),
	}
	nin := 1 + rng.IntN(3)
	for range nin {
		in := cryptonote.TxInToKey{KeyImage: randKey(rng), KeyOffsets: make([]uint64, ring)}
		for j := range in.KeyOffsets {
			in.KeyOffsets[j] = rng.Uint64N(50)
		}
		if tx.Version == 1 {
			in.Amount = synthAmounts[rng.IntN(len(synthAmounts))]
		}
		tx.Inputs = append(tx.Inputs, in)
	}
	if tx.Version == 1 {
		for range nin {
			sigs := make([]cryptonote.Signature, ring)
			for j := range sigs {
				copy(sigs[j][:], randBytes(rng, 64))
			}
			tx.Signatures = append(tx.Signatures, sigs)
		}
		return tx
	}
	nout := len(tx.Outputs)
	for i := range tx.Outputs {
		tx.Outputs[i].Amount = 0
	}
	rct := &cryptonote.RctSig{
		Type:     cryptonote.RctTypeBulletproofPlus,
		TxnFee:   rng.Uint64N(1e9),
		EcdhInfo: make([]cryptonote.EcdhTuple, nout),
		OutPk:    randKeys(rng, nout),
		Prunable: &cryptonote.RctPrunable{PseudoOuts: randKeys(rng, nin)},
	}
	for i := range rct.EcdhInfo {
		copy(rct.EcdhInfo[i].Amount[:8], randBytes(rng, 8))
	}
	if nout > 0 {
		lr := 6
		for 1<<(lr-6) < nout {
			lr++
		}
		rct.Prunable.BulletproofsPlus = []cryptonote.BulletproofPlus{{
			A: randKey(rng), A1: randKey(rng), B: randKey(rng), R1: randKey(rng), S1: randKey(rng), D1: randKey(rng),
			L: randKeys(rng, lr), R: randKeys(rng, lr),
		}}
	}
	for range nin {
		rct.Prunable.CLSAGs = append(rct.Prunable.CLSAGs, cryptonote.Clsag{S: randKeys(rng, ring), C1: randKey(rng), D: randKey(rng)})
	}
	tx.Rct = rct
	return tx
}

// synthBlock is block h of the synthetic chain seed: random values, a
// parseable block blob (v1 or v2 miner tx) and 0–4 parseable txs.
func synthBlock(seed, h uint64) BlockRecord {
	rng := rand.New(rand.NewPCG(seed, h))
	m := BlockMeta{Height: h, Hash: randHash(rng)}
	if h > 0 {
		m.PrevHash = synthHash(seed, h-1)
	}
	m.Timestamp = rng.Uint64()
	m.MajorVersion = uint8(rng.Uint32())
	m.MinorVersion = uint8(rng.Uint32())
	m.Nonce = rng.Uint32()
	m.Weight = rng.Uint64()
	m.LongTermWeight = rng.Uint64()
	// High halves are often non-zero so that both halves are exercised.
	m.Difficulty = u128.U128{Lo: rng.Uint64(), Hi: rng.Uint64N(3)}
	m.CumulativeDifficulty = u128.U128{Lo: rng.Uint64(), Hi: rng.Uint64()}
	m.Reward = rng.Uint64()
	m.GeneratedCoins = rng.Uint64()
	m.MinerTxHash = randHash(rng)
	blk := cryptonote.Block{
		BlockHeader: cryptonote.BlockHeader{MajorVersion: m.MajorVersion, MinorVersion: m.MinorVersion,
			Timestamp: m.Timestamp, PrevID: m.PrevHash, Nonce: m.Nonce},
		MinerTx: synthMinerTx(rng, h),
	}
	txs := make([]TxRecord, rng.IntN(5))
	for i := range txs {
		txs[i] = TxRecord{Hash: randHash(rng), Blob: synthTx(rng).Serialize()}
		blk.TxHashes = append(blk.TxHashes, txs[i].Hash)
	}
	blob := blk.Serialize()
	m.BlobSize = uint64(len(blob))
	m.NumTxes = uint64(len(txs))
	return BlockRecord{Meta: m, Blob: blob, Txs: txs}
}

// appendSynth appends blocks [from, to) of chain seed.
func appendSynth(t testing.TB, db *DB, seed, from, to uint64) {
	t.Helper()
	for h := from; h < to; h++ {
		if err := db.Append(synthBlock(seed, h)); err != nil {
			t.Fatalf("append height %d: %v", h, err)
		}
	}
}

// sameRecord reports how a and b differ, or "" (nil and empty blobs are equal).
func sameRecord(a, b BlockRecord) string {
	if a.Meta != b.Meta {
		return fmt.Sprintf("meta %+v != %+v", a.Meta, b.Meta)
	}
	if !bytes.Equal(a.Blob, b.Blob) {
		return "block blob differs"
	}
	if len(a.Txs) != len(b.Txs) {
		return fmt.Sprintf("%d txs != %d txs", len(a.Txs), len(b.Txs))
	}
	for i := range a.Txs {
		if a.Txs[i].Hash != b.Txs[i].Hash || !bytes.Equal(a.Txs[i].Blob, b.Txs[i].Blob) {
			return fmt.Sprintf("tx %d differs", i)
		}
	}
	return ""
}

// dump returns every key and value of every bucket, to compare whole stores.
func dump(t testing.TB, db *DB) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := db.bolt.View(func(tx *bolt.Tx) error {
		return tx.ForEach(func(name []byte, b *bolt.Bucket) error {
			return b.ForEach(func(k, v []byte) error {
				out[string(name)+"/"+string(k)] = string(v)
				return nil
			})
		})
	})
	if err == nil && db.lsm.db != nil {
		// The LSM indexes, as if they were buckets, without the entries
		// that the reads do not confirm (lsm.go: leftovers of a crash).
		err = db.view(func(tx *stx) error {
			for _, name := range lsmBuckets {
				forEachLSM(tx, name, func(k, v []byte) {
					if v = confirmedLSMValue(tx, name, k, v); v != nil {
						out[string(name)+"/"+string(k)] = string(v)
					}
				})
			}
			return nil
		})
	}
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func sameDump(t testing.TB, what string, before, after map[string]string) {
	t.Helper()
	if !reflect.DeepEqual(before, after) {
		t.Fatalf("%s: store changed (%d entries before, %d after)", what, len(before), len(after))
	}
}

// bucketLen counts the keys of a bucket; of an LSM index, the keys with an
// entry the view confirms (lsm.go: the LSM may hold leftovers).
func bucketLen(tx *stx, name []byte) uint64 {
	if !isLSMBucket(name) {
		var n uint64
		_ = tx.Bucket(name).ForEach(func(_, _ []byte) error { n++; return nil })
		return n
	}
	r := &Reader{tx: tx}
	var n uint64
	forEachLSM(tx, name, func(k, v []byte) {
		switch string(name) {
		case string(bucketBlockHeights):
			if _, err := r.HeightByHash(cryptonote.Hash(k)); err == nil {
				n++
			}
		case string(bucketSpentKeys):
			heights, _ := decodeSpentHeights(v)
			top, _ := r.Height()
			if len(belowHeight(heights, top)) > 0 {
				n++
			}
		default:
			n++
		}
	})
	return n
}

// forEachLSM calls fn with every key (without its prefix) and value of LSM
// index name.
func forEachLSM(tx *stx, name []byte, fn func(k, v []byte)) {
	p, _ := lsmPrefix(name)
	it, err := tx.ix.lsm.NewIter(&pebble.IterOptions{LowerBound: []byte{p}, UpperBound: []byte{p + 1}})
	if err != nil {
		panic(err)
	}
	defer it.Close()
	for it.First(); it.Valid(); it.Next() {
		fn(bytes.Clone(it.Key()[1:]), bytes.Clone(it.Value()))
	}
}

// txIndexLen counts tx_index's entries that the view confirms (a key holds
// every tx of its prefix).
func txIndexLen(tx *stx) uint64 {
	r := &Reader{tx: tx}
	top, _ := r.Height()
	var n uint64
	forEachLSM(tx, bucketTxIndex, func(k, v []byte) {
		entries, _ := decodeTxEntries(v, false)
		for _, e := range entries {
			if e.height >= top {
				continue
			}
			if h, err := r.txHashAt(e.height, e.slot); err == nil && bytes.Equal(h[:txIndexKeySize], k) {
				n++
			}
		}
	})
	return n
}

// checkConsistent verifies, in one snapshot, that heights 0..n-1 are all
// present and linked, that every index agrees with them and holds nothing
// else, and that the tx counter equals the real count. It returns n.
func checkConsistent(t testing.TB, db *DB) uint64 {
	t.Helper()
	var height uint64
	err := db.View(func(r *Reader) error {
		var err error
		if height, err = r.Height(); err != nil {
			return err
		}
		metas, err := r.MetasInRange(0, height)
		if err != nil {
			return err
		}
		var txs, withTxs uint64
		for h, m := range metas {
			if m.Height != uint64(h) {
				return fmt.Errorf("meta %d says height %d", h, m.Height)
			}
			if h > 0 && m.PrevHash != metas[h-1].Hash {
				return fmt.Errorf("height %d: prev hash does not link to height %d", h, h-1)
			}
			byHash, err := r.MetaByHash(m.Hash)
			if err != nil {
				return err
			}
			if byHash != m {
				return fmt.Errorf("height %d: meta by hash differs", h)
			}
			blob, err := r.BlockBlob(m.Height)
			if err != nil {
				return err
			}
			if uint64(len(blob)) != m.BlobSize {
				return fmt.Errorf("height %d: blob %d bytes, meta says %d", h, len(blob), m.BlobSize)
			}
			hashes, err := r.TxHashes(m.Height)
			if err != nil {
				return err
			}
			if uint64(len(hashes)) != m.NumTxes {
				return fmt.Errorf("height %d: %d tx hashes, meta says %d", h, len(hashes), m.NumTxes)
			}
			for i, th := range hashes {
				loc, err := r.TxLocation(th)
				if err != nil {
					return err
				}
				if loc != (TxLocation{Height: m.Height, Index: uint32(i)}) {
					return fmt.Errorf("height %d tx %d: location %+v", h, i, loc)
				}
				if _, err := r.TxParts(th); err != nil {
					return err
				}
			}
			txs += m.NumTxes
			if m.NumTxes > 0 {
				withTxs++
			}
		}
		count, err := r.TxCount()
		if err != nil {
			return err
		}
		if count != txs {
			return fmt.Errorf("tx counter %d, chain holds %d txs", count, txs)
		}
		// No index entry may outlive its block.
		for _, b := range [][]byte{bucketBlockMeta, bucketBlockBlobs, bucketBlockTxs, bucketBlockHeights} {
			if n := bucketLen(r.tx, b); n != height {
				return fmt.Errorf("bucket %s has %d entries for %d blocks", b, n, height)
			}
		}
		if n := txIndexLen(r.tx); n != txs+height {
			return fmt.Errorf("bucket %s has %d entries for %d txs and %d miner txs", bucketTxIndex, n, txs, height)
		}
		if n := bucketLen(r.tx, bucketBlockTxBlobs); n != withTxs {
			return fmt.Errorf("bucket %s has %d entries for %d blocks with txs", bucketBlockTxBlobs, n, withTxs)
		}
		alts, err := r.AltBlockCount()
		if err != nil {
			return err
		}
		if n := bucketLen(r.tx, bucketAltBlocks); n != alts {
			return fmt.Errorf("alt block counter %d, bucket holds %d", alts, n)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("store is inconsistent: %v", err)
	}
	// The indexes are exactly those of a fresh append of the same blocks.
	checkMatchesFresh(t, db)
	return height
}

// checkSynthContent verifies that heights [0, n) hold exactly chain seed.
func checkSynthContent(t testing.TB, db *DB, seed, n uint64) {
	t.Helper()
	err := db.View(func(r *Reader) error {
		for h := uint64(0); h < n; h++ {
			got, err := readRecord(r, h)
			if err != nil {
				return err
			}
			if d := sameRecord(got, synthBlock(seed, h)); d != "" {
				return fmt.Errorf("height %d: %s", h, d)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// readRecord reassembles the record of main-chain height h.
func readRecord(r *Reader, h uint64) (BlockRecord, error) {
	var rec BlockRecord
	var err error
	if rec.Meta, err = r.MetaByHeight(h); err != nil {
		return rec, err
	}
	if rec.Blob, err = r.BlockBlob(h); err != nil {
		return rec, err
	}
	hashes, err := r.TxHashes(h)
	if err != nil {
		return rec, err
	}
	for _, th := range hashes {
		blob, err := r.TxBlob(th)
		if err != nil {
			return rec, err
		}
		rec.Txs = append(rec.Txs, TxRecord{Hash: th, Blob: blob})
	}
	return rec, nil
}

// confirmedLSMValue is value v of LSM index name's key k with only the
// entries the view confirms, or nil if none.
func confirmedLSMValue(tx *stx, name, k, v []byte) []byte {
	r := &Reader{tx: tx}
	top, _ := r.Height()
	switch string(name) {
	case string(bucketBlockHeights):
		if _, err := r.HeightByHash(cryptonote.Hash(k)); err != nil {
			return nil
		}
		return v
	case string(bucketSpentKeys):
		heights, err := decodeSpentHeights(v)
		if err != nil {
			return v
		}
		var keep []uint64
		for _, h := range belowHeight(heights, top) {
			if blockSpendsPrefix(r, h, k) {
				keep = append(keep, h)
			}
		}
		if len(keep) == 0 {
			return nil
		}
		return encodeSpentHeights(keep)
	case string(bucketTxIndex):
		entries, err := decodeTxEntries(v, false)
		if err != nil {
			return v
		}
		var keep []byte
		for _, e := range entries {
			if e.height >= top {
				continue
			}
			if h, err := r.txHashAt(e.height, e.slot); err == nil && bytes.Equal(h[:txIndexKeySize], k) {
				keep = append(keep, e.raw...)
			}
		}
		return keep
	}
	return v
}

// blockSpendsPrefix reports whether the block at height h spends a key
// image of spent_keys key prefix.
func blockSpendsPrefix(r *Reader, h uint64, prefix []byte) bool {
	in, err := r.blockSpendsAny(h, func(k *cryptonote.Key) bool { return bytes.Equal(k[:spentKeySize], prefix) })
	return err == nil && in
}
