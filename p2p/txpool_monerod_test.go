package p2p

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/gonero/gonero/cryptonote"
	"github.com/gonero/gonero/internal/monerodlab"
)

// walletRPC is a monero-wallet-rpc child process (the test runs inside
// the loopback-only namespace, so it can reach nothing else).
type walletRPC struct {
	url string
}

func startWalletRPC(t *testing.T, m *monerodlab.Monerod, walletDir string) *walletRPC {
	t.Helper()
	port := monerodlab.FreePort(t)
	cmd := exec.Command("monero-wallet-rpc", "--daemon-address", "127.0.0.1:"+strconv.Itoa(m.RPCPort), "--trusted-daemon",
		"--rpc-bind-ip", "127.0.0.1", "--rpc-bind-port", strconv.Itoa(port), "--disable-rpc-login",
		"--wallet-dir", walletDir, "--shared-ringdb-dir", filepath.Join(walletDir, "ringdb"),
		"--log-file", filepath.Join(walletDir, "wallet-rpc.log"), "--log-level", "0", "--non-interactive", "--no-dns")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	w := &walletRPC{url: fmt.Sprintf("http://127.0.0.1:%d/json_rpc", port)}
	eventually(t, 60*time.Second, "monero-wallet-rpc to answer", func() bool { return w.call("get_version", struct{}{}, nil) == nil })
	return w
}

func (w *walletRPC) call(method string, params, result any) error {
	req, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": "0", "method": method, "params": params})
	c := http.Client{Timeout: 5 * time.Minute}
	resp, err := c.Post(w.url, "application/json", bytes.NewReader(req))
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	var env struct {
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&env); err != nil {
		return err
	}
	if env.Error != nil {
		return fmt.Errorf("%s: %s", method, env.Error.Message)
	}
	if result != nil {
		return json.Unmarshal(env.Result, result)
	}
	return nil
}

// A transaction made by a wallet on monerod reaches gonero's pool
// (tx_pool_size agrees with monerod's); when monerod mines it, the fluffy
// block arrives without the transaction and gonero completes it from its
// pool, which empties.
func TestTxPoolFollowsMonerod(t *testing.T) {
	lab := monerodlab.Require(t)
	fresh := lab.FreshChain(t)
	tn := startTestNode(t, fresh.RawFile, Config{})
	// monerod dials gonero: an outgoing connection is a Dandelion++ stem
	// candidate, so its wallet's transaction is relayed to gonero at once.
	m := lab.StartMonerod(t, fresh.NodeDir, "--online", "--add-exclusive-node", tn.p2pAddr())
	eventually(t, 30*time.Second, "both nodes to count themselves synchronized", func() bool {
		return tn.node.Synchronized() && monerodGetInfo(t, m).Synchronized
	})

	walletDir := t.TempDir()
	if out, err := exec.Command("cp", "-a", filepath.Join(fresh.Dir, "wallets", "alice"), filepath.Join(fresh.Dir, "wallets", "alice.keys"),
		filepath.Join(fresh.Dir, "wallets", "bob.keys"), walletDir).CombinedOutput(); err != nil {
		t.Fatalf("copying the wallets: %v %s", err, out)
	}
	w := startWalletRPC(t, m, walletDir)
	if err := w.call("open_wallet", map[string]any{"filename": "alice", "password": ""}, nil); err != nil {
		t.Fatal(err)
	}
	if err := w.call("refresh", struct{}{}, nil); err != nil {
		t.Fatal(err)
	}
	var sent struct {
		TxHash string `json:"tx_hash"`
	}
	if err := w.call("transfer", map[string]any{"destinations": []map[string]any{{"amount": 1_000_000_000_000, "address": monerodlab.AliceAddress}},
		"account_index": 0, "priority": 0}, &sent); err != nil {
		t.Fatal(err)
	}
	id, err := cryptonote.ParseHash(sent.TxHash)
	if err != nil {
		t.Fatal(err)
	}
	eventually(t, 90*time.Second, "the transaction to reach gonero's pool", func() bool { _, _, ok := tn.node.pool.get(id); return ok })
	ours := uintField(t, result(t, call(t, tn.url, "get_info", `{}`)), "tx_pool_size")
	var theirs struct {
		TxPoolSize uint64 `json:"tx_pool_size"`
	}
	if err := m.Call("get_info", struct{}{}, &theirs); err != nil {
		t.Fatal(err)
	}
	if ours != 1 || theirs.TxPoolSize != 1 {
		t.Fatalf("tx_pool_size: gonero %d, monerod %d; want 1 and 1", ours, theirs.TxPoolSize)
	}

	height := tn.chain.Height()
	if err := m.Call("generateblocks", map[string]any{"amount_of_blocks": 1, "wallet_address": monerodlab.AliceAddress}, nil); err != nil {
		t.Fatal(err)
	}
	eventually(t, 10*time.Second, "gonero to add the block with the transaction", func() bool { return tn.chain.Height() == height+1 })
	if n := tn.chain.Top().NumTxes; n != 1 {
		t.Fatalf("the new block has %d transactions, want 1", n)
	}
	if n := tn.node.TxPoolSize(); n != 0 {
		t.Fatalf("gonero's pool still holds %d transactions after the block", n)
	}
	sameChain(t, tn, m, height-1)
}
