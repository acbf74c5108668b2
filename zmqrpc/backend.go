package zmqrpc

import (
	"time"

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
	// AdjustedTime is the time a time-locked output's unlock is judged
	// by from hard fork 13 (get_adjusted_time for the next block).
	AdjustedTime(now time.Time) uint64
}

// Pool is what the server reads of the transaction pool. *txpool.Pool
// implements it.
type Pool interface {
	// KeyImageInPool says whether a pool transaction spends ki.
	KeyImageInPool(ki cryptonote.Key) bool
	// Public is a pool transaction that may be shown to anyone (not
	// do_not_relay, not in its Dandelion++ stem phase).
	Public(id cryptonote.Hash) (*txpool.Entry, bool)
}

var _ Pool = (*txpool.Pool)(nil)

// chainSource reads a chain.Chain's store.
type chainSource struct{ c *chain.Chain }

// NewChainSource serves c to the server.
func NewChainSource(c *chain.Chain) Chain { return chainSource{c} }

func (s chainSource) Height() uint64 { return s.c.Height() }

func (s chainSource) Network() params.Network { return s.c.Network() }

func (s chainSource) AdjustedTime(now time.Time) uint64 {
	next := s.c.NextBlockFacts()
	return next.AdjustedTime(now)
}

func (s chainSource) View(fn func(r *chaindb.Reader) error) error { return s.c.Store().View(fn) }
