package node

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/gonero/gonero/internal/dnstest"
	"github.com/gonero/gonero/p2p"
	"github.com/gonero/gonero/params"
)

// DNS_PUBLIC as monerod reads it (tcp, tcp://IPv4), plus a port; without
// it, resolv.conf's nameservers.
func TestDNSServers(t *testing.T) {
	conf := filepath.Join(t.TempDir(), "resolv.conf")
	if err := os.WriteFile(conf, []byte("# x\nsearch example\nnameserver 10.0.0.53\nnameserver ::1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		env  string
		want []string
	}{
		{"tcp://127.0.0.1", []string{"127.0.0.1:53"}},
		{"tcp://127.0.0.1:5353", []string{"127.0.0.1:5353"}},
		{"tcp", []string{"194.150.168.168:53", "80.67.169.40:53", "89.233.43.71:53", "109.69.8.51:53", "193.58.251.251:53"}},
		{"", []string{"10.0.0.53:53", "[::1]:53"}},
		{"udp://127.0.0.1", nil},
		{"tcp://1.2.3.256", nil},
		{"tcp://::1", nil},
	} {
		got, err := DNSServers(c.env, conf)
		if (err != nil) != (c.want == nil) || !slices.Equal(got, c.want) {
			t.Errorf("DNS_PUBLIC=%q: %v, %v; want %v", c.env, got, err, c.want)
		}
	}
}

// --enable-dns-blocklist wires a TXT lookup to the DNS_PUBLIC resolver on
// mainnet, and nothing elsewhere (monerod's update_dns_blocklist returns
// at once off mainnet).
func TestDNSBlocklistWiring(t *testing.T) {
	srv := &dnstest.Server{Authenticated: true, Records: map[string][]string{p2p.DNSBlocklistNames[0]: {"1.2.3.4;5.6.7.0/24"}}}
	o := &P2PConfig{DNSBlocklist: true, DNSPublic: "tcp://" + srv.Start(t)}
	log := slog.New(slog.DiscardHandler)
	var cfg p2p.Config
	if err := applyAddr(o, &cfg, params.Regtest, log); err != nil || cfg.DNSBlocklist || cfg.TXT != nil {
		t.Fatalf("regtest: %v, DNSBlocklist %v", err, cfg.DNSBlocklist)
	}
	if err := applyAddr(o, &cfg, params.Mainnet, log); err != nil || !cfg.DNSBlocklist || cfg.TXT == nil {
		t.Fatalf("mainnet: %v, DNSBlocklist %v", err, cfg.DNSBlocklist)
	}
	txt, authenticated, err := cfg.TXT(context.Background(), p2p.DNSBlocklistNames[0])
	if err != nil || !authenticated || !slices.Equal(txt, []string{"1.2.3.4;5.6.7.0/24"}) {
		t.Fatalf("lookup through DNS_PUBLIC: %q %v %v", txt, authenticated, err)
	}
	o.DNSPublic = "udp://127.0.0.1"
	if err := applyAddr(o, &cfg, params.Mainnet, log); err == nil {
		t.Fatal("an unreadable DNS_PUBLIC was accepted")
	}
}
