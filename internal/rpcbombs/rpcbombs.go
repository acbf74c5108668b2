// Package rpcbombs builds the request bodies that cost an RPC parser the
// most per byte (issue 33): bench/abuse.sh's rpc-bombs posts them in a
// flood, and rpc's TestBombAllocs bounds what each one allocates. One
// builder keeps the attack and the test on the same bodies.
package rpcbombs

import (
	"bytes"
	"strings"

	"github.com/gonero/gonero/portable"
)

// Bytes is a bomb's size: just under monerod's MAX_RPC_CONTENT_LENGTH
// (1 MiB, request head included), so that a node reads and parses it whole.
const Bytes = 1<<20 - 2048

// Bomb is one request body and the path it is posted to.
type Bomb struct {
	Name, Path string
	Body       []byte
	Bin        bool // an epee binary request (its answer is binary too)
}

// Build returns the bombs, each just under the size limit: nesting as deep
// as the body allows (objects, arrays), an array of ~500,000 zeros as
// get_info's params, a megabyte id and method name, 15,000 tx hashes, 40,000
// outputs in JSON, a megabyte tx_as_hex, an epee block-id list of 32,000 ids
// and an epee output list of 40,000 entries. Megabytes in all: build once.
func Build() []Bomb {
	rpcHead := `{"jsonrpc":"2.0","id":0,"method":"get_info","params":`
	long := strings.Repeat("a", Bytes-100)
	var ids portable.Section
	idBlob := make([]byte, (Bytes-200)/32*32)
	for i := range idBlob {
		idBlob[i] = byte(i * 7)
	}
	ids.Set("block_ids", portable.NewBlob(idBlob))
	ids.Set("start_height", portable.NewUint64(0))
	ids.Set("prune", portable.NewBool(true))
	var outsBin portable.Section
	entries := make([]portable.Value, 0, 40000)
	for range 40000 {
		var e portable.Section
		e.Set("amount", portable.NewUint64(0))
		e.Set("index", portable.NewUint64(0))
		entries = append(entries, portable.Value{Type: portable.TypeObject, Object: e})
	}
	outsBin.Set("outputs", portable.Value{Type: portable.ArrayFlag | portable.TypeObject, Array: entries})
	outsBin.Set("get_txid", portable.NewBool(true))
	return []Bomb{
		{Name: "nested-objects", Path: "/json_rpc", Body: nest(rpcHead, `{"a":`, "}", "0")},
		{Name: "nested-arrays", Path: "/json_rpc", Body: nest(rpcHead, "[", "]", "")},
		{Name: "zeros", Path: "/json_rpc", Body: repeated(rpcHead+"[0", ",0", "]}", Bytes-4)},
		{Name: "long-id", Path: "/json_rpc", Body: []byte(`{"jsonrpc":"2.0","id":"` + long + `","method":"get_info"}`)},
		{Name: "long-method", Path: "/json_rpc", Body: []byte(`{"jsonrpc":"2.0","id":0,"method":"` + long + `"}`)},
		{Name: "get_transactions", Path: "/get_transactions", Body: repeated(`{"txs_hashes":["`+zeroHash+`"`, `,"`+zeroHash+`"`, `],"decode_as_json":true}`, Bytes-100)},
		{Name: "get_outs", Path: "/get_outs", Body: repeated(`{"outputs":[{"amount":0,"index":0}`, `,{"amount":0,"index":0}`, `],"get_txid":true}`, Bytes-100)},
		{Name: "sendrawtransaction", Path: "/sendrawtransaction", Body: []byte(`{"tx_as_hex":"` + strings.Repeat("ab", (Bytes-100)/2) + `"}`)},
		{Name: "getblocks.bin", Path: "/getblocks.bin", Body: encode(ids), Bin: true},
		{Name: "get_outs.bin", Path: "/get_outs.bin", Body: encode(outsBin), Bin: true},
	}
}

// OverLimit is a body just past the size limit (the nested arrays and 4 kB
// more): refused before it is read.
func OverLimit() Bomb {
	b := nest(`{"jsonrpc":"2.0","id":0,"method":"get_info","params":`, "[", "]", "")
	return Bomb{Name: "over-limit", Path: "/json_rpc", Body: append(b, make([]byte, 4096)...)}
}

var zeroHash = strings.Repeat("0", 64)

// nest wraps inner in as many open/close pairs as fit in Bytes.
func nest(head, open, close, inner string) []byte {
	k := (Bytes - len(head) - len(inner) - 1) / (len(open) + len(close))
	return []byte(head + strings.Repeat(open, k) + inner + strings.Repeat(close, k) + "}")
}

// repeated is head, then elem until the body reaches n bytes, then tail.
func repeated(head, elem, tail string, n int) []byte {
	var b bytes.Buffer
	b.WriteString(head)
	for b.Len() < n {
		b.WriteString(elem)
	}
	b.WriteString(tail)
	return b.Bytes()
}

// encode is portable.Encode of a section this package built: it cannot fail.
func encode(s portable.Section) []byte {
	b, err := portable.Encode(s)
	if err != nil {
		panic("rpcbombs: " + err.Error())
	}
	return b
}
