package epeejson

import (
	"path/filepath"
	"testing"
)

// typicalRequest is what most clients send.
var typicalRequest = []byte(`{"jsonrpc":"2.0","id":"0","method":"getblockheaderbyheight","params":{"height":123}}`)

func BenchmarkParse(b *testing.B) {
	b.SetBytes(int64(len(typicalRequest)))
	b.ReportAllocs()
	for b.Loop() {
		v, err := Parse(typicalRequest)
		if err != nil {
			b.Fatal(err)
		}
		p, _ := v.Get("params")
		h, _ := p.Get("height")
		if h.Uint != 123 {
			b.Fatal(h)
		}
	}
}

// BenchmarkParseGetblockAnswer parses a 3 kB body with long strings (monerod's
// getblock answer for block 201).
func BenchmarkParseGetblockAnswer(b *testing.B) {
	body := readFile(b, regtestPath(b, "responses", "offline", "getblock_by_height_201.body"))
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(body); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkWriterBlockHeader writes a whole getblockheaderbyheight answer (22
// block_header fields) with the Key* calls into a reused buffer.
func BenchmarkWriterBlockHeader(b *testing.B) {
	h, want := goldenHeader(b)
	w := NewWriter(nil)
	writeBlockHeaderResponse(w, h)
	if string(w.Bytes()) != string(want) {
		b.Fatal("output differs from monerod's")
	}
	b.SetBytes(int64(len(want)))
	b.ReportAllocs()
	for b.Loop() {
		w.Reset(w.Bytes())
		writeBlockHeaderResponse(w, h)
	}
}

// BenchmarkWriterValue re-emits a parsed getblockheaderbyhash answer with 2
// headers through Value (sorted input: no sorting work, no allocation).
func BenchmarkWriterValue(b *testing.B) {
	body := readFile(b, filepath.Join(regtestPath(b, "responses", "offline"), "getblockheaderbyhash_hashes.body"))
	v, err := Parse(body)
	if err != nil {
		b.Fatal(err)
	}
	w := NewWriter(nil)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		w.Reset(w.Bytes())
		w.Value(v)
	}
}
