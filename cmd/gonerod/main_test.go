package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gonero/gonero/internal/monerodlab"
	"github.com/gonero/gonero/internal/testutil"
	"github.com/gonero/gonero/node"
)

var (
	buildOnce sync.Once
	builtBin  string
	buildErr  error
	buildDir  string // removed by TestMain
)

// buildGonerod compiles the command once per test binary run: every test
// of the package runs the same binary.
func buildGonerod(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		if buildDir, buildErr = os.MkdirTemp("", "gonerod-bin-"); buildErr != nil {
			return
		}
		bin := filepath.Join(buildDir, "gonerod")
		args := []string{"build", "-o", bin}
		if os.Getenv("GONERO_RACE") != "" {
			// make test: the node under test runs with the race detector.
			args = append(args, "-race")
		}
		if out, err := exec.Command("go", append(args, ".")...).CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
			return
		}
		builtBin = bin
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return builtBin
}

// importChain imports a monerod-lab chain into a new gonerod data
// directory, which it returns.
func importChain(t *testing.T, bin string, c *monerodlab.Chain) string {
	t.Helper()
	data := t.TempDir()
	importInto(t, bin, data, c.RawFile)
	return data
}

// freePort is monerodlab.FreePort: a port below the ephemeral range,
// never the same twice in this test binary.
func freePort(t *testing.T) int {
	t.Helper()
	return monerodlab.FreePort(t)
}

// withZMQRPCPort is gonerod's args with a free port for its ZMQ RPC server
// unless they choose one or turn ZMQ off: gonerod serves it by default on
// the network's port, as monerod does, and the tests' nodes run side by
// side.
func withZMQRPCPort(t *testing.T, args []string) []string {
	t.Helper()
	for _, a := range args {
		if a == "--no-zmq" || a == "--zmq-rpc-bind-port" || strings.HasPrefix(a, "--zmq-rpc-bind-port=") {
			return args
		}
	}
	return append(slices.Clip(args), "--zmq-rpc-bind-port", strconv.Itoa(freePort(t)))
}

// The README's path: import an exported chain, run the node, ask it over
// RPC, stop it with SIGTERM.
func TestImportServeAndStop(t *testing.T) {
	bin := buildGonerod(t)
	data := t.TempDir()
	raw := testutil.Path(t, "testdata", "regtest", "blockchain.raw")
	out, err := exec.Command(bin, "import", "--regtest", "--fixed-difficulty", "1", "--data-dir", data, "--input-file", raw).CombinedOutput()
	if err != nil {
		t.Fatalf("import: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "299 blocks added") {
		t.Fatalf("import output: %s", out)
	}
	// Importing again adds nothing and succeeds.
	out, err = exec.Command(bin, "import", "--regtest", "--fixed-difficulty", "1", "--data-dir", data, "--input-file", raw).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "0 blocks added") {
		t.Fatalf("second import: %v\n%s", err, out)
	}

	port := freePort(t)
	node := exec.Command(bin, withZMQRPCPort(t, []string{"--regtest", "--fixed-difficulty", "1", "--data-dir", data, "--rpc-bind-port", strconv.Itoa(port),
		"--p2p-bind-ip", "127.0.0.1", "--p2p-bind-port", strconv.Itoa(freePort(t))})...)
	var logs bytes.Buffer
	node.Stdout, node.Stderr = &logs, &logs
	if err := node.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- node.Wait() }()
	defer node.Process.Kill()
	url := "http://127.0.0.1:" + strconv.Itoa(port)
	deadline := time.Now().Add(20 * time.Second)
	for {
		resp, err := http.Get(url + "/get_height")
		if err == nil {
			resp.Body.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("RPC never came up:\n%s", logs.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	resp, err := http.Post(url+"/json_rpc", "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":"0","method":"get_info"}`))
	if err != nil {
		t.Fatal(err)
	}
	var info struct {
		Result struct {
			Height       uint64 `json:"height"`
			Nettype      string `json:"nettype"`
			TopBlockHash string `json:"top_block_hash"`
			TxCount      uint64 `json:"tx_count"`
		} `json:"result"`
	}
	err = json.NewDecoder(resp.Body).Decode(&info)
	resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	r := info.Result
	if r.Height != 300 || r.Nettype != "fakechain" || r.TxCount != 10 ||
		r.TopBlockHash != "5b21854194fee15949b8c4057da0e1d3395c62a29530f1b30e7a622502f80db3" {
		t.Fatalf("get_info: %+v", r)
	}
	if err := node.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-exited:
		if err != nil {
			t.Fatalf("node exited with %v after SIGTERM:\n%s", err, logs.String())
		}
	case <-time.After(15 * time.Second):
		t.Fatalf("node did not stop within 15 s of SIGTERM:\n%s", logs.String())
	}
}

// alice is the regtest wallet of testdata/regtest.
const alice = "43HBKxZWFcNgr7c5wiJdRoRb8cqWwS1h4gE5P5MSd27CJDHpVogKad5jJnyYk9m1u11bLAwbNfAawGYbkGEKN1tdVGKR9MS"

// Mistakes get a clear message and exit status 1.
func TestCommandLineErrors(t *testing.T) {
	t.Parallel()
	bin := buildGonerod(t)
	data := t.TempDir()
	corrupt := filepath.Join(data, "corrupt.raw")
	if err := os.WriteFile(corrupt, []byte("not an export file at all"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--regtest", "--testnet"}, "at most one of"},
		{[]string{"--regtest", "--rpc-bind-ip", "0.0.0.0"}, "--confirm-external-bind"},
		{[]string{"--regtest", "--rpc-login", "user"}, "needs user:password"},
		// monerod 0.18.5.3's UPnP flags parse (the error is the next flag's).
		{[]string{"--regtest", "--no-igd", "--igd", "enabled", "--rpc-login", "user"}, "needs user:password"},
		{[]string{"import", "--regtest"}, "--input-file is required"},
		{[]string{"import", "--regtest", "--input-file", filepath.Join(data, "missing.raw")}, "no such file"},
		{[]string{"import", "--regtest", "--input-file", corrupt}, "not a monero-blockchain-export file"},
		{[]string{"--no-such-flag"}, "unknown flag"},
		{[]string{"--regtest", "--add-exclusive-node", "seed.example.org:18080"}, "want IP:port"},
		{[]string{"--regtest", "--p2p-bind-ip", "localhost"}, "not an IP address"},
		{[]string{"--start-mining", alice}, "--start-mining needs --regtest"},
		{[]string{"--regtest", "--start-mining", "9svHk1wHPo3ULf2AZykghzcye6sitaRE4MaDjPC6uanTHCynHjJHZaiAb922PojE1GexhhRt1LVf5DC43feyrRZMLXQr3mk"},
			"address belongs to another network: a testnet standard address, but the node runs regtest"},
		{[]string{"--regtest", "--start-mining", alice[:40] + "1" + alice[41:]}, "checksum mismatch"},
		{[]string{"--regtest", "--start-mining", alice + "0"}, "not valid base58"},
		{[]string{"--regtest", "--start-mining", alice, "--mining-interval", "-1s"}, "is negative"},
		{[]string{"--regtest", "--zmq-rpc-bind-port", "x"}, `invalid argument "x" for "--zmq-rpc-bind-port"`},
		{[]string{"--regtest", "--zmq-rpc-bind-ip", "localhost"}, `--zmq-rpc-bind-ip "localhost": not an IP address`},
		{[]string{"--regtest", "--zmq-pub", "tcp://127.0.0.1"}, "want tcp://IP:PORT"},
		{[]string{"--regtest", "--zmq-pub", "udp://127.0.0.1:1"}, "want tcp://IP:PORT or ipc://PATH"},
		{[]string{"--regtest", "--fast-block-sync", "2"}, "--fast-block-sync takes 0 or 1, not 2"},
	}
	for _, c := range cases {
		cmd := exec.Command(bin, append(c.args, "--data-dir", data)...)
		cmd.Env = append(os.Environ(), "RPC_PASSWORD=")
		out, err := cmd.CombinedOutput()
		ee, ok := err.(*exec.ExitError)
		if !ok || ee.ExitCode() != 1 || !strings.Contains(string(out), c.want) {
			t.Errorf("gonerod %v: exit %v, output %q; want status 1 and %q", c.args, err, out, c.want)
		}
	}
}

// TestRPCLimitFlags: monerod's limit flags reach the listener
// configuration, with monerod's defaults and its refusals.
func TestRPCLimitFlags(t *testing.T) {
	t.Parallel()
	parse := func(args ...string) (*options, error) {
		o := &options{}
		cmd := newRootCommandFor(o)
		if err := cmd.ParseFlags(args); err != nil {
			return nil, err
		}
		return o, nil
	}
	o, err := parse()
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := o.config()
	if err != nil {
		t.Fatal(err)
	}
	main := cfg.RPC
	if main.MaxConnections != 100 || main.MaxConnectionsPerPublicIP != 3 || main.MaxConnectionsPerPrivateIP != 25 ||
		main.ResponseSoftLimit != 25<<20 {
		t.Fatalf("defaults: %+v", main)
	}
	o, err = parse("--rpc-max-connections", "50", "--rpc-max-connections-per-public-ip", "7",
		"--rpc-max-connections-per-private-ip", "40", "--rpc-response-soft-limit", "1000000")
	if err != nil {
		t.Fatal(err)
	}
	if cfg, err = o.config(); err != nil || cfg.RPC.MaxConnections != 50 || cfg.RPC.MaxConnectionsPerPublicIP != 7 ||
		cfg.RPC.MaxConnectionsPerPrivateIP != 40 || cfg.RPC.ResponseSoftLimit != 1000000 {
		t.Fatalf("%+v %v", cfg.RPC, err)
	}
	for _, args := range [][]string{
		{"--rpc-max-connections", "10", "--rpc-max-connections-per-private-ip", "11"},
		{"--rpc-max-connections", "2"},
		{"--rpc-max-connections-per-public-ip", "0"},
	} {
		o, err := parse(args...)
		if err != nil {
			t.Fatal(err)
		}
		cfg, err := o.config()
		if err != nil {
			t.Fatal(err)
		}
		// node.New checks the limits before anything starts.
		if _, err := node.New(cfg); err == nil {
			t.Errorf("%v accepted", args)
		}
	}
}

// Without flags, gonerod's Config is node.DefaultConfig (its data
// directory aside): the flags take their defaults from it.
// --no-zmq turns off both ZMQ surfaces, the ZMQ RPC server (on by
// default) and the publisher, whatever the other ZMQ flags say, as
// monerod's arg_zmq_rpc_disabled.
func TestNoZMQ(t *testing.T) {
	t.Parallel()
	o := &options{}
	if err := newRootCommandFor(o).ParseFlags([]string{"--no-zmq", "--zmq-pub", "tcp://127.0.0.1:5", "--zmq-rpc-bind-port", "6"}); err != nil {
		t.Fatal(err)
	}
	c, err := o.config()
	if err != nil {
		t.Fatal(err)
	}
	if !c.ZMQRPC.Disabled || c.ZMQPub != nil {
		t.Errorf("--no-zmq: ZMQ RPC disabled %v, publisher on %v", c.ZMQRPC.Disabled, c.ZMQPub)
	}
}

func TestFlagDefaultsAreNodeDefaults(t *testing.T) {
	t.Parallel()
	o := &options{}
	if err := newRootCommandFor(o).ParseFlags(nil); err != nil {
		t.Fatal(err)
	}
	got, err := o.config()
	if err != nil {
		t.Fatal(err)
	}
	want := node.DefaultConfig()
	got.DataDir, want.DataDir = "", ""
	got.P2P.DNSPublic = os.Getenv("DNS_PUBLIC")
	want.P2P.DNSPublic = got.P2P.DNSPublic
	if !reflect.DeepEqual(got, want) {
		t.Errorf("the flags' defaults:\n%+v\nnode.DefaultConfig:\n%+v", got, want)
	}
}
