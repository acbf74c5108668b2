// Command monerodlab runs the reference monerod for scripts (scripts/,
// bench/) and builds regtest chains, inside a loopback-only network
// namespace: run outside one, it creates the namespace (as root), brings its
// loopback up and runs itself again inside it.
//
//	monerodlab start [options] [-- monerod args...]  print the pid of a monerod left running
//	monerodlab stop PID|DATA_DIR [GRACE_SECONDS]     SIGTERM, SIGKILL after the grace period (default 60)
//	monerodlab rpc PORT METHOD [PARAMS_JSON]         a JSON-RPC call to 127.0.0.1:PORT, the answer on stdout
//	monerodlab buildchain DIR                        a regtest chain (monerodlab.BuildChain) in DIR
//	monerodlab buildheavy DIR [TXS]                  a transaction-heavy chain (monerodlab.BuildHeavyChain)
//	                                                 in DIR; WALLETS, PARALLEL and SEED in the environment
//
// start options: -d/--data-dir DIR (required), -r/--rpc-port N (18481),
// -p/--p2p-port N (18480), -t/--timeout SECONDS (120), --online,
// --restricted, --fresh, --network regtest|testnet|stagenet|mainnet,
// --fixed-difficulty N, --zmq-pub ADDR, --zmq-rpc-port N, --tls (the
// readiness probe speaks TLS, for monerod args with --rpc-ssl enabled).
//
// The namespace is GONERO_NETNS, else NETNS, else gonero-test. The
// reference tools are taken from the PATH.
package main

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/gonero/gonero/internal/monerodlab"
)

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	cmd, args := os.Args[1], os.Args[2:]
	var err error
	switch cmd {
	case "stop":
		err = stop(args)
	case "start", "rpc", "buildchain", "buildheavy":
		enterNetNS()
		switch cmd {
		case "start":
			err = start(args)
		case "rpc":
			err = rpc(args)
		case "buildheavy":
			err = buildHeavy(args)
		default:
			err = buildChain(args)
		}
	default:
		usage()
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "monerodlab %s: %v\n", cmd, err)
		os.Exit(1)
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: monerodlab start [options] [-- monerod args] | stop PID|DATA_DIR [GRACE] | rpc PORT METHOD [PARAMS] | buildchain DIR | buildheavy DIR [TXS]")
	os.Exit(2)
}

func netNS() string {
	for _, v := range []string{"GONERO_NETNS", "NETNS"} {
		if ns := os.Getenv(v); ns != "" {
			return ns
		}
	}
	return "gonero-test"
}

// enterNetNS returns if this process runs in the namespace; otherwise it
// makes the namespace, runs this command again inside it and exits with its
// status.
func enterNetNS() {
	ns := netNS()
	if monerodlab.InsideNetNS(ns) {
		return
	}
	if os.Getenv("MONERODLAB_REEXEC") != "" {
		fatalf("not inside network namespace %s after ip netns exec", ns)
	}
	if os.Geteuid() != 0 {
		fatalf("needs root to enter the loopback-only network namespace %s", ns)
	}
	if !monerodlab.NetNSExists(ns) {
		if out, err := exec.Command("ip", "netns", "add", ns).CombinedOutput(); err != nil {
			fatalf("ip netns add %s: %v %s", ns, err, out)
		}
	}
	if out, err := exec.Command("ip", "netns", "exec", ns, "ip", "link", "set", "lo", "up").CombinedOutput(); err != nil {
		fatalf("loopback up in %s: %v %s", ns, err, out)
	}
	self, err := os.Executable()
	if err != nil {
		fatalf("%v", err)
	}
	c := exec.Command("ip", append([]string{"netns", "exec", ns, self}, os.Args[1:]...)...)
	c.Stdin, c.Stdout, c.Stderr = os.Stdin, os.Stdout, os.Stderr
	c.Env = append(os.Environ(), "MONERODLAB_REEXEC=1", "GONERO_NETNS="+ns)
	signal.Ignore(syscall.SIGINT) // the child gets it too and ends
	if err := c.Run(); err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			os.Exit(ee.ExitCode())
		}
		fatalf("%v", err)
	}
	os.Exit(0)
}

func fatalf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "monerodlab: "+format+"\n", args...)
	os.Exit(1)
}

func start(args []string) error {
	fs := flag.NewFlagSet("start", flag.ContinueOnError)
	var c monerodlab.NodeConfig
	var timeout int
	var fixed uint64
	for _, n := range []string{"d", "data-dir"} {
		fs.StringVar(&c.DataDir, n, "", "data directory (required)")
	}
	for _, n := range []string{"r", "rpc-port"} {
		fs.IntVar(&c.RPCPort, n, 18481, "RPC port")
	}
	for _, n := range []string{"p", "p2p-port"} {
		fs.IntVar(&c.P2PPort, n, 18480, "P2P port")
	}
	for _, n := range []string{"t", "timeout"} {
		fs.IntVar(&timeout, n, 120, "seconds to wait for the RPC")
	}
	fs.BoolVar(&c.Online, "online", false, "without --offline")
	fs.BoolVar(&c.Restricted, "restricted", false, "--restricted-rpc")
	fs.BoolVar(&c.Fresh, "fresh", false, "without --keep-fakechain (monerod wipes a regtest store)")
	fs.StringVar(&c.Network, "network", "regtest", "regtest, testnet, stagenet or mainnet")
	fs.Uint64Var(&fixed, "fixed-difficulty", 0, "fixed difficulty (default 1 on regtest, none elsewhere)")
	fs.StringVar(&c.ZMQPub, "zmq-pub", "", "publish ZMQ there (e.g. tcp://127.0.0.1:28485)")
	fs.IntVar(&c.ZMQRPCPort, "zmq-rpc-port", 0, "ZMQ RPC port (default RPC port + 1000)")
	probeTLS := fs.Bool("tls", false, "probe the RPC over TLS (any certificate): for monerod args with --rpc-ssl enabled")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *probeTLS {
		c.ProbeTLS = &tls.Config{InsecureSkipVerify: true}
	}
	c.FixedDifficulty = fixed
	c.Extra = fs.Args()
	if c.DataDir == "" {
		return fmt.Errorf("-d DATA_DIR is required")
	}
	if ll := os.Getenv("LOG_LEVEL"); ll != "" {
		n, err := strconv.Atoi(ll)
		if err != nil {
			return fmt.Errorf("LOG_LEVEL: %v", err)
		}
		c.LogLevel = n
	}
	if pid, ok := runningPID(c.DataDir); ok {
		return fmt.Errorf("a monerod (pid %d) is already running on %s", pid, c.DataDir)
	}
	p, err := monerodlab.StartNode(c, true, time.Duration(timeout)*time.Second)
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "monerodlab: monerod pid %d ready: rpc 127.0.0.1:%d p2p 127.0.0.1:%d data %s\n", p.PID, c.RPCPort, c.P2PPort, c.DataDir)
	fmt.Println(p.PID)
	return nil
}

// runningPID is the pid in dir/monerod.pid if that process is still there.
func runningPID(dir string) (int, bool) {
	b, err := os.ReadFile(filepath.Join(dir, "monerod.pid"))
	if err != nil {
		return 0, false
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		return 0, false
	}
	_, err = os.Stat(fmt.Sprintf("/proc/%d", pid))
	return pid, err == nil
}

func stop(args []string) error {
	if len(args) < 1 || len(args) > 2 {
		usage()
	}
	grace := 60
	if len(args) == 2 {
		var err error
		if grace, err = strconv.Atoi(args[1]); err != nil {
			return err
		}
	}
	pid, err := strconv.Atoi(args[0])
	pidFile := ""
	if err != nil {
		pidFile = filepath.Join(args[0], "monerod.pid")
		b, err := os.ReadFile(pidFile)
		if err != nil {
			return fmt.Errorf("%q is neither a pid nor a data directory with monerod.pid", args[0])
		}
		if pid, err = strconv.Atoi(strings.TrimSpace(string(b))); err != nil {
			return fmt.Errorf("%s: %v", pidFile, err)
		}
	}
	if exe, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid)); err == nil && !strings.HasPrefix(filepath.Base(exe), "monerod") {
		return fmt.Errorf("pid %d is %s, not monerod", pid, exe)
	}
	if err := monerodlab.StopPID(pid, time.Duration(grace)*time.Second); err != nil {
		return err
	}
	if pidFile != "" {
		os.Remove(pidFile)
	}
	return nil
}

func rpc(args []string) error {
	if len(args) < 2 || len(args) > 3 {
		usage()
	}
	params := json.RawMessage("{}")
	if len(args) == 3 {
		params = json.RawMessage(args[2])
	}
	req, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": "0", "method": args[1], "params": params})
	if err != nil {
		return fmt.Errorf("params: %v", err)
	}
	client := &http.Client{Timeout: 600 * time.Second}
	resp, err := client.Post("http://127.0.0.1:"+args[0]+"/json_rpc", "application/json", bytes.NewReader(req))
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	_, err = io.Copy(os.Stdout, resp.Body)
	return err
}

func buildChain(args []string) error {
	if len(args) != 1 {
		usage()
	}
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer cancel()
	_, err := monerodlab.BuildChain(ctx, args[0], os.Stdout)
	return err
}

func buildHeavy(args []string) error {
	if len(args) < 1 || len(args) > 2 {
		usage()
	}
	var o monerodlab.HeavyOptions
	num := func(s, what string) (int, error) {
		if s == "" {
			return 0, nil
		}
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 {
			return 0, fmt.Errorf("%s: %q is not a number", what, s)
		}
		return n, nil
	}
	var err error
	if len(args) == 2 {
		if o.Txs, err = num(args[1], "TXS"); err != nil {
			return err
		}
	}
	if o.Wallets, err = num(os.Getenv("WALLETS"), "WALLETS"); err != nil {
		return err
	}
	if o.Parallel, err = num(os.Getenv("PARALLEL"), "PARALLEL"); err != nil {
		return err
	}
	seed, err := num(os.Getenv("SEED"), "SEED")
	if err != nil {
		return err
	}
	o.Seed = uint64(seed)
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer cancel()
	_, err = monerodlab.BuildHeavyChain(ctx, args[0], o, os.Stdout)
	return err
}
