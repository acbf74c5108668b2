package main

import (
	"context"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gonero/gonero/internal/dnstest"
	"github.com/gonero/gonero/p2p"
	"github.com/gonero/gonero/params"
)

// The IPv6 and ban-list flags refuse what monerod refuses, and a ban list
// that does not parse stops the start naming file and line.
func TestAddrFlagErrors(t *testing.T) {
	bin := buildGonerod(t)
	data := t.TempDir()
	bad := filepath.Join(data, "bans.txt")
	if err := os.WriteFile(bad, []byte("# fine\n1.2.3.4\nnot-an-ip\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--ban-list", filepath.Join(data, "missing.txt")}, "can't find ban list file"},
		{[]string{"--ban-list", bad}, `ban list ` + bad + ` line 3: "not-an-ip"`},
		{[]string{"--p2p-use-ipv6", "--p2p-bind-ipv6-address", "1.2.3.4"}, "is not an IPv6 address"},
		{[]string{"--rpc-bind-ipv6-address", "2001:db8::1"}, "--confirm-external-bind"},
		{[]string{"--rpc-restricted-bind-ipv6-address", "nonsense"}, "is not an IP address"},
	} {
		cmd := exec.Command(bin, append([]string{"--regtest", "--offline", "--rpc-bind-port", "0", "--data-dir", data}, c.args...)...)
		out, err := cmd.CombinedOutput()
		ee, ok := err.(*exec.ExitError)
		if !ok || ee.ExitCode() != 1 || !strings.Contains(string(out), c.want) {
			t.Errorf("gonerod %v: exit %v, output %q; want status 1 and %q", c.args, err, out, c.want)
		}
	}
}

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
		got, err := dnsServers(c.env, conf)
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
	t.Setenv("DNS_PUBLIC", "tcp://"+srv.Start(t))
	o := p2pAddrOptions{dnsBlocklist: true}
	log := slog.New(slog.DiscardHandler)
	var cfg p2p.Config
	if err := o.apply(&cfg, params.Regtest, log); err != nil || cfg.DNSBlocklist || cfg.TXT != nil {
		t.Fatalf("regtest: %v, DNSBlocklist %v", err, cfg.DNSBlocklist)
	}
	if err := o.apply(&cfg, params.Mainnet, log); err != nil || !cfg.DNSBlocklist || cfg.TXT == nil {
		t.Fatalf("mainnet: %v, DNSBlocklist %v", err, cfg.DNSBlocklist)
	}
	txt, authenticated, err := cfg.TXT(context.Background(), p2p.DNSBlocklistNames[0])
	if err != nil || !authenticated || !slices.Equal(txt, []string{"1.2.3.4;5.6.7.0/24"}) {
		t.Fatalf("lookup through DNS_PUBLIC: %q %v %v", txt, authenticated, err)
	}
	t.Setenv("DNS_PUBLIC", "udp://127.0.0.1")
	if err := o.apply(&cfg, params.Mainnet, log); err == nil {
		t.Fatal("an unreadable DNS_PUBLIC was accepted")
	}
}
