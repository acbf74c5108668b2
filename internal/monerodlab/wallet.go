package monerodlab

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// WalletRPC is a running monero-wallet-rpc.
type WalletRPC struct {
	Port   int
	Dir    string
	client *http.Client
}

// StartWalletRPC starts monero-wallet-rpc talking to the daemon at
// daemonPort on 127.0.0.1 (any port will do for calls that need no daemon,
// such as validate_address), with a wallet directory of its own. Like
// the chain builder's wallets it runs offline-safe: --no-dns (no DNS lookups for
// OpenAlias or checkpoints), loopback RPC, no login. It is a child of the
// test, which Require has checked runs inside the loopback-only namespace,
// and it is stopped when the test ends.
func (l *Lab) StartWalletRPC(t testing.TB, daemonPort int) *WalletRPC {
	t.Helper()
	// The regtest hard-fork table is not the mainnet one a 0.18.4+ wallet
	// expects of its daemon: without this flag it refuses to talk to any
	// regtest daemon, monerod's included.
	return l.startWalletRPC(t, "monero-wallet-rpc", daemonPort, MismatchedDaemonFlag)
}

// StartOldWalletRPC starts Debian 12's monero-wallet-rpc 0.18.0.0
// (OldWalletRPC) as StartWalletRPC starts the reference one.
func (l *Lab) StartOldWalletRPC(t testing.TB, daemonPort int) *WalletRPC {
	t.Helper()
	bin := OldWalletRPC()
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("Debian 12's monero-wallet-rpc 0.18.0.0 (%s): %v (apt-get install monero)", bin, err)
	}
	return l.startWalletRPC(t, bin, daemonPort)
}

func (l *Lab) startWalletRPC(t testing.TB, bin string, daemonPort int, extra ...string) *WalletRPC {
	t.Helper()
	port, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	w, p, err := launchWalletRPC(t.TempDir(), bin, port, daemonPort, false, extra...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Stop(20 * time.Second) })
	return w
}

// MismatchedDaemonFlag is what the reference monero-wallet-rpc (0.18.4 and
// later) needs to talk to any regtest daemon, monerod's included: the
// regtest hard-fork table is not the mainnet one it expects of its daemon.
const MismatchedDaemonFlag = "--allow-mismatched-daemon-version"

// launchWalletRPC starts monero-wallet-rpc (bin) on 127.0.0.1:port with
// its wallets and ring database in dir, talking to the daemon at
// daemonPort, offline-safe (--no-dns, no login), and waits until it
// answers.
func launchWalletRPC(dir, bin string, port, daemonPort int, detach bool, extra ...string) (*WalletRPC, *Process, error) {
	w := &WalletRPC{Port: port, Dir: dir, client: &http.Client{Timeout: 300 * time.Second}}
	if err := os.MkdirAll(filepath.Join(w.Dir, "ringdb"), 0o700); err != nil {
		return nil, nil, err
	}
	args := []string{"--daemon-address", "127.0.0.1:" + strconv.Itoa(daemonPort), "--trusted-daemon",
		"--rpc-bind-ip", "127.0.0.1", "--rpc-bind-port", strconv.Itoa(w.Port), "--disable-rpc-login",
		"--wallet-dir", w.Dir, "--shared-ringdb-dir", filepath.Join(w.Dir, "ringdb"),
		"--log-file", filepath.Join(w.Dir, "wallet-rpc-"+strconv.Itoa(port)+".log"), "--log-level", "0", "--non-interactive", "--no-dns"}
	args = append(args, extra...)
	p, err := StartProcess(w.Dir, "wallet-rpc-"+strconv.Itoa(port)+".stdout", bin, args, detach, 60*time.Second,
		func() bool { return w.Call("get_version", nil, nil) == nil })
	if err != nil {
		return nil, nil, err
	}
	return w, p, nil
}

// Call makes a JSON-RPC call and decodes its result into result (if not nil).
func (w *WalletRPC) Call(method string, params any, result any) error {
	req, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": "0", "method": method, "params": params})
	resp, err := w.client.Post(fmt.Sprintf("http://127.0.0.1:%d/json_rpc", w.Port), "application/json", bytes.NewReader(req))
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	return DecodeResult("wallet-rpc", method, body, result)
}

// Alice is the regtest wallet of testdata/regtest: its seed, its
// main address and its subaddress 0/1.
const (
	AliceSeed       = "idiom sugar pawnshop width unplugs seventh atlas narrate amended aching square heels weekday kickoff lawsuit wife vocal myth fizzle nobody poetry juggled hive hurried weekday"
	AliceSubaddress = "83CV7UvzMcq4K8Y8k5r4LjR9yPvAHc7pijWpZ23cSN9PUznsnXUa7H6XrMaxRfo2HHA5sgYgSFQPHDmYYcxPrBVLTxkzWwe"
)

// OpenWallet starts monero-wallet-rpc against the daemon at daemonPort with
// a copy of one of the chain's wallets (BuildChain's "alice" or "bob"),
// opened and refreshed.
func (l *Lab) OpenWallet(t testing.TB, c *Chain, name string, daemonPort int) *WalletRPC {
	t.Helper()
	return openWallet(t, l.StartWalletRPC(t, daemonPort), c, name, name, name+".keys")
}

// OpenOldWallet is OpenWallet in Debian 12's monero-wallet-rpc 0.18.0.0
// (StartOldWalletRPC), which still makes transactions with an unlock time:
// the pool rule of 0.18.4 refusing them needs such a transaction. It gets
// the keys file alone (a newer wallet's cache may not load in it) and
// rebuilds its view by refreshing.
func (l *Lab) OpenOldWallet(t testing.TB, c *Chain, name string, daemonPort int) *WalletRPC {
	t.Helper()
	return openWallet(t, l.StartOldWalletRPC(t, daemonPort), c, name, name+".keys")
}

func openWallet(t testing.TB, w *WalletRPC, c *Chain, name string, files ...string) *WalletRPC {
	t.Helper()
	for _, f := range files {
		data, err := os.ReadFile(filepath.Join(c.Dir, "wallets", f))
		if err != nil {
			t.Fatalf("wallet %s: %v", name, err)
		}
		if err := os.WriteFile(filepath.Join(w.Dir, f), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Call("open_wallet", map[string]any{"filename": name, "password": ""}, nil); err != nil {
		t.Fatal(err)
	}
	if err := w.Call("refresh", struct{}{}, nil); err != nil {
		t.Fatal(err)
	}
	return w
}
