package p2p

import (
	"encoding/json"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/gonero/gonero/params"
)

// Anchor peers (monerod's anchor list): every outgoing peer that
// completes its handshake becomes an anchor and leaves the list when its
// connection closes, but not when the node stops, so the state file keeps
// the outgoing peers of the run. Restarted on that file, the node dials
// its anchors before any white peer, though twenty-five white peers seen
// more recently would otherwise crowd them out; an anchor that cannot be
// reached is dropped, one that answers is an anchor again with its first
// first_seen. Every address is public-looking and reaches nothing but the
// loopback peers the recorder routes it to.
func TestAnchorPeersAcrossRestart(t *testing.T) {
	quiet := func() Config {
		return Config{Chain: newNetChain(t, params.Mainnet), ListenAddr: "127.0.0.1:0",
			Dial: (&netRecorder{}).dial, LookupHost: (&netRecorder{}).lookup}
	}
	peerA, peerB, peerC := startNode(t, quiet()), startNode(t, quiet()), startNode(t, quiet())
	const a, b, c = "203.0.113.10:18080", "198.51.100.20:18080", "192.0.2.30:18080"
	file := filepath.Join(t.TempDir(), "p2pstate.json")
	chain := newNetChain(t, params.Mainnet)
	run := func(rec *netRecorder, outPeers int, addPeers []string) (*Node, func() error) {
		n, err := New(Config{Chain: chain, StateFile: file, OutPeers: outPeers, Peers: addPeers,
			Dial: rec.dial, LookupHost: rec.lookup, ConnectInterval: 100 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		if err := n.Start(); err != nil {
			t.Fatal(err)
		}
		closeOnce := sync.OnceValue(n.Close)
		t.Cleanup(func() { closeOnce() })
		return n, closeOnce
	}
	anchorsOf := func(list []anchorRecord) (out []string) {
		for _, r := range list {
			out = append(out, r.Address.String())
		}
		slices.Sort(out)
		return out
	}

	// First run: three outgoing peers, three anchors with their peer ids.
	rec1 := &netRecorder{routes: map[string]string{a: peerA.Addr().String(), b: peerB.Addr().String(), c: peerC.Addr().String()}}
	n1, close1 := run(rec1, 3, []string{a, b, c})
	ids := map[string]uint64{a: peerA.PeerID(), b: peerB.PeerID(), c: peerC.PeerID()}
	eventually(t, 20*time.Second, "three anchors", func() bool { return len(n1.peers.anchorList()) == 3 })
	for _, r := range n1.peers.anchorList() {
		if ids[r.Address.String()] != r.ID {
			t.Errorf("anchor %s has peer id %x, the peer's is %x", r.Address, r.ID, ids[r.Address.String()])
		}
	}
	// A peer that goes away while the node runs leaves the anchor list.
	peerC.Close()
	eventually(t, 20*time.Second, "the closed peer to leave the anchors", func() bool {
		return slices.Equal(anchorsOf(n1.peers.anchorList()), []string{b, a})
	})
	firstSeen := map[string]time.Time{}
	for _, r := range n1.peers.anchorList() {
		firstSeen[r.Address.String()] = r.FirstSeen
	}
	// Stopping closes the other two without touching the list.
	if err := close1(); err != nil {
		t.Fatal(err)
	}
	check := newPeerList(file)
	if err := check.load(); err != nil {
		t.Fatal(err)
	}
	if got := anchorsOf(check.anchorList()); !slices.Equal(got, []string{b, a}) {
		t.Fatalf("state file anchors %v after a clean stop, want %v", got, []string{b, a})
	}

	// Between the runs: the three peers were seen long ago, twenty-five
	// others just now (the white list's pick takes the newest twenty).
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var st stateFile
	if err := json.Unmarshal(raw, &st); err != nil {
		t.Fatal(err)
	}
	for i := range st.White {
		st.White[i].LastSeen = 1
	}
	var others []string
	for i := range 25 {
		addr := netip.AddrPortFrom(netip.AddrFrom4([4]byte{11, byte(i), 0, 1}), 18080).String()
		others = append(others, addr)
		st.White = append(st.White, savedPeer{Address: addr, ID: uint64(1000 + i), LastSeen: time.Now().Unix()})
	}
	raw, err = json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, raw, 0o600); err != nil {
		t.Fatal(err)
	}

	// Second run, with b gone: the first two dials are the anchors; b's
	// fails and is dropped, a is an anchor again with its first_seen.
	peerB.Close()
	rec2 := &netRecorder{routes: map[string]string{a: peerA.Addr().String()}}
	n2, close2 := run(rec2, 2, nil)
	eventually(t, 20*time.Second, "two dials", func() bool {
		dials, _ := rec2.seen()
		return len(dials) >= 2
	})
	dials, _ := rec2.seen()
	first := slices.Clone(dials[:2])
	slices.Sort(first)
	if !slices.Equal(first, []string{b, a}) {
		t.Fatalf("first dials %v, want the anchors %v first", dials, []string{a, b})
	}
	eventually(t, 20*time.Second, "a to be an anchor again and b's dial to fail", func() bool {
		return n2.peers.recentlyFailed(b, time.Now()) && len(n2.peers.anchorList()) == 1
	})
	got := n2.peers.anchorList()
	if got[0].Address.String() != a || got[0].ID != peerA.PeerID() || !got[0].FirstSeen.Equal(firstSeen[a].Truncate(time.Second)) {
		t.Fatalf("anchors %+v, want %s (id %x, first seen %v) alone", got, a, peerA.PeerID(), firstSeen[a].Truncate(time.Second))
	}
	for _, d := range dials {
		if d != a && d != b && !slices.Contains(others, d) {
			t.Errorf("dialled %s, neither an anchor nor a white peer", d)
		}
	}
	if err := close2(); err != nil {
		t.Fatal(err)
	}
	check = newPeerList(file)
	if err := check.load(); err != nil {
		t.Fatal(err)
	}
	if got := anchorsOf(check.anchorList()); !slices.Equal(got, []string{a}) {
		t.Fatalf("state file anchors %v after the second run, want %v", got, []string{a})
	}
}
