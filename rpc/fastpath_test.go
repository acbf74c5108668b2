package rpc

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/gonero/gonero/epeejson"
	"github.com/gonero/gonero/httpd"
	"github.com/gonero/gonero/internal/monerodlab"
	"github.com/gonero/gonero/internal/testutil"
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
	if !s.dispatch(v, restricted, w) {
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
				if _, ok := s.answers.get(s.answerVersion(), &httpd.Request{Body: body, Restricted: restricted}); !ok {
					t.Fatalf("%s: %s not kept", when, body)
				}
			}
		}
	}
	check("before")
	before := s.serveJSONRPC(&httpd.Request{Body: bodies[0]}).Body
	generate(t, node, 1, monerodlab.AliceAddress)
	if _, ok := s.answers.get(s.answerVersion(), &httpd.Request{Body: bodies[0]}); ok {
		t.Fatal("an answer of the previous chain is still served after a new block")
	}
	after := s.serveJSONRPC(&httpd.Request{Body: bodies[0]}).Body
	if bytes.Equal(before, after) {
		t.Fatal("getblockheaderbyheight's depth did not change with a new block")
	}
	check("after a new block")

	// get_info depends on more than the chain: never kept.
	info := rpcBody("get_info", `{}`)
	s.serveJSONRPC(&httpd.Request{Body: info})
	if _, ok := s.answers.get(s.answerVersion(), &httpd.Request{Body: info}); ok {
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
