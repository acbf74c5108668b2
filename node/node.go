// Package node owns a running gonero node: it starts every part (chain
// store, pruning, transaction pool, ZMQ publisher, P2P, miner, RPC
// listeners, metrics) in order from one Config and stops them in the
// reverse order. cmd/gonerod fills the Config from monerod's flags; tests
// start nodes in-process with it.
package node

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"runtime"
	"sync"
	"time"

	"github.com/gonero/gonero/address"
	"github.com/gonero/gonero/chain"
	"github.com/gonero/gonero/chaindb"
	"github.com/gonero/gonero/httpd"
	"github.com/gonero/gonero/membudget"
	"github.com/gonero/gonero/metrics"
	"github.com/gonero/gonero/miner"
	"github.com/gonero/gonero/p2p"
	"github.com/gonero/gonero/rpc"
	"github.com/gonero/gonero/txpool"
	"github.com/gonero/gonero/zmqpub"
	"github.com/gonero/gonero/zmqrpc"
)

// Lifecycle is a part of the node: Start starts it, Stop stops it (only
// after a Start that succeeded). The node starts its parts in the order
// they were registered and stops them in the reverse order, so that no
// part outlives one it uses.
type Lifecycle interface {
	Start() error
	Stop() error
}

// part is a Lifecycle made of two functions, with a name for the log.
type part struct {
	name        string
	start, stop func() error
}

func (p part) Start() error { return p.start() }
func (p part) Stop() error  { return p.stop() }

// Node is a node built from a Config: New checks the Config, Start starts
// the parts, Close stops them. The node also ends by itself when the RPC
// server fails or a client calls /stop_daemon: Done is then closed.
type Node struct {
	cfg      Config
	log      *slog.Logger
	logLevel *slog.LevelVar
	main     httpd.Config
	restrict *httpd.Config
	miningTo *address.Address
	p2pCfg   p2p.Config // without the chain and pool, set at Start
	metrics  string     // the metrics listener's address, "" for none

	names []string
	parts []Lifecycle

	mu      sync.Mutex
	state   int // 0 new, 1 started, 2 closed
	started int // parts started, to stop

	// Set by the parts as they start.
	store       *Store
	pool        *txpool.Pool
	zmq         *zmqpub.Publisher
	zmqRPC      *zmqrpc.Server
	peers       *p2p.Node
	miner       *miner.Miner
	rpc         *rpc.Server
	metricS     *metrics.Server
	rpcTLS      *httpd.TLS
	metricsReg  *metrics.Metrics
	metricsDone chan struct{}
	serving     bool // the RPC's Serve runs
	// The memory budget (memory.go) and the RPC's account on it.
	memory    *membudget.Budget
	rpcMemory *httpd.MemoryAccount

	done     chan struct{} // closed once the RPC ended or a stop was asked for
	doneOnce sync.Once
	rpcDone  chan struct{}
	rpcErr   error
}

// New checks cfg and builds a node to start; it opens nothing.
func New(cfg Config) (*Node, error) {
	n := &Node{cfg: cfg, log: cfg.Logger, logLevel: cfg.LogLevel, done: make(chan struct{}), rpcDone: make(chan struct{})}
	if n.log == nil {
		if n.logLevel == nil {
			n.logLevel = new(slog.LevelVar)
		}
		n.log = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: n.logLevel}))
	}
	var err error
	if n.main, n.restrict, err = cfg.rpcConfigs(); err != nil {
		return nil, err
	}
	if cfg.MemoryBudget < 0 {
		return nil, errors.New("--memory-budget may not be negative")
	}
	n.memoryBudget()
	if n.miningTo, err = cfg.miningAddress(); err != nil {
		return nil, err
	}
	if n.metrics, err = cfg.metricsAddr(); err != nil {
		return nil, err
	}
	if n.p2pCfg, err = cfg.P2P.p2pConfig(cfg.Network, cfg.DataDir, n.log); err != nil {
		return nil, err
	}
	// TLS of both RPC listeners first, as monerod checks its --rpc-ssl
	// flags before it opens anything; a generated certificate is kept
	// beside the chain, as monerod keeps its own.
	n.register("RPC TLS", func() (err error) { n.rpcTLS, err = n.cfg.RPC.TLS.Load(n.cfg.netDir(), n.log); return err },
		func() error { return nil })
	n.register("chain store", n.startStore, func() error { n.store.Close(); return nil })
	var stopPruning func()
	n.register("pruning", func() (err error) { stopPruning, err = startPruning(&n.cfg, n.store.db, n.log); return err },
		func() error { stopPruning(); return nil })
	n.register("transaction pool", n.startPool, func() error { return nil })
	n.register("ZMQ publisher", func() (err error) { n.zmq, err = startZMQ(cfg.ZMQPub, n.store.chain, n.pool, n.log); return err },
		func() error {
			if n.zmq == nil {
				return nil
			}
			return n.zmq.Close()
		})
	n.register("P2P", n.startP2P, func() error {
		if err := n.peers.Close(); err != nil {
			return fmt.Errorf("saving the peer lists: %w", err)
		}
		return nil
	})
	// One miner for generateblocks and --start-mining: blocks are mined one
	// at a time, each on the top the other left, and announced to peers.
	// It stops after the RPC (which can start its loop) and before P2P and
	// the store (which a block it mines reaches).
	n.register("miner", func() error {
		n.miner = miner.New(n.store.chain, miner.Options{ExtraNonce: rpc.GenerateBlocksExtraNonce(), Logger: n.log,
			Mined: n.peers.RelayBlock, Synchronized: n.peers.Synchronized, Pool: n.pool, Interval: n.cfg.MiningInterval})
		return nil
	}, func() error {
		if err := n.miner.Stop(); err != nil && !errors.Is(err, miner.ErrNotMining) {
			return err
		}
		return nil
	})
	if !cfg.ZMQRPC.Disabled {
		// After P2P and the miner, whose facts and controls it serves;
		// before the HTTP RPC, as monerod starts it.
		n.register("ZMQ RPC", n.startZMQRPC, func() error { return n.zmqRPC.Close() })
	}
	n.register("RPC", n.startRPC, n.stopRPC)
	if n.metrics != "" {
		n.register("metrics listener", n.startMetrics, n.stopMetrics)
	}
	n.register("RPC serving", n.serveRPC, func() error { return nil })
	if n.miningTo != nil {
		// The loop /start_mining starts too: mining_status reports it and
		// /stop_mining stops it, as monerod's --start-mining. The miner's
		// stop (registered above) ends it.
		n.register("mining", func() error { return n.miner.Start(*n.miningTo, runtime.NumCPU(), false, false) },
			func() error { return nil })
	}
	return n, nil
}

// register adds a part, started after those registered before it.
func (n *Node) register(name string, start, stop func() error) {
	n.names = append(n.names, name)
	n.parts = append(n.parts, part{name, start, stop})
}

// Start starts the parts in order. A part that fails to start stops every
// part that started before it, and Start returns its error.
func (n *Node) Start() error {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.state != 0 {
		return errors.New("node: started twice")
	}
	n.state = 1
	for i, p := range n.parts {
		if err := p.Start(); err != nil {
			n.started = i
			return errors.Join(err, n.stopParts())
		}
	}
	n.started = len(n.parts)
	return nil
}

// Close stops every part, the last started first, even if one fails to
// stop; it returns their errors. It is safe to call more than once.
func (n *Node) Close() error {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.state != 1 {
		n.state = 2
		return nil
	}
	n.state = 2
	return n.stopParts()
}

func (n *Node) stopParts() error {
	var errs []error
	for i := n.started - 1; i >= 0; i-- {
		if err := n.parts[i].Stop(); err != nil {
			n.log.Warn("stopping "+n.names[i], "err", err)
			errs = append(errs, fmt.Errorf("stopping %s: %w", n.names[i], err))
		}
	}
	n.started = 0
	n.endOnce()
	return errors.Join(errs...)
}

func (n *Node) endOnce() { n.doneOnce.Do(func() { close(n.done) }) }

// Done is closed when the node ended by itself (its RPC server failed, or
// /stop_daemon asked it to stop) or was closed. The owner then calls
// Close; Err says whether the RPC failed.
func (n *Node) Done() <-chan struct{} { return n.done }

// Err is the RPC server's error once it ended by failing, else nil.
func (n *Node) Err() error {
	select {
	case <-n.rpcDone:
		return n.rpcErr
	default:
		return nil
	}
}

// Logger is the node's log.
func (n *Node) Logger() *slog.Logger { return n.log }

// Chain is the node's chain (nil before Start).
func (n *Node) Chain() *chain.Chain {
	if n.store == nil {
		return nil
	}
	return n.store.chain
}

// RPCAddr is the address the main RPC listener bound ("" before Start).
func (n *Node) RPCAddr() string {
	if n.rpc == nil {
		return ""
	}
	return n.rpc.MainAddr()
}

// RestrictedRPCAddr is the restricted RPC listener's address ("" for none).
func (n *Node) RestrictedRPCAddr() string {
	if n.rpc == nil {
		return ""
	}
	return n.rpc.RestrictedAddr()
}

// P2PAddr is the P2P listener's address (nil offline or before Start).
func (n *Node) P2PAddr() net.Addr {
	if n.peers == nil {
		return nil
	}
	return n.peers.Addr()
}

// ZMQRPCAddr is the ZMQ RPC server's address (nil without one).
func (n *Node) ZMQRPCAddr() net.Addr {
	if n.zmqRPC == nil {
		return nil
	}
	return n.zmqRPC.Addr()
}

// ZMQAddrs are the ZMQ publisher's endpoints (none without a publisher).
func (n *Node) ZMQAddrs() []net.Addr {
	if n.zmq == nil {
		return nil
	}
	return n.zmq.Addrs()
}

// MetricsAddr is the metrics listener's address (nil for none).
func (n *Node) MetricsAddr() net.Addr {
	if n.metricS == nil {
		return nil
	}
	return n.metricS.Addr()
}

func (n *Node) startStore() error {
	// The registry exists before the chain so that it hears every block;
	// without a metrics listener there is neither registry nor hook.
	var blocks chain.BlockObserver
	if n.metrics != "" {
		n.metricsReg = metrics.New()
		blocks = n.metricsReg
	}
	s, err := OpenStore(&n.cfg, n.log, blocks)
	if err != nil {
		return err
	}
	n.store = s
	return nil
}

// startPool makes the verified transaction pool: sendrawtransaction and
// peers add to it, the miner takes from it, and it follows the chain. It
// survives a restart: its stored entries are verified again.
func (n *Node) startPool() error {
	var obs txpool.Observer
	if n.metricsReg != nil {
		obs = n.metricsReg
	}
	n.pool = txpool.NewForChain(n.store.chain, txpool.Options{Store: n.store.db, Observer: obs, MaxWeight: n.cfg.MaxTxpoolWeight})
	var stored []chaindb.PoolTxRecord
	if err := n.store.db.View(func(r *chaindb.Reader) error {
		var err error
		stored, err = r.PoolTxs()
		return err
	}); err != nil {
		return err
	}
	if len(stored) > 0 {
		kept := n.pool.Load(stored)
		n.log.Info("transaction pool loaded", "stored", len(stored), "kept", kept)
	}
	return nil
}

func (n *Node) startP2P() error {
	cfg := n.p2pCfg
	cfg.Chain, cfg.Pool, cfg.Memory = n.store.chain, n.pool, n.memory
	peers, err := p2p.New(cfg)
	if err != nil {
		return err
	}
	if err := peers.Start(); err != nil {
		return err
	}
	n.peers = peers
	return nil
}

func (n *Node) startRPC() error {
	rpcTLS := n.rpcTLS
	main, restricted := n.main, n.restrict
	main.TLS = rpcTLS
	// Banned hosts are refused on RPC too (monerod's connection filter).
	main.Allow = n.peers.RemoteHostAllowed
	if restricted != nil {
		r := *restricted
		r.TLS = rpcTLS
		r.Allow = n.peers.RemoteHostAllowed
		restricted = &r
	}
	rpcCfg := rpc.Config{
		Chain: n.store.chain, Peers: n.peers, Pool: n.pool, DataDir: n.cfg.DataDir, Version: "gonero-" + Version, Logger: n.log,
		LogLevel: n.logLevel, Main: main, Restricted: restricted, Miner: n.miner,
		Stop:   func() { n.log.Info("stop requested over RPC"); n.endOnce() },
		Pruner: storePruner{n.store.db}, DisableRPCBan: n.cfg.RPC.DisableBan,
	}
	if n.metricsReg != nil {
		rpcCfg.Instrument = n.metricsReg.Endpoint
	}
	srv, err := rpc.New(rpcCfg)
	if err != nil {
		return err
	}
	n.rpc = srv
	return nil
}

func (n *Node) stopRPC() error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err := n.rpc.Shutdown(ctx)
	if n.serving {
		<-n.rpcDone
	}
	return err
}

// serveRPC serves once the metrics listen, so that a client the RPC
// answers finds the metrics too.
func (n *Node) serveRPC() error {
	n.serving = true
	go func() {
		n.rpcErr = n.rpc.Serve()
		close(n.rpcDone)
		n.endOnce()
	}()
	top := n.store.chain.Top()
	n.log.Info("node running", "network", n.cfg.Network, "store", n.cfg.StorePath(), "height", n.store.chain.Height(), "top", top.Hash,
		"rpc", n.rpc.MainAddr(), "restricted_rpc", n.rpc.RestrictedAddr(), "p2p", n.peers.Addr())
	return nil
}

func (n *Node) startMetrics() error {
	n.metricsReg.Watch(metrics.Sources{Chain: n.store.chain, Peers: n.peers, Pool: n.pool, StorePath: n.cfg.StorePath(),
		Version: Version, RPCDefences: rpcDefenceCounts(n.rpc), Memory: n.memoryParts, P2PLimits: p2pLimitCounts(n.peers),
		ZMQRPC: zmqRPCCounts(n.zmqRPC)})
	ms, err := metrics.Listen(n.metrics, n.metricsReg, n.log)
	if err != nil {
		return fmt.Errorf("metrics listener %s: %w", n.metrics, err)
	}
	n.log.Info("metrics listening", "addr", ms.Addr().String())
	n.metricS = ms
	n.metricsDone = make(chan struct{})
	go func() {
		defer close(n.metricsDone)
		if err := ms.Serve(); err != nil {
			n.log.Error("metrics listener", "err", err)
		}
	}()
	return nil
}

func (n *Node) stopMetrics() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := n.metricS.Shutdown(ctx)
	<-n.metricsDone
	return err
}
