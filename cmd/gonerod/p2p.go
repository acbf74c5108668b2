package main

import (
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"path/filepath"
	"strconv"

	"github.com/spf13/pflag"

	"github.com/gonero/gonero/chain"
	"github.com/gonero/gonero/p2p"
	"github.com/gonero/gonero/params"
	"github.com/gonero/gonero/txpool"
)

// p2pOptions are the P2P flags, with monerod's names.
type p2pOptions struct {
	bindIP         string
	bindPort       uint16
	externalPort   uint16
	hideMyPort     bool
	exclusiveNodes []string
	priorityNodes  []string
	peers          []string
	seedNodes      []string
	offline        bool
	outPeers       int
	inPeers        int
	maxConnsPerIP  int
	noSync         bool
	// The block download (the shared block queue).
	prepBlocksThreads    int
	blockSyncSize        int
	blockDownloadMaxSize uint64
	// UPnP: monerod 0.18.4+ keeps --no-igd and --igd (default "disabled")
	// but maps no port; neither does gonerod.
	noIGD bool
	igd   string
	// IPv6, the ban list and the DNS blocklist (addrflags.go).
	addr p2pAddrOptions
	// The anonymity zones and proxies (anon.go).
	anon anonOptions
}

func (o *p2pOptions) addFlags(f *pflag.FlagSet) {
	f.StringVar(&o.bindIP, "p2p-bind-ip", "0.0.0.0", "IP the P2P listener binds to")
	f.Uint16Var(&o.bindPort, "p2p-bind-port", 0, "P2P port (default: the network's, 18080 mainnet and regtest, 28080 testnet, 38080 stagenet)")
	f.Uint16Var(&o.externalPort, "p2p-external-port", 0, "port advertised to peers when it differs from --p2p-bind-port (behind NAT)")
	f.BoolVar(&o.hideMyPort, "hide-my-port", false, "do not advertise the P2P port (peers will not connect back)")
	f.StringArrayVar(&o.exclusiveNodes, "add-exclusive-node", nil, "IP:port to connect to, and no other peer (repeatable)")
	f.StringArrayVar(&o.priorityNodes, "add-priority-node", nil, "IP:port to keep connected besides other peers (repeatable)")
	f.StringArrayVar(&o.peers, "add-peer", nil, "IP:port to add to the peer list (repeatable)")
	f.StringArrayVar(&o.seedNodes, "seed-node", nil, "IP:port of a seed to ask for peers when the peer lists give none (repeatable; added to the built-in seeds, as monerod does)")
	f.BoolVar(&o.offline, "offline", false, "no P2P: neither listen nor connect (the node counts as synchronized)")
	f.IntVar(&o.outPeers, "out-peers", 12, "outgoing connections to keep")
	f.IntVar(&o.inPeers, "in-peers", -1, "incoming connections allowed (-1: unlimited)")
	f.IntVar(&o.maxConnsPerIP, "max-connections-per-ip", 1, "incoming connections allowed from one IP")
	f.BoolVar(&o.noSync, "no-sync", false, "do not download blocks from peers")
	f.IntVar(&o.prepBlocksThreads, "prep-blocks-threads", p2p.DefaultPrepBlocksThreads, "threads verifying downloaded blocks ahead of adding them (at most the cores)")
	f.IntVar(&o.blockSyncSize, "block-sync-size", 0, "blocks per download request (0: 100 before hard fork 4 on mainnet and testnet, else 20)")
	f.Uint64Var(&o.blockDownloadMaxSize, "block-download-max-size", 0, "pause downloading while this many bytes of blocks wait to be added (0: 100 MB)")
	f.BoolVar(&o.noIGD, "no-igd", false, "disable UPnP port mapping (accepted as monerod's: gonerod maps no port)")
	f.StringVar(&o.igd, "igd", "disabled", "UPnP port mapping: disabled (as monerod 0.18.4+, gonerod maps no port)")
	o.addr.addFlags(f)
	o.anon.addFlags(f)
}

// p2pConfigHook, when a test sets it, sees the P2P configuration before
// the node starts: tests inject a dialer and resolver that record what the
// node would reach. Nil outside tests.
var p2pConfigHook func(*p2p.Config)

// startP2P starts the P2P node for the chain (or an offline one).
func (o *p2pOptions) startP2P(c *chain.Chain, pool *txpool.Pool, network params.Network, dataDir string, log *slog.Logger) (*p2p.Node, error) {
	port := o.bindPort
	if port == 0 {
		port = network.P2PPort()
	}
	if o.igd != "disabled" && !o.noIGD {
		log.Warn("UPnP port mapping is not supported (monerod 0.18.4+ dropped it too): forward the P2P port by hand", "igd", o.igd)
	}
	if _, err := netip.ParseAddr(o.bindIP); err != nil {
		return nil, fmt.Errorf("--p2p-bind-ip %q is not an IP address", o.bindIP)
	}
	myPort := uint32(port)
	if o.externalPort != 0 {
		myPort = uint32(o.externalPort)
	}
	if o.hideMyPort {
		myPort = 0
	}
	if o.outPeers < 0 {
		return nil, fmt.Errorf("--out-peers %d is negative", o.outPeers)
	}
	if o.maxConnsPerIP < 1 {
		return nil, fmt.Errorf("--max-connections-per-ip must be at least 1")
	}
	outPeers := o.outPeers
	if outPeers == 0 {
		outPeers = -1 // p2p.Config's 0 means the default
	}
	cfg := p2p.Config{
		Chain:                c,
		Pool:                 pool,
		ListenAddr:           net.JoinHostPort(o.bindIP, strconv.Itoa(int(port))),
		MyPort:               myPort,
		ExclusiveNodes:       o.exclusiveNodes,
		PriorityNodes:        o.priorityNodes,
		Peers:                o.peers,
		SeedNodes:            o.seedNodes,
		BuiltinSeeds:         network.SeedNodes(),
		Offline:              o.offline,
		OutPeers:             outPeers,
		InPeers:              o.inPeers,
		MaxConnectionsPerIP:  o.maxConnsPerIP,
		NoSync:               o.noSync,
		StateFile:            filepath.Join(dataDir, network.DataSubdir(), "p2pstate.json"),
		Logger:               log,
		PrepBlocksThreads:    o.prepBlocksThreads,
		BlockSyncSize:        max(o.blockSyncSize, 0),
		BlockDownloadMaxSize: int(min(o.blockDownloadMaxSize, 1<<40)),
		Progress:             newSyncProgress(log).added,
	}
	if err := o.addr.apply(&cfg, network, log); err != nil {
		return nil, err
	}
	if err := o.anon.apply(&cfg); err != nil {
		return nil, err
	}
	if p2pConfigHook != nil {
		p2pConfigHook(&cfg)
	}
	n, err := p2p.New(cfg)
	if err != nil {
		return nil, err
	}
	if err := n.Start(); err != nil {
		return nil, err
	}
	return n, nil
}
