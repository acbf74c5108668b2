package p2p

import (
	"context"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gonero/gonero/dnstxt"
	"github.com/gonero/gonero/internal/dnstest"
	"github.com/gonero/gonero/internal/testutil"
)

// dialerFrom dials from a chosen loopback address, so that one test
// process can stand for several hosts (127.0.0.0/8 is all loopback).
func dialerFrom(src string) func(ctx context.Context, addr string) (net.Conn, error) {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(src)}, Timeout: 5 * time.Second}
	return func(ctx context.Context, addr string) (net.Conn, error) { return d.DialContext(ctx, "tcp", addr) }
}

func hasPeerFrom(n *Node, ip string) bool {
	for _, c := range n.Connections() {
		if c.Host == ip {
			return true
		}
	}
	return false
}

// writeBanList replaces the ban-list file (a new file renamed over it,
// as careful editors do) with a modification time one second past the
// last, so that a change is seen however fast the test.
func writeBanList(t *testing.T, path, text string, mtime *time.Time) {
	t.Helper()
	tmp := path + ".new"
	if err := os.WriteFile(tmp, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	*mtime = mtime.Add(time.Second)
	if err := os.Chtimes(tmp, *mtime, *mtime); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

// Editing the ban-list file takes effect without a restart: a host it
// bans is dropped at once and refused afterwards (P2P and, through
// RemoteHostAllowed, RPC), an edit that does not parse changes nothing,
// and a ban the file no longer holds is lifted, so the peer comes back.
func TestBanListFileReload(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bans.txt")
	mtime := time.Now().Truncate(time.Second)
	writeBanList(t, path, "# nobody yet\n10.1.2.3\n", &mtime)
	raw := testutil.Path(t, "testdata", "regtest", "blockchain.raw")
	a := startTestNode(t, raw, Config{BanListFile: path, BanListPoll: 10 * time.Millisecond})
	b := startTestNode(t, raw, Config{ExclusiveNodes: []string{a.p2pAddr()}, ConnectInterval: 20 * time.Millisecond,
		Dial: dialerFrom("127.0.0.2"), ListenAddr: "127.0.0.2:0"})
	peer := netip.MustParseAddr("127.0.0.2")
	eventually(t, 20*time.Second, "the peer from 127.0.0.2 to connect", func() bool { return hasPeerFrom(a.node, "127.0.0.2") })
	if !a.node.RemoteHostAllowed(peer) || a.node.RemoteHostAllowed(netip.MustParseAddr("10.1.2.3")) {
		t.Fatal("the first version of the file is not what is banned")
	}

	writeBanList(t, path, "10.1.2.3\n127.0.0.2 # now banned\n", &mtime)
	eventually(t, 20*time.Second, "the reload to drop the peer", func() bool {
		return a.node.BanListStats().DroppedByList >= 1 && !hasPeerFrom(a.node, "127.0.0.2")
	})
	if a.node.RemoteHostAllowed(peer) {
		t.Fatal("the banned host is still allowed (RPC's filter)")
	}
	if until, ok := a.node.BannedUntil(peer, time.Now()); !ok || until != banForever {
		t.Fatalf("ban of a listed host: %v %v, want for ever", until, ok)
	}
	s := a.node.BanListStats()
	if s.Entries != 2 || s.Reloads != 1 || s.ReloadErrors != 0 {
		t.Fatalf("stats after one reload: %+v", s)
	}

	// A broken edit is refused and the bans stay.
	writeBanList(t, path, "127.0.0.2\nnot-an-address\n", &mtime)
	eventually(t, 20*time.Second, "the broken edit to be seen", func() bool { return a.node.BanListStats().ReloadErrors == 1 })
	if a.node.RemoteHostAllowed(peer) || a.node.RemoteHostAllowed(netip.MustParseAddr("10.1.2.3")) {
		t.Fatal("a broken edit changed the bans")
	}

	// A subnet replaces the host ban; then an empty list lifts it all.
	writeBanList(t, path, "127.0.0.0/30\n", &mtime)
	eventually(t, 20*time.Second, "the subnet version", func() bool { return a.node.BanListStats().Reloads == 2 })
	if a.node.RemoteHostAllowed(peer) || a.node.RemoteHostAllowed(netip.MustParseAddr("127.0.0.3")) ||
		!a.node.RemoteHostAllowed(netip.MustParseAddr("127.0.0.4")) || !a.node.RemoteHostAllowed(netip.MustParseAddr("10.1.2.3")) {
		t.Fatal("the subnet version is not what is banned")
	}
	if hasPeerFrom(a.node, "127.0.0.2") {
		t.Fatal("the peer came back while its subnet is banned")
	}
	writeBanList(t, path, "", &mtime)
	eventually(t, 20*time.Second, "the lifted peer to come back", func() bool { return hasPeerFrom(a.node, "127.0.0.2") })
	if len(a.node.Bans(time.Now())) != 0 {
		t.Fatalf("bans left after the list emptied: %v", a.node.Bans(time.Now()))
	}
	_ = b
}

// A ban-list file that does not parse, or is missing, stops the node
// from starting, naming the file (and the line).
func TestBanListFileAtStart(t *testing.T) {
	tn := &testNode{t: t, dir: t.TempDir()}
	tn.db, tn.chain = newTestChain(t, tn.dir, "")
	defer tn.db.Close()
	path := filepath.Join(tn.dir, "bans.txt")
	if _, err := New(Config{Chain: tn.chain, BanListFile: path}); err == nil || !strings.Contains(err.Error(), "can't find ban list file") {
		t.Fatalf("missing file: %v", err)
	}
	if err := os.WriteFile(path, []byte("1.2.3.4\n\n1.2.3.4/40\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := New(Config{Chain: tn.chain, BanListFile: path}); err == nil || !strings.Contains(err.Error(), path+" line 3") {
		t.Fatalf("bad line: %v", err)
	}
}

// The DNS blocklist, read from a resolver in the test: a majority of the
// seven names agreeing on authenticated records bans their hosts and
// subnets for 8 days, and a listed host's connections are refused;
// unauthenticated answers, or too few agreeing, ban nothing.
func TestDNSBlocklist(t *testing.T) {
	listed := "127.0.0.3;10.9.0.0/16;;bad entry"
	records := map[string][]string{}
	for _, name := range DNSBlocklistNames {
		records[name] = []string{listed}
	}
	srv := &dnstest.Server{Records: records, Authenticated: true}
	addr := srv.Start(t)
	lookup := func(ctx context.Context, name string) ([]string, bool, error) {
		a, err := (&dnstxt.Client{Server: addr}).LookupTXT(ctx, name)
		return a.TXT, a.Authenticated, err
	}
	raw := testutil.Path(t, "testdata", "regtest", "blockchain.raw")
	a := startTestNode(t, raw, Config{DNSBlocklist: true, TXT: lookup})
	eventually(t, 20*time.Second, "the blocklist update", func() bool { u, _, _, _ := a.node.DNSBlocklistStats(); return u == 1 })
	if _, failures, bad, entries := a.node.DNSBlocklistStats(); failures != 0 || bad != 1 || entries != 2 {
		t.Fatalf("failures %d, bad entries %d, applied %d; want 0, 1, 2", failures, bad, entries)
	}
	for ip, want := range map[string]bool{"127.0.0.3": false, "10.9.200.1": false, "127.0.0.2": true} {
		if got := a.node.RemoteHostAllowed(netip.MustParseAddr(ip)); got != want {
			t.Errorf("%s allowed: %v, want %v", ip, got, want)
		}
	}
	if until, ok := a.node.BannedUntil(netip.MustParseAddr("127.0.0.3"), time.Now()); !ok || time.Until(until) < 8*24*time.Hour-time.Minute {
		t.Fatalf("listed host banned until %v (%v)", until, ok)
	}
	// The listed host's P2P connection is closed before any byte.
	dialFrom(t, "127.0.0.3", a.p2pAddr()).expectClosed("a connection from a host the DNS blocklist lists")

	for _, tc := range []struct {
		name  string
		auth  bool
		agree int
	}{{"unauthenticated", false, 7}, {"three of seven agree", true, 3}} {
		recs := map[string][]string{}
		for i, name := range DNSBlocklistNames {
			recs[name] = []string{"127.0.0.4"}
			if i >= tc.agree {
				recs[name] = []string{"127.0.0.5"}
			}
			if i >= tc.agree+1 {
				recs[name] = []string{"127.0.0.6;" + name}
			}
		}
		s := &dnstest.Server{Records: recs, Authenticated: tc.auth}
		sa := s.Start(t)
		records, ok := agreedTXT(context.Background(), func(ctx context.Context, name string) ([]string, bool, error) {
			a, err := (&dnstxt.Client{Server: sa}).LookupTXT(ctx, name)
			return a.TXT, a.Authenticated, err
		}, DNSBlocklistNames)
		if ok {
			t.Errorf("%s: records %q agreed", tc.name, records)
		}
	}
}
