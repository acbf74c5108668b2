package zmqpub

import (
	"testing"

	"github.com/gonero/gonero/cryptonote"
	"github.com/gonero/gonero/txpool"
)

// Which pool arrivals monerod publishes (core::handle_incoming_txs with
// matches_category(relay_method, legacy)). The RPC cases are cross-checked
// against monerod in cmd/gonerod's TestZMQMatchesMonerod, the fluffed peer
// case in TestZMQTxFromPeer; a stem arrival is not reproducible there
// (Dandelion++ epochs are random), hence this table.
func TestPublishesTxpoolAdd(t *testing.T) {
	for _, c := range []struct {
		e    txpool.Entry
		want bool
		why  string
	}{
		{txpool.Entry{Source: txpool.SourceRPC, DoNotRelay: true}, true, "relay_method::none"},
		{txpool.Entry{Source: txpool.SourceRPC}, false, "relay_method::local"},
		{txpool.Entry{Source: txpool.SourceP2P}, true, "relay_method::fluff"},
		{txpool.Entry{Source: txpool.SourceP2P, ArrivedOnStem: true}, false, "relay_method::stem"},
		{txpool.Entry{Source: txpool.SourceBlock, KeptByBlock: true}, false, "returned by a popped block (tx_memory_pool::add_tx, not handle_incoming_txs)"},
	} {
		if got := publishesTxpoolAdd(&c.e); got != c.want {
			t.Errorf("%s: published %v, want %v", c.why, got, c.want)
		}
	}
}

// BenchmarkBlockEvent is what the chain's writer pays per block with a
// subscriber to every topic: the miner data and the block handed over
// (gathering the facts is Follow's, measured by the monerod test), the
// rendering and queueing on the publisher's goroutine.
func BenchmarkBlockEvent(b *testing.B) {
	p, err := Listen([]string{"tcp://127.0.0.1:0"}, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	p.mu.Lock()
	s := &subscriber{prefixes: map[string]struct{}{"": {}}, queue: make(chan []byte, 1<<20), done: make(chan struct{})}
	p.subs[s] = struct{}{}
	p.countLocked("", 1)
	p.mu.Unlock()
	blk := testBlock(100, 1)
	md := &MinerData{TxBacklog: make([]BacklogEntry, 50)}
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		p.MinerData(md)
		p.ChainMain(uint64(i), []*cryptonote.Block{blk}, []cryptonote.Hash{{}})
		if i%1000 == 999 {
			p.Flush()
			for len(s.queue) > 0 {
				<-s.queue
			}
		}
	}
	p.Flush()
}
