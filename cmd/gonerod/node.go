package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/gonero/gonero/address"
	"github.com/gonero/gonero/chain"
	"github.com/gonero/gonero/chaindb"
	"github.com/gonero/gonero/httpd"
	"github.com/gonero/gonero/metrics"
	"github.com/gonero/gonero/miner"
	"github.com/gonero/gonero/params"
	"github.com/gonero/gonero/rpc"
	"github.com/gonero/gonero/txpool"
)

// runNode opens the chain and serves RPC until SIGINT or SIGTERM (or
// /stop_daemon, or the RPC failing), then stops every part of the node.
func runNode(o *options) error {
	ctx, stop := signalContext()
	defer stop()
	// /stop_daemon ends the node as SIGTERM does.
	ctx, stopByRPC := context.WithCancel(ctx)
	defer stopByRPC()
	nd, err := launchNode(o, stopByRPC)
	if err != nil {
		return err
	}
	var served error
	select {
	case <-nd.rpcDone:
		served = nd.rpcErr
	case <-ctx.Done():
		nd.log.Info("shutting down")
	}
	return errors.Join(served, nd.parts.stop())
}

// runningNode is a started node: its parts, to stop, and its RPC server,
// whose end (rpcDone, then rpcErr) ends the node.
type runningNode struct {
	log     *slog.Logger
	parts   *lifecycle
	rpcDone chan struct{}
	rpcErr  error
}

// launchNode starts the node's parts in order: the chain store, pruning,
// the pool, the ZMQ publisher, P2P, the miner, the RPC server, the
// metrics listener, and --start-mining's loop. Each part that started is
// registered with its stop, so that stopping (or a start that fails
// midway) stops them in the reverse order: no part outlives one it uses.
// stopNode is what /stop_daemon calls.
func launchNode(o *options, stopNode func()) (_ *runningNode, err error) {
	log, logLevel, err := newLevelLogger(o.logLevel)
	if err != nil {
		return nil, err
	}
	main, restricted, err := o.rpcConfigs()
	if err != nil {
		return nil, err
	}
	if err := o.zmq.check(); err != nil {
		return nil, err
	}
	network, err := o.network()
	if err != nil {
		return nil, err
	}
	miningTo, err := o.miningAddress(network)
	if err != nil {
		return nil, err
	}
	metricsAddr, err := o.metricsAddr()
	if err != nil {
		return nil, err
	}
	// TLS of both RPC listeners; a generated certificate is kept beside
	// the chain, as monerod keeps its own.
	rpcTLS, err := o.tls.config(filepath.Join(o.dataDir, network.DataSubdir()), log)
	if err != nil {
		return nil, err
	}
	main.TLS = rpcTLS
	if restricted != nil {
		restricted.TLS = rpcTLS
	}
	parts := &lifecycle{log: log}
	defer func() {
		if err != nil {
			err = errors.Join(err, parts.stop())
		}
	}()
	// The registry exists before the chain so that it hears every block;
	// without a metrics listener there is neither registry nor hook.
	var mtr *metrics.Metrics
	var blockObserver chain.BlockObserver
	var txObserver txpool.Observer
	if metricsAddr != "" {
		mtr = metrics.New()
		blockObserver, txObserver = mtr, mtr
	}
	n, err := openNode(o, log, blockObserver)
	if err != nil {
		return nil, err
	}
	parts.started("chain store", func() error { n.close(); return nil })
	stopPruning, err := o.prune.start(n.db, log)
	if err != nil {
		return nil, err
	}
	parts.started("pruning", func() error { stopPruning(); return nil })
	if main.Addr == "" {
		main.Addr = net.JoinHostPort(o.rpcBindIP, strconv.Itoa(int(n.net.RPCPort())))
	}
	if err := o.rpcAddr.apply(&main, restricted, o.confirmExternalBind); err != nil {
		return nil, err
	}
	// The verified transaction pool: sendrawtransaction and peers add to
	// it, the miner takes from it, and it follows the chain.
	pool := txpool.NewForChain(n.chain, txpool.Options{Store: n.db, Observer: txObserver, MaxWeight: o.maxTxpoolWeight})
	// The pool survives a restart: its stored entries are verified again.
	var stored []chaindb.PoolTxRecord
	if err := n.db.View(func(r *chaindb.Reader) error {
		var err error
		stored, err = r.PoolTxs()
		return err
	}); err != nil {
		return nil, err
	}
	if len(stored) > 0 {
		kept := pool.Load(stored)
		log.Info("transaction pool loaded", "stored", len(stored), "kept", kept)
	}
	// The ZMQ publisher follows the chain after the pool does.
	zmqPub, err := o.zmq.start(n.chain, pool, log)
	if err != nil {
		return nil, err
	}
	if zmqPub != nil {
		parts.started("ZMQ publisher", zmqPub.Close)
	}
	peers, err := o.p2p.startP2P(n.chain, pool, n.net, o.dataDir, log)
	if err != nil {
		return nil, err
	}
	parts.started("P2P", func() error {
		if err := peers.Close(); err != nil {
			return fmt.Errorf("saving the peer lists: %w", err)
		}
		return nil
	})
	// One miner for generateblocks and --start-mining: blocks are mined one
	// at a time, each on the top the other left, and announced to peers.
	// It stops after the RPC (which can start its loop) and before P2P and
	// the store (which a block it mines reaches).
	mnr := miner.New(n.chain, miner.Options{ExtraNonce: rpc.GenerateBlocksExtraNonce(), Logger: log,
		Mined: peers.RelayBlock, Synchronized: peers.Synchronized, Pool: pool, Interval: o.miningInterval})
	parts.started("miner", func() error {
		if err := mnr.Stop(); err != nil && !errors.Is(err, miner.ErrNotMining) {
			return err
		}
		return nil
	})
	// Banned hosts are refused on RPC too (monerod's connection filter).
	main.Allow = peers.RemoteHostAllowed
	if restricted != nil {
		restricted.Allow = peers.RemoteHostAllowed
	}
	rpcCfg := rpc.Config{
		Chain: n.chain, Peers: peers, Pool: pool, DataDir: o.dataDir, Version: "gonero-" + Version, Logger: log,
		LogLevel: logLevel, Main: main, Restricted: restricted, Miner: mnr,
		Stop:   func() { log.Info("stop requested over RPC"); stopNode() },
		Pruner: storePruner{n.db}, DisableRPCBan: o.rpcAddr.disableRPCBan,
	}
	if mtr != nil {
		rpcCfg.Instrument = mtr.Endpoint
	}
	srv, err := rpc.New(rpcCfg)
	if err != nil {
		return nil, err
	}
	nd := &runningNode{log: log, parts: parts, rpcDone: make(chan struct{})}
	serving := false // set once the RPC's Serve runs (below)
	parts.started("RPC", func() error {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		err := srv.Shutdown(ctx)
		if serving {
			<-nd.rpcDone
		}
		return err
	})
	if mtr != nil {
		mtr.Watch(metrics.Sources{Chain: n.chain, Peers: peers, Pool: pool, StorePath: o.storePath(n.net), Version: Version,
			RPCDefences: rpcDefenceCounts(srv)})
		ms, err := metrics.Listen(metricsAddr, mtr, log)
		if err != nil {
			return nil, fmt.Errorf("metrics listener %s: %w", metricsAddr, err)
		}
		log.Info("metrics listening", "addr", ms.Addr().String())
		metricsDone := make(chan struct{})
		go func() {
			defer close(metricsDone)
			if err := ms.Serve(); err != nil {
				log.Error("metrics listener", "err", err)
			}
		}()
		parts.started("metrics listener", func() error {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			err := ms.Shutdown(ctx)
			<-metricsDone
			return err
		})
	}
	// The RPC serves once the metrics listen, so that a client the RPC
	// answers finds the metrics too.
	serving = true
	go func() {
		nd.rpcErr = srv.Serve()
		close(nd.rpcDone)
	}()
	top := n.chain.Top()
	log.Info("node running", "network", n.net, "store", o.storePath(n.net), "height", n.chain.Height(), "top", top.Hash,
		"rpc", srv.MainAddr(), "restricted_rpc", srv.RestrictedAddr(), "p2p", peers.Addr())
	if miningTo != nil {
		// The loop /start_mining starts too: mining_status reports it and
		// /stop_mining stops it, as monerod's --start-mining. The miner's
		// stop (registered above) ends it.
		if err := mnr.Start(*miningTo, runtime.NumCPU(), false, false); err != nil {
			return nil, err
		}
	}
	return nd, nil
}

// lifecycle is the node's started parts, in the order they started.
type lifecycle struct {
	log   *slog.Logger
	parts []startedPart
}

type startedPart struct {
	name string
	stop func() error
}

// started registers a part that started and how to stop it.
func (l *lifecycle) started(name string, stop func() error) {
	l.parts = append(l.parts, startedPart{name, stop})
}

// stop stops every part, the last started first, even if one fails to
// stop; it returns their errors.
func (l *lifecycle) stop() error {
	var errs []error
	for i := len(l.parts) - 1; i >= 0; i-- {
		p := l.parts[i]
		if err := p.stop(); err != nil {
			l.log.Warn("stopping "+p.name, "err", err)
			errs = append(errs, fmt.Errorf("stopping %s: %w", p.name, err))
		}
	}
	l.parts = nil
	return errors.Join(errs...)
}

// metricsAddr is the metrics listener's address, "" when
// --metrics-bind-port is not given. A non-loopback IP needs
// --confirm-external-bind, as the RPC's does: the metrics tell an
// onlooker the node's peers, pool and load.
func (o *options) metricsAddr() (string, error) {
	if o.metricsBindPort == 0 {
		return "", nil
	}
	if err := o.checkBindIP(o.metricsBindIP, "--metrics-bind-ip"); err != nil {
		return "", err
	}
	if o.metricsBindPort == o.rpcBindPort || o.metricsBindPort == o.rpcRestrictedBindPort {
		return "", fmt.Errorf("--metrics-bind-port %d is also an RPC port", o.metricsBindPort)
	}
	return net.JoinHostPort(o.metricsBindIP, strconv.Itoa(int(o.metricsBindPort))), nil
}

// miningAddress checks --start-mining and --mining-interval: nil when not
// mining; an error naming the problem for another network than regtest, an
// address that does not parse, or one of another network.
func (o *options) miningAddress(net params.Network) (*address.Address, error) {
	if o.startMining == "" {
		return nil, nil
	}
	if net != params.Regtest {
		return nil, fmt.Errorf("--start-mining needs --regtest: gonero mines regtest chains only (its light-mode RandomX is far too slow for a public network)")
	}
	if o.miningInterval < 0 {
		return nil, fmt.Errorf("--mining-interval %v is negative", o.miningInterval)
	}
	a, err := address.ParseFor(o.startMining, net)
	if err != nil {
		return nil, fmt.Errorf("--start-mining %q: %w", o.startMining, err)
	}
	return &a, nil
}

// rpcConfigs turns the RPC flags into listener configurations. The main
// address is left empty when --rpc-bind-port is not given: the caller fills
// in the network's default port.
func (o *options) rpcConfigs() (main httpd.Config, restricted *httpd.Config, err error) {
	if err := o.checkBindIP(o.rpcBindIP, "--rpc-bind-ip"); err != nil {
		return main, nil, err
	}
	main.Restricted = o.restrictedRPC
	// monerod refuses per-IP limits above the total, and so do we; 0 would
	// mean "default" to httpd, so it is refused too (monerod's size_t
	// flags make 0 refuse every connection, which is of no use).
	switch {
	case o.rpcMaxConnections < 1 || o.rpcMaxConnectionsPerPublicIP < 1 || o.rpcMaxConnectionsPerPrivateIP < 1:
		return main, nil, errors.New("--rpc-max-connections and the per-IP limits must be at least 1")
	case o.rpcMaxConnectionsPerPublicIP > o.rpcMaxConnections:
		return main, nil, errors.New("--rpc-max-connections-per-public-ip is bigger than --rpc-max-connections")
	case o.rpcMaxConnectionsPerPrivateIP > o.rpcMaxConnections:
		return main, nil, errors.New("--rpc-max-connections-per-private-ip is bigger than --rpc-max-connections")
	case o.rpcResponseSoftLimit < 1:
		return main, nil, errors.New("--rpc-response-soft-limit must be at least 1")
	}
	main.MaxConnections = o.rpcMaxConnections
	main.MaxConnectionsPerPublicIP = o.rpcMaxConnectionsPerPublicIP
	main.MaxConnectionsPerPrivateIP = o.rpcMaxConnectionsPerPrivateIP
	main.ResponseSoftLimit = o.rpcResponseSoftLimit
	if err := o.rpcDefences.apply(&main); err != nil {
		return main, nil, err
	}
	if o.rpcBindPort != 0 {
		main.Addr = net.JoinHostPort(o.rpcBindIP, strconv.Itoa(int(o.rpcBindPort)))
	}
	if o.rpcLogin != "" {
		user, pass, ok := strings.Cut(o.rpcLogin, ":")
		if !ok {
			// monerod would prompt for the password; a daemon has no one to ask.
			pass = os.Getenv("RPC_PASSWORD")
			if pass == "" {
				return main, nil, errors.New("--rpc-login needs user:password (or the password in RPC_PASSWORD)")
			}
		}
		if user == "" {
			return main, nil, errors.New("--rpc-login: the user name is empty")
		}
		main.Login = &httpd.Login{User: user, Password: pass}
	}
	if o.rpcCORSOrigins != "" {
		for _, origin := range strings.Split(o.rpcCORSOrigins, ",") {
			if origin = strings.TrimSpace(origin); origin != "" {
				main.CORSOrigins = append(main.CORSOrigins, origin)
			}
		}
	}
	if o.rpcRestrictedBindPort != 0 {
		if err := o.checkBindIP(o.rpcRestrictedBindIP, "--rpc-restricted-bind-ip"); err != nil {
			return main, nil, err
		}
		r := main
		r.Restricted = true
		r.Addr = net.JoinHostPort(o.rpcRestrictedBindIP, strconv.Itoa(int(o.rpcRestrictedBindPort)))
		restricted = &r
		if o.rpcRestrictedBindPort == o.rpcBindPort {
			return main, nil, fmt.Errorf("--rpc-restricted-bind-port %d is also the main RPC port", o.rpcRestrictedBindPort)
		}
	}
	return main, restricted, nil
}

// checkBindIP refuses a non-loopback address without --confirm-external-bind, as monerod does.
func (o *options) checkBindIP(ip, flag string) error {
	addr, err := netip.ParseAddr(ip)
	if err != nil {
		return fmt.Errorf("%s %q is not an IP address", flag, ip)
	}
	if !addr.IsLoopback() && !o.confirmExternalBind {
		return fmt.Errorf("%s %s is not a loopback address; add --confirm-external-bind to serve RPC on it", flag, ip)
	}
	return nil
}
