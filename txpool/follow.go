package txpool

import (
	"github.com/gonero/gonero/chain"
	"github.com/gonero/gonero/cryptonote"
)

// Follow makes the pool follow c's main chain: a block's transactions and
// every pool transaction spending a key image it spent leave the pool; after
// a reorganisation the popped blocks' transactions come back (as monerod
// returns them, without the fee rule) and every pool transaction is checked
// again against the new chain.
func (p *Pool) Follow(c *chain.Chain) {
	c.OnMainChainChange(p.chainChanged)
}

// NewForChain is a pool that verifies against c and follows it.
func NewForChain(c *chain.Chain, opts Options) *Pool {
	p := New(c, opts)
	p.Follow(c)
	return p
}

func (p *Pool) chainChanged(ch chain.MainChainChange) {
	included := map[cryptonote.Hash]bool{}
	for _, b := range ch.Added {
		p.BlockAdded(b.Txs, b.Block.TxHashes)
		for _, id := range b.Block.TxHashes {
			included[id] = true
		}
	}
	if len(ch.Popped) == 0 {
		return
	}
	for _, rec := range ch.Popped {
		for _, t := range rec.Txs {
			if included[t.Hash] {
				continue
			}
			tx, err := cryptonote.ParseTransaction(t.Blob)
			if err != nil {
				continue
			}
			_, _ = p.AddParsed(tx, t.Blob, AddOptions{Source: SourceBlock})
		}
	}
	p.Revalidate()
}
