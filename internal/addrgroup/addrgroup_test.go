package addrgroup

import (
	"net"
	"net/netip"
	"testing"
)

// TestKeys: hosts, groups and prefixes of public, private, loopback,
// link-local and IPv4-mapped addresses, as the HTTP RPC's limits have
// counted them (docs/public-node.md).
func TestKeys(t *testing.T) {
	for _, tc := range []struct {
		ip                    string
		private               bool
		host, group, prefixOf string
	}{
		{"8.8.8.77", false, "8.8.8.77", "8.8.8.0", "8.8.8.0"},
		{"127.0.0.2", true, "127.0.0.2", "127.0.0.2", "127.0.0.0"},
		{"192.168.1.7", true, "192.168.1.7", "192.168.1.7", "192.168.1.0"},
		{"10.1.2.3", true, "10.1.2.3", "10.1.2.3", "10.1.2.0"},
		{"169.254.0.9", true, "169.254.0.9", "169.254.0.9", "169.254.0.0"},
		{"2001:db8:1:2:aaaa::1", false, "2001:db8:1:2::", "2001:db8:1:2::", "2001:db8:1::"},
		{"fd00::1", true, "fd00::1", "fd00::1", "fd00::"},
		{"::1", true, "::1", "::1", "::"},
		{"fe80::1", true, "fe80::1", "fe80::1", "fe80::"},
		// RFC 1918's 172.16/12 ends at 172.31
		{"172.16.0.9", true, "172.16.0.9", "172.16.0.9", "172.16.0.0"},
		{"172.32.0.1", false, "172.32.0.1", "172.32.0.0", "172.32.0.0"},
		// another address of the same public /64 is the same host; the next /64 another
		{"2001:db8:1:2:bbbb::7", false, "2001:db8:1:2::", "2001:db8:1:2::", "2001:db8:1::"},
		{"2001:db8:1:3::1", false, "2001:db8:1:3::", "2001:db8:1:3::", "2001:db8:1::"},
	} {
		ip := netip.MustParseAddr(tc.ip)
		h := Host(ip)
		g := Group(h, Private(ip))
		if Private(ip) != tc.private || h.String() != tc.host || g.String() != tc.group || Prefix(g).String() != tc.prefixOf {
			t.Errorf("%s: private %v host %s group %s prefix %s; want %v %s %s %s", tc.ip, Private(ip), h, g, Prefix(g),
				tc.private, tc.host, tc.group, tc.prefixOf)
		}
	}
	if !Private(netip.Addr{}) || Prefix(netip.Addr{}).IsValid() {
		t.Error("an unknown address is not private, or has a prefix")
	}
}

// TestRemote: a TCP peer's address, IPv4-mapped unmapped.
func TestRemote(t *testing.T) {
	for _, tc := range []struct{ addr, want string }{
		{"[::ffff:8.8.4.4]:80", "8.8.4.4"},
		{"[2001:db8::5]:18082", "2001:db8::5"},
		{"127.0.0.3:1", "127.0.0.3"},
	} {
		c := connOf(fakeConn{net.TCPAddrFromAddrPort(netip.MustParseAddrPort(tc.addr))})
		if got := Remote(c); got.String() != tc.want {
			t.Errorf("%s: %s, want %s", tc.addr, got, tc.want)
		}
	}
	if Remote(connOf(fakeConn{&net.UnixAddr{Name: "@x", Net: "unix"}})).IsValid() {
		t.Error("a unix socket's peer has an address")
	}
}

// fakeConn is a connection with only a peer address.
type fakeConn struct{ remote net.Addr }

func (c fakeConn) RemoteAddr() net.Addr { return c.remote }

// conn embeds net.Conn so that fakeConn's one method makes a net.Conn.
type conn struct {
	net.Conn
	f fakeConn
}

func (c conn) RemoteAddr() net.Addr { return c.f.RemoteAddr() }

func connOf(f fakeConn) net.Conn { return conn{f: f} }
