package p2p

import (
	"context"
	"errors"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/netip"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/gonero/gonero/levin"
	"github.com/gonero/gonero/params"
	"github.com/gonero/gonero/portable"
)

// seedList is monerod's m_seed_nodes for the public zone: filled on first
// use (connect_to_seed), from --seed-node first and then the network's
// built-in seeds, the mainnet DNS names resolved at that moment.
type seedList struct {
	mu            sync.Mutex // L5 (Node's lock order): held over the DNS lookups, takes nothing of the node's
	initialized   bool
	nodes         []string // IP:port, keyed as connections are
	fallbackAdded bool     // m_fallback_seed_nodes_added
	warned        atomic.Bool
}

// defaultDial is the dialer outside tests.
func defaultDial(ctx context.Context, addr string) (net.Conn, error) {
	var d net.Dialer
	return d.DialContext(ctx, "tcp", addr)
}

// defaultLookupHost resolves A records only, as monerod's DNS seed lookup
// (DNSResolver::get_ipv4) does.
func defaultLookupHost(ctx context.Context, host string) ([]string, error) {
	ips, err := net.DefaultResolver.LookupIP(ctx, "ip4", host)
	out := make([]string, 0, len(ips))
	for _, ip := range ips {
		out = append(out, ip.String())
	}
	return out, err
}

// seedsAllowed says whether this node may use seeds at all: monerod uses
// none with --offline or with exclusive nodes (get_dns_seed_nodes,
// connect_to_seed).
func (n *Node) seedsAllowed() bool {
	return !n.cfg.Offline && !n.exclusive
}

// seedNodes returns the seed list, building it on first use as
// connect_to_seed does: the --seed-node addresses, then the built-in ones
// (monerod adds its built-in seeds to --seed-node's, it does not replace
// them). On mainnet that means resolving the DNS seeds, all in parallel
// and bounded by DNSSeedTimeout; when they yield fewer than
// MIN_WANTED_SEED_NODES addresses the IP list is added at once.
func (n *Node) seedNodes() []string {
	s := &n.seeds
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.initialized {
		return slices.Clone(s.nodes)
	}
	s.initialized = true
	s.nodes = append(s.nodes, n.cfg.SeedNodes...)
	if !n.seedsAllowed() {
		return slices.Clone(s.nodes)
	}
	b := n.cfg.BuiltinSeeds
	if len(b.DNS) == 0 {
		// testnet and stagenet: the IP list is the seed list (and, as in
		// monerod, not yet "the fallback", which may be added again).
		s.add(b.IP)
		return slices.Clone(s.nodes)
	}
	found := n.resolveDNSSeeds(b.DNS)
	s.add(found)
	if len(found) < params.MinWantedSeedNodes {
		if len(found) == 0 {
			n.log.Info("DNS seed node lookup either timed out or failed, falling back to defaults")
		} else {
			n.log.Info("not enough DNS seed nodes found, using fallback defaults too", "found", len(found))
		}
		s.add(b.IP)
		s.fallbackAdded = true
	}
	return slices.Clone(s.nodes)
}

// add appends the addresses not yet listed (normalised as connections are
// keyed; unparsable ones are skipped). It returns how many were new.
func (s *seedList) add(addrs []string) int {
	added := 0
	for _, a := range addrs {
		ap, err := netip.ParseAddrPort(a)
		if err != nil {
			continue
		}
		a = netAddress(ap).String()
		if !slices.Contains(s.nodes, a) {
			s.nodes = append(s.nodes, a)
			added++
		}
	}
	return added
}

// addFallback adds the IP seeds once after every seed failed
// (connect_to_seed's "trying fallback seeds"); it reports whether any
// address was new. monerod appends the list even when it is already
// there, which only repeats addresses that just failed; gonero skips
// those.
func (n *Node) addFallbackSeeds() bool {
	s := &n.seeds
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fallbackAdded {
		return false
	}
	s.fallbackAdded = true
	return s.add(n.cfg.BuiltinSeeds.IP) > 0
}

// resolveDNSSeeds looks every DNS seed up in parallel and keeps what
// arrived within the timeout (a late lookup is abandoned, as monerod
// detaches its thread). The results are IPv4 addresses on the network's
// P2P port, sorted and without repeats (monerod collects them in a
// std::set).
func (n *Node) resolveDNSSeeds(hosts []string) []string {
	ctx, cancel := context.WithTimeout(n.ctx, n.cfg.DNSSeedTimeout)
	defer cancel()
	port := strconv.Itoa(int(n.chain.Network().P2PPort()))
	// A lookup still running at the timeout is abandoned (monerod
	// detaches its thread): it writes under mu into a slice nobody reads.
	var mu sync.Mutex
	results := make([][]string, len(hosts))
	var wg sync.WaitGroup
	for i, h := range hosts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			addrs, err := n.cfg.LookupHost(ctx, h)
			if err != nil {
				n.log.Debug("DNS seed lookup failed", "host", h, "err", err)
			}
			var keep []string
			for _, a := range addrs {
				if ip, err := netip.ParseAddr(a); err == nil && ip.Unmap().Is4() {
					keep = append(keep, net.JoinHostPort(ip.Unmap().String(), port))
				}
			}
			n.log.Debug("DNS seed lookup", "host", h, "results", len(keep))
			mu.Lock()
			results[i] = keep
			mu.Unlock()
		}()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
		n.log.Warn("DNS seed lookups timed out", "after", n.cfg.DNSSeedTimeout)
	}
	mu.Lock()
	defer mu.Unlock()
	var all []string
	for _, r := range results {
		all = append(all, r...)
	}
	slices.Sort(all)
	return slices.Compact(all)
}

// connectToSeed is monerod's connect_to_seed: from a random seed on, take
// the peer list of the first seed that answers a handshake, then hang up;
// after a full round of failures add the IP fallback once and go on, else
// give up until the next call.
func (n *Node) connectToSeed() {
	if !n.seedsAllowed() {
		return
	}
	seeds := n.seedNodes()
	if len(seeds) == 0 {
		return
	}
	i := rand.IntN(len(seeds))
	connectedToOne := false
	for tries := 1; n.ctx.Err() == nil; tries++ {
		a := seeds[i]
		switch {
		case n.isConnected(a):
			connectedToOne = true
		case n.takeSeedPeerList(a) == nil:
			return
		}
		if tries >= len(seeds) {
			if !n.addFallbackSeeds() {
				if !connectedToOne {
					// Every round without peers ends here: said once
					// loudly, then quietly.
					level := slog.LevelDebug
					if !n.seeds.warned.Swap(true) {
						level = slog.LevelWarn
					}
					n.log.Log(n.ctx, level, "failed to connect to any of seed peers, continuing without seeds")
				}
				return
			}
			n.log.Warn("failed to connect to any of seed peers, trying fallback seeds")
			i = len(seeds) - 1
			seeds = n.seedNodes()
		}
		i = (i + 1) % len(seeds)
	}
}

// isConnected says whether an outgoing connection to addr is open (or
// being opened): monerod's is_peer_used.
func (n *Node) isConnected(addr string) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.dialing[addr] {
		return true
	}
	for c := range n.conns {
		if c.addr.String() == addr {
			return true
		}
	}
	return false
}

// takeSeedPeerList is takePeerList for a public seed given as IP:port.
func (n *Node) takeSeedPeerList(addr string) error {
	ap, err := parseAddr(addr)
	if err != nil {
		return errSeedUnusable
	}
	return n.takePeerList(n.public, netAddress(ap))
}

// errSeedUnusable is a seed that is banned or not an address.
var errSeedUnusable = errors.New("p2p: seed address unusable")

// takePeerList is try_to_connect_and_handshake_with_new_peer with
// just_take_peerlist, in zone z: connect, handshake, merge the peer list
// the seed sends into the zone's grey list and hang up. The seed itself is
// not put in the white list and its chain is not looked at. In the public
// zone a seed that fails is remembered as a failed address (an
// anonymity zone's seeds are only tried again on the next round).
func (n *Node) takePeerList(z *zone, a portable.NetAddress) error {
	key := a.String()
	if z.public() && n.bans.banned(a.IP.Unmap(), n.now()) {
		return errSeedUnusable
	}
	n.log.Debug("connecting to seed node for its peer list", "zone", z.id, "addr", key)
	ctx, cancel := context.WithTimeout(n.ctx, z.connectTimeout)
	nc, err := z.connect(ctx, a)
	cancel()
	if err != nil {
		if z.public() {
			n.log.Debug("seed connect failed", "addr", key, "err", err)
			z.peers.failed(key, n.now())
		} else {
			n.log.Info("zone seed connection failed", "zone", z.id, "addr", key, "err", err)
		}
		return err
	}
	c := newConn(n, nc, false, a)
	if !z.public() {
		c.anon = z
	}
	// Like a ping-back connection it is short-lived and not counted or
	// synced from.
	c.ping = true
	c.rd.Limit = levin.MaxPacketSize
	n.addConn(c)
	resp, err := n.invokeHandshake(c)
	if err == nil {
		err = n.mergePeers(c, resp.LocalPeerlist)
	}
	close(c.handshaken)
	if err != nil {
		n.log.Info("seed handshake failed", "zone", z.id, "addr", key, "err", err)
		if z.public() {
			z.peers.failed(key, n.now())
		}
		n.dropConn(c, err)
		return err
	}
	n.dropConn(c, nil)
	n.log.Debug("seed node asked for its peers and closed", "zone", z.id, "addr", key, "peers", len(resp.LocalPeerlist))
	return nil
}
