package p2p

import (
	"context"
	"errors"
	"math"
	"net"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gonero/gonero/params"

	"github.com/gonero/gonero/anonaddr"
	"github.com/gonero/gonero/cryptonote"
	"github.com/gonero/gonero/levin"
	"github.com/gonero/gonero/portable"
	"github.com/gonero/gonero/socks"
)

// zone is one network zone the node takes part in: the public one (IPv4
// and IPv6) or an anonymity zone (Tor, I2P; zones.go). As in monerod's
// network_zone (and Cuprate's NetworkZone), every zone runs the same code:
// one accept loop per listener (acceptLoop), one connect loop
// (connectLoop: makeConnections, dial) with the same outgoing-slot logic;
// what differs between zones is data here: the listeners, how a connection
// is opened, the peer list, the limits, and the few rules that only make
// sense where addresses are IPs (public: bans, per-host limits, subnets,
// peer-id checks).
type zone struct {
	id    anonaddr.Zone
	cfg   ZoneConfig // an anonymity zone's flags (--tx-proxy, --anonymous-inbound); the public zone's Zone only
	peers *peerList
	// exclusive and priority are the zone's --add-exclusive-node and
	// --add-priority-node addresses.
	exclusive, priority []portable.NetAddress
	// ln and ln6 are the zone's listeners: the public zone's IPv4 and
	// IPv6 ones (listen.go), an anonymity zone's hidden-service one in ln.
	ln, ln6 net.Listener
	// connect opens an outgoing connection to a within connectTimeout (nil:
	// the zone does not connect out): the public zone's through
	// Config.Dial (directly or through --proxy), an anonymity zone's
	// through its --tx-proxy.
	connect        func(ctx context.Context, a portable.NetAddress) (net.Conn, error)
	connectTimeout time.Duration
	// maxOut and maxIn are the zone's connection limits (maxIn -1:
	// unlimited); the public zone's follow /out_peers and /in_peers.
	maxOut, maxIn atomic.Int64
	// capFixed: the exclusive and priority nodes count against maxOut (an
	// anonymity zone's); the public zone dials them all, as monerod's
	// connect_to_peerlist.
	capFixed bool

	// Anonymity zones only (zones.go).

	// inbound counts the zone's incoming connections (the public zone
	// counts per host: Node.inbound).
	inbound atomic.Int64
	// dial reaches the zone's proxy (Config.Dial, never through --proxy).
	dial socks.Dialer
	// forwardDelay draws how long a transaction from the zone waits
	// before the public zone gets it.
	forwardDelay func() time.Duration
	seeding      atomic.Bool // a seed is being asked for peers

	// mu guards own and noise: L3 (Node's lock order), above Node.mu,
	// since flushOwn drops a connection that fails while holding it.
	mu    sync.Mutex
	own   map[cryptonote.Hash]*ownTx // the node's own transactions to send here
	noise noiseState                 // the noise channels (noise.go), with Noise
}

// public says whether z is the public zone.
func (z *zone) public() bool { return z.id == anonaddr.ZonePublic }

// newPublicZone is the clearnet zone of cfg: its peer list, its fixed
// nodes (already normalised by New), and Config.Dial (--proxy applied).
func newPublicZone(cfg *Config) (*zone, error) {
	z := &zone{id: anonaddr.ZonePublic, cfg: ZoneConfig{Zone: anonaddr.ZonePublic}, peers: newPeerList(cfg.StateFile),
		connectTimeout: connectTimeout}
	dial := cfg.Dial
	z.connect = func(ctx context.Context, a portable.NetAddress) (net.Conn, error) { return dial(ctx, a.String()) }
	z.maxOut.Store(int64(max(cfg.OutPeers, 0)))
	z.maxIn.Store(int64(cfg.InPeers))
	for _, fixed := range []struct {
		from []string
		to   *[]portable.NetAddress
	}{{cfg.ExclusiveNodes, &z.exclusive}, {cfg.PriorityNodes, &z.priority}} {
		for _, s := range fixed.from {
			ap, err := parseAddr(s)
			if err != nil {
				return nil, err
			}
			*fixed.to = append(*fixed.to, netAddress(ap))
		}
	}
	return z, nil
}

// zones are every zone: the public one, then the anonymity zones.
func (n *Node) allZones() []*zone {
	return append([]*zone{n.public}, n.zones...)
}

// zoneOf is the zone c is in.
func (c *conn) zoneOf() *zone {
	if c.anon != nil {
		return c.anon
	}
	return c.node.public
}

// zoneConns are the zone's connections; outgoing ones when outOnly.
func (n *Node) zoneConns(z *zone, outOnly bool) []*conn {
	n.mu.Lock()
	defer n.mu.Unlock()
	var out []*conn
	for c := range n.conns {
		if c.zoneOf() == z && (!outOnly || !c.inbound) {
			out = append(out, c)
		}
	}
	return out
}

// startZone starts z's accept loops and, when it connects out, its
// connect loop.
func (n *Node) startZone(z *zone) {
	for _, ln := range []net.Listener{z.ln, z.ln6} {
		if ln != nil {
			n.wg.Add(1)
			go n.acceptLoop(z, ln)
		}
	}
	if z.connect != nil {
		n.wg.Add(1)
		go n.connectLoop(z)
	}
}

// closeListeners closes every zone's listeners.
func (n *Node) closeListeners() {
	for _, z := range n.allZones() {
		for _, ln := range []net.Listener{z.ln, z.ln6} {
			if ln != nil {
				_ = ln.Close()
			}
		}
	}
}

// acceptLoop takes the connections of one of z's listeners.
func (n *Node) acceptLoop(z *zone, ln net.Listener) {
	defer n.wg.Done()
	for {
		nc, err := ln.Accept()
		if err != nil {
			if n.ctx.Err() != nil {
				return
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				continue
			}
			n.log.Warn("accept failed", "zone", z.id, "err", err)
			time.Sleep(100 * time.Millisecond)
			continue
		}
		n.accepted.Add(1)
		if z.public() {
			n.acceptPublic(nc)
		} else {
			n.acceptAnon(z, nc)
		}
	}
}

// acceptPublic admits or refuses an incoming public connection
// (admitIncoming).
func (n *Node) acceptPublic(nc net.Conn) {
	ap, _ := netip.ParseAddrPort(nc.RemoteAddr().String())
	addr := netAddress(ap)
	key, reason := n.admitIncoming(ap.Addr())
	if reason != admitted {
		n.refusals.refuse(reason)
		n.log.Debug("incoming connection refused", "addr", addr, "why", reason)
		_ = nc.Close()
		return
	}
	c := newConn(n, nc, true, addr)
	c.limitKey = key
	c.admitted.Store(true)
	n.addConn(c)
}

// acceptAnon takes a connection the hidden service forwards, up to the
// zone's max_connections. Its remote end is unknown: monerod names it
// "<unknown tor host>".
func (n *Node) acceptAnon(z *zone, nc net.Conn) {
	if maxIn := z.maxIn.Load(); maxIn >= 0 && z.inbound.Load() >= maxIn {
		n.log.Debug("incoming zone connection refused: max_connections reached", "zone", z.id)
		_ = nc.Close()
		return
	}
	z.inbound.Add(1)
	c := newConn(n, nc, true, anonaddr.Unknown(z.id))
	c.anon = z
	n.addConn(c)
	n.goTracked(func() {
		<-c.done
		z.inbound.Add(-1)
	})
}

// connectLoop is monerod's connections_maker for z
// (docs/p2p-levin.md §6.6): every ConnectInterval, keep the exclusive (or
// priority) nodes connected and fill the outgoing slots; an anonymity zone
// also sends the node's own transactions. The zone's peer lists are saved every 30
// minutes as well as at shutdown, so a crash loses little.
func (n *Node) connectLoop(z *zone) {
	defer n.wg.Done()
	t := time.NewTicker(n.cfg.ConnectInterval)
	defer t.Stop()
	lastSave := n.now()
	for {
		n.makeConnections(z)
		if !z.public() {
			n.assignOwn()
			n.flushOwn(z)
		}
		if n.cfg.afterConnectRound != nil {
			n.cfg.afterConnectRound(z.id)
		}
		if n.now().Sub(lastSave) >= peerListSaveInterval {
			lastSave = n.now()
			if err := z.peers.saveIfChanged(); err != nil {
				n.log.Warn("saving the peer lists", "zone", z.id, "err", err)
			}
			if !z.public() {
				n.forgetMined()
				if err := n.saveOwn(); err != nil {
					n.log.Warn("saving the own transactions sent over a zone", "err", err)
				}
			}
		}
		select {
		case <-n.ctx.Done():
			return
		case <-t.C:
		}
	}
}

// makeConnections is one round of connectLoop: the exclusive nodes only
// when any zone has some; else a seed when the white list is empty, the
// priority nodes, up to two anchors, then peers from the lists (white,
// then grey) up to the zone's outgoing slots.
func (n *Node) makeConnections(z *zone) {
	// connected: outgoing connections and dials by address; peers: every
	// connection's peer id and host (monerod's is_peer_used); subnets: the
	// IPv4 /24s of every connection, which peer selection spreads over.
	type peerHost struct {
		id uint64
		ip netip.Addr
	}
	connected := map[string]bool{}
	outgoing := map[string]bool{}
	peers := map[peerHost]bool{}
	subnets := map[netip.Prefix]bool{}
	out := 0
	for _, c := range n.zoneConns(z, false) {
		if s, ok := ipv4Subnet(c.addr.IP); ok {
			subnets[s] = true
		}
		c.mu.Lock()
		if c.handshaked {
			peers[peerHost{c.remote.PeerID, c.addr.IP.Unmap()}] = true
		}
		c.mu.Unlock()
		if !c.inbound {
			connected[c.addr.String()] = true
			outgoing[c.addr.String()] = true
			out++
		}
	}
	n.mu.Lock()
	for a := range n.dialing {
		connected[a] = true
		if ap, err := netip.ParseAddrPort(a); err == nil {
			if s, ok := ipv4Subnet(ap.Addr()); ok {
				subnets[s] = true
			}
		}
	}
	n.mu.Unlock()
	maxOut := int(z.maxOut.Load())
	fixedCap := math.MaxInt
	if z.capFixed {
		fixedCap = maxOut
	}
	dialFixed := func(a portable.NetAddress) {
		if k := a.String(); !connected[k] && out < fixedCap {
			n.dial(z, a, time.Time{})
			connected[k] = true
			out++
		}
	}
	if n.exclusive {
		for _, a := range z.exclusive {
			dialFixed(a)
		}
		return
	}
	// monerod asks a seed for peers first whenever its white list is
	// empty (connections_maker).
	askedSeeds := false
	if white, _ := z.peers.sizes(); white == 0 {
		n.askSeeds(z)
		askedSeeds = true
	}
	for _, a := range z.priority {
		dialFixed(a)
	}
	// Only where addresses are IPs: a zone's peers all have peer id 1 and
	// no IP, and it has no bans.
	var skip func(portable.PeerlistEntry) bool
	if z.public() {
		skip = func(e portable.PeerlistEntry) bool {
			return e.ID == n.peerID || peers[peerHost{e.ID, e.Address.IP.Unmap()}] ||
				connected[e.Address.String()] || n.bans.banned(e.Address.IP, n.now()) ||
				!n.cfg.UseIPv6 && e.Address.IP.Unmap().Is6() // monerod connects over IPv4 only without --p2p-use-ipv6
		}
	}
	dialled := 0
	// Below the white share and two outgoing connections, the anchors
	// (the last run's outgoing peers) come first, oldest first_seen
	// first (connections_maker, make_new_connection_from_anchor_peerlist).
	if whiteShare(maxOut, out) > 0 && out < anchorConnections {
		for _, a := range n.takeAnchors(z.peers, out, connected, outgoing, skip) {
			n.dial(z, a.Address, a.FirstSeen)
			connected[a.Address.String()] = true
			if s, ok := ipv4Subnet(a.Address.IP); ok {
				subnets[s] = true
			}
			out++
			dialled++
		}
	}
	for _, e := range n.candidates(z, maxOut, out, subnets, connected, skip) {
		n.dial(z, e.Address, time.Time{})
		connected[e.Address.String()] = true
		dialled++
	}
	if !z.public() {
		return
	}
	// Nothing to dial and slots free: "Failed to connect to any, trying
	// seeds". (monerod dials synchronously and asks the seeds when the
	// round made no connection; gonero dials in the background, so it asks
	// when the round had nothing to try and no dial is still under way,
	// and once a round, where monerod may ask twice.)
	n.mu.Lock()
	inFlight := len(n.dialing)
	n.mu.Unlock()
	if !askedSeeds && dialled == 0 && inFlight == 0 && int64(out) < z.maxOut.Load() {
		n.connectToSeed()
	}
}

// candidates are the list entries to dial for maxOut-out free slots:
// the public zone's spread over IPv4 subnets with monerod's white share
// (peerList.candidates); an anonymity zone's, which has no subnets, the
// white entries, then the grey ones, each in a random order.
func (n *Node) candidates(z *zone, maxOut, out int, subnets map[netip.Prefix]bool, connected map[string]bool, skip func(portable.PeerlistEntry) bool) []portable.PeerlistEntry {
	if z.public() {
		return z.peers.candidates(maxOut-out, whiteShare(maxOut, out), n.now(), subnets, skip)
	}
	var pick []portable.PeerlistEntry
	picked := map[string]bool{}
	for _, e := range z.peers.zoneCandidates(n.now()) {
		if out+len(pick) >= maxOut {
			break
		}
		if k := e.Address.String(); !connected[k] && !picked[k] {
			picked[k] = true
			pick = append(pick, e)
		}
	}
	return pick
}

// askSeeds asks z's seeds for peers: the public zone's synchronously
// (connect_to_seed), an anonymity zone's, on mainnet only, in the
// background, one round at a time.
func (n *Node) askSeeds(z *zone) {
	if z.public() {
		n.connectToSeed()
		return
	}
	if n.chain.Network() != params.Mainnet || !z.seeding.CompareAndSwap(false, true) {
		return
	}
	n.wg.Add(1)
	go func() {
		defer n.wg.Done()
		defer z.seeding.Store(false)
		n.zoneSeeds(z)
	}()
}

// Timeouts of docs/p2p-levin.md §11.
const (
	connectTimeout          = 5 * time.Second
	handshakeInvokeTimeout  = 5 * time.Second
	invokeTimeout           = 2 * time.Minute
	timedSyncInvokeTimeout  = invokeTimeout
	supportFlagsInvokeLimit = handshakeInvokeTimeout
)

// takeAnchors empties a zone's anchor list and returns the anchors to
// dial, up to anchorConnections outgoing connections with out open. As
// monerod's, the list is taken whole: an anchor skipped (banned, an IPv6
// one without --p2p-use-ipv6, connected by another connection, failed
// within the hour) or left over is dropped, and one dialled comes back
// when its handshake completes, so that one whose dial fails is dropped.
// An anchor with an outgoing connection open stays: it is still an
// outgoing peer of this run (monerod empties the list of it too).
func (n *Node) takeAnchors(list *peerList, out int, connected, outgoing map[string]bool, skip func(portable.PeerlistEntry) bool) []anchorRecord {
	var dial, keep []anchorRecord
	for _, a := range list.takeAnchors() {
		k := a.Address.String()
		switch {
		case outgoing[k]:
			keep = append(keep, a)
		case out >= anchorConnections || connected[k] || skip != nil && skip(portable.PeerlistEntry{Address: a.Address, ID: a.ID}) ||
			list.recentlyFailed(k, n.now()):
		default:
			dial = append(dial, a)
			out++
		}
	}
	for _, a := range keep {
		list.addAnchor(a.Address, a.ID, a.FirstSeen)
	}
	return dial
}

// dial connects to a in zone z and handshakes, in the background (since:
// the first_seen of the anchor it is dialled for, else zero). In the
// public zone a banned host, or an IPv6 one without --p2p-use-ipv6, is
// not dialled. A zone's proxy that fails is logged with its reason;
// nothing of an anonymity zone is ever dialled directly.
func (n *Node) dial(z *zone, a portable.NetAddress, since time.Time) {
	if z.public() && (n.bans.banned(a.IP.Unmap(), n.now()) || !n.cfg.UseIPv6 && a.IP.Unmap().Is6()) {
		return
	}
	key := a.String()
	n.mu.Lock()
	if n.dialing[key] || n.closing {
		n.mu.Unlock()
		return
	}
	n.dialing[key] = true
	n.wg.Add(1)
	n.mu.Unlock()
	go func() {
		defer n.wg.Done()
		defer func() {
			n.mu.Lock()
			delete(n.dialing, key)
			n.mu.Unlock()
		}()
		ctx, cancel := context.WithTimeout(n.ctx, z.connectTimeout)
		nc, err := z.connect(ctx, a)
		cancel()
		if err != nil {
			if z.public() {
				n.log.Debug("dial failed", "addr", key, "err", err)
			} else {
				n.log.Info("zone connection failed", "zone", z.id, "addr", key, "err", err)
			}
			z.peers.failed(key, n.now())
			return
		}
		c := newConn(n, nc, false, a)
		if !z.public() {
			c.anon = z
		}
		c.anchorSince = since
		// Large messages are allowed once the handshake is sent (docs/p2p-levin.md §2.4);
		// set before the reading goroutine starts.
		c.rd.Limit = levin.MaxPacketSize
		n.addConn(c)
		if err := n.handshakeOut(c); err != nil {
			n.log.Info("handshake failed", "zone", z.id, "addr", key, "err", err)
			z.peers.failed(key, n.now())
			n.dropConn(c, err)
		}
	}()
}
