package node

import (
	"log/slog"
	"net/netip"
	"slices"
	"testing"

	"github.com/gonero/gonero/p2p"
	"github.com/gonero/gonero/params"
)

// The P2P limit flags reach the P2P node: the defaults as monerod's, a
// changed rate and budgets as given, nonsense refused.
func TestP2PLimitFlagsReachNode(t *testing.T) {
	conf := func(edit func(*P2PConfig)) (p2p.Config, error) {
		o := DefaultConfig().P2P
		if edit != nil {
			edit(&o)
		}
		return o.p2pConfig(params.Regtest, t.TempDir(), slog.Default())
	}
	c, err := conf(nil)
	if err != nil || c.LimitRateUp != p2p.DefaultLimitRateUp || c.LimitRateDown != p2p.DefaultLimitRateDown ||
		c.LevinInBudget != p2p.DefaultLevinInBudget || c.SendBudget != p2p.DefaultSendBudget {
		t.Fatalf("defaults: up %d down %d budgets %d %d, %v", c.LimitRateUp, c.LimitRateDown, c.LevinInBudget, c.SendBudget, err)
	}
	c, err = conf(func(o *P2PConfig) {
		o.LimitRate, o.LimitRateDown, o.LevinInBudget, o.SendBudget = 500, 300, 1<<30, 1<<20
	})
	if err != nil || c.LimitRateUp != 500 || c.LimitRateDown != 300 || c.LevinInBudget != 1<<30 || c.SendBudget != 1<<20 {
		t.Fatalf("set: up %d down %d budgets %d %d, %v", c.LimitRateUp, c.LimitRateDown, c.LevinInBudget, c.SendBudget, err)
	}
	for name, bad := range map[string]func(*P2PConfig){
		"--limit-rate-up 0":        func(o *P2PConfig) { o.LimitRateUp = 0 },
		"--limit-rate-down -2":     func(o *P2PConfig) { o.LimitRateDown = -2 },
		"--p2p-levin-in-budget -1": func(o *P2PConfig) { o.LevinInBudget = -1 },
		"--p2p-send-budget -5":     func(o *P2PConfig) { o.SendBudget = -5 },
	} {
		if _, err := conf(bad); err == nil {
			t.Errorf("%s accepted", name)
		}
	}
}

// The P2P node draws on the node's one memory budget, beside the RPC and
// the ZMQ RPC: an RPC claim leaves P2P less room, and the metrics show
// every part (the pool beside the budget).
func TestP2PDrawsOnMemoryBudget(t *testing.T) {
	cfg := regtestConfig(t, t.TempDir())
	cfg.P2P.Offline = true
	cfg.MemoryBudget = 64 << 20
	n := startNode(t, cfg)
	if n.peers == nil || n.peers.MemoryBudget() != n.MemoryBudget() {
		t.Fatal("the P2P node does not draw on the node's memory budget")
	}
	before := n.peers.MemoryBudget().Room()
	if !n.RPCMemory().Acquire(netip.MustParseAddr("192.0.2.1"), 10<<20) {
		t.Fatal("an RPC claim refused on an idle node")
	}
	if got := n.peers.MemoryBudget().Room(); got != before-10<<20 {
		t.Fatalf("P2P's room %d after a 10 MiB RPC claim, was %d", got, before)
	}
	var names []string
	for _, p := range n.memoryParts() {
		names = append(names, p.Part)
		// The ZMQ RPC's parts are bounded within the node's total
		// (zmqrpc's TestDrawsOnNodeBudget: and counted in it).
		if want := map[string]int64{"zmq_rpc_requests": cfg.MemoryBudget / 4, "zmq_rpc_answers": cfg.MemoryBudget / 2}[p.Part]; want != 0 && p.Stats.Limit != want {
			t.Errorf("%s bounded to %d, want %d", p.Part, p.Stats.Limit, want)
		}
	}
	if want := []string{"", "rpc", "levin_in", "p2p_send", "sync_blocks", "zmq_rpc_requests", "zmq_rpc_answers", "txpool"}; !slices.Equal(names, want) {
		t.Fatalf("metrics parts %q, want %q", names, want)
	}
}
