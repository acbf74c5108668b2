package rpc

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/gonero/gonero/epeejson"
	"github.com/gonero/gonero/httpd"
	"github.com/gonero/gonero/internal/monerodlab"
	"github.com/gonero/gonero/internal/testutil"
	"github.com/gonero/gonero/portable"
)

// uncached answers a JSON-RPC request the long way (parse, dispatch,
// render), bypassing the answer cache.
func uncached(t *testing.T, s *Server, body []byte, restricted bool) []byte {
	t.Helper()
	v, err := epeejson.Parse(body)
	if err != nil {
		t.Fatal(err)
	}
	w := epeejson.NewWriter(nil)
	if !s.dispatch(v, restricted, nil, w) {
		t.Fatalf("dispatch refused %s", body)
	}
	return w.Bytes()
}

// TestAnswerCache: a kept answer is byte for byte the answer the long way,
// per kind of listener, and a new block (which changes depth, the last
// header, the count) replaces every kept answer.
func TestAnswerCache(t *testing.T) {
	node := startNode(t, testutil.Path(t, "testdata", "regtest", "blockchain.raw"), nil)
	s := node.srv
	bodies := [][]byte{
		rpcBody("getblockheaderbyheight", `{"height":5}`),
		rpcBody("getblock", `{"height":7}`),
		rpcBody("getlastblockheader", `{}`),
		rpcBody("get_block_count", `{}`),
		rpcBody("getblockheaderbyheight", `{"height":100000}`), // an error answer
		rpcBody("getblockheaderbyhash", `{"hash":"0000000000000000000000000000000000000000000000000000000000000001"}`),
	}
	check := func(when string) {
		for _, restricted := range []bool{false, true} {
			for _, body := range bodies {
				want := uncached(t, s, body, restricted)
				for i := 0; i < 3; i++ { // the first is answered the long way and kept, the others from the cache
					resp := s.serveJSONRPC(&httpd.Request{HTTPMethod: "POST", Path: "/json_rpc", Body: body, Restricted: restricted})
					if !bytes.Equal(resp.Body, want) {
						t.Fatalf("%s, restricted %v, %s, answer %d:\n%s\nwant\n%s", when, restricted, body, i, resp.Body, want)
					}
				}
				if _, ok := s.answers.get(s.answerVersion(), routeJSONRPC, &httpd.Request{Body: body, Restricted: restricted}); !ok {
					t.Fatalf("%s: %s not kept", when, body)
				}
			}
		}
	}
	check("before")
	heightBefore := s.serveHeight(&httpd.Request{}).Body
	before := s.serveJSONRPC(&httpd.Request{Body: bodies[0]}).Body
	generate(t, node, 1, monerodlab.AliceAddress)
	if _, ok := s.answers.get(s.answerVersion(), routeJSONRPC, &httpd.Request{Body: bodies[0]}); ok {
		t.Fatal("an answer of the previous chain is still served after a new block")
	}
	after := s.serveJSONRPC(&httpd.Request{Body: bodies[0]}).Body
	if bytes.Equal(before, after) {
		t.Fatal("getblockheaderbyheight's depth did not change with a new block")
	}
	check("after a new block")
	// /get_height's answer, rendered once per top, follows the new block.
	heightAfter := s.serveHeight(&httpd.Request{}).Body
	s.heightAnswer.Store(nil)
	if want := s.serveHeight(&httpd.Request{}).Body; bytes.Equal(heightAfter, heightBefore) || !bytes.Equal(heightAfter, want) {
		t.Fatalf("/get_height after a new block: %s (before %s, the long way %s)", heightAfter, heightBefore, want)
	}

	// get_info depends on more than the chain: never kept.
	info := rpcBody("get_info", `{}`)
	s.serveJSONRPC(&httpd.Request{Body: info})
	if _, ok := s.answers.get(s.answerVersion(), routeJSONRPC, &httpd.Request{Body: info}); ok {
		t.Fatal("get_info kept")
	}
}

// TestAnswerCacheBounded: distinct requests beyond the byte bound empty
// the store instead of growing it.
func TestAnswerCacheBounded(t *testing.T) {
	node := startNode(t, testutil.Path(t, "testdata", "regtest", "blockchain.raw"), nil)
	s := node.srv
	for i := 0; i < 30000; i++ {
		body := fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":"getblock","params":{"height":%d}}`, i, i%300)
		s.serveJSONRPC(&httpd.Request{Body: body})
		if s.answers.bytes > answerCacheBytes {
			t.Fatalf("answer cache holds %d bytes, bound %d", s.answers.bytes, answerCacheBytes)
		}
	}
}

// TestGetBlocksAnswerCache: /getblocks.bin answers kept per body are the
// answers the long way, a new block replaces them, and a kept answer is
// never served for the same body posted to /json_rpc.
func TestGetBlocksAnswerCache(t *testing.T) {
	node := startNode(t, testutil.Path(t, "testdata", "regtest", "blockchain.raw"), nil)
	s := node.srv
	bodies := func() [][]byte {
		top, genesis := node.chain.HashAt(node.chain.Height()-1), node.chain.HashAt(0)
		mid := node.chain.HashAt(node.chain.Height() - 3)
		return [][]byte{
			epee(t, "block_ids", idsBlob(top, genesis), "prune", portable.NewBool(true)), // a wallet's idle refresh
			epee(t, "block_ids", idsBlob(mid, genesis), "prune", portable.NewBool(true)), // two blocks behind
			epee(t, "block_ids", idsBlob(genesis), "start_height", portable.NewUint64(1<<40)),
		}
	}
	check := func(when string) [][]byte {
		var answers [][]byte
		for _, restricted := range []bool{false, true} {
			for _, body := range bodies() {
				req := &httpd.Request{HTTPMethod: "POST", Path: "/getblocks.bin", Body: body, Restricted: restricted}
				s.answers = answerCache{} // the long way
				want := s.serveGetBlocks(req).Body
				for i := 0; i < 3; i++ {
					if got := s.serveGetBlocks(req).Body; !bytes.Equal(got, want) {
						t.Fatalf("%s, restricted %v, answer %d differs from the long way", when, restricted, i)
					}
				}
				if _, ok := s.answers.get(s.answerVersion(), routeGetBlocks, req); !ok {
					t.Fatalf("%s: %x not kept", when, body)
				}
				if _, ok := s.answers.get(s.answerVersion(), routeJSONRPC, req); ok {
					t.Fatalf("%s: a /getblocks.bin answer is kept for /json_rpc", when)
				}
				answers = append(answers, want)
			}
		}
		return answers
	}
	before := check("before")
	idle := bodies()[0]
	generate(t, node, 1, monerodlab.AliceAddress)
	if _, ok := s.answers.get(s.answerVersion(), routeGetBlocks, &httpd.Request{Body: idle}); ok {
		t.Fatal("an answer of the previous chain is still served after a new block")
	}
	// The old idle refresh now gets the new block.
	if got := s.serveGetBlocks(&httpd.Request{Body: idle}).Body; bytes.Equal(got, before[0]) {
		t.Fatal("the idle refresh's answer did not change with a new block")
	}
	check("after a new block")
}

// TestDistributionAnswerCache: /get_output_distribution.bin answers kept
// per body are the answers the long way, and a new block replaces them.
func TestDistributionAnswerCache(t *testing.T) {
	node := startNode(t, testutil.Path(t, "testdata", "regtest", "blockchain.raw"), nil)
	s := node.srv
	body := epee(t, "amounts", u64s(0), "compress", portable.NewBool(true), "binary", portable.NewBool(true))
	longWay := func() []byte {
		s.answers = answerCache{}
		clear(s.ws().dist)
		return s.serveOutputDistributionBin(&httpd.Request{Body: body}).Body
	}
	want := longWay()
	for i := 0; i < 3; i++ {
		if got := s.serveOutputDistributionBin(&httpd.Request{Body: body}).Body; !bytes.Equal(got, want) {
			t.Fatalf("answer %d differs from the long way", i)
		}
	}
	if _, ok := s.answers.get(s.answerVersion(), routeDistribution, &httpd.Request{Body: body}); !ok {
		t.Fatal("not kept")
	}
	generate(t, node, 1, monerodlab.AliceAddress)
	got := s.serveOutputDistributionBin(&httpd.Request{Body: body}).Body
	if bytes.Equal(got, want) {
		t.Fatal("the answer did not change with a new block")
	}
	if !bytes.Equal(got, longWay()) {
		t.Fatal("after a new block, the answer differs from the long way")
	}
}
