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

// NotFromPool lists, for each block the main chain's latest change added
// (MainChainChange.Added, same order), its transactions the pool did not
// hold when the block came (nor a block the change popped): those that
// came with the block itself (monerod's pool supplement). It is meant for
// the chain listeners registered after the pool's, which run before the
// next change.
func (p *Pool) NotFromPool() [][]*cryptonote.Transaction {
	p.mu.Lock()
	defer p.unlock()
	return p.notFromPool
}

// NewForChain is a pool that verifies against c and follows it.
func NewForChain(c *chain.Chain, opts Options) *Pool {
	p := New(c, opts)
	p.Follow(c)
	return p
}

func (p *Pool) chainChanged(ch chain.MainChainChange) {
	// A popped block's transactions are back in monerod's pool before the
	// new chain's blocks take theirs from it.
	popped := map[cryptonote.Hash]bool{}
	for _, rec := range ch.Popped {
		for _, t := range rec.Txs {
			popped[t.Hash] = true
		}
	}
	notFromPool := make([][]*cryptonote.Transaction, len(ch.Added))
	included := map[cryptonote.Hash]bool{}
	for i, b := range ch.Added {
		for j, id := range b.Block.TxHashes {
			if j < len(b.Txs) && !popped[id] && !p.Has(id) {
				notFromPool[i] = append(notFromPool[i], b.Txs[j])
			}
		}
		p.BlockAdded(b.Txs, b.Block.TxHashes)
		for _, id := range b.Block.TxHashes {
			included[id] = true
		}
	}
	p.mu.Lock()
	p.notFromPool = notFromPool
	p.unlock()
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
