package portable

import (
	"bytes"
	"encoding/hex"
	"errors"
	"math"
	"regexp"
	"runtime"
	"strings"
	"testing"
)

// docHex turns the doc's hex dumps into bytes: hex pairs separated by
// spaces, with "name" standing for the ASCII bytes of name and '|'
// separators; text after '#' on a line is a comment.
func docHex(t testing.TB, s string) []byte {
	t.Helper()
	var out []byte
	for _, line := range strings.Split(s, "\n") {
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		for _, tok := range quotedOrWord.FindAllString(line, -1) {
			if tok == "|" {
				continue
			}
			if tok[0] == '"' {
				out = append(out, tok[1:len(tok)-1]...)
				continue
			}
			b, err := hex.DecodeString(tok)
			if err != nil {
				t.Fatalf("bad hex %q: %v", tok, err)
			}
			out = append(out, b...)
		}
	}
	return out
}

var quotedOrWord = regexp.MustCompile(`"[^"]*"|[^\s"]+`)

const header = "01 11 01 01 01 01 02 01 01"

// TestVarintExamples checks every example of docs/p2p-levin.md §3.2 both ways, the width
// boundaries, and that non-minimal widths are accepted on read.
func TestVarintExamples(t *testing.T) {
	cases := []struct {
		n    uint64
		wire string
	}{
		{0, "00"}, {7, "1c"}, {101, "95 01"}, {17000, "a2 09 01 00"},
		{7942319744, "03 ba 98 65 07 00 00 00"},
		{63, "fc"}, {64, "01 01"}, {16383, "fd ff"}, {16384, "02 00 01 00"},
		{1<<30 - 1, "fe ff ff ff"}, {1 << 30, "03 00 00 00 01 00 00 00"},
		{1<<62 - 1, "ff ff ff ff ff ff ff ff"},
	}
	for _, c := range cases {
		var e encoder
		if err := e.varint(c.n); err != nil {
			t.Fatal(err)
		}
		want := docHex(t, c.wire)
		if !bytes.Equal(e.buf, want) {
			t.Errorf("varint(%d) = % x, want % x", c.n, e.buf, want)
		}
		d := decoder{data: want}
		if got, err := d.varint(); err != nil || got != c.n || d.off != len(want) {
			t.Errorf("read % x = %d, %v", want, got, err)
		}
	}
	var e encoder
	if err := e.varint(1 << 62); !errors.Is(err, ErrInvalidValue) {
		t.Errorf("2^62: %v", err)
	}
	for _, wire := range []string{"1d 00", "1e 00 00 00", "1f 00 00 00 00 00 00 00"} {
		d := decoder{data: docHex(t, wire)}
		if got, err := d.varint(); err != nil || got != 7 {
			t.Errorf("non-minimal %s: %d, %v", wire, got, err)
		}
	}
	for _, wire := range []string{"", "01", "02 00 00", "03 00 00 00 00 00 00"} {
		d := decoder{data: docHex(t, wire)}
		if _, err := d.varint(); !errors.Is(err, ErrTruncated) {
			t.Errorf("truncated %q: %v", wire, err)
		}
	}
}

// allTypes is a canonical blob holding every type code of docs/p2p-levin.md §3.4, as scalar
// and as array, plus nested objects; names sorted.
func allTypes() Section {
	nested := Section{Entries: []Entry{{"x", NewUint8(1)}, {"y", NewObject(Section{Entries: []Entry{{"z", NewString("deep")}}})}}}
	s := Section{Entries: []Entry{
		{"a_i64", NewInt64(math.MinInt64)},
		{"a_i32", NewInt32(-2)},
		{"a_i16", NewInt16(math.MaxInt16)},
		{"a_i8", NewInt8(-128)},
		{"a_u64", NewUint64(math.MaxUint64)},
		{"a_u32", NewUint32(0xdeadbeef)},
		{"a_u16", NewUint16(18080)},
		{"a_u8", NewUint8(255)},
		{"a_f64", NewDouble(-1.5)},
		{"a_str", NewBlob([]byte{0, 1, 2, 0xff})},
		{"a_true", NewBool(true)},
		{"a_false", NewBool(false)},
		{"a_obj", NewObject(nested)},
		{"a_empty_obj", NewObject(Section{})},
		{"b_i64s", arrayOf(TypeInt64, NewInt64(-1), NewInt64(2))},
		{"b_i32s", arrayOf(TypeInt32, NewInt32(-1))},
		{"b_i16s", arrayOf(TypeInt16, NewInt16(-1), NewInt16(3))},
		{"b_i8s", arrayOf(TypeInt8, NewInt8(-1))},
		{"b_u64s", arrayOf(TypeUint64, NewUint64(1), NewUint64(2), NewUint64(3))},
		{"b_u32s", arrayOf(TypeUint32, NewUint32(4))},
		{"b_u16s", arrayOf(TypeUint16, NewUint16(5))},
		{"b_u8s", arrayOf(TypeUint8, NewUint8(6), NewUint8(7))},
		{"b_f64s", arrayOf(TypeDouble, NewDouble(math.Inf(1)), NewDouble(math.NaN()))},
		{"b_strs", NewBlobArray([][]byte{[]byte("tx1"), {}, []byte("tx3")})},
		{"b_bools", arrayOf(TypeBool, NewBool(true), NewBool(false))},
		{"b_objs", NewObjectArray([]Section{nested, {}})},
		{"b_empty", arrayOf(TypeUint64)},
	}}
	return s
}

func arrayOf(elem Type, vals ...Value) Value {
	return Value{Type: ArrayFlag | elem, Array: vals}
}

func TestAllTypesRoundTrip(t *testing.T) {
	s := allTypes()
	blob, err := Encode(s)
	if err != nil {
		t.Fatal(err)
	}
	back, err := Decode(blob)
	if err != nil {
		t.Fatal(err)
	}
	if !back.Equal(s) {
		t.Fatalf("decoded tree differs:\n%+v", back)
	}
	again, err := Encode(back)
	if err != nil || !bytes.Equal(again, blob) {
		t.Fatalf("re-encoding differs: %v", err)
	}
	// Spot checks of the scalar encodings.
	for _, c := range []struct {
		v    Value
		wire string
	}{
		{NewInt64(-2), "01 fe ff ff ff ff ff ff ff"},
		{NewInt32(-2), "02 fe ff ff ff"},
		{NewInt16(-2), "03 fe ff"},
		{NewInt8(-2), "04 fe"},
		{NewUint64(0x0102030405060708), "05 08 07 06 05 04 03 02 01"},
		{NewUint32(18080), "06 a0 46 00 00"},
		{NewUint16(18080), "07 a0 46"},
		{NewUint8(1), "08 01"},
		{NewDouble(1), "09 00 00 00 00 00 00 f0 3f"},
		{NewString("OK"), "0a 08 4f 4b"},
		{NewBool(true), "0b 01"},
		{NewObject(Section{}), "0c 00"},
		{arrayOf(TypeUint64, NewUint64(5)), "85 04 05 00 00 00 00 00 00 00"},
		{NewBlobArray([][]byte{[]byte("a")}), "8a 04 04 61"},
		{NewObjectArray([]Section{{}, {}}), "8c 08 00 00"},
	} {
		blob, err := Encode(Section{Entries: []Entry{{"v", c.v}}})
		if err != nil {
			t.Fatal(err)
		}
		want := docHex(t, header+` 04 01 "v" `+c.wire)
		if !bytes.Equal(blob, want) {
			t.Errorf("%v: % x, want % x", c.v.Type, blob, want)
		}
	}
}

// TestEmptyBody: the body of a ping or support-flags request.
func TestEmptyBody(t *testing.T) {
	blob, err := Encode(Section{})
	if err != nil || !bytes.Equal(blob, docHex(t, header+" 00")) {
		t.Fatalf("% x %v", blob, err)
	}
	if _, err := Decode(nil); !errors.Is(err, ErrBadHeader) {
		t.Errorf("empty body: %v", err) // throwable_buffer_reader rejects size 0
	}
}

func TestDecodeLeniency(t *testing.T) {
	t.Run("trailing bytes ignored", func(t *testing.T) {
		s, err := Decode(docHex(t, header+` 04 01 "v" 08 07 00 00 00 ff ff`))
		if err != nil || len(s.Entries) != 1 || s.Entries[0].Value.Uint != 7 {
			t.Fatalf("%+v %v", s, err)
		}
	})
	t.Run("any entry order", func(t *testing.T) {
		s, err := Decode(docHex(t, header+` 0c 01 "z" 08 01 01 "a" 08 02 01 "m" 08 03`))
		if err != nil || s.Entries[0].Name != "z" || s.Entries[2].Name != "m" {
			t.Fatalf("%+v %v", s, err)
		}
	})
	t.Run("bare ARRAY code", func(t *testing.T) {
		s, err := Decode(docHex(t, header+` 04 01 "v" 0d 85 04 05 00 00 00 00 00 00 00`))
		if err != nil || !s.Equal(Section{Entries: []Entry{{"v", arrayOf(TypeUint64, NewUint64(5))}}}) {
			t.Fatalf("%+v %v", s, err)
		}
	})
	t.Run("empty strings count one byte each", func(t *testing.T) {
		// monerod would refuse this (it counts 2 bytes per string); see minSize.
		s, err := Decode(docHex(t, header+` 04 01 "v" 8a 0c 00 00 00`))
		if err != nil || len(s.Entries[0].Value.Array) != 3 {
			t.Fatal(err)
		}
	})
	t.Run("255-byte name", func(t *testing.T) {
		name := strings.Repeat("n", 255)
		blob := append(docHex(t, header+" 04 ff"), name...)
		blob = append(blob, 8, 1)
		s, err := Decode(blob)
		if err != nil || s.Entries[0].Name != name {
			t.Fatal(err)
		}
		if again, err := Encode(s); err != nil || !bytes.Equal(again, blob) {
			t.Fatal(err)
		}
	})
}

func TestDecodeErrors(t *testing.T) {
	cases := []struct {
		name string
		blob string
		want error
	}{
		{"short header", "01 11 01 01 01 01 02 01", ErrBadHeader},
		{"signature A", "01 11 01 02 01 01 02 01 01 00", ErrBadHeader},
		{"signature B", "01 11 01 01 01 01 03 01 01 00", ErrBadHeader},
		{"version 2", "01 11 01 01 01 01 02 01 02 00", ErrBadHeader},
		{"no root", header, ErrTruncated},
		{"type 0", header + ` 04 01 "v" 00 00`, ErrUnknownType},
		{"type 14", header + ` 04 01 "v" 0e 00`, ErrUnknownType},
		{"type 0x7f", header + ` 04 01 "v" 7f 00`, ErrUnknownType},
		{"array of type 0", header + ` 04 01 "v" 80 00`, ErrUnknownType},
		{"array of type 14", header + ` 04 01 "v" 8e 00`, ErrUnknownType},
		{"array of 0x7f", header + ` 04 01 "v" ff 00`, ErrUnknownType},
		{"array of arrays", header + ` 04 01 "v" 8d 00`, ErrNestedArray},
		{"bare ARRAY then scalar code", header + ` 04 01 "v" 0d 05 00 00 00 00 00 00 00 00`, ErrUnknownType},
		{"bare ARRAY then array of arrays", header + ` 04 01 "v" 0d 8d 00`, ErrNestedArray},
		{"bare ARRAY at the end", header + ` 04 01 "v" 0d`, ErrTruncated},
		{"bool 2", header + ` 04 01 "v" 0b 02`, ErrBadBool},
		{"bool in array", header + ` 04 01 "v" 8b 08 01 ff`, ErrBadBool},
		{"empty name", header + ` 04 00 08 01 00 00`, ErrEmptyName},
		{"duplicate sorted", header + ` 08 01 "a" 08 01 01 "a" 08 02`, ErrDuplicateName},
		{"duplicate unsorted", header + ` 0c 01 "b" 08 01 01 "a" 08 01 01 "b" 08 02`, ErrDuplicateName},
		{"duplicate after disorder", header + ` 10 01 "c" 08 01 01 "a" 08 01 01 "d" 08 01 01 "a" 08 02`, ErrDuplicateName},
		{"duplicate in nested", header + ` 04 01 "o" 0c 08 01 "a" 08 01 01 "a" 08 02`, ErrDuplicateName},
		{"name past the end", header + ` 04 05 "ab"`, ErrTruncated},
		{"huge entry count", header + " ff ff ff ff ff ff ff ff", ErrTruncated},
		{"entry count beyond data", header + ` 08 01 "a" 08 01`, ErrTruncated},
		{"huge array count", header + ` 04 01 "v" 85 ff ff ff ff ff ff ff ff`, ErrTooLarge},
		{"array count beyond data", header + ` 04 01 "v" 85 08 01 00 00 00 00 00 00 00`, ErrTooLarge},
		{"string array count", header + ` 04 01 "v" 8a 0c 00 00`, ErrTooLarge},
		{"huge string length", header + ` 04 01 "v" 0a ff ff ff ff ff ff ff ff`, ErrTruncated},
		{"string length beyond data", header + ` 04 01 "v" 0a 0c 61 62`, ErrTruncated},
		{"scalar cut", header + ` 04 01 "v" 05 01 02 03`, ErrTruncated},
	}
	for _, c := range cases {
		_, err := Decode(docHex(t, c.blob))
		if !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
		var de *DecodeError
		if !errors.As(err, &de) {
			t.Errorf("%s: %T is not a *DecodeError", c.name, err)
		}
	}
	_, err := Decode(docHex(t, header+` 04 01 "o" 0c 04 01 "l" 8c 08 00 04 01 "b" 0b 07`))
	var de *DecodeError
	if !errors.As(err, &de) || de.Path != "o.l[1].b" || de.Offset != 23 {
		t.Errorf("path/offset: %v", err)
	}
}

// TestTruncation cuts valid blobs at every byte: each prefix must fail
// cleanly.
func TestTruncation(t *testing.T) {
	full, err := Encode(allTypes())
	if err != nil {
		t.Fatal(err)
	}
	blobs := [][]byte{full, handshakeExample(t), pingResponseBody(t)}
	for _, blob := range blobs {
		for n := range len(blob) {
			_, err := Decode(blob[:n])
			if !errors.Is(err, ErrTruncated) && !errors.Is(err, ErrTooLarge) && !errors.Is(err, ErrBadHeader) {
				t.Fatalf("prefix of %d/%d bytes: %v", n, len(blob), err)
			}
		}
	}
}

func TestDepth(t *testing.T) {
	nest := func(levels int) []byte {
		b := docHex(t, header)
		for range levels {
			b = append(b, 0x04, 1, 'o', byte(TypeObject))
		}
		b = append(b, 0x00)
		return b
	}
	if _, err := Decode(nest(MaxDepth)); err != nil {
		t.Errorf("%d levels: %v", MaxDepth, err)
	}
	if _, err := Decode(nest(MaxDepth + 1)); !errors.Is(err, ErrTooDeep) {
		t.Errorf("%d levels: %v", MaxDepth+1, err)
	}
	// Objects inside arrays count too.
	b := docHex(t, header)
	for range MaxDepth + 1 {
		b = append(b, 0x04, 1, 'a', byte(ArrayFlag|TypeObject), 0x04)
	}
	b = append(b, 0x00)
	if _, err := Decode(b); !errors.Is(err, ErrTooDeep) {
		t.Errorf("array nesting: %v", err)
	}
	// A million levels: refused at level 31, no stack growth worth noting.
	bomb := nest(1_000_000)
	if _, err := Decode(bomb); !errors.Is(err, ErrTooDeep) {
		t.Errorf("depth bomb: %v", err)
	}
	// Encoding refuses the same depth, and a section that contains itself.
	deep := Section{}
	for range MaxDepth + 1 {
		deep = Section{Entries: []Entry{{"o", NewObject(deep)}}}
	}
	if _, err := Encode(deep); !errors.Is(err, ErrTooDeep) {
		t.Errorf("encode deep: %v", err)
	}
	cyclic := Section{Entries: make([]Entry, 1)}
	cyclic.Entries[0] = Entry{"self", NewObject(cyclic)}
	if _, err := Encode(cyclic); !errors.Is(err, ErrTooDeep) {
		t.Errorf("encode cyclic: %v", err)
	}
}

func TestLimits(t *testing.T) {
	u8s := func(n int) []byte {
		b := docHex(t, header+` 04 01 "v" 88`)
		var e encoder
		e.varint(uint64(n))
		b = append(b, e.buf...)
		return append(b, make([]byte, n)...)
	}
	if _, err := Decode(u8s(MaxFields - 1)); err != nil {
		t.Errorf("%d fields: %v", MaxFields-1, err) // the array itself is one
	}
	if _, err := Decode(u8s(MaxFields)); !errors.Is(err, ErrLimit) {
		t.Errorf("%d fields: %v", MaxFields, err)
	}
	strs := func(n int) []byte {
		b := docHex(t, header+` 04 01 "v" 8a`)
		var e encoder
		e.varint(uint64(n))
		b = append(b, e.buf...)
		return append(b, make([]byte, 2*n)...)
	}
	if _, err := Decode(strs(MaxStrings)); err != nil {
		t.Errorf("%d strings: %v", MaxStrings, err)
	}
	if _, err := Decode(strs(MaxStrings + 1)); !errors.Is(err, ErrLimit) {
		t.Errorf("%d strings: %v", MaxStrings+1, err)
	}
	objs := func(n int) []byte {
		b := docHex(t, header+` 04 01 "v" 8c`)
		var e encoder
		e.varint(uint64(n))
		b = append(b, e.buf...)
		return append(b, make([]byte, n)...)
	}
	if _, err := Decode(objs(MaxObjects - 1)); err != nil { // plus the root
		t.Errorf("%d objects: %v", MaxObjects-1, err)
	}
	if _, err := Decode(objs(MaxObjects)); !errors.Is(err, ErrLimit) {
		t.Errorf("%d objects: %v", MaxObjects, err)
	}
	// Many entries holding empty arrays: each costs a field.
	var e encoder
	n := MaxFields + 1
	e.varint(uint64(n))
	b := append(docHex(t, header), e.buf...)
	for i := range n {
		b = append(b, 3, byte('a'+i/676%26), byte('a'+i/26%26), byte('a'+i%26), 0x85, 0x00)
	}
	if _, err := Decode(b); !errors.Is(err, ErrLimit) {
		t.Errorf("empty arrays: %v", err)
	}
	// Custom limits.
	if _, err := DecodeWithLimits(u8s(100), Limits{MaxObjects: 1, MaxFields: 100, MaxStrings: 0, MaxDepth: 0}); !errors.Is(err, ErrLimit) {
		t.Errorf("custom limits: %v", err)
	}
	if _, err := DecodeWithLimits(u8s(99), Limits{MaxObjects: 1, MaxFields: 100, MaxStrings: 0, MaxDepth: 0}); err != nil {
		t.Errorf("custom limits: %v", err)
	}
}

// TestHostileCountsDoNotAllocate: claims of huge counts cost nothing before
// they are refused, and a blob at the limits costs a bounded amount.
func TestHostileCountsDoNotAllocate(t *testing.T) {
	for _, wire := range []string{
		header + " ff ff ff ff ff ff ff ff",
		header + ` 04 01 "v" 85 ff ff ff ff ff ff ff ff`,
		header + ` 04 01 "v" 8c fe ff ff ff 00 00 00 00`,
		header + ` 04 01 "v" 0a ff ff ff ff ff ff ff ff`,
	} {
		blob := docHex(t, wire)
		allocs := testing.AllocsPerRun(50, func() {
			if _, err := Decode(blob); err == nil {
				t.Fatal("accepted")
			}
		})
		t.Logf("%s: %v allocations", wire, allocs)
		if allocs > 4 {
			t.Errorf("%s: %v allocations", wire, allocs)
		}
	}
	// A blob that is all array elements at the limit: memory is bounded by
	// the limits, not the claim.
	blob := docHex(t, header+` 04 01 "v" 8c`)
	var e encoder
	e.varint(MaxObjects - 1)
	blob = append(append(blob, e.buf...), make([]byte, MaxObjects-1)...)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	if _, err := Decode(blob); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	t.Logf("%d objects: %d bytes", MaxObjects, after.TotalAlloc-before.TotalAlloc)
	if d := after.TotalAlloc - before.TotalAlloc; d > 2<<20 {
		t.Errorf("%d objects took %d bytes", MaxObjects, d)
	}
}

func TestEncodeErrors(t *testing.T) {
	cases := []struct {
		name string
		s    Section
		want error
	}{
		{"empty name", Section{Entries: []Entry{{"", NewUint8(1)}}}, ErrBadName},
		{"256-byte name", Section{Entries: []Entry{{strings.Repeat("n", 256), NewUint8(1)}}}, ErrBadName},
		{"duplicate", Section{Entries: []Entry{{"b", NewUint8(1)}, {"a", NewUint8(1)}, {"b", NewUint8(1)}}}, ErrDuplicateName},
		{"int8 range", Section{Entries: []Entry{{"v", Value{Type: TypeInt8, Int: 128}}}}, ErrOutOfRange},
		{"int16 range", Section{Entries: []Entry{{"v", Value{Type: TypeInt16, Int: -32769}}}}, ErrOutOfRange},
		{"int32 range", Section{Entries: []Entry{{"v", Value{Type: TypeInt32, Int: 1 << 31}}}}, ErrOutOfRange},
		{"uint8 range", Section{Entries: []Entry{{"v", Value{Type: TypeUint8, Uint: 256}}}}, ErrOutOfRange},
		{"uint16 range", Section{Entries: []Entry{{"v", Value{Type: TypeUint16, Uint: 1 << 16}}}}, ErrOutOfRange},
		{"uint32 range", Section{Entries: []Entry{{"v", Value{Type: TypeUint32, Uint: 1 << 32}}}}, ErrOutOfRange},
		{"type 0", Section{Entries: []Entry{{"v", Value{}}}}, ErrInvalidValue},
		{"type 13", Section{Entries: []Entry{{"v", Value{Type: 13}}}}, ErrInvalidValue},
		{"array of arrays", Section{Entries: []Entry{{"v", Value{Type: ArrayFlag | 13}}}}, ErrInvalidValue},
		{"mixed array", Section{Entries: []Entry{{"v", arrayOf(TypeUint8, NewUint8(1), NewUint16(2))}}}, ErrInvalidValue},
		{"nested error", Section{Entries: []Entry{{"o", NewObject(Section{Entries: []Entry{{"", NewUint8(1)}}})}}}, ErrBadName},
		{"in array", Section{Entries: []Entry{{"v", arrayOf(TypeUint8, Value{Type: TypeUint8, Uint: 300})}}}, ErrOutOfRange},
	}
	for _, c := range cases {
		if _, err := Encode(c.s); !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
	}
}

func TestSetAndGetters(t *testing.T) {
	var s Section
	for _, n := range []string{"top_id", "current_height", "cumulative_difficulty_top64", "cumulative_difficulty", "_"} {
		s.Set(n, NewUint8(1))
	}
	s.Set("top_id", NewString("x"))
	var names []string
	for _, e := range s.Entries {
		names = append(names, e.Name)
	}
	if got := strings.Join(names, " "); got != "_ cumulative_difficulty cumulative_difficulty_top64 current_height top_id" {
		t.Errorf("order: %s", got)
	}
	if v, _ := s.Get("top_id"); string(v.Bytes) != "x" {
		t.Error("Set did not replace")
	}

	g := Section{Entries: []Entry{
		{"u8", NewUint8(200)},
		{"i8neg", NewInt8(-1)},
		{"i64", NewInt64(70000)},
		{"u64big", NewUint64(math.MaxUint64)},
		{"digits", NewString("18446744073709551615")},
		{"digits_over", NewString("18446744073709551616")},
		{"notdigits", NewString("12a")},
		{"empty", NewString("")},
		{"bool", NewBool(true)},
		{"dbl", NewDouble(2.5)},
		{"obj", NewObject(Section{Entries: []Entry{{"k", NewUint8(1)}}})},
		{"objs", NewObjectArray([]Section{{}, {}})},
		{"strs", NewBlobArray([][]byte{[]byte("a")})},
	}}
	check := func(what string, err, want error) {
		t.Helper()
		if !errors.Is(err, want) {
			t.Errorf("%s: %v, want %v", what, err, want)
		}
	}
	n64, err := g.GetUint64("u8")
	check("u8 as u64", err, nil)
	if n64 != 200 {
		t.Error(n64)
	}
	_, err = g.GetUint8("u8")
	check("u8 as u8", err, nil)
	_, err = g.GetUint64("i8neg")
	check("negative as unsigned", err, ErrOutOfRange)
	_, err = g.GetUint16("i64")
	check("70000 as u16", err, ErrOutOfRange)
	n32, err := g.GetUint32("i64")
	check("70000 as u32", err, nil)
	if n32 != 70000 {
		t.Error(n32)
	}
	_, err = g.GetInt64("u64big")
	check("2^64-1 as i64", err, ErrOutOfRange)
	i64, err := g.GetInt64("i8neg")
	check("i8 as i64", err, nil)
	if i64 != -1 {
		t.Error(i64)
	}
	n64, err = g.GetUint64("digits")
	check("digits", err, nil)
	if n64 != math.MaxUint64 {
		t.Error(n64)
	}
	_, err = g.GetUint64("digits_over")
	check("digits overflow", err, ErrOutOfRange)
	_, err = g.GetUint64("notdigits")
	check("not digits", err, ErrWrongType)
	_, err = g.GetUint64("empty")
	check("empty string", err, ErrWrongType)
	_, err = g.GetUint32("digits")
	check("digits as u32", err, ErrWrongType)
	_, err = g.GetUint64("bool")
	check("bool as u64", err, ErrWrongType)
	_, err = g.GetUint64("dbl")
	check("double as u64", err, ErrWrongType)
	_, err = g.GetUint64("obj")
	check("object as u64", err, ErrWrongType)
	_, err = g.GetUint64("nothing")
	check("missing", err, ErrMissing)
	b, err := g.GetBool("bool")
	check("bool", err, nil)
	if !b {
		t.Error("bool")
	}
	_, err = g.GetBool("u8")
	check("u8 as bool", err, ErrWrongType)
	f, err := g.GetDouble("dbl")
	check("double", err, nil)
	if f != 2.5 {
		t.Error(f)
	}
	str, err := g.GetString("digits")
	check("string", err, nil)
	if str != "18446744073709551615" {
		t.Error(str)
	}
	_, err = g.GetBlob("u8")
	check("u8 as blob", err, ErrWrongType)
	sec, err := g.GetSection("obj")
	check("section", err, nil)
	if len(sec.Entries) != 1 {
		t.Error(sec)
	}
	secs, err := g.GetSectionArray("objs")
	check("section array", err, nil)
	if len(secs) != 2 {
		t.Error(secs)
	}
	_, err = g.GetSectionArray("strs")
	check("strings as sections", err, ErrWrongType)
	blobs, err := g.GetBlobArray("strs")
	check("blob array", err, nil)
	if len(blobs) != 1 || string(blobs[0]) != "a" {
		t.Error(blobs)
	}
	var fe *FieldError
	if _, err := g.GetUint8("i64"); !errors.As(err, &fe) || fe.Path != "i64" {
		t.Errorf("FieldError: %v", err)
	}
}

// TestEncodeSize: the size pass matches what Encode writes.
func TestEncodeSize(t *testing.T) {
	for _, s := range []Section{{}, allTypes(), fullHandshakeResponse(250).ToSection()} {
		blob, err := Encode(s)
		if err != nil {
			t.Fatal(err)
		}
		if n := len(storageHeader) + sectionSize(s, 0); n != len(blob) || cap(blob) != len(blob) {
			t.Errorf("size pass %d, encoded %d (cap %d)", n, len(blob), cap(blob))
		}
	}
}
