package zmqrpc

import (
	"github.com/gonero/gonero/chain"
	"github.com/gonero/gonero/chaindb"
	"github.com/gonero/gonero/cryptonote"
	"github.com/gonero/gonero/params"
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
	// Network is the chain's network (its hard forks).
	Network() params.Network
	// NextBlockFacts are the figures for the block after the top.
	NextBlockFacts() chain.NextBlock
}

// Pool is what the server reads of the transaction pool. *txpool.Pool
// implements it.
type Pool interface {
	// KeyImageInPool says whether a pool transaction spends ki.
	KeyImageInPool(ki cryptonote.Key) bool
	// Public is a pool transaction that may be shown to anyone (not
	// do_not_relay, not in its Dandelion++ stem phase).
	Public(id cryptonote.Hash) (*txpool.Entry, bool)
	// PublicEntries are the pool's broadcast transactions.
	PublicEntries() []*txpool.Entry
	// Count is the number of pool transactions, those kept private
	// (do_not_relay, Dandelion++ stem) only when private.
	Count(private bool) int
}

// NewPoolSource serves p to the server.
func NewPoolSource(p *txpool.Pool) Pool { return poolSource{p} }

type poolSource struct{ *txpool.Pool }

func (p poolSource) Count(private bool) int {
	if private {
		return p.Len()
	}
	return len(p.PublicEntries())
}

// chainSource reads a chain.Chain's store.
type chainSource struct{ c *chain.Chain }

// NewChainSource serves c to the server.
func NewChainSource(c *chain.Chain) Chain { return chainSource{c} }

func (s chainSource) Height() uint64 { return s.c.Height() }

func (s chainSource) Network() params.Network { return s.c.Network() }

func (s chainSource) NextBlockFacts() chain.NextBlock { return s.c.NextBlockFacts() }

func (s chainSource) View(fn func(r *chaindb.Reader) error) error { return s.c.Store().View(fn) }
