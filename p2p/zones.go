package p2p

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	mrand "math/rand/v2"
	"net"
	"net/netip"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/gonero/gonero/anonaddr"
	"github.com/gonero/gonero/cryptonote"
	"github.com/gonero/gonero/levin"
	"github.com/gonero/gonero/peerinfo"
	"github.com/gonero/gonero/portable"
	"github.com/gonero/gonero/socks"
	"github.com/gonero/gonero/txpool"
)

// Anonymity zones, as monerod 0.18.5.3 runs them (net_node.inl,
// net_node.cpp, levin_notify.cpp, cryptonote_protocol_handler.inl). A zone
// (Tor, I2P) has its own peer list, its outgoing connections go through a
// SOCKS proxy (--tx-proxy) and its incoming ones come from a hidden service
// forwarding to a local listener (--anonymous-inbound). A zone connection
// carries transactions only: besides the handshake and timed syncs, every
// command is filtered (is_filtered_command: an invoke is answered
// "handler not defined", a notification ignored), no chain is synced over
// it, and nothing the node says there ties it to its public identity: its
// peer id there is 1 and its support flags 0, as every monerod's, it
// announces no port, no RPC port, and peers are never pinged back.
//
// With a --tx-proxy the node's own transactions (sendrawtransaction,
// relay_tx) leave through the zone only, to its outgoing connections, and
// stay private (not in pool complements, not completing fluffy blocks) until
// a block holds them. Transactions that arrive over a zone go to the public
// zone: fluffed at once when they came fluffed, else after monerod's
// forward delay (CRYPTONOTE_FORWARD_DELAY_AVERAGE, Poisson, 22 s on
// average), so that the hidden service that received them is not the
// first to show them.

// ZoneConfig is one anonymity zone.
type ZoneConfig struct {
	Zone anonaddr.Zone
	// Proxy is --tx-proxy's SOCKS proxy; nil when the zone only receives.
	Proxy *socks.Endpoint
	// MaxOut is --tx-proxy's max_connections (-1 or 0: 12,
	// P2P_DEFAULT_CONNECTIONS_COUNT).
	MaxOut int
	// Noise is false with --tx-proxy's disable_noise.
	Noise bool
	// OurAddress is --anonymous-inbound's hidden-service address (Type 0:
	// none), ListenAddr the local address its service forwards to, MaxIn
	// its max_connections (-1 or 0: unlimited).
	OurAddress portable.NetAddress
	ListenAddr string
	MaxIn      int

	// noiseDelay, if not nil, replaces the noise channels' pause (tests).
	noiseDelay func() time.Duration
}

// zonePeerID is the peer id a node gives in every anonymity zone: monerod
// randomises it in the public zone only (config_t's default, 1).
const zonePeerID = 1

// defaultZoneOut is P2P_DEFAULT_CONNECTIONS_COUNT, a zone's outgoing
// connections when --tx-proxy gives no max_connections.
const defaultZoneOut = 12

// forwardDelayAverage is CRYPTONOTE_FORWARD_DELAY_AVERAGE: a transaction
// received over a zone waits this long on average (Poisson) before the
// public zone gets it.
const forwardDelayAverage = 22

// privateUntilMined is the embargo of the node's own transactions sent over
// a zone: none ends before a block holds them.
const privateUntilMined = 100 * 365 * 24 * time.Hour

// ownTx is one of the node's own transactions and the zone connections
// that have it.
type ownTx struct {
	blob []byte
	sent map[*conn]bool
}

// newZones builds the zones of cfg.Zones and moves the Tor and I2P
// addresses of cfg's peer flags to them, with monerod's checks: a zone is
// configured once, a peer in a zone needs that zone's --tx-proxy, and
// --anonymous-inbound needs some --tx-proxy.
func newZones(cfg *Config) ([]*zone, error) {
	var zones []*zone
	byZone := map[anonaddr.Zone]*zone{}
	proxies := 0
	for _, zc := range cfg.Zones {
		if zc.Zone != anonaddr.ZoneTor && zc.Zone != anonaddr.ZoneI2P {
			return nil, fmt.Errorf("p2p: zone %v is not an anonymity zone", zc.Zone)
		}
		if byZone[zc.Zone] != nil {
			return nil, fmt.Errorf("p2p: zone %v configured twice", zc.Zone)
		}
		if zc.OurAddress.Type != 0 && anonaddr.ZoneOf(zc.OurAddress) != zc.Zone {
			return nil, fmt.Errorf("p2p: %v zone: hidden-service address %s is not in it", zc.Zone, zc.OurAddress)
		}
		if zc.Proxy != nil {
			proxies++
		}
		if zc.MaxOut <= 0 {
			zc.MaxOut = defaultZoneOut
		}
		if zc.noiseDelay == nil {
			zc.noiseDelay = func() time.Duration { return noiseMinDelay + randomDuration(noiseDelayRange) }
		}
		z := &zone{id: zc.Zone, cfg: zc, peers: newPeerList(zoneStateFile(cfg.StateFile, zc.Zone)), own: map[cryptonote.Hash]*ownTx{}, dial: socks.Dialer(cfg.Dial),
			forwardDelay: poissonSeconds(forwardDelayAverage, mrand.Float64), capFixed: true, connectTimeout: socks.ConnectTimeout}
		z.maxOut.Store(int64(zc.MaxOut))
		z.maxIn.Store(-1)
		if zc.MaxIn > 0 {
			z.maxIn.Store(int64(zc.MaxIn))
		}
		if zc.Proxy != nil {
			proxy, dial := zc.Proxy, z.dial
			z.connect = func(ctx context.Context, a portable.NetAddress) (net.Conn, error) {
				return proxy.Dial(ctx, dial, a.Host, a.Port)
			}
		}
		z.peers.zone = zc.Zone
		if err := z.peers.load(); err != nil {
			cfg.Logger.Warn("zone peer lists not loaded; starting with empty ones", "zone", zc.Zone, "file", z.peers.file, "err", err)
		}
		byZone[zc.Zone] = z
		zones = append(zones, z)
	}
	for _, z := range zones {
		if z.cfg.ListenAddr != "" && proxies == 0 {
			return nil, errors.New("p2p: --anonymous-inbound needs a --tx-proxy: the node's own transactions must have an anonymity zone to leave through")
		}
	}
	// monerod's zone order (i2p before tor) decides which zone its own
	// transactions take when there are two.
	slices.SortFunc(zones, func(a, b *zone) int { return int(a.cfg.Zone) - int(b.cfg.Zone) })
	split := func(list []string, add func(*zone, portable.NetAddress)) ([]string, error) {
		public := list[:0:0]
		for _, s := range list {
			host := strings.ToLower(s)
			if i := strings.LastIndexByte(host, ':'); i >= 0 && !strings.HasSuffix(host, "]") {
				host = host[:i]
			}
			if !strings.HasSuffix(host, anonaddr.OnionSuffix) && !strings.HasSuffix(host, ".i2p") {
				public = append(public, s)
				continue
			}
			// Without a port, the network's P2P port, as monerod's
			// get_network_address(pr_str, P2P_DEFAULT_PORT).
			a, err := anonaddr.Parse(s, cfg.Chain.Network().P2PPort())
			if err != nil {
				return nil, fmt.Errorf("p2p: peer address %q: %w", s, err)
			}
			z := byZone[anonaddr.ZoneOf(a)]
			if z == nil || z.cfg.Proxy == nil {
				return nil, fmt.Errorf("p2p: peer %s is in the %v zone, which has no --tx-proxy to reach it", s, anonaddr.ZoneOf(a))
			}
			add(z, a)
		}
		return public, nil
	}
	var err error
	if cfg.ExclusiveNodes, err = split(cfg.ExclusiveNodes, func(z *zone, a portable.NetAddress) { z.exclusive = append(z.exclusive, a) }); err != nil {
		return nil, err
	}
	if cfg.PriorityNodes, err = split(cfg.PriorityNodes, func(z *zone, a portable.NetAddress) { z.priority = append(z.priority, a) }); err != nil {
		return nil, err
	}
	// monerod puts --add-peer addresses on the zone's white list, with a
	// random id and never seen.
	if cfg.Peers, err = split(cfg.Peers, func(z *zone, a portable.NetAddress) {
		var b [8]byte
		_, _ = rand.Read(b[:])
		z.peers.addWhite(portable.PeerlistEntry{Address: a, ID: binary.LittleEndian.Uint64(b[:])}, time.Time{})
	}); err != nil {
		return nil, err
	}
	return zones, nil
}

// startZones opens the hidden services' listeners and starts every
// anonymity zone (startZone) with its noise channels, and the forward
// delays of the transactions that arrive over them.
func (n *Node) startZones() error {
	if len(n.zones) > 0 {
		if err := n.loadOwn(); err != nil {
			n.log.Warn("own transactions sent over a zone not read back", "file", n.ownStateFile(), "err", err)
		}
	}
	for _, z := range n.zones {
		if z.cfg.ListenAddr != "" {
			ln, err := net.Listen("tcp", z.cfg.ListenAddr)
			if err != nil {
				return fmt.Errorf("p2p: --anonymous-inbound %s listener: %w", z.cfg.OurAddress, err)
			}
			z.ln = ln
			n.log.Info("anonymity zone listening", "zone", z.id, "address", z.cfg.OurAddress, "bind", ln.Addr())
		}
	}
	if len(n.zones) > 0 {
		n.wg.Add(1)
		go n.forwardLoop()
	}
	for _, z := range n.zones {
		n.startZone(z)
		if z.connect != nil {
			if z.cfg.Noise {
				n.wg.Add(1)
				go n.noiseLoop(z)
			}
			n.log.Info("anonymity zone connecting through a proxy", "zone", z.id, "proxy", z.cfg.Proxy, "max", z.cfg.MaxOut, "noise", z.cfg.Noise)
		}
	}
	return nil
}

// ZoneAddr is the bound address of zone's hidden-service listener (nil
// when it has none).
func (n *Node) ZoneAddr(z anonaddr.Zone) net.Addr {
	for _, zz := range n.zones {
		if zz.cfg.Zone == z && zz.ln != nil {
			return zz.ln.Addr()
		}
	}
	return nil
}

// zoneCandidates lists the white entries, then the grey ones, each in a
// random order, without those that failed within the hour. (The public
// zone's picking spreads over IP subnets, which a zone has none of.)
func (p *peerList) zoneCandidates(now time.Time) []portable.PeerlistEntry {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []portable.PeerlistEntry
	for _, m := range []map[string]*peerRecord{p.white, p.grey} {
		var list []portable.PeerlistEntry
		for k, r := range m {
			if t, ok := p.failedAt[k]; ok && now.Sub(t) < failedAddrForget {
				continue
			}
			list = append(list, r.Entry)
		}
		mrand.Shuffle(len(list), func(i, j int) { list[i], list[j] = list[j], list[i] })
		out = append(out, list...)
	}
	return out
}

// zoneNodeData is what the node says of itself in a zone: the network, and
// nothing of its public identity (get_local_node_data without
// m_can_pingback: no port, no RPC port; the zone's peer id and flags).
func zoneNodeData(networkID [16]byte) portable.NodeData {
	return portable.NodeData{NetworkID: networkID, PeerID: zonePeerID}
}

// zoneSyncData is process_payload_sync_data in a zone: the peer's chain is
// checked and noted, but never synced ("No chain synchronization over
// hidden networks").
func (n *Node) zoneSyncData(c *conn, d portable.CoreSyncData) error {
	if err := n.checkSyncData(d); err != nil {
		return err
	}
	c.mu.Lock()
	c.remoteHeight, c.pruningSeed = d.CurrentHeight, d.PruningSeed
	c.mu.Unlock()
	c.setState(stateNormal)
	return nil
}

// zoneFiltered is is_filtered_command outside the public zone: all but
// the handshake, timed syncs and new transactions.
func zoneFiltered(command uint32) bool {
	switch command {
	case levin.CommandHandshake, levin.CommandTimedSync, levin.NotifyNewTransactions:
		return false
	}
	return true
}

// listFor is the peer list of c's zone.
func (n *Node) listFor(c *conn) *peerList { return c.zoneOf().peers }

// accepts says whether the list keeps an address: one of its zone, a
// public IP for the public zone, a checked lowercase host for Tor and I2P.
func (p *peerList) accepts(a portable.NetAddress) bool {
	zone := p.zone
	if zone == anonaddr.ZoneInvalid {
		zone = anonaddr.ZonePublic
	}
	if anonaddr.ZoneOf(a) != zone {
		return false
	}
	switch a.Type {
	case portable.AddressIPv4, portable.AddressIPv6:
		return reachable(a.IP)
	case portable.AddressTor, portable.AddressI2P:
		canon, ok := anonaddr.Canonical(a)
		return ok && canon == a
	}
	return false
}

// parseSaved reads an address of the state file back, if the list keeps
// it.
func (p *peerList) parseSaved(s string) (portable.NetAddress, bool) {
	if ap, err := netip.ParseAddrPort(s); err == nil {
		a := netAddress(ap)
		return a, p.accepts(a)
	}
	a, err := anonaddr.Parse(s, 0)
	return a, err == nil && p.accepts(a)
}

// zoneStateFile is where a zone's lists are kept: beside the public
// zone's p2pstate.json, as p2pstate-tor.json and p2pstate-i2p.json ("" when
// the public lists are not kept).
func zoneStateFile(public string, z anonaddr.Zone) string {
	if public == "" {
		return ""
	}
	ext := filepath.Ext(public)
	return strings.TrimSuffix(public, ext) + "-" + z.String() + ext
}

// saveState writes every zone's lists and the own transactions sent
// over a zone.
func (n *Node) saveState() error {
	var errs []error
	for _, z := range n.allZones() {
		errs = append(errs, z.peers.save())
	}
	return errors.Join(append(errs, n.saveOwn())...)
}

// mergePeers takes a peer list c's peer sent. In the public zone other
// zones' entries are left out, as gonero always did; in an anonymity zone
// an entry of another zone drops the peer, as monerod's
// handle_remote_peerlist does ("sent peerlist from another zone").
func (n *Node) mergePeers(c *conn, list []portable.PeerlistEntry) error {
	if c.anon == nil {
		public := list[:0:0]
		for _, e := range list {
			if anonaddr.ZoneOf(e.Address) == anonaddr.ZonePublic {
				public = append(public, e)
			}
		}
		n.peers.merge(public, n.now())
		return nil
	}
	keep := make([]portable.PeerlistEntry, 0, len(list))
	for _, e := range list {
		if anonaddr.ZoneOf(e.Address) != c.anon.cfg.Zone {
			return misbehaved(1, "peer list with a %v address in the %v zone", anonaddr.ZoneOf(e.Address), c.anon.cfg.Zone)
		}
		if a, ok := anonaddr.Canonical(e.Address); ok && a != c.anon.cfg.OurAddress {
			e.Address = a
			keep = append(keep, e)
		}
	}
	c.anon.peers.merge(keep, n.now())
	return nil
}

// zonePeersToSend is the white list drawn for a handshake or timed sync
// on c: in a zone, an outgoing connection also carries the node's own
// hidden-service address, at a random place (the peer cannot learn it
// otherwise: the connection reaches it from its own proxy).
func (n *Node) zonePeersToSend(c *conn) []portable.PeerlistEntry {
	if c.anon == nil {
		return n.peers.randomWhite(maxPeersInHandshake)
	}
	z := c.anon
	ours := !c.inbound && z.cfg.OurAddress.Type != 0
	limit := maxPeersInHandshake
	if ours {
		limit--
	}
	list := z.peers.randomWhite(limit)
	if ours {
		i := mrand.IntN(len(list) + 1)
		list = slices.Insert(list, i, portable.PeerlistEntry{Address: z.cfg.OurAddress, ID: zonePeerID})
	}
	return list
}

// forwardQueue holds the transactions received over a zone until their
// forward delay ends.
type forwardQueue struct {
	mu  sync.Mutex // L5 (Node's lock order): the pool only
	due map[cryptonote.Hash]time.Time
}

// forwardFromZone holds transactions that came over a zone without
// dandelionpp_fluff, private, for monerod's forward delay
// (relay_method::forward); forwardLoop then hands them to the public
// zone's Dandelion++. It returns what is left to relay at once: nothing.
func (n *Node) forwardFromZone(z *zone, entries []*txpool.Entry) []*txpool.Entry {
	n.forwards.mu.Lock()
	defer n.forwards.mu.Unlock()
	if n.forwards.due == nil {
		n.forwards.due = map[cryptonote.Hash]time.Time{}
	}
	for _, e := range entries {
		n.pool.MarkStem(e.ID, n.now().Add(privateUntilMined))
		n.forwards.due[e.ID] = n.now().Add(z.forwardDelay())
	}
	return nil
}

// forwardLoop relays, every second, the transactions from a zone whose
// forward delay ended, as monerod's relay_txpool_transactions hands
// relay_method::forward ones to the public zone's dandelionpp_notify: on a
// stem in a stem epoch, fluffed in a fluff epoch. One that became public
// meanwhile (it came fluffed from another peer) or left the pool is
// dropped from the queue.
func (n *Node) forwardLoop() {
	defer n.wg.Done()
	n.every(time.Second, n.forwardDue)
}

// forwardDue is one round of forwardLoop.
func (n *Node) forwardDue() {
	now := n.now()
	var ready []*txpool.Entry
	n.forwards.mu.Lock()
	for id, at := range n.forwards.due {
		if now.Before(at) {
			continue
		}
		delete(n.forwards.due, id)
		if _, private := n.pool.StemPhase(id); !private {
			continue
		}
		if e, ok := n.pool.Get(id); ok {
			ready = append(ready, e)
		}
	}
	n.forwards.mu.Unlock()
	if len(ready) > 0 {
		n.log.Debug("forward delay over: relaying transactions from a zone", "txs", len(ready))
		n.relayStem(ready, nil, false)
	}
}

// ownQueue holds the node's own transactions no zone has taken yet, and
// the ids of all those sent over a zone and not yet mined (private,
// ownprivate.go).
type ownQueue struct {
	mu      sync.Mutex // L4 (Node's lock order): ownTxZone looks at the connections under it
	txs     map[cryptonote.Hash][]byte
	private map[cryptonote.Hash]bool
	dirty   bool
}

// sendOverZone sends one of the node's own transactions over an anonymity
// zone with a --tx-proxy, if there is one (then it reports true, and the
// public zone never gets it from this node). The transaction stays private
// in the pool until a block holds it; while no zone can take it, it waits.
func (n *Node) sendOverZone(e *txpool.Entry) bool {
	proxied := false
	for _, z := range n.zones {
		proxied = proxied || z.cfg.Proxy != nil
	}
	if !proxied {
		return false
	}
	n.pool.MarkStem(e.ID, n.now().Add(privateUntilMined))
	n.unassigned.mu.Lock()
	if n.unassigned.txs == nil {
		n.unassigned.txs = map[cryptonote.Hash][]byte{}
	}
	n.unassigned.txs[e.ID] = e.Blob
	n.unassigned.rememberOwn(e.ID)
	n.unassigned.mu.Unlock()
	n.assignOwn()
	return true
}

// ownTxZone is monerod's send_txs choice for the node's own transactions:
// the only anonymity zone with a proxy; of several, the first (I2P before
// Tor) with noise and both noise channels' connections, else the first
// with an outgoing connection, else none for now.
func (n *Node) ownTxZone() *zone {
	var proxied []*zone
	for _, z := range n.zones {
		if z.cfg.Proxy != nil {
			proxied = append(proxied, z)
		}
	}
	if len(proxied) == 1 {
		return proxied[0]
	}
	outs := func(z *zone) int {
		k := 0
		for _, c := range n.zoneConns(z, true) {
			if c.getState() == stateNormal {
				k++
			}
		}
		return k
	}
	for _, z := range proxied {
		if z.cfg.Noise && outs(z) >= noiseChannels {
			return z
		}
	}
	for _, z := range proxied {
		if outs(z) > 0 {
			return z
		}
	}
	return nil
}

// assignOwn hands the waiting own transactions to the zone ownTxZone
// picks and sends them there.
func (n *Node) assignOwn() {
	n.unassigned.mu.Lock()
	if len(n.unassigned.txs) == 0 {
		n.unassigned.mu.Unlock()
		return
	}
	z := n.ownTxZone()
	if z == nil {
		n.unassigned.mu.Unlock()
		return
	}
	txs := n.unassigned.txs
	n.unassigned.txs = nil
	n.unassigned.mu.Unlock()
	z.mu.Lock()
	for id, blob := range txs {
		if z.own[id] == nil {
			z.own[id] = &ownTx{blob: blob, sent: map[*conn]bool{}}
			n.log.Debug("own transaction queued for the anonymity zone", "zone", z.cfg.Zone, "tx", id)
		}
	}
	z.mu.Unlock()
	n.flushOwn(z)
}

// flushOwn sends the node's own transactions to the zone's handshaken
// outgoing connections that lack them (monerod: "only fluff to outbound
// connections" in a zone), with dandelionpp_fluff set as monerod's
// fluff_notify sends them without noise (disable_noise); those no longer
// in the pool are forgotten. With noise they go to the noise channels.
func (n *Node) flushOwn(z *zone) {
	if z.cfg.Noise { // the noise channels send them (noise.go)
		z.mu.Lock()
		n.queueOwnNoise(z)
		z.mu.Unlock()
		return
	}
	var outs []*conn
	for _, c := range n.zoneConns(z, true) {
		if c.getState() == stateNormal {
			outs = append(outs, c)
		}
	}
	z.mu.Lock()
	defer z.mu.Unlock()
	batches := map[*conn]*portable.NewTransactions{}
	for id, o := range z.own {
		if inPool, _ := n.pool.StemPhase(id); !inPool {
			delete(z.own, id)
			continue
		}
		for c := range o.sent {
			if c.closed() {
				delete(o.sent, c)
			}
		}
		for _, c := range outs {
			if o.sent[c] {
				continue
			}
			o.sent[c] = true
			if batches[c] == nil {
				batches[c] = &portable.NewTransactions{}
			}
			batches[c].Txs = append(batches[c].Txs, o.blob)
		}
	}
	for c, msg := range batches {
		n.padTxs(msg)
		if err := c.notify(levin.NotifyNewTransactions, *msg); err != nil {
			n.dropConn(c, err)
			continue
		}
		n.log.Debug("own transactions sent over the anonymity zone", "zone", z.cfg.Zone, "txs", len(msg.Txs), "to", c)
	}
}

// zonePeerLists are the zones' white and grey lists for /get_peer_list,
// zone after zone (I2P, then Tor) as monerod's get_peerlist appends them,
// each by address.
func (n *Node) zonePeerLists() (white, grey []peerinfo.PeerEntry) {
	for _, z := range n.zones {
		w, g := z.peers.entries(zonePeerEntry)
		byHost := func(a, b peerinfo.PeerEntry) int { return strings.Compare(a.Host, b.Host) }
		slices.SortFunc(w, byHost)
		slices.SortFunc(g, byHost)
		white, grey = append(white, w...), append(grey, g...)
	}
	return white, grey
}

func zonePeerEntry(e portable.PeerlistEntry) peerinfo.PeerEntry {
	return peerinfo.PeerEntry{ID: e.ID, Host: e.Address.String(), LastSeen: e.LastSeen,
		PruningSeed: e.PruningSeed, RPCPort: e.RPCPort, RPCCreditsPerHash: e.RPCCreditsPerHash}
}
