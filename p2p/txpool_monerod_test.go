package p2p

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/gonero/gonero/cryptonote"
	"github.com/gonero/gonero/internal/monerodlab"
	"github.com/gonero/gonero/txpool"
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

	w := lab.OpenWallet(t, fresh, "alice", m.RPCPort)
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

// gonero's own transaction, in a Dandelion++ stem epoch, goes to its
// outgoing monerod peer with dandelionpp_fluff false, and monerod takes it
// into its pool. When monerod mines it, gonero, which holds it in the stem
// phase, does not complete the fluffy block from its pool (that would tell
// the peer it had the transaction): like monerod it asks for the
// transaction, and adds the block.
func TestStemToMonerod(t *testing.T) {
	lab := monerodlab.Require(t)
	fresh := lab.FreshChain(t)
	m := lab.StartMonerod(t, fresh.NodeDir, "--online")
	tn := startTestNode(t, fresh.RawFile, Config{ExclusiveNodes: []string{"127.0.0.1:" + strconv.Itoa(m.P2PPort)},
		ConnectInterval: 100 * time.Millisecond, TimedSyncInterval: time.Second})
	d := tn.node.dandelion
	d.mu.Lock()
	d.rnd = func(n int) int { return n - 1 }           // a stem epoch
	d.draw = func() time.Duration { return time.Hour } // no embargo fluff during the test
	d.mu.Unlock()
	eventually(t, 30*time.Second, "both nodes synchronized, monerod a stem candidate", func() bool {
		return tn.node.Synchronized() && monerodGetInfo(t, m).Synchronized && len(tn.node.stemCandidates()) == 1
	})
	if _, err := m.Post("/set_log_categories", []byte(`{"categories":"*:WARNING,global:INFO,net.p2p.tx:DEBUG"}`)); err != nil {
		t.Fatal(err)
	}

	w := lab.OpenWallet(t, fresh, "alice", m.RPCPort)
	var made struct {
		Hash string `json:"tx_hash"`
		Hex  string `json:"tx_blob"`
	}
	if err := w.Call("transfer", map[string]any{"destinations": []map[string]any{{"amount": 1_000_000_000_000, "address": monerodlab.AliceAddress}},
		"account_index": 0, "priority": 0, "do_not_relay": true, "get_tx_hex": true}, &made); err != nil {
		t.Fatal(err)
	}
	blob, err := hex.DecodeString(made.Hex)
	if err != nil {
		t.Fatal(err)
	}
	stemFailures, fluffs := monerodRelayLog(t, m)
	e, err := tn.node.pool.Add(blob, txpool.AddOptions{Source: txpool.SourceRPC})
	if err != nil {
		t.Fatal(err)
	}
	if e.ID.String() != made.Hash {
		t.Fatalf("pooled %s, the wallet made %s", e.ID, made.Hash)
	}
	if _, stem := tn.node.pool.StemPhase(e.ID); !stem {
		t.Fatal("gonero's own transaction is not in the stem phase in a stem epoch with a stem peer")
	}
	eventually(t, 10*time.Second, "the transaction in monerod's pool", func() bool {
		var pool struct {
			Hashes []string `json:"tx_hashes"`
		}
		body, err := m.Post("/get_transaction_pool_hashes", []byte(`{}`))
		return err == nil && json.Unmarshal(body, &pool) == nil && slices.Contains(pool.Hashes, made.Hash)
	})
	// How monerod went on: in a stem epoch it tries to stem the
	// transaction further, finds no outgoing peer (gonero dialled it) and
	// fluffs it; in a fluff epoch (20%) it fluffs it at once. Either way it
	// logs the fluff last.
	eventually(t, 10*time.Second, "monerod to fluff the transaction", func() bool {
		_, f := monerodRelayLog(t, m)
		return f > fluffs
	})
	if failures, _ := monerodRelayLog(t, m); failures > stemFailures {
		t.Log("monerod, in a stem epoch, found no stem peer and fluffed the transaction")
	} else {
		t.Log("monerod, in a fluff epoch, fluffed the transaction")
	}

	height := tn.chain.Height()
	if err := m.Call("generateblocks", map[string]any{"amount_of_blocks": 1, "wallet_address": monerodlab.AliceAddress}, nil); err != nil {
		t.Fatal(err)
	}
	eventually(t, 10*time.Second, "gonero to add monerod's block", func() bool { return tn.chain.Height() == height+1 })
	if n := tn.chain.Top().NumTxes; n != 1 {
		t.Fatalf("the new block has %d transactions, want 1", n)
	}
	if n := tn.node.TxPoolSize(); n != 0 {
		t.Fatalf("gonero's pool still holds %d transactions after the block", n)
	}
}

// monerodRelayLog counts two of monerod's log lines: "Unable to send
// transaction(s) via Dandelion++ stem" (a stem transaction found no stem
// peer) and "Queueing N transaction(s) for Dandelion++ fluffing".
func monerodRelayLog(t *testing.T, m *monerodlab.Monerod) (stemFailures, fluffs int) {
	t.Helper()
	log, err := os.ReadFile(filepath.Join(m.DataDir, "monerod.log"))
	if err != nil {
		t.Fatal(err)
	}
	return bytes.Count(log, []byte("Unable to send transaction(s) via Dandelion++ stem")),
		bytes.Count(log, []byte("for Dandelion++ fluffing"))
}
