package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gonero/gonero/internal/monerodlab"
	"github.com/gonero/gonero/internal/testutil"
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

// importInto imports the chain file raw into gonerod's data directory
// data (regtest, difficulty 1 as monerod-lab's chains), with extra import
// flags.
func importInto(t *testing.T, bin, data, raw string, extra ...string) {
	t.Helper()
	args := append([]string{"import", "--regtest", "--fixed-difficulty", "1", "--data-dir", data, "--input-file", raw}, extra...)
	if out, err := exec.Command(bin, args...).CombinedOutput(); err != nil {
		t.Fatalf("import: %v\n%s", err, out)
	}
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
	node := exec.Command(bin, "--regtest", "--fixed-difficulty", "1", "--data-dir", data, "--rpc-bind-port", strconv.Itoa(port),
		"--p2p-bind-ip", "127.0.0.1", "--p2p-bind-port", strconv.Itoa(freePort(t)))
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
		{[]string{"--regtest", "--zmq-rpc-bind-port", "18082"}, "gonerod has no ZMQ RPC server"},
		{[]string{"--regtest", "--zmq-rpc-bind-ip", "127.0.0.1"}, "gonerod has no ZMQ RPC server"},
		{[]string{"--regtest", "--zmq-pub", "tcp://127.0.0.1"}, "want tcp://IP:PORT"},
		{[]string{"--regtest", "--zmq-pub", "udp://127.0.0.1:1"}, "want tcp://IP:PORT or ipc://PATH"},
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

// --rpc-login (digest auth, checked with curl --digest) and a second,
// restricted listener, through the real binary.
func TestLoginAndRestrictedListener(t *testing.T) {
	curl := testutil.RequireTool(t, "curl", "apt-get install curl")
	bin := buildGonerod(t)
	data := t.TempDir()
	port, rport := freePort(t), freePort(t)
	node := exec.Command(bin, "--regtest", "--data-dir", data, "--rpc-bind-port", strconv.Itoa(port),
		"--rpc-restricted-bind-port", strconv.Itoa(rport), "--rpc-login", "alice:s3cret", "--offline")
	var logs bytes.Buffer
	node.Stdout, node.Stderr = &logs, &logs
	if err := node.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { node.Process.Signal(syscall.SIGTERM); node.Wait() }()
	body := `{"jsonrpc":"2.0","id":"0","method":"get_connections"}`
	ask := func(p int, auth ...string) string {
		args := append([]string{"-s", "-o", "/dev/null", "-w", "%{http_code}", "--data", body}, auth...)
		out, _ := exec.Command(curl, append(args, "http://127.0.0.1:"+strconv.Itoa(p)+"/json_rpc")...).Output()
		return string(out)
	}
	deadline := time.Now().Add(20 * time.Second)
	for ask(port) == "000" {
		if time.Now().After(deadline) {
			t.Fatalf("RPC never came up:\n%s", logs.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	if got := ask(port); got != "401" {
		t.Errorf("without credentials: HTTP %s, want 401", got)
	}
	if got := ask(port, "--digest", "-u", "alice:wrong"); got != "401" {
		t.Errorf("wrong password: HTTP %s, want 401", got)
	}
	if got := ask(port, "--digest", "-u", "alice:s3cret"); got != "200" {
		t.Errorf("right password: HTTP %s, want 200", got)
	}
	out, _ := exec.Command(curl, "-s", "--digest", "-u", "alice:s3cret", "--data", body, "http://127.0.0.1:"+strconv.Itoa(rport)+"/json_rpc").Output()
	if !strings.Contains(string(out), "-32601") {
		t.Errorf("get_connections on the restricted listener: %s", out)
	}
}

// Two gonerods through the real binary: one serves an imported chain on
// its P2P port, the other is told --add-exclusive-node to it, syncs the
// whole chain, reports the connection, and keeps its peer lists file.
func TestTwoNodesSync(t *testing.T) {
	bin := buildGonerod(t)
	raw := testutil.Path(t, "testdata", "regtest", "blockchain.raw")
	dataA, dataB := t.TempDir(), t.TempDir()
	importInto(t, bin, dataA, raw)
	p2pA, rpcA, rpcB := freePort(t), freePort(t), freePort(t)
	start := func(args ...string) (*exec.Cmd, *bytes.Buffer) {
		cmd := exec.Command(bin, append([]string{"--regtest", "--fixed-difficulty", "1", "--p2p-bind-ip", "127.0.0.1"}, args...)...)
		var logs bytes.Buffer
		cmd.Stdout, cmd.Stderr = &logs, &logs
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cmd.Process.Kill(); _, _ = cmd.Process.Wait() })
		return cmd, &logs
	}
	_, logsA := start("--data-dir", dataA, "--rpc-bind-port", strconv.Itoa(rpcA), "--p2p-bind-port", strconv.Itoa(p2pA))
	b, logsB := start("--data-dir", dataB, "--rpc-bind-port", strconv.Itoa(rpcB), "--p2p-bind-port", strconv.Itoa(freePort(t)),
		"--add-exclusive-node", "127.0.0.1:"+strconv.Itoa(p2pA))
	info := func(port int) (height uint64, top string, out uint64) {
		resp, err := http.Post("http://127.0.0.1:"+strconv.Itoa(port)+"/json_rpc", "application/json",
			strings.NewReader(`{"jsonrpc":"2.0","id":"0","method":"get_info"}`))
		if err != nil {
			return 0, "", 0
		}
		defer resp.Body.Close()
		var r struct {
			Result struct {
				Height   uint64 `json:"height"`
				Top      string `json:"top_block_hash"`
				Outgoing uint64 `json:"outgoing_connections_count"`
			} `json:"result"`
		}
		_ = json.NewDecoder(resp.Body).Decode(&r)
		return r.Result.Height, r.Result.Top, r.Result.Outgoing
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		h, top, out := info(rpcB)
		_, topA, _ := info(rpcA)
		if h == 300 && top == topA && out == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("node B did not sync from node A (height %d):\nA: %s\nB: %s", h, logsA, logsB)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err := b.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Process.Wait(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dataB, "fake", "p2pstate.json")); err != nil {
		t.Fatalf("the peer lists were not saved at shutdown: %v\n%s", err, logsB)
	}
}

// The README's quick start: gonerod --regtest --start-mining mines to the
// address on its own, answers generateblocks at the same time, stops
// cleanly on SIGINT, and keeps what it mined for the next start.
func TestStartMining(t *testing.T) {
	bin := buildGonerod(t)
	data := t.TempDir()
	port := freePort(t)
	url := "http://127.0.0.1:" + strconv.Itoa(port)
	start := func(args ...string) (*exec.Cmd, *bytes.Buffer, chan error) {
		node := exec.Command(bin, append([]string{"--regtest", "--offline", "--fixed-difficulty", "1", "--data-dir", data,
			"--rpc-bind-port", strconv.Itoa(port)}, args...)...)
		var logs bytes.Buffer
		node.Stdout, node.Stderr = &logs, &logs
		if err := node.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { node.Process.Kill() })
		exited := make(chan error, 1)
		go func() { exited <- node.Wait() }()
		return node, &logs, exited
	}
	rpcCall := func(method, params string, result any) error {
		resp, err := http.Post(url+"/json_rpc", "application/json",
			strings.NewReader(`{"jsonrpc":"2.0","id":"0","method":"`+method+`","params":`+params+`}`))
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		return json.NewDecoder(resp.Body).Decode(result)
	}
	height := func() uint64 {
		var r struct {
			Result struct {
				Count uint64 `json:"count"`
			} `json:"result"`
		}
		if err := rpcCall("get_block_count", "{}", &r); err != nil {
			return 0
		}
		return r.Result.Count
	}
	stop := func(node *exec.Cmd, logs *bytes.Buffer, exited chan error) {
		if err := node.Process.Signal(os.Interrupt); err != nil {
			t.Fatal(err)
		}
		select {
		case err := <-exited:
			if err != nil {
				t.Fatalf("exit %v after SIGINT:\n%s", err, logs.String())
			}
		case <-time.After(15 * time.Second):
			t.Fatalf("no exit within 15 s of SIGINT:\n%s", logs.String())
		}
	}

	node, logs, exited := start("--start-mining", alice, "--mining-interval", "200ms")
	deadline := time.Now().Add(30 * time.Second)
	for height() < 6 {
		if time.Now().After(deadline) {
			t.Fatalf("not mining:\n%s", logs.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	var gen struct {
		Result struct {
			Blocks []string `json:"blocks"`
			Height uint64   `json:"height"`
		} `json:"result"`
	}
	if err := rpcCall("generateblocks", `{"amount_of_blocks":20,"wallet_address":"`+alice+`"}`, &gen); err != nil || len(gen.Result.Blocks) != 20 {
		t.Fatalf("generateblocks while mining: %v %+v", err, gen)
	}
	stop(node, logs, exited)
	mined := strings.Count(logs.String(), "mined block")
	if mined < 5 || !strings.Contains(logs.String(), "mining stopped") {
		t.Fatalf("%d blocks logged:\n%s", mined, logs.String())
	}
	// 1 genesis + the loop's blocks + generateblocks' 20.
	want := uint64(1 + mined + 20)

	node, logs, exited = start()
	deadline = time.Now().Add(20 * time.Second)
	for height() == 0 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if h := height(); h != want {
		t.Fatalf("after restart: height %d, want %d (%d mined by the loop)\n%s", h, want, mined, logs.String())
	}
	stop(node, logs, exited)
}

// TestRPCLimitFlags: monerod's limit flags reach the listener
// configuration, with monerod's defaults and its refusals.
func TestRPCLimitFlags(t *testing.T) {
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
	main, _, err := o.rpcConfigs()
	if err != nil {
		t.Fatal(err)
	}
	if main.MaxConnections != 100 || main.MaxConnectionsPerPublicIP != 3 || main.MaxConnectionsPerPrivateIP != 25 ||
		main.ResponseSoftLimit != 25<<20 {
		t.Fatalf("defaults: %+v", main)
	}
	o, err = parse("--rpc-max-connections", "50", "--rpc-max-connections-per-public-ip", "7",
		"--rpc-max-connections-per-private-ip", "40", "--rpc-response-soft-limit", "1000000")
	if err != nil {
		t.Fatal(err)
	}
	if main, _, err = o.rpcConfigs(); err != nil || main.MaxConnections != 50 || main.MaxConnectionsPerPublicIP != 7 ||
		main.MaxConnectionsPerPrivateIP != 40 || main.ResponseSoftLimit != 1000000 {
		t.Fatalf("%+v %v", main, err)
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
		if _, _, err := o.rpcConfigs(); err == nil {
			t.Errorf("%v accepted", args)
		}
	}
}

// The real binary publishes over ZMQ (here on an ipc:// endpoint): a
// subscriber to json-minimal-chain_main gets each mined block's height and
// id as getblockheaderbyheight reports them. monerod's bytes are compared
// in TestZMQMatchesMonerod.
func TestZMQPublishes(t *testing.T) {
	bin := buildGonerod(t)
	endpoint := "ipc://" + filepath.Join(t.TempDir(), "zmq.sock")
	g := startGonerod(t, bin, t.TempDir(), "--offline", "--zmq-pub", endpoint)
	sub := subscribe(t, endpoint, "json-minimal-chain_main")
	time.Sleep(500 * time.Millisecond)
	var gen struct {
		Blocks []string `json:"blocks"`
		Height uint64   `json:"height"`
	}
	if err := g.call("generateblocks", map[string]any{"amount_of_blocks": 2, "wallet_address": alice}, &gen); err != nil || len(gen.Blocks) != 2 {
		t.Fatalf("generateblocks: %v %+v", err, gen)
	}
	msgs := sub.drain(time.Second)
	if len(msgs) != 2 {
		t.Fatalf("got %d messages: %q", len(msgs), msgs)
	}
	for i, msg := range msgs {
		var hdr struct {
			Header struct {
				Height   uint64 `json:"height"`
				PrevHash string `json:"prev_hash"`
			} `json:"block_header"`
		}
		if err := g.call("getblockheaderbyhash", map[string]any{"hash": gen.Blocks[i]}, &hdr); err != nil {
			t.Fatal(err)
		}
		want := fmt.Sprintf(`json-minimal-chain_main:{"first_height":%d,"first_prev_id":"%s","ids":["%s"]}`, hdr.Header.Height, hdr.Header.PrevHash, gen.Blocks[i])
		if msg != want {
			t.Errorf("message %d: %s, want %s", i, msg, want)
		}
	}
}
