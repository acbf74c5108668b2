package p2p

import (
	"errors"

	"github.com/gonero/gonero/chain"
	"github.com/gonero/gonero/chaindb"
	"github.com/gonero/gonero/cryptonote"
	"github.com/gonero/gonero/levin"
	"github.com/gonero/gonero/portable"
)

// handleNewBlock handles NOTIFY_NEW_FLUFFY_BLOCK (and NOTIFY_NEW_BLOCK,
// which v0.18.4 treats the same way) (docs/p2p-levin.md §7.8).
func (n *Node) handleNewBlock(c *conn, nb portable.NewBlock) error {
	if c.getState() != stateNormal || !n.synchronized.Load() {
		return nil
	}
	// A block or its transactions failing to parse, or not matching, drop
	// the peer without a fail (monerod's handle_notify_new_fluffy_block:
	// drop_connection(context, false, false)); a block the chain refuses
	// is scored by blockFault.
	if nb.Block.Pruned {
		return misbehaved(0, "pruned new block")
	}
	blk, err := cryptonote.ParseBlock(nb.Block.Block)
	if err != nil {
		return misbehaved(0, "new block: %w", err)
	}
	id, err := blk.ID()
	if err != nil {
		return misbehaved(0, "new block: %w", err)
	}
	c.mu.Lock()
	c.remoteHeight = max(c.remoteHeight, nb.CurrentBlockchainHeight)
	c.mu.Unlock()
	if n.chain.HasBlock(id) {
		return nil
	}
	if !n.chain.HasBlock(blk.PrevID) {
		// An orphan: fetch the peer's chain to find where it joins ours.
		return n.requestChain(c)
	}
	listed := make(map[cryptonote.Hash]int, len(blk.TxHashes))
	for i, h := range blk.TxHashes {
		if _, dup := listed[h]; dup {
			return misbehaved(0, "new block %s lists tx %s twice", id, h)
		}
		listed[h] = i
	}
	txs := make([]*cryptonote.Transaction, len(blk.TxHashes))
	blobs := make([][]byte, len(blk.TxHashes))
	for _, te := range nb.Block.Txs {
		tx, err := cryptonote.ParseTransaction(te.Blob)
		if err != nil {
			return misbehaved(0, "tx of new block %s: %w", id, err)
		}
		i, ok := listed[tx.ID()]
		if !ok {
			return misbehaved(0, "new block %s comes with tx %s it does not list", id, tx.ID())
		}
		txs[i], blobs[i] = tx, te.Blob
	}
	var missing []uint64
	for i, h := range blk.TxHashes {
		if txs[i] != nil {
			continue
		}
		// As monerod, only transactions every peer may know this node has
		// (none in a stem phase or kept from relaying) complete a block.
		if e, ok := n.pool.Public(h); ok && !n.ownPrivate(h) {
			txs[i], blobs[i] = e.Tx, e.Blob
			continue
		}
		missing = append(missing, uint64(i))
	}
	if len(missing) > 0 {
		return c.notify(levin.NotifyRequestFluffyMissingTx, portable.RequestFluffyMissingTx{
			BlockHash: id, CurrentBlockchainHeight: n.chain.Height(), MissingTxIndices: missing})
	}
	n.syncMu.Lock()
	res, err := n.chain.Add(blk, nb.Block.Block, txs, blobs)
	n.syncMu.Unlock()
	switch {
	case errors.Is(err, chain.ErrAlreadyInChain):
		return nil
	case errors.Is(err, chain.ErrOrphan):
		// The parent vanished in between (a switch): find the join again.
		return n.requestChain(c)
	case err != nil:
		return blockFault(err)
	}
	n.blocksFromPeers.Add(1)
	if !res.MainChain {
		n.log.Info("alternative block from peer", "height", res.Meta.Height, "id", id, "conn", c)
		return nil
	}
	if res.Reorganized {
		n.log.Info("switched to a heavier chain", "conn", c, "height", res.Meta.Height, "top", id, "blocks_replaced", res.Popped)
	} else {
		n.log.Info("new block from peer", "height", res.Meta.Height, "id", id, "conn", c)
	}
	// Like monerod, relay only what joined the main chain.
	n.relayBlock(nb.Block.Block, c)
	return nil
}

// serveMissingTxs answers NOTIFY_REQUEST_FLUFFY_MISSING_TX (docs/p2p-levin.md §7.9).
func (n *Node) serveMissingTxs(c *conn, req portable.RequestFluffyMissingTx) error {
	var e portable.BlockCompleteEntry
	var found bool
	err := n.chain.Store().View(func(r *chaindb.Reader) error {
		var err error
		e, found, err = blockEntry(r, req.BlockHash, false)
		return err
	})
	if err != nil {
		return err
	}
	// monerod's handle_request_fluffy_missing_tx: an unknown block or an
	// index out of range drops the peer without a fail, an index asked
	// twice with one.
	if !found {
		return misbehaved(0, "missing txs requested for unknown block %s", cryptonote.Hash(req.BlockHash))
	}
	seen := map[uint64]bool{}
	txs := make([]portable.TxBlobEntry, 0, len(req.MissingTxIndices))
	for _, i := range req.MissingTxIndices {
		if i >= uint64(len(e.Txs)) {
			return misbehaved(0, "missing tx index %d out of range for block %s", i, cryptonote.Hash(req.BlockHash))
		}
		if seen[i] {
			return misbehaved(1, "missing tx index %d asked twice for block %s", i, cryptonote.Hash(req.BlockHash))
		}
		seen[i] = true
		txs = append(txs, e.Txs[i])
	}
	e.Txs = txs
	// monerod echoes the requester's height in this answer.
	return c.notify(levin.NotifyNewFluffyBlock, portable.NewBlock{Block: e, CurrentBlockchainHeight: req.CurrentBlockchainHeight})
}

// RelayBlock announces a block just added to the main chain (by the miner
// or a peer) to every synchronised peer, as a fluffy block without
// transactions: peers ask for the ones they lack.
func (n *Node) RelayBlock(blob []byte) { n.relayBlock(blob, nil) }

func (n *Node) relayBlock(blob []byte, except *conn) {
	msg := portable.NewBlock{Block: portable.BlockCompleteEntry{Block: blob}, CurrentBlockchainHeight: n.chain.Height()}
	for _, c := range n.connections() {
		if c == except || c.getState() != stateNormal {
			continue
		}
		if err := c.notify(levin.NotifyNewFluffyBlock, msg); err != nil {
			n.dropConn(c, err)
		}
	}
}
