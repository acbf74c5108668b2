package node

import (
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"strconv"

	"github.com/gonero/gonero/metrics"
	"github.com/gonero/gonero/p2p"
	"github.com/gonero/gonero/params"
)

// p2pConfig is the P2P node's configuration for the chain and pool (set
// by the caller) from o.
func (o *P2PConfig) p2pConfig(network params.Network, dataDir string, log *slog.Logger) (p2p.Config, error) {
	port := o.BindPort
	if port == 0 {
		port = network.P2PPort()
	}
	if o.IGD != "disabled" && o.IGD != "" {
		log.Warn("UPnP port mapping is not supported (monerod 0.18.4+ dropped it too): forward the P2P port by hand", "igd", o.IGD)
	}
	if _, err := netip.ParseAddr(o.BindIP); err != nil {
		return p2p.Config{}, fmt.Errorf("--p2p-bind-ip %q is not an IP address", o.BindIP)
	}
	myPort := uint32(port)
	if o.ExternalPort != 0 {
		myPort = uint32(o.ExternalPort)
	}
	if o.HideMyPort {
		myPort = 0
	}
	if o.OutPeers < 0 {
		return p2p.Config{}, fmt.Errorf("--out-peers %d is negative", o.OutPeers)
	}
	if o.MaxConnectionsPerIP < 1 {
		return p2p.Config{}, fmt.Errorf("--max-connections-per-ip must be at least 1")
	}
	up, down, err := o.rateLimits()
	if err != nil {
		return p2p.Config{}, err
	}
	if o.LevinInBudget < 0 || o.SendBudget < 0 {
		return p2p.Config{}, fmt.Errorf("--p2p-levin-in-budget and --p2p-send-budget cannot be negative")
	}
	outPeers := o.OutPeers
	if outPeers == 0 {
		outPeers = -1 // p2p.Config's 0 means the default
	}
	cfg := p2p.Config{
		ListenAddr:           net.JoinHostPort(o.BindIP, strconv.Itoa(int(port))),
		MyPort:               myPort,
		ExclusiveNodes:       o.ExclusiveNodes,
		PriorityNodes:        o.PriorityNodes,
		Peers:                o.Peers,
		SeedNodes:            o.SeedNodes,
		BuiltinSeeds:         network.SeedNodes(),
		Offline:              o.Offline,
		OutPeers:             outPeers,
		InPeers:              o.InPeers,
		MaxConnectionsPerIP:  o.MaxConnectionsPerIP,
		NoSync:               o.NoSync,
		StateFile:            joinPath(dataDir, network.DataSubdir(), "p2pstate.json"),
		Logger:               log,
		PrepBlocksThreads:    o.PrepBlocksThreads,
		BlockSyncSize:        max(o.BlockSyncSize, 0),
		BlockDownloadMaxSize: int(min(o.BlockDownloadMaxSize, 1<<40)),
		Progress:             newSyncProgress(log).added,
		Dial:                 o.Dial,
		LookupHost:           o.LookupHost,
		ConnectInterval:      o.ConnectInterval,
		LimitRateUp:          up,
		LimitRateDown:        down,
		LevinInBudget:        o.LevinInBudget,
		SendBudget:           o.SendBudget,
	}
	if err := applyAddr(o, &cfg, network, log); err != nil {
		return p2p.Config{}, err
	}
	if err := applyAnon(o, &cfg); err != nil {
		return p2p.Config{}, err
	}
	return cfg, nil
}

// rateLimits resolves --limit-rate-up, --limit-rate-down and --limit-rate
// as monerod's node_server does (set_rate_up_limit, set_rate_down_limit,
// then set_rate_limit): -1 is the default; a direction given a value
// other than -1 and its default keeps it, and --limit-rate, when not -1,
// sets the others. monerod takes 0 too and then divides by it in its
// throttle; gonero refuses it, and any other negative value.
func (o *P2PConfig) rateLimits() (up, down int64, err error) {
	for _, f := range []struct {
		name string
		v    int64
	}{{"--limit-rate-up", o.LimitRateUp}, {"--limit-rate-down", o.LimitRateDown}, {"--limit-rate", o.LimitRate}} {
		if f.v < -1 || f.v == 0 {
			return 0, 0, fmt.Errorf("%s %d: want a rate in kB/s, or -1 for the default", f.name, f.v)
		}
	}
	up, down = o.LimitRateUp, o.LimitRateDown
	ownUp := up != -1 && up != p2p.DefaultLimitRateUp
	ownDown := down != -1 && down != p2p.DefaultLimitRateDown
	if up == -1 {
		up = p2p.DefaultLimitRateUp
	}
	if down == -1 {
		down = p2p.DefaultLimitRateDown
	}
	if o.LimitRate != -1 {
		if !ownUp {
			up = o.LimitRate
		}
		if !ownDown {
			down = o.LimitRate
		}
	}
	return up, down, nil
}

// p2pLimitCounts feeds the metrics' P2P limiters and budgets (nil: no P2P
// node).
func p2pLimitCounts(n *p2p.Node) func() metrics.P2PLimitCounts {
	if n == nil {
		return nil
	}
	return func() metrics.P2PLimitCounts {
		st := n.LimitStats()
		return metrics.P2PLimitCounts{RateUp: st.RateUp, RateDown: st.RateDown, BytesUp: st.BytesUp, BytesDown: st.BytesDown,
			WaitUp: st.WaitUp, WaitDown: st.WaitDown, LevinIn: st.LevinIn, LevinInBudget: st.LevinInBudget,
			LevinInRefused: st.LevinInRefused, SendQueued: st.SendQueued, SendBudget: st.SendBudget,
			SendWaits: st.SendWaits, SendStalls: st.SendStalls}
	}
}
