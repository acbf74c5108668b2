// Command gonerod is the gonero Monero node. It keeps a chain it has checked
// itself in an embedded store. Subcommands: import (fill the chain from a
// monero-blockchain-export file), version, and monerod's operator commands
// (status, print_height, ...) sent to a running node over RPC.
package main

import (
	"context"
	"errors"
	"fmt"
	"github.com/gonero/gonero/httpd"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/gonero/gonero/chain"
	"github.com/gonero/gonero/chaindb"
	"github.com/gonero/gonero/params"
	"github.com/gonero/gonero/randomx"
	"github.com/gonero/gonero/txpool"
)

// Version is the node's version string.
const Version = "0.1.0"

// options are the flags shared by every subcommand, named as monerod names them.
type options struct {
	prune           pruneOptions // pruning.go
	dataDir         string
	regtest         bool
	testnet         bool
	stagenet        bool
	fixedDifficulty uint64
	logLevel        string
	// --fast-block-sync (monerod's, 1 by default) and gonero's own
	// --block-hashes-file, the list it uses (blockhashes.go).
	fastBlockSync   uint
	blockHashesFile string

	rpcBindIP             string
	rpcBindPort           uint16
	restrictedRPC         bool
	rpcRestrictedBindIP   string
	rpcRestrictedBindPort uint16
	rpcLogin              string
	rpcCORSOrigins        string
	confirmExternalBind   bool
	// monerod's RPC connection limits (--rpc-max-connections...) and
	// --rpc-response-soft-limit, with its defaults.
	rpcMaxConnections             int
	rpcMaxConnectionsPerPublicIP  int
	rpcMaxConnectionsPerPrivateIP int
	rpcResponseSoftLimit          int64
	// --rpc-ssl and its certificates (tls.go).
	tls tlsOptions
	// IPv6 listeners and --disable-rpc-ban (addrflags.go).
	rpcAddr     rpcAddrOptions
	rpcDefences rpcDefenceOptions // rpcdefences.go

	// --metrics-bind-ip/--metrics-bind-port: Prometheus metrics on a
	// listener of their own (port 0: off).
	metricsBindIP   string
	metricsBindPort uint16

	// --max-txpool-weight: the pool's weight limit in bytes (monerod's
	// flag and default; 0 means the default, as in tx_memory_pool::init).
	maxTxpoolWeight uint64

	p2p            p2pOptions
	zmq            zmqOptions
	startMining    string
	miningInterval time.Duration
}

func (o *options) network() (params.Network, error) {
	n := 0
	net := params.Mainnet
	if o.regtest {
		n, net = n+1, params.Regtest
	}
	if o.testnet {
		n, net = n+1, params.Testnet
	}
	if o.stagenet {
		n, net = n+1, params.Stagenet
	}
	if n > 1 {
		return net, errors.New("choose at most one of --regtest, --testnet, --stagenet")
	}
	// monerod takes --fixed-difficulty on every network (it is how a
	// private testnet is mined from genesis); it changes the difficulty
	// rule, so a node using it follows only chains made with it.
	return net, nil
}

// storePath is where a network's chain store lives: like monerod, the
// network's subdirectory of the data directory ("fake" for regtest).
func (o *options) storePath(net params.Network) string {
	return filepath.Join(o.dataDir, net.DataSubdir(), "gonero.db")
}

func defaultDataDir() string {
	if home, err := os.UserHomeDir(); err == nil {
		return filepath.Join(home, ".gonero")
	}
	return ".gonero"
}

// node is the opened chain: store, PoW hasher and chain manager.
type node struct {
	net   params.Network
	db    *chaindb.DB
	pow   *randomx.Hasher
	chain *chain.Chain
	log   *slog.Logger
}

// openNode opens the chain; blocks, if not nil, hears every block the
// chain checks (the metrics).
func openNode(o *options, log *slog.Logger, blocks chain.BlockObserver) (*node, error) {
	net, err := o.network()
	if err != nil {
		return nil, err
	}
	path := o.storePath(net)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, err
	}
	// A store written by an older gonerod is upgraded before anything else
	// (minutes on a long chain): say so, every few seconds, as import does.
	var lastReport time.Time
	db, err := chaindb.Open(path, chaindb.Options{Network: net.String(), MigrationProgress: func(done, total uint64) {
		if done == total || time.Since(lastReport) >= 5*time.Second {
			lastReport = time.Now()
			log.Info("upgrading the chain store to this version's layout", "blocks", done, "of", total)
		}
	}})
	if err != nil {
		return nil, fmt.Errorf("opening the chain store %s: %w", path, err)
	}
	pow, err := randomx.New(randomx.Options{})
	if err != nil {
		db.Close()
		return nil, err
	}
	list, err := loadBlockHashes(o, net, log)
	if err != nil {
		pow.Close()
		db.Close()
		return nil, err
	}
	c, err := chain.Open(db, chain.Config{Network: net, FixedDifficulty: o.fixedDifficulty, PoW: pow, Logger: log, Observer: blocks,
		BlockHashes: list})
	if err != nil {
		pow.Close()
		db.Close()
		return nil, err
	}
	return &node{net: net, db: db, pow: pow, chain: c, log: log}, nil
}

func (n *node) close() {
	n.pow.Close()
	if err := n.db.Close(); err != nil {
		n.log.Error("closing the store", "err", err)
	}
}

func newLogger(level string) (*slog.Logger, error) {
	log, _, err := newLevelLogger(level)
	return log, err
}

// newLevelLogger is newLogger with its level, which the RPC's
// /set_log_level changes while the node runs.
func newLevelLogger(level string) (*slog.Logger, *slog.LevelVar, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(level)); err != nil {
		return nil, nil, fmt.Errorf("--log-level: %w", err)
	}
	v := new(slog.LevelVar)
	v.Set(l)
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: v})), v, nil
}

// signalContext is cancelled by SIGINT or SIGTERM; a second signal exits at once.
func signalContext() (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(context.Background())
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, syscall.SIGINT, syscall.SIGTERM)
	// stopped ends the watching goroutine, which would otherwise wait for
	// a signal after the node stopped.
	stopped := make(chan struct{})
	go func() {
		select {
		case <-ch:
		case <-stopped:
			return
		}
		cancel()
		select {
		case <-ch:
		case <-stopped:
			return
		}
		fmt.Fprintln(os.Stderr, "second signal: exiting now")
		os.Exit(130)
	}()
	var once sync.Once
	return ctx, func() { once.Do(func() { signal.Stop(ch); close(stopped); cancel() }) }
}

func newRootCommand() *cobra.Command { return newRootCommandFor(&options{}) }

// newRootCommandFor is the command filling in o (tests read o back).
func newRootCommandFor(o *options) *cobra.Command {
	root := &cobra.Command{
		Use:   "gonerod",
		Short: "gonero, a Monero node",
		Long: "gonerod runs a Monero node that keeps a chain it has verified itself in an embedded store.\n" +
			"Without a subcommand it opens the chain and runs until SIGINT or SIGTERM.",
		SilenceUsage:  true,
		SilenceErrors: true,
		// Any other word is an operator command gonerod does not know:
		// monerod's answer (its command list, "Unknown command", exit 1).
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				os.Exit(unknownOperatorCommand(args, cmd.OutOrStdout(), cmd.ErrOrStderr()))
			}
			return runNode(o)
		},
	}
	f := root.PersistentFlags()
	f.StringVar(&o.dataDir, "data-dir", defaultDataDir(), "directory for the chain store (a network subdirectory is used, as monerod does)")
	f.BoolVar(&o.regtest, "regtest", false, "regression-test network (monerod's fakechain)")
	f.BoolVar(&o.testnet, "testnet", false, "test network")
	f.BoolVar(&o.stagenet, "stagenet", false, "stage network")
	f.Uint64Var(&o.fixedDifficulty, "fixed-difficulty", 0, "every block after genesis has this difficulty (0: the real algorithm); for test chains")
	f.StringVar(&o.logLevel, "log-level", "info", "debug, info, warn or error")
	f.UintVar(&o.fastBlockSync, "fast-block-sync", 1, "1: inside the block-hash list, skip the proof of work and signatures of blocks whose ids the list proves; 0: verify everything")
	f.StringVar(&o.blockHashesFile, "block-hashes-file", "", "block-hash list for fast sync (monero's src/blocks/checkpoints.dat or monero-blockchain-export --blocksdat); mainnet: only a known release's list is used")
	rf := root.Flags()
	rf.StringVar(&o.rpcBindIP, "rpc-bind-ip", "127.0.0.1", "IP the RPC server listens on")
	rf.Uint16Var(&o.rpcBindPort, "rpc-bind-port", 0, "RPC port (default: the network's, 18081 mainnet and regtest, 28081 testnet, 38081 stagenet)")
	rf.BoolVar(&o.restrictedRPC, "restricted-rpc", false, "restrict the main RPC listener (hide get_connections and private get_info fields)")
	rf.StringVar(&o.rpcRestrictedBindIP, "rpc-restricted-bind-ip", "127.0.0.1", "IP of the restricted RPC listener")
	rf.Uint16Var(&o.rpcRestrictedBindPort, "rpc-restricted-bind-port", 0, "also serve a restricted RPC listener on this port")
	rf.StringVar(&o.rpcLogin, "rpc-login", "", "require HTTP digest authentication: user:password")
	rf.StringVar(&o.rpcCORSOrigins, "rpc-access-control-origins", "", "comma-separated origins allowed by CORS (* for any)")
	rf.BoolVar(&o.confirmExternalBind, "confirm-external-bind", false, "allow the RPC server to listen on a non-loopback address")
	rf.IntVar(&o.rpcMaxConnections, "rpc-max-connections", httpd.DefaultMaxConnections, "max RPC connections open at once (per listener)")
	rf.IntVar(&o.rpcMaxConnectionsPerPublicIP, "rpc-max-connections-per-public-ip", httpd.DefaultMaxConnectionsPerPublicIP, "max RPC connections per public IP (an IPv6 client per /64)")
	rf.IntVar(&o.rpcMaxConnectionsPerPrivateIP, "rpc-max-connections-per-private-ip", httpd.DefaultMaxConnectionsPerPrivateIP, "max RPC connections per private or loopback IP")
	rf.Int64Var(&o.rpcResponseSoftLimit, "rpc-response-soft-limit", httpd.DefaultResponseSoftLimit, "max bytes of RPC answers a connection may have queued unread")
	o.tls.addFlags(rf, serverTLSHelp)
	rf.StringVar(&o.metricsBindIP, "metrics-bind-ip", "127.0.0.1", "IP the Prometheus metrics listener binds to")
	rf.Uint16Var(&o.metricsBindPort, "metrics-bind-port", 0, "serve Prometheus metrics at /metrics on this port (0: no metrics listener)")
	o.rpcAddr.addFlags(rf)
	rf.Uint64Var(&o.maxTxpoolWeight, "max-txpool-weight", txpool.DefaultMaxWeight, "max weight of the transaction pool in bytes; over it, the lowest fee per byte go first")
	o.rpcDefences.addFlags(rf)
	o.p2p.addFlags(rf)
	o.zmq.addFlags(rf)
	o.prune.addFlags(rf)
	rf.StringVar(&o.startMining, "start-mining", "", "regtest: mine blocks continuously, paying this address (standard, integrated or subaddress)")
	rf.DurationVar(&o.miningInterval, "mining-interval", 5*time.Second, "with --start-mining: pause between blocks (0: none)")
	root.AddCommand(newImportCommand(o), &cobra.Command{
		Use:   "version",
		Short: "print the version",
		Args:  cobra.NoArgs,
		Run:   func(cmd *cobra.Command, _ []string) { fmt.Fprintln(cmd.OutOrStdout(), "gonerod", Version) },
	})
	addOperatorCommands(root, o)
	return root
}

func main() {
	if err := newRootCommand().Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "gonerod:", err)
		os.Exit(1)
	}
}
