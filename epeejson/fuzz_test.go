package epeejson

import (
	"bytes"
	"reflect"
	"runtime"
	"strings"
	"testing"
)

// FuzzParse: Parse never panics and reports only *SyntaxError; whatever it
// accepts, Writer.Value prints, and Parse reads that output back to the same
// value. "Same" is as monerod stores it (duplicates resolved) with numbers
// compared by their printed form, because printing is lossy where monerod's is:
// doubles keep 6 digits and a double that prints without '.', 'e' or 'E' reads
// back as an integer, and "-0" (the double -0.0, or the int64 from the literal
// -0) reads back as int64 0, which prints as 0. Two outputs monerod's own
// parser would reject are tolerated: an array of numbers whose printed
// elements read back as different number types ([1.5,2.0] prints [1.5,2],
// [-0,-1] prints [0,-1]), and a double printed below DBL_MIN (2.22507e-308),
// which strtod rejects as an inexact underflow.
func FuzzParse(f *testing.F) {
	for _, c := range parseCases {
		f.Add([]byte(c.in))
	}
	for _, r := range parsedRequests(f) {
		f.Add(r.body)
	}
	for _, c := range capturedBodies(f) {
		if len(c.body) < 8<<10 {
			f.Add(c.body)
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		v, err := Parse(b)
		if err != nil {
			se, ok := err.(*SyntaxError)
			if !ok {
				t.Fatalf("error %T %v is not *SyntaxError", err, err)
			}
			if se.Offset < 0 || se.Offset > len(b) {
				t.Fatalf("offset %d outside the %d-byte input", se.Offset, len(b))
			}
			return
		}
		if v.Kind != KindObject {
			t.Fatalf("top level %v", v.Kind)
		}
		out := writeValue(v)
		again, err := Parse(out)
		if err != nil {
			if unreadableNumbers(v) {
				return
			}
			t.Fatalf("output does not parse: %v\ninput %q\noutput %q", err, b, out)
		}
		if why := sameStoredValue(v, again); why != "" {
			t.Fatalf("%s\ninput %q\noutput %q", why, b, out)
		}
	})
}

// numberText is how a number prints, -0 and 0 being the same number.
func numberText(v Value) (string, bool) {
	var s string
	switch v.Kind {
	case KindUint, KindInt, KindDouble:
		s = string(writeValue(v))
	default:
		return "", false
	}
	if s == "-0" {
		s = "0"
	}
	return s, true
}

// sameStoredValue compares a parsed value with the parse of its output ("" if
// equal, else why not).
func sameStoredValue(a, b Value) string {
	if na, ok := numberText(a); ok {
		if nb, ok := numberText(b); !ok || na != nb {
			return "number " + na + " read back as " + compact(b)
		}
		return ""
	}
	if a.Kind != b.Kind {
		return "kind " + a.Kind.String() + " read back as " + b.Kind.String()
	}
	switch a.Kind {
	case KindString:
		if a.Str != b.Str {
			return "string " + compact(a) + " read back as " + compact(b)
		}
	case KindBool:
		if a.Bool != b.Bool {
			return "bool changed"
		}
	case KindArray:
		if len(a.Arr) != len(b.Arr) {
			return "array length changed"
		}
		for i := range a.Arr {
			if why := sameStoredValue(a.Arr[i], b.Arr[i]); why != "" {
				return why
			}
		}
	case KindObject:
		ma, mb := effectiveMembers(a.Obj), effectiveMembers(b.Obj)
		if len(ma) != len(mb) {
			return "object " + compact(a) + " read back as " + compact(b)
		}
		for i := range ma {
			if ma[i].Name != mb[i].Name {
				return "member " + ma[i].Name + " read back as " + mb[i].Name
			}
			if why := sameStoredValue(ma[i].Value, mb[i].Value); why != "" {
				return ma[i].Name + ": " + why
			}
		}
	}
	return ""
}

// unreadableNumbers reports whether v holds a number whose printed form
// monerod's parser would reject: a double alone (strtod underflow), or any
// number in an array whose printed elements are numbers of different types.
func unreadableNumbers(v Value) bool {
	switch v.Kind {
	case KindDouble:
		_, ok := strtod(string(appendDouble(nil, v.Double)))
		return !ok
	case KindObject:
		for _, m := range effectiveMembers(v.Obj) {
			if unreadableNumbers(m.Value) {
				return true
			}
		}
	case KindArray:
		kinds := map[Kind]bool{}
		for _, e := range v.Arr {
			if unreadableNumbers(e) {
				return true
			}
			if e.Kind == KindUint || e.Kind == KindInt || e.Kind == KindDouble {
				s := string(writeValue(e))
				switch {
				case strings.ContainsAny(s, ".eE"):
					kinds[KindDouble] = true
				case s[0] == '-':
					kinds[KindInt] = true
				default:
					kinds[KindUint] = true
				}
			}
		}
		return len(kinds) > 1
	}
	return false
}

// FuzzWriterString: any string written as a value and as a member name reads
// back unchanged, and the escaping matches a plain restatement of
// transform_to_escape_sequence byte by byte.
func FuzzWriterString(f *testing.F) {
	for _, s := range []string{"", "abc", "a\"b\\c/d\n\u00e9\x01", "q\"s/\u00e9\x01<>", "\b\f\n\r\t\v", "\xff\xfe\x00", "</script>"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var want bytes.Buffer
		for i := 0; i < len(s); i++ {
			switch c := s[i]; c {
			case '\b':
				want.WriteString(`\b`)
			case '\f':
				want.WriteString(`\f`)
			case '\n':
				want.WriteString(`\n`)
			case '\r':
				want.WriteString(`\r`)
			case '\t':
				want.WriteString(`\t`)
			case '\v':
				want.WriteString(`\v`)
			case '"':
				want.WriteString(`\"`)
			case '\\':
				want.WriteString(`\\`)
			case '/':
				want.WriteString(`\/`)
			default:
				want.WriteByte(c)
			}
		}
		w := NewWriter(nil)
		w.String(s)
		if got := w.Bytes(); !bytes.Equal(got, []byte(`"`+want.String()+`"`)) {
			t.Fatalf("String(%q) = %q", s, got)
		}
		w.Reset(nil)
		w.BeginObject()
		w.KeyString("k", s)
		if s != "" {
			w.KeyString(s, s)
		}
		w.EndObject()
		v, err := Parse(w.Bytes())
		if err != nil {
			t.Fatalf("%q: output %q does not parse: %v", s, w.Bytes(), err)
		}
		if got, _ := v.Get("k"); got.Kind != KindString || got.Str != s {
			t.Fatalf("value %q read back as %+v", s, got)
		}
		if s != "" {
			if got, ok := v.Get(s); !ok || got.Str != s {
				t.Fatalf("name %q not read back (%+v)", s, v.Obj)
			}
		}
	})
}

// FuzzParseShallow: ParseShallow refuses exactly what Parse refuses (but for
// Parse's too-many-values bound, which values checked and not kept do not
// count against), and what it builds is Parse's value with the shallow
// member cut one level deep, its arrays and objects left empty of their kind.
func FuzzParseShallow(f *testing.F) {
	for _, c := range parseCases {
		f.Add([]byte(c.in))
	}
	for _, r := range parsedRequests(f) {
		f.Add(r.body)
	}
	f.Add([]byte(`{"params":{"client":"x","a":[1,{"b":2}],"c":{"d":[3]}},"params":[0,0],"x":{"params":[1]}}`))
	f.Add([]byte(`{"params":{"client":{"a":1},"client":[{"x":[1,"y"]}]}}`))
	f.Add([]byte(`{"params":[{"a":{"b":[1`))
	f.Fuzz(func(t *testing.T, b []byte) {
		full, ferr := Parse(b)
		shallow, serr := ParseShallow(b, "params")
		if serr != nil {
			if _, ok := serr.(*SyntaxError); !ok {
				t.Fatalf("error %T %v is not *SyntaxError", serr, serr)
			}
			if ferr == nil {
				t.Fatalf("ParseShallow refuses what Parse accepts: %v\ninput %q", serr, b)
			}
			return
		}
		if ferr != nil {
			if !strings.Contains(ferr.Error(), "too many values") {
				t.Fatalf("Parse refuses what ParseShallow accepts: %v\ninput %q", ferr, b)
			}
			return
		}
		want := cutShallow(full, "params")
		if !reflect.DeepEqual(shallow, want) {
			t.Fatalf("shallow parse differs\ninput %q\ngot  %#v\nwant %#v", b, shallow, want)
		}
	})
}

// cutShallow is v with every top-level member called name cut one level
// deep, as ParseShallow builds it.
func cutShallow(v Value, name string) Value {
	empty := func(k Kind) Value {
		if k == KindArray {
			return Value{Kind: KindArray, Arr: []Value{}, Skipped: true}
		}
		return Value{Kind: KindObject, Obj: []Member{}, Skipped: true}
	}
	out := v
	out.Obj = make([]Member, len(v.Obj))
	copy(out.Obj, v.Obj)
	if len(v.Obj) == 0 {
		out.Obj = v.Obj
	}
	for i, m := range out.Obj {
		if m.Name != name {
			continue
		}
		switch m.Value.Kind {
		case KindArray:
			out.Obj[i].Value = empty(KindArray)
		case KindObject:
			if m.Value.Obj == nil {
				continue
			}
			inner := make([]Member, len(m.Value.Obj))
			for j, im := range m.Value.Obj {
				inner[j] = im
				if im.Value.Kind == KindArray || im.Value.Kind == KindObject {
					inner[j].Value = empty(im.Value.Kind)
				}
			}
			out.Obj[i].Value = Value{Kind: KindObject, Obj: inner}
		}
	}
	return out
}

// TestParseShallowBomb: a get_info envelope whose params are ~500,000 zeros
// (bench/abuse.sh rpc-bombs) costs about its own size, not ~100 bytes a
// value; Parse refuses it as too many values, monerod and ParseShallow
// accept it.
func TestParseShallowBomb(t *testing.T) {
	var b bytes.Buffer
	b.WriteString(`{"jsonrpc":"2.0","id":0,"method":"get_info","params":[0`)
	for b.Len() < 1<<20-4096 {
		b.WriteString(",0")
	}
	b.WriteString(`],"x":{"params":[{"a":1}]}}`)
	body := b.Bytes()
	if _, err := Parse(body); err == nil || !strings.Contains(err.Error(), "too many values") {
		t.Fatalf("Parse: %v, want too many values", err)
	}
	var v Value
	var err error
	allocs := testing.AllocsPerRun(5, func() { v, err = ParseShallow(body, "params") })
	if err != nil {
		t.Fatal(err)
	}
	if p, ok := v.Get("params"); !ok || p.Kind != KindArray || len(p.Arr) != 0 {
		t.Fatalf("params %+v %v", p, ok)
	}
	if x, _ := v.Get("x"); len(x.Obj) != 1 || x.Obj[0].Value.Kind != KindArray || len(x.Obj[0].Value.Arr) != 1 {
		t.Fatalf("a nested params is built whole: %+v", x)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, _ = ParseShallow(body, "params")
	runtime.ReadMemStats(&after)
	if n := after.TotalAlloc - before.TotalAlloc; n > 2*uint64(len(body)) {
		t.Errorf("ParseShallow allocated %d bytes for a %d-byte body", n, len(body))
	}
	if allocs > 20 {
		t.Errorf("%v allocations", allocs)
	}
}

// FuzzParseCapped: ParseCapped refuses exactly what Parse refuses (but for
// Parse's too-many-values bound), and what it builds is Parse's value with
// every top-level array member of the capped name cut to n+1 elements.
func FuzzParseCapped(f *testing.F) {
	for _, c := range parseCases {
		f.Add([]byte(c.in), uint8(1))
	}
	for _, r := range parsedRequests(f) {
		f.Add(r.body, uint8(2))
	}
	f.Add([]byte(`{"a":[{"x":[1,2]},{"y":1},{"z":{"w":"v"}}],"b":{"a":[1,2,3]},"a":[1,2,3,4]}`), uint8(0))
	f.Add([]byte(`{"a":["x","y",1]}`), uint8(0))
	f.Add([]byte(`{"a":[1,2,3`), uint8(1))
	f.Fuzz(func(t *testing.T, b []byte, n uint8) {
		keep := int(n % 4)
		full, ferr := Parse(b)
		capped, cerr := ParseCapped(b, "a", keep)
		if cerr != nil {
			if _, ok := cerr.(*SyntaxError); !ok {
				t.Fatalf("error %T %v is not *SyntaxError", cerr, cerr)
			}
			if ferr == nil {
				t.Fatalf("ParseCapped refuses what Parse accepts: %v\ninput %q", cerr, b)
			}
			return
		}
		if ferr != nil {
			if !strings.Contains(ferr.Error(), "too many values") {
				t.Fatalf("Parse refuses what ParseCapped accepts: %v\ninput %q", ferr, b)
			}
			return
		}
		want := full
		if len(full.Obj) > 0 {
			want.Obj = make([]Member, len(full.Obj))
			copy(want.Obj, full.Obj)
		}
		for i, m := range want.Obj {
			if m.Name == "a" && m.Value.Kind == KindArray && len(m.Value.Arr) > keep+1 {
				want.Obj[i].Value.Arr = m.Value.Arr[:keep+1]
			}
		}
		if !reflect.DeepEqual(capped, want) {
			t.Fatalf("capped parse differs\ninput %q\ngot  %#v\nwant %#v", b, capped, want)
		}
	})
}
