// Package p2p is gonero's P2P node: it speaks monerod's levin protocol
// (packages levin and portable) to keep connections, exchange peer lists,
// sync the chain from peers and serve it to them. Blocks it receives enter
// the chain through chain.AddBlock like every other block.
//
// The behaviour follows monerod v0.18 (net_node.inl,
// cryptonote_protocol_handler.inl) as summarised in docs/p2p-levin.md;
// section numbers in comments refer to that document.
package p2p

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gonero/gonero/anonaddr"
	"github.com/gonero/gonero/chain"
	"github.com/gonero/gonero/levin"
	"github.com/gonero/gonero/membudget"
	"github.com/gonero/gonero/params"
	"github.com/gonero/gonero/peerinfo"
	"github.com/gonero/gonero/portable"
	"github.com/gonero/gonero/socks"
	"github.com/gonero/gonero/txpool"
)

// Config is what the node needs.
type Config struct {
	Chain *chain.Chain
	// Pool is the verified transaction pool (nil: a pool of the node's
	// own, following the chain).
	Pool *txpool.Pool
	// ListenAddr is host:port for incoming connections ("" = none).
	ListenAddr string
	// UseIPv6 is --p2p-use-ipv6: IPv6 peers are dialled (monerod's
	// connect resolves IPv4 only without it) and ListenAddrIPv6, if set,
	// is listened on too (an IPv6-only socket); IgnoreIPv4
	// (--p2p-ignore-ipv4) lets the node run when ListenAddr cannot be
	// bound but ListenAddrIPv6 can. As monerod: an IPv6 bind failure is
	// logged, and fatal only when the IPv4 one failed too.
	UseIPv6        bool
	ListenAddrIPv6 string
	IgnoreIPv4     bool
	// MyPort is the port advertised in handshakes (my_port); 0 = "do not
	// connect back" (--hide-my-port). Usually the listening port.
	MyPort uint32
	// ExclusiveNodes, when set, are the only peers dialled (and the node
	// keeps them connected); PriorityNodes are always kept connected;
	// Peers (--add-peer) only seed the peer list. SeedNodes (--seed-node)
	// and BuiltinSeeds are asked for their peer lists only, when the lists
	// give nothing to connect to (seeds.go).
	ExclusiveNodes, PriorityNodes, Peers, SeedNodes []string
	// BuiltinSeeds are the network's seeds (params.Network.SeedNodes);
	// the zero value has none. Never used with Offline or ExclusiveNodes.
	BuiltinSeeds params.SeedNodes
	// Dial opens every outgoing TCP connection and LookupHost resolves the
	// DNS seeds (nil: the net package's). Tests inject both to see what
	// the node would dial and resolve without touching the network.
	Dial       func(ctx context.Context, addr string) (net.Conn, error)
	LookupHost func(ctx context.Context, host string) ([]string, error)
	// Offline: no listener, no dialling, and synchronized from the start,
	// as monerod --offline.
	Offline bool
	// OutPeers is the number of outgoing connections to keep (default 12);
	// InPeers caps incoming ones (-1 = unlimited).
	OutPeers, InPeers int
	// MaxConnectionsPerIP caps incoming connections per host (default 1).
	MaxConnectionsPerIP int
	// NoSync: never download blocks (--no-sync).
	NoSync bool
	// StateFile keeps the peer lists across restarts ("" = not kept).
	StateFile string
	Logger    *slog.Logger
	// Timing, for tests; zero values are monerod's.
	TimedSyncInterval time.Duration // 60 s
	ConnectInterval   time.Duration // 1 s
	SyncTimeout       time.Duration // 20 s without an answer to 2006/2003
	DNSSeedTimeout    time.Duration // 20 s for all DNS seed lookups
	// SpanTimeout: a span not received this long may be asked of another
	// peer (30 s; the stall rules scale with it).
	SpanTimeout time.Duration
	// RelayPassInterval: how often the pool's transactions due to be
	// relayed again are relayed (2 min, txpool.RelayCheckInterval).
	RelayPassInterval time.Duration
	// PrepBlocksThreads verify downloaded blocks ahead of the writer
	// (--prep-blocks-threads; default 4, at most the cores).
	PrepBlocksThreads int
	// BlockDownloadMaxSize: downloads pause while the queue holds this
	// many bytes and 10 spans (--block-download-max-size; 100 MB).
	BlockDownloadMaxSize int
	// BlockSyncSize, when not 0, is the number of blocks per span
	// (--block-sync-size; at most 2048, and peers serve at most 100).
	BlockSyncSize int
	// Progress, if not nil, hears every span the writer added.
	Progress func(SyncProgress)
	// BanListFile is --ban-list ("" = none): read at New (an error there
	// fails New) and watched every BanListPoll (DefaultBanListPoll).
	BanListFile string
	BanListPoll time.Duration
	// DNSBlocklist is --enable-dns-blocklist: TXT looks up the blocklist
	// names (dnsblocklist.go). The caller enables it on mainnet only, as
	// monerod does.
	DNSBlocklist bool
	TXT          TXTLookup
	// Zones are the anonymity zones (--tx-proxy, --anonymous-inbound;
	// zones.go). Tor and I2P addresses among ExclusiveNodes, PriorityNodes
	// and Peers belong to them.
	Zones []ZoneConfig
	// PadTransactions pads transaction messages (--pad-transactions;
	// padding.go).
	PadTransactions bool
	// Proxy, when set, carries every public-zone outgoing connection
	// (--proxy; proxy.go); ProxyDNSLeaks lets the DNS seeds be asked then.
	Proxy         *socks.Endpoint
	ProxyDNSLeaks bool
	// LimitRateUp and LimitRateDown are the upload and download limits of
	// all P2P connections together, in kB/s of 1024 bytes (--limit-rate-up,
	// --limit-rate-down; 0: monerod's defaults, DefaultLimitRateUp and
	// DefaultLimitRateDown; negative: unlimited). SetRateLimits changes
	// them while the node runs.
	LimitRateUp, LimitRateDown int64
	// LevinInBudget bounds the bytes of incoming messages being read or
	// handled, all peers together, and SendBudget the bytes queued for
	// sending (--p2p-levin-in-budget, --p2p-send-budget; 0: the defaults,
	// negative: unbounded; budget.go): sub-limits of Memory's total.
	// SendPeerBudget bounds one peer's send queue (0: the default,
	// negative: monerod's 100 MB only).
	LevinInBudget, SendBudget, SendPeerBudget int64
	// Memory is the node's memory budget, shared with the RPC
	// (--memory-budget): the P2P parts draw on its total. nil: a budget of
	// P2P's own without a total (the sub-limits still hold).
	Memory *membudget.Budget

	// beforeHandle, if not nil, sees every message a connection is about
	// to handle: tests make a handler panic with it.
	beforeHandle func(levin.Message)
	// beforePrep, if not nil, sees the height of every block a prep
	// worker is about to verify: tests make a prep worker panic with it.
	beforePrep func(height uint64)
	// afterConnectRound, if not nil, hears every round of a zone's connect
	// loop: tests wait for rounds rather than for time.
	afterConnectRound func(anonaddr.Zone)
	// sendStallTimeout replaces sendStallTimeout (tests).
	sendStallTimeout time.Duration
}

// Node is a running P2P node. Its methods are safe for concurrent use.
// Its parts and its lock order are described inside.
type Node struct {
	cfg    Config
	chain  *chain.Chain
	log    *slog.Logger
	peerID uint64

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	// inbound counts the incoming connections for the limits at accept.
	inbound inboundCounts
	// refusals counts refused and dropped connections by reason (refusals.go).
	refusals refusalCounts
	// accepted counts the connections accepted, before admitIncoming
	// decides on them (tests see the accept loop holding one).
	accepted atomic.Uint64

	// Lock order. A goroutine holding one of these locks may take only those
	// further down the list (L1 outermost); the two locks of one level are
	// never held together. Each declaration names its level.
	//
	//	L1 conn.handling       a message being handled: anything below (a handler
	//	                       drops connections, adds blocks, relays)
	//	L2 blockSync.syncMu    blocks being added: the chain's own locks (and the
	//	                       pool's through it), nothing of p2p's
	//	L3 zone.mu             a zone's own transactions and noise channels: sends
	//	                       and drops connections (Node.mu and below)
	//	L4 ownQueue.mu,        the own transactions waiting for a zone (picking one
	//	   dandelion.mu        looks at the connections: Node.mu, conn.mu); the
	//	                       Dandelion++ epoch (asks for its stem candidates)
	//	L5 forwardQueue.mu,    the forward delays (the pool only); the seed list
	//	   seedList.mu         (held over the DNS lookups; nothing of the node's)
	//	L6 Node.mu             connections, dials, closing: only conn.close
	//	                       (conn.pmu) and goroutine starts
	//	L7 conn.mu             a connection's handshake and sync fields: the
	//	                       block queue's lock
	//	L8 blockQueue.mu       only the memory budget's (it reads whether a
	//	                       connection closed, and counts received spans)
	//	L9 leaves, which take nothing while held: inboundCounts.mu, peerList.mu,
	//	   banList.mu, blockSync.coreTargetMu, conn.wmu (then conn.pmu or the
	//	   memory budget's, its only nestings), conn.pmu, meter.mu,
	//	   rateLimiter.mu, and membudget.Budget's lock (its own package's leaf).
	//
	// The pool calls OnAdd and OnRelay outside its lock, so relaying from
	// them starts with no lock held. Nothing takes a zone's or a part's lock
	// while holding Node.mu; code that needs both (dropping a connection that
	// failed while sending a zone's own transactions) takes the outer one
	// first. wakeStandby only TryLocks conn.handling, holding nothing.
	mu      sync.Mutex // L6
	closing bool       // set by Close: no new connections
	conns   map[*conn]struct{}
	// dialing marks addresses being dialled, so one is not dialled twice.
	dialing map[string]bool

	seeds seedList

	// The node's parts, each owning its state and its locks: what it
	// knows of peers (peerstore.go), block download (blockSync, sync.go)
	// and transaction relay (txRelay, relay.go). Node owns the
	// connections and the zones, and runs the loops that tie them
	// together.
	*peerStore
	*blockSync
	*txRelay

	// traffic counts every connection's reads and writes (/get_net_stats).
	traffic struct{ packetsIn, bytesIn, packetsOut, bytesOut atomic.Uint64 }

	// handlerPanics counts the panics recovered below a connection's
	// goroutines (HandlerPanics).
	handlerPanics atomic.Uint64

	// The rate limits (ratelimit.go) and the memory budgets (budget.go)
	// of all connections together: the bytes of incoming messages held
	// (mem.in), of answers queued (mem.send) and of the received blocks
	// waiting in the queue (mem.blocks), and what the budgets refused.
	rateUp, rateDown                                   rateLimiter
	mem                                                memParts
	levinInRefused, sendWaits, sendStalls, sendRefused atomic.Uint64
	// public is the public zone (zone.go), zones the anonymity zones
	// (zones.go); exclusive is set when --add-exclusive-node names a peer
	// in any zone.
	public    *zone
	zones     []*zone
	exclusive bool
}

// New prepares a node; Start runs it.
func New(cfg Config) (*Node, error) {
	if cfg.Chain == nil {
		return nil, errors.New("p2p: no chain")
	}
	if cfg.OutPeers == 0 {
		cfg.OutPeers = 12
	}
	if cfg.InPeers == 0 {
		cfg.InPeers = -1
	}
	if cfg.MaxConnectionsPerIP == 0 {
		cfg.MaxConnectionsPerIP = 1
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.TimedSyncInterval == 0 {
		cfg.TimedSyncInterval = 60 * time.Second
	}
	if cfg.ConnectInterval == 0 {
		cfg.ConnectInterval = time.Second
	}
	if cfg.SyncTimeout == 0 {
		cfg.SyncTimeout = 20 * time.Second
	}
	if cfg.DNSSeedTimeout == 0 {
		cfg.DNSSeedTimeout = params.DNSSeedTimeoutMS * time.Millisecond
	}
	if cfg.Dial == nil {
		cfg.Dial = defaultDial
	}
	if cfg.LookupHost == nil {
		cfg.LookupHost = defaultLookupHost
	}
	if cfg.SpanTimeout == 0 {
		cfg.SpanTimeout = DefaultSpanTimeout
	}
	if cfg.RelayPassInterval <= 0 {
		cfg.RelayPassInterval = txpool.RelayCheckInterval
	}
	if cfg.PrepBlocksThreads <= 0 {
		cfg.PrepBlocksThreads = DefaultPrepBlocksThreads
	}
	cfg.PrepBlocksThreads = min(cfg.PrepBlocksThreads, runtime.NumCPU())
	if cfg.BlockDownloadMaxSize <= 0 {
		cfg.BlockDownloadMaxSize = DefaultBlockDownloadMaxSize
	}
	if cfg.LimitRateUp == 0 {
		cfg.LimitRateUp = DefaultLimitRateUp
	}
	if cfg.LimitRateDown == 0 {
		cfg.LimitRateDown = DefaultLimitRateDown
	}
	if cfg.LevinInBudget == 0 {
		cfg.LevinInBudget = DefaultLevinInBudget
	}
	if cfg.SendBudget == 0 {
		cfg.SendBudget = DefaultSendBudget
	}
	if cfg.SendPeerBudget == 0 {
		cfg.SendPeerBudget = DefaultSendPeerBudget
	}
	exclusive := len(cfg.ExclusiveNodes) > 0
	zones, err := newZones(&cfg)
	if err != nil {
		return nil, err
	}
	applyProxy(&cfg) // after newZones: a zone reaches its proxy directly
	// Addresses are kept in the form connections are keyed by
	// ([2001:db8::1]:p, an IPv4-mapped address as IPv4), so that a
	// connected peer is recognised however it was written.
	for _, list := range [][]string{cfg.ExclusiveNodes, cfg.PriorityNodes, cfg.Peers, cfg.SeedNodes} {
		for i, a := range list {
			ap, err := parseAddr(a)
			if err != nil {
				return nil, err
			}
			list[i] = netAddress(ap).String()
		}
	}
	public, err := newPublicZone(&cfg)
	if err != nil {
		return nil, err
	}
	n := &Node{cfg: cfg, chain: cfg.Chain, log: cfg.Logger.With("component", "p2p"),
		conns: map[*conn]struct{}{}, dialing: map[string]bool{}, inbound: inboundCounts{per: map[netip.Prefix]int{}},
		public: public, peerStore: &peerStore{peers: public.peers, bans: newBanList()}, blockSync: newBlockSync(cfg.Chain),
		txRelay: &txRelay{pool: cfg.Pool, dandelion: newDandelion()}, zones: zones, exclusive: exclusive,
		mem: newMemParts(&cfg)}
	n.queue.mem = n.mem.blocks
	n.rateUp.setLimit(cfg.LimitRateUp, time.Now())
	n.rateDown.setLimit(cfg.LimitRateDown, time.Now())
	if n.pool == nil {
		n.pool = txpool.NewForChain(cfg.Chain, txpool.Options{})
	}
	n.pool.OnAdd(n.relayLocal)
	n.pool.OnRelay(n.relayAgain)
	var b [8]byte
	_, _ = rand.Read(b[:])
	n.peerID = binary.LittleEndian.Uint64(b[:])
	n.synchronized.Store(cfg.Offline)
	if err := n.peers.load(); err != nil {
		n.log.Warn("peer lists not loaded; starting with empty ones", "file", cfg.StateFile, "err", err)
	}
	// monerod puts --add-peer addresses on its white list, with a random
	// id and never seen.
	for _, a := range cfg.Peers {
		ap, _ := parseAddr(a)
		_, _ = rand.Read(b[:])
		n.peers.addWhite(portable.PeerlistEntry{Address: netAddress(ap), ID: binary.LittleEndian.Uint64(b[:])}, time.Time{})
	}
	// The ban list comes after the peer lists, whose entries it evicts.
	if err := n.loadBanList(); err != nil {
		return nil, err
	}
	return n, nil
}

// parseAddr parses host:port (IPv4 or IPv6 literal; the node does not
// resolve names so that it never looks anything up on its own).
func parseAddr(s string) (netip.AddrPort, error) {
	ap, err := netip.ParseAddrPort(s)
	if err != nil {
		return ap, fmt.Errorf("p2p: peer address %q: want IP:port (%v)", s, err)
	}
	return ap, nil
}

func netAddress(ap netip.AddrPort) portable.NetAddress {
	a := portable.NetAddress{Type: portable.AddressIPv4, IP: ap.Addr().Unmap(), Port: ap.Port()}
	if a.IP.Is6() {
		a.Type = portable.AddressIPv6
	}
	return a
}

// Start listens and starts dialling; it returns once the listener is bound.
func (n *Node) Start() error {
	n.ctx, n.cancel = context.WithCancel(context.Background())
	n.startBanLists(n.cfg.Offline)
	if n.cfg.Offline {
		return nil
	}
	if err := n.listen(); err != nil {
		return err
	}
	if err := n.startZones(); err != nil {
		n.cancel()
		n.closeListeners()
		n.wg.Wait()
		return err
	}
	n.startZone(n.public)
	n.wg.Add(4)
	go n.timedSyncLoop()
	go n.syncWatchdog()
	go n.embargoLoop()
	go n.relayPassLoop()
	return nil
}

// Addr is the bound listening address (nil when not listening); with
// IPv6 alone, the IPv6 one.
func (n *Node) Addr() net.Addr {
	if n.public.ln == nil {
		return n.AddrIPv6()
	}
	return n.public.ln.Addr()
}

// PeerID is this run's peer id.
func (n *Node) PeerID() uint64 { return n.peerID }

// Close stops the node, closes every connection and saves the peer lists.
func (n *Node) Close() error {
	if n.cancel != nil {
		n.cancel()
	}
	n.closeListeners()
	n.mu.Lock()
	n.closing = true
	for c := range n.conns {
		c.close(nil)
	}
	n.mu.Unlock()
	n.wg.Wait()
	return n.saveState()
}

func (n *Node) now() time.Time { return time.Now() }

// inboundCounts counts the incoming connections, in all and per limit key
// (connLimitKey), so that an accept is admitted or refused in O(1): monerod
// 0.18.5.3 checks --in-peers and --max-connections-per-ip when it accepts
// a connection (is_host_limit, monero 0cd74568d), before any handshake.
type inboundCounts struct {
	mu    sync.Mutex // L9, a leaf
	total int
	per   map[netip.Prefix]int
}

// connLimitKey is what --max-connections-per-ip counts connections by: the
// host, except that a public IPv6 address counts for its whole /64 (monero
// f277d328c: is_same_p2p_connection_limit_host). Loopback, unspecified,
// multicast, link-local, site-local and unique-local IPv6 addresses count
// for themselves, and an IPv4-mapped one as its IPv4 address.
func connLimitKey(ip netip.Addr) netip.Prefix {
	ip = ip.Unmap()
	if ip.Is6() && groupIPv6By64(ip) {
		p, _ := ip.Prefix(64)
		return p
	}
	return netip.PrefixFrom(ip, ip.BitLen())
}

// groupIPv6By64 is monero's should_group_ipv6_by_prefix.
func groupIPv6By64(ip netip.Addr) bool {
	b := ip.As16()
	siteLocal := b[0] == 0xfe && b[1]&0xc0 == 0xc0 // fec0::/10
	uniqueLocal := b[0]&0xfe == 0xfc               // fc00::/7
	return !ip.IsUnspecified() && !ip.IsLoopback() && !ip.IsMulticast() &&
		!ip.IsLinkLocalUnicast() && !siteLocal && !uniqueLocal && !ip.Is4In6()
}

// admitIncoming says why an incoming connection from ip is refused, or
// admits it (admitted) and counts it under the returned key until
// releaseIncoming. monerod's order: ban, --in-peers, then the per-host
// limit.
func (n *Node) admitIncoming(ip netip.Addr) (netip.Prefix, refusal) {
	if n.bans.banned(ip.Unmap(), n.now()) {
		return netip.Prefix{}, refusedBanned
	}
	key := connLimitKey(ip)
	n.inbound.mu.Lock()
	defer n.inbound.mu.Unlock()
	if maxIn := n.public.maxIn.Load(); maxIn >= 0 && int64(n.inbound.total) >= maxIn {
		return key, refusedInPeers
	}
	if n.inbound.per[key] >= n.cfg.MaxConnectionsPerIP {
		return key, refusedPerHost
	}
	n.inbound.total++
	n.inbound.per[key]++
	return key, admitted
}

// releaseIncoming uncounts an admitted incoming connection (once).
func (n *Node) releaseIncoming(c *conn) {
	if !c.admitted.CompareAndSwap(true, false) {
		return
	}
	n.inbound.mu.Lock()
	defer n.inbound.mu.Unlock()
	n.inbound.total--
	if n.inbound.per[c.limitKey]--; n.inbound.per[c.limitKey] <= 0 {
		delete(n.inbound.per, c.limitKey)
	}
}

func (n *Node) addConn(c *conn) {
	n.mu.Lock()
	if n.closing {
		n.mu.Unlock()
		n.releaseIncoming(c)
		c.close(ErrClosed)
		return
	}
	n.conns[c] = struct{}{}
	c.writing.Store(true)
	// Added under mu, so that Close (which sets closing under mu) waits
	// for these goroutines.
	n.wg.Add(2)
	n.mu.Unlock()
	n.log.Debug("connection opened", "conn", c)
	go func() {
		defer n.wg.Done()
		c.readLoop()
	}()
	go func() {
		defer n.wg.Done()
		c.writeLoop()
	}()
}

// goTracked runs fn on a goroutine Close waits for (not started once Close
// began).
func (n *Node) goTracked(fn func()) {
	n.mu.Lock()
	if n.closing {
		n.mu.Unlock()
		return
	}
	n.wg.Add(1)
	n.mu.Unlock()
	go func() {
		defer n.wg.Done()
		fn()
	}()
}

// dropConn closes c for err and, for a misbehaving peer, counts fails
// against its host. The fail is counted before the connection closes, so
// that a host banned by it cannot see the close and be accepted again
// before the ban is in place.
func (n *Node) dropConn(c *conn, err error) {
	n.mu.Lock()
	_, ok := n.conns[c]
	delete(n.conns, c)
	stopping := n.closing
	n.mu.Unlock()
	n.releaseIncoming(c)
	// An outgoing connection that closes leaves the anchor list, unless
	// the node is stopping: what is left at Close are the outgoing peers
	// of this run (monerod's on_connection_close).
	if ok && !c.inbound && !stopping && n.ctx.Err() == nil {
		n.listFor(c).removeAnchor(c.addr)
	}
	var pe *peerError
	// A zone's peers have no IP to ban (monerod bans none there either).
	banned := false
	if ok && errors.As(err, &pe) && c.anon == nil {
		score := pe.score
		if pe.host {
			n.dropHost(c.addr.IP, c, err)
			score++ // drop_connections drops this connection with a fail too
		}
		banned = n.bans.fail(c.addr.IP, score, n.now())
	}
	c.close(err)
	if banned {
		// A ban earned by fails is monerod's block_host with the
		// connection's address, port and all: every connection of the
		// host is closed, and the peer lists lose that address alone
		// (remove_from_peer_white/gray; for an incoming connection, an
		// ephemeral port no list holds).
		n.closeConnsOf(banKey(c.addr.IP))
		n.evictPeers(func(a portable.NetAddress) bool { return a.IP.Unmap() == c.addr.IP.Unmap() && a.Port == c.addr.Port })
	}
	if !ok {
		return
	}
	n.lowerCoreTarget()
	switch {
	case pe != nil:
		n.log.Info("peer dropped", "conn", c, "err", err)
		if banned {
			n.log.Warn("host banned", "ip", c.addr.IP, "for", banDuration)
		}
	case err == nil || errors.Is(err, ErrClosed) || n.ctx.Err() != nil:
		n.log.Debug("connection closed", "conn", c)
	default:
		n.log.Info("connection lost", "conn", c, "err", err)
	}
}

// dropHost is monerod's drop_connections(address) (cryptonote_protocol_handler.inl),
// which a refused span calls on the host that sent it: the host scores
// hostFail, and each of its public connections but except is dropped
// with one fail more.
func (n *Node) dropHost(ip netip.Addr, except *conn, cause error) {
	if n.bans.fail(ip, hostFail, n.now()) {
		n.log.Warn("host banned", "ip", ip, "for", banDuration)
	}
	ip = ip.Unmap()
	for _, o := range n.connections() {
		if o != except && o.addr.IP.Unmap() == ip {
			n.dropConn(o, &peerError{score: 1, err: fmt.Errorf("another connection of the host: %w", cause)})
		}
	}
}

// connections are the public zone's connections: everything but the
// anonymity zones' (zones.go), which carry transactions only.
func (n *Node) connections() []*conn { return n.zoneConns(n.public, false) }

// allConnections are the connections of every zone.
func (n *Node) allConnections() []*conn {
	n.mu.Lock()
	defer n.mu.Unlock()
	out := make([]*conn, 0, len(n.conns))
	for c := range n.conns {
		out = append(out, c)
	}
	return out
}

// Connections implements rpc.Peers: get_connections (docs/p2p-levin.md §10).
func (n *Node) Connections() []peerinfo.Connection {
	now := n.now()
	var out []peerinfo.Connection
	for _, c := range n.allConnections() {
		out = append(out, c.info(now))
	}
	return out
}

func (c *conn) info(now time.Time) peerinfo.Connection {
	c.mu.Lock()
	remote, height, seed := c.remote, c.remoteHeight, c.pruningSeed
	c.mu.Unlock()
	live := uint64(max(0, now.Sub(c.started)/time.Second))
	recv, sent := c.recvCount.Load(), c.sendCount.Load()
	idle := func(last int64) uint64 {
		t := c.started
		if last != 0 && time.Unix(0, last).After(t) {
			t = time.Unix(0, last)
		}
		return uint64(max(0, now.Sub(t)/time.Second))
	}
	avg := func(n uint64) uint64 {
		if live == 0 {
			return 0
		}
		return n / live / 1024
	}
	ip := c.addr.IP
	host, port := ip.String(), strconv.Itoa(int(c.addr.Port))
	ipText := host
	if c.anon != nil {
		// monerod: host_str(), and no ip or port outside IPv4 and IPv6.
		host, ipText, port = c.addr.Host, "", ""
	}
	return peerinfo.Connection{
		Address:           c.addr.String(),
		AddressType:       uint64(c.addr.Type),
		AvgDownload:       avg(recv),
		AvgUpload:         avg(sent),
		ConnectionID:      hexID(c.id),
		CurrentDownload:   c.down.speed(now) / 1024,
		CurrentUpload:     c.up.speed(now) / 1024,
		Height:            height,
		Host:              host,
		Incoming:          c.inbound,
		IP:                ipText,
		LiveTime:          live,
		LocalIP:           ip.IsPrivate() || ip.IsLinkLocalUnicast(),
		Localhost:         ip.IsLoopback(),
		PeerID:            fmt.Sprintf("%016x", remote.PeerID),
		Port:              port,
		PruningSeed:       uint64(seed),
		RecvCount:         recv,
		RecvIdleTime:      idle(c.lastRecv.Load()),
		RPCCreditsPerHash: uint64(remote.RPCCreditsPerHash),
		RPCPort:           uint64(remote.RPCPort),
		SendCount:         sent,
		SendIdleTime:      idle(c.lastSend.Load()),
		State:             c.getState().String(),
		SupportFlags:      uint64(remote.SupportFlags),
	}
}

// Counts implements rpc.Peers (docs/p2p-levin.md §9.4).
func (n *Node) Counts() (incoming, outgoing, white, grey uint64) {
	for _, c := range n.connections() {
		switch {
		case c.inbound:
			incoming++
		case !c.ping: // monerod does not count ping-back connections
			outgoing++
		}
	}
	white, grey = n.peers.sizes()
	return
}

// Offline implements rpc.Peers.
func (n *Node) Offline() bool { return n.cfg.Offline }

// TargetHeight implements rpc.Peers: 0 once synchronized, else the
// highest height peers announced.
func (n *Node) TargetHeight() uint64 {
	if n.synchronized.Load() {
		return 0
	}
	return n.target()
}

// lowerCoreTarget is on_connection_close's: the target falls to the
// highest height the remaining handshaken connections reported.
func (n *Node) lowerCoreTarget() {
	var t uint64
	for _, c := range n.connections() {
		if c.getState() == stateBeforeHandshake {
			continue
		}
		c.mu.Lock()
		t = max(t, c.remoteHeight)
		c.mu.Unlock()
	}
	n.capCoreTarget(t)
}

// target is the sync target: the highest chain height the connected
// peers report. It is computed from the live connections, so a peer that
// claimed too much stops counting once it is gone (monerod recomputes it
// in on_connection_close).
func (n *Node) target() uint64 {
	var t uint64
	for _, c := range n.connections() {
		c.mu.Lock()
		if c.handshaked {
			t = max(t, c.remoteHeight)
		}
		c.mu.Unlock()
	}
	return t
}

// setSynchronized is on_connection_synchronized.
func (n *Node) setSynchronized() {
	// Never while the chain is inside the block-hash list (docs/p2p-levin.md §8.5).
	if n.chain.InBlockHashArea(n.chain.Height()) {
		return
	}
	if !n.synchronized.Swap(true) {
		n.log.Info("synchronized with the network", "height", n.chain.Height())
	}
}
