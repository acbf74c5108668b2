package p2p

import (
	"context"
	"errors"
	"fmt"
	"net"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/gonero/gonero/anonaddr"
	"github.com/gonero/gonero/chain"
	"github.com/gonero/gonero/chaindb"
	"github.com/gonero/gonero/params"
)

// netRecorder is an injected dialer and resolver: it records every
// attempt and reaches nothing but the loopback addresses routes names,
// so that these tests never send a packet off the machine.
type netRecorder struct {
	mu      sync.Mutex
	dials   []string
	lookups []string
	routes  map[string]string   // dialled address -> real loopback address
	answers map[string][]string // DNS name -> addresses
}

var errRefusedByTest = errors.New("connection refused (test dialer)")

func (r *netRecorder) dial(ctx context.Context, addr string) (net.Conn, error) {
	r.mu.Lock()
	r.dials = append(r.dials, addr)
	to, ok := r.routes[addr]
	r.mu.Unlock()
	if !ok {
		return nil, errRefusedByTest
	}
	var d net.Dialer
	return d.DialContext(ctx, "tcp", to)
}

func (r *netRecorder) lookup(_ context.Context, host string) ([]string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.lookups = append(r.lookups, host)
	if a, ok := r.answers[host]; ok {
		return a, nil
	}
	return nil, &net.DNSError{Err: "no such host (test resolver)", Name: host, IsNotFound: true}
}

func (r *netRecorder) seen() (dials, lookups []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.dials), slices.Clone(r.lookups)
}

// newNetChain opens an empty chain (genesis only) of net.
func newNetChain(t *testing.T, net params.Network) *chain.Chain {
	t.Helper()
	db, err := chaindb.Open(filepath.Join(t.TempDir(), "chain.db"), chaindb.Options{Network: net.String()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	c, err := chain.Open(db, chain.Config{Network: net})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func startNode(t *testing.T, cfg Config) *Node {
	t.Helper()
	n, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := n.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { n.Close() })
	return n
}

// A mainnet node with empty peer lists and no flags turns to the built-in
// seeds (net_node.inl connect_to_seed): it resolves the four DNS seeds,
// adds the IP list because they yield fewer than 12 addresses, takes the
// peer list of the one seed that answers and hangs up on it, then dials
// the peer it learned. Everything it dials or resolves goes through the
// injected recorder.
func TestSeedsFromBuiltinList(t *testing.T) {
	const learned = "203.0.113.7:18080" // TEST-NET-3: a public-looking address no test reaches
	// The seed: a mainnet node whose white list holds one peer.
	seed := startNode(t, Config{Chain: newNetChain(t, params.Mainnet), ListenAddr: "127.0.0.1:0",
		Peers: []string{learned}, Dial: (&netRecorder{}).dial, LookupHost: (&netRecorder{}).lookup})
	builtin := params.Mainnet.SeedNodes()
	answering := builtin.IP[1] // 88.198.163.90:18080
	rec := &netRecorder{
		routes:  map[string]string{answering: seed.Addr().String()},
		answers: map[string][]string{builtin.DNS[0]: {"198.51.100.1", "2001:db8::1"}},
	}
	n := startNode(t, Config{Chain: newNetChain(t, params.Mainnet), BuiltinSeeds: builtin,
		Dial: rec.dial, LookupHost: rec.lookup, ConnectInterval: 100 * time.Millisecond})

	eventually(t, 20*time.Second, "the learned peer to be dialled", func() bool {
		dials, _ := rec.seen()
		return slices.Contains(dials, learned)
	})
	dials, lookups := rec.seen()
	slices.Sort(lookups)
	wantLookups := slices.Clone(builtin.DNS)
	slices.Sort(wantLookups)
	if !slices.Equal(slices.Compact(lookups), wantLookups) || len(lookups) != len(builtin.DNS) {
		t.Errorf("resolved %v, want each DNS seed once: %v", lookups, wantLookups)
	}
	// The IPv6 answer is dropped (A records only); the IPv4 one gets the
	// mainnet port.
	seeds := append([]string{"198.51.100.1:18080"}, builtin.IP...)
	for _, d := range dials {
		if d != learned && !slices.Contains(seeds, d) {
			t.Errorf("dialled %s, which is neither a seed nor a peer a seed gave", d)
		}
	}
	if !slices.Contains(dials, answering) {
		t.Errorf("the answering seed %s was never dialled; dials %v", answering, dials)
	}
	// The learned peer came through the grey list (and left it when it
	// failed); the seed was never put in the white list.
	if white, _ := n.PeerLists(); len(white) != 0 {
		t.Errorf("white list %v: a seed only gives its peer list", white)
	}
	// The seed connection was closed after the handshake.
	eventually(t, 5*time.Second, "the seed to see its connection closed", func() bool {
		return len(seed.Connections()) == 0
	})
	for _, c := range n.Connections() {
		if c.Address == answering {
			t.Errorf("still connected to the seed: %+v", c)
		}
	}
}

// Testnet and stagenet have IP seeds only, on their own ports, and no DNS
// lookup; regtest has no seeds. When every seed fails the node goes on
// without them (and asks again in a later round).
func TestSeedsPerNetwork(t *testing.T) {
	for _, net := range []params.Network{params.Testnet, params.Stagenet, params.Regtest} {
		t.Run(net.String(), func(t *testing.T) {
			rec := &netRecorder{}
			rounds := make(chan struct{}, 1)
			startNode(t, Config{Chain: newNetChain(t, net), BuiltinSeeds: net.SeedNodes(),
				Dial: rec.dial, LookupHost: rec.lookup, ConnectInterval: 100 * time.Millisecond,
				afterConnectRound: func(anonaddr.Zone) {
					select {
					case rounds <- struct{}{}:
					default:
					}
				}})
			want := net.SeedNodes().IP
			if net == params.Regtest {
				// Three rounds of the connect loop, each of which would
				// have asked the seeds with an empty white list.
				for range 3 {
					select {
					case <-rounds:
					case <-time.After(10 * time.Second):
						t.Fatal("the connect loop stopped running")
					}
				}
			} else {
				eventually(t, 10*time.Second, "every seed to be tried", func() bool {
					dials, _ := rec.seen()
					for _, w := range want {
						if !slices.Contains(dials, w) {
							return false
						}
					}
					return true
				})
			}
			dials, lookups := rec.seen()
			if len(lookups) != 0 {
				t.Errorf("resolved %v; %s has no DNS seeds", lookups, net)
			}
			for _, d := range dials {
				if !slices.Contains(want, d) {
					t.Errorf("dialled %s, not a %s seed", d, net)
				}
				if _, port, _ := netSplit(d); port != fmt.Sprint(net.P2PPort()) {
					t.Errorf("seed %s is not on %s's port %d", d, net, net.P2PPort())
				}
			}
		})
	}
}

func netSplit(a string) (string, string, error) { return net.SplitHostPort(a) }

// monerod uses no seeds with exclusive nodes or --offline: the node dials
// the exclusive node alone (or nothing) and resolves no name, even with
// the built-in seeds configured and empty peer lists.
func TestNoSeedsWhenExclusiveOrOffline(t *testing.T) {
	t.Run("exclusive", func(t *testing.T) {
		rec := &netRecorder{}
		const only = "127.0.0.1:9" // nothing answers: the node keeps retrying it
		startNode(t, Config{Chain: newNetChain(t, params.Mainnet), BuiltinSeeds: params.Mainnet.SeedNodes(),
			ExclusiveNodes: []string{only}, Dial: rec.dial, LookupHost: rec.lookup, ConnectInterval: 100 * time.Millisecond})
		eventually(t, 10*time.Second, "three attempts on the exclusive node", func() bool {
			dials, _ := rec.seen()
			return len(dials) >= 3
		})
		dials, lookups := rec.seen()
		for _, d := range dials {
			if d != only {
				t.Errorf("dialled %s besides the exclusive node", d)
			}
		}
		if len(lookups) != 0 {
			t.Errorf("resolved %v", lookups)
		}
	})
	t.Run("offline", func(t *testing.T) {
		rec := &netRecorder{}
		n := startNode(t, Config{Chain: newNetChain(t, params.Mainnet), BuiltinSeeds: params.Mainnet.SeedNodes(),
			ListenAddr: "127.0.0.1:0", Offline: true, Dial: rec.dial, LookupHost: rec.lookup, ConnectInterval: 100 * time.Millisecond})
		time.Sleep(time.Second)
		dials, lookups := rec.seen()
		if len(dials) != 0 || len(lookups) != 0 {
			t.Errorf("offline node dialled %v and resolved %v", dials, lookups)
		}
		if n.Addr() != nil {
			t.Errorf("offline node listens on %v", n.Addr())
		}
	})
}

// The mainnet DNS seeds are looked up in parallel, bounded by one timeout:
// a lookup that never answers (even ignoring its context) costs the
// timeout, not more, and the others' answers are used. Twelve addresses are enough (MIN_WANTED_SEED_NODES);
// eleven bring in the IP list as well. The list is built once.
func TestDNSSeedLookup(t *testing.T) {
	for _, c := range []struct {
		name     string
		perHost  int
		fallback bool
	}{{"twelve addresses", 4, false}, {"eleven addresses", 4, true}} {
		t.Run(c.name, func(t *testing.T) {
			builtin := params.Mainnet.SeedNodes()
			var mu sync.Mutex
			var calls []string
			var want []string
			answers := map[string][]string{}
			for i, h := range builtin.DNS[:3] {
				for j := range c.perHost {
					a := fmt.Sprintf("198.51.100.%d", 10*i+j+1)
					answers[h] = append(answers[h], a)
					want = append(want, a+":18080")
				}
			}
			if c.fallback { // one address fewer
				answers[builtin.DNS[0]] = answers[builtin.DNS[0]][1:]
				want = want[1:]
			}
			release := make(chan struct{})
			defer close(release)
			lookup := func(_ context.Context, host string) ([]string, error) {
				mu.Lock()
				calls = append(calls, host)
				mu.Unlock()
				if a, ok := answers[host]; ok {
					return a, nil
				}
				<-release // the fourth seed never answers, whatever ctx says
				return nil, errors.New("released")
			}
			n, err := New(Config{Chain: newNetChain(t, params.Mainnet), BuiltinSeeds: builtin, LookupHost: lookup,
				Dial: (&netRecorder{}).dial, DNSSeedTimeout: 300 * time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			n.ctx, n.cancel = context.WithCancel(context.Background())
			defer n.cancel()
			start := time.Now()
			got := n.seedNodes()
			took := time.Since(start)
			if took < 300*time.Millisecond || took > 5*time.Second {
				t.Errorf("lookups took %v with a 300 ms timeout and one silent seed", took)
			}
			slices.Sort(want)
			if c.fallback {
				want = append(want, builtin.IP...)
			}
			if !slices.Equal(got, want) {
				t.Errorf("seed list\n got %v\nwant %v", got, want)
			}
			again := n.seedNodes()
			mu.Lock()
			lookups := len(calls)
			mu.Unlock()
			if !slices.Equal(again, got) || lookups != len(builtin.DNS) {
				t.Errorf("second call: %v, %d lookups in all; want the same list and %d lookups", again, lookups, len(builtin.DNS))
			}
		})
	}
}

// --seed-node adds to the built-in seeds as in monerod (its addresses come
// first, then the network's), it does not replace them.
func TestSeedNodeFlagAddsToBuiltin(t *testing.T) {
	rec := &netRecorder{}
	const mine = "192.0.2.1:28080"
	startNode(t, Config{Chain: newNetChain(t, params.Testnet), BuiltinSeeds: params.Testnet.SeedNodes(), SeedNodes: []string{mine},
		Dial: rec.dial, LookupHost: rec.lookup, ConnectInterval: 100 * time.Millisecond})
	want := append([]string{mine}, params.Testnet.SeedNodes().IP...)
	eventually(t, 10*time.Second, "every seed to be tried", func() bool {
		dials, _ := rec.seen()
		for _, w := range want {
			if !slices.Contains(dials, w) {
				return false
			}
		}
		return true
	})
	dials, _ := rec.seen()
	for _, d := range dials {
		if !slices.Contains(want, d) {
			t.Errorf("dialled %s, neither --seed-node nor a testnet seed", d)
		}
	}
}
