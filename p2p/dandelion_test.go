package p2p

import (
	"bufio"
	"bytes"
	"math"
	"net"
	"testing"
	"time"

	"github.com/gonero/gonero/chain"
	"github.com/gonero/gonero/cryptonote"
	"github.com/gonero/gonero/internal/testutil"
	"github.com/gonero/gonero/levin"
	"github.com/gonero/gonero/params"
	"github.com/gonero/gonero/portable"
	"github.com/gonero/gonero/txpool"
)

// The epoch's stems: each source keeps its stem, sources spread over the
// two stems, a stem that goes away is replaced from the candidates, and a
// fluff epoch or no candidate means fluff.
func TestDandelionStems(t *testing.T) {
	a, b, c := testConn(), testConn(), testConn()
	srcX, srcY, srcZ := testConn(), testConn(), testConn()
	d := newDandelion()
	d.rnd = func(n int) int { return n - 1 } // a stem epoch (99 >= 20); the last candidate
	now := time.Unix(1_000_000, 0)
	outs := []*conn{a, b, c}
	list := func() []*conn { return outs }

	x := d.stem(now, srcX, false, list)
	y := d.stem(now, srcY, false, list)
	if x == nil || y == nil || x == y {
		t.Fatalf("two sources got stems %p and %p, want two different ones", x, y)
	}
	if len(d.stems) != dandelionStems {
		t.Fatalf("%d stems, want %d", len(d.stems), dandelionStems)
	}
	if again := d.stem(now.Add(time.Minute), srcX, false, list); again != x {
		t.Fatal("a source's stem changed within the epoch")
	}
	if z := d.stem(now, srcZ, false, list); z != x && z != y {
		t.Fatal("a third source got a peer outside the epoch's stems")
	}
	if own := d.stem(now, nil, false, list); own != x && own != y {
		t.Fatal("this node's own transactions got a peer outside the epoch's stems")
	}

	// x's stem goes away: it is replaced by the remaining candidate.
	x.close(nil)
	outs = []*conn{a, b, c}
	for i, o := range outs {
		if o == x {
			outs = append(outs[:i:i], outs[i+1:]...)
		}
	}
	nx := d.stem(now, srcX, false, list)
	if nx == nil || nx == x || nx.closed() {
		t.Fatalf("after its stem closed, the source got %p", nx)
	}

	// No candidates at all: fluff.
	outs = nil
	for _, s := range d.stems {
		if s != nil {
			s.close(nil)
		}
	}
	if s := d.stem(now, srcY, false, list); s != nil {
		t.Fatal("a stem without any candidate")
	}

	// A new epoch that is a fluff epoch: fluff even with candidates.
	fluff := newDandelion()
	fluff.rnd = func(int) int { return 0 }
	if s := fluff.stem(now, srcX, false, func() []*conn { return []*conn{testConn()} }); s != nil {
		t.Fatal("a stem in a fluff epoch")
	}
	// This node's own transactions go on a stem all the same.
	if s := fluff.stem(now, nil, true, func() []*conn { return []*conn{testConn()} }); s == nil {
		t.Fatal("this node's transaction fluffed in a fluff epoch")
	}
	if !fluff.epochEnd.After(now.Add(dandelionMinEpoch - time.Second)) {
		t.Fatalf("epoch ends %v after it started", fluff.epochEnd.Sub(now))
	}
}

// The embargo averages 39 s, in whole seconds.
func TestDandelionEmbargo(t *testing.T) {
	d := newDandelion()
	var sum time.Duration
	const draws = 2000
	for i := 0; i < draws; i++ {
		e := d.embargo()
		if e%time.Second != 0 || e < 0 {
			t.Fatalf("embargo %v", e)
		}
		sum += e
	}
	if mean := sum.Seconds() / draws; math.Abs(mean-dandelionEmbargoAverage) > 1.5 {
		t.Fatalf("mean embargo %.1f s, want about %d", mean, dandelionEmbargoAverage)
	}
}

func testConn() *conn { return &conn{done: make(chan struct{}), nc: nopConn{}} }

// nopConn lets a test conn be closed.
type nopConn struct{ net.Conn }

func (nopConn) Close() error                      { return nil }
func (nopConn) SetReadDeadline(t time.Time) error { return nil }

// dandelionSetup is a node on the testdata chain with an outgoing peer
// (out, a listener the node dials as a priority node: a stem candidate),
// a peer that relays to it (in) and a watcher (w), both incoming. The
// epoch is a stem epoch unless fluffEpoch. newPool, if set, makes the
// node's pool; beforePeers, if set, runs before the peers connect;
// relayPass is the node's RelayPassInterval.
type dandelionSetup struct {
	tn          *testNode
	out, in, w  *rawPeer
	good        []byte
	goodID      cryptonote.Hash
	height      uint64
	top         cryptonote.Hash
	topVersion  uint8
	fluffEpoch  bool
	embargo     time.Duration
	withOutPeer bool
	newPool     func(*chain.Chain) *txpool.Pool
	beforePeers func()
	relayPass   time.Duration
}

func (s *dandelionSetup) start(t *testing.T) {
	t.Helper()
	var ln net.Listener
	cfg := Config{MaxConnectionsPerIP: 100, ConnectInterval: 50 * time.Millisecond, RelayPassInterval: s.relayPass}
	if s.withOutPeer {
		var err error
		ln, err = net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ln.Close() })
		cfg.PriorityNodes = []string{ln.Addr().String()}
	}
	s.tn = startTestNodeWithPool(t, testutil.Path(t, "testdata", "regtest", "blockchain.raw"), cfg, s.newPool)
	d := s.tn.node.dandelion
	d.mu.Lock()
	if s.fluffEpoch {
		d.rnd = func(int) int { return 0 }
	} else {
		d.rnd = func(n int) int { return n - 1 }
	}
	d.draw = func() time.Duration { return s.embargo }
	d.mu.Unlock()
	s.height, s.top = s.tn.chain.Height(), s.tn.chain.Top().Hash
	s.topVersion = params.Regtest.VersionAt(s.height - 1)
	s.good = testutil.WalletTx(t, "2-transfer.jsonl", 14)
	tx, err := cryptonote.ParseTransaction(s.good)
	if err != nil {
		t.Fatal(err)
	}
	s.goodID = tx.ID()
	if s.beforePeers != nil {
		s.beforePeers()
	}

	atTop := func(id uint64) portable.HandshakeRequest {
		hs := goodHandshake(id)
		hs.PayloadData.CurrentHeight, hs.PayloadData.TopID, hs.PayloadData.TopVersion = s.height, s.top, s.topVersion
		return hs
	}
	if s.withOutPeer {
		_ = ln.(*net.TCPListener).SetDeadline(time.Now().Add(10 * time.Second))
		nc, err := ln.Accept()
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { nc.Close() })
		s.out = &rawPeer{t: t, nc: nc, rd: levin.NewReader(bufio.NewReader(nc), levin.MaxPacketSize)}
		if m, err := s.out.next(); err != nil || m.Command != levin.CommandHandshake {
			t.Fatalf("expected the node's handshake: %+v %v", m, err)
		}
		hs := atTop(61)
		s.out.sendPayloadResponse(levin.CommandHandshake, portable.HandshakeResponse{NodeData: hs.NodeData, PayloadData: hs.PayloadData})
	}
	s.w = dialRaw(t, s.tn.p2pAddr())
	s.w.sendPayload(levin.KindRequest, levin.CommandHandshake, atTop(62))
	s.w.expectResponse(levin.CommandHandshake)
	s.in = dialRaw(t, s.tn.p2pAddr())
	s.in.sendPayload(levin.KindRequest, levin.CommandHandshake, atTop(63))
	s.in.expectResponse(levin.CommandHandshake)
	eventually(t, 5*time.Second, "the node to count its peers", func() bool {
		in, out, _, _ := s.tn.node.Counts()
		return in == 2 && (out == 1) == s.withOutPeer && s.tn.node.Synchronized()
	})
}

// expectTxs reads p's next transaction notification and requires the
// good transaction in the given phase.
func (s *dandelionSetup) expectTxs(t *testing.T, p *rawPeer, who string, stem bool) {
	t.Helper()
	var nt portable.NewTransactions
	p.expectNotification(levin.NotifyNewTransactions, &nt)
	if len(nt.Txs) != 1 || !bytes.Equal(nt.Txs[0], s.good) || nt.Stem != stem {
		t.Fatalf("%s got %d transactions (stem %v), want the relayed one with stem %v", who, len(nt.Txs), nt.Stem, stem)
	}
}

// complement asks the node for its pool complement and returns how many
// transactions it offers.
func (s *dandelionSetup) complement(t *testing.T) int {
	t.Helper()
	s.w.sendPayload(levin.KindNotification, levin.NotifyGetTxpoolComplement, portable.GetTxpoolComplement{})
	var nt portable.NewTransactions
	s.w.expectNotification(levin.NotifyNewTransactions, &nt)
	return len(nt.Txs)
}

// A transaction received on a stem goes on to the stem peer only, stays
// private (no pool complement offers it) and, when it comes back fluffed,
// is fluffed to every other peer.
func TestStemTxGoesToOneStemPeer(t *testing.T) {
	s := &dandelionSetup{withOutPeer: true, embargo: time.Hour}
	s.start(t)
	s.in.sendPayload(levin.KindNotification, levin.NotifyNewTransactions, portable.NewTransactions{Txs: [][]byte{s.good}, Stem: true})
	s.expectTxs(t, s.out, "the stem peer", true)
	if in, stem := s.tn.node.pool.StemPhase(s.goodID); !in || !stem {
		t.Fatalf("pool: has %v, stem phase %v", in, stem)
	}
	// The watcher is offered nothing: had the node fluffed it, the
	// transaction would have reached the watcher before this answer.
	if n := s.complement(t); n != 0 {
		t.Fatalf("the complement offers %d transactions in the stem phase", n)
	}
	// The same transaction fluffed ends the stem phase: every peer but
	// the one it came from gets it.
	s.in.sendPayload(levin.KindNotification, levin.NotifyNewTransactions, portable.NewTransactions{Txs: [][]byte{s.good}})
	s.expectTxs(t, s.w, "the watcher", false)
	s.expectTxs(t, s.out, "the stem peer", false)
	if _, stem := s.tn.node.pool.StemPhase(s.goodID); stem {
		t.Fatal("still in the stem phase after a fluff")
	}
	if n := s.complement(t); n != 1 {
		t.Fatalf("the complement offers %d transactions, want the fluffed one", n)
	}
}

// A stem transaction comes back on a stem (a loop): it is fluffed.
func TestStemLoopFluffs(t *testing.T) {
	s := &dandelionSetup{withOutPeer: true, embargo: time.Hour}
	s.start(t)
	stem := portable.NewTransactions{Txs: [][]byte{s.good}, Stem: true}
	s.in.sendPayload(levin.KindNotification, levin.NotifyNewTransactions, stem)
	s.expectTxs(t, s.out, "the stem peer", true)
	s.out.sendPayload(levin.KindNotification, levin.NotifyNewTransactions, stem)
	s.expectTxs(t, s.w, "the watcher", false)
	s.expectTxs(t, s.in, "the first sender", false)
}

// The embargo runs out without the transaction fluffed by anyone else:
// the node fluffs it to every peer itself.
func TestStemEmbargoFluffs(t *testing.T) {
	s := &dandelionSetup{withOutPeer: true, embargo: 0}
	s.start(t)
	s.in.sendPayload(levin.KindNotification, levin.NotifyNewTransactions, portable.NewTransactions{Txs: [][]byte{s.good}, Stem: true})
	s.expectTxs(t, s.out, "the stem peer", true)
	s.expectTxs(t, s.w, "the watcher", false)
	s.expectTxs(t, s.in, "the sender", false) // the node's own fluff has no source to spare
	s.expectTxs(t, s.out, "the stem peer", false)
}

// Without a stem peer (no outgoing connection, as when monerod dials
// gonero), or in a fluff epoch, a stem transaction is fluffed at once to
// every peer but its sender.
func TestStemTxFluffedWithoutStemPeer(t *testing.T) {
	for _, s := range []*dandelionSetup{{embargo: time.Hour}, {withOutPeer: true, fluffEpoch: true, embargo: time.Hour}} {
		s.start(t)
		s.in.sendPayload(levin.KindNotification, levin.NotifyNewTransactions, portable.NewTransactions{Txs: [][]byte{s.good}, Stem: true})
		s.expectTxs(t, s.w, "the watcher", false)
		if s.withOutPeer {
			s.expectTxs(t, s.out, "the outgoing peer", false)
		}
		if _, stem := s.tn.node.pool.StemPhase(s.goodID); stem {
			t.Fatal("fluffed, yet in the stem phase")
		}
	}
}

// sendPayloadResponse answers an invoke of the node.
func (p *rawPeer) sendPayloadResponse(command uint32, payload interface{ ToSection() portable.Section }) {
	p.t.Helper()
	body, err := portable.Marshal(payload)
	if err != nil {
		p.t.Fatal(err)
	}
	if err := levin.WriteMessage(p.nc, levin.Message{Kind: levin.KindResponse, Command: command, ReturnCode: levin.ReturnSuccess, Body: body}); err != nil {
		p.t.Fatal(err)
	}
}
