package p2p

import (
	"bytes"
	"net/netip"
	"slices"
	"time"

	"github.com/gonero/gonero/peerinfo"
	"github.com/gonero/gonero/portable"
)

// The operator's controls the RPC reaches through rpc.Peers: the peer
// lists, the ban list, the connection limits and the traffic counters
// (monerod's node_server calls behind /get_peer_list, set_bans, /out_peers,
// /get_net_stats, ...).

// PeerLists implements rpc.Peers: the white and grey lists in monerod's
// by-address order. A white entry's last_seen is when the node last met the
// peer; a grey entry's is what was learned with it (0 from peers, which
// monerod zeroes too).
func (n *Node) PeerLists() (white, grey []peerinfo.PeerEntry) {
	white, grey = n.peers.entries(peerEntry)
	slices.SortFunc(white, comparePeerAddrs)
	slices.SortFunc(grey, comparePeerAddrs)
	zw, zg := n.zonePeerLists()
	return append(white, zw...), append(grey, zg...)
}

func peerEntry(e portable.PeerlistEntry) peerinfo.PeerEntry {
	return peerinfo.PeerEntry{ID: e.ID, Addr: netip.AddrPortFrom(e.Address.IP, e.Address.Port), LastSeen: e.LastSeen,
		PruningSeed: e.PruningSeed, RPCPort: e.RPCPort, RPCCreditsPerHash: e.RPCCreditsPerHash}
}

// comparePeerAddrs is epee's network_address ordering: IPv4 before IPv6;
// IPv4 hosts by their address as monerod holds it (a uint32 in network
// byte order read on a little-endian machine: the last octet weighs most),
// IPv6 hosts by their bytes; the same host by port.
func comparePeerAddrs(a, b peerinfo.PeerEntry) int {
	x, y := a.Addr.Addr().Unmap(), b.Addr.Addr().Unmap()
	if x.Is4() != y.Is4() {
		if x.Is4() {
			return -1
		}
		return 1
	}
	if x != y {
		if x.Is4() {
			return cmpUint(ipv4LE(x), ipv4LE(y))
		}
		xb, yb := x.As16(), y.As16()
		return bytes.Compare(xb[:], yb[:])
	}
	return cmpUint(uint32(a.Addr.Port()), uint32(b.Addr.Port()))
}

func ipv4LE(a netip.Addr) uint32 {
	b := a.As4()
	return uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24
}

func cmpUint(a, b uint32) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// Bans implements rpc.Peers: the hosts banned at now (for misbehaviour or
// by the operator), then the subnets.
func (n *Node) Bans(now time.Time) []peerinfo.Ban {
	hosts, subnets := n.bans.active(now)
	byText := func(a, b peerinfo.Ban) int {
		switch x, y := banHost(a.Prefix), banHost(b.Prefix); {
		case x < y:
			return -1
		case x > y:
			return 1
		}
		return 0
	}
	// monerod keeps its hosts in a map keyed by their text.
	slices.SortFunc(hosts, byText)
	slices.SortFunc(subnets, func(a, b peerinfo.Ban) int {
		if c := cmpUint(ipv4LE(a.Prefix.Addr()), ipv4LE(b.Prefix.Addr())); c != 0 {
			return c
		}
		return a.Prefix.Bits() - b.Prefix.Bits()
	})
	return append(hosts, subnets...)
}

func banHost(p netip.Prefix) string {
	if p.IsSingleIP() {
		return p.Addr().String()
	}
	return p.String()
}

// Ban implements rpc.Peers. A host's (or subnet's) connections are closed
// and its peer-list entries dropped, as monerod's block_host and
// block_subnet do.
func (n *Node) Ban(p netip.Prefix, until time.Time) { n.ban(p, until) }

// ban is Ban, returning the number of connections it dropped.
func (n *Node) ban(p netip.Prefix, until time.Time) (dropped int) {
	p = netip.PrefixFrom(p.Addr().Unmap(), p.Bits()).Masked()
	host := p.IsSingleIP()
	if host {
		p = banKey(p.Addr())
	}
	n.bans.set(p, until)
	return n.evictBanned(p)
}

// evictBanned closes the connections of a host or subnet the operator
// just banned and drops its peer-list entries (monerod's block_host for an
// address without a port, and block_subnet). It returns the number of
// connections it closed.
func (n *Node) evictBanned(p netip.Prefix) (dropped int) {
	dropped = n.closeConnsOf(p)
	n.evictPeers(func(a portable.NetAddress) bool { return p.Contains(a.IP.Unmap()) })
	return dropped
}

// closeConnsOf closes every connection from or to a host of p.
func (n *Node) closeConnsOf(p netip.Prefix) (closed int) {
	for _, c := range n.connections() {
		if p.Contains(c.addr.IP.Unmap()) {
			n.dropConn(c, ErrClosed)
			closed++
		}
	}
	return closed
}

// evictPeers drops the white, grey and anchor peer-list entries whose
// address matches (block_host's remove_from_peer_white, _gray, _anchor).
func (n *Node) evictPeers(match func(portable.NetAddress) bool) { n.peers.evict(match) }

// Unban implements rpc.Peers.
func (n *Node) Unban(p netip.Prefix) {
	n.bans.lift(netip.PrefixFrom(p.Addr().Unmap(), p.Bits()).Masked())
}

// BannedUntil implements rpc.Peers.
func (n *Node) BannedUntil(ip netip.Addr, now time.Time) (time.Time, bool) {
	return n.bans.bannedUntil(ip, now)
}

// MaxPeers implements rpc.Peers.
func (n *Node) MaxPeers() (out, in int64) { return n.public.maxOut.Load(), n.public.maxIn.Load() }

// SetMaxPeers implements rpc.Peers: like monerod's
// change_max_{out,in}_public_peers, lowering a limit closes connections
// of that direction until it holds.
func (n *Node) SetMaxPeers(out, in int64) {
	if out >= 0 {
		n.public.maxOut.Store(out)
	}
	if in >= 0 {
		n.public.maxIn.Store(in)
	}
	var nOut, nIn int64
	for _, c := range n.connections() {
		switch {
		case c.ping:
		case c.inbound:
			if nIn++; in >= 0 && nIn > in {
				n.dropConn(c, ErrClosed)
			}
		default:
			if nOut++; out >= 0 && nOut > out {
				n.dropConn(c, ErrClosed)
			}
		}
	}
}

// Traffic implements rpc.Peers.
func (n *Node) Traffic() (packetsIn, bytesIn, packetsOut, bytesOut uint64) {
	t := &n.traffic
	return t.packetsIn.Load(), t.bytesIn.Load(), t.packetsOut.Load(), t.bytesOut.Load()
}
