package p2p

import (
	"bufio"
	"net"
	"net/netip"
	"strconv"
	"testing"
	"time"

	"github.com/gonero/gonero/internal/monerodlab"
	"github.com/gonero/gonero/internal/testutil"
	"github.com/gonero/gonero/levin"
)

// dialFrom connects to addr from the loopback address src (127.0.0.0/8
// addresses stand in for distinct hosts).
func dialFrom(t *testing.T, src, addr string) *rawPeer {
	t.Helper()
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(src)}, Timeout: 5 * time.Second}
	nc, err := d.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	return &rawPeer{t: t, nc: nc, rd: levin.NewReader(bufio.NewReader(nc), levin.MaxPacketSize)}
}

// handshakeFrom connects from src and handshakes, retrying for up to 20 s
// while the node refuses (it sees a closed connection late).
func handshakeFrom(t *testing.T, src, addr string, peerID uint64) *rawPeer {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		p := dialFrom(t, src, addr)
		p.sendPayload(levin.KindRequest, levin.CommandHandshake, goodHandshake(peerID))
		for {
			m, err := p.next()
			if err != nil {
				break
			}
			if m.Kind == levin.KindResponse && m.Command == levin.CommandHandshake {
				if m.ReturnCode != levin.ReturnSuccess {
					t.Fatalf("handshake from %s answered with return code %d", src, m.ReturnCode)
				}
				return p
			}
		}
		p.nc.Close()
		if time.Now().After(deadline) {
			t.Fatalf("a connection from %s was never admitted", src)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// incomingLimits is the scenario run against gonero and monerod, both with
// --in-peers 3 and one connection per IP (the default): a second
// connection from one address, and a fourth incoming connection, are
// closed before anything is sent on them (refused at accept, not at the
// handshake); a refused connection takes no slot, and a closed one frees
// its slot. settle is how long the node may take to count a new
// connection towards --in-peers (monerod refreshes that count once a
// second).
func incomingLimits(t *testing.T, addr string, settle time.Duration) {
	a := handshakeFrom(t, "127.0.3.1", addr, 0x1001)
	dialFrom(t, "127.0.3.1", addr).expectClosed("a second connection from 127.0.3.1")
	handshakeFrom(t, "127.0.3.2", addr, 0x1002)
	handshakeFrom(t, "127.0.3.3", addr, 0x1003)
	time.Sleep(settle)
	dialFrom(t, "127.0.3.4", addr).expectClosed("a fourth incoming connection")
	a.nc.Close()
	handshakeFrom(t, "127.0.3.1", addr, 0x1004)
	time.Sleep(settle)
	dialFrom(t, "127.0.3.5", addr).expectClosed("a fourth incoming connection after a slot was freed and retaken")
}

func TestIncomingLimitsAtAccept(t *testing.T) {
	tn := startTestNode(t, testutil.Path(t, "testdata", "regtest", "blockchain.raw"), Config{InPeers: 3})
	incomingLimits(t, tn.p2pAddr(), 0)
}

func TestIncomingLimitsMatchMonerod(t *testing.T) {
	lab := monerodlab.Require(t)
	m := lab.StartMonerodNet(t, "regtest", true, t.TempDir(), "--in-peers", "3")
	incomingLimits(t, "127.0.0.1:"+strconv.Itoa(m.P2PPort), 2500*time.Millisecond)
}

// Refusing at accept takes neither the node's connection-table lock nor a
// scan of it: with that lock held, connections over either limit are
// still refused.
func TestRefuseWithoutConnectionTableLock(t *testing.T) {
	tn := startTestNode(t, testutil.Path(t, "testdata", "regtest", "blockchain.raw"), Config{InPeers: 2})
	addr := tn.p2pAddr()
	handshakeFrom(t, "127.0.4.1", addr, 0x2001)
	tn.node.mu.Lock()
	func() {
		defer tn.node.mu.Unlock()
		dialFrom(t, "127.0.4.1", addr).expectClosed("a second connection from 127.0.4.1, connection table locked")
	}()
	handshakeFrom(t, "127.0.4.2", addr, 0x2002)
	tn.node.mu.Lock()
	defer tn.node.mu.Unlock()
	dialFrom(t, "127.0.4.3", addr).expectClosed("a third incoming connection, connection table locked")
}

// The per-host limit groups public IPv6 addresses by /64 and nothing else
// (monero f277d328c's unit test node_server.p2p_connection_limit_ipv6_by_64).
func TestConnLimitKey(t *testing.T) {
	same := func(a, b string) bool {
		return connLimitKey(netip.MustParseAddr(a)) == connLimitKey(netip.MustParseAddr(b))
	}
	for _, c := range []struct {
		a, b string
		same bool
	}{
		{"2001:db8:abcd:1234:1111:2222:3333:4444", "2001:db8:abcd:1234:ffff:eeee:dddd:cccc", true},
		{"2001:db8:abcd:1234:1111:2222:3333:4444", "2001:db8:abcd:1235::1", false},
		{"::1", "::2", false},
		{"fe80::1", "fe80::2", false},
		{"fc00::1", "fc00::2", false},
		{"fd00::1", "fd00::2", false},
		{"ff00::1", "ff00::2", false},
		{"fec0::1", "fec0::2", false},
		{"203.0.113.1", "203.0.113.2", false},
		{"::ffff:203.0.113.1", "::ffff:203.0.113.2", false},
		{"::ffff:203.0.113.1", "203.0.113.1", true},
		{"203.0.113.1", "203.0.113.1", true},
		{"fe80::1", "fe80::1", true},
	} {
		if got := same(c.a, c.b); got != c.same {
			t.Errorf("%s and %s share a per-IP limit: %v, want %v", c.a, c.b, got, c.same)
		}
	}
}

// admitIncoming counts a public IPv6 /64 as one host, and frees the slot
// when the connection is released.
func TestAdmitIncomingIPv6By64(t *testing.T) {
	db, c := newTestChain(t, t.TempDir(), "")
	defer db.Close()
	n, err := New(Config{Chain: c})
	if err != nil {
		t.Fatal(err)
	}
	admit := func(ip string) refusal {
		_, why := n.admitIncoming(netip.MustParseAddr(ip))
		return why
	}
	if why := admit("2001:db8:abcd:1234::1"); why != admitted {
		t.Fatalf("first IPv6 connection refused: %s", why)
	}
	if why := admit("2001:db8:abcd:1234:ffff::2"); why == admitted {
		t.Error("a second connection from the same public /64 was admitted")
	}
	if why := admit("2001:db8:abcd:1235::1"); why != admitted {
		t.Errorf("a connection from the next /64 refused: %s", why)
	}
	for _, ip := range []string{"fe80::1", "fe80::2", "fd00::1", "fd00::2"} {
		if why := admit(ip); why != admitted {
			t.Errorf("%s refused: %s", ip, why)
		}
	}
	cn := &conn{limitKey: connLimitKey(netip.MustParseAddr("2001:db8:abcd:1234::1"))}
	cn.admitted.Store(true)
	n.releaseIncoming(cn)
	n.releaseIncoming(cn) // released once only
	if why := admit("2001:db8:abcd:1234::3"); why != admitted {
		t.Errorf("the /64 still refused after its connection was released: %s", why)
	}
	if why := admit("2001:db8:abcd:1234::4"); why == admitted {
		t.Error("a second connection from the /64 admitted after one release")
	}
}
