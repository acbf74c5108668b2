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
// build-regtest-chain it runs offline-safe: --no-dns (no DNS lookups for
// OpenAlias or checkpoints), loopback RPC, no login, and
// --allow-mismatched-daemon-version (monero-wallet-rpc 0.18.4 and later). It is a child of the
// test, which Require has checked runs inside the loopback-only namespace,
// and it is stopped when the test ends.
func (l *Lab) StartWalletRPC(t testing.TB, daemonPort int) *WalletRPC {
	t.Helper()
	w := &WalletRPC{Port: FreePort(t), Dir: t.TempDir(), client: &http.Client{Timeout: 300 * time.Second}}
	if err := os.MkdirAll(filepath.Join(w.Dir, "ringdb"), 0o700); err != nil {
		t.Fatal(err)
	}
	args := []string{"--daemon-address", "127.0.0.1:" + strconv.Itoa(daemonPort), "--trusted-daemon",
		"--rpc-bind-ip", "127.0.0.1", "--rpc-bind-port", strconv.Itoa(w.Port), "--disable-rpc-login",
		"--wallet-dir", w.Dir, "--shared-ringdb-dir", filepath.Join(w.Dir, "ringdb"),
		"--log-file", filepath.Join(w.Dir, "wallet-rpc.log"), "--log-level", "0", "--non-interactive", "--no-dns",
		// The wallet is a mainnet wallet on a regtest chain: since 0.18.4
		// wallet2 refuses blocks whose version mainnet would not have at
		// their height (v16 at height 1) unless told otherwise.
		"--allow-mismatched-daemon-version"}
	stop := startChild(t, w.Dir, "monero-wallet-rpc", args, 20*time.Second, 60*time.Second,
		func() bool { return w.Call("get_version", nil, nil) == nil })
	t.Cleanup(stop)
	return w
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

// Alice is the regtest wallet of shared/testdata/regtest: its seed, its
// main address and its subaddress 0/1.
const (
	AliceSeed       = "idiom sugar pawnshop width unplugs seventh atlas narrate amended aching square heels weekday kickoff lawsuit wife vocal myth fizzle nobody poetry juggled hive hurried weekday"
	AliceSubaddress = "83CV7UvzMcq4K8Y8k5r4LjR9yPvAHc7pijWpZ23cSN9PUznsnXUa7H6XrMaxRfo2HHA5sgYgSFQPHDmYYcxPrBVLTxkzWwe"
)

// OpenWallet starts monero-wallet-rpc against the daemon at daemonPort with
// a copy of one of the chain's wallets (build-regtest-chain's "alice" or
// "bob"), opened and refreshed.
func (l *Lab) OpenWallet(t testing.TB, c *Chain, name string, daemonPort int) *WalletRPC {
	t.Helper()
	w := l.StartWalletRPC(t, daemonPort)
	for _, f := range []string{name, name + ".keys"} {
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
