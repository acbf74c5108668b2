package httpd

import (
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"testing"
	"time"
)

// benchConn makes a connection of ip for the victim benchmarks; nc is a
// net.Pipe end (peekReady finds nothing to peek in it).
func benchConn(b *testing.B, l *limitListener, ip string, nc net.Conn, at int64) *countedConn {
	key := hostKeyOf(netip.MustParseAddr(ip))
	return &countedConn{Conn: nc, ln: l, key: key, group: groupOf(key), prefix: prefixOf(groupOf(key)), connectedAt: at}
}

// BenchmarkBumpVictim: the choice of the connection on probation to close
// when every place is taken, as each newcomer of a connection flood at
// the cap makes it (issue 33: a quarter of the node's CPU under all the
// floods at once). The places are full (maxProbation) of connections from
// a flood of /64s from one to 256 /48s that sent nothing.
func BenchmarkBumpVictim(b *testing.B) {
	for _, prefixes := range []int{1, 64, 256} {
		b.Run(fmt.Sprintf("prefixes=%d", prefixes), func(b *testing.B) {
			l := newLimitListener(nil, -1, -1, -1, 0, slog.New(slog.DiscardHandler))
			l.probationLimits.window = time.Hour
			nc, _ := net.Pipe()
			b.Cleanup(func() { nc.Close() })
			for i := range maxProbation {
				p := i % prefixes
				cc := benchConn(b, l, fmt.Sprintf("2001:db8:%x:%x::1", p, i), nc, int64(i+1)) // a /64 each
				if ok, _ := l.probationLocked(cc.key, cc.group, cc); !ok {
					b.Fatalf("%d not on probation", i)
				}
			}
			b.Cleanup(func() {
				for _, c := range l.probationList() {
					l.dropProbationLocked(c)
				}
			})
			b.ReportAllocs()
			for b.Loop() {
				if l.bumpVictimLocked() == nil {
					b.Fatal("no victim")
				}
			}
		})
	}
}

// BenchmarkVictim: the choice of the slot to free for a newcomer at the
// cap, with thousands of connections open (a node run with a high
// --rpc-max-connections), a few groups holding many and many holding one.
func BenchmarkVictim(b *testing.B) {
	for _, n := range []int{100, 4000} {
		b.Run(fmt.Sprintf("conns=%d", n), func(b *testing.B) {
			l := newLimitListener(nil, n, -1, -1, 0, slog.New(slog.DiscardHandler))
			nc, _ := net.Pipe()
			b.Cleanup(func() { nc.Close() })
			for i := range n {
				ip := fmt.Sprintf("198.18.%d.%d", i/250, 1+i%250)
				if i%2 == 0 {
					ip = fmt.Sprintf("203.0.113.%d", 1+i%8) // 8 addresses holding half
				}
				cc := benchConn(b, l, ip, nc, int64(i+1))
				if r := l.admitLocked(cc.key, cc.group, cc); r != "" {
					b.Fatalf("%s refused: %s", ip, r)
				}
				cc.requested.Store(true)
				cc.requests.Store(1)
				cc.state.Store(connIdle)
				cc.idleSince.Store(int64(i + 1))
			}
			newcomer := groupOf(hostKeyOf(netip.MustParseAddr("192.0.2.1")))
			now := time.Now().UnixNano()
			b.ReportAllocs()
			for b.Loop() {
				v := l.victimLocked(newcomer, now, true)
				if v == nil {
					b.Fatal("no victim")
				}
				v.evicted = false
			}
		})
	}
}

// probationList is the connections on probation.
func (l *limitListener) probationList() []*countedConn {
	var out []*countedConn
	for c := range l.probation {
		out = append(out, c)
	}
	return out
}
