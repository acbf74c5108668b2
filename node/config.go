package node

import (
	"context"
	"log/slog"
	"net"
	"strconv"
	"time"

	"github.com/gonero/gonero/httpd"
	"github.com/gonero/gonero/p2p"
	"github.com/gonero/gonero/params"
	"github.com/gonero/gonero/txpool"
)

// Version is the node's version string.
const Version = "0.1.0"

// Config is everything a node is started with, as plain values. Fields
// carry monerod's flag names in their comments: cmd/gonerod fills them
// from those flags, and the errors New and Start return name the flags,
// as monerod's do. DefaultConfig gives monerod's defaults.
type Config struct {
	Network params.Network
	// DataDir holds the network's subdirectory (monerod's layout): the
	// chain store, the peer state and the generated TLS certificate.
	DataDir string
	// FixedDifficulty (--fixed-difficulty): every block after genesis
	// has this difficulty; 0 is the real algorithm.
	FixedDifficulty uint64
	// Logger is the node's log (nil: text on stderr at info). LogLevel,
	// when set, is its level: the RPC's /set_log_level changes it.
	Logger   *slog.Logger
	LogLevel *slog.LevelVar
	// FastBlockSync (--fast-block-sync 1) with BlockHashesFile
	// (--block-hashes-file): the block-hash list for fast sync.
	FastBlockSync   bool
	BlockHashesFile string
	// ConfirmExternalBind (--confirm-external-bind) lets the RPC and
	// metrics listeners bind a non-loopback address.
	ConfirmExternalBind bool
	RPC                 RPCConfig
	// MetricsBindIP and MetricsBindPort (--metrics-bind-ip/-port): a
	// Prometheus listener of its own; port 0: none.
	MetricsBindIP   string
	MetricsBindPort uint16
	// MaxTxpoolWeight (--max-txpool-weight): the pool's weight limit in
	// bytes (0: the default, as in tx_memory_pool::init).
	MaxTxpoolWeight uint64
	// MemoryBudget (--memory-budget): the bytes outsiders can make the
	// node hold at once, all parts together: RPC bodies and answers, P2P
	// messages in and out, the sync's received blocks (memory.go); 0: no
	// global bound.
	MemoryBudget int64
	P2P          P2PConfig
	// ZMQPub (--zmq-pub): the ZMQ publisher's endpoints; none: no publisher.
	ZMQPub []string
	// ZMQRPC (--zmq-rpc-bind-ip, --zmq-rpc-bind-port, --restricted-zmq-rpc,
	// --no-zmq): monerod's ZMQ RPC server, JSON-RPC over a ZMQ REP socket,
	// which monero-lws reads the chain through; on by default, as monerod.
	ZMQRPC ZMQRPCConfig
	// PruneBlockchain (--prune-blockchain) prunes the store in place;
	// PruneStripe (--prune-blockchain-stripe, 0: random) is the stripe kept.
	PruneBlockchain bool
	PruneStripe     uint32
	// StartMining (--start-mining): regtest only, mine continuously to this
	// address, pausing MiningInterval (--mining-interval) between blocks.
	StartMining    string
	MiningInterval time.Duration
}

// RPCConfig is the RPC listeners' part of Config.
type RPCConfig struct {
	BindIP             string // --rpc-bind-ip
	BindPort           uint16 // --rpc-bind-port (0: the network's)
	Restricted         bool   // --restricted-rpc
	RestrictedBindIP   string // --rpc-restricted-bind-ip
	RestrictedBindPort uint16 // --rpc-restricted-bind-port (0: no restricted listener)
	// Login (--rpc-login): HTTP digest authentication; nil: none.
	Login       *httpd.Login
	CORSOrigins []string // --rpc-access-control-origins
	// monerod's connection limits (--rpc-max-connections...).
	MaxConnections             int
	MaxConnectionsPerPublicIP  int
	MaxConnectionsPerPrivateIP int
	ResponseSoftLimit          int64 // --rpc-response-soft-limit
	TLS                        TLSConfig
	// IPv6 listeners (--rpc-use-ipv6, --rpc-bind-ipv6-address,
	// --rpc-restricted-bind-ipv6-address, --rpc-ignore-ipv4).
	UseIPv6            bool
	BindIPv6           string
	RestrictedBindIPv6 string
	IgnoreIPv4         bool
	DisableBan         bool // --disable-rpc-ban
	// gonero's defences beyond monerod's limits (docs/public-node.md).
	ConnectionRate  float64       // --rpc-connection-rate (0: no limit)
	ConnectionBurst int           // --rpc-connection-burst
	MeterCapacity   float64       // --rpc-meter-capacity (0: no metering)
	MeterBurst      time.Duration // --rpc-meter-burst
	MeterSlots      int           // --rpc-meter-slots
	MeterWait       time.Duration // --rpc-meter-wait
}

// TLSConfig is monerod's --rpc-ssl flags (src/rpc/rpc_args.cpp) for both
// RPC listeners (docs/tls.md).
type TLSConfig struct {
	// Mode: enabled, disabled or autodetect; "" is autodetect, not given
	// (fingerprints or a CA file then turn TLS on, as monerod).
	Mode                string
	PrivateKey          string
	Certificate         string
	CACertificates      string
	AllowedFingerprints []string
	AllowChained        bool
	AllowAnyCert        bool
}

// P2PConfig is the P2P part of Config.
type P2PConfig struct {
	BindIP         string // --p2p-bind-ip
	BindPort       uint16 // --p2p-bind-port (0: the network's)
	ExternalPort   uint16 // --p2p-external-port
	HideMyPort     bool   // --hide-my-port
	ExclusiveNodes []string
	PriorityNodes  []string
	Peers          []string // --add-peer
	SeedNodes      []string // --seed-node
	Offline        bool
	OutPeers       int // --out-peers (0: none)
	InPeers        int // --in-peers (-1: unlimited)
	// MaxConnectionsPerIP (--max-connections-per-ip), at least 1.
	MaxConnectionsPerIP  int
	NoSync               bool
	PrepBlocksThreads    int
	BlockSyncSize        int
	BlockDownloadMaxSize uint64
	// IGD (--igd): UPnP is not supported; anything but "disabled" (or "")
	// is warned about.
	IGD string
	// IPv6, the ban list and the DNS blocklist (docs/ipv6-and-bans.md).
	UseIPv6      bool
	BindIPv6     string
	BindPortIPv6 uint16
	IgnoreIPv4   bool
	BanList      string
	DNSBlocklist bool
	// DNSPublic is monerod's DNS_PUBLIC: the resolvers of the DNS
	// blocklist ("": /etc/resolv.conf's).
	DNSPublic string
	// The anonymity zones and proxies, in monerod's forms (--tx-proxy,
	// --anonymous-inbound, --proxy, --proxy-allow-dns-leaks,
	// --pad-transactions).
	TxProxies         []string
	AnonymousInbounds []string
	Proxy             string
	ProxyDNSLeaks     bool
	PadTransactions   bool
	// The P2P rate limits in kB/s, as monerod's flags: --limit-rate-up
	// (default 8192), --limit-rate-down (32768), --limit-rate (-1: none),
	// which sets the directions not given their own (resolved by
	// rateLimits); -1 is monerod's default.
	LimitRateUp, LimitRateDown, LimitRate int64
	// LevinInBudget and SendBudget bound the bytes of incoming P2P
	// messages held and of answers queued, all peers together
	// (--p2p-levin-in-budget, --p2p-send-budget; 0: p2p's defaults):
	// sub-limits of MemoryBudget, which bounds them together with the RPC.
	LevinInBudget, SendBudget int64
	// Dial and LookupHost replace the net package's for every outgoing
	// connection and seed lookup (nil: the net package's), and
	// ConnectInterval the connection loop's pause (0: 1 s): an embedder
	// (a test) sees and limits what the node reaches.
	Dial            func(ctx context.Context, addr string) (net.Conn, error)
	LookupHost      func(ctx context.Context, host string) ([]string, error)
	ConnectInterval time.Duration
}

// DefaultConfig is monerod's defaults (and gonero's for its own
// settings): mainnet, RPC and ZMQ RPC on loopback, no metrics, no ZMQ
// publisher.
func DefaultConfig() Config {
	return Config{
		Network:       params.Mainnet,
		DataDir:       ".gonero",
		FastBlockSync: true,
		RPC: RPCConfig{
			BindIP: "127.0.0.1", RestrictedBindIP: "127.0.0.1",
			MaxConnections:             httpd.DefaultMaxConnections,
			MaxConnectionsPerPublicIP:  httpd.DefaultMaxConnectionsPerPublicIP,
			MaxConnectionsPerPrivateIP: httpd.DefaultMaxConnectionsPerPrivateIP,
			ResponseSoftLimit:          httpd.DefaultResponseSoftLimit,
			BindIPv6:                   "::1", RestrictedBindIPv6: "::1",
			ConnectionRate: httpd.DefaultConnectionRate, ConnectionBurst: httpd.DefaultConnectionBurst,
			MeterCapacity: httpd.DefaultCostRate(), MeterBurst: httpd.DefaultCostBurst,
			MeterSlots: httpd.DefaultMeteredSlots(), MeterWait: httpd.DefaultMeteredWait,
		},
		MetricsBindIP:   "127.0.0.1",
		ZMQRPC:          ZMQRPCConfig{BindIP: "127.0.0.1"},
		MaxTxpoolWeight: txpool.DefaultMaxWeight,
		MemoryBudget:    DefaultMemoryBudget,
		P2P: P2PConfig{
			BindIP: "0.0.0.0", OutPeers: 12, InPeers: -1, MaxConnectionsPerIP: 1,
			PrepBlocksThreads: p2p.DefaultPrepBlocksThreads, IGD: "disabled", BindIPv6: "::",
			LimitRateUp: p2p.DefaultLimitRateUp, LimitRateDown: p2p.DefaultLimitRateDown, LimitRate: -1,
			LevinInBudget: p2p.DefaultLevinInBudget, SendBudget: p2p.DefaultSendBudget,
		},
		MiningInterval: 5 * time.Second,
	}
}

// netDir is the network's directory inside the data directory ("fake"
// for regtest), as monerod's.
func (c *Config) netDir() string { return joinPath(c.DataDir, c.Network.DataSubdir()) }

// StorePath is where the network's chain store lives.
func (c *Config) StorePath() string { return joinPath(c.netDir(), "gonero.db") }

// zmqRPCAddr is the ZMQ RPC server's host:port: the network's port
// unless one is given, as monerod's --zmq-rpc-bind-port (regtest has
// mainnet's, as it has mainnet's other ports).
func (c *Config) zmqRPCAddr() string {
	port := c.ZMQRPC.BindPort
	if port == 0 {
		port = c.Network.ZMQRPCPort()
	}
	return net.JoinHostPort(c.ZMQRPC.BindIP, strconv.Itoa(int(port)))
}

// ZMQRPCConfig is the ZMQ RPC server's part of a Config.
type ZMQRPCConfig struct {
	// Disabled (--no-zmq) runs no ZMQ RPC server; monerod runs one unless
	// told not to (src/daemon/daemon.cpp).
	Disabled bool
	BindIP   string // --zmq-rpc-bind-ip
	BindPort uint16 // --zmq-rpc-bind-port (0: the network's)
	// Restricted refuses monerod's blocked methods and caps answers, as
	// --restricted-zmq-rpc.
	Restricted bool
}
