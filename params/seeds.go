package params

// SeedNodes are a network's built-in seed nodes, as monerod release-v0.18
// has them (net_node.h m_seed_nodes_list, net_node.inl get_ip_seed_nodes
// and get_seed_nodes). A node asks a seed only for its peer list, and only
// when its own lists give it nothing to connect to.
type SeedNodes struct {
	// DNS are host names whose A records are seeds on the network's P2P
	// port (mainnet only).
	DNS []string
	// IP are host:port seeds: the fallback when DNS yields too few
	// addresses, and the only seeds of testnet and stagenet.
	IP []string
	// Tor and I2P are the anonymity-network seeds (host:port for Tor; the
	// I2P ones have no port, monerod uses its default). Data only: gonero
	// has no Tor or I2P zone.
	Tor, I2P []string
}

// MinWantedSeedNodes is monerod's MIN_WANTED_SEED_NODES: when the DNS seeds
// yield fewer addresses, the IP list is added.
const MinWantedSeedNodes = 12

// DNSSeedTimeoutMS bounds all DNS seed lookups together
// (CRYPTONOTE_DNS_TIMEOUT_MS), in milliseconds.
const DNSSeedTimeoutMS = 20000

// The same five hosts serve testnet and stagenet, each on its network's
// port; mainnet has a sixth (88.198.163.90).
var (
	mainnetSeeds = SeedNodes{
		DNS: []string{"seeds.moneroseeds.se", "seeds.moneroseeds.ae.org", "seeds.moneroseeds.ch", "seeds.moneroseeds.li"},
		IP: []string{"176.9.0.187:18080", "88.198.163.90:18080", "192.99.8.110:18080", "37.187.74.171:18080",
			"88.99.195.15:18080", "5.104.84.64:18080"},
		Tor: []string{
			"zbjkbsxc5munw3qusl7j2hpcmikhqocdf4pqhnhtpzw5nt5jrmofptid.onion:18083",
			"plowsof3t5hogddwabaeiyrno25efmzfxyro2vligremt7sxpsclfaid.onion:18083",
			"plowsoffjexmxalw73tkjmf422gq6575fc7vicuu4javzn2ynnte6tyd.onion:18083",
			"plowsofe6cleftfmk2raiw5h2x66atrik3nja4bfd3zrfa2hdlgworad.onion:18083",
			"aclc4e2jhhtr44guufbnwk5bzwhaecinax4yip4wr4tjn27sjsfg6zqd.onion:18083",
			"lykcas4tus7mkm4bhsgqe4drtd4awi7gja24goscc47xfgzj54yofyqd.onion:18083",
		},
		I2P: []string{
			"uqj3aphckqtjsitz7kxx5flqpwjlq5ppr3chazfued7xucv3nheq.b32.i2p",
			"vdmnehdjkpkg57nthgnjfuaqgku673r5bpbqg56ix6fyqoywgqrq.b32.i2p",
			"ugnlcdciyhghh2zert7c3kl4biwkirc43ke33jiy5slnd3mv2trq.b32.i2p",
		},
	}
	testnetSeeds = SeedNodes{
		IP: []string{"176.9.0.187:28080", "192.99.8.110:28080", "37.187.74.171:28080", "88.99.195.15:28080", "5.104.84.64:28080"},
	}
	stagenetSeeds = SeedNodes{
		IP: []string{"176.9.0.187:38080", "192.99.8.110:38080", "37.187.74.171:38080", "88.99.195.15:38080", "5.104.84.64:38080"},
	}
)

// SeedNodes returns the network's built-in seeds (fresh copies). Regtest
// (FAKECHAIN) has none.
func (n Network) SeedNodes() SeedNodes {
	var s SeedNodes
	switch n {
	case Mainnet:
		s = mainnetSeeds
	case Testnet:
		s = testnetSeeds
	case Stagenet:
		s = stagenetSeeds
	default:
		return SeedNodes{}
	}
	cp := func(l []string) []string { return append([]string(nil), l...) }
	return SeedNodes{DNS: cp(s.DNS), IP: cp(s.IP), Tor: cp(s.Tor), I2P: cp(s.I2P)}
}
