package rpc

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/gonero/gonero/cryptonote"
	"github.com/gonero/gonero/internal/monerodlab"
)

// bobAddress is another regtest wallet of testdata, so that the two
// branches pay different miners.
const bobAddress = "44GBHzv6ZyQdJkjqZje6KLZ3xSyN1hBSFAnLP6EAqJtCRVzMzZmeXTC2AHKDS9aEDTRKmo6a6o9r9j86pYfhCWDkKjbtcns"

// branchBlock is a block as monerod serves it: blob and transaction blobs.
type branchBlock struct {
	hash    string
	height  uint64
	blob    []byte
	txBlobs [][]byte
}

// fetchBlock reads a block and its transactions from monerod.
func fetchBlock(t *testing.T, m *monerodlab.Monerod, hash string) branchBlock {
	t.Helper()
	var res struct {
		Blob        string   `json:"blob"`
		TxHashes    []string `json:"tx_hashes"`
		BlockHeader struct {
			Height uint64 `json:"height"`
		} `json:"block_header"`
	}
	if err := m.Call("getblock", map[string]any{"hash": hash}, &res); err != nil {
		t.Fatal(err)
	}
	b := branchBlock{hash: hash, height: res.BlockHeader.Height}
	var err error
	if b.blob, err = hex.DecodeString(res.Blob); err != nil {
		t.Fatal(err)
	}
	if len(res.TxHashes) > 0 {
		req, _ := json.Marshal(map[string]any{"txs_hashes": res.TxHashes})
		body, err := m.Post("/get_transactions", req)
		if err != nil {
			t.Fatal(err)
		}
		var txs struct {
			Txs []struct {
				AsHex string `json:"as_hex"`
			} `json:"txs"`
		}
		if err := json.Unmarshal(body, &txs); err != nil || len(txs.Txs) != len(res.TxHashes) {
			t.Fatalf("get_transactions: %v %s", err, body)
		}
		for _, tx := range txs.Txs {
			blob, err := hex.DecodeString(tx.AsHex)
			if err != nil {
				t.Fatal(err)
			}
			b.txBlobs = append(b.txBlobs, blob)
		}
	}
	return b
}

// mineBranch makes monerod m mine n blocks on its top: from block templates
// with a reserve of extraNonce bytes in the miner tx (so that the branches'
// block weights differ), submitted as they are: under --fixed-difficulty 1
// every nonce meets the target.
func mineBranch(t *testing.T, m *monerodlab.Monerod, n int, address string, extraNonce int) []branchBlock {
	t.Helper()
	var out []branchBlock
	for range n {
		var tpl struct {
			Blob string `json:"blocktemplate_blob"`
		}
		if err := m.Call("get_block_template", map[string]any{"wallet_address": address, "reserve_size": extraNonce}, &tpl); err != nil {
			t.Fatal(err)
		}
		if err := m.Call("submitblock", []string{tpl.Blob}, nil); err != nil {
			t.Fatal(err)
		}
		var last struct {
			BlockHeader struct {
				Hash string `json:"hash"`
			} `json:"block_header"`
		}
		if err := m.Call("getlastblockheader", map[string]any{}, &last); err != nil {
			t.Fatal(err)
		}
		out = append(out, fetchBlock(t, m, last.BlockHeader.Hash))
	}
	return out
}

// Two monerods on copies of one chain mine competing branches (3 and 5
// blocks, different miners and miner-tx sizes). gonero gets branch A, then
// branch B, and reorganises at B's fourth block; monerod A is given B's
// blocks and reorganises too. Then both answer the header and block methods
// for every block of both branches by hash (the orphaned A blocks with
// orphan_status and monerod's by-height figures), the by-height methods
// and get_info (alt_blocks_count included), and the answers must be equal.
func TestReorgAgainstMonerod(t *testing.T) {
	lab := monerodlab.Require(t)
	fresh := lab.FreshChain(t)
	node := startNode(t, fresh.RawFile, nil)
	mA := lab.StartMonerod(t, fresh.NodeDir)
	mB := lab.StartMonerod(t, fresh.NodeDir)

	var info struct {
		Height uint64 `json:"height"`
	}
	if err := mA.Call("get_info", nil, &info); err != nil {
		t.Fatal(err)
	}
	if info.Height != node.chain.Height() {
		t.Fatalf("monerod height %d, gonero %d", info.Height, node.chain.Height())
	}
	a := mineBranch(t, mA, 3, monerodlab.AliceAddress, 1)
	b := mineBranch(t, mB, 5, bobAddress, 40)
	for i := range a {
		if a[i].hash == b[i].hash || a[i].height != b[i].height || len(a[i].blob) == len(b[i].blob) {
			t.Fatalf("branch blocks %d do not compete: %s (%d bytes) vs %s (%d bytes)", i, a[i].hash, len(a[i].blob), b[i].hash, len(b[i].blob))
		}
	}

	add := func(bb branchBlock) (mainChain, reorganized bool, popped uint64) {
		t.Helper()
		blk, err := cryptonote.ParseBlock(bb.blob)
		if err != nil {
			t.Fatal(err)
		}
		var txs []*cryptonote.Transaction
		for _, tb := range bb.txBlobs {
			tx, err := cryptonote.ParseTransaction(tb)
			if err != nil {
				t.Fatal(err)
			}
			txs = append(txs, tx)
		}
		res, err := node.chain.Add(blk, bb.blob, txs, bb.txBlobs)
		if err != nil {
			t.Fatalf("gonero refused %s: %v", bb.hash, err)
		}
		if res.Meta.Hash.String() != bb.hash || res.Meta.Height != bb.height {
			t.Fatalf("block %s landed as %s at %d", bb.hash, res.Meta.Hash, res.Meta.Height)
		}
		return res.MainChain, res.Reorganized, res.Popped
	}
	for _, bb := range a {
		if main, _, _ := add(bb); !main {
			t.Fatalf("branch A block %d did not extend the main chain", bb.height)
		}
	}
	for i, bb := range b {
		main, reorg, popped := add(bb)
		switch {
		case i < 3 && (main || reorg):
			t.Fatalf("branch B block %d (not more work than A) switched the chain", i)
		case i == 3 && (!main || !reorg || popped != 3):
			t.Fatalf("branch B block 3: main %v reorganized %v popped %d", main, reorg, popped)
		case i == 4 && (!main || reorg):
			t.Fatalf("branch B block 4: main %v reorganized %v", main, reorg)
		}
	}
	if got := node.chain.Top().Hash.String(); got != b[4].hash {
		t.Fatalf("gonero top %s, want B's top %s", got, b[4].hash)
	}

	// monerod A's own figures for branch A while it is its main chain.
	type header struct {
		BlockHeader struct {
			BlockWeight  uint64 `json:"block_weight"`
			OrphanStatus bool   `json:"orphan_status"`
		} `json:"block_header"`
	}
	headerOf := func(hash string) header {
		t.Helper()
		var h header
		if err := mA.Call("getblockheaderbyhash", map[string]any{"hash": hash}, &h); err != nil {
			t.Fatal(err)
		}
		return h
	}
	var mainWeights []uint64
	for _, bb := range a {
		mainWeights = append(mainWeights, headerOf(bb.hash).BlockHeader.BlockWeight)
	}

	// monerod A sees branch B (the first three are alternatives there too,
	// which submitblock reports as not accepted).
	for _, bb := range b {
		_ = mA.Call("submitblock", []string{hex.EncodeToString(bb.blob)}, nil)
	}
	var top struct {
		BlockHeader struct {
			Hash string `json:"hash"`
		} `json:"block_header"`
	}
	if err := mA.Call("getlastblockheader", map[string]any{}, &top); err != nil {
		t.Fatal(err)
	}
	if top.BlockHeader.Hash != b[4].hash {
		t.Fatalf("monerod A did not reorganise: top %s", top.BlockHeader.Hash)
	}

	// The quirk the comparison below covers: an orphan's header carries the
	// weight of the main-chain block at its height, not its own.
	for i, bb := range a {
		h := headerOf(bb.hash)
		if !h.BlockHeader.OrphanStatus || h.BlockHeader.BlockWeight == mainWeights[i] ||
			h.BlockHeader.BlockWeight != headerOf(b[i].hash).BlockHeader.BlockWeight {
			t.Fatalf("monerod's orphan header for %s: %+v (own weight %d): the by-height quirk is not visible here", bb.hash, h, mainWeights[i])
		}
	}

	asked := 0
	ask := func(body string, drop ...string) {
		t.Helper()
		theirs, err := mA.Post("/json_rpc", []byte(body))
		if err != nil {
			t.Fatal(err)
		}
		_, ours := post(t, node.url, "/json_rpc", []byte(body))
		if g, w := canonical(t, ours, drop...), canonical(t, theirs, drop...); g != w {
			t.Fatalf("%s\n gonero: %s\nmonerod: %s", body, clip(g), clip(w))
		}
		asked++
	}
	req := func(method, params string) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":%q,"params":%s}`, method, params)
	}
	var all []string
	for _, bb := range append(append([]branchBlock{}, a...), b...) {
		all = append(all, fmt.Sprintf("%q", bb.hash))
		for _, method := range []string{"getblockheaderbyhash", "get_block_header_by_hash", "getblock", "get_block"} {
			ask(req(method, fmt.Sprintf(`{"hash":%q}`, bb.hash)))
		}
		ask(req("getblock", fmt.Sprintf(`{"hash":%q,"fill_pow_hash":true}`, bb.hash)))
		ask(req("getblockheaderbyhash", fmt.Sprintf(`{"hash":%q,"fill_pow_hash":true}`, bb.hash)))
	}
	ask(req("getblockheaderbyhash", fmt.Sprintf(`{"hashes":[%s]}`, joinComma(all))))
	for h := a[0].height - 1; h <= b[4].height; h++ {
		ask(req("getblockheaderbyheight", fmt.Sprintf(`{"height":%d}`, h)))
		ask(req("getblock", fmt.Sprintf(`{"height":%d}`, h)))
	}
	ask(req("getlastblockheader", `{}`))
	ask(req("get_info", `{}`), volatileInfo...)
	var alts struct {
		AltBlocksCount uint64 `json:"alt_blocks_count"`
	}
	if err := mA.Call("get_info", nil, &alts); err != nil || alts.AltBlocksCount != 3 {
		t.Fatalf("monerod A alt_blocks_count %d %v", alts.AltBlocksCount, err)
	}
	t.Logf("%d questions about %d blocks of two branches; gonero and monerod agree on all", asked, len(all))
}

func joinComma(s []string) string {
	out := ""
	for i, x := range s {
		if i > 0 {
			out += ","
		}
		out += x
	}
	return out
}
