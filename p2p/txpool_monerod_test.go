package p2p

import (
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/gonero/gonero/cryptonote"
	"github.com/gonero/gonero/internal/monerodlab"
)

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

	w := lab.StartWalletRPC(t, m.RPCPort)
	if out, err := exec.Command("cp", "-a", filepath.Join(fresh.Dir, "wallets", "alice"), filepath.Join(fresh.Dir, "wallets", "alice.keys"),
		w.Dir).CombinedOutput(); err != nil {
		t.Fatalf("copying the wallet: %v %s", err, out)
	}
	if err := w.Call("open_wallet", map[string]any{"filename": "alice", "password": ""}, nil); err != nil {
		t.Fatal(err)
	}
	if err := w.Call("refresh", struct{}{}, nil); err != nil {
		t.Fatal(err)
	}
	var sent struct {
		TxHash string `json:"tx_hash"`
	}
	if err := w.Call("transfer", map[string]any{"destinations": []map[string]any{{"amount": 1_000_000_000_000, "address": monerodlab.AliceAddress}},
		"account_index": 0, "priority": 0}, &sent); err != nil {
		t.Fatal(err)
	}
	id, err := cryptonote.ParseHash(sent.TxHash)
	if err != nil {
		t.Fatal(err)
	}
	eventually(t, 90*time.Second, "the transaction to reach gonero's pool", func() bool { return tn.node.pool.Has(id) })
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
