package p2p

import (
	"log/slog"
	"strings"
	"testing"
)

// The listeners as monerod's init_server binds them: IPv4 and IPv6
// together; IPv6 alone when the IPv4 address cannot be bound and
// --p2p-ignore-ipv4 says to go on; none at all with --p2p-ignore-ipv4 and
// no IPv6; an error when IPv4 fails unignored, or both fail.
func TestListenIPv6(t *testing.T) {
	tn := &testNode{t: t, dir: t.TempDir()}
	tn.db, tn.chain = newTestChain(t, tn.dir, "")
	t.Cleanup(func() { tn.db.Close() })
	// 192.0.2.1 (TEST-NET-1) is on no interface: its bind fails.
	for _, c := range []struct {
		name     string
		cfg      Config
		err      string
		want     string // Addr()'s prefix, "" for none
		wantIPv6 bool
	}{
		{"both", Config{ListenAddr: "127.0.0.1:0", UseIPv6: true, ListenAddrIPv6: "[::1]:0"}, "", "127.0.0.1:", true},
		{"IPv6 address without --p2p-use-ipv6", Config{ListenAddr: "127.0.0.1:0", ListenAddrIPv6: "[::1]:0"}, "", "127.0.0.1:", false},
		{"IPv6 alone", Config{ListenAddr: "192.0.2.1:0", IgnoreIPv4: true, UseIPv6: true, ListenAddrIPv6: "[::1]:0"}, "", "[::1]:", true},
		{"no listener", Config{ListenAddr: "192.0.2.1:0", IgnoreIPv4: true}, "", "", false},
		{"IPv4 fails", Config{ListenAddr: "192.0.2.1:0", UseIPv6: true, ListenAddrIPv6: "[::1]:0"}, "p2p: listen", "", false},
		{"both fail", Config{ListenAddr: "192.0.2.1:0", IgnoreIPv4: true, UseIPv6: true, ListenAddrIPv6: "[2001:db8::1]:0"},
			"failed to bind IPv4 and IPv6", "", false},
	} {
		c.cfg.Chain, c.cfg.Logger = tn.chain, slog.New(slog.DiscardHandler)
		n, err := New(c.cfg)
		if err != nil {
			t.Fatal(err)
		}
		err = n.Start()
		switch {
		case c.err != "":
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: %v, want %q", c.name, err, c.err)
			}
		case err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.want == "" && n.Addr() != nil, c.want != "" && (n.Addr() == nil || !strings.HasPrefix(n.Addr().String(), c.want)):
			t.Errorf("%s: listening on %v, want %s…", c.name, n.Addr(), c.want)
		case (n.AddrIPv6() != nil) != c.wantIPv6:
			t.Errorf("%s: IPv6 listener %v", c.name, n.AddrIPv6())
		}
		_ = n.Close()
	}
}
