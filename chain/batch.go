package chain

import (
	"errors"
	"time"

	"github.com/gonero/gonero/chaindb"
	"github.com/gonero/gonero/cryptonote"
)

// BatchBlock is one block for AddBatch: the block, its serialization and
// its transactions in tx_hashes order, as Add takes them.
type BatchBlock struct {
	Block   *cryptonote.Block
	Blob    []byte
	Txs     []*cryptonote.Transaction
	TxBlobs [][]byte
}

// AddBatch adds consecutive blocks that extend the main chain in one store
// transaction (monerod batches its LMDB commits the same way while
// syncing): each block is checked exactly as Add checks a block extending
// the main chain, against the chain including the batch's earlier blocks,
// and the blocks that pass are committed together, so that after a crash
// the store holds all of them or none.
//
// It stops at the first block that does not simply extend the top (an
// alternative block, a known one: Add handles those) and returns how many
// blocks it added; the caller goes on with Add from there. It stops too at
// the first block that breaks a rule: the blocks before it are committed
// and err is that block's *BlockError. A store failure commits nothing
// (added is 0, err's Rule is RuleStore).
//
// The signatures, most of a block's cost, are verified on every core while
// the writer goes on with the batch's later blocks (their rings and key
// images are read from the batch's store transaction, so no check of a
// block depends on an earlier block's signatures), all of them before the
// commit. Should one fail, nothing is committed and the batch is checked
// again block after block with each block's signatures in its check (those
// that passed are remembered, not verified again): the blocks before the
// failing one are committed and its error is the one a block-by-block
// check gives.
func (c *Chain) AddBatch(blocks []BatchBlock) (added int, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	added, err = c.addBatch(blocks, true)
	if errors.Is(err, errDeferredSigs) {
		c.reload("a batch whose signatures failed")
		added, err = c.addBatch(blocks, false)
	}
	return added, err
}

// errDeferredSigs aborts a batch's store transaction when a signature
// verified aside fails.
var errDeferredSigs = errors.New("chain: a signature verified aside failed")

// addBatch is AddBatch, the signatures verified aside (sigQueue) if
// deferSigs, else in each block's check; with deferSigs it commits nothing
// and returns errDeferredSigs if one of them fails.
func (c *Chain) addBatch(blocks []BatchBlock, deferSigs bool) (added int, err error) {
	began := time.Now()
	var (
		done    []AddedBlock
		txs     uint64
		refused error
	)
	storeErr := c.store.Update(func(w *chaindb.Writer) error {
		if deferSigs {
			c.deferred = newSigQueue(c)
			defer func() { c.deferred = nil }()
		}
		err := func() error {
			for _, b := range blocks {
				id, err := b.Block.ID()
				if err != nil {
					return nil // Add reports it
				}
				if c.main.height > 0 && b.Block.PrevID != c.main.top.Hash {
					return nil
				}
				if _, err := w.HeightByHash(id); err == nil || w.HasAltBlock(id) {
					return nil
				}
				meta, rec, err := c.check(&w.Reader, c.main, mainRules, b.Block, b.Blob, b.Txs, b.TxBlobs)
				if err != nil {
					// check writes nothing: the blocks before are kept.
					refused = asBlockError(err, c.main.height, id, RuleStore)
					return nil
				}
				if err := w.Append(rec); err != nil {
					return err
				}
				c.main.push(meta, nil)
				txs += uint64(len(rec.Txs))
				done = append(done, AddedBlock{Meta: meta, Block: b.Block, Txs: b.Txs})
			}
			return nil
		}()
		if c.deferred != nil && !c.deferred.wait() && err == nil {
			return errDeferredSigs
		}
		return err
	})
	if errors.Is(storeErr, errDeferredSigs) {
		return 0, storeErr
	}
	if storeErr != nil {
		// Nothing was committed, but the in-memory view moved on.
		c.reload("a failed batch commit")
		h, id := c.main.height, cryptonote.Hash{}
		if len(done) > 0 {
			h, id = done[0].Meta.Height, done[0].Meta.Hash
		}
		return 0, &BlockError{Height: h, Hash: id, Rule: RuleStore, Err: storeErr}
	}
	for _, d := range done {
		c.forgetExpected(d.Meta)
	}
	c.txCount += txs
	c.publish()
	if c.cfg.Observer != nil {
		n := max(len(done), 1)
		if refused != nil {
			n++
		}
		each := time.Since(began) / time.Duration(n)
		for range done {
			c.cfg.Observer.BlockChecked(nil, each)
		}
		if refused != nil {
			c.cfg.Observer.BlockChecked(refused, each)
		}
	}
	if len(done) > 0 {
		c.notify(MainChainChange{Added: done})
	}
	return len(done), refused
}
