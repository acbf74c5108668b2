// Command gonerod is the gonero Monero node. It keeps a chain it has checked
// itself in an embedded store. Subcommands: import (fill the chain from a
// monero-blockchain-export file), compact (give the store's free pages
// back), version, and monerod's operator commands
// (status, print_height, ...) sent to a running node over RPC.
package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/netip"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/gonero/gonero/httpd"
	"github.com/gonero/gonero/node"
	"github.com/gonero/gonero/params"
)

// Version is the node's version string.
const Version = node.Version

// options are the flags shared by every subcommand, named as monerod names
// them. Most are bound straight to the node's Config; the rest are what
// only the command line has (the network switches, the log level, the
// flag forms config turns into Config values).
type options struct {
	cfg      node.Config
	regtest  bool
	testnet  bool
	stagenet bool
	logLevel string
	// --fast-block-sync (monerod's, 1 by default).
	fastBlockSync  uint
	rpcLogin       string
	rpcCORSOrigins string
	// --rpc-ssl and its certificates (tls.go).
	tls tlsOptions
	// --no-zmq: neither the ZMQ RPC server nor the publisher.
	noZMQ bool
	// --no-igd: UPnP off whatever --igd says.
	noIGD bool
	// --sync-pruned-blocks is accepted and does nothing.
	syncPruned bool
	// --memory-limit: the Go soft memory limit (memlimit.go).
	memoryLimit int64
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

// config is the node's Config from the flags (without a logger).
func (o *options) config() (node.Config, error) {
	c := o.cfg
	var err error
	if c.Network, err = o.network(); err != nil {
		return c, err
	}
	if o.fastBlockSync > 1 {
		return c, fmt.Errorf("--fast-block-sync takes 0 or 1, not %d", o.fastBlockSync)
	}
	c.FastBlockSync = o.fastBlockSync == 1
	if o.rpcLogin != "" {
		user, pass, ok := strings.Cut(o.rpcLogin, ":")
		if !ok {
			// monerod would prompt for the password; a daemon has no one to ask.
			pass = os.Getenv("RPC_PASSWORD")
			if pass == "" {
				return c, errors.New("--rpc-login needs user:password (or the password in RPC_PASSWORD)")
			}
		}
		if user == "" {
			return c, errors.New("--rpc-login: the user name is empty")
		}
		c.RPC.Login = &httpd.Login{User: user, Password: pass}
	}
	c.RPC.CORSOrigins = nil
	if o.rpcCORSOrigins != "" {
		for _, origin := range strings.Split(o.rpcCORSOrigins, ",") {
			if origin = strings.TrimSpace(origin); origin != "" {
				c.RPC.CORSOrigins = append(c.RPC.CORSOrigins, origin)
			}
		}
	}
	if c.RPC.TLS, err = o.tls.serverTLS(); err != nil {
		return c, err
	}
	if o.noZMQ {
		c.ZMQPub = nil
		c.ZMQRPC.Disabled = true
	} else if _, err := netip.ParseAddr(c.ZMQRPC.BindIP); err != nil {
		return c, fmt.Errorf("--zmq-rpc-bind-ip %q: not an IP address", c.ZMQRPC.BindIP)
	}
	if o.noIGD {
		c.P2P.IGD = "disabled"
	}
	// monerod's resolvers of the DNS blocklist.
	c.P2P.DNSPublic = os.Getenv("DNS_PUBLIC")
	return c, nil
}

func defaultDataDir() string {
	if home, err := os.UserHomeDir(); err == nil {
		return filepath.Join(home, ".gonero")
	}
	return ".gonero"
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
	o.cfg = node.DefaultConfig()
	c := &o.cfg
	f := root.PersistentFlags()
	f.StringVar(&c.DataDir, "data-dir", defaultDataDir(), "directory for the chain store (a network subdirectory is used, as monerod does)")
	f.BoolVar(&o.regtest, "regtest", false, "regression-test network (monerod's fakechain)")
	f.BoolVar(&o.testnet, "testnet", false, "test network")
	f.BoolVar(&o.stagenet, "stagenet", false, "stage network")
	f.Uint64Var(&c.FixedDifficulty, "fixed-difficulty", 0, "every block after genesis has this difficulty (0: the real algorithm); for test chains")
	f.StringVar(&o.logLevel, "log-level", "info", "debug, info, warn or error")
	f.UintVar(&o.fastBlockSync, "fast-block-sync", 1, "1: inside the block-hash list, skip the proof of work and signatures of blocks whose ids the list proves; 0: verify everything")
	f.StringVar(&c.BlockHashesFile, "block-hashes-file", "", "block-hash list for fast sync (monero's src/blocks/checkpoints.dat or monero-blockchain-export --blocksdat); mainnet: only a known release's list is used")
	rf := root.Flags()
	addNodeFlags(rf, o)
	root.AddCommand(newImportCommand(o), newCompactCommand(o), &cobra.Command{
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
