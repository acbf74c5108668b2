package p2p

import (
	"bytes"
	"sync"
	"testing"
	"time"

	"github.com/gonero/gonero/chain"
	"github.com/gonero/gonero/cryptonote"
	"github.com/gonero/gonero/internal/testutil"
	"github.com/gonero/gonero/levin"
	"github.com/gonero/gonero/portable"
	"github.com/gonero/gonero/txpool"
)

// testClock is the pool's clock, set by a test.
type testClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *testClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *testClock) set(t time.Time) {
	c.mu.Lock()
	c.t = t
	c.mu.Unlock()
}

// poolWithClock is a dandelionSetup.newPool whose pool runs on clk and
// sets *pool.
func poolWithClock(clk *testClock, pool **txpool.Pool) func(*chain.Chain) *txpool.Pool {
	return func(c *chain.Chain) *txpool.Pool {
		*pool = txpool.NewForChain(c, txpool.Options{Now: clk.now})
		return *pool
	}
}

// lastRelayed is the pool's record of id's last relay.
func lastRelayed(p *txpool.Pool, id cryptonote.Hash) time.Time {
	for _, e := range p.Snapshot() {
		if e.ID == id {
			return e.LastRelayed
		}
	}
	return time.Time{}
}

// nothingSentBefore requires p's next transaction notification to be the
// answer to a pool complement request naming id (empty): had the node
// sent p a transaction before the request, it would come first.
func nothingSentBefore(t *testing.T, p *rawPeer, id cryptonote.Hash, when string) {
	t.Helper()
	p.sendPayload(levin.KindNotification, levin.NotifyGetTxpoolComplement, portable.GetTxpoolComplement{Hashes: [][32]byte{id}})
	var nt portable.NewTransactions
	p.expectNotification(levin.NotifyNewTransactions, &nt)
	if len(nt.Txs) != 0 {
		t.Fatalf("%s: the peer was sent %d transactions", when, len(nt.Txs))
	}
}

// The node's own transaction, fluffed while no peer was connected, reaches
// the peers at the first relay pass after monerod's back-off (5 minutes
// since it came), and again 10 minutes after that; the passes run on
// their own (RelayPassInterval), the back-off on the pool's clock.
func TestRelayPassSendsAgain(t *testing.T) {
	t0 := time.Now().Truncate(time.Second)
	clk := &testClock{t: t0}
	var pool *txpool.Pool
	s := &dandelionSetup{embargo: time.Hour, relayPass: 20 * time.Millisecond, newPool: poolWithClock(clk, &pool)}
	s.beforePeers = func() {
		if _, err := pool.Add(s.good, txpool.AddOptions{Source: txpool.SourceRPC}); err != nil {
			t.Fatal(err)
		}
		// No peer, so no stem peer: fluffed, to nobody.
		if _, public := pool.Public(s.goodID); !public || !lastRelayed(pool, s.goodID).Equal(t0) {
			t.Fatalf("with no peer: public %v, last relayed %v (want t0 %v)", public, lastRelayed(pool, s.goodID), t0)
		}
	}
	s.start(t)

	// Exactly 5 minutes since it came: not yet.
	clk.set(t0.Add(txpool.MinRelayTime))
	s.tn.node.relayPass()
	nothingSentBefore(t, s.w, s.goodID, "5 minutes after its relay")
	nothingSentBefore(t, s.in, s.goodID, "5 minutes after its relay")

	// A second more: the next pass fluffs it to every peer.
	t1 := t0.Add(txpool.MinRelayTime + time.Second)
	clk.set(t1)
	s.expectTxs(t, s.w, "the watcher", false)
	s.expectTxs(t, s.in, "the other peer", false)
	if got := lastRelayed(pool, s.goodID); !got.Equal(t1) {
		t.Fatalf("last relayed t0+%v, want t0+%v", got.Sub(t0), t1.Sub(t0))
	}

	// Relayed 301 s after it came: the next relay waits 10 minutes.
	clk.set(t1.Add(10 * time.Minute))
	s.tn.node.relayPass()
	nothingSentBefore(t, s.w, s.goodID, "10 minutes after its second relay")
	clk.set(t1.Add(10*time.Minute + time.Second))
	s.expectTxs(t, s.w, "the watcher", false)
}

// A transaction never relayed (here the node's own, pooled before the
// node was there to relay it) is not sent by the relay pass, as in monerod,
// whose set_relayed alone makes a transaction due: neither on a stem nor
// fluffed, and the pool still has it never relayed.
func TestRelayPassLeavesNeverRelayed(t *testing.T) {
	good := testutil.WalletTx(t, "2-transfer.jsonl", 14)
	var pool *txpool.Pool
	s := &dandelionSetup{withOutPeer: true, fluffEpoch: true, embargo: time.Hour, relayPass: time.Hour}
	s.newPool = func(c *chain.Chain) *txpool.Pool {
		pool = txpool.NewForChain(c, txpool.Options{})
		if _, err := pool.Add(good, txpool.AddOptions{Source: txpool.SourceRPC}); err != nil {
			t.Fatal(err)
		}
		return pool
	}
	s.start(t)
	if !bytes.Equal(s.good, good) {
		t.Fatal("not the setup's transaction")
	}
	if !lastRelayed(pool, s.goodID).IsZero() {
		t.Fatal("before the pass: want a transaction never relayed")
	}
	s.tn.node.relayPass()
	nothingSentBefore(t, s.out, s.goodID, "after the pass, to the stem peer")
	nothingSentBefore(t, s.in, s.goodID, "after the pass, to the other peer")
	if _, stem := pool.StemPhase(s.goodID); stem || !lastRelayed(pool, s.goodID).IsZero() {
		t.Fatalf("after the pass: stem phase %v, last relayed %v; want neither", stem, lastRelayed(pool, s.goodID))
	}
}
