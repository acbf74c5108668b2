package rpc

import (
	"fmt"
	"testing"

	"github.com/gonero/gonero/epeejson"
	"github.com/gonero/gonero/httpd"
	"github.com/gonero/gonero/internal/testutil"
	"github.com/gonero/gonero/params"
)

// txsPaths are the plain-path endpoints of this family.
var txsPaths = []string{"/gettransactions", "/is_key_image_spent", "/get_transaction_pool", "/get_transaction_pool_stats"}

// txsMethods are its JSON-RPC methods.
var txsMethods = []string{"hard_fork_info", "get_version", "get_fee_estimate", "getblockheadersrange",
	"get_txpool_backlog", "flush_txpool", "relay_tx"}

// Any body sent to the family's endpoints, on either listener, gets a 200
// with an epee JSON object or monerod's 400, never a panic. Seeds: the
// requests wallets send (docs/wallet-rpc.md §4.4, §4.7, §4.9) and bad ones.
func FuzzTransactionsEndpoints(f *testing.F) {
	tx := "9c5e2ecae27bf24a6579310a1a6bf259cca359dc56938587105727dc0925dd21"
	for _, seed := range []string{
		`{"client":"","decode_as_json":false,"prune":true,"txs_hashes":["` + tx + `"]}`,
		`{"txs_hashes":["` + tx + `","zz"],"split":true,"decode_as_json":true}`,
		`{"key_images":["` + tx + `","aa",""]}`,
		`{"client":""}`, ``, `{`, `{"txs_hashes":[1]}`,
	} {
		for i := range txsPaths {
			f.Add(uint8(i), []byte(seed), false)
		}
	}
	for i, p := range []string{`{"version":16}`, `{}`, `{"grace_blocks":10}`, `{"start_height":0,"end_height":10}`,
		`{}`, `{"txids":["` + tx + `"]}`, `{"txids":["zz"]}`} {
		f.Add(uint8(len(txsPaths)+i), []byte(p), true)
	}
	node := startNodeWith(f, nodeOptions{net: params.Regtest, fixedDifficulty: 1, pool: true,
		exportFile: testutil.Path(f, "testdata", "regtest", "blockchain.raw")})
	f.Fuzz(func(t *testing.T, which uint8, body []byte, restricted bool) {
		n := int(which) % (len(txsPaths) + len(txsMethods))
		var resp httpd.Response
		if n < len(txsPaths) {
			path := txsPaths[n]
			resp = endpoints.paths[path].path(node.srv, &httpd.Request{HTTPMethod: "POST", Path: path, Body: body, Restricted: restricted})
			if resp.Status == 400 {
				return
			}
		} else {
			req := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":%q,"params":%s}`, txsMethods[n-len(txsPaths)], body)
			resp = node.srv.serveJSONRPC(&httpd.Request{HTTPMethod: "POST", Path: "/json_rpc", Body: []byte(req), Restricted: restricted})
		}
		if resp.Status != 0 && resp.Status != 200 {
			t.Fatalf("status %d", resp.Status)
		}
		if _, err := epeejson.Parse(resp.Body); err != nil {
			t.Fatalf("answer is not epee JSON: %v\n%q", err, resp.Body)
		}
	})
}
