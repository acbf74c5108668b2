package chaindb

// The transaction-verification indexes (outputs by amount and index, counts
// per amount, spent key images, each tx's output indexes, the cumulative
// RingCT output count per block) are derived here from a block's blobs, by
// one function (deriveIndexes then planIndexes) for append, pop and the
// schema migration, so that popping a block removes exactly what appending it
// added. The bytes themselves are built by schema.go.

import (
	"bytes"
	"fmt"

	"github.com/gonero/gonero/crypto"
	"github.com/gonero/gonero/cryptonote"
)

// OutputEntry is one output as the outputs index keeps it.
type OutputEntry struct {
	Amount     uint64         // the amount it is indexed under: 0 for RingCT outputs
	Index      uint64         // its index among the outputs of that amount
	Key        cryptonote.Key // the output public key, as in the tx (not validated)
	Commitment cryptonote.Key // amount 0 only: outPk, or zeroCommit(amount) for a v2 miner tx; zero otherwise
	UnlockTime uint64         // the tx's unlock_time
	Height     uint64         // height of the block holding the tx
	TxHash     cryptonote.Hash
	Position   uint32 // the output's position in the tx's outputs

	// slot is the tx's place in its block: 0 the miner tx, i+1 the
	// block's i-th tx. The entry stores it instead of TxHash, which
	// Reader resolves from it (schema.go).
	slot uint32
	// outOff and commitOff are where the output and its commitment are
	// in the tx's bytes (commitOff 0: the entry holds the commitment),
	// which the entry stores instead of Key and Commitment (schema.go).
	outOff, commitOff uint32
}

// derivedTx is one tx of a block: its hash and its outputs, a range of
// blockIndexes.outputs.
type derivedTx struct {
	hash     cryptonote.Hash
	field    string // the record field the hash comes from, for errors
	first, n int
}

// blockIndexes is what one block contributes to the indexes, read from its
// blobs alone: outputs in monerod's numbering order, txs (miner tx first) and
// the key images its txs spend, in order.
type blockIndexes struct {
	height    uint64
	outputs   []OutputEntry // Index not yet set
	txs       []derivedTx
	keyImages []cryptonote.Key
	// minerV1: the miner tx is of version 1 (txs[0] is it): miner_txs
	// indexes it.
	minerV1 bool
}

// invalidBlob is the error of a record whose blobs do not parse or disagree
// with the record.
func invalidBlob(field, format string, args ...any) error {
	return &ErrInvalidRecord{Field: field, Reason: fmt.Sprintf(format, args...)}
}

// deriveIndexes parses rec's block blob and tx blobs. The block's tx hash
// list must be the record's tx hashes in order. Signatures, amounts and
// everything else consensus checks are not looked at; a key image spent twice
// inside the block is an *ErrKeyImageSpent.
func deriveIndexes(rec *BlockRecord) (*blockIndexes, error) {
	blk, err := cryptonote.ParseBlock(rec.Blob)
	if err != nil {
		return nil, invalidBlob("Blob", "%v", err)
	}
	if len(blk.TxHashes) != len(rec.Txs) {
		return nil, invalidBlob("Txs", "the block lists %d tx hashes but the record holds %d txs", len(blk.TxHashes), len(rec.Txs))
	}
	for i := range rec.Txs {
		if blk.TxHashes[i] != rec.Txs[i].Hash {
			return nil, invalidBlob(fmt.Sprintf("Txs[%d].Hash", i), "is %s but the block lists %s there", rec.Txs[i].Hash, blk.TxHashes[i])
		}
	}
	height := rec.Meta.Height
	bi := &blockIndexes{height: height, txs: make([]derivedTx, 0, 1+len(rec.Txs))}
	start, err := minerTxStart(rec.Blob)
	if err != nil {
		return nil, invalidBlob("Blob", "%v", err)
	}
	if err := bi.addTx(&blk.MinerTx, rec.Blob[start:], rec.Meta.MinerTxHash, "Meta.MinerTxHash", true); err != nil {
		return nil, err
	}
	bi.minerV1 = blk.MinerTx.Version < 2
	seen := map[cryptonote.Key]struct{}{}
	for i := range rec.Txs {
		field := fmt.Sprintf("Txs[%d]", i)
		parse := cryptonote.ParseTransaction
		if rec.Txs[i].Pruned {
			// Outputs, commitments and key images are all in the pruned part.
			parse = cryptonote.ParsePrunedTransaction
		}
		tx, err := parse(rec.Txs[i].Blob)
		if err != nil {
			return nil, invalidBlob(field+".Blob", "%v", err)
		}
		for _, in := range tx.Inputs {
			if k, ok := in.(cryptonote.TxInToKey); ok {
				if _, dup := seen[k.KeyImage]; dup {
					return nil, &ErrKeyImageSpent{KeyImage: k.KeyImage, Height: height, InBlock: true}
				}
				seen[k.KeyImage] = struct{}{}
				bi.keyImages = append(bi.keyImages, k.KeyImage)
			}
		}
		if err := bi.addTx(tx, rec.Txs[i].Blob, rec.Txs[i].Hash, field+".Hash", false); err != nil {
			return nil, err
		}
	}
	return bi, nil
}

// addTx appends tx's outputs under the amounts monerod files them under;
// txb is the tx's bytes (from which tx was parsed), where the entries
// point.
func (bi *blockIndexes) addTx(tx *cryptonote.Transaction, txb []byte, hash cryptonote.Hash, field string, miner bool) error {
	dt := derivedTx{hash: hash, field: field, first: len(bi.outputs), n: len(tx.Outputs)}
	rct := tx.Version >= 2
	if rct && !miner && len(tx.Outputs) > 0 && (tx.Rct == nil || len(tx.Rct.OutPk) != len(tx.Outputs)) {
		return invalidBlob(field, "v2 tx %s has %d outputs but not as many commitments", hash, len(tx.Outputs))
	}
	places, outPk, err := txOutputPlaces(tx, txb)
	if err != nil {
		return invalidBlob(field, "tx %s: %v", hash, err)
	}
	for i, out := range tx.Outputs {
		e := OutputEntry{Amount: out.Amount, UnlockTime: tx.UnlockTime, Height: bi.height, TxHash: hash, Position: uint32(i),
			slot: uint32(len(bi.txs)), outOff: places[i]}
		switch t := out.Target.(type) {
		case cryptonote.TxOutToKey:
			e.Key = t.Key
		case cryptonote.TxOutToTaggedKey:
			e.Key = t.Key
		default:
			return invalidBlob(field, "output %d of tx %s is not to a key (%T)", i, hash, out.Target)
		}
		if rct {
			e.Amount = 0
			if miner {
				e.Commitment = crypto.ZeroCommit(out.Amount)
			} else {
				e.Commitment = tx.Rct.OutPk[i]
				e.commitOff = uint32(outPk + 32*i) // txOutputPlaces checked it fits
			}
		}
		bi.outputs = append(bi.outputs, e)
	}
	bi.txs = append(bi.txs, dt)
	return nil
}

// countChange is one output_counts entry before and after the block.
type countChange struct {
	amount        uint64
	before, after uint64
}

// indexPlan is every index entry a block owns while it is on the main chain,
// as stored bytes, and the counters it moves.
type indexPlan struct {
	outputs   []kv // outputs bucket: amounts above 0
	rctOuts   []kv // rct_outputs: the block's amount-0 outputs, if it has any
	height    uint64
	keyImages []cryptonote.Key // spent_keys (spent.go: not plain entries)
	txOutputs []kv             // tx_index: each tx's prefix and entry (txindex.go: not plain entries)
	rct       kv               // rct_counts
	minerTxs  []kv             // miner_txs: the v1 miner tx, if it is one
	counts    []countChange
}

type kv struct{ key, value []byte }

// planIndexes turns bi into stored entries. With onChain false the block is
// about to be appended on top of the chain r reads; with onChain true it is
// the top block, about to be popped, and its own outputs are already counted.
// Either way the result is the same bytes, which is what makes a pop undo an
// append exactly.
func planIndexes(r *Reader, bi *blockIndexes, onChain bool) (*indexPlan, error) {
	// Per amount: outputs of this block, in first-seen order for determinism.
	var amounts []uint64
	inBlock := map[uint64]uint64{}
	for i := range bi.outputs {
		a := bi.outputs[i].Amount
		if _, ok := inBlock[a]; !ok {
			amounts = append(amounts, a)
		}
		inBlock[a]++
	}
	plan := &indexPlan{counts: make([]countChange, 0, len(amounts))}
	next := make(map[uint64]uint64, len(amounts))
	for _, a := range amounts {
		stored, err := r.OutputCount(a)
		if err != nil {
			return nil, err
		}
		c := countChange{amount: a}
		if onChain {
			if stored < inBlock[a] {
				return nil, corruptf(bucketOutputCounts, amountKey(a), "count %d is below the %d outputs of the top block %d", stored, inBlock[a], bi.height)
			}
			c.before, c.after = stored-inBlock[a], stored
		} else {
			c.before, c.after = stored, stored+inBlock[a]
			if c.after < stored {
				return nil, corruptf(bucketOutputCounts, amountKey(a), "count %d overflows", stored)
			}
		}
		next[a] = c.before
		plan.counts = append(plan.counts, c)
	}

	indexes := make([]uint64, len(bi.outputs))
	firstRct := next[0]
	var rct []OutputEntry
	for i := range bi.outputs {
		e := bi.outputs[i]
		e.Index = next[e.Amount]
		next[e.Amount]++
		indexes[i] = e.Index
		if e.Amount == 0 {
			rct = append(rct, e)
		} else {
			plan.outputs = append(plan.outputs, kv{outputKey(e.Amount, e.Index), encodeOutput(&e)})
		}
	}
	if len(rct) > 0 {
		plan.rctOuts = []kv{{rctKey(firstRct), encodeRctOutputs(bi.height, rct)}}
	}
	plan.txOutputs = make([]kv, len(bi.txs))
	for i, t := range bi.txs {
		plan.txOutputs[i] = kv{txIndexKey(&t.hash), encodeTxEntry(bi.height, uint32(i), indexes[t.first:t.first+t.n])}
	}
	height := encodeUvarint(bi.height)
	plan.height, plan.keyImages = bi.height, bi.keyImages

	var before uint64
	if bi.height > 0 {
		var err error
		if before, err = r.RctOutputsUpTo(bi.height - 1); err != nil {
			return nil, err
		}
	}
	plan.rct = kv{heightKey(bi.height), encodeUvarint(before + inBlock[0])}
	if bi.minerV1 {
		plan.minerTxs = []kv{{bytes.Clone(bi.txs[0].hash[:]), height}}
	}
	return plan, nil
}

// checkIndexesFree refuses, before anything is written, a block whose index
// entries collide with the chain's: a spent key image, a tx hash that already
// has output indexes, or (a corrupt store) outputs beyond the counts.
func checkIndexesFree(tx *stx, bi *blockIndexes, plan *indexPlan) error {
	r := &Reader{tx: tx}
	for _, ki := range plan.keyImages {
		h, spent, err := r.KeyImageSpent(ki)
		if err != nil {
			return err
		}
		if spent {
			return &ErrKeyImageSpent{KeyImage: ki, Height: h}
		}
	}
	seen := make(map[cryptonote.Hash]struct{}, len(bi.txs))
	for _, t := range bi.txs {
		_, onChain, err := r.txEntryOf(&t.hash, false)
		if err != nil {
			return err
		}
		if _, dup := seen[t.hash]; dup || onChain {
			return invalidBlob(t.field, "tx %s already has output indexes on the chain or in this block", t.hash)
		}
		seen[t.hash] = struct{}{}
	}
	outputs := tx.Bucket(bucketOutputs)
	for _, e := range plan.outputs {
		if outputs.Get(e.key) != nil {
			return corruptf(bucketOutputs, e.key, "an output is stored beyond the count of its amount")
		}
	}
	for _, e := range plan.rctOuts {
		if k, _ := tx.Bucket(bucketRctOutputs).Cursor().Last(); k != nil && bytes.Compare(k, e.key) >= 0 {
			return corruptf(bucketRctOutputs, k, "an entry is stored at or beyond the count of amount-0 outputs")
		}
	}
	if tx.Bucket(bucketRctCounts).Get(plan.rct.key) != nil {
		return corruptf(bucketRctCounts, plan.rct.key, "an entry exists above the top block")
	}
	return nil
}

// bucketKVs are the entries a plan puts in (or deletes from) one bucket.
type bucketKVs struct {
	name []byte
	kvs  []kv
}

// byBucket lists a plan's entries bucket by bucket, all but the counts
// (which a pop rewrites rather than deletes) and the entries that share a
// key with others (spent_keys, tx_index: spent.go, txindex.go).
func (plan *indexPlan) byBucket() []bucketKVs {
	return []bucketKVs{
		{bucketOutputs, plan.outputs},
		{bucketRctOutputs, plan.rctOuts},
		{bucketRctCounts, []kv{plan.rct}},
		{bucketMinerTxs, plan.minerTxs},
	}
}

// putIndexes writes plan; checkIndexesFree has passed.
func putIndexes(tx *stx, height uint64, plan *indexPlan) error {
	for _, b := range plan.byBucket() {
		bucket := tx.Bucket(b.name)
		for _, e := range b.kvs {
			if err := bucket.Put(e.key, e.value); err != nil {
				return fmt.Errorf("chaindb: append height %d: put %s: %w", height, b.name, err)
			}
		}
	}
	if err := putSpent(tx, plan.height, plan.keyImages); err != nil {
		return err
	}
	if err := putTxIndex(tx, plan.height, plan.txOutputs); err != nil {
		return err
	}
	counts := tx.Bucket(bucketOutputCounts)
	for _, c := range plan.counts {
		if err := counts.Put(amountKey(c.amount), encodeU64(c.after)); err != nil {
			return fmt.Errorf("chaindb: append height %d: put %s: %w", height, bucketOutputCounts, err)
		}
	}
	return nil
}

// checkIndexesPresent makes sure, before anything is deleted, that the store
// holds exactly plan for the top block: a pop must never half-delete.
func checkIndexesPresent(tx *stx, plan *indexPlan) error {
	for _, b := range plan.byBucket() {
		bucket := tx.Bucket(b.name)
		for _, e := range b.kvs {
			v := bucket.Get(e.key)
			if v == nil {
				return corruptf(b.name, e.key, "the top block's entry is missing")
			}
			if !bytes.Equal(v, e.value) {
				return corruptf(b.name, e.key, "holds %x, but the top block makes %x", v, e.value)
			}
		}
	}
	if _, err := txIndexAfterPop(tx, plan.height, plan.txOutputs); err != nil {
		return err
	}
	_, err := spentAfterPop(tx, plan.height, plan.keyImages)
	return err
}

// deleteIndexes removes plan; checkIndexesPresent has passed.
func deleteIndexes(tx *stx, height uint64, plan *indexPlan) error {
	for _, b := range plan.byBucket() {
		bucket := tx.Bucket(b.name)
		for _, e := range b.kvs {
			if err := bucket.Delete(e.key); err != nil {
				return fmt.Errorf("chaindb: pop height %d: delete from %s: %w", height, b.name, err)
			}
		}
	}
	if err := popSpent(tx, plan.height, plan.keyImages); err != nil {
		return err
	}
	if err := popTxIndex(tx, plan.height, plan.txOutputs); err != nil {
		return err
	}
	counts := tx.Bucket(bucketOutputCounts)
	for _, c := range plan.counts {
		var err error
		if c.before == 0 {
			// A fresh chain without these outputs has no entry at all.
			err = counts.Delete(amountKey(c.amount))
		} else {
			err = counts.Put(amountKey(c.amount), encodeU64(c.before))
		}
		if err != nil {
			return fmt.Errorf("chaindb: pop height %d: update %s: %w", height, bucketOutputCounts, err)
		}
	}
	return nil
}

// appendIndexes derives, checks and writes the index entries of rec, the
// block being appended; nothing is written unless every check passes.
func appendIndexes(tx *stx, rec *BlockRecord) error {
	bi, err := deriveIndexes(rec)
	if err != nil {
		return err
	}
	plan, err := planIndexes(&Reader{tx: tx}, bi, false)
	if err != nil {
		return err
	}
	if err := checkIndexesFree(tx, bi, plan); err != nil {
		return err
	}
	return putIndexes(tx, rec.Meta.Height, plan)
}

// popIndexes is appendIndexes undone, for rec, the top block read back from
// the store. It checks everything before deleting anything.
func popIndexes(tx *stx, rec *BlockRecord) error {
	bi, err := deriveIndexes(rec)
	if err != nil {
		return corruptf(bucketBlockBlobs, heightKey(rec.Meta.Height), "the stored block does not index: %v", err)
	}
	plan, err := planIndexes(&Reader{tx: tx}, bi, true)
	if err != nil {
		return err
	}
	if err := checkIndexesPresent(tx, plan); err != nil {
		return err
	}
	return deleteIndexes(tx, rec.Meta.Height, plan)
}

// ---- commitments ----
