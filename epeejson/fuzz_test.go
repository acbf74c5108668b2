package epeejson

import (
	"bytes"
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
