package main

import (
	"encoding/json"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/gonero/gonero/internal/monerodlab"
)

// --max-txpool-weight against monerod 0.18.5.3: both nodes run with the
// same limit, below the weight of any one transaction, and the same real
// transactions, signed by the wallet with every fee priority in turn, reach
// both in the same order. After each addition each node drops the lowest
// payers per byte first, but never its best entry (tx_memory_pool::prune
// stops at the front of its ordered set), so one transaction stays, over
// the limit. The wallet pays an exact fee per byte for a priority, so the
// three transactions of the highest priority tie: the later received goes,
// and the first of them is what stays. The transactions left in the two
// pools (get_transaction_pool_hashes) are the same.
func TestMaxTxpoolWeightMatchesMonerod(t *testing.T) {
	lab := monerodlab.Require(t)
	fresh := lab.FreshChain(t)
	// Below the weight of any of the wallet's transactions (2,100 to
	// 2,900 bytes).
	const limit = 2000
	bin := inProcess
	data := importChain(t, bin, fresh)
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
	// Each transaction is made in a later second than the previous one
	// reached gonerod, so that both nodes see the same receive order in
	// whole seconds (the tie-break), even across a second's boundary.
	var last int64
	for i := range 12 {
		for time.Now().Unix() <= last {
			time.Sleep(20 * time.Millisecond)
		}
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
		last = time.Now().Unix()
		txs = append(txs, made{r.TxHash, priority, r.Fee, r.Weight})
	}
	ours, theirs := poolHashes(t, g.post), poolHashes(t, m.Post)
	slices.Sort(ours)
	slices.Sort(theirs)
	for _, tx := range txs {
		t.Logf("%s priority %d fee %d weight %d (%.1f per byte): monerod keeps %v, gonerod %v", tx.hash[:12], tx.priority,
			tx.fee, tx.weight, float64(tx.fee)/float64(tx.weight), slices.Contains(theirs, tx.hash), slices.Contains(ours, tx.hash))
	}
	// The case itself: monerod kept its best entry alone, over the limit,
	// and it was the first of the tied highest payers.
	if len(theirs) != 1 || theirs[0] != txs[3].hash {
		t.Fatalf("monerod kept %v of %d transactions; want the first priority-4 one alone, %s", theirs, len(txs), txs[3].hash)
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
