package node

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/gonero/gonero/dnstxt"
	"github.com/gonero/gonero/httpd"
	"github.com/gonero/gonero/p2p"
	"github.com/gonero/gonero/params"
)

// IPv6 and ban lists: monerod's flags for IPv6 listeners (P2P and RPC),
// the ban-list file, the DNS blocklist and RPC fail bans
// (docs/ipv6-and-bans.md).

// applyAddr puts the IPv6, ban-list and DNS-blocklist settings into cfg.
func applyAddr(o *P2PConfig, cfg *p2p.Config, network params.Network, log *slog.Logger) error {
	cfg.UseIPv6 = o.UseIPv6
	cfg.IgnoreIPv4 = o.IgnoreIPv4
	if o.UseIPv6 {
		host := strings.TrimSuffix(strings.TrimPrefix(o.BindIPv6, "["), "]")
		ip, err := netip.ParseAddr(host)
		if err != nil || !ip.Is6() || ip.Is4In6() {
			return fmt.Errorf("--p2p-bind-ipv6-address %q is not an IPv6 address", o.BindIPv6)
		}
		port := o.BindPortIPv6
		if port == 0 {
			port = network.P2PPort()
		}
		cfg.ListenAddrIPv6 = net.JoinHostPort(host, strconv.Itoa(int(port)))
	}
	cfg.BanListFile = o.BanList
	// monerod applies the DNS blocklist on mainnet only.
	if o.DNSBlocklist && network == params.Mainnet {
		servers, err := DNSServers(o.DNSPublic, "/etc/resolv.conf")
		if err != nil {
			return fmt.Errorf("--enable-dns-blocklist: %w", err)
		}
		log.Info("DNS blocklist enabled", "resolvers", strings.Join(servers, ", "))
		cfg.DNSBlocklist = true
		cfg.TXT = txtLookup(servers)
	}
	return nil
}

// defaultDNSPublic are monerod's DEFAULT_DNS_PUBLIC_ADDR, used for
// DNS_PUBLIC=tcp.
var defaultDNSPublic = []string{"194.150.168.168", "80.67.169.40", "89.233.43.71", "109.69.8.51", "193.58.251.251"}

// DNSServers are the resolvers the DNS blocklist asks, over TCP: as
// monerod, DNS_PUBLIC=tcp://IP names one and DNS_PUBLIC=tcp monerod's
// public ones; gonero also takes tcp://IP:PORT (monerod: port 53 only).
// Without DNS_PUBLIC, the nameservers of resolv.conf. A DNS_PUBLIC monerod
// would refuse is an error here (monerod logs it and uses the system's).
func DNSServers(dnsPublic, resolvConf string) ([]string, error) {
	switch {
	case dnsPublic == "tcp":
		out := make([]string, len(defaultDNSPublic))
		for i, ip := range defaultDNSPublic {
			out[i] = net.JoinHostPort(ip, "53")
		}
		return out, nil
	case strings.HasPrefix(dnsPublic, "tcp://"):
		hostport := strings.TrimPrefix(dnsPublic, "tcp://")
		if ip, err := netip.ParseAddr(hostport); err == nil && ip.Is4() {
			return []string{net.JoinHostPort(ip.String(), "53")}, nil
		}
		if ap, err := netip.ParseAddrPort(hostport); err == nil && ap.Addr().Is4() && ap.Port() != 0 {
			return []string{ap.String()}, nil
		}
		return nil, fmt.Errorf("DNS_PUBLIC %q: want tcp, tcp://IPv4 or tcp://IPv4:PORT", dnsPublic)
	case dnsPublic != "":
		return nil, fmt.Errorf("DNS_PUBLIC %q: want tcp, tcp://IPv4 or tcp://IPv4:PORT", dnsPublic)
	}
	data, err := os.ReadFile(resolvConf)
	if err != nil {
		return nil, fmt.Errorf("no DNS_PUBLIC and no resolver: %w", err)
	}
	var out []string
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) >= 2 && f[0] == "nameserver" {
			if ip, err := netip.ParseAddr(f[1]); err == nil {
				out = append(out, net.JoinHostPort(ip.String(), "53"))
			}
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no DNS_PUBLIC and no nameserver in %s", resolvConf)
	}
	return out, nil
}

// txtLookup asks the servers in turn until one answers.
func txtLookup(servers []string) p2p.TXTLookup {
	return func(ctx context.Context, name string) ([]string, bool, error) {
		var lastErr error
		for _, s := range servers {
			c := &dnstxt.Client{Server: s, Timeout: 10 * time.Second}
			a, err := c.LookupTXT(ctx, name)
			if err == nil {
				return a.TXT, a.Authenticated, nil
			}
			lastErr = err
		}
		return nil, false, lastErr
	}
}

// applyRPCAddr fills in the IPv6 listeners of main and restricted (nil: none),
// whose Addr are set: the IPv6 socket uses the same port. As monerod,
// the addresses are checked even without --rpc-use-ipv6, brackets are
// allowed, and the main one must be loopback unless
// --confirm-external-bind.
func applyRPCAddr(o *RPCConfig, main, restricted *httpd.Config, confirmExternal bool) error {
	parse := func(flag, s string) (string, error) {
		if s == "" {
			return "", nil
		}
		if strings.Contains(s, "[") && len(s) >= 2 {
			s = s[1 : len(s)-1]
		}
		ip, err := netip.ParseAddr(s)
		if err != nil {
			return "", fmt.Errorf("%s %q is not an IP address", flag, s)
		}
		if flag == "--rpc-bind-ipv6-address" && !ip.IsLoopback() && !confirmExternal {
			return "", fmt.Errorf("%s %s is not a loopback address; add --confirm-external-bind to serve RPC on it", flag, s)
		}
		return s, nil
	}
	mainIP, err := parse("--rpc-bind-ipv6-address", o.BindIPv6)
	if err != nil {
		return err
	}
	restrictedIP, err := parse("--rpc-restricted-bind-ipv6-address", o.RestrictedBindIPv6)
	if err != nil {
		return err
	}
	if !o.UseIPv6 {
		return nil
	}
	with := func(c *httpd.Config, ip string) {
		if c == nil || ip == "" {
			return
		}
		_, port, _ := net.SplitHostPort(c.Addr)
		c.AddrIPv6 = net.JoinHostPort(ip, port)
		c.IgnoreIPv4 = o.IgnoreIPv4
	}
	with(main, mainIP)
	with(restricted, restrictedIP)
	return nil
}
