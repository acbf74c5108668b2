package node

import (
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"strconv"

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
	}
	if err := applyAddr(o, &cfg, network, log); err != nil {
		return p2p.Config{}, err
	}
	if err := applyAnon(o, &cfg); err != nil {
		return p2p.Config{}, err
	}
	return cfg, nil
}
