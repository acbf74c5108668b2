package node

import (
	"errors"
	"fmt"
	"net/netip"
	"strconv"
	"strings"

	"github.com/gonero/gonero/anonaddr"
	"github.com/gonero/gonero/p2p"
	"github.com/gonero/gonero/portable"
	"github.com/gonero/gonero/socks"
)

// maxConnections is get_max_connections: empty is -1 (the default), else
// a uint32 above 0.
func maxConnections(flag, s string) (int, error) {
	if s == "" {
		return -1, nil
	}
	v, err := strconv.ParseUint(s, 10, 32)
	if err != nil || v == 0 {
		return 0, fmt.Errorf("--%s: invalid max connections %q", flag, s)
	}
	return int(v), nil
}

// ParseTxProxy is get_proxies for one --tx-proxy value.
func ParseTxProxy(s string) (p2p.ZoneConfig, error) {
	zc := p2p.ZoneConfig{Noise: true, MaxOut: -1}
	parts := strings.Split(s, ",")
	if parts[0] == "" {
		return zc, fmt.Errorf("--tx-proxy %q: no network type", s)
	}
	if len(parts) < 2 || parts[1] == "" {
		return zc, fmt.Errorf("--tx-proxy %q: no ip:port given", s)
	}
	if len(parts) > 4 {
		return zc, fmt.Errorf("--tx-proxy %q: too many ',' characters", s)
	}
	for _, opt := range parts[2:] {
		if opt == "disable_noise" {
			zc.Noise = false
			continue
		}
		n, err := maxConnections("tx-proxy", opt)
		if err != nil {
			return zc, err
		}
		zc.MaxOut = n
	}
	z, err := anonaddr.ParseZone(parts[0])
	if err != nil {
		return zc, fmt.Errorf("--tx-proxy %q: %w", s, err)
	}
	zc.Zone = z
	e, err := socks.ParseEndpoint(parts[1])
	if err != nil {
		return zc, fmt.Errorf("--tx-proxy %q: %w", s, err)
	}
	zc.Proxy = &e
	return zc, nil
}

// ParseAnonymousInbound is get_anonymous_inbounds for one value.
func ParseAnonymousInbound(s string) (p2p.ZoneConfig, error) {
	zc := p2p.ZoneConfig{MaxIn: -1}
	parts := strings.Split(s, ",")
	if parts[0] == "" {
		return zc, fmt.Errorf("--anonymous-inbound %q: no inbound address", s)
	}
	if len(parts) < 2 || parts[1] == "" {
		return zc, fmt.Errorf("--anonymous-inbound %q: no local ipv4:port given", s)
	}
	if len(parts) > 3 {
		return zc, fmt.Errorf("--anonymous-inbound %q: too many ',' characters", s)
	}
	if len(parts) == 3 {
		n, err := maxConnections("anonymous-inbound", parts[2])
		if err != nil {
			return zc, err
		}
		zc.MaxIn = n
	}
	a, err := anonaddr.Parse(parts[0], 0)
	if err != nil {
		return zc, fmt.Errorf("--anonymous-inbound %q: invalid inbound address: %w", s, err)
	}
	if a.Type != portable.AddressTor && a.Type != portable.AddressI2P {
		return zc, fmt.Errorf("--anonymous-inbound %q: %s is not a Tor or I2P address", s, parts[0])
	}
	zc.Zone, zc.OurAddress = anonaddr.ZoneOf(a), a
	bind, err := netip.ParseAddrPort(parts[1])
	if err != nil || !bind.Addr().Is4() {
		return zc, fmt.Errorf("--anonymous-inbound %q: invalid ipv4:port %q", s, parts[1])
	}
	zc.ListenAddr = bind.String()
	return zc, nil
}

// applyAnon puts the anonymity settings (monerod's net_node.cpp
// get_proxies, get_anonymous_inbounds; daemon --proxy) into the P2P
// configuration.
func applyAnon(o *P2PConfig, cfg *p2p.Config) error {
	byZone := map[anonaddr.Zone]*p2p.ZoneConfig{}
	var order []anonaddr.Zone
	for _, s := range o.TxProxies {
		zc, err := ParseTxProxy(s)
		if err != nil {
			return err
		}
		if byZone[zc.Zone] != nil {
			return fmt.Errorf("--tx-proxy listed twice with %v", zc.Zone)
		}
		byZone[zc.Zone] = &zc
		order = append(order, zc.Zone)
	}
	for _, s := range o.AnonymousInbounds {
		in, err := ParseAnonymousInbound(s)
		if err != nil {
			return err
		}
		zc := byZone[in.Zone]
		if zc == nil {
			zc = &p2p.ZoneConfig{Zone: in.Zone}
			byZone[in.Zone] = zc
			order = append(order, in.Zone)
		} else if zc.ListenAddr != "" {
			return fmt.Errorf("--anonymous-inbound listed twice with %v", in.Zone)
		}
		zc.OurAddress, zc.ListenAddr, zc.MaxIn = in.OurAddress, in.ListenAddr, in.MaxIn
	}
	if len(o.AnonymousInbounds) > 0 && len(o.TxProxies) == 0 {
		return errors.New("--anonymous-inbound needs a --tx-proxy: it is how this node's own transactions reach the anonymity network")
	}
	for _, z := range order {
		cfg.Zones = append(cfg.Zones, *byZone[z])
	}
	cfg.PadTransactions = o.PadTransactions
	if o.Proxy != "" {
		e, err := socks.ParseEndpoint(o.Proxy)
		if err != nil {
			return fmt.Errorf("--proxy: %w", err)
		}
		cfg.Proxy = &e
		cfg.ProxyDNSLeaks = o.ProxyDNSLeaks
	}
	return nil
}
