package params

import (
	"net/netip"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
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

// The seed lists against monerod's own source at release-v0.18
// (net_node.inl get_ip_seed_nodes and get_seed_nodes, net_node.h
// m_seed_nodes_list), read from the monero mirror when this machine has
// it. The mirror is a development aid, not part of CI: without it this
// check is skipped and TestSeedNodesShape still runs.
func TestSeedNodesMatchMonerodSource(t *testing.T) {
	const mirror = "/work/.mirror/monero-project+monero/repo"
	show := func(path string) string {
		out, err := exec.Command("git", "-C", mirror, "show", "release-v0.18:"+path).Output()
		if err != nil {
			t.Skipf("monero source mirror not available (%v)", err)
		}
		return string(out)
	}
	inl, h := show("src/p2p/net_node.inl"), show("src/p2p/net_node.h")
	quoted := regexp.MustCompile(`"([^"]+)"`)
	// get_ip_seed_nodes: full_addrs.insert("a:p") lines grouped by branch.
	ipFn := inl[regexp.MustCompile(`get_ip_seed_nodes\(\) const`).FindStringIndex(inl)[0]:]
	ipFn = ipFn[:regexp.MustCompile(`return full_addrs;`).FindStringIndex(ipFn)[0]]
	branches := regexp.MustCompile(`(?s)(TESTNET|STAGENET|FAKECHAIN|else\s*\n\s*\{)(.*?)\}`).FindAllStringSubmatch(ipFn, -1)
	got := map[string][]string{}
	for _, b := range branches {
		key := b[1]
		if key != "TESTNET" && key != "STAGENET" && key != "FAKECHAIN" {
			key = "MAINNET"
		}
		for _, m := range quoted.FindAllStringSubmatch(b[2], -1) {
			got[key] = append(got[key], m[1])
		}
	}
	for key, n := range map[string]Network{"MAINNET": Mainnet, "TESTNET": Testnet, "STAGENET": Stagenet, "FAKECHAIN": Regtest} {
		if !slices.Equal(got[key], n.SeedNodes().IP) {
			t.Errorf("%s IP seeds: monerod %v, params %v", n, got[key], n.SeedNodes().IP)
		}
	}
	dns := regexp.MustCompile(`(?s)m_seed_nodes_list\s*=\s*\{(.*?)\}`).FindStringSubmatch(h)
	var dnsNames []string
	for _, m := range quoted.FindAllStringSubmatch(dns[1], -1) {
		dnsNames = append(dnsNames, m[1])
	}
	if !slices.Equal(dnsNames, Mainnet.SeedNodes().DNS) {
		t.Errorf("DNS seeds: monerod %v, params %v", dnsNames, Mainnet.SeedNodes().DNS)
	}
	tor := regexp.MustCompile(`(?s)zone::tor:.*?return \{(.*?)\};`).FindStringSubmatch(inl)
	i2p := regexp.MustCompile(`(?s)zone::i2p:.*?return \{(.*?)\};`).FindStringSubmatch(inl)
	for _, c := range []struct {
		name string
		src  string
		ours []string
	}{{"Tor", tor[1], Mainnet.SeedNodes().Tor}, {"I2P", i2p[1], Mainnet.SeedNodes().I2P}} {
		var theirs []string
		for _, m := range quoted.FindAllStringSubmatch(c.src, -1) {
			theirs = append(theirs, m[1])
		}
		if !slices.Equal(theirs, c.ours) {
			t.Errorf("%s seeds: monerod %v, params %v", c.name, theirs, c.ours)
		}
	}
	if m := regexp.MustCompile(`#define MIN_WANTED_SEED_NODES (\d+)`).FindStringSubmatch(inl); m == nil || m[1] != strconv.Itoa(MinWantedSeedNodes) {
		t.Errorf("MIN_WANTED_SEED_NODES: monerod %v, params %d", m, MinWantedSeedNodes)
	}
}
