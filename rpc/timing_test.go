package rpc

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/gonero/gonero/httpd"
	"github.com/gonero/gonero/internal/testutil"
	"github.com/gonero/gonero/metrics"
	"github.com/gonero/gonero/params"
)

// countingInstrument counts the observations per endpoint name and
// remembers which names were bound.
type countingInstrument struct {
	mu     sync.Mutex
	bound  map[string]bool
	counts map[string]int
}

func (c *countingInstrument) instrument(name string) func(time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.bound == nil {
		c.bound, c.counts = map[string]bool{}, map[string]int{}
	}
	if c.bound[name] {
		panic("endpoint " + name + " bound twice")
	}
	c.bound[name] = true
	return func(d time.Duration) {
		if d < 0 {
			panic("negative duration")
		}
		c.mu.Lock()
		c.counts[name]++
		c.mu.Unlock()
	}
}

func (c *countingInstrument) take() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := c.counts
	c.counts = map[string]int{}
	return out
}

// Every request is observed once under its path or JSON-RPC method, also
// when answered from the answer cache, a batch's requests one by one, and
// anything unregistered (an unknown method, a refused one, a body that does
// not parse, a non-string method) under "other": client input never
// becomes a name. The names bound are exactly the registered ones.
func TestInstrumentCountsEndpoints(t *testing.T) {
	ci := &countingInstrument{}
	node := startNodeWith(t, nodeOptions{net: params.Regtest, fixedDifficulty: 1,
		exportFile: testutil.Path(t, "testdata", "regtest", "blockchain.raw"), instrument: ci.instrument})
	names := EndpointNames()
	if len(ci.bound) != len(names) {
		t.Fatalf("%d names bound, %d registered", len(ci.bound), len(names))
	}
	for _, n := range names {
		if !ci.bound[n] {
			t.Fatalf("%s not bound", n)
		}
	}
	header := []byte(`{"jsonrpc":"2.0","id":"0","method":"getblockheaderbyheight","params":{"height":5}}`)
	cases := []struct {
		name, url, path, body string
		want                  map[string]int
	}{
		{"method", node.url, "/json_rpc", string(header), map[string]int{"getblockheaderbyheight": 1}},
		{"method from the answer cache", node.url, "/json_rpc", string(header), map[string]int{"getblockheaderbyheight": 1}},
		{"alias", node.url, "/json_rpc", `{"jsonrpc":"2.0","id":"0","method":"get_block_count"}`, map[string]int{"get_block_count": 1}},
		{"path", node.url, "/get_height", ``, map[string]int{"/get_height": 1}},
		{"path alias", node.url, "/getheight", ``, map[string]int{"/getheight": 1}},
		{"unknown method", node.url, "/json_rpc", `{"jsonrpc":"2.0","id":"0","method":"no_such_method_x"}`, map[string]int{"other": 1}},
		{"unparsable body", node.url, "/json_rpc", `{"jsonrpc":`, map[string]int{"other": 1}},
		{"non-string method", node.url, "/json_rpc", `{"jsonrpc":"2.0","id":"0","method":5}`, map[string]int{"other": 1}},
		{"method refused on a restricted listener", node.rurl, "/json_rpc", `{"jsonrpc":"2.0","id":"0","method":"get_connections"}`, map[string]int{"get_connections": 1}},
		{"path refused on a restricted listener", node.rurl, "/get_peer_list", `{}`, map[string]int{"/get_peer_list": 1}},
		{"batch", node.url, "/json_rpc", `[{"jsonrpc":"2.0","id":1,"method":"get_block_count"},{"jsonrpc":"2.0","id":2,"method":"getlastblockheader"},{"jsonrpc":"2.0","id":3,"method":"nope"}]`,
			map[string]int{"get_block_count": 1, "getlastblockheader": 1, "other": 1}},
	}
	ci.take()
	for _, c := range cases {
		post(t, c.url, c.path, []byte(c.body))
		got := ci.take()
		if fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("%s: observed %v, want %v", c.name, got, c.want)
		}
	}
}

// Instrumented, a request answered from the answer cache still allocates
// nothing: the observer is bound at New and found with the kept answer.
func TestInstrumentedCachedAnswerAllocations(t *testing.T) {
	if testing.Short() {
		t.Skip("allocation count needs a warm server")
	}
	if raceEnabled {
		t.Skip("allocation counts are not the program's under the race detector")
	}
	node := startNodeWith(t, nodeOptions{net: params.Regtest, fixedDifficulty: 1,
		exportFile: testutil.Path(t, "testdata", "regtest", "blockchain.raw"), instrument: metrics.New().Endpoint})
	for _, body := range [][]byte{
		[]byte(`{"jsonrpc":"2.0","id":"0","method":"getlastblockheader"}`),
		[]byte(`{"jsonrpc":"2.0","id":"0","method":"getblockheaderbyheight","params":{"height":7}}`),
	} {
		req := &httpd.Request{HTTPMethod: "POST", Path: "/json_rpc", Body: body}
		for range 10 { // fill the answer cache, bind the series
			node.srv.serveJSONRPC(req)
		}
		if allocs := testing.AllocsPerRun(1000, func() { node.srv.serveJSONRPC(req) }); allocs >= 1 {
			t.Errorf("%s: %.2f allocations per instrumented cached answer, want 0", body, allocs)
		}
	}
	get := node.srv.routes()["/get_height"]
	req := &httpd.Request{HTTPMethod: "GET", Path: "/get_height"}
	get(req)
	if allocs := testing.AllocsPerRun(1000, func() { get(req) }); allocs >= 1 {
		t.Errorf("/get_height: %.2f allocations per instrumented request, want 0", allocs)
	}
}

// The cost of the instrumentation on the cheapest answers: compare with
// BenchmarkGetLastBlockHeader (same request, not instrumented).
func BenchmarkGetLastBlockHeaderInstrumented(b *testing.B) {
	node := startNodeWith(b, nodeOptions{net: params.Regtest, fixedDifficulty: 1,
		exportFile: testutil.Path(b, "testdata", "regtest", "blockchain.raw"), instrument: metrics.New().Endpoint})
	req := &httpd.Request{HTTPMethod: "POST", Path: "/json_rpc", Body: []byte(`{"jsonrpc":"2.0","id":"0","method":"getlastblockheader"}`)}
	b.ReportAllocs()
	for b.Loop() {
		if resp := node.srv.serveJSONRPC(req); len(resp.Body) == 0 {
			b.Fatal("empty answer")
		}
	}
}

func BenchmarkGetHeight(b *testing.B)             { benchGetHeight(b, nil) }
func BenchmarkGetHeightInstrumented(b *testing.B) { benchGetHeight(b, metrics.New().Endpoint) }

func benchGetHeight(b *testing.B, instrument func(string) func(time.Duration)) {
	node := startNodeWith(b, nodeOptions{net: params.Regtest, fixedDifficulty: 1,
		exportFile: testutil.Path(b, "testdata", "regtest", "blockchain.raw"), instrument: instrument})
	get := node.srv.routes()["/get_height"]
	req := &httpd.Request{HTTPMethod: "GET", Path: "/get_height"}
	b.ReportAllocs()
	for b.Loop() {
		if resp := get(req); len(resp.Body) == 0 {
			b.Fatal("empty answer")
		}
	}
}

// Whatever the body, an instrumented /json_rpc request is observed under
// registered names only (or "other"): once for a single request, once per
// element for a batch. Seeds: the captured request bodies.
func FuzzInstrumentNames(f *testing.F) {
	files, _ := filepath.Glob(testutil.Path(f, "testdata", "regtest", "responses", "offline", "*.request"))
	for _, file := range files {
		if st, err := os.Stat(file); err == nil && st.Size() < 4096 {
			_, _, body := capturedRequest(f, file)
			f.Add(body, false)
		}
	}
	f.Add([]byte(`[{"method":"getblock","params":{"height":201}},{"method":"get_info"},{"method":"x"},5]`), true)
	f.Add([]byte(`{"method":"get_connections"}`), true)
	ci := &countingInstrument{}
	node := startNodeWith(f, nodeOptions{net: params.Regtest, fixedDifficulty: 1,
		exportFile: testutil.Path(f, "testdata", "regtest", "blockchain.raw"), instrument: ci.instrument})
	var mu sync.Mutex // the counts are per request
	f.Fuzz(func(t *testing.T, body []byte, restricted bool) {
		mu.Lock()
		defer mu.Unlock()
		ci.take()
		node.srv.serveJSONRPC(&httpd.Request{HTTPMethod: "POST", Path: "/json_rpc", Body: body, Restricted: restricted})
		total := 0
		for name, n := range ci.take() {
			if !ci.bound[name] {
				t.Fatalf("observed under %q, not a registered name", name)
			}
			total += n
		}
		trimmed := bytes.TrimLeft(body, " \t\r\n")
		if len(trimmed) == 0 || trimmed[0] != '[' {
			if total != 1 {
				t.Fatalf("%d observations of one request", total)
			}
		}
	})
}
