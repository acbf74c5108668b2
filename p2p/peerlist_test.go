package p2p

import (
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gonero/gonero/portable"
)

func entry(addr string, id uint64) portable.PeerlistEntry {
	return portable.PeerlistEntry{Address: netAddress(netip.MustParseAddrPort(addr)), ID: id}
}

// Lists learned from peers are sanitised as monerod does; white wins over
// grey; both survive a restart through the state file, and a damaged file
// is refused without losing the node.
func TestPeerListRulesAndPersistence(t *testing.T) {
	file := filepath.Join(t.TempDir(), "p2pstate.json")
	p := newPeerList(file)
	now := time.Unix(1_800_000_000, 0)
	withRPC := entry("8.8.8.8:18080", 4)
	withRPC.RPCPort = 18080 // a port equal to its RPC port is dropped
	badSeed := entry("8.8.4.4:18080", 5)
	badSeed.PruningSeed = 7
	goodSeed := entry("1.0.0.1:18080", 6)
	goodSeed.PruningSeed = 0x181
	p.merge([]portable.PeerlistEntry{
		entry("127.0.0.1:18080", 1), entry("192.168.1.2:18080", 2), entry("0.0.0.0:18080", 3),
		withRPC, badSeed, goodSeed, entry("1.1.1.1:18080", 7), entry("[2606:4700::1111]:18080", 8),
	}, now)
	if w, g := p.sizes(); w != 0 || g != 3 {
		t.Fatalf("after merging: %d white, %d grey; want 0 and 3 (loopback, private, 0.0.0.0, rpc-port and bad-seed entries dropped)", w, g)
	}
	p.addWhite(entry("1.1.1.1:18080", 7), now)
	p.addWhite(entry("127.0.0.1:18081", 9), now) // never listed
	if w, g := p.sizes(); w != 1 || g != 2 {
		t.Fatalf("after a handshake: %d white, %d grey; want 1 and 2", w, g)
	}
	p.merge([]portable.PeerlistEntry{entry("1.1.1.1:18080", 7)}, now)
	if w, g := p.sizes(); w != 1 || g != 2 {
		t.Fatalf("a white peer re-learned went grey: %d white, %d grey", w, g)
	}
	p.failed("[2606:4700::1111]:18080", now)
	p.merge([]portable.PeerlistEntry{entry("[2606:4700::1111]:18080", 8), entry("[2606:4700::1111]:28080", 9)}, now.Add(time.Minute))
	if _, g := p.sizes(); g != 1 {
		t.Fatalf("a host that failed a minute ago was re-learned, on its port or another: %d grey", g)
	}
	if err := p.save(); err != nil {
		t.Fatal(err)
	}
	q := newPeerList(file)
	if err := q.load(); err != nil {
		t.Fatal(err)
	}
	if w, g := q.sizes(); w != 1 || g != 1 {
		t.Fatalf("after reloading: %d white, %d grey; want 1 and 1", w, g)
	}
	if got := q.randomWhite(10); len(got) != 1 || got[0].Address.String() != "1.1.1.1:18080" || got[0].ID != 7 {
		t.Fatalf("reloaded white list %+v", got)
	}
	if got := q.candidates(12, whiteShare(12, 0), now, map[netip.Prefix]bool{}, nil); len(got) != 2 {
		t.Fatalf("%d dial candidates from 1 white and 1 grey peer", len(got))
	}
	for _, bad := range []string{"{", `{"version":99}`, strings.Repeat(" ", maxStateFileSize+10)} {
		if err := os.WriteFile(file, []byte(bad), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := newPeerList(file).load(); err == nil {
			t.Errorf("a damaged state file (%.20q) loaded without error", bad)
		}
	}
}

func TestPeerListLimits(t *testing.T) {
	p := newPeerList("")
	now := time.Unix(1_800_000_000, 0)
	var list []portable.PeerlistEntry
	for i := 0; i < greyLimit+300; i++ {
		list = append(list, entry(netip.AddrPortFrom(netip.AddrFrom4([4]byte{11, byte(i >> 16), byte(i >> 8), byte(i)}), 18080).String(), uint64(i)))
	}
	for i := 0; i < len(list); i += maxPeersInHandshake {
		p.merge(list[i:min(i+maxPeersInHandshake, len(list))], now.Add(time.Duration(i)*time.Second))
	}
	for i := 0; i < whiteLimit+5; i++ {
		p.addWhite(list[i], now.Add(time.Duration(i)*time.Second))
	}
	if w, g := p.sizes(); w != whiteLimit || g > greyLimit {
		t.Fatalf("%d white (limit %d), %d grey (limit %d)", w, whiteLimit, g, greyLimit)
	}
	if got := p.randomWhite(maxPeersInHandshake); len(got) != maxPeersInHandshake {
		t.Fatalf("%d peers for a handshake, want %d", len(got), maxPeersInHandshake)
	}
}

// A misbehaving host is banned once its fails exceed ten (monerod's
// add_host_fail: fails > P2P_IP_FAILS_BEFORE_BLOCK), only for a day, and
// keeps five fails after the ban.
func TestBanList(t *testing.T) {
	b := newBanList()
	ip := netip.MustParseAddr("9.9.9.9")
	now := time.Unix(1_800_000_000, 0)
	for i := 1; i <= failsBeforeBan; i++ {
		if b.fail(ip, 1, now) || b.banned(ip, now) {
			t.Fatalf("banned after %d fails", i)
		}
	}
	if !b.fail(ip, 1, now) || !b.banned(ip, now.Add(banDuration-time.Second)) {
		t.Fatal("not banned after eleven fails")
	}
	later := now.Add(banDuration + time.Second)
	if b.banned(ip, later) {
		t.Fatal("still banned after a day")
	}
	// Five fails are left from the ban: six more ban again.
	for i := 1; i <= failsBeforeBan/2; i++ {
		if b.fail(ip, 1, later) {
			t.Fatalf("banned again after %d fails", i)
		}
	}
	if !b.fail(ip, 1, later) {
		t.Fatal("not banned again after six fails on the five the ban left")
	}
	// A block failing proof of work scores failsBeforeBan: a host
	// without fails is not banned by it (monerod: 10 > 10 is false), a
	// second one bans it; banAtOnce bans at once.
	pow := netip.MustParseAddr("9.9.9.8")
	if b.fail(pow, failsBeforeBan, now) {
		t.Fatal("one block failing proof of work banned a host without fails")
	}
	if !b.fail(pow, failsBeforeBan, now) {
		t.Fatal("a second block failing proof of work did not ban")
	}
	if !b.fail(netip.MustParseAddr("9.9.9.7"), banAtOnce, now) {
		t.Fatal("banAtOnce did not ban at once")
	}
}

// Dial candidates skip addresses that failed within the hour, and take one
// port per host: of a host announced on many ports only the port seen
// last is a candidate (monero 2879885e3).
func TestCandidatesSkipFailedAndOnePortPerHost(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	p := newPeerList("")
	dead := entry("8.8.8.8:18080", 1)
	p.addWhite(dead, now)
	p.failed(dead.Address.String(), now)
	for port := 20000; port < 20050; port++ {
		p.merge([]portable.PeerlistEntry{entry("9.9.9.9:"+strconv.Itoa(port), uint64(port))}, now.Add(time.Duration(port-20000)*time.Second))
	}
	p.merge([]portable.PeerlistEntry{entry("9.9.9.10:18080", 2), entry("1.1.1.1:18080", 3)}, now)
	for range 20 {
		got := p.candidates(12, whiteShare(12, 0), now.Add(time.Minute), map[netip.Prefix]bool{}, nil)
		addrs := map[string]bool{}
		for _, e := range got {
			addrs[e.Address.String()] = true
		}
		if len(got) != 3 || !addrs["9.9.9.9:20049"] || !addrs["9.9.9.10:18080"] || !addrs["1.1.1.1:18080"] {
			t.Fatalf("candidates %v; want 9.9.9.9 on the port seen last, 9.9.9.10 and 1.1.1.1, and not the peer that failed a minute ago", addrs)
		}
	}
	if got := p.candidates(12, whiteShare(12, 0), now.Add(2*time.Hour), map[netip.Prefix]bool{}, nil); len(got) != 4 {
		t.Fatalf("after the hour: %d candidates, want 4", len(got))
	}
	// A candidate the node already uses (skip) is not dialled again.
	got := p.candidates(12, whiteShare(12, 0), now.Add(time.Minute), map[netip.Prefix]bool{}, func(e portable.PeerlistEntry) bool {
		return e.Address.IP == netip.MustParseAddr("1.1.1.1")
	})
	for _, e := range got {
		if e.Address.IP == netip.MustParseAddr("1.1.1.1") {
			t.Fatal("a skipped peer is a candidate")
		}
	}
}

func addrsOf(list []portable.PeerlistEntry) map[string]bool {
	out := map[string]bool{}
	for _, e := range list {
		out[e.Address.String()] = true
	}
	return out
}

// Candidates spread over IPv4 /24s (monero 2879885e3): while another /24
// has a candidate, no two picks share one, nor does a pick share the /24 of
// a connection; only when every candidate's /24 is taken does a pick go to
// a taken /24. IPv6 addresses are not grouped.
func TestCandidatesSpreadOverSubnets(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	p := newPeerList("")
	var list []portable.PeerlistEntry
	for i := 1; i <= 10; i++ {
		list = append(list, entry("1.1.1."+strconv.Itoa(i)+":18080", uint64(i)))
	}
	list = append(list, entry("2.2.2.2:18080", 20), entry("3.3.3.3:18080", 30),
		entry("[2606:4700::1]:18080", 40), entry("[2606:4700::2]:18080", 41))
	p.merge(list, now)
	for range 30 {
		got := addrsOf(p.candidates(5, whiteShare(5, 0), now, map[netip.Prefix]bool{}, nil))
		in111 := 0
		for a := range got {
			if strings.HasPrefix(a, "1.1.1.") {
				in111++
			}
		}
		if len(got) != 5 || in111 != 1 || !got["2.2.2.2:18080"] || !got["3.3.3.3:18080"] ||
			!got["[2606:4700::1]:18080"] || !got["[2606:4700::2]:18080"] {
			t.Fatalf("5 candidates %v; want one of 1.1.1.0/24, 2.2.2.2, 3.3.3.3 and both IPv6 peers of one /64", got)
		}
		subnets := map[netip.Prefix]bool{netip.MustParsePrefix("2.2.2.0/24"): true}
		got = addrsOf(p.candidates(4, whiteShare(4, 0), now, subnets, nil))
		if len(got) != 4 || got["2.2.2.2:18080"] || !got["3.3.3.3:18080"] {
			t.Fatalf("4 candidates with 2.2.2.0/24 connected: %v", got)
		}
		if !subnets[netip.MustParsePrefix("3.3.3.0/24")] {
			t.Fatal("a pick's /24 is not marked taken")
		}
	}
	// One /24 only: the picks fall back to it.
	q := newPeerList("")
	q.merge(list[:4], now)
	for range 30 {
		if got := addrsOf(q.candidates(3, whiteShare(3, 0), now, map[netip.Prefix]bool{}, nil)); len(got) != 3 {
			t.Fatalf("3 slots and 4 peers of one /24: %v", got)
		}
	}
}

// From the white list a pick takes one of the 20 newest candidates,
// favouring the newest: monerod's get_random_index_with_fixed_probability
// gives index 0 of 20 with probability 114/305 (x < 114 of x uniform in
// [0, 304]), a uniform pick 1/20; 300 picks give the newest about 112 times
// (standard deviation 8) where a uniform pick gives it 15.
func TestWhiteCandidatesFavourNewest(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	p := newPeerList("")
	for i := range 30 {
		p.addWhite(entry("5.5."+strconv.Itoa(i)+".1:18080", uint64(i+1)), now.Add(time.Duration(i)*time.Second))
	}
	newest := 0
	for range 300 {
		got := p.candidates(1, whiteShare(1, 0), now, map[netip.Prefix]bool{}, nil)
		if len(got) != 1 {
			t.Fatalf("%d candidates for one slot", len(got))
		}
		i, _ := strconv.Atoi(strings.Split(got[0].Address.String(), ".")[2])
		if i < 10 {
			t.Fatalf("picked %s, not one of the 20 newest white peers", got[0].Address)
		}
		if i == 29 {
			newest++
		}
	}
	if newest < 60 {
		t.Fatalf("the newest white peer picked %d times of 300; want about 112", newest)
	}
	for m := range 25 {
		for range 50 {
			if i := fixedProbabilityIndex(m); i < 0 || i > max(m, 0) {
				t.Fatalf("fixedProbabilityIndex(%d) = %d", m, i)
			}
		}
	}
}

// Configured peers are kept in the form connections are keyed by, so a
// connected exclusive node is recognised however it was written.
func TestConfiguredAddressesNormalised(t *testing.T) {
	tn := hostileNode(t)
	n, err := New(Config{Chain: tn.chain, ExclusiveNodes: []string{"[2001:DB8::1]:18080", "[::ffff:8.8.8.8]:18080"}, Offline: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := n.cfg.ExclusiveNodes; got[0] != "[2001:db8::1]:18080" || got[1] != "8.8.8.8:18080" {
		t.Fatalf("configured addresses kept as %q", got)
	}
}

// IPv6 hosts count per address, as monerod keys them (host_str); fails
// are forgotten after an hour; the maps stay bounded under many
// misbehaving addresses.
func TestBanListGrouping(t *testing.T) {
	b := newBanList()
	now := time.Unix(1_800_000_000, 0)
	for i := 0; i < failsBeforeBan-1; i++ {
		if b.fail(netip.MustParseAddr("2001:db8:1:2::"+strconv.Itoa(i+1)), 1, now) {
			t.Fatal("one fail each from addresses of one /64 banned one")
		}
	}
	for i := 0; i < failsBeforeBan; i++ {
		b.fail(netip.MustParseAddr("2001:db8:1:2::99"), 1, now)
	}
	if !b.fail(netip.MustParseAddr("2001:db8:1:2::99"), 1, now) || !b.banned(netip.MustParseAddr("2001:db8:1:2::99"), now) {
		t.Fatal("eleven fails from one IPv6 address did not ban it")
	}
	if b.banned(netip.MustParseAddr("2001:db8:1:2::98"), now) {
		t.Fatal("a neighbour in the same /64 is banned too")
	}
	ip := netip.MustParseAddr("7.7.7.7")
	for i := 0; i < failsBeforeBan; i++ {
		b.fail(ip, 1, now)
	}
	if b.fail(ip, 1, now.Add(2*time.Hour)) {
		t.Fatal("fails two hours old still counted")
	}
	for i := 0; i < 3*banListSize; i++ {
		b.fail(netip.AddrFrom4([4]byte{10, byte(i >> 16), byte(i >> 8), byte(i)}), 1, now.Add(time.Duration(i)*time.Millisecond))
	}
	if len(b.fails) > banListSize+1 {
		t.Fatalf("%d fail counters kept (bound %d)", len(b.fails), banListSize)
	}
}

// The white list's share of the outgoing slots is monerod's
// connections_maker's: while fewer than 70 % of --out-peers (12: 8) are
// connected, white peers up to that count and then grey ones; at or past
// it, grey first; white again when the grey list runs out.
func TestCandidatesWhiteShareAsMonerod(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	p := newPeerList("")
	for i := 1; i <= 20; i++ {
		p.addWhite(entry("6."+strconv.Itoa(i)+".0.1:18080", uint64(i)), now)
		p.merge([]portable.PeerlistEntry{entry("7."+strconv.Itoa(i)+".0.1:18080", uint64(100+i))}, now)
	}
	split := func(got []portable.PeerlistEntry) (white, grey int) {
		for _, e := range got {
			if e.Address.IP.As4()[0] == 6 {
				white++
			} else {
				grey++
			}
		}
		return white, grey
	}
	const maxOut = 12
	for _, c := range []struct{ out, white, grey int }{
		{0, 8, 4},  // 8 white (70 % of 12, rounded down), then grey
		{5, 3, 4},  // white up to 8 connections, then grey
		{8, 0, 4},  // the share met: grey only
		{11, 0, 1}, // one slot left: grey
	} {
		for range 10 {
			got := p.candidates(maxOut-c.out, whiteShare(maxOut, c.out), now, map[netip.Prefix]bool{}, nil)
			if w, g := split(got); w != c.white || g != c.grey {
				t.Fatalf("%d of %d connected: %d white and %d grey candidates, want %d and %d", c.out, maxOut, w, g, c.white, c.grey)
			}
		}
	}
	// Without grey peers the free slots go to white ones.
	q := newPeerList("")
	for i := 1; i <= 20; i++ {
		q.addWhite(entry("6."+strconv.Itoa(i)+".0.1:18080", uint64(i)), now)
	}
	if got := q.candidates(4, whiteShare(maxOut, 8), now, map[netip.Prefix]bool{}, nil); len(got) != 4 {
		t.Fatalf("8 of 12 connected, no grey peers: %d white candidates, want 4", len(got))
	}
}

// The anchor list (monerod's anchor_peerlist_entry list): an address is
// added once and keeps its first entry, only addresses the list keeps are
// added, it is taken oldest first_seen first and left empty, and it goes
// through the state file with the white and grey lists.
func TestAnchorListRulesAndPersistence(t *testing.T) {
	file := filepath.Join(t.TempDir(), "p2pstate.json")
	p := newPeerList(file)
	t0 := time.Unix(1_800_000_000, 0)
	a, b, c := entry("1.1.1.1:18080", 1).Address, entry("8.8.8.8:18080", 2).Address, entry("9.9.9.9:18080", 3).Address
	p.addAnchor(a, 1, t0.Add(time.Hour))
	p.addAnchor(b, 2, t0)
	p.addAnchor(a, 9, t0.Add(2*time.Hour)) // already listed: kept as it was
	p.addAnchor(entry("127.0.0.1:18080", 4).Address, 4, t0)
	p.addAnchor(c, 3, t0.Add(3*time.Hour))
	p.removeAnchor(c)
	want := []anchorRecord{{b, 2, t0}, {a, 1, t0.Add(time.Hour)}}
	if got := p.anchorList(); !slices.Equal(got, want) {
		t.Fatalf("anchors %+v, want %+v", got, want)
	}
	if err := p.save(); err != nil {
		t.Fatal(err)
	}
	q := newPeerList(file)
	if err := q.load(); err != nil {
		t.Fatal(err)
	}
	if got := q.takeAnchors(); !slices.EqualFunc(got, want, sameAnchor) {
		t.Fatalf("reloaded anchors %+v, want %+v", got, want)
	}
	if got := q.anchorList(); len(got) != 0 {
		t.Fatalf("anchors %+v left after taking them", got)
	}
	if err := q.saveIfChanged(); err != nil {
		t.Fatal(err)
	}
	r := newPeerList(file)
	if err := r.load(); err != nil || len(r.anchorList()) != 0 {
		t.Fatalf("after taking the anchors and saving: %v, anchors %+v", err, r.anchorList())
	}

	// A file written before the anchors (no "anchors" field) loads.
	old := `{"version":1,"white":[{"address":"1.1.1.1:18080","id":7,"last_seen":1800000000}],"grey":[{"address":"8.8.8.8:18080","id":8,"last_seen":1}]}`
	if err := os.WriteFile(file, []byte(old), 0o600); err != nil {
		t.Fatal(err)
	}
	s := newPeerList(file)
	if err := s.load(); err != nil {
		t.Fatalf("a state file without anchors: %v", err)
	}
	if w, g := s.sizes(); w != 1 || g != 1 || len(s.anchorList()) != 0 {
		t.Fatalf("a state file without anchors: %d white, %d grey, anchors %+v", w, g, s.anchorList())
	}
	// Anchors the list would not keep are left out of a loaded file.
	mixed := `{"version":1,"white":[],"grey":[],"anchors":[{"address":"127.0.0.1:18080","id":1,"first_seen":5},` +
		`{"address":"not an address","id":2,"first_seen":5},{"address":"1.1.1.1:18080","id":3,"first_seen":5}]}`
	if err := os.WriteFile(file, []byte(mixed), 0o600); err != nil {
		t.Fatal(err)
	}
	m := newPeerList(file)
	if err := m.load(); err != nil {
		t.Fatal(err)
	}
	if got := m.anchorList(); len(got) != 1 || got[0].Address != a || got[0].ID != 3 || got[0].FirstSeen.Unix() != 5 {
		t.Fatalf("anchors loaded %+v, want 1.1.1.1:18080 alone", got)
	}
	// Damaged anchors are refused with the file.
	for _, bad := range []string{`{"version":1,"anchors":5}`, `{"version":1,"anchors":[{"address":1}]}`,
		`{"version":1,"anchors":[{"address":"1.1.1.1:18080","first_seen":"x"}]}`, `{"version":1,"anchors":[`} {
		if err := os.WriteFile(file, []byte(bad), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := newPeerList(file).load(); err == nil {
			t.Errorf("a damaged state file (%q) loaded without error", bad)
		}
	}
}

func sameAnchor(x, y anchorRecord) bool {
	return x.Address == y.Address && x.ID == y.ID && x.FirstSeen.Equal(y.FirstSeen)
}
