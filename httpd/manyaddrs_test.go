package httpd

import (
	"net"
	"net/netip"
	"sync/atomic"
	"testing"
)

// remapListener gives the connections it accepts the remote addresses of
// a flood from the Internet, which loopback cannot: a connection from
// 127.0.0.1 (the prompt client) comes from client, and the n-th of the
// others (the flood) from flood(n). The connections stay real TCP ones
// (the socket peeks of the fair slots work on them), only RemoteAddr
// changes, and the limits see nothing else.
type remapListener struct {
	net.Listener
	flood  func(n uint64) netip.Addr
	client netip.Addr

	next  atomic.Uint64           // flood connections accepted
	seen  map[netip.Addr]struct{} // the flood's addresses (Accept's goroutine only)
	count atomic.Int64            // len(seen)
}

type remoteConn struct {
	*net.TCPConn
	remote net.Addr
}

func (c *remoteConn) RemoteAddr() net.Addr { return c.remote }

func (l *remapListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	tc, ok := c.(*net.TCPConn)
	if !ok {
		return c, nil
	}
	ra := tc.RemoteAddr().(*net.TCPAddr)
	ip := l.client
	if !ra.IP.Equal(net.IPv4(127, 0, 0, 1)) {
		ip = l.flood(l.next.Add(1) - 1)
		if l.seen == nil {
			l.seen = make(map[netip.Addr]struct{})
		}
		if _, dup := l.seen[ip]; !dup {
			l.seen[ip] = struct{}{}
			l.count.Add(1)
		}
	}
	return &remoteConn{TCPConn: tc, remote: net.TCPAddrFromAddrPort(netip.AddrPortFrom(ip, uint16(ra.Port)))}, nil
}

// distinct is how many distinct addresses the flood came from.
func (l *remapListener) distinct() int64 { return l.count.Load() }

// TestChurnFlood20000Addresses: the churn flood of
// TestChurnFloodPromptClientServed from 20,000 public IPv4 addresses,
// each in a /24 of its own (20,000 address groups and prefixes, ten
// times issue 33's 2,000): the prompt client, at a public address of its
// own, is served as against 2,000, and nothing the server keeps grows
// with the flood's addresses (checked at each of its requests). The
// flood goes through its addresses in turn, so that every one of them
// connects.
func TestChurnFlood20000Addresses(t *testing.T) {
	if testing.Short() {
		t.Skip("floods loopback for a few seconds")
	}
	const addrs = 20000
	remap := churnPromptClient(t, churnShape{
		addrs: 2000,
		remote: func(n uint64) netip.Addr {
			n %= addrs
			return netip.AddrFrom4([4]byte{11, byte(n >> 8), byte(n), 1})
		},
		client: netip.MustParseAddr("198.51.100.7"),
		warm:   addrs,
	})
	if n := remap.distinct(); n < addrs {
		t.Fatalf("the flood came from %d addresses, not %d", n, addrs)
	}
	t.Logf("the flood came from %d addresses in %d connections", remap.distinct(), remap.next.Load())
}

// TestChurnFloodIPv6Slash48: the churn flood from an IPv6 /48, each
// connection from the next /64 of its 65,536 (every /64 is an address
// group, the /48 is one prefix; the client comes after 20,000 of them):
// the prompt client, at an address of another /48, is served.
func TestChurnFloodIPv6Slash48(t *testing.T) {
	if testing.Short() {
		t.Skip("floods loopback for a few seconds")
	}
	remap := churnPromptClient(t, churnShape{
		addrs: 2000,
		remote: func(n uint64) netip.Addr {
			a := netip.MustParseAddr("2001:db8:f::1").As16()
			a[6], a[7] = byte(n>>8), byte(n) // the /64 within 2001:db8:f::/48
			return netip.AddrFrom16(a)
		},
		client: netip.MustParseAddr("2001:db8:1::7"),
		warm:   20000,
	})
	if n := remap.distinct(); n < 20000 {
		t.Fatalf("the flood came from %d /64s", n)
	}
	t.Logf("the flood came from %d /64s of one /48 in %d connections", remap.distinct(), remap.next.Load())
}
