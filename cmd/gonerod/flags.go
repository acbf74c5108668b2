package main

import (
	"github.com/spf13/pflag"
)

// addNodeFlags binds the node's flags, with monerod's names, to o's
// Config; their defaults are node.DefaultConfig's.
func addNodeFlags(rf *pflag.FlagSet, o *options) {
	c := &o.cfg
	r := &c.RPC
	rf.StringVar(&r.BindIP, "rpc-bind-ip", r.BindIP, "IP the RPC server listens on")
	rf.Uint16Var(&r.BindPort, "rpc-bind-port", 0, "RPC port (default: the network's, 18081 mainnet and regtest, 28081 testnet, 38081 stagenet)")
	rf.BoolVar(&r.Restricted, "restricted-rpc", false, "restrict the main RPC listener (hide get_connections and private get_info fields)")
	rf.StringVar(&r.RestrictedBindIP, "rpc-restricted-bind-ip", r.RestrictedBindIP, "IP of the restricted RPC listener")
	rf.Uint16Var(&r.RestrictedBindPort, "rpc-restricted-bind-port", 0, "also serve a restricted RPC listener on this port")
	rf.StringVar(&o.rpcLogin, "rpc-login", "", "require HTTP digest authentication: user:password")
	rf.StringVar(&o.rpcCORSOrigins, "rpc-access-control-origins", "", "comma-separated origins allowed by CORS (* for any)")
	rf.BoolVar(&c.ConfirmExternalBind, "confirm-external-bind", false, "allow the RPC server to listen on a non-loopback address")
	rf.IntVar(&r.MaxConnections, "rpc-max-connections", r.MaxConnections, "max RPC connections open at once (per listener)")
	rf.IntVar(&r.MaxConnectionsPerPublicIP, "rpc-max-connections-per-public-ip", r.MaxConnectionsPerPublicIP, "max RPC connections per public IP (an IPv6 client per /64)")
	rf.IntVar(&r.MaxConnectionsPerPrivateIP, "rpc-max-connections-per-private-ip", r.MaxConnectionsPerPrivateIP, "max RPC connections per private or loopback IP")
	rf.Int64Var(&r.ResponseSoftLimit, "rpc-response-soft-limit", r.ResponseSoftLimit, "max bytes of RPC answers a connection may have queued unread")
	o.tls.addFlags(rf, serverTLSHelp)
	rf.StringVar(&c.MetricsBindIP, "metrics-bind-ip", c.MetricsBindIP, "IP the Prometheus metrics listener binds to")
	rf.Uint16Var(&c.MetricsBindPort, "metrics-bind-port", 0, "serve Prometheus metrics at /metrics on this port (0: no metrics listener)")

	// IPv6 listeners and --disable-rpc-ban (docs/ipv6-and-bans.md).
	rf.BoolVar(&r.UseIPv6, "rpc-use-ipv6", false, "serve RPC on IPv6 too")
	rf.StringVar(&r.BindIPv6, "rpc-bind-ipv6-address", r.BindIPv6, "IPv6 address of the RPC listener (with --rpc-use-ipv6; same port as IPv4)")
	rf.StringVar(&r.RestrictedBindIPv6, "rpc-restricted-bind-ipv6-address", r.RestrictedBindIPv6, "IPv6 address of the restricted RPC listener (with --rpc-use-ipv6)")
	rf.BoolVar(&r.IgnoreIPv4, "rpc-ignore-ipv4", false, "run even if the IPv4 RPC address cannot be bound (with --rpc-use-ipv6)")
	rf.BoolVar(&r.DisableBan, "disable-rpc-ban", false, "do not ban hosts on RPC errors")

	rf.Int64Var(&c.MemoryBudget, "memory-budget", c.MemoryBudget,
		"bytes that clients and peers can make the node hold at once, all together: RPC request bodies and answers (at most half of it), P2P messages being read and queued for sending, the sync's received blocks; past it the newest claim is refused (RPC: answered BUSY; P2P: the peer dropped); 0: no global bound")
	rf.Int64Var(&o.memoryLimit, "memory-limit", memoryLimitAuto,
		"Go's soft memory limit in bytes: the collector runs more often as the process nears it (0: none; -1: 3 x --memory-budget, 768 MiB by default); GOMEMLIMIT in the environment wins")
	rf.Uint64Var(&c.MaxTxpoolWeight, "max-txpool-weight", c.MaxTxpoolWeight, "max weight of the transaction pool in bytes; over it, the lowest fee per byte go first")

	// The RPC defences beyond monerod's limits (docs/public-node.md):
	// gonero's own; the fair sharing of connection slots at
	// --rpc-max-connections has no flag.
	rf.Float64Var(&r.ConnectionRate, "rpc-connection-rate", r.ConnectionRate,
		"new RPC connections per second one address group (public IPv4 /24, IPv6 /64, private address) may open (0: no limit)")
	rf.IntVar(&r.ConnectionBurst, "rpc-connection-burst", r.ConnectionBurst,
		"new RPC connections one address group may open at once")
	rf.Float64Var(&r.MeterCapacity, "rpc-meter-capacity", r.MeterCapacity,
		"seconds of RPC serving per second shared evenly by the active address groups before their requests are metered (0: no metering; the default is half the processors)")
	rf.DurationVar(&r.MeterBurst, "rpc-meter-burst", r.MeterBurst,
		"how long one address group may use the whole --rpc-meter-capacity before it is metered")
	rf.IntVar(&r.MeterSlots, "rpc-meter-slots", r.MeterSlots,
		"RPC requests of address groups over budget that run at once (one group at most half)")
	rf.DurationVar(&r.MeterWait, "rpc-meter-wait", r.MeterWait,
		"how long a metered RPC request may wait for a slot before it is answered BUSY")

	p := &c.P2P
	rf.StringVar(&p.BindIP, "p2p-bind-ip", p.BindIP, "IP the P2P listener binds to")
	rf.Uint16Var(&p.BindPort, "p2p-bind-port", 0, "P2P port (default: the network's, 18080 mainnet and regtest, 28080 testnet, 38080 stagenet)")
	rf.Uint16Var(&p.ExternalPort, "p2p-external-port", 0, "port advertised to peers when it differs from --p2p-bind-port (behind NAT)")
	rf.BoolVar(&p.HideMyPort, "hide-my-port", false, "do not advertise the P2P port (peers will not connect back)")
	rf.StringArrayVar(&p.ExclusiveNodes, "add-exclusive-node", nil, "IP:port to connect to, and no other peer (repeatable)")
	rf.StringArrayVar(&p.PriorityNodes, "add-priority-node", nil, "IP:port to keep connected besides other peers (repeatable)")
	rf.StringArrayVar(&p.Peers, "add-peer", nil, "IP:port to add to the peer list (repeatable)")
	rf.StringArrayVar(&p.SeedNodes, "seed-node", nil, "IP:port of a seed to ask for peers when the peer lists give none (repeatable; added to the built-in seeds, as monerod does)")
	rf.BoolVar(&p.Offline, "offline", false, "no P2P: neither listen nor connect (the node counts as synchronized)")
	rf.IntVar(&p.OutPeers, "out-peers", p.OutPeers, "outgoing connections to keep")
	rf.IntVar(&p.InPeers, "in-peers", p.InPeers, "incoming connections allowed (-1: unlimited)")
	rf.IntVar(&p.MaxConnectionsPerIP, "max-connections-per-ip", p.MaxConnectionsPerIP, "incoming connections allowed from one IP")
	rf.BoolVar(&p.NoSync, "no-sync", false, "do not download blocks from peers")
	rf.IntVar(&p.PrepBlocksThreads, "prep-blocks-threads", p.PrepBlocksThreads, "threads verifying downloaded blocks ahead of adding them (at most the cores)")
	rf.IntVar(&p.BlockSyncSize, "block-sync-size", 0, "blocks per download request (0: 100 before hard fork 4 on mainnet and testnet, else 20)")
	rf.Uint64Var(&p.BlockDownloadMaxSize, "block-download-max-size", 0, "pause downloading while this many bytes of blocks wait to be added (0: 100 MB)")
	// UPnP: monerod 0.18.4+ keeps --no-igd and --igd (default "disabled")
	// but maps no port; neither does gonerod.
	rf.BoolVar(&o.noIGD, "no-igd", false, "disable UPnP port mapping (accepted as monerod's: gonerod maps no port)")
	rf.StringVar(&p.IGD, "igd", p.IGD, "UPnP port mapping: disabled (as monerod 0.18.4+, gonerod maps no port)")
	// IPv6, the ban list and the DNS blocklist (docs/ipv6-and-bans.md).
	rf.BoolVar(&p.UseIPv6, "p2p-use-ipv6", false, "listen for and connect to IPv6 peers too")
	rf.StringVar(&p.BindIPv6, "p2p-bind-ipv6-address", p.BindIPv6, "IPv6 address the P2P listener binds to (with --p2p-use-ipv6)")
	rf.Uint16Var(&p.BindPortIPv6, "p2p-bind-port-ipv6", 0, "IPv6 P2P port (default: the network's, 18080 mainnet and regtest, 28080 testnet, 38080 stagenet)")
	rf.BoolVar(&p.IgnoreIPv4, "p2p-ignore-ipv4", false, "run even if the IPv4 P2P address cannot be bound (with --p2p-use-ipv6)")
	rf.StringVar(&p.BanList, "ban-list", "", "file of hosts and IPv4 subnets to ban, one a line ('#' comments); watched for changes")
	rf.BoolVar(&p.DNSBlocklist, "enable-dns-blocklist", false, "mainnet: apply the blocklist published in DNS TXT records (resolver: DNS_PUBLIC=tcp://IP[:PORT] or /etc/resolv.conf)")
	// The anonymity zones and proxies, with monerod's names, forms and
	// checks (net_node.cpp get_proxies, get_anonymous_inbounds; daemon
	// --proxy).
	rf.StringArrayVar(&p.TxProxies, "tx-proxy", nil, "send this node's transactions only through an anonymity network: tor|i2p,[socks5://[user:pass@]]IP:PORT[,MAX_CONNECTIONS][,disable_noise] (repeatable, once per network)")
	rf.StringArrayVar(&p.AnonymousInbounds, "anonymous-inbound", nil, "a hidden service forwarding to this node: ADDRESS.onion[:PORT]|ADDRESS.b32.i2p,BIND_IP:PORT[,MAX_CONNECTIONS] (needs a --tx-proxy)")
	rf.StringVar(&p.Proxy, "proxy", "", "make every clearnet P2P connection through this SOCKS proxy: [socks5://[user:pass@]]IP:PORT")
	rf.BoolVar(&p.ProxyDNSLeaks, "proxy-allow-dns-leaks", false, "with --proxy, still resolve the DNS seed nodes directly")
	rf.BoolVar(&p.PadTransactions, "pad-transactions", false, "pad transaction messages towards a multiple of 1024 bytes against traffic-volume analysis")
	// monerod's P2P rate limits (net_node.cpp arg_limit_rate_*), and
	// gonero's P2P memory budgets (docs/p2p.md).
	rf.Int64Var(&p.LimitRateUp, "limit-rate-up", p.LimitRateUp, "upload limit of all P2P connections together, kB/s (-1: the default)")
	rf.Int64Var(&p.LimitRateDown, "limit-rate-down", p.LimitRateDown, "download limit of all P2P connections together, kB/s (-1: the default)")
	rf.Int64Var(&p.LimitRate, "limit-rate", p.LimitRate, "set both P2P rate limits, kB/s, but one given its own flag (-1: none)")
	rf.Int64Var(&p.LevinInBudget, "p2p-levin-in-budget", p.LevinInBudget, "bytes of incoming P2P messages held at once, all peers together, within --memory-budget; a message over 1 MiB past it drops its peer")
	rf.Int64Var(&p.SendBudget, "p2p-send-budget", p.SendBudget, "bytes of P2P messages queued unsent, all peers together, within --memory-budget; past half of it a peer's next message is read only once its answers are sent, past it a message drops its peer")

	// monerod's ZMQ flags (src/daemon/command_line_args.h).
	rf.StringArrayVar(&c.ZMQPub, "zmq-pub", nil, "publish chain, pool and miner-data events on this ZMQ endpoint: tcp://IP:PORT or ipc://PATH (repeatable)")
	rf.BoolVar(&o.noZMQ, "no-zmq", false, "disable ZMQ: the ZMQ RPC server, on by default, and the publisher (--zmq-pub is then ignored, as monerod ignores it)")
	// The ZMQ RPC server (monerod's daemon_handler over a REP socket).
	rf.StringVar(&c.ZMQRPC.BindIP, "zmq-rpc-bind-ip", c.ZMQRPC.BindIP, "IP the ZMQ RPC server (monerod's JSON-RPC over ZMQ, as monero-lws reads it) listens on")
	rf.Uint16Var(&c.ZMQRPC.BindPort, "zmq-rpc-bind-port", 0, "ZMQ RPC port (default: the network's, 18082 mainnet and regtest, 28082 testnet, 38082 stagenet)")
	rf.BoolVar(&c.ZMQRPC.Restricted, "restricted-zmq-rpc", false, "restrict the ZMQ RPC server as monerod's --restricted-zmq-rpc (refuse its blocked methods, cap answers)")

	// monerod's pruning switches.
	rf.BoolVar(&c.PruneBlockchain, "prune-blockchain", false, "prune the chain store in place and keep it pruned (a pruned store stays pruned)")
	rf.BoolVar(&o.syncPruned, "sync-pruned-blocks", false, "accepted for monerod compatibility: gonero always downloads full blocks (monerod asks for pruned ones only inside its embedded block-hash area)")
	rf.Uint32Var(&c.PruneStripe, "prune-blockchain-stripe", 0, "with --prune-blockchain on an unpruned store: keep this stripe (1-8) instead of a random one")
	_ = rf.MarkHidden("prune-blockchain-stripe")

	rf.StringVar(&c.StartMining, "start-mining", "", "regtest: mine blocks continuously, paying this address (standard, integrated or subaddress)")
	rf.DurationVar(&c.MiningInterval, "mining-interval", c.MiningInterval, "with --start-mining: pause between blocks (0: none)")
}
