package zmqrpc

import (
	"github.com/gonero/gonero/chain"
	"github.com/gonero/gonero/chaindb"
	"github.com/gonero/gonero/cryptonote"
	"github.com/gonero/gonero/txpool"
)

// Chain is what the server reads of the main chain: its height and
// consistent snapshots of the store. NewChainSource(the node's chain)
// implements it.
type Chain interface {
	// Height is the number of blocks on the main chain.
	Height() uint64
	// View runs fn on one snapshot of the store.
	View(fn func(r *chaindb.Reader) error) error
}

// Pool is what the server reads of the transaction pool. *txpool.Pool
// implements it.
type Pool interface {
	// KeyImageInPool says whether a pool transaction spends ki.
	KeyImageInPool(ki cryptonote.Key) bool
}

var _ Pool = (*txpool.Pool)(nil)

// chainSource reads a chain.Chain's store.
type chainSource struct{ c *chain.Chain }

// NewChainSource serves c to the server.
func NewChainSource(c *chain.Chain) Chain { return chainSource{c} }

func (s chainSource) Height() uint64 { return s.c.Height() }

func (s chainSource) View(fn func(r *chaindb.Reader) error) error { return s.c.Store().View(fn) }
