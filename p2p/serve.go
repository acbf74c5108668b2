package p2p

import (
	"errors"

	"github.com/gonero/gonero/chaindb"
	"github.com/gonero/gonero/cryptonote"
	"github.com/gonero/gonero/levin"
	"github.com/gonero/gonero/portable"
)

// serveChain answers NOTIFY_REQUEST_CHAIN (find_blockchain_supplement, docs/p2p-levin.md §8.2).
func (n *Node) serveChain(c *conn, req portable.RequestChain) error {
	genesis := n.chain.Network().GenesisID()
	if len(req.BlockIDs) == 0 || req.BlockIDs[len(req.BlockIDs)-1] != genesis {
		n.log.Debug("chain request without our genesis; not answered", "conn", c)
		return nil
	}
	var resp portable.ResponseChainEntry
	err := n.chain.Store().View(func(r *chaindb.Reader) error {
		height, err := r.Height()
		if err != nil {
			return err
		}
		start, found := uint64(0), false
		for _, id := range req.BlockIDs {
			if h, err := r.HeightByHash(id); err == nil {
				start, found = h, true
				break
			}
		}
		if !found {
			return nil
		}
		stop, ok := clipChain(r, start, height, req.Prune)
		if !ok {
			return nil
		}
		stop = min(stop, start+chainIDsPerResponse)
		metas, err := r.MetasInRange(start, stop)
		if err != nil {
			return err
		}
		top, err := r.Top()
		if err != nil {
			return err
		}
		resp = portable.ResponseChainEntry{StartHeight: start, TotalHeight: height,
			CumulativeDifficulty: top.CumulativeDifficulty.Lo, CumulativeDifficultyTop64: top.CumulativeDifficulty.Hi}
		for _, m := range metas {
			resp.BlockIDs = append(resp.BlockIDs, m.Hash)
			resp.BlockWeights = append(resp.BlockWeights, m.Weight)
		}
		if len(metas) >= 2 {
			if resp.FirstBlock, err = r.BlockBlob(start + 1); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	if len(resp.BlockIDs) == 0 {
		return nil
	}
	return c.notify(levin.NotifyResponseChainEntry, resp)
}

// serveObjects answers NOTIFY_REQUEST_GET_OBJECTS with main-chain blocks
// and their transactions (docs/p2p-levin.md §7.4, §7.5).
func (n *Node) serveObjects(c *conn, req portable.RequestGetObjects) error {
	if len(req.Blocks) > maxObjectRequest {
		// monerod: drop_connection without a fail.
		return misbehaved(0, "request for %d blocks (at most %d)", len(req.Blocks), maxObjectRequest)
	}
	n.log.Debug("serving objects", "conn", c, "blocks", len(req.Blocks), "prune", req.Prune)
	resp := portable.ResponseGetObjects{}
	err := n.chain.Store().View(func(r *chaindb.Reader) error {
		var err error
		if resp.CurrentBlockchainHeight, err = r.Height(); err != nil {
			return err
		}
		for _, id := range req.Blocks {
			e, ok, err := blockEntry(r, id, req.Prune)
			if err != nil {
				return err
			}
			if !ok {
				resp.MissedIDs = append(resp.MissedIDs, id)
				continue
			}
			resp.Blocks = append(resp.Blocks, e)
		}
		return nil
	})
	if err != nil {
		return err
	}
	return c.notify(levin.NotifyResponseGetObjects, resp)
}

// blockEntry reads a main-chain block with its transactions, pruned if
// asked (blockEntryPruned, pruning.go).
func blockEntry(r *chaindb.Reader, id cryptonote.Hash, prune bool) (portable.BlockCompleteEntry, bool, error) {
	h, err := r.HeightByHash(id)
	if errors.Is(err, chaindb.ErrNotFound) {
		return portable.BlockCompleteEntry{}, false, nil
	} else if err != nil {
		return portable.BlockCompleteEntry{}, false, err
	}
	var e portable.BlockCompleteEntry
	if e.Block, err = r.BlockBlob(h); err != nil {
		return e, false, err
	}
	hashes, err := r.TxHashes(h)
	if err != nil {
		return e, false, err
	}
	if prune {
		return blockEntryPruned(r, h, e, hashes)
	}
	for _, th := range hashes {
		blob, err := r.TxBlob(th)
		if errors.Is(err, chaindb.ErrPruned) {
			return e, false, errPrunedAsked(h)
		}
		if err != nil {
			return e, false, err
		}
		e.Txs = append(e.Txs, portable.TxBlobEntry{Blob: blob})
	}
	return e, true, nil
}

// serveComplement is handle_notify_get_txpool_complement: the pool's
// relayable transactions the peer does not list, in one
// NOTIFY_NEW_TRANSACTIONS (sent even when empty).
func (n *Node) serveComplement(c *conn, req portable.GetTxpoolComplement) error {
	has := make(map[cryptonote.Hash]bool, len(req.Hashes))
	for _, h := range req.Hashes {
		has[h] = true
	}
	var txs [][]byte
	for _, e := range n.pool.PublicEntries() {
		if !has[e.ID] && !n.ownPrivate(e.ID) {
			txs = append(txs, e.Blob)
		}
	}
	return c.notify(levin.NotifyNewTransactions, portable.NewTransactions{Txs: txs})
}
