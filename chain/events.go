package chain

import (
	"github.com/gonero/gonero/chaindb"
	"github.com/gonero/gonero/cryptonote"
)

// MainChainChange describes one change of the main chain, delivered after
// the store committed it: blocks popped (highest first, with their
// transactions as stored) and blocks added (lowest first).
type MainChainChange struct {
	Popped []chaindb.BlockRecord
	Added  []AddedBlock
}

// AddedBlock is a block that joined the main chain.
type AddedBlock struct {
	Meta  chaindb.BlockMeta
	Block *cryptonote.Block
	Txs   []*cryptonote.Transaction
}

// OnMainChainChange registers fn, called synchronously by the writer after
// every committed change of the main chain, in commit order. fn must not
// call back into the chain's writer (Add); it may read the store.
func (c *Chain) OnMainChainChange(fn func(MainChainChange)) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.listeners = append(c.listeners, fn)
}

// notify delivers a change to the listeners (writer only, c.mu held),
// having first started building the RandomX seeds the new top needs.
func (c *Chain) notify(ch MainChainChange) {
	c.prepareSeeds()
	for _, fn := range c.listeners {
		fn(ch)
	}
}
