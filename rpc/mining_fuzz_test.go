package rpc

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"strings"
	"testing"

	"github.com/gonero/gonero/cryptonote"
	"github.com/gonero/gonero/epeejson"
	"github.com/gonero/gonero/httpd"
	"github.com/gonero/gonero/internal/monerodlab"
	"github.com/gonero/gonero/internal/testutil"
)

// A template as gonero builds it on the regtest chain (reserve_size 8),
// for seeds.
func seedTemplate(t testing.TB, node *testNode) (blob string) {
	t.Helper()
	var res struct {
		Blob string `json:"blocktemplate_blob"`
	}
	node.call(t, "get_block_template", fmt.Sprintf(`{"wallet_address":%q,"reserve_size":8}`, monerodlab.AliceAddress), &res)
	return res.Blob
}

// fuzzedMiningMethods are the mining methods the fuzz target calls: all of
// them but calc_pow, whose every new seed_hash would key a new 256 MiB
// RandomX cache (its parsing is the same converters').
var fuzzedMiningMethods = []string{"get_block_template", "getblocktemplate", "submit_block", "submitblock",
	"get_miner_data", "add_aux_pow", "on_get_block_hash", "on_getblockhash", "get_coinbase_tx_sum", "get_alternate_chains"}

// Any params of a mining method get an epee JSON answer and never a panic.
// Seeds: the requests a pool sends.
func FuzzMiningRequests(f *testing.F) {
	node := startNode(f, testutil.Path(f, "testdata", "regtest", "blockchain.raw"), nil)
	tmpl := seedTemplate(f, node)
	a := monerodlab.AliceAddress
	h := strings.Repeat("11", 32)
	for i, params := range []string{
		fmt.Sprintf(`{"wallet_address":%q,"reserve_size":8}`, a), fmt.Sprintf(`{"wallet_address":%q,"extra_nonce":"00ff"}`, a),
		fmt.Sprintf(`["%s"]`, tmpl), `{}`,
		fmt.Sprintf(`{"blocktemplate_blob":%q,"aux_pow":[{"id":%q,"hash":%q}]}`, tmpl, h, h), `[5]`,
		`{"height":1,"count":20}`, `{}`,
	} {
		f.Add(uint8(i), []byte(params), false)
	}
	f.Fuzz(func(t *testing.T, which uint8, params []byte, restricted bool) {
		method := fuzzedMiningMethods[int(which)%len(fuzzedMiningMethods)]
		body := append(append([]byte(`{"jsonrpc":"2.0","id":1,"method":"`+method+`","params":`), params...), '}')
		resp := node.srv.serveJSONRPC(&httpd.Request{HTTPMethod: "POST", Path: "/json_rpc", Body: body, Restricted: restricted})
		if resp.Status != 0 && resp.Status != 200 {
			t.Fatalf("status %d", resp.Status)
		}
		if _, err := epeejson.Parse(resp.Body); err != nil {
			t.Fatalf("answer is not epee JSON: %v\n%q", err, resp.Body)
		}
	})
}

// The extra-field parser never panics; what it accepts, add_aux_pow's
// rewrite turns into an extra that parses again, that a second rewrite
// leaves as it is (unless it ends with padding), and that ends with the
// merge-mining tag.
func FuzzTxExtra(f *testing.F) {
	node := startNode(f, testutil.Path(f, "testdata", "regtest", "blockchain.raw"), nil)
	raw, _ := hex.DecodeString(seedTemplate(f, node))
	blk, err := cryptonote.ParseBlock(raw)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(blk.MinerTx.Extra)
	withTag, _ := withMergeMiningRoot(blk.MinerTx.Extra, cryptonote.Hash{7})
	f.Add(withTag)
	f.Add([]byte{0, 0, 0})
	f.Add(append([]byte{4, 2}, make([]byte, 64)...))
	f.Add([]byte{0xde, 3, 1, 2, 3})
	root := cryptonote.Hash{1, 2, 3}
	f.Fuzz(func(t *testing.T, extra []byte) {
		out, err := withMergeMiningRoot(extra, root)
		if err != nil {
			return
		}
		if !bytes.HasSuffix(out, append([]byte{extraMergeMine, 33, 0}, root[:]...)) {
			t.Fatalf("rewritten extra %x does not end with the tag", out)
		}
		fields, _ := parseExtra(extra)
		if len(fields) > 0 && fields[len(fields)-1].tag == extraPadding {
			// Padding runs to the end of extra: the tag monerod appends
			// after it makes an extra that no longer parses (monerod's
			// answer has it all the same).
			return
		}
		if _, err := parseExtra(out); err != nil {
			t.Fatalf("rewritten extra %x does not parse: %v", out, err)
		}
		again, err := withMergeMiningRoot(out, root)
		if err != nil || !bytes.Equal(again, out) {
			t.Fatalf("second rewrite %x (%v), first %x", again, err, out)
		}
	})
}

// parseBlockBlob never panics, and the blob it returns is a block that
// serializes to that very blob.
func FuzzParseBlockBlob(f *testing.F) {
	node := startNode(f, testutil.Path(f, "testdata", "regtest", "blockchain.raw"), nil)
	raw, _ := hex.DecodeString(seedTemplate(f, node))
	f.Add(raw)
	f.Add(raw[:len(raw)-1])
	f.Add([]byte{0x10, 0x10})
	f.Fuzz(func(t *testing.T, blob []byte) {
		blk, canonical, err := parseBlockBlob(blob)
		if err != nil {
			return
		}
		if got := blk.Serialize(); !bytes.Equal(got, canonical) {
			t.Fatalf("blob %x serializes to %x", canonical, got)
		}
	})
}
