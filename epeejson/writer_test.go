package epeejson

import (
	"bytes"
	"math"
	"path/filepath"
	"strings"
	"testing"
)

// writePrimitive emits v with the streaming calls a handler uses (Begin*/End*,
// Key, KeyString, KeyUint, KeyBool, String, Uint, Int, Double, Bool) in the
// order the members come, without Value's sorting.
func writePrimitive(w *Writer, v Value) {
	switch v.Kind {
	case KindObject:
		w.BeginObject()
		for _, m := range v.Obj {
			switch m.Value.Kind {
			case KindString:
				w.KeyString(m.Name, m.Value.Str)
			case KindUint:
				w.KeyUint(m.Name, m.Value.Uint)
			case KindBool:
				w.KeyBool(m.Name, m.Value.Bool)
			default:
				w.Key(m.Name)
				writePrimitive(w, m.Value)
			}
		}
		w.EndObject()
	case KindArray:
		w.BeginArray()
		for _, e := range v.Arr {
			writePrimitive(w, e)
		}
		w.EndArray()
	case KindString:
		w.String(v.Str)
	case KindUint:
		w.Uint(v.Uint)
	case KindInt:
		w.Int(v.Int)
	case KindDouble:
		w.Double(v.Double)
	case KindBool:
		w.Bool(v.Bool)
	}
}

// TestWriterCallsReproduceCaptures writes every captured body (parsed) back
// through the streaming calls, reusing one Writer and buffer: the bytes must be
// monerod's. (The bodies are sorted already, so the member order is right.)
func TestWriterCallsReproduceCaptures(t *testing.T) {
	w := NewWriter(make([]byte, 0, 64))
	n := 0
	for _, c := range capturedBodies(t) {
		if len(c.body) == 0 || c.name == filepath.Join("responses", "offline", "id_neg_zero.body") {
			continue // see TestRoundTripCapturedBodies
		}
		v, err := Parse(c.body)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		w.Reset(w.Bytes())
		writePrimitive(w, v)
		if !bytes.Equal(w.Bytes(), c.body) {
			t.Errorf("%s:\n%s", c.name, firstDiff(w.Bytes(), c.body))
		}
		n++
	}
	t.Logf("%d bodies", n)
}

// TestWriterLayout covers layouts the captures do not contain; expectations
// from dump_as_json (portable_storage_to_json.h).
func TestWriterLayout(t *testing.T) {
	w := NewWriter(nil)
	w.BeginObject()
	w.EndObject()
	if got := string(w.Bytes()); got != "{\r\n}" {
		t.Errorf("empty top-level object: %q", got)
	}

	w.Reset(nil)
	w.BeginObject()
	w.Key("a")
	w.BeginObject()
	w.EndObject()
	w.Key("b")
	w.BeginArray()
	w.BeginObject()
	w.EndObject()
	w.BeginObject()
	w.Key("c")
	w.BeginArray()
	w.BeginObject()
	w.KeyUint("d", 1)
	w.EndObject()
	w.EndArray()
	w.EndObject()
	w.EndArray()
	w.Key("e")
	w.BeginArray()
	w.EndArray()
	w.Key("f")
	w.BeginArray()
	w.Int(-1)
	w.Int(2)
	w.EndArray()
	w.EndObject()
	want := "{\r\n" +
		"  \"a\": {\r\n" +
		"  },\r\n" +
		"  \"b\": [{\r\n" +
		"  },{\r\n" +
		"    \"c\": [{\r\n" +
		"      \"d\": 1\r\n" +
		"    }]\r\n" +
		"  }],\r\n" +
		"  \"e\": [],\r\n" +
		"  \"f\": [-1,2]\r\n" +
		"}"
	if got := string(w.Bytes()); got != want {
		t.Errorf("layout:\n%s\nwant:\n%s", got, want)
	}

	// Deep indentation beyond the prepared run of spaces.
	w.Reset(nil)
	for range 40 {
		w.BeginObject()
		w.Key("x")
	}
	w.Uint(1)
	for range 40 {
		w.EndObject()
	}
	v, err := Parse(w.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if got := writeValue(v); !bytes.Equal(got, w.Bytes()) {
		t.Errorf("deep object does not round-trip:\n%s", firstDiff(got, w.Bytes()))
	}
	if !bytes.Contains(w.Bytes(), []byte("\r\n"+strings.Repeat("  ", 40)+"\"x\": 1\r\n")) {
		t.Error("40th level not indented by 80 spaces")
	}
}

// TestWriterDoubles: C++ ostream << double with default precision is %.6g.
// 1.5, 0.1, 1000, 1e+300, -0 and 3.14159 are also checked against monerod's
// answers in TestIDEcho.
func TestWriterDoubles(t *testing.T) {
	for _, c := range []struct {
		f    float64
		want string
	}{
		{1.5, "1.5"}, {0.1, "0.1"}, {3.141592653589793, "3.14159"}, {1000, "1000"},
		{1e300, "1e+300"}, {math.Copysign(0, -1), "-0"}, {0, "0"},
		{123456789.123, "1.23457e+08"}, {100000, "100000"}, {999999.5, "1e+06"}, {1e6, "1e+06"},
		{0.0001, "0.0001"}, {0.00001, "1e-05"}, {0.000123456789, "0.000123457"},
		{1.0000001, "1"}, {-2.5e-7, "-2.5e-07"}, {5e-324, "4.94066e-324"},
		{math.MaxFloat64, "1.79769e+308"},
		{math.Inf(1), "inf"}, {math.Inf(-1), "-inf"}, {math.NaN(), "nan"}, {math.Copysign(math.NaN(), -1), "-nan"},
	} {
		w := NewWriter(nil)
		w.Double(c.f)
		if got := string(w.Bytes()); got != c.want {
			t.Errorf("Double(%v) = %s, want %s", c.f, got, c.want)
		}
	}
}

// TestWriterEscaping checks every byte against transform_to_escape_sequence:
// \b \f \n \r \t \v " \ / escaped, everything else raw (also in names).
func TestWriterEscaping(t *testing.T) {
	escaped := map[byte]string{'\b': `\b`, '\f': `\f`, '\n': `\n`, '\r': `\r`, '\t': `\t`, '\v': `\v`, '"': `\"`, '\\': `\\`, '/': `\/`}
	for c := 0; c < 256; c++ {
		s := "a" + string([]byte{byte(c)}) + "z"
		want := string([]byte{byte(c)})
		if e, ok := escaped[byte(c)]; ok {
			want = e
		}
		w := NewWriter(nil)
		w.String(s)
		if got := string(w.Bytes()); got != `"a`+want+`z"` {
			t.Errorf("byte %#x: %q", c, got)
		}
		w.Reset(nil)
		w.BeginObject()
		w.KeyString(s, s)
		w.EndObject()
		if got, wantObj := string(w.Bytes()), "{\r\n  \"a"+want+"z\": \"a"+want+"z\"\r\n}"; got != wantObj {
			t.Errorf("byte %#x in a member: %q", c, got)
		}
	}
}

// TestWriterValue covers Value's epee storage view: sorting, duplicates,
// empty arrays and names, and the zero Value.
func TestWriterValue(t *testing.T) {
	v := Value{Kind: KindObject, Obj: []Member{
		{Name: "b", Value: Value{Kind: KindUint, Uint: 1}},
		{Name: "a", Value: Value{Kind: KindObject, Obj: []Member{{Name: "x", Value: Value{Kind: KindBool, Bool: true}}}}},
		{Name: "", Value: Value{Kind: KindUint, Uint: 9}},
		{Name: "c", Value: Value{Kind: KindArray}},
		{Name: "b", Value: Value{Kind: KindString, Str: "last"}},
		{Name: "a", Value: Value{Kind: KindObject, Obj: []Member{{Name: "w", Value: Value{}}}}},
		{Name: "B", Value: Value{Kind: KindInt, Int: -3}},
	}}
	want := "{\r\n" +
		"  \"B\": -3,\r\n" +
		"  \"a\": {\r\n" +
		"    \"w\": 0,\r\n" +
		"    \"x\": true\r\n" +
		"  },\r\n" +
		"  \"b\": \"last\"\r\n" +
		"}"
	if got := string(writeValue(v)); got != want {
		t.Errorf("Value:\n%s\nwant:\n%s", got, want)
	}
	if got := string(writeValue(Value{})); got != "0" {
		t.Errorf("zero Value: %q", got)
	}
}

// TestWriterAllocations: once its buffer and stack have grown, the Writer
// allocates nothing, and Value allocates nothing for sorted objects.
func TestWriterAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are not the program's under the race detector")
	}
	h, _ := goldenHeader(t)
	w := NewWriter(nil)
	writeBlockHeaderResponse(w, h)
	id := Value{Kind: KindString, Str: "0"}
	sorted, err := Parse([]byte(`{"a":1,"b":[1,2],"c":{"d":"x"}}`))
	if err != nil {
		t.Fatal(err)
	}
	n := testing.AllocsPerRun(100, func() {
		w.Reset(w.Bytes())
		writeBlockHeaderResponse(w, h)
		w.Reset(w.Bytes())
		w.Value(id)
		w.Value(sorted)
	})
	if n != 0 {
		t.Errorf("%v allocations per response", n)
	}
}

// blockHeader holds the fields of monerod's block_header_response.
type blockHeader struct {
	blockSize, blockWeight, cumulativeDifficulty, cumulativeDifficultyTop64, depth  uint64
	difficulty, difficultyTop64, height, longTermWeight, majorVersion, minorVersion uint64
	nonce, numTxes, reward, timestamp                                               uint64
	hash, minerTxHash, powHash, prevHash, wideCumulativeDifficulty, wideDifficulty  string
	orphanStatus                                                                    bool
}

// goldenHeader returns block 201's header (3 transactions) as monerod
// reported it in golden/getblockheaderbyheight.jsonl, and that answer.
func goldenHeader(t testing.TB) (blockHeader, []byte) {
	t.Helper()
	var body []byte
	for _, c := range capturedBodies(t) {
		if c.name == filepath.Join("golden", "getblockheaderbyheight.jsonl")+":202" {
			body = c.body
		}
	}
	v, err := Parse(body)
	if err != nil {
		t.Fatal(err)
	}
	r, _ := v.Get("result")
	bh, _ := r.Get("block_header")
	u := func(name string) uint64 {
		f, _ := bh.Get(name)
		n, err := f.AsUint64()
		if err != nil {
			t.Fatalf("block_header.%s: %v", name, err)
		}
		return n
	}
	s := func(name string) string {
		f, _ := bh.Get(name)
		str, err := f.AsString()
		if err != nil {
			t.Fatalf("block_header.%s: %v", name, err)
		}
		return str
	}
	orphan, _ := bh.Get("orphan_status")
	h := blockHeader{
		blockSize: u("block_size"), blockWeight: u("block_weight"), cumulativeDifficulty: u("cumulative_difficulty"),
		cumulativeDifficultyTop64: u("cumulative_difficulty_top64"), depth: u("depth"), difficulty: u("difficulty"),
		difficultyTop64: u("difficulty_top64"), height: u("height"), longTermWeight: u("long_term_weight"),
		majorVersion: u("major_version"), minorVersion: u("minor_version"), nonce: u("nonce"), numTxes: u("num_txes"),
		reward: u("reward"), timestamp: u("timestamp"),
		hash: s("hash"), minerTxHash: s("miner_tx_hash"), powHash: s("pow_hash"), prevHash: s("prev_hash"),
		wideCumulativeDifficulty: s("wide_cumulative_difficulty"), wideDifficulty: s("wide_difficulty"),
		orphanStatus: orphan.Bool,
	}
	if h.height != 201 {
		t.Fatalf("golden line 202 is height %d", h.height)
	}
	return h, body
}

// writeBlockHeaderResponse writes a getblockheaderbyheight answer the way a
// handler would: members in sorted order with the Key* calls.
func writeBlockHeaderResponse(w *Writer, h blockHeader) {
	w.BeginObject()
	w.KeyString("id", "0")
	w.KeyString("jsonrpc", "2.0")
	w.Key("result")
	w.BeginObject()
	w.Key("block_header")
	w.BeginObject()
	w.KeyUint("block_size", h.blockSize)
	w.KeyUint("block_weight", h.blockWeight)
	w.KeyUint("cumulative_difficulty", h.cumulativeDifficulty)
	w.KeyUint("cumulative_difficulty_top64", h.cumulativeDifficultyTop64)
	w.KeyUint("depth", h.depth)
	w.KeyUint("difficulty", h.difficulty)
	w.KeyUint("difficulty_top64", h.difficultyTop64)
	w.KeyString("hash", h.hash)
	w.KeyUint("height", h.height)
	w.KeyUint("long_term_weight", h.longTermWeight)
	w.KeyUint("major_version", h.majorVersion)
	w.KeyString("miner_tx_hash", h.minerTxHash)
	w.KeyUint("minor_version", h.minorVersion)
	w.KeyUint("nonce", h.nonce)
	w.KeyUint("num_txes", h.numTxes)
	w.KeyBool("orphan_status", h.orphanStatus)
	w.KeyString("pow_hash", h.powHash)
	w.KeyString("prev_hash", h.prevHash)
	w.KeyUint("reward", h.reward)
	w.KeyUint("timestamp", h.timestamp)
	w.KeyString("wide_cumulative_difficulty", h.wideCumulativeDifficulty)
	w.KeyString("wide_difficulty", h.wideDifficulty)
	w.EndObject()
	w.KeyUint("credits", 0)
	w.KeyString("status", "OK")
	w.KeyString("top_hash", "")
	w.KeyBool("untrusted", false)
	w.EndObject()
	w.EndObject()
}

// TestWriteBlockHeaderResponse checks the benchmark's handler-style writer
// against monerod's answer for the same block.
func TestWriteBlockHeaderResponse(t *testing.T) {
	h, want := goldenHeader(t)
	w := NewWriter(nil)
	writeBlockHeaderResponse(w, h)
	if !bytes.Equal(w.Bytes(), want) {
		t.Errorf("block 201 header answer:\n%s", firstDiff(w.Bytes(), want))
	}
}
