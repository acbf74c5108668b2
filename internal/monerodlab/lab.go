// Package monerodlab runs the reference monerod and monero-wallet-rpc for
// cross-check tests, and builds regtest chains with them (BuildChain; the
// command ./internal/monerodlab/cmd/monerodlab does both for scripts).
//
// Network rule: monerod dials seed nodes unless confined, so every test that
// starts it runs inside a network namespace that has loopback alone. `make
// test` creates that namespace and runs `go test` inside it with
// GONERO_NETNS naming it; Require checks it, and the tools started here are
// children of the test, in the same namespace, reached on 127.0.0.1.
package monerodlab

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gonero/gonero/internal/testutil"
)

// ReferenceVersion is the monerod release gonero is checked against: Debian's
// package monero of this version, which scripts/monero-reference.sh (reading
// this constant) installs beside the system's and `make test` puts first on
// the PATH. It is pinned, not followed: moving to a newer release is a change
// of this constant, after checking what the release changed. A difference
// from it is a bug unless the README lists it as deliberate.
const ReferenceVersion = "0.18.5.3"

// OldWalletRPC is Debian 12's monero-wallet-rpc 0.18.0.0, kept beside the
// reference to check that wallets of that release still work with gonerod
// (and, since it still makes transactions with an unlock time, to test the
// pool's newer rules). GONERO_OLD_WALLET_RPC overrides the path.
func OldWalletRPC() string {
	if p := os.Getenv("GONERO_OLD_WALLET_RPC"); p != "" {
		return p
	}
	return "/usr/bin/monero-wallet-rpc"
}

var (
	versionOnce sync.Once
	versionErr  error
)

// checkReference fails unless the monerod on the PATH is ReferenceVersion,
// naming both versions: a new Debian release must be taken up on purpose,
// never pass silently.
func checkReference() error {
	versionOnce.Do(func() {
		out, err := exec.Command("monerod", "--version").CombinedOutput()
		if err != nil {
			versionErr = fmt.Errorf("monerod --version: %v %s", err, out)
			return
		}
		if !strings.Contains(string(out), "v"+ReferenceVersion+"-") && !strings.Contains(string(out), "v"+ReferenceVersion+")") {
			path, _ := exec.LookPath("monerod")
			versionErr = fmt.Errorf("the monerod on the PATH (%s) is %q, but the reference is %s: run the tests through `make test` "+
				"(which installs the reference and puts it first on the PATH), or update monerodlab.ReferenceVersion "+
				"and the README's list of differences after checking the new release", path, strings.TrimSpace(string(out)), ReferenceVersion)
		}
	})
	return versionErr
}

// Lab is the environment monerod tests need.
type Lab struct {
	NetNS string
}

// Require returns the lab or, when something is missing, fails the test in
// CI and skips it elsewhere, saying what is missing.
func Require(t testing.TB) *Lab {
	t.Helper()
	missing := func(what string) *Lab {
		if testutil.InCI() {
			t.Fatalf("monerod cross-check needs %s (CI must provide it; run the tests with `make test`)", what)
		}
		t.Skipf("monerod cross-check skipped: needs %s; run `make test` as root", what)
		return nil
	}
	if os.Geteuid() != 0 {
		return missing("root (for network namespaces)")
	}
	for _, tool := range []string{"monerod", "monero-wallet-rpc", "monero-blockchain-export", "monero-blockchain-import", "ip"} {
		if _, err := exec.LookPath(tool); err != nil {
			return missing(tool + " (apt-get install monero iproute2)")
		}
	}
	ns := os.Getenv("GONERO_NETNS")
	if ns == "" || !InsideNetNS(ns) {
		return missing("to run inside the loopback-only namespace named by GONERO_NETNS")
	}
	if err := checkReference(); err != nil {
		t.Fatal(err)
	}
	return &Lab{NetNS: ns}
}

// FreePort returns a TCP port free on 127.0.0.1 in this namespace, never
// the same twice in one test binary.
//
// The port is taken below the kernel's ephemeral range: a port the kernel
// handed out for a listen on port 0 and took back may be handed out again
// at once, to the next caller or as the local port of any outgoing
// connection (an RPC client's, say) before the node that was told to use it
// has bound it; CI saw both ("address already in use", and one port given
// twice). Below the range the kernel gives out nothing, and the test
// binaries of a run, picking at random among some 17,000 ports, rarely
// meet.
func FreePort(t testing.TB) int {
	t.Helper()
	port, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	return port
}

var (
	portsMu    sync.Mutex
	portsGiven = map[int]bool{}
)

// freePortFloor is the lowest port FreePort hands out: above the ports
// services commonly use.
const freePortFloor = 15000

func freePort() (int, error) {
	lo, hi := freePortFloor, ephemeralLow()
	portsMu.Lock()
	defer portsMu.Unlock()
	for try := 0; try < 1000; try++ {
		addr := "127.0.0.1:0"
		if hi-lo >= 1000 {
			addr = "127.0.0.1:" + strconv.Itoa(lo+rand.IntN(hi-lo))
		}
		l, err := net.Listen("tcp", addr)
		if err != nil {
			continue // taken: try another
		}
		port := l.Addr().(*net.TCPAddr).Port
		l.Close()
		if !portsGiven[port] {
			portsGiven[port] = true
			return port, nil
		}
	}
	return 0, errors.New("no free TCP port on 127.0.0.1 after 1,000 tries")
}

// ephemeralLow is the first port of the kernel's ephemeral range
// (net.ipv4.ip_local_port_range; Linux's default 32768).
func ephemeralLow() int {
	b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err != nil {
		return 32768
	}
	f := strings.Fields(string(b))
	if len(f) != 2 {
		return 32768
	}
	low, err := strconv.Atoi(f[0])
	if err != nil {
		return 32768
	}
	return low
}

// Chain is a regtest chain made by BuildChain: the export file, monerod's
// stopped node directory and (in Dir/wallets) the wallets.
type Chain struct {
	Dir     string
	RawFile string
	NodeDir string
}

var (
	freshOnce  sync.Once
	freshChain *Chain
	freshErr   error
)

// FreshChain returns a regtest chain built for this test run: the one named
// by GONERO_FRESH_CHAIN (`make test` builds one per run and shares it between
// packages), or one this test binary builds once. Callers must not modify it;
// copy NodeDir before starting monerod on it.
func (l *Lab) FreshChain(t testing.TB) *Chain {
	t.Helper()
	if d := os.Getenv("GONERO_FRESH_CHAIN"); d != "" {
		c := &Chain{Dir: d, RawFile: filepath.Join(d, "blockchain.raw"), NodeDir: filepath.Join(d, "node1")}
		if _, err := os.Stat(c.RawFile); err != nil {
			t.Fatalf("GONERO_FRESH_CHAIN=%s has no blockchain.raw: %v", d, err)
		}
		return c
	}
	freshOnce.Do(func() {
		dir, err := os.MkdirTemp("", "gonero-fresh-chain-")
		if err != nil {
			freshErr = err
			return
		}
		var out bytes.Buffer
		if _, err := BuildChain(context.Background(), dir, &out); err != nil {
			freshErr = fmt.Errorf("building a regtest chain: %v\n%s", err, out.String())
			return
		}
		freshChain = &Chain{Dir: dir, RawFile: filepath.Join(dir, "blockchain.raw"), NodeDir: filepath.Join(dir, "node1")}
	})
	if freshErr != nil {
		t.Fatal(freshErr)
	}
	return freshChain
}

// Monerod is a running reference node.
type Monerod struct {
	DataDir  string
	RPCPort  int
	P2PPort  int
	lab      *Lab
	client   *http.Client
	stop     func()
	stopOnce sync.Once
}

func newClient(timeout time.Duration) *http.Client { return &http.Client{Timeout: timeout} }

// StartMonerod starts monerod (regtest, fixed difficulty 1, offline unless
// extra args say --online; ZMQ off unless one says --zmq-pub=ADDR) on a copy of nodeDir, and stops it when the test
// ends. nodeDir may be "" for an empty chain.
func (l *Lab) StartMonerod(t testing.TB, nodeDir string, extra ...string) *Monerod {
	t.Helper()
	return l.startMonerod(t, nodeDir, nil, extra...)
}

// StartMonerodTLS is StartMonerod for a monerod whose extra --rpc-ssl
// flags make its RPC TLS-only: probe is how to reach it (e.g. with the
// client certificate it asks for).
func (l *Lab) StartMonerodTLS(t testing.TB, nodeDir string, probe *tls.Config, extra ...string) *Monerod {
	t.Helper()
	return l.startMonerod(t, nodeDir, probe, extra...)
}

func (l *Lab) startMonerod(t testing.TB, nodeDir string, probe *tls.Config, extra ...string) *Monerod {
	t.Helper()
	data := t.TempDir()
	if nodeDir != "" {
		if out, err := exec.Command("cp", "-a", nodeDir+"/.", data).CombinedOutput(); err != nil {
			t.Fatalf("copy %s: %v %s", nodeDir, err, out)
		}
		os.Remove(filepath.Join(data, "monerod.pid"))
	}
	m := &Monerod{DataDir: data, RPCPort: FreePort(t), P2PPort: FreePort(t), lab: l, client: newClient(60 * time.Second)}
	cfg := NodeConfig{DataDir: data, RPCPort: m.RPCPort, P2PPort: m.P2PPort, ProbeTLS: probe}
	for _, a := range extra {
		switch {
		case a == "--online":
			cfg.Online = true
		case a == "--restricted":
			cfg.Restricted = true
		case a == "--fresh":
			cfg.Fresh = true
		case strings.HasPrefix(a, "--zmq-pub="):
			// Drops --no-zmq and publishes there.
			cfg.ZMQPub = strings.TrimPrefix(a, "--zmq-pub=")
		default:
			cfg.Extra = append(cfg.Extra, a)
		}
	}
	p, err := StartNode(cfg, false, 120*time.Second)
	if err != nil {
		t.Fatalf("monerod: %v", err)
	}
	m.stop = func() { p.Stop(30 * time.Second) }
	t.Cleanup(m.Stop)
	return m
}

// Stop stops monerod (idempotent): SIGTERM, then SIGKILL after a grace
// period.
func (m *Monerod) Stop() {
	m.stopOnce.Do(func() {
		if m.stop != nil {
			m.stop()
		}
	})
}

// Post sends body to path on monerod's RPC port and returns the response body.
func (m *Monerod) Post(path string, body []byte) ([]byte, error) {
	resp, err := m.client.Post(fmt.Sprintf("http://127.0.0.1:%d%s", m.RPCPort, path), "application/json", bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	return io.ReadAll(resp.Body)
}

// Call makes a JSON-RPC call and decodes its result into result (if not nil).
func (m *Monerod) Call(method string, params any, result any) error {
	req, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": "0", "method": method, "params": params})
	body, err := m.Post("/json_rpc", req)
	if err != nil {
		return err
	}
	return DecodeResult("monerod", method, body, result)
}

// DecodeResult decodes a JSON-RPC answer of who (monerod, wallet-rpc):
// its error as a Go error, else its result into result (if not nil).
func DecodeResult(who, method string, body []byte, result any) error {
	var env struct {
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(body, &env); err != nil {
		return fmt.Errorf("%s: undecodable answer %q: %w", method, body, err)
	}
	if env.Error != nil {
		return fmt.Errorf("%s: %s error %d: %s", method, who, env.Error.Code, env.Error.Message)
	}
	if result != nil {
		return json.Unmarshal(env.Result, result)
	}
	return nil
}

// AliceAddress is the regtest wallet address of testdata/regtest
// (mainnet format, which regtest uses); mining rewards can go there.
const AliceAddress = "43HBKxZWFcNgr7c5wiJdRoRb8cqWwS1h4gE5P5MSd27CJDHpVogKad5jJnyYk9m1u11bLAwbNfAawGYbkGEKN1tdVGKR9MS"

// StartMonerodDirect starts an offline regtest monerod with an empty chain
// and the given extra flags (e.g. --fixed-difficulty 20, which StartMonerod
// fixes at 1). It runs as a child of the test, which Require has checked
// runs inside the loopback-only namespace, and is killed when the test ends.
func (l *Lab) StartMonerodDirect(t testing.TB, extra ...string) *Monerod {
	t.Helper()
	return l.StartMonerodOn(t, t.TempDir(), extra...)
}

// StartMonerodOn starts an offline regtest monerod directly on dataDir (not
// a copy: the caller owns the directory, e.g. one monero-blockchain-import
// filled; --keep-fakechain keeps its chain), as a child of the test like
// StartMonerodDirect, and stops it when the test ends (or at Stop).
func (l *Lab) StartMonerodOn(t testing.TB, dataDir string, extra ...string) *Monerod {
	t.Helper()
	return l.StartMonerodNet(t, "regtest", false, dataDir, extra...)
}

// StartMonerodNet is StartMonerodOn on network ("regtest", "testnet" or
// "stagenet"; monerod keeps a testnet or stagenet chain in that
// subdirectory of dataDir), and online (without --offline) when online is
// set: then monerod dials only what extra names (--add-exclusive-node) or
// its built-in seeds, which the loopback-only namespace makes unreachable.
func (l *Lab) StartMonerodNet(t testing.TB, network string, online bool, dataDir string, extra ...string) *Monerod {
	t.Helper()
	m := &Monerod{DataDir: dataDir, RPCPort: FreePort(t), P2PPort: FreePort(t), lab: l,
		client: &http.Client{Timeout: 120 * time.Second}}
	var netArgs []string
	switch network {
	case "regtest":
		netArgs = []string{"--regtest", "--keep-fakechain"}
	case "testnet", "stagenet":
		netArgs = []string{"--" + network}
	default:
		t.Fatalf("monerodlab: unknown network %q", network)
	}
	if !online {
		netArgs = append(netArgs, "--offline")
	}
	extra = append(netArgs, extra...)
	args := append([]string{"--no-igd", "--no-zmq", "--disable-dns-checkpoints",
		"--check-updates", "disabled", "--p2p-bind-ip", "127.0.0.1", "--rpc-bind-ip", "127.0.0.1",
		"--non-interactive", "--log-level", "0", "--data-dir", m.DataDir,
		"--log-file", filepath.Join(m.DataDir, "monerod.log"),
		"--p2p-bind-port", strconv.Itoa(m.P2PPort), "--rpc-bind-port", strconv.Itoa(m.RPCPort)}, extra...)
	p, err := StartProcess(m.DataDir, "monerod.stdout", "monerod", args, false, 120*time.Second, func() bool {
		body, err := m.Post("/get_height", nil)
		return err == nil && bytes.Contains(body, []byte(`"OK"`))
	})
	if err != nil {
		t.Fatal(err)
	}
	m.stop = func() { p.Stop(30 * time.Second) }
	t.Cleanup(m.Stop)
	return m
}

// ImportTimeout bounds one monero-blockchain-import run.
const ImportTimeout = 3 * time.Minute

// BlockchainImport runs monero-blockchain-import on dataDir (a regtest store
// at fixed difficulty 1; an existing chain there is kept and the import
// resumes after its top, as the tool does by default) with the export file
// at path, in the tool's default, verifying mode: every block goes through
// monerod's core (handle_incoming_tx with the block's transactions, then
// handle_incoming_block), as if it came from a peer. extra adds flags (e.g.
// --block-stop N). It runs as a child of the test, which Require has checked
// runs inside the loopback-only namespace, with DNS checkpoints and update
// checks off, and returns the tool's output (log level 1: one line per
// added block, and monerod's reason for a refusal). The tool exits 0 even
// when a block is refused, so callers read the store's height afterwards.
func (l *Lab) BlockchainImport(t testing.TB, dataDir, path string, extra ...string) (string, error) {
	t.Helper()
	args := append([]string{"--regtest", "--keep-fakechain", "--fixed-difficulty", "1", "--offline",
		"--disable-dns-checkpoints", "--check-updates", "disabled", "--log-level", "1",
		"--data-dir", dataDir, "--input-file", path}, extra...)
	if err := os.MkdirAll(dataDir, 0o755); err != nil {
		return "", err
	}
	ctx, cancel := context.WithTimeout(context.Background(), ImportTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "monero-blockchain-import", args...)
	cmd.Dir = dataDir // the tool writes its log file to the working directory
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		err = fmt.Errorf("monero-blockchain-import did not finish within %v", ImportTimeout)
	}
	return string(out), err
}
