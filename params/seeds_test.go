package params

import (
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The seed lists' shape: IPv4 literals on the network's P2P port; testnet
// and stagenet share their hosts; DNS seeds on mainnet only; none on
// regtest; callers get copies.
func TestSeedNodesShape(t *testing.T) {
	hosts := map[Network][]string{}
	for _, n := range Networks() {
		s := n.SeedNodes()
		if n == Regtest {
			if len(s.DNS)+len(s.IP)+len(s.Tor)+len(s.I2P) != 0 {
				t.Errorf("regtest has seeds: %+v", s)
			}
			continue
		}
		if len(s.IP) == 0 {
			t.Errorf("%s has no IP seeds", n)
		}
		if (len(s.DNS) > 0) != (n == Mainnet) || (len(s.Tor) > 0) != (n == Mainnet) || (len(s.I2P) > 0) != (n == Mainnet) {
			t.Errorf("%s: DNS %v Tor %v I2P %v; only mainnet has them", n, s.DNS, s.Tor, s.I2P)
		}
		for _, a := range s.IP {
			ap, err := netip.ParseAddrPort(a)
			if err != nil || !ap.Addr().Is4() || ap.Port() != n.P2PPort() {
				t.Errorf("%s seed %q: want IPv4:%d", n, a, n.P2PPort())
				continue
			}
			hosts[n] = append(hosts[n], ap.Addr().String())
		}
	}
	if !slices.Equal(hosts[Testnet], hosts[Stagenet]) {
		t.Errorf("testnet hosts %v, stagenet hosts %v: monerod uses the same five", hosts[Testnet], hosts[Stagenet])
	}
	s := Mainnet.SeedNodes()
	s.IP[0] = "x"
	if Mainnet.SeedNodes().IP[0] == "x" {
		t.Error("SeedNodes returned shared storage")
	}
}

// The seed lists against monerod's: testdata/monerod-seeds.txt holds the
// seeds of monerod's source at release-v0.18 (net_node.inl
// get_ip_seed_nodes and get_seed_nodes, net_node.h m_seed_nodes_list,
// MIN_WANTED_SEED_NODES), one fact a line, with the commit they were read
// from. Regtest (monerod's fakechain) has none, so no line.
func TestSeedNodesMatchMonerod(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "monerod-seeds.txt"))
	if err != nil {
		t.Fatal(err)
	}
	theirs := map[string][]string{} // "network kind" → values in monerod's order
	minWanted := ""
	for n, line := range strings.Split(string(b), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		if len(f) != 3 {
			t.Fatalf("monerod-seeds.txt:%d: want \"network kind value\", got %q", n+1, line)
		}
		if f[1] == "min" {
			minWanted = f[2]
			continue
		}
		theirs[f[0]+" "+f[1]] = append(theirs[f[0]+" "+f[1]], f[2])
	}
	if len(theirs) != 6 || minWanted == "" {
		t.Fatalf("monerod-seeds.txt: %d lists and min %q; want six lists (IP seeds of three networks, DNS, Tor, I2P) and the minimum", len(theirs), minWanted)
	}
	for name, n := range map[string]Network{"mainnet": Mainnet, "testnet": Testnet, "stagenet": Stagenet, "regtest": Regtest} {
		s := n.SeedNodes()
		for kind, ours := range map[string][]string{"ip": s.IP, "dns": s.DNS, "tor": s.Tor, "i2p": s.I2P} {
			if !slices.Equal(theirs[name+" "+kind], ours) {
				t.Errorf("%s %s seeds: monerod %v, params %v", name, kind, theirs[name+" "+kind], ours)
			}
		}
	}
	if minWanted != strconv.Itoa(MinWantedSeedNodes) {
		t.Errorf("MIN_WANTED_SEED_NODES: monerod %s, params %d", minWanted, MinWantedSeedNodes)
	}
}
