package p2p

import (
	"container/list"
	"sync"
	"time"

	"github.com/gonero/gonero/cryptonote"
)

// Pool bounds. Transactions are parsed but not verified, so a peer must
// not be able to fill memory with them nor to keep honest ones out: past
// the byte limit the oldest entries make room, and every entry expires
// after a day (monerod keeps unmined transactions for three).
const (
	txPoolLimit  = 64 << 20
	txPoolExpiry = 24 * time.Hour
)

// txPool holds transactions peers relayed, for get_info's tx_pool_size and
// to complete fluffy blocks. Entries leave when a block includes them,
// when they expire, or to make room. They are never handed to other peers:
// gonero does not verify them, and monerod drops a peer that relays a
// transaction that fails verification.
type txPool struct {
	mu    sync.Mutex
	txs   map[cryptonote.Hash]*list.Element
	order *list.List // of *poolTx, oldest first
	bytes int
}

type poolTx struct {
	id    cryptonote.Hash
	tx    *cryptonote.Transaction
	blob  []byte
	added time.Time
}

func newTxPool() *txPool { return &txPool{txs: map[cryptonote.Hash]*list.Element{}, order: list.New()} }

func (p *txPool) add(id cryptonote.Hash, tx *cryptonote.Transaction, blob []byte, now time.Time) {
	if len(blob) > txPoolLimit {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.expire(now)
	if _, ok := p.txs[id]; ok {
		return
	}
	for p.bytes+len(blob) > txPoolLimit {
		p.remove(p.order.Front())
	}
	// Keep a copy: the blob may alias a receive buffer.
	p.txs[id] = p.order.PushBack(&poolTx{id: id, tx: tx, blob: append([]byte(nil), blob...), added: now})
	p.bytes += len(blob)
}

// expire drops entries older than txPoolExpiry (oldest first).
func (p *txPool) expire(now time.Time) {
	for e := p.order.Front(); e != nil && now.Sub(e.Value.(*poolTx).added) > txPoolExpiry; e = p.order.Front() {
		p.remove(e)
	}
}

func (p *txPool) remove(e *list.Element) {
	t := p.order.Remove(e).(*poolTx)
	delete(p.txs, t.id)
	p.bytes -= len(t.blob)
}

func (p *txPool) get(id cryptonote.Hash) (*cryptonote.Transaction, []byte, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	e, ok := p.txs[id]
	if !ok {
		return nil, nil, false
	}
	t := e.Value.(*poolTx)
	return t.tx, t.blob, true
}

func (p *txPool) removeBlockTxs(ids []cryptonote.Hash) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, id := range ids {
		if e, ok := p.txs[id]; ok {
			p.remove(e)
		}
	}
}

func (p *txPool) size(now time.Time) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.expire(now)
	return len(p.txs)
}
