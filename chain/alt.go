package chain

import (
	"errors"
	"fmt"
	"time"

	"github.com/gonero/gonero/chaindb"
	"github.com/gonero/gonero/cryptonote"
)

// AddBlockResult says where a block given to Add landed.
type AddBlockResult struct {
	// Meta is the block's metadata on the chain it joined (its height and
	// cumulative difficulty on that chain).
	Meta chaindb.BlockMeta
	// MainChain: the block is now on the main chain, because it extended
	// it or because its alternative chain overtook the main chain.
	MainChain bool
	// Reorganized: adding the block switched the main chain to its
	// alternative chain; Popped main-chain blocks became alternative blocks.
	Reorganized bool
	Popped      uint64
}

// AddBlock is Add for callers that only need the block's metadata.
func (c *Chain) AddBlock(blk *cryptonote.Block, blob []byte, txs []*cryptonote.Transaction, txBlobs [][]byte) (chaindb.BlockMeta, error) {
	res, err := c.Add(blk, blob, txs, txBlobs)
	return res.Meta, err
}

// Add checks blk against the consensus rules in the context of the chain it
// extends and stores it, with its transactions, as monerod's
// Blockchain::add_new_block does:
//
//   - a block whose parent is the main chain's top extends the main chain;
//   - a block whose parent is a main-chain block below the top, or an
//     alternative block, is checked against its own chain (the main chain up
//     to the split plus the alternative blocks) and stored as an alternative
//     block; if its chain's cumulative difficulty is then strictly greater
//     than the main chain's, the chain manager switches to it: every block
//     of the alternative chain is checked again as the main chain would
//     check it, and in one store transaction the main-chain blocks above the
//     split become alternative blocks and the alternative chain becomes the
//     main chain. If a block fails that check, the main chain stays as it
//     was and the failing block and its descendants are discarded;
//   - a block whose parent is unknown is refused with ErrOrphan, a block
//     already known (main or alternative) with ErrAlreadyInChain.
//
// blob is blk's serialization, txs and txBlobs its transactions in
// tx_hashes order. Every error is a *BlockError; on error the store holds
// what it held before (less any discarded alternative blocks).
func (c *Chain) Add(blk *cryptonote.Block, blob []byte, txs []*cryptonote.Transaction, txBlobs [][]byte) (AddBlockResult, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cfg.Observer == nil {
		return c.add(blk, blob, txs, txBlobs)
	}
	began := time.Now()
	res, err := c.add(blk, blob, txs, txBlobs)
	c.cfg.Observer.BlockChecked(err, time.Since(began))
	return res, err
}

// add is Add with the writer's lock held.
func (c *Chain) add(blk *cryptonote.Block, blob []byte, txs []*cryptonote.Transaction, txBlobs [][]byte) (AddBlockResult, error) {
	id, err := blk.ID()
	if err != nil {
		return AddBlockResult{}, &BlockError{Height: genHeight(blk), Rule: RuleBlockID, Err: fmt.Errorf("%w: %v", ErrBadBlockID, err)}
	}
	if c.main.height == 0 || blk.PrevID == c.main.top.Hash {
		return c.extend(id, blk, blob, txs, txBlobs)
	}
	var (
		plan  *altPlan
		known bool
	)
	err = c.store.View(func(r *chaindb.Reader) error {
		if _, err := r.HeightByHash(id); err == nil || r.HasAltBlock(id) {
			known = true
			return nil
		} else if !isNotFound(err) {
			return err
		}
		// Before looking for its chain, as handle_alternative_block does
		// with the height its miner tx claims: no alternative at or below
		// the newest checkpoint passed, so no reorganisation below it.
		if err := c.checkpoints.altAllowed(c.main.height, genHeight(blk)); err != nil {
			return &BlockError{Height: genHeight(blk), Hash: id, Rule: RuleCheckpoint, Err: err}
		}
		plan, err = c.planAlt(r, id, blk, blob, txs, txBlobs)
		return err
	})
	if known {
		return AddBlockResult{}, &BlockError{Height: genHeight(blk), Hash: id, Rule: RulePrevious, Err: ErrAlreadyInChain}
	}
	if err != nil {
		return AddBlockResult{}, asBlockError(err, genHeight(blk), id, RuleAlternativeChain)
	}
	if plan.meta.CumulativeDifficulty.Cmp(c.main.top.CumulativeDifficulty) <= 0 {
		// Not (yet) more work than the main chain: kept as an alternative.
		if err := c.store.PutAltBlock(plan.rec); err != nil {
			c.reload("storing an alternative block")
			return AddBlockResult{}, &BlockError{Height: plan.meta.Height, Hash: id, Rule: RuleStore, Err: err}
		}
		c.altCount++
		c.publish()
		return AddBlockResult{Meta: plan.meta}, nil
	}
	return c.switchTo(plan)
}

// extend adds a block whose parent is the main chain's top.
func (c *Chain) extend(id cryptonote.Hash, blk *cryptonote.Block, blob []byte, txs []*cryptonote.Transaction, txBlobs [][]byte) (AddBlockResult, error) {
	var (
		meta  chaindb.BlockMeta
		rec   chaindb.BlockRecord
		isAlt bool
	)
	err := c.store.View(func(r *chaindb.Reader) error {
		var err error
		meta, rec, err = c.check(r, c.main, mainRules, blk, blob, txs, txBlobs)
		isAlt = r.HasAltBlock(id)
		return err
	})
	if err != nil {
		return AddBlockResult{}, asBlockError(err, c.main.height, id, RuleStore)
	}
	if isAlt {
		// Stored as an alternative block while its parent was not the top
		// (only a failed switch can bring that about): it moves to the main chain.
		_, err = c.store.Reorganize(chaindb.Reorg{DeleteAlts: []cryptonote.Hash{id}, Append: []chaindb.BlockRecord{rec}})
	} else {
		err = c.store.Append(rec)
	}
	if err != nil {
		// The commit may have reached the disk even though it reported an
		// error (a failed sync): rebuild the in-memory state from the store.
		c.reload("a failed append")
		return AddBlockResult{}, &BlockError{Height: meta.Height, Hash: meta.Hash, Rule: RuleStore, Err: err}
	}
	c.main.push(meta, nil)
	c.forgetExpected(meta)
	c.txCount += uint64(len(rec.Txs))
	if isAlt {
		c.altCount--
	}
	c.publish()
	c.notify(MainChainChange{Added: []AddedBlock{{Meta: meta, Block: blk, Txs: txs}}})
	return AddBlockResult{Meta: meta, MainChain: true}, nil
}

// altPlan is a checked alternative block: its chain's view up to its parent
// (view.alt holds the stored alternative ancestors, oldest first) and what
// to store for it.
type altPlan struct {
	view *chainView
	meta chaindb.BlockMeta
	rec  chaindb.BlockRecord
}

// planAlt finds the chain blk extends (build_alt_chain) and checks blk
// against it with the alternative-block rules.
func (c *Chain) planAlt(r *chaindb.Reader, id cryptonote.Hash, blk *cryptonote.Block, blob []byte, txs []*cryptonote.Transaction, txBlobs [][]byte) (*altPlan, error) {
	ancestors, split, err := altAncestors(r, blk.PrevID)
	if err != nil {
		return nil, err
	}
	v, err := loadView(r, split)
	if err != nil {
		return nil, err
	}
	for i := range ancestors {
		a := &ancestors[i]
		if a.Meta.Height != v.height || a.Meta.PrevHash != v.top.Hash {
			return nil, fmt.Errorf("alternative block %s at height %d does not link to its chain (height %d, top %s)",
				a.Meta.Hash, a.Meta.Height, v.height, v.top.Hash)
		}
		v.push(a.Meta, a)
	}
	meta, rec, err := c.check(r, v, altRules, blk, blob, txs, txBlobs)
	if err != nil {
		return nil, err
	}
	return &altPlan{view: v, meta: meta, rec: rec}, nil
}

// altAncestors walks from prev back through the stored alternative blocks to
// the main chain and returns them oldest first, with the split height (the
// height of the first block above the main chain).
func altAncestors(r *chaindb.Reader, prev cryptonote.Hash) ([]chaindb.BlockRecord, uint64, error) {
	count, err := r.AltBlockCount()
	if err != nil {
		return nil, 0, err
	}
	var chain []chaindb.BlockRecord
	for at := prev; ; {
		if h, err := r.HeightByHash(at); err == nil {
			for i, j := 0, len(chain)-1; i < j; i, j = i+1, j-1 {
				chain[i], chain[j] = chain[j], chain[i]
			}
			return chain, h + 1, nil
		} else if !isNotFound(err) {
			return nil, 0, err
		}
		rec, err := r.AltBlock(at)
		if isNotFound(err) {
			// The walk left the known blocks: blk's chain does not reach the
			// main chain through blocks we have.
			return nil, 0, fmt.Errorf("%w: block %s is not known", ErrOrphan, at)
		}
		if err != nil {
			return nil, 0, err
		}
		if uint64(len(chain)) >= count {
			return nil, 0, fmt.Errorf("alternative blocks form a cycle through %s", at) // only a corrupt store can
		}
		chain = append(chain, rec)
		at = rec.Meta.PrevHash
	}
}

// errSwitchFailed aborts the write transaction of a switch whose chain
// has a block that fails the main-chain rules.
var errSwitchFailed = errors.New("alternative chain failed the main-chain rules")

// switchTo makes plan's chain the main chain (switch_to_alternative_blockchain).
//
// It is one store transaction: the main-chain blocks above the split are
// popped (their outputs and key images leave the indexes) and kept as
// alternative blocks, then each block of the alternative chain is checked
// again as the main chain checks it — the rules the alternative path skips
// (the future-timestamp limit, every transaction input) apply now, against
// the indexes as they stand at that block — and appended. If a block fails,
// the transaction rolls back, so the main chain is untouched, and the
// failing block and its descendants are discarded.
func (c *Chain) switchTo(plan *altPlan) (AddBlockResult, error) {
	chain := append(plan.view.alt[:len(plan.view.alt):len(plan.view.alt)], plan.rec)
	split := chain[0].Meta.Height
	popCount := c.main.height - split
	var (
		nv     *chainView
		recs   []chaindb.BlockRecord
		added  []AddedBlock
		popped []chaindb.BlockRecord
		bad    = -1
		badErr error
	)
	err := c.store.Update(func(w *chaindb.Writer) error {
		var err error
		recs, added, popped = recs[:0], added[:0], popped[:0]
		if nv, err = loadView(&w.Reader, split); err != nil {
			return err
		}
		for range popCount {
			rec, err := w.PopTop()
			if err != nil {
				return err
			}
			if err := w.PutAltBlock(rec); err != nil {
				return err
			}
			popped = append(popped, rec)
		}
		for i := range chain {
			if i < len(chain)-1 {
				if err := w.DeleteAltBlock(chain[i].Meta.Hash); err != nil {
					return err
				}
			}
			ab, rec, err := c.recheck(&w.Reader, nv, &chain[i])
			if err != nil {
				bad, badErr = i, err
				return errSwitchFailed
			}
			if err := w.Append(rec); err != nil {
				return err
			}
			nv.push(ab.Meta, &rec)
			recs = append(recs, rec)
			added = append(added, ab)
		}
		return nil
	})
	if errors.Is(err, errSwitchFailed) {
		return c.discardFailedSwitch(plan, chain, bad, badErr, split)
	}
	if err != nil {
		c.reload("a failed reorganization")
		return AddBlockResult{}, asBlockError(err, plan.meta.Height, plan.meta.Hash, RuleStore)
	}
	nv.asMain()
	c.main = nv
	for _, r := range recs {
		c.forgetExpected(r.Meta)
	}
	if err := c.store.View(func(r *chaindb.Reader) error {
		var err error
		if c.txCount, err = r.TxCount(); err != nil {
			return err
		}
		c.altCount, err = r.AltBlockCount()
		return err
	}); err != nil {
		c.reload("reading the counters after a reorganization")
	}
	c.publish()
	c.notify(MainChainChange{Popped: popped, Added: added})
	top := recs[len(recs)-1].Meta
	c.cfg.Logger.Info("reorganized to an alternative chain", "split", split, "popped", popCount,
		"height", c.main.height, "top", top.Hash)
	return AddBlockResult{Meta: top, MainChain: true, Reorganized: true, Popped: popCount}, nil
}

// discardFailedSwitch drops the block that failed a switch and everything
// built on it (the offered block, the last, was never stored).
func (c *Chain) discardFailedSwitch(plan *altPlan, chain []chaindb.BlockRecord, bad int, badErr error, split uint64) (AddBlockResult, error) {
	var discard []cryptonote.Hash
	if bad < len(chain)-1 {
		if err := c.store.View(func(r *chaindb.Reader) error {
			var err error
			discard, err = withDescendants(r, chain[bad].Meta.Hash)
			return err
		}); err != nil {
			return AddBlockResult{}, asBlockError(err, plan.meta.Height, plan.meta.Hash, RuleAlternativeChain)
		}
	}
	if len(discard) > 0 {
		if _, err := c.store.Reorganize(chaindb.Reorg{DeleteAlts: discard}); err != nil {
			c.reload("discarding invalid alternative blocks")
			return AddBlockResult{}, &BlockError{Height: plan.meta.Height, Hash: plan.meta.Hash, Rule: RuleStore, Err: err}
		}
		c.altCount -= uint64(len(discard))
		c.publish()
	}
	c.cfg.Logger.Warn("switch to an alternative chain failed; main chain kept",
		"split", split, "bad", chain[bad].Meta.Hash, "discarded", len(discard), "err", badErr)
	be := asBlockError(badErr, chain[bad].Meta.Height, chain[bad].Meta.Hash, RuleAlternativeChain)
	be.Switch = true
	return AddBlockResult{}, be
}

// recheck parses a stored alternative block and checks it with the main rules.
func (c *Chain) recheck(r *chaindb.Reader, v *chainView, a *chaindb.BlockRecord) (AddedBlock, chaindb.BlockRecord, error) {
	blk, err := cryptonote.ParseBlock(a.Blob)
	if err != nil {
		return AddedBlock{}, chaindb.BlockRecord{}, &BlockError{Height: a.Meta.Height, Hash: a.Meta.Hash, Rule: RuleBlock, Err: err}
	}
	txs := make([]*cryptonote.Transaction, len(a.Txs))
	txBlobs := make([][]byte, len(a.Txs))
	for i, t := range a.Txs {
		if txs[i], err = cryptonote.ParseTransaction(t.Blob); err != nil {
			return AddedBlock{}, chaindb.BlockRecord{}, &BlockError{Height: a.Meta.Height, Hash: a.Meta.Hash, Rule: RuleTransactions,
				Err: fmt.Errorf("%w: transaction %s: %v", ErrBadTx, t.Hash, err)}
		}
		txBlobs[i] = t.Blob
	}
	meta, rec, err := c.check(r, v, mainRules, blk, a.Blob, txs, txBlobs)
	return AddedBlock{Meta: meta, Block: blk, Txs: txs}, rec, err
}

// withDescendants returns root (if it is a stored alternative block) and every
// stored alternative block built on it.
func withDescendants(r *chaindb.Reader, root cryptonote.Hash) ([]cryptonote.Hash, error) {
	metas, err := r.AltBlockMetas()
	if err != nil {
		return nil, err
	}
	children := map[cryptonote.Hash][]cryptonote.Hash{}
	stored := map[cryptonote.Hash]bool{}
	for _, m := range metas {
		children[m.PrevHash] = append(children[m.PrevHash], m.Hash)
		stored[m.Hash] = true
	}
	var out []cryptonote.Hash
	if stored[root] {
		out = append(out, root)
	}
	for queue := []cryptonote.Hash{root}; len(queue) > 0; queue = queue[1:] {
		for _, ch := range children[queue[0]] {
			out = append(out, ch)
			queue = append(queue, ch)
		}
	}
	return out, nil
}

// HasBlock reports whether the block is known, on the main chain or as an
// alternative block.
func (c *Chain) HasBlock(hash cryptonote.Hash) bool {
	known := false
	_ = c.store.View(func(r *chaindb.Reader) error {
		_, err := r.HeightByHash(hash)
		known = err == nil || r.HasAltBlock(hash)
		return nil
	})
	return known
}

// IsMainChain reports whether the block is on the main chain.
func (c *Chain) IsMainChain(hash cryptonote.Hash) bool {
	err := c.store.View(func(r *chaindb.Reader) error {
		_, err := r.HeightByHash(hash)
		return err
	})
	return err == nil
}

// reload rebuilds the in-memory state from the store after a failed write.
func (c *Chain) reload(after string) {
	if err := c.load(); err != nil {
		c.cfg.Logger.Error("reloading the chain after "+after, "err", err)
	}
}

// asBlockError returns err as a *BlockError, wrapping it if it is not one.
func asBlockError(err error, height uint64, id cryptonote.Hash, rule BlockRule) *BlockError {
	var be *BlockError
	if errors.As(err, &be) {
		return be
	}
	return &BlockError{Height: height, Hash: id, Rule: rule, Err: err}
}

// genHeight is the height a block claims through its miner transaction, for
// error reports about blocks whose place in a chain is not known.
func genHeight(blk *cryptonote.Block) uint64 {
	if len(blk.MinerTx.Inputs) == 1 {
		if g, ok := blk.MinerTx.Inputs[0].(cryptonote.TxInGen); ok {
			return g.Height
		}
	}
	return 0
}
