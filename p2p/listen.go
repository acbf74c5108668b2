package p2p

import (
	"errors"
	"fmt"
	"net"
)

// listen binds the P2P listeners as monerod's init_server does: IPv4 on
// ListenAddr (its failure fatal unless IgnoreIPv4), then, with UseIPv6,
// an IPv6-only socket on ListenAddrIPv6 (its failure logged, and fatal
// only if IPv4 failed too).
func (n *Node) listen() error {
	var err4 error
	if n.cfg.ListenAddr != "" {
		n.public.ln, err4 = net.Listen("tcp", n.cfg.ListenAddr)
		if err4 != nil {
			n.log.Error("failed to bind IPv4", "addr", n.cfg.ListenAddr, "err", err4)
			if !n.cfg.IgnoreIPv4 {
				return fmt.Errorf("p2p: listen: %w", err4)
			}
		}
	}
	if !n.cfg.UseIPv6 || n.cfg.ListenAddrIPv6 == "" {
		// With --p2p-ignore-ipv4 and no IPv6, monerod runs without a
		// listener (outgoing connections only); so does gonero.
		return nil
	}
	// "tcp6" sets IPV6_V6ONLY, as monerod's v6_only(true): IPv4 clients
	// reach the IPv4 socket only.
	ln6, err6 := net.Listen("tcp6", n.cfg.ListenAddrIPv6)
	if err6 != nil {
		n.log.Error("failed to bind IPv6", "addr", n.cfg.ListenAddrIPv6, "err", err6)
		if err4 != nil || n.public.ln == nil {
			return fmt.Errorf("p2p: failed to bind IPv4 and IPv6: %w", errors.Join(err4, err6))
		}
		return nil
	}
	n.public.ln6 = ln6
	n.log.Info("P2P bound (IPv6)", "addr", ln6.Addr().String())
	return nil
}

// AddrIPv6 is the bound IPv6 listening address (nil when none).
func (n *Node) AddrIPv6() net.Addr {
	if n.public.ln6 == nil {
		return nil
	}
	return n.public.ln6.Addr()
}
