package p2p

import (
	"bufio"
	"net"
	"net/netip"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gonero/gonero/chain"
	"github.com/gonero/gonero/chaindb"
	"github.com/gonero/gonero/cryptonote"
	"github.com/gonero/gonero/internal/testutil"
	"github.com/gonero/gonero/levin"
	"github.com/gonero/gonero/portable"
)

// tamperProxy sits between a syncing node and a real source node and
// forwards every levin message both ways, except what its hooks change:
// toSource sees what the syncing node sends (false: swallow it), and
// toSyncer may rewrite what the source sends back.
type tamperProxy struct {
	t        *testing.T
	ln       net.Listener
	source   string
	toSource func(m *levin.Message) bool
	toSyncer func(m levin.Message) levin.Message

	getObjects atomic.Int32 // 2003 requests seen
	conns      atomic.Int32 // connections accepted
	closed     atomic.Bool  // while set, connections are closed at once (a peer not up yet)
	mu         sync.Mutex
	open       []net.Conn
}

func newTamperProxy(t *testing.T, source string) *tamperProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &tamperProxy{t: t, ln: ln, source: source}
	t.Cleanup(func() {
		ln.Close()
		p.mu.Lock()
		for _, c := range p.open {
			c.Close()
		}
		p.mu.Unlock()
	})
	return p
}

func (p *tamperProxy) addr() string { return p.ln.Addr().String() }

// start serves connections; the hooks must be set before.
func (p *tamperProxy) start() {
	go func() {
		for {
			in, err := p.ln.Accept()
			if err != nil {
				return
			}
			if p.closed.Load() {
				in.Close()
				continue
			}
			out, err := net.Dial("tcp", p.source)
			if err != nil {
				in.Close()
				continue
			}
			p.conns.Add(1)
			p.mu.Lock()
			p.open = append(p.open, in, out)
			p.mu.Unlock()
			go p.pipe(in, out, true)
			go p.pipe(out, in, false)
		}
	}()
}

func (p *tamperProxy) pipe(from, to net.Conn, fromSyncer bool) {
	defer from.Close()
	defer to.Close()
	rd := levin.NewReader(bufio.NewReader(from), levin.MaxPacketSize)
	for {
		m, err := rd.ReadMessage()
		if err != nil {
			return
		}
		if fromSyncer {
			if m.Kind == levin.KindNotification && m.Command == levin.NotifyRequestGetObjects {
				p.getObjects.Add(1)
			}
			if p.toSource != nil && !p.toSource(&m) {
				continue
			}
		} else if p.toSyncer != nil {
			m = p.toSyncer(m)
		}
		if err := levin.WriteMessage(to, m); err != nil {
			return
		}
	}
}

// sourceNode serves the regtest chain of testdata to syncing nodes, all on
// 127.0.0.1.
func sourceNode(t *testing.T) *testNode {
	t.Helper()
	return startTestNode(t, testutil.Path(t, "testdata", "regtest", "blockchain.raw"), Config{MaxConnectionsPerIP: 100})
}

// addedInOrder records the heights the syncing chain adds and checks they
// come one after the other.
func addedInOrder(t *testing.T, c *chain.Chain) func() (n int, ok bool) {
	var mu sync.Mutex
	next, count, ok := c.Height(), 0, true
	c.OnMainChainChange(func(ch chain.MainChainChange) {
		mu.Lock()
		defer mu.Unlock()
		for _, b := range ch.Added {
			if b.Meta.Height != next {
				ok = false
			}
			next = b.Meta.Height + 1
			count++
		}
	})
	return func() (int, bool) {
		mu.Lock()
		defer mu.Unlock()
		return count, ok
	}
}

// A peer that announces its chain and then never answers a block request
// does not stop the sync: once its span is overdue another peer is asked
// for it. The silent peer stays connected (its sync timeout is long
// here), so only the re-request can have filled its span.
func TestStalledSpanRequestedElsewhere(t *testing.T) {
	src := sourceNode(t)
	first := src.chain.HashAt(1)
	stall := newTamperProxy(t, src.p2pAddr())
	stall.toSource = func(m *levin.Message) bool {
		return !(m.Kind == levin.KindNotification && m.Command == levin.NotifyRequestGetObjects)
	}
	stall.start()
	// The honest peer is not up at first, so the silent one gets the first span.
	honest := newTamperProxy(t, src.p2pAddr())
	honest.closed.Store(true)
	var honestAskedFirst atomic.Bool
	honest.toSource = func(m *levin.Message) bool {
		if m.Kind == levin.KindNotification && m.Command == levin.NotifyRequestGetObjects {
			var req portable.RequestGetObjects
			if err := portable.Unmarshal(m.Body, &req); err == nil && len(req.Blocks) > 0 && req.Blocks[0] == first {
				honestAskedFirst.Store(true)
			}
		}
		return true
	}
	honest.start()

	syncer := startTestNode(t, "", Config{ExclusiveNodes: []string{stall.addr(), honest.addr()}, ConnectInterval: 100 * time.Millisecond,
		SyncTimeout: 5 * time.Minute, SpanTimeout: 2 * time.Second})
	order := addedInOrder(t, syncer.chain)
	eventually(t, 10*time.Second, "the silent peer to be asked for a span", func() bool { return stall.getObjects.Load() > 0 })
	if h := syncer.chain.Height(); h != 1 {
		t.Fatalf("height %d before any block was served", h)
	}
	spans, overview := syncer.node.SyncSpans(syncer.chain.Height())
	if len(spans) != 1 || spans[0].StartBlockHeight != 1 || spans[0].Size != 0 || overview != "[.]" {
		t.Fatalf("queue while the silent peer holds the first span: %+v %q", spans, overview)
	}
	honest.closed.Store(false)

	eventually(t, 60*time.Second, "the sync to finish", func() bool { return syncer.chain.Height() == src.chain.Height() })
	if syncer.chain.Top().Hash != src.chain.Top().Hash {
		t.Fatalf("synced top %s, source top %s", syncer.chain.Top().Hash, src.chain.Top().Hash)
	}
	if n, ok := order(); !ok || uint64(n) != src.chain.Height()-1 {
		t.Fatalf("%d blocks added (in order: %v); want %d in order", n, ok, src.chain.Height()-1)
	}
	if !honestAskedFirst.Load() {
		t.Fatal("the silent peer's span (from height 1) was never asked of the other peer")
	}
	// Every span was downloaded once: the honest peer was asked for each,
	// the stalled one included, and for nothing twice.
	spanSize := uint64(syncer.node.spanSize())
	if want := (src.chain.Height() - 1 + spanSize - 1) / spanSize; uint64(honest.getObjects.Load()) != want {
		t.Errorf("the honest peer was asked for %d spans; the chain has %d", honest.getObjects.Load(), want)
	}
	silentStillThere := false
	for _, c := range syncer.node.Connections() {
		if c.Address == stall.addr() {
			silentStillThere = true
		}
	}
	if !silentStillThere || stall.conns.Load() != 1 {
		t.Fatalf("the silent peer was dropped (%d connections): the span was not shown to be taken over", stall.conns.Load())
	}
	t.Logf("silent peer asked %d times, honest peer %d times", stall.getObjects.Load(), honest.getObjects.Load())
}

// invalidBlock1 is the source's block 1 with a miner transaction that
// unlocks a block early: a block every node refuses, under a new id.
func invalidBlock1(t *testing.T, src *testNode) (cryptonote.Hash, []byte) {
	t.Helper()
	var blob []byte
	if err := src.chain.Store().View(func(r *chaindb.Reader) error {
		var err error
		blob, err = r.BlockBlob(1)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	blk, err := cryptonote.ParseBlock(blob)
	if err != nil {
		t.Fatal(err)
	}
	blk.MinerTx.UnlockTime--
	id, err := blk.ID()
	if err != nil {
		t.Fatal(err)
	}
	return id, blk.Serialize()
}

// A peer returning a bad span is dropped, and no block of its spans
// reaches the store. Scored as monerod scores it: a span that does not
// match what was asked drops the peer without a fail (handle_response_get_objects:
// drop_connection(context, false, false)), however often; a span whose
// block the chain refuses scores the host 5 (drop_connections), 1 for its
// connection and 1 for the block, so the second bans it.
func TestBadSpanDropsAndBansPeer(t *testing.T) {
	src := sourceNode(t)
	good1 := src.chain.HashAt(1)
	bad1, badBlob := invalidBlock1(t, src)
	type tamper struct {
		request    func(*portable.RequestGetObjects) bool // false: not forwarded
		chainEntry func(*portable.ResponseChainEntry)
		objects    func(*portable.ResponseGetObjects)
	}
	replaceBlock1 := func(e *portable.ResponseChainEntry) {
		if len(e.BlockIDs) > 1 && e.BlockIDs[1] == good1 {
			e.BlockIDs[1] = bad1
		}
	}
	askRealBlock1 := func(r *portable.RequestGetObjects) bool {
		if len(r.Blocks) > 0 && r.Blocks[0] == bad1 {
			r.Blocks[0] = good1 // the source knows only the real one
			return true
		}
		return false
	}
	serveBadBlock1 := func(o *portable.ResponseGetObjects) {
		if blk, err := cryptonote.ParseBlock(o.Blocks[0].Block); err == nil {
			if id, _ := blk.ID(); id == good1 {
				o.Blocks[0] = portable.BlockCompleteEntry{Block: badBlob}
			}
		}
	}
	cases := []struct {
		name string
		tamper
		syncSize int // the syncer's BlockSyncSize
		bans     bool
	}{
		{"wrong block", tamper{objects: func(o *portable.ResponseGetObjects) {
			o.Blocks[0], o.Blocks[1] = o.Blocks[1], o.Blocks[0]
		}}, 0, false},
		{"more blocks than asked", tamper{objects: func(o *portable.ResponseGetObjects) {
			o.Blocks = append(o.Blocks, o.Blocks[len(o.Blocks)-1])
		}}, 0, false},
		{"fewer blocks than asked", tamper{objects: func(o *portable.ResponseGetObjects) {
			o.Blocks = o.Blocks[:len(o.Blocks)-1]
		}}, 0, false},
		// The peer announces the source's chain but for block 1, which it
		// replaces with an invalid one, and serves that block: with spans
		// of 20 blocks, block 2 does not follow it (dropped without a fail,
		// as monerod's "Sent invalid chain").
		{"invalid chain", tamper{
			chainEntry: replaceBlock1, request: askRealBlock1, objects: serveBadBlock1}, 0, false},
		// The same with spans of one block, and the span after it never
		// answered: the span matches what was asked, and the chain refuses
		// its block while the peer is still connected.
		{"block the chain refuses", tamper{
			chainEntry: replaceBlock1,
			request: func(r *portable.RequestGetObjects) bool {
				return askRealBlock1(r) // the next span is never answered
			},
			objects: serveBadBlock1}, 1, true},
	}
	for _, bc := range cases {
		t.Run(bc.name, func(t *testing.T) {
			p := newTamperProxy(t, src.p2pAddr())
			p.toSource = func(m *levin.Message) bool {
				if bc.request != nil && m.Kind == levin.KindNotification && m.Command == levin.NotifyRequestGetObjects {
					var req portable.RequestGetObjects
					if err := portable.Unmarshal(m.Body, &req); err == nil {
						if !bc.request(&req) {
							return false
						}
						m.Body, _ = portable.Marshal(req)
					}
				}
				return true
			}
			p.toSyncer = func(m levin.Message) levin.Message {
				if m.Kind != levin.KindNotification {
					return m
				}
				switch {
				case m.Command == levin.NotifyResponseChainEntry && bc.chainEntry != nil:
					var e portable.ResponseChainEntry
					if err := portable.Unmarshal(m.Body, &e); err == nil {
						bc.chainEntry(&e)
						m.Body, _ = portable.Marshal(e)
					}
				case m.Command == levin.NotifyResponseGetObjects && bc.objects != nil:
					var o portable.ResponseGetObjects
					if err := portable.Unmarshal(m.Body, &o); err == nil {
						bc.objects(&o)
						m.Body, _ = portable.Marshal(o)
					}
				}
				return m
			}
			p.start()
			syncer := startTestNode(t, "", Config{ExclusiveNodes: []string{p.addr()}, ConnectInterval: 50 * time.Millisecond,
				BlockSyncSize: bc.syncSize})
			h0, top0, alt0 := storeState(t, syncer)
			ip := netip.MustParseAddr("127.0.0.1")
			if bc.bans {
				eventually(t, 30*time.Second, "the peer to be banned", func() bool {
					_, banned := syncer.node.BannedUntil(ip, time.Now())
					return banned
				})
				if n := p.conns.Load(); n != 2 {
					t.Errorf("banned after %d connections; each refused span scores 7, so the second bans", n)
				}
			} else {
				eventually(t, 30*time.Second, "the peer to be dropped more than eleven times", func() bool {
					return p.conns.Load() > failsBeforeBan+1
				})
				if _, banned := syncer.node.BannedUntil(ip, time.Now()); banned {
					t.Fatal("a span that does not match what was asked banned its peer")
				}
			}
			if h, top, alt := storeState(t, syncer); h != h0 || top != top0 || alt != alt0 {
				t.Fatalf("the store changed: height %d→%d, top %s→%s, alt blocks %d→%d", h0, h, top0, top, alt0, alt)
			}
			if p.getObjects.Load() == 0 {
				t.Fatal("no span was ever requested")
			}
			eventually(t, 5*time.Second, "the banned peer's spans to leave the queue", func() bool {
				syncer.node.queue.release(syncer.chain.Height(), syncer.chain.IsMainChain)
				spans, _ := syncer.node.SyncSpans(syncer.chain.Height())
				return len(spans) == 0
			})
		})
	}
}

// A peer that claims a longer chain but whose chain entries never list a
// block this node lacks would keep it asking forever: it is dropped after
// a few such answers (gonero's rule: monerod has none, so it scores no
// fail, and the peer is dropped again and again, never banned); nothing
// changes.
func TestEndlessChainPeerDropped(t *testing.T) {
	src := sourceNode(t)
	p := newTamperProxy(t, src.p2pAddr())
	const claimed = 100 // blocks the peer claims beyond its real top
	p.toSyncer = func(m levin.Message) levin.Message {
		switch {
		case m.Kind == levin.KindResponse && m.Command == levin.CommandHandshake:
			var hs portable.HandshakeResponse
			if err := portable.Unmarshal(m.Body, &hs); err == nil {
				hs.PayloadData.CurrentHeight += claimed
				hs.PayloadData.TopID = [32]byte{0xee}
				m.Body, _ = portable.Marshal(hs)
			}
		case m.Kind == levin.KindNotification && m.Command == levin.NotifyResponseChainEntry:
			var e portable.ResponseChainEntry
			if err := portable.Unmarshal(m.Body, &e); err == nil {
				e.TotalHeight += claimed
				m.Body, _ = portable.Marshal(e)
			}
		}
		return m
	}
	p.start()
	syncer := startTestNode(t, testutil.Path(t, "testdata", "regtest", "blockchain.raw"),
		Config{ExclusiveNodes: []string{p.addr()}, ConnectInterval: 50 * time.Millisecond})
	h0, top0, alt0 := storeState(t, syncer)
	eventually(t, 30*time.Second, "the peer to be dropped more than eleven times", func() bool {
		return p.conns.Load() > failsBeforeBan+1
	})
	if _, banned := syncer.node.BannedUntil(netip.MustParseAddr("127.0.0.1"), time.Now()); banned {
		t.Fatal("the endless-chain peer was banned")
	}
	if h, top, alt := storeState(t, syncer); h != h0 || top != top0 || alt != alt0 {
		t.Fatalf("the store changed: height %d→%d, top %s→%s, alt blocks %d→%d", h0, h, top0, top, alt0, alt)
	}
	if syncer.node.Synchronized() {
		t.Error("synchronized with a peer that claims more blocks than it gave")
	}
}
