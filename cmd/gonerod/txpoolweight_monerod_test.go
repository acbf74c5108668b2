package main

import (
	"encoding/json"
	"os/exec"
	"slices"
	"strconv"
	"testing"

	"github.com/gonero/gonero/internal/monerodlab"
)

// --max-txpool-weight against monerod 0.18.5.3: both nodes run with the
// same small limit, and the same real transactions, signed by the wallet
// with every fee priority and one to three destinations, reach both in the
// same order. Over the limit each node drops the lowest payers per byte
// first (tx_memory_pool::prune). The wallet pays an exact fee per byte for
// a priority, so the three transactions of the highest priority tie and
// the limit leaves room for two of them: the later received goes. The
// transactions left in the two pools (get_transaction_pool_hashes) are the
// same.
func TestMaxTxpoolWeightMatchesMonerod(t *testing.T) {
	lab := monerodlab.Require(t)
	fresh := lab.FreshChain(t)
	// Room for two of the wallet's transactions (2,100 to 2,900 bytes
	// each) out of twelve.
	const limit = 6000
	bin := buildGonerod(t)
	data := t.TempDir()
	if out, err := exec.Command(bin, "import", "--regtest", "--fixed-difficulty", "1", "--data-dir", data,
		"--input-file", fresh.RawFile).CombinedOutput(); err != nil {
		t.Fatalf("import: %v\n%s", err, out)
	}
	g := startGonerod(t, bin, data, "--offline", "--max-txpool-weight", strconv.Itoa(limit))
	m := lab.StartMonerod(t, fresh.NodeDir, "--max-txpool-weight", strconv.Itoa(limit))
	// The wallet relays each transaction to monerod as it makes it (so it
	// never spends the same outputs twice); the same blob then goes to
	// gonerod.
	w := lab.OpenWallet(t, fresh, "alice", m.RPCPort)
	type made struct {
		hash     string
		priority int
		fee      uint64
		weight   uint64
	}
	var txs []made
	for i := range 12 {
		priority, dests := 1+i%4, 1+(i/4)%3
		var destinations []map[string]any
		for range dests {
			destinations = append(destinations, map[string]any{"amount": 1_000_000_000_000 + uint64(i), "address": monerodlab.AliceSubaddress})
		}
		var r struct {
			TxHash string `json:"tx_hash"`
			TxBlob string `json:"tx_blob"`
			Fee    uint64 `json:"fee"`
			Weight uint64 `json:"weight"`
		}
		if err := w.Call("transfer", map[string]any{"destinations": destinations, "priority": priority,
			"get_tx_hex": true}, &r); err != nil {
			t.Fatalf("transfer %d: %v", i, err)
		}
		if ans := g.sendRawTx(t, r.TxBlob, false); ans["status"] != "OK" {
			t.Fatalf("gonerod refused transaction %d: %v", i, ans)
		}
		txs = append(txs, made{r.TxHash, priority, r.Fee, r.Weight})
	}
	ours, theirs := poolHashes(t, g.post), poolHashes(t, m.Post)
	slices.Sort(ours)
	slices.Sort(theirs)
	for _, tx := range txs {
		t.Logf("%s priority %d fee %d weight %d (%.1f per byte): monerod keeps %v, gonerod %v", tx.hash[:12], tx.priority,
			tx.fee, tx.weight, float64(tx.fee)/float64(tx.weight), slices.Contains(theirs, tx.hash), slices.Contains(ours, tx.hash))
	}
	// The case itself: monerod pruned some and kept several.
	if len(theirs) < 2 || len(theirs) >= len(txs)-1 {
		t.Fatalf("monerod kept %d of %d transactions: the limit does not exercise pruning", len(theirs), len(txs))
	}
	if !slices.Equal(ours, theirs) {
		t.Fatalf("pools differ:\n  gonerod %v\n  monerod %v", ours, theirs)
	}
	var weight struct {
		Stats struct {
			BytesTotal uint64 `json:"bytes_total"`
		} `json:"pool_stats"`
	}
	body, err := g.post("/get_transaction_pool_stats", []byte(`{}`))
	if err != nil || json.Unmarshal(body, &weight) != nil {
		t.Fatalf("get_transaction_pool_stats: %v %s", err, body)
	}
	t.Logf("both pools keep the same %d of %d transactions (%d bytes) under --max-txpool-weight %d", len(ours), len(txs), weight.Stats.BytesTotal, limit)
}
