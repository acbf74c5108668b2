package zmqrpc

import (
	"github.com/gonero/gonero/chain"
	"github.com/gonero/gonero/chaindb"
	"github.com/gonero/gonero/cryptonote"
	"github.com/gonero/gonero/txpool"
)

// Chain is what the server reads of the main chain. The node passes
// NewChainSource(its chain, its pool); tests may pass their own.
type Chain interface {
	// Height is the number of blocks on the main chain.
	Height() uint64
	// MetaByHeight and MetaByHash give a main-chain block's metadata;
	// ok is false when there is none.
	MetaByHeight(h uint64) (m chaindb.BlockMeta, ok bool)
	MetaByHash(id cryptonote.Hash) (m chaindb.BlockMeta, ok bool)
	// KeyImagesSpent says, for each key image, whether the main chain has
	// spent it.
	KeyImagesSpent(kis []cryptonote.Key) []bool
	// TxOutputIndices gives the global (per-amount) index of each output
	// of a main-chain transaction, miner transactions included; ok is
	// false for a transaction not on the main chain.
	TxOutputIndices(id cryptonote.Hash) (idx []uint64, ok bool)
}

// Pool is what the server reads of the transaction pool.
type Pool interface {
	// KeyImageInPool says whether a pool transaction spends ki.
	KeyImageInPool(ki cryptonote.Key) bool
}

// chainSource reads a chain.Chain's store.
type chainSource struct{ c *chain.Chain }

// NewChainSource serves c to the server.
func NewChainSource(c *chain.Chain) Chain { return chainSource{c} }

// NewPoolSource serves p to the server.
func NewPoolSource(p *txpool.Pool) Pool { return p }

func (s chainSource) Height() uint64 { return s.c.Height() }

func (s chainSource) MetaByHeight(h uint64) (m chaindb.BlockMeta, ok bool) {
	err := s.c.Store().View(func(r *chaindb.Reader) error {
		var err error
		m, err = r.MetaByHeight(h)
		return err
	})
	return m, err == nil
}

func (s chainSource) MetaByHash(id cryptonote.Hash) (m chaindb.BlockMeta, ok bool) {
	err := s.c.Store().View(func(r *chaindb.Reader) error {
		var err error
		m, err = r.MetaByHash(id)
		return err
	})
	return m, err == nil
}

func (s chainSource) KeyImagesSpent(kis []cryptonote.Key) []bool {
	out := make([]bool, len(kis))
	_ = s.c.Store().View(func(r *chaindb.Reader) error {
		for i, ki := range kis {
			_, spent, err := r.KeyImageSpent(ki)
			out[i] = spent && err == nil
		}
		return nil
	})
	return out
}

func (s chainSource) TxOutputIndices(id cryptonote.Hash) (idx []uint64, ok bool) {
	err := s.c.Store().View(func(r *chaindb.Reader) error {
		var err error
		idx, err = r.TxOutputIndexes(id)
		return err
	})
	return idx, err == nil
}
