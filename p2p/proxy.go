package p2p

import (
	"context"
	"fmt"
	"net"
	"strconv"

	"github.com/gonero/gonero/socks"
)

// applyProxy routes every public-zone outgoing connection through
// --proxy, as monerod's node_server::init does with it: connections go
// through socks_connect, the node cannot be pinged back (m_can_pingback
// false: it announces no port and pings no incoming peer back), and the
// DNS seeds are not asked unless --proxy-allow-dns-leaks. A proxy that
// fails fails the connection; nothing is ever dialled directly.
func applyProxy(cfg *Config) {
	if cfg.Proxy == nil {
		return
	}
	proxy, direct := *cfg.Proxy, cfg.Dial
	cfg.Dial = func(ctx context.Context, addr string) (net.Conn, error) {
		host, port, err := net.SplitHostPort(addr)
		if err != nil {
			return nil, err
		}
		p, err := strconv.ParseUint(port, 10, 16)
		if err != nil {
			return nil, fmt.Errorf("p2p: port of %q: %w", addr, err)
		}
		return proxy.Dial(ctx, socks.Dialer(direct), host, uint16(p))
	}
	cfg.MyPort = 0
	if !cfg.ProxyDNSLeaks {
		cfg.LookupHost = func(context.Context, string) ([]string, error) {
			return nil, fmt.Errorf("p2p: DNS seeds are not asked behind --proxy (--proxy-allow-dns-leaks allows it)")
		}
	}
}
