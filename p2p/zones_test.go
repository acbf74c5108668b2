package p2p

import (
	"bufio"
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/hex"
	"errors"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gonero/gonero/anonaddr"
	"github.com/gonero/gonero/chaindb"
	"github.com/gonero/gonero/cryptonote"
	"github.com/gonero/gonero/internal/sockstest"
	"github.com/gonero/gonero/internal/testutil"
	"github.com/gonero/gonero/levin"
	"github.com/gonero/gonero/params"
	"github.com/gonero/gonero/portable"
	"github.com/gonero/gonero/socks"
	"github.com/gonero/gonero/txpool"
)

func newOnion(t *testing.T) string {
	pub, _, err := ed25519.GenerateKey(nil)
	if err != nil {
		t.Fatal(err)
	}
	return anonaddr.OnionHost(pub)
}

func listen(t *testing.T) net.Listener {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ln.Close() })
	return ln
}

func acceptRaw(t *testing.T, ln net.Listener) *rawPeer {
	t.Helper()
	_ = ln.(*net.TCPListener).SetDeadline(time.Now().Add(10 * time.Second))
	nc, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = nc.Close() })
	return &rawPeer{t: t, nc: nc, rd: levin.NewReader(bufio.NewReader(nc), levin.MaxPacketSize)}
}

// zoneSetup is a node with a Tor zone, a public outgoing peer, a public
// incoming watcher, and its chain's top for handshakes.
type zoneSetup struct {
	tn         *testNode
	out, w     *rawPeer
	good       []byte
	goodID     cryptonote.Hash
	height     uint64
	top        cryptonote.Hash
	topVersion uint8
}

func (s *zoneSetup) atTop(id uint64) portable.HandshakeRequest {
	hs := goodHandshake(id)
	hs.PayloadData.CurrentHeight, hs.PayloadData.TopID, hs.PayloadData.TopVersion = s.height, s.top, s.topVersion
	return hs
}

func (s *zoneSetup) start(t *testing.T, cfg Config) {
	t.Helper()
	pub := listen(t)
	cfg.MaxConnectionsPerIP, cfg.ConnectInterval = 100, 50*time.Millisecond
	cfg.PriorityNodes = append(cfg.PriorityNodes, pub.Addr().String())
	s.tn = startTestNode(t, testutil.Path(t, "testdata", "regtest", "blockchain.raw"), cfg)
	s.height, s.top = s.tn.chain.Height(), s.tn.chain.Top().Hash
	s.topVersion = params.Regtest.VersionAt(s.height - 1)
	s.good = testutil.WalletTx(t, "2-transfer.jsonl", 14)
	tx, err := cryptonote.ParseTransaction(s.good)
	if err != nil {
		t.Fatal(err)
	}
	s.goodID = tx.ID()
	s.out = acceptRaw(t, pub)
	if m, err := s.out.next(); err != nil || m.Command != levin.CommandHandshake {
		t.Fatalf("expected the node's handshake: %+v %v", m, err)
	}
	hs := s.atTop(61)
	s.out.sendPayloadResponse(levin.CommandHandshake, portable.HandshakeResponse{NodeData: hs.NodeData, PayloadData: hs.PayloadData})
	s.w = dialRaw(t, s.tn.p2pAddr())
	s.w.sendPayload(levin.KindRequest, levin.CommandHandshake, s.atTop(62))
	s.w.expectResponse(levin.CommandHandshake)
	eventually(t, 5*time.Second, "the node to be synchronized with its public peers", func() bool {
		in, out, _, _ := s.tn.node.Counts()
		return in == 1 && out == 1 && s.tn.node.Synchronized()
	})
}

// noTxsBefore checks that the public peers got no transaction before now:
// the watcher's pool complement is empty and the outgoing peer's next
// message is the answer to a timed sync (a transaction queued for it
// earlier would come first).
func (s *zoneSetup) noTxsBefore(t *testing.T) {
	t.Helper()
	s.w.sendPayload(levin.KindNotification, levin.NotifyGetTxpoolComplement, portable.GetTxpoolComplement{})
	var nt portable.NewTransactions
	s.w.expectNotification(levin.NotifyNewTransactions, &nt)
	if len(nt.Txs) != 0 {
		t.Fatalf("the public watcher was offered %d transactions", len(nt.Txs))
	}
	s.out.sendPayload(levin.KindRequest, levin.CommandTimedSync, portable.TimedSyncRequest{PayloadData: s.atTop(61).PayloadData})
	for {
		m, err := s.out.next()
		if err != nil {
			t.Fatal(err)
		}
		if m.Command == levin.NotifyNewTransactions {
			t.Fatal("the public outgoing peer got a transaction")
		}
		if m.Kind == levin.KindResponse && m.Command == levin.CommandTimedSync {
			return
		}
	}
}

func findConn(s *zoneSetup, addrType uint64) (found bool, c portableConn) {
	for _, x := range s.tn.node.Connections() {
		if x.AddressType == addrType {
			return true, portableConn{x.Address, x.Host, x.IP, x.Port, x.PeerID, x.Incoming, x.State}
		}
	}
	return false, portableConn{}
}

type portableConn struct {
	Address, Host, IP, Port, PeerID string
	Incoming                        bool
	State                           string
}

// With --tx-proxy the node's own transaction goes to the zone's peer
// through the SOCKS proxy (user and password), fluffed, and to no public
// peer; it stays private in the pool. The zone handshake shows nothing of
// the node's public identity, and the zone has its own peer list.
func TestZoneOwnTransactionLeavesOnlyThroughTheZone(t *testing.T) {
	proxy, err := sockstest.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(proxy.Close)
	proxy.User, proxy.Pass = "alice", "s3cret"
	hidden := listen(t)
	onion, gossiped := newOnion(t), newOnion(t)
	proxy.Route(onion, hidden.Addr().String())
	ep, err := socks.ParseEndpoint("socks5://alice:s3cret@" + proxy.Addr())
	if err != nil {
		t.Fatal(err)
	}
	s := &zoneSetup{}
	s.start(t, Config{Peers: []string{onion + ":18083"}, MyPort: 18080,
		Zones: []ZoneConfig{{Zone: anonaddr.ZoneTor, Proxy: &ep, MaxOut: 1}}})

	zp := acceptRaw(t, hidden)
	m, err := zp.next()
	if err != nil || m.Kind != levin.KindRequest || m.Command != levin.CommandHandshake {
		t.Fatalf("expected a handshake over the zone: %+v %v", m, err)
	}
	var req portable.HandshakeRequest
	if err := portable.Unmarshal(m.Body, &req); err != nil {
		t.Fatal(err)
	}
	want := portable.NodeData{NetworkID: params.Regtest.NetworkID(), PeerID: 1}
	if req.NodeData != want {
		t.Fatalf("zone handshake node data %+v, want %+v (no port, peer id 1, no flags)", req.NodeData, want)
	}
	if got := proxy.Asked(); len(got) != 1 || got[0] != onion+":18083" {
		t.Fatalf("the proxy was asked for %v", got)
	}
	hs := s.atTop(1)
	zp.sendPayloadResponse(levin.CommandHandshake, portable.HandshakeResponse{NodeData: hs.NodeData, PayloadData: hs.PayloadData,
		LocalPeerlist: []portable.PeerlistEntry{{Address: portable.NetAddress{Type: portable.AddressTor, Host: strings.ToUpper(gossiped), Port: 18083}, ID: 9}}})
	eventually(t, 5*time.Second, "the zone connection in get_connections", func() bool {
		ok, c := findConn(s, uint64(portable.AddressTor))
		return ok && c.State == "normal"
	})
	_, c := findConn(s, uint64(portable.AddressTor))
	if want := (portableConn{onion + ":18083", onion, "", "", "0000000000000001", false, "normal"}); c != want {
		t.Fatalf("get_connections: %+v, want %+v", c, want)
	}
	// The zone's lists: the peer dialled (white), the one it gossiped
	// (grey, lowercased); the public lists have neither.
	white, grey := s.tn.node.PeerLists()
	var zw, zg []string
	for _, e := range white {
		if e.Host != "" {
			zw = append(zw, e.Host)
		}
	}
	for _, e := range grey {
		if e.Host != "" {
			zg = append(zg, e.Host)
		}
	}
	if len(zw) != 1 || zw[0] != onion+":18083" || len(zg) != 1 || zg[0] != gossiped+":18083" {
		t.Fatalf("zone peer lists: white %v, grey %v", zw, zg)
	}

	if _, err := s.tn.node.pool.Add(s.good, txpool.AddOptions{Source: txpool.SourceRPC}); err != nil {
		t.Fatal(err)
	}
	var nt portable.NewTransactions
	zp.expectNotification(levin.NotifyNewTransactions, &nt)
	if len(nt.Txs) != 1 || !bytes.Equal(nt.Txs[0], s.good) || nt.Stem {
		t.Fatalf("the zone peer got %d transactions (stem %v), want the node's own, fluffed", len(nt.Txs), nt.Stem)
	}
	if in, private := s.tn.node.pool.StemPhase(s.goodID); !in || !private {
		t.Fatalf("pool: has %v, private %v", in, private)
	}
	s.noTxsBefore(t)

	// A zone peer asking for anything but transactions, timed syncs and
	// handshakes is told "handler not defined" (ping) or ignored (a chain
	// request): the connection stays.
	zp.sendPayload(levin.KindRequest, levin.CommandPing, portable.PingRequest{})
	if r := zp.expectResponse(levin.CommandPing); r.ReturnCode != levin.ReturnErrHandlerNotDefined {
		t.Fatalf("ping over the zone answered %d", r.ReturnCode)
	}
	zp.sendPayload(levin.KindNotification, levin.NotifyRequestChain, portable.RequestChain{})
	zp.sendPayload(levin.KindRequest, levin.CommandTimedSync, portable.TimedSyncRequest{PayloadData: hs.PayloadData})
	r := zp.expectResponse(levin.CommandTimedSync)
	var ts portable.TimedSyncResponse
	if err := portable.Unmarshal(r.Body, &ts); err != nil {
		t.Fatal(err)
	}
	for _, e := range ts.LocalPeerlist {
		if anonaddr.ZoneOf(e.Address) != anonaddr.ZoneTor {
			t.Fatalf("the zone peer was sent a %v address", e.Address)
		}
	}
}

// The hidden-service side (--anonymous-inbound): a peer coming through it
// is "<unknown tor host>", gets the zone's identity, and the transactions
// it sends on a stem reach the public zone only after the forward delay
// (until then private), through Dandelion++.
func TestZoneInboundTransactions(t *testing.T) {
	ep, _ := socks.ParseEndpoint("127.0.0.1:9") // never used: no zone peer to dial
	ours := newOnion(t)
	s := &zoneSetup{}
	s.start(t, Config{TimedSyncInterval: 100 * time.Millisecond, Zones: []ZoneConfig{{Zone: anonaddr.ZoneTor, Proxy: &ep,
		OurAddress: portable.NetAddress{Type: portable.AddressTor, Host: ours, Port: 18083}, ListenAddr: "127.0.0.1:0"}}})
	zp := dialRaw(t, s.tn.node.ZoneAddr(anonaddr.ZoneTor).String())
	hs := s.atTop(1)
	hs.NodeData.SupportFlags, hs.NodeData.MyPort = 0, 0
	zp.sendPayload(levin.KindRequest, levin.CommandHandshake, hs)
	m := zp.expectResponse(levin.CommandHandshake)
	var resp portable.HandshakeResponse
	if err := portable.Unmarshal(m.Body, &resp); err != nil {
		t.Fatal(err)
	}
	if want := (portable.NodeData{NetworkID: params.Regtest.NetworkID(), PeerID: 1}); resp.NodeData != want {
		t.Fatalf("node data %+v, want %+v", resp.NodeData, want)
	}
	if len(resp.LocalPeerlist) != 0 {
		t.Fatalf("an incoming zone peer was sent peers %v (the own address goes to outgoing ones only)", resp.LocalPeerlist)
	}
	_, c := findConn(s, uint64(portable.AddressTor))
	if want := (portableConn{"<unknown tor host>", "<unknown tor host>", "", "", "0000000000000001", true, "normal"}); c != want {
		t.Fatalf("get_connections: %+v, want %+v", c, want)
	}
	// Timed syncs run in the zone too (peer_sync_idle_maker).
	for {
		m, err := zp.next()
		if err != nil {
			t.Fatalf("waiting for a timed sync over the zone: %v", err)
		}
		if m.Kind == levin.KindRequest && m.Command == levin.CommandTimedSync {
			zp.sendPayloadResponse(levin.CommandTimedSync, portable.TimedSyncResponse{PayloadData: hs.PayloadData})
			break
		}
	}

	// On a stem: kept private for the forward delay.
	s.tn.node.zones[0].forwardDelay = func() time.Duration { return time.Hour }
	zp.sendPayload(levin.KindNotification, levin.NotifyNewTransactions, portable.NewTransactions{Txs: [][]byte{s.good}, Stem: true})
	// The pool takes the transaction before the zone's handler marks it
	// private (MarkStem), so wait for both: a transaction made public at
	// once never becomes private, and this fails.
	eventually(t, 30*time.Second, "the zone's transaction in the pool, private", func() bool {
		in, private := s.tn.node.pool.StemPhase(s.goodID)
		return in && private
	})
	s.noTxsBefore(t)
	// When its delay ends it goes to the public zone's Dandelion++: the
	// outgoing peer (the only stem candidate) gets it, on a stem or, in a
	// fluff epoch, fluffed.
	s.tn.node.forwards.mu.Lock()
	s.tn.node.forwards.due[s.goodID] = time.Now()
	s.tn.node.forwards.mu.Unlock()
	var nt portable.NewTransactions
	s.out.expectNotification(levin.NotifyNewTransactions, &nt)
	if len(nt.Txs) != 1 || !bytes.Equal(nt.Txs[0], s.good) {
		t.Fatalf("the public outgoing peer got %d transactions, want the zone's", len(nt.Txs))
	}
}

// A proxy that refuses leaves the zone without connections: the node's
// own transaction waits, private, and no public peer gets it; the proxy
// was asked, and nothing was dialled directly.
func TestZoneProxyRefusesNoFallback(t *testing.T) {
	proxy, err := sockstest.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(proxy.Close)
	onion := newOnion(t) // no route: the proxy refuses it
	ep, _ := socks.ParseEndpoint("socks5://" + proxy.Addr())
	var dialled []string
	var mu sync.Mutex
	s := &zoneSetup{}
	s.start(t, Config{PriorityNodes: []string{onion + ":18083"},
		Dial: func(ctx context.Context, addr string) (net.Conn, error) {
			mu.Lock()
			dialled = append(dialled, addr)
			mu.Unlock()
			var d net.Dialer
			return d.DialContext(ctx, "tcp", addr)
		},
		Zones: []ZoneConfig{{Zone: anonaddr.ZoneTor, Proxy: &ep}}})
	eventually(t, 5*time.Second, "the proxy to be asked for the onion", func() bool {
		return slices.Contains(proxy.Asked(), onion+":18083")
	})
	if _, err := s.tn.node.pool.Add(s.good, txpool.AddOptions{Source: txpool.SourceRPC}); err != nil {
		t.Fatal(err)
	}
	if in, private := s.tn.node.pool.StemPhase(s.goodID); !in || !private {
		t.Fatalf("pool: has %v, private %v", in, private)
	}
	s.noTxsBefore(t)
	if ok, c := findConn(s, uint64(portable.AddressTor)); ok {
		t.Fatalf("a zone connection without the proxy: %+v", c)
	}
	mu.Lock()
	defer mu.Unlock()
	for _, a := range dialled {
		if a != proxy.Addr() && !strings.HasPrefix(a, "127.0.0.1:") {
			t.Fatalf("dialled %s", a)
		}
		if strings.Contains(a, "onion") {
			t.Fatalf("dialled the onion directly: %s", a)
		}
	}
}

// --proxy: public peers are reached through the SOCKS proxy, and the node
// announces no port (monerod's m_can_pingback false).
func TestProxyCarriesPublicConnections(t *testing.T) {
	proxy, err := sockstest.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(proxy.Close)
	pub := listen(t)
	proxy.Route(pub.Addr().String(), pub.Addr().String())
	ep, _ := socks.ParseEndpoint("socks5://" + proxy.Addr())
	tn := startTestNode(t, "", Config{MaxConnectionsPerIP: 100, ConnectInterval: 50 * time.Millisecond, MyPort: 18080,
		PriorityNodes: []string{pub.Addr().String()}, Proxy: &ep})
	p := acceptRaw(t, pub)
	m, err := p.next()
	if err != nil || m.Command != levin.CommandHandshake {
		t.Fatalf("%+v %v", m, err)
	}
	var req portable.HandshakeRequest
	if err := portable.Unmarshal(m.Body, &req); err != nil {
		t.Fatal(err)
	}
	if req.NodeData.MyPort != 0 || req.NodeData.PeerID != tn.node.PeerID() {
		t.Fatalf("handshake through --proxy: %+v", req.NodeData)
	}
	if got := proxy.Asked(); !slices.Equal(got, []string{pub.Addr().String()}) {
		t.Fatalf("the proxy was asked for %v", got)
	}
}

// A zone's lists are kept in their own file and read back; an address of
// another zone in it is not taken.
func TestZonePeerListsKept(t *testing.T) {
	file := zoneStateFile(t.TempDir()+"/p2pstate.json", anonaddr.ZoneTor)
	if !strings.HasSuffix(file, "/p2pstate-tor.json") {
		t.Fatalf("file %s", file)
	}
	onion, i2p := newOnion(t), "uqj3aphckqtjsitz7kxx5flqpwjlq5ppr3chazfued7xucv3nheq.b32.i2p"
	p := newPeerList(file)
	p.zone = anonaddr.ZoneTor
	now := time.Unix(1_800_000_000, 0)
	p.addWhite(portable.PeerlistEntry{Address: portable.NetAddress{Type: portable.AddressTor, Host: onion, Port: 18083}, ID: 5}, now)
	p.addWhite(portable.PeerlistEntry{Address: portable.NetAddress{Type: portable.AddressI2P, Host: i2p, Port: 1}, ID: 6}, now)
	p.addWhite(portable.PeerlistEntry{Address: portable.NetAddress{Type: portable.AddressIPv4, IP: netip.MustParseAddr("8.8.8.8"), Port: 1}, ID: 7}, now)
	p.merge([]portable.PeerlistEntry{{Address: portable.NetAddress{Type: portable.AddressTor, Host: newOnion(t), Port: 1}, ID: 8}}, now)
	if w, g := p.sizes(); w != 1 || g != 1 {
		t.Fatalf("white %d, grey %d: only Tor addresses belong", w, g)
	}
	if err := p.save(); err != nil {
		t.Fatal(err)
	}
	q := newPeerList(file)
	q.zone = anonaddr.ZoneTor
	if err := q.load(); err != nil {
		t.Fatal(err)
	}
	if w, g := q.sizes(); w != 1 || g != 1 || q.white[onion+":18083"] == nil || q.white[onion+":18083"].Entry.ID != 5 {
		t.Fatalf("read back: white %d grey %d %+v", w, g, q.white)
	}
	pub := newPeerList(file) // the public zone takes none of them
	if err := pub.load(); err != nil {
		t.Fatal(err)
	}
	if w, g := pub.sizes(); w != 0 || g != 0 {
		t.Fatalf("the public list took %d white and %d grey Tor entries", w, g)
	}
}

// On mainnet a zone with an empty white list asks one of monerod's seeds
// of the zone for peers, through the proxy, and keeps what it sends in
// the zone's grey list; nothing is dialled directly (the public zone has
// no seeds here: BuiltinSeeds is empty, and a lookup would fail the test).
func TestZoneSeedsOnMainnet(t *testing.T) {
	proxy, err := sockstest.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(proxy.Close)
	seed := listen(t)
	for _, s := range zoneSeedNodes[anonaddr.ZoneTor] {
		proxy.Route(strings.TrimSuffix(s, ":18083"), seed.Addr().String())
	}
	ep, _ := socks.ParseEndpoint(proxy.Addr())
	var mu sync.Mutex
	var dialled []string
	n := startNode(t, Config{Chain: newNetChain(t, params.Mainnet), ConnectInterval: 50 * time.Millisecond,
		LookupHost: func(_ context.Context, host string) ([]string, error) {
			t.Errorf("looked up %s", host)
			return nil, errors.New("no lookups here")
		},
		Dial: func(ctx context.Context, addr string) (net.Conn, error) {
			mu.Lock()
			dialled = append(dialled, addr)
			mu.Unlock()
			var d net.Dialer
			return d.DialContext(ctx, "tcp", addr)
		},
		Zones: []ZoneConfig{{Zone: anonaddr.ZoneTor, Proxy: &ep}}})
	p := acceptRaw(t, seed)
	m, err := p.next()
	if err != nil || m.Command != levin.CommandHandshake {
		t.Fatalf("%+v %v", m, err)
	}
	gossiped := newOnion(t)
	p.sendPayloadResponse(levin.CommandHandshake, portable.HandshakeResponse{
		NodeData:      portable.NodeData{NetworkID: params.Mainnet.NetworkID(), PeerID: 1},
		PayloadData:   portable.CoreSyncData{CurrentHeight: 1, TopID: params.Mainnet.GenesisID(), TopVersion: 1},
		LocalPeerlist: []portable.PeerlistEntry{{Address: portable.NetAddress{Type: portable.AddressTor, Host: gossiped, Port: 18083}, ID: 3}}})
	p.expectClosed("the seed connection to close after its peer list")
	eventually(t, 5*time.Second, "the seed's peer in the zone's grey list", func() bool {
		_, grey := n.PeerLists()
		return len(grey) == 1 && grey[0].Host == gossiped+":18083"
	})
	asked := proxy.Asked()
	if len(asked) == 0 || !slices.Contains(zoneSeedNodes[anonaddr.ZoneTor], asked[0]) {
		t.Fatalf("the proxy was asked for %v", asked)
	}
	mu.Lock()
	defer mu.Unlock()
	for _, a := range dialled {
		if a != proxy.Addr() {
			t.Fatalf("dialled %s directly", a)
		}
	}
}

// A zone peer given without a port gets the network's P2P port, as
// monerod's flags give it (testnet: 28080).
func TestZonePeerDefaultPort(t *testing.T) {
	ep, _ := socks.ParseEndpoint("127.0.0.1:9")
	onion := newOnion(t)
	n, err := New(Config{Chain: newNetChain(t, params.Testnet), Offline: true, Peers: []string{onion, "1.2.3.4:5"},
		Zones: []ZoneConfig{{Zone: anonaddr.ZoneTor, Proxy: &ep}}})
	if err != nil {
		t.Fatal(err)
	}
	white, _ := n.PeerLists()
	var hosts []string
	for _, e := range white {
		hosts = append(hosts, e.Host)
	}
	if !slices.Equal(hosts, []string{"", onion + ":28080"}) {
		t.Fatalf("white list hosts %q", hosts)
	}
}

// The node's own transactions sent over a zone stay private across a
// restart: their ids are kept, and after the pool reloads them (as public
// ones) they are still not offered to clearnet peers and go over the zone
// again.
func TestZoneOwnTransactionsPrivateAcrossRestart(t *testing.T) {
	state := filepath.Join(t.TempDir(), "p2pstate.json")
	proxy, err := sockstest.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(proxy.Close)
	ep, _ := socks.ParseEndpoint(proxy.Addr())
	first := &zoneSetup{}
	first.start(t, Config{StateFile: state, Zones: []ZoneConfig{{Zone: anonaddr.ZoneTor, Proxy: &ep}}})
	if _, err := first.tn.node.pool.Add(first.good, txpool.AddOptions{Source: txpool.SourceRPC}); err != nil {
		t.Fatal(err)
	}
	if err := first.tn.node.saveOwn(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(filepath.Dir(state), "p2pstate-own.json"))
	if err != nil || string(b) != `["`+hex.EncodeToString(first.goodID[:])+`"]` {
		t.Fatalf("kept ids %s %v", b, err)
	}

	// The restart: a pool that reloaded the transaction as public.
	hidden := listen(t)
	onion := newOnion(t)
	proxy.Route(onion, hidden.Addr().String())
	s := &zoneSetup{}
	s.start(t, Config{StateFile: state, PriorityNodes: []string{onion + ":18083"},
		Zones: []ZoneConfig{{Zone: anonaddr.ZoneTor, Proxy: &ep}}})
	if kept := s.tn.node.pool.Load([]chaindb.PoolTxRecord{{Hash: s.goodID, Blob: s.good, Received: uint64(time.Now().Unix())}}); kept != 1 {
		t.Fatalf("pool reloaded %d", kept)
	}
	if _, ok := s.tn.node.pool.Public(s.goodID); !ok {
		t.Fatal("the reloaded transaction is not public in the pool: the test shows nothing")
	}
	if err := s.tn.node.loadOwn(); err != nil { // as Start does, after the pool's Load
		t.Fatal(err)
	}
	s.noTxsBefore(t)
	zp := acceptRaw(t, hidden)
	if m, err := zp.next(); err != nil || m.Command != levin.CommandHandshake {
		t.Fatalf("%+v %v", m, err)
	}
	hs := s.atTop(1)
	zp.sendPayloadResponse(levin.CommandHandshake, portable.HandshakeResponse{NodeData: hs.NodeData, PayloadData: hs.PayloadData})
	var nt portable.NewTransactions
	zp.expectNotification(levin.NotifyNewTransactions, &nt)
	if len(nt.Txs) != 1 || !bytes.Equal(nt.Txs[0], s.good) {
		t.Fatalf("the zone peer got %d transactions, want the kept one", len(nt.Txs))
	}
	s.noTxsBefore(t)
}
