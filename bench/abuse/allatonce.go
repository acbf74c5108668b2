package main

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// v6Prefix is the /48 that rpc-addr-churn-v6 draws its sources from:
// abuse.sh routes it to loopback in the namespace (ip -6 route add local
// fd00:1::/48 dev lo), and IP_FREEBIND lets a socket bind any of its
// addresses. fd00::/8 is unique-local: monerod counts it as a public /64
// (3 connections each), gonerod as its own rules say.
var v6Prefix = [6]byte{0xfd, 0x00, 0x00, 0x01, 0x00, 0x00}

// randomV6 is a random address of v6Prefix (80 random bits: a new /64
// almost every time).
func randomV6(rng *rand.Rand) string {
	var a [16]byte
	copy(a[:], v6Prefix[:])
	for i := 6; i < 16; i++ {
		a[i] = byte(rng.Uint32())
	}
	return netip.AddrFrom16(a).String()
}

// dialV6 dials [::1]:port from src, an address of v6Prefix bound with
// IP_FREEBIND; the connection is closed when ctx ends.
func dialV6(ctx context.Context, src string, port int) (net.Conn, error) {
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(src)}, Timeout: 3 * time.Second,
		Control: func(_, _ string, rc syscall.RawConn) error {
			var serr error
			if err := rc.Control(func(fd uintptr) { serr = syscall.SetsockoptInt(int(fd), syscall.SOL_IP, syscall.IP_FREEBIND, 1) }); err != nil {
				return err
			}
			return serr
		}}
	return dialUntilDone(ctx, &d, "tcp6", net.JoinHostPort("::1", strconv.Itoa(port)))
}

// addrChurnV6 is addrChurn over IPv6 with every connection from a new
// random address of a whole /48 (issue 33: on the Internet one customer's
// allocation): slots connections at a time, each one cheap request, then
// idle until closed, reconnecting at once from another address.
func addrChurnV6(slots int) func(ctx context.Context, n *node, f *facts) string {
	return func(ctx context.Context, n *node, _ *facts) string {
		var cnt counter
		var asked atomic.Int64
		var firstErr atomic.Value
		workers(ctx, slots, false, func(ctx context.Context, i int) {
			rng := rand.New(rand.NewPCG(uint64(i), uint64(time.Now().UnixNano())))
			c, err := dialV6(ctx, randomV6(rng), n.rpc)
			if err != nil {
				if ctx.Err() == nil {
					cnt.failed.Add(1)
					firstErr.CompareAndSwap(nil, err.Error())
				}
				return
			}
			defer c.Close()
			cnt.ok.Add(1)
			_ = c.SetWriteDeadline(time.Now().Add(5 * time.Second))
			if _, err := io.WriteString(c, "GET /get_height HTTP/1.1\r\nHost: [::1]\r\n\r\n"); err != nil {
				return
			}
			asked.Add(1)
			holdUntilClosed(ctx, c)
		})
		s := fmt.Sprintf("%d connections made from as many random addresses of fd00:1::/48, %d requests sent, %d dials failed",
			cnt.ok.Load(), asked.Load(), cnt.failed.Load())
		if e, ok := firstErr.Load().(string); ok && cnt.ok.Load() == 0 {
			s += " (" + e + ")"
		}
		return s
	}
}

// allAtOnceSkipped are the attacks all-at-once leaves out: the baseline,
// the syncs (they measure a syncing node, not a flood), itself, and those
// -all-skip names (to tell which flood sinks the rest).
func allAtOnceSkipped(name string) bool {
	return name == "none (baseline)" || strings.HasPrefix(name, "sync-") || name == "all-at-once" ||
		(*allSkip != "" && slices.Contains(strings.Split(*allSkip, ","), name))
}

// ownTokens are the sockets each flood of all-at-once has for itself
// (attackerDial), beside the shared ones, which the floods of thousands of
// connections (the churns, the connection floods) otherwise take all of:
// enough for every P2P flood's peers (20 to 200) and the RPC floods of a
// few hundred connections. allAtOnce takes them out of the shared tokens
// while it runs, so the attacker's sockets stay within the descriptor
// limit.
const ownTokens = 300

// allAtOnce runs every flood of attacks() at the same time, each from a /16
// of its own (127.101.0.0/16 on), until ctx ends; its note gives each
// flood's own.
func allAtOnce(ctx context.Context, n *node, f *facts) string {
	var wg sync.WaitGroup
	var mu sync.Mutex
	var notes []string
	var floods []attack
	for _, a := range attacks() {
		if !allAtOnceSkipped(a.name) {
			floods = append(floods, a)
		}
	}
	// The floods' own sockets come out of the shared ones (no other
	// attack runs now: they are free), and go back at the end.
	reserved := min(len(floods)*ownTokens, cap(fdTokens)/2)
	for range reserved {
		fdTokens <- struct{}{}
	}
	defer func() {
		for range reserved {
			<-fdTokens
		}
	}()
	own := max(1, reserved/max(1, len(floods)))
	k := 0
	for _, a := range floods {
		k++
		wg.Add(1)
		go func(a attack, net int) {
			defer wg.Done()
			note := a.run(context.WithValue(withNet(ctx, net), ownTokensKey{}, make(chan struct{}, own)), n, f)
			mu.Lock()
			notes = append(notes, a.name+": "+note)
			mu.Unlock()
		}(a, 100+k)
	}
	wg.Wait()
	skipped := ""
	if *allSkip != "" {
		skipped = " (not " + *allSkip + ")"
	}
	return fmt.Sprintf("%d floods at once%s: %s", k, skipped, strings.Join(notes, "; "))
}
