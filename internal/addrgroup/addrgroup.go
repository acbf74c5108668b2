// Package addrgroup says who a client is for the connection limits of the
// node's RPC servers (the HTTP RPC's listeners in httpd, the ZMQ RPC in
// zmqrpc): the address one "IP" is for monerod's per-IP limits, whether it
// is private, the address group the fair sharing counts by and the wider
// prefix a flood's groups lie in (docs/public-node.md). One party easily
// owns many addresses of one network but rarely many networks, so the
// defences count by group, not by address.
package addrgroup

import (
	"net"
	"net/netip"
)

// monerod's per-IP connection limits of its RPC
// (--rpc-max-connections-per-public-ip and -per-private-ip defaults; the
// captures were made on loopback, where the 26th connection was closed at
// once).
const (
	MaxPerPublicHost  = 3
	MaxPerPrivateHost = 25
)

// Remote is a connection's peer address without port, an IPv4-mapped IPv6
// address unmapped so that one client counts once whichever way it reached
// a dual-stack socket; the zero Addr when unknown (all unknown peers then
// share one count, and count as private: they can only come from a
// non-TCP listener, i.e. from this host).
func Remote(c net.Conn) netip.Addr {
	if ta, ok := c.RemoteAddr().(*net.TCPAddr); ok {
		return ta.AddrPort().Addr().Unmap()
	}
	if ap, err := netip.ParseAddrPort(c.RemoteAddr().String()); err == nil {
		return ap.Addr().Unmap()
	}
	return netip.Addr{}
}

// Private mirrors monerod's is_loopback() || is_local(): loopback, the RFC
// 1918 ranges and IPv6 unique-local addresses (netip's IsPrivate), and
// link-local addresses; an unknown (zero) address counts as private.
func Private(ip netip.Addr) bool {
	return !ip.IsValid() || ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast()
}

// Host is what one "IP" is for the per-IP limits: the address itself,
// except that a public IPv6 address counts per /64. monerod counts each
// IPv6 address apart, but one end host usually owns a whole /64 and could
// otherwise open unlimited connections from it.
func Host(ip netip.Addr) netip.Addr {
	if ip.Is6() && !Private(ip) {
		p, _ := ip.Prefix(64)
		return p.Addr()
	}
	return ip
}

// Group is the address group of a host (Host's value): a public IPv4
// address's /24, a public IPv6 address's /64, a private or loopback
// address itself (the machines of one LAN, or of the node's own host, are
// told apart: they are the operator's own).
func Group(host netip.Addr, private bool) netip.Addr {
	if !private && host.Is4() {
		p, _ := host.Prefix(24)
		return p.Addr()
	}
	return host // public IPv6: the host is the /64 already
}

// Prefix is the wider network an address group lies in: the /24 of an
// IPv4 address (private ones too, so that loopback tests see the same
// shape as the Internet) and the /48 of an IPv6 one, a typical single
// site's allocation.
func Prefix(group netip.Addr) netip.Addr {
	if !group.IsValid() {
		return group
	}
	bits := 48
	if group.Is4() {
		bits = 24
	}
	p, _ := group.Prefix(bits)
	return p.Addr()
}
