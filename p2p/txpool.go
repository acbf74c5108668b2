package p2p

import (
	"sync"

	"github.com/gonero/gonero/cryptonote"
)

// txPoolLimit bounds the pool's memory: transactions are parsed but not
// verified, so a peer must not be able to fill memory with them.
const txPoolLimit = 64 << 20

// txPool holds transactions peers relayed, for get_info's tx_pool_size and
// to complete fluffy blocks. Entries leave when a block includes them.
type txPool struct {
	mu    sync.Mutex
	txs   map[cryptonote.Hash]poolTx
	bytes int
}

type poolTx struct {
	tx   *cryptonote.Transaction
	blob []byte
}

func newTxPool() *txPool { return &txPool{txs: map[cryptonote.Hash]poolTx{}} }

func (p *txPool) add(id cryptonote.Hash, tx *cryptonote.Transaction, blob []byte) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, ok := p.txs[id]; ok || p.bytes+len(blob) > txPoolLimit {
		return
	}
	// Keep a copy: the blob may alias a receive buffer.
	p.txs[id] = poolTx{tx: tx, blob: append([]byte(nil), blob...)}
	p.bytes += len(blob)
}

func (p *txPool) get(id cryptonote.Hash) (*cryptonote.Transaction, []byte, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	t, ok := p.txs[id]
	return t.tx, t.blob, ok
}

func (p *txPool) removeBlockTxs(ids []cryptonote.Hash) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, id := range ids {
		if t, ok := p.txs[id]; ok {
			p.bytes -= len(t.blob)
			delete(p.txs, id)
		}
	}
}

func (p *txPool) size() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.txs)
}

// complement returns the blobs of the pool transactions not in have.
func (p *txPool) complement(have [][32]byte) [][]byte {
	known := make(map[cryptonote.Hash]bool, len(have))
	for _, h := range have {
		known[h] = true
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	var out [][]byte
	for id, t := range p.txs {
		if !known[id] {
			out = append(out, t.blob)
		}
	}
	return out
}
