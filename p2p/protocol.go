package p2p

import (
	"github.com/gonero/gonero/levin"
	"github.com/gonero/gonero/portable"
)

// Limits of the CryptoNote protocol (docs/p2p-levin.md §7, §8, §11).
const (
	maxObjectRequest      = 100         // CURRENCY_PROTOCOL_MAX_OBJECT_REQUEST_COUNT
	chainIDsPerResponse   = 10_000      // BLOCKS_IDS_SYNCHRONIZING_DEFAULT_COUNT
	maxChainIDsInResponse = 25_000      // BLOCKS_IDS_SYNCHRONIZING_MAX_COUNT
	maxBlockNumber        = 500_000_000 // CRYPTONOTE_MAX_BLOCK_NUMBER
	maxBlockSyncSize      = 2048        // BLOCKS_SYNCHRONIZING_MAX_COUNT, --block-sync-size's cap
	maxIdleChainEntries   = 3           // chain entries without progress before the peer is dropped (gonero's)
)

// handleNotification handles the CryptoNote protocol (docs/p2p-levin.md §7).
func (c *conn) handleNotification(m levin.Message) error {
	n := c.node
	c.mu.Lock()
	handshaked := c.handshaked
	c.mu.Unlock()
	if c.anon != nil && zoneFiltered(m.Command) {
		return nil // is_filtered_command: ignored in an anonymity zone
	}
	if !handshaked {
		// monerod drops these before a handshake (without a fail) and
		// ignores the rest.
		switch m.Command {
		case levin.NotifyRequestGetObjects, levin.NotifyRequestChain, levin.NotifyRequestFluffyMissingTx:
			return misbehaved(0, "command %d before the handshake", m.Command)
		}
		return nil
	}
	// An undecodable notification closes the connection without a fail
	// (monerod's notify handler returns -1 to levin).
	switch m.Command {
	case levin.NotifyRequestChain:
		var req portable.RequestChain
		if err := portable.Unmarshal(m.Body, &req); err != nil {
			return misbehaved(0, "request chain: %w", err)
		}
		return n.serveChain(c, req)
	case levin.NotifyResponseChainEntry:
		var resp portable.ResponseChainEntry
		if err := portable.Unmarshal(m.Body, &resp); err != nil {
			return misbehaved(0, "chain entry: %w", err)
		}
		return n.handleChainEntry(c, resp)
	case levin.NotifyRequestGetObjects:
		var req portable.RequestGetObjects
		if err := portable.Unmarshal(m.Body, &req); err != nil {
			return misbehaved(0, "request objects: %w", err)
		}
		return n.serveObjects(c, req)
	case levin.NotifyResponseGetObjects:
		var resp portable.ResponseGetObjects
		if err := portable.Unmarshal(m.Body, &resp); err != nil {
			return misbehaved(0, "objects: %w", err)
		}
		return n.handleObjects(c, resp)
	case levin.NotifyNewBlock, levin.NotifyNewFluffyBlock:
		var nb portable.NewBlock
		if err := portable.Unmarshal(m.Body, &nb); err != nil {
			return misbehaved(0, "new block: %w", err)
		}
		return n.handleNewBlock(c, nb)
	case levin.NotifyRequestFluffyMissingTx:
		var req portable.RequestFluffyMissingTx
		if err := portable.Unmarshal(m.Body, &req); err != nil {
			return misbehaved(0, "request missing txs: %w", err)
		}
		return n.serveMissingTxs(c, req)
	case levin.NotifyNewTransactions:
		var nt portable.NewTransactions
		if err := portable.Unmarshal(m.Body, &nt); err != nil {
			return misbehaved(0, "new transactions: %w", err)
		}
		return n.handleNewTxs(c, nt)
	case levin.NotifyGetTxpoolComplement:
		var req portable.GetTxpoolComplement
		if err := portable.Unmarshal(m.Body, &req); err != nil {
			return misbehaved(0, "txpool complement: %w", err)
		}
		if c.getState() != stateNormal {
			return nil
		}
		return n.serveComplement(c, req)
	}
	// Unknown notifications are ignored, as released v0.18 does.
	return nil
}
