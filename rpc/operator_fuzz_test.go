package rpc

import (
	"testing"

	"github.com/gonero/gonero/epeejson"
	"github.com/gonero/gonero/httpd"
	"github.com/gonero/gonero/internal/testutil"
)

// operatorPaths and operatorMethods are the endpoints of operator.go.
var (
	operatorPaths = []string{"/get_peer_list", "/get_public_nodes", "/get_net_stats", "/get_limit", "/set_limit", "/out_peers",
		"/in_peers", "/set_log_level", "/set_log_categories", "/set_log_hash_rate", "/save_bc", "/pop_blocks", "/stop_daemon",
		"/set_bootstrap_daemon", "/update"}
	operatorMethods = []string{"sync_info", "get_bans", "set_bans", "banned", "flush_cache", "prune_blockchain",
		"rpc_access_info", "rpc_access_submit_nonce", "rpc_access_pay", "rpc_access_tracking", "rpc_access_data",
		"rpc_access_account"}
)

// Any body sent to an operator endpoint (as a plain-path body, or as a
// JSON-RPC method's params) gets a well-formed answer or monerod's 400,
// never a panic. Seeds: the requests of TestOperatorEndpointsMatchMonerod.
func FuzzOperatorRequests(f *testing.F) {
	for i, body := range []string{`{}`, ``, `{"bans":[{"host":"1.2.3.4","ban":true,"seconds":3600},{"host":"10.0.0.0/8","ban":true}]}`,
		`{"bans":[{"ip":16909060,"ban":true,"seconds":60},{"host":"[2001:db8::1]:18080","ban":false}]}`,
		`{"address":"[2001:db8::1]:18080"}`, `{"address":"1.2.3.4"}`, `{"categories":"1,bar:INFO"}`, `{"categories":"-net:FATAL"}`,
		`{"level":300}`, `{"limit_down":-5,"limit_up":7}`, `{"out_peers":4294967295,"set":true}`, `{"in_peers":-1}`,
		`{"nblocks":1}`, `{"command":"check"}`, `{"address":"x","proxy":"y"}`, `{"check":true}`, `{"nonce":4294967296}`,
		`{"delta_balance":"x"}`, `{"gray":true,"white":false}`, `{"public_only":false,"include_blocked":true}`} {
		f.Add(uint8(i), []byte(body), i%3 == 0)
	}
	node := startNode(f, testutil.Path(f, "testdata", "regtest", "blockchain.raw"), nil)
	f.Fuzz(func(t *testing.T, which uint8, body []byte, restricted bool) {
		n := int(which) % (len(operatorPaths) + len(operatorMethods))
		var resp httpd.Response
		if n < len(operatorPaths) {
			path := operatorPaths[n]
			resp = node.srv.pathRoute(path, endpoints.paths[path])(&httpd.Request{HTTPMethod: "POST", Path: path, Body: body, Restricted: restricted})
			switch resp.Status {
			case 400, 404:
				return
			case 0, 200:
			default:
				t.Fatalf("%s: status %d", path, resp.Status)
			}
		} else {
			method := operatorMethods[n-len(operatorPaths)]
			req := append(append([]byte(`{"jsonrpc":"2.0","id":1,"method":"`+method+`","params":`), body...), '}')
			resp = node.srv.serveJSONRPC(&httpd.Request{HTTPMethod: "POST", Path: "/json_rpc", Body: req, Restricted: restricted})
			if resp.Status != 0 && resp.Status != 200 {
				t.Fatalf("%s: status %d", method, resp.Status)
			}
		}
		if _, err := epeejson.Parse(resp.Body); err != nil {
			t.Fatalf("answer is not epee JSON: %v\n%q", err, resp.Body)
		}
	})
}
