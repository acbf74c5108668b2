package chainexport

import (
	"testing"

	"github.com/gonero/gonero/internal/monerodlab"
)

// A chain built for this run (new keys, hashes and timestamps each time) is
// read from its export file and every block is compared with what monerod
// serves for it: blob, id, miner tx id, tx ids and the json text.
func TestFreshChainAgainstMonerod(t *testing.T) {
	lab := monerodlab.Require(t)
	chain := lab.FreshChain(t)
	recs := readAll(t, chain.RawFile)
	if len(recs) < 300 {
		t.Fatalf("fresh chain has %d blocks", len(recs))
	}
	ids := CheckRecords(t, recs)
	m := lab.StartMonerod(t, chain.NodeDir)
	txs := 0
	for h, rec := range recs {
		var r struct {
			Blob        string   `json:"blob"`
			JSON        string   `json:"json"`
			MinerTxHash string   `json:"miner_tx_hash"`
			TxHashes    []string `json:"tx_hashes"`
			BlockHeader struct {
				Hash        string `json:"hash"`
				BlockWeight uint64 `json:"block_weight"`
				Reward      uint64 `json:"reward"`
			} `json:"block_header"`
		}
		if err := m.Call("getblock", map[string]any{"height": h}, &r); err != nil {
			t.Fatal(err)
		}
		reward, _ := rec.Block.MinerTx.OutputSum()
		switch {
		case r.Blob != hexOf(rec.BlockBlob):
			t.Fatalf("height %d: blob differs from monerod's", h)
		case r.BlockHeader.Hash != ids[h].String():
			t.Fatalf("height %d: id %s, monerod %s", h, ids[h], r.BlockHeader.Hash)
		case r.MinerTxHash != rec.Block.MinerTx.ID().String():
			t.Fatalf("height %d: miner tx id differs", h)
		case r.JSON != rec.Block.MonerodJSON():
			t.Fatalf("height %d: json differs\n got %q\nwant %q", h, rec.Block.MonerodJSON(), r.JSON)
		case r.BlockHeader.BlockWeight != rec.BlockWeight || r.BlockHeader.Reward != reward:
			t.Fatalf("height %d: weight/reward %d/%d, monerod %d/%d", h, rec.BlockWeight, reward, r.BlockHeader.BlockWeight, r.BlockHeader.Reward)
		case len(r.TxHashes) != len(rec.Block.TxHashes):
			t.Fatalf("height %d: %d tx hashes, monerod %d", h, len(rec.Block.TxHashes), len(r.TxHashes))
		}
		txs += len(rec.Txs)
	}
	if txs == 0 {
		t.Fatal("the fresh chain has no non-coinbase transactions; the check would be too weak")
	}
	t.Logf("%d blocks and %d transactions agree with monerod", len(recs), txs)
}
