package rpc

import (
	"bytes"
	"runtime"
	"testing"

	"github.com/gonero/gonero/httpd"
	"github.com/gonero/gonero/internal/rpcbombs"
	"github.com/gonero/gonero/internal/testutil"
)

// TestBombAllocs: each bomb of bench/abuse.sh's rpc-bombs, posted to the
// restricted listener, costs a small multiple of its body, and is answered
// as monerod answers it: get_info whose params are ~500,000 zeros it never
// reads is answered (params are parsed one level deep: ParseShallow), and
// 15,000 hashes or 40,000 outputs get the restricted caps' refusals (the
// elements past the cap are checked, not built: ParseCapped). Before, the
// zeros cost 35 MB and a parse error, the outputs 19 MB and a 400.
func TestBombAllocs(t *testing.T) {
	node := startNode(t, testutil.Path(t, "testdata", "regtest", "blockchain.raw"), nil)
	routes := node.srv.routes()
	want := map[string]string{
		"zeros":            `"status": "OK"`,
		"long-method":      `"Method not found"`,
		"get_transactions": `"Too many transactions requested in restricted mode"`,
		"get_outs":         `"Too many outs requested"`,
		"get_outs.bin":     "Too many outs requested",
		"nested-objects":   `"Parse error"`,
		"nested-arrays":    `"Parse error"`,
	}
	for _, b := range rpcbombs.Build() {
		route := routes[b.Path]
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		resp := route(&httpd.Request{HTTPMethod: "POST", Path: b.Path, Body: b.Body, Restricted: true})
		runtime.ReadMemStats(&after)
		alloc := after.TotalAlloc - before.TotalAlloc
		t.Logf("%-20s status %d, %d bytes allocated (%.1fx the body), answer %d bytes", b.Name, resp.Status, alloc, float64(alloc)/float64(len(b.Body)), len(resp.Body))
		// 6x: the body's copy, the answer (the long id is echoed, as
		// monerod does), and for get_outs the 5,001 outputs it builds.
		if limit := 6 * uint64(len(b.Body)); alloc > limit {
			t.Errorf("%s: %d bytes allocated for a %d-byte body (limit %d)", b.Name, alloc, len(b.Body), limit)
		}
		if resp.Status != 0 && resp.Status != 200 {
			t.Errorf("%s: status %d", b.Name, resp.Status)
		}
		if w, ok := want[b.Name]; ok && !bytes.Contains(resp.Body, []byte(w)) {
			t.Errorf("%s: answer %.300q lacks %s", b.Name, resp.Body, w)
		}
	}
}
