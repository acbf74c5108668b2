package rpc

import (
	"bytes"
	"runtime"
	"strings"
	"testing"

	"github.com/gonero/gonero/httpd"
	"github.com/gonero/gonero/internal/testutil"
	"github.com/gonero/gonero/portable"
)

// bombBytes is the size of a bomb body: just under the 1 MiB body limit
// (MAX_RPC_CONTENT_LENGTH, head included), as bench/abuse.sh posts them.
const bombBytes = 1<<20 - 2048

type bomb struct {
	name, path string
	body       []byte
}

// bombBodies are the bodies of bench/abuse.sh's rpc-bombs (issue 33): those
// that cost a parser the most per byte.
func bombBodies(t testing.TB) []bomb {
	rpcHead := `{"jsonrpc":"2.0","id":0,"method":"get_info","params":`
	nest := func(open, close string, inner string) []byte {
		k := (bombBytes - len(rpcHead) - len(inner) - 1) / (len(open) + len(close))
		return []byte(rpcHead + strings.Repeat(open, k) + inner + strings.Repeat(close, k) + "}")
	}
	var zeros bytes.Buffer
	zeros.WriteString(rpcHead + "[0")
	for zeros.Len() < bombBytes-4 {
		zeros.WriteString(",0")
	}
	zeros.WriteString("]}")
	long := strings.Repeat("a", bombBytes-100)
	var hashes bytes.Buffer
	hashes.WriteString(`{"txs_hashes":["` + strings.Repeat("0", 64) + `"`)
	for hashes.Len() < bombBytes-100 {
		hashes.WriteString(`,"` + strings.Repeat("0", 64) + `"`)
	}
	hashes.WriteString(`],"decode_as_json":true}`)
	var outs bytes.Buffer
	outs.WriteString(`{"outputs":[{"amount":0,"index":0}`)
	for outs.Len() < bombBytes-100 {
		outs.WriteString(`,{"amount":0,"index":0}`)
	}
	outs.WriteString(`],"get_txid":true}`)
	var ids portable.Section
	idBlob := make([]byte, (bombBytes-200)/32*32)
	for i := range idBlob {
		idBlob[i] = byte(i * 7)
	}
	ids.Set("block_ids", portable.NewBlob(idBlob))
	ids.Set("start_height", portable.NewUint64(0))
	ids.Set("prune", portable.NewBool(true))
	var outsBin portable.Section
	var entries []portable.Value
	for range 40000 {
		var e portable.Section
		e.Set("amount", portable.NewUint64(0))
		e.Set("index", portable.NewUint64(0))
		entries = append(entries, portable.Value{Type: portable.TypeObject, Object: e})
	}
	outsBin.Set("outputs", portable.Value{Type: portable.ArrayFlag | portable.TypeObject, Array: entries})
	outsBin.Set("get_txid", portable.NewBool(true))
	enc := func(s portable.Section) []byte {
		b, err := portable.Encode(s)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	return []bomb{
		{"nested-objects", "/json_rpc", nest(`{"a":`, "}", "0")},
		{"nested-arrays", "/json_rpc", nest("[", "]", "")},
		{"zeros", "/json_rpc", zeros.Bytes()},
		{"long-id", "/json_rpc", []byte(`{"jsonrpc":"2.0","id":"` + long + `","method":"get_info"}`)},
		{"long-method", "/json_rpc", []byte(`{"jsonrpc":"2.0","id":0,"method":"` + long + `"}`)},
		{"get_transactions", "/get_transactions", hashes.Bytes()},
		{"get_outs", "/get_outs", outs.Bytes()},
		{"sendrawtransaction", "/sendrawtransaction", []byte(`{"tx_as_hex":"` + strings.Repeat("ab", (bombBytes-100)/2) + `"}`)},
		{"getblocks.bin", "/getblocks.bin", enc(ids)},
		{"get_outs.bin", "/get_outs.bin", enc(outsBin)},
	}
}

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
	for _, b := range bombBodies(t) {
		route := routes[b.path]
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		resp := route(&httpd.Request{HTTPMethod: "POST", Path: b.path, Body: b.body, Restricted: true})
		runtime.ReadMemStats(&after)
		alloc := after.TotalAlloc - before.TotalAlloc
		t.Logf("%-20s status %d, %d bytes allocated (%.1fx the body), answer %d bytes", b.name, resp.Status, alloc, float64(alloc)/float64(len(b.body)), len(resp.Body))
		// 6x: the body's copy, the answer (the long id is echoed, as
		// monerod does), and for get_outs the 5,001 outputs it builds.
		if limit := 6 * uint64(len(b.body)); alloc > limit {
			t.Errorf("%s: %d bytes allocated for a %d-byte body (limit %d)", b.name, alloc, len(b.body), limit)
		}
		if resp.Status != 0 && resp.Status != 200 {
			t.Errorf("%s: status %d", b.name, resp.Status)
		}
		if w, ok := want[b.name]; ok && !bytes.Contains(resp.Body, []byte(w)) {
			t.Errorf("%s: answer %.300q lacks %s", b.name, resp.Body, w)
		}
	}
}
