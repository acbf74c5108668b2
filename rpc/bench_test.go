package rpc

import (
	"fmt"
	"testing"

	"github.com/gonero/gonero/httpd"
	"github.com/gonero/gonero/internal/testutil"
)

// The cost of answering one request without HTTP: decode, dispatch, chain
// read, encode. Run with -cpuprofile to see where it goes. The block and
// header methods repeat their bodies, so after the first round they are
// answered from the answer cache (fastpath.go); the Uncached benchmark
// measures the long way.
func benchRequests(b *testing.B, bodies [][]byte) {
	node := startNode(b, testutil.Path(b, "testdata", "regtest", "blockchain.raw"), nil)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		resp := node.srv.serveJSONRPC(&httpd.Request{HTTPMethod: "POST", Path: "/json_rpc", Body: bodies[i%len(bodies)]})
		if len(resp.Body) == 0 {
			b.Fatal("empty answer")
		}
		i++
	}
}

func heightBodies(method string) [][]byte {
	var out [][]byte
	for h := 0; h < 300; h++ {
		out = append(out, fmt.Appendf(nil, `{"jsonrpc":"2.0","id":"0","method":%q,"params":{"height":%d}}`, method, h))
	}
	return out
}

func BenchmarkGetBlockHeaderByHeight(b *testing.B) {
	benchRequests(b, heightBodies("getblockheaderbyheight"))
}
func BenchmarkGetBlock(b *testing.B) { benchRequests(b, heightBodies("getblock")) }
func BenchmarkGetLastBlockHeader(b *testing.B) {
	benchRequests(b, [][]byte{[]byte(`{"jsonrpc":"2.0","id":"0","method":"getlastblockheader"}`)})
}
func BenchmarkGetInfo(b *testing.B) {
	benchRequests(b, [][]byte{[]byte(`{"jsonrpc":"2.0","id":"0","method":"get_info"}`)})
}

// BenchmarkGetBlockHeaderByHeightUncached: every request new (its id
// differs), so none is answered from the answer cache (fastpath.go): the
// long way's cost, plus keeping the answer.
func BenchmarkGetBlockHeaderByHeightUncached(b *testing.B) {
	node := startNode(b, testutil.Path(b, "testdata", "regtest", "blockchain.raw"), nil)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		body := fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":"getblockheaderbyheight","params":{"height":%d}}`, i, i%300)
		if resp := node.srv.serveJSONRPC(&httpd.Request{HTTPMethod: "POST", Path: "/json_rpc", Body: body}); len(resp.Body) == 0 {
			b.Fatal("empty answer")
		}
		i++
	}
}
