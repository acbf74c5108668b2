package epeejson

import (
	"strconv"
	"strings"
	"testing"
)

// compact renders a value as monerod would hold it (effective members, sorted)
// in a short typed notation for test tables: u1 (uint64), i-1 (int64), d1.5
// (double, %.6g), "s" (string, Go-quoted), true/false, [..], {name:value,..}.
func compact(v Value) string {
	var b strings.Builder
	var walk func(v Value)
	walk = func(v Value) {
		switch v.Kind {
		case KindObject:
			b.WriteByte('{')
			for i, m := range effectiveMembers(v.Obj) {
				if i > 0 {
					b.WriteByte(',')
				}
				b.WriteString(m.Name)
				b.WriteByte(':')
				walk(m.Value)
			}
			b.WriteByte('}')
		case KindArray:
			b.WriteByte('[')
			for i, e := range v.Arr {
				if i > 0 {
					b.WriteByte(',')
				}
				walk(e)
			}
			b.WriteByte(']')
		case KindString:
			b.WriteString(strconv.Quote(v.Str))
		case KindUint:
			b.WriteString("u" + strconv.FormatUint(v.Uint, 10))
		case KindInt:
			b.WriteString("i" + strconv.FormatInt(v.Int, 10))
		case KindDouble:
			b.WriteString("d" + string(appendDouble(nil, v.Double)))
		case KindBool:
			b.WriteString(strconv.FormatBool(v.Bool))
		default:
			b.WriteString("?")
		}
	}
	walk(v)
	return b.String()
}

// TestParseFromSource covers parser behaviours no capture exercises. The
// expectations follow run_handler (portable_storage_from_json.h),
// match_string2/match_number2/match_word2 (parserse_base_utils.cpp), the
// portable_storage insert functions and glibc's strto* (all v0.18.0.0).
// want "ERR" means monerod answers -32700.
func TestParseFromSource(t *testing.T) {
	for _, c := range parseCases {
		v, err := Parse([]byte(c.in))
		got := "ERR"
		if err == nil {
			got = compact(v)
		} else if _, ok := err.(*SyntaxError); !ok {
			t.Errorf("%q: error %T is not *SyntaxError", c.in, err)
		}
		if got != c.want {
			t.Errorf("Parse(%q) = %s, want %s (err %v)", c.in, got, c.want, err)
		}
	}
}

// parseCases are TestParseFromSource's inputs and results (also fuzz seeds).
var parseCases = []struct{ in, want string }{
	// top level
	{"", "{}"},
	{" \t\r\n\v\f", "{}"}, // the lut's whitespace includes \v and \f
	{"\u00a0{}", "ERR"},   // no other whitespace
	{`{}`, "{}"},
	{`{} {"a":1}`, "{}"}, // anything after the top-level } is ignored
	{`{}]`, "{}"},
	{`[]`, "ERR"},
	{`{"a":1}}`, "{a:u1}"},
	{`{"a":1,}`, "{a:u1}"}, // after ',' a '}' ends the object
	{`{,}`, "ERR"},
	{`{"a":1,,"b":2}`, "ERR"},
	{`{"a" : 1 , "b"	:	2}`, "{a:u1,b:u2}"},
	{`{"a"1}`, "ERR"},
	{`{"a":}`, "ERR"},
	{`{a:1}`, "ERR"},
	{`{'a':1}`, "ERR"},
	// EOF between tokens is accepted, inside a token it is not
	{`{`, "{}"},
	{`{"a"`, "{}"},
	{`{"a":`, "{}"},
	{`{"a":"x"`, `{a:"x"}`},
	{`{"a":"x",`, `{a:"x"}`},
	{`{"a":"x`, "ERR"},
	{`{"a`, "ERR"},
	{`{"a":1`, "ERR"}, // a number needs a following byte
	{`{"a":1 `, "{a:u1}"},
	{`{"a":true`, "ERR"},
	{`{"a":true `, "{a:true}"},
	{`{"a":[`, "{}"},
	{`{"a":["x"`, `{a:["x"]}`},
	{`{"a":["x",`, `{a:["x"]}`},
	{`{"a":[1,`, "{a:[u1]}"},
	{`{"a":[{`, "{a:[{}]}"},
	{`{"a":[{},{ `, "{a:[{},{}]}"},
	{`{"a":{`, "{a:{}}"},
	{`{"a":{ `, "{a:{}}"},
	{`{"a":{"b":1}`, "{a:{b:u1}}"},
	{`{"a":{}`, "{a:{}}"},
	// A nested object cut off by EOF leaves the parent's cursor on its '{':
	// the parent re-scans what follows and trips over the first name.
	{`{"a":{"b"`, "ERR"},
	{`{"a":{"b":"x"`, "ERR"},
	{`{"a":[{"b":"x"`, "ERR"},
	{`{"a":{"b":{`, "ERR"},
	// words
	{`{"a":TRUE,"b":False,"c":nULL}`, "{a:true,b:false}"},
	{`{"a":nul}`, "ERR"},
	{`{"a":truex}`, "ERR"},
	{`{"a":true1}`, "ERR"},
	{`{"a":[null]}`, "ERR"}, // only true/false start an array of words
	{`{"a":[true,FALSE]}`, "{a:[true,false]}"},
	// null and [] store nothing, not even over an earlier value
	{`{"a":null}`, "{}"},
	{`{"a":1,"a":null}`, "{a:u1}"},
	{`{"a":[]}`, "{}"},
	{`{"a":[ ]}`, "{}"},
	{`{"a":1,"a":[]}`, "{a:u1}"},
	{`{"a":[1],"a":[]}`, "{a:[u1]}"},
	// duplicates: last wins, objects after objects merge (open_section)
	{`{"a":1,"a":"x"}`, `{a:"x"}`},
	{`{"a":{"x":1},"a":{"y":2}}`, "{a:{x:u1,y:u2}}"},
	{`{"a":{"x":1},"a":{"x":2}}`, "{a:{x:u2}}"},
	{`{"a":{"x":1},"a":5,"a":{"y":2}}`, "{a:{y:u2}}"},
	{`{"a":{"b":{"x":1}},"a":{"b":{"y":2}}}`, "{a:{b:{x:u1,y:u2}}}"},
	{`{"a":[{"x":1}],"a":{"y":2}}`, "{a:{y:u2}}"},
	{`{"a":{"x":1},"a":[{"y":2}]}`, "{a:[{y:u2}]}"},
	// empty names: scalars vanish, containers are errors
	{`{"":1,"b":2}`, "{b:u2}"},
	{`{"":"x","":true,"":null,"":[]}`, "{}"},
	{`{"":{}}`, "ERR"},
	{`{"":[1]}`, "ERR"},
	{`{"":[{}]}`, "ERR"},
	{`{"a":{"":1}}`, "{a:{}}"},
	// numbers: literal = [-]{0-9+-.eE}*, converted by strtoull/strtoll/strtod
	{`{"a":0,"b":-0,"c":-0.0,"d":0.0}`, "{a:u0,b:i0,c:d-0,d:d0}"},
	{`{"a":007}`, "{a:u7}"},
	{`{"a":18446744073709551615}`, "{a:u18446744073709551615}"},
	{`{"a":18446744073709551616}`, "ERR"},
	{`{"a":000000000000000000000000000001}`, "{a:u1}"},
	{`{"a":-9223372036854775808}`, "{a:i-9223372036854775808}"},
	{`{"a":-9223372036854775809}`, "ERR"},
	{`{"a":1-2}`, "{a:u1}"},  // strtoull stops at '-'
	{`{"a":1+}`, "{a:u1}"},   //
	{`{"a":-}`, "{a:i0}"},    // strtoll: no digits, 0, no errno
	{`{"a":--5}`, "{a:i0}"},  //
	{`{"a":-+5}`, "{a:i0}"},  //
	{`{"a":-5-}`, "{a:i-5}"}, //
	{`{"a":1.}`, "{a:d1}"},
	{`{"a":.5}`, "ERR"}, // a value cannot start with '.'
	{`{"a":-.5}`, "{a:d-0.5}"},
	{`{"a":-.}`, "{a:d0}"}, // strtod: no conversion, +0
	{`{"a":1e}`, "{a:d1}"},
	{`{"a":1e+}`, "{a:d1}"},
	{`{"a":1E2}`, "{a:d100}"},
	{`{"a":1.5.5}`, "{a:d1.5}"},
	{`{"a":1e5e5}`, "{a:d100000}"},
	{`{"a":2e-3}`, "{a:d0.002}"},
	{`{"a":123456789.123}`, "{a:d1.23457e+08}"},
	{`{"a":1e308}`, "{a:d1e+308}"},
	{`{"a":1e309}`, "ERR"},  // ERANGE overflow
	{`{"a":-1e309}`, "ERR"}, //
	{`{"a":1e-307}`, "{a:d1e-307}"},
	{`{"a":1e-310}`, "ERR"}, // ERANGE: inexact subnormal
	{`{"a":1e-400}`, "ERR"}, // ERANGE: underflow to 0
	{`{"a":0e-400}`, "{a:d0}"},
	{`{"a":0.0000e99999}`, "{a:d0}"},
	{`{"a":1e99999999999999999999}`, "ERR"},
	{`{"a":1x}`, "ERR"},
	{`{"a":0x10}`, "ERR"},
	{`{"a":+1}`, "ERR"},
	{`{"a":Infinity}`, "ERR"},
	{`{"a":NaN}`, "ERR"},
	// strings
	{`{"a":"\b\f\n\r\t\v\'\"\\\/"}`, `{a:"\b\f\n\r\t\v'\"\\/"}`},
	{`{"a":"\q\0\x"}`, `{a:"q0x"}`}, // unknown escapes keep the byte
	{`{"a":"\u0041\u00e9\u20ac\uFFFF"}`, `{a:"Aé€\uffff"}`},
	{`{"a":"\ud83d\ude00"}`, `{a:"\xed\xa0\xbd\xed\xb8\x80"}`}, // no surrogate pairing
	{`{"a":"\u0000"}`, `{a:"\x00"}`},
	{`{"a":"\u12"}`, "ERR"},
	{`{"a":"\u123"}`, "ERR"},
	{`{"a":"\u123g"}`, "ERR"},
	{`{"a":"\u1234`, "ERR"},
	{`{"a":"\`, "ERR"},
	{"{\"a\":\"\x01\r\n\t\xff\xfe\"}", `{a:"\x01\r\n\t\xff\xfe"}`}, // raw bytes are taken verbatim
	{`{"\u0061":1}`, "{a:u1}"},
	// arrays
	{`{"a":[1,2,3]}`, "{a:[u1,u2,u3]}"},
	{`{"a":[-1,-2]}`, "{a:[i-1,i-2]}"},
	{`{"a":[1.5,2e0]}`, "{a:[d1.5,d2]}"},
	{`{"a":[1,-1]}`, "ERR"}, // insert_next_value checks the storage type
	{`{"a":[-1,1]}`, "ERR"},
	{`{"a":[1,1.5]}`, "ERR"},
	{`{"a":[1.5,1]}`, "ERR"},
	{`{"a":[-0,-1]}`, "{a:[i0,i-1]}"},
	{`{"a":[1,"x"]}`, "ERR"},
	{`{"a":["x",1]}`, "ERR"},
	{`{"a":[true,1]}`, "ERR"},
	{`{"a":[{},1]}`, "ERR"},
	{`{"a":[{"b":1},{"b":2}]}`, "{a:[{b:u1},{b:u2}]}"},
	{`{"a":[[1]]}`, "ERR"},
	{`{"a":[1,[1]]}`, "ERR"},
	{`{"a":[1,]}`, "ERR"},
	{`{"a":[,1]}`, "ERR"},
	{`{"a":[1 2]}`, "ERR"},
	{`{"a":[ 1 , 2 ]}`, "{a:[u1,u2]}"},
	{`{"a":["x"],"a":[1]}`, "{a:[u1]}"},
}

// TestParseDepth: run_handler refuses recursion 100, the top level being 0, so
// 100 nested objects parse and 101 do not; arrays do not count, their objects
// do.
func TestParseDepth(t *testing.T) {
	nest := func(n int, open, close string) []byte {
		return []byte(strings.Repeat(open, n-1) + "{}" + strings.Repeat(close, n-1))
	}
	if _, err := Parse(nest(100, `{"a":`, `}`)); err != nil {
		t.Errorf("100 levels: %v", err)
	}
	if _, err := Parse(nest(101, `{"a":`, `}`)); err == nil {
		t.Error("101 levels accepted")
	}
	if _, err := Parse(nest(100, `{"a":[`, `]}`)); err != nil {
		t.Errorf("100 levels through arrays: %v", err)
	}
	if _, err := Parse(nest(101, `{"a":[`, `]}`)); err == nil {
		t.Error("101 levels through arrays accepted")
	}
	// Deep input far beyond the limit fails fast without exhausting the stack.
	if _, err := Parse([]byte(strings.Repeat(`{"a":`, 1<<20))); err == nil {
		t.Error("deep input accepted")
	}
}

// TestSyntaxErrorOffset checks that errors say where parsing stopped.
func TestSyntaxErrorOffset(t *testing.T) {
	for _, c := range []struct {
		in     string
		offset int
	}{
		{`x`, 0},
		{`{"a":1,x}`, 7},
		{`{"a":[1,-1]}`, 8},
		{`{"a":"x`, 7},
		{`{"a":1e999}`, 5},
	} {
		_, err := Parse([]byte(c.in))
		se, ok := err.(*SyntaxError)
		if !ok || se.Offset != c.offset {
			t.Errorf("Parse(%q): %v, want a SyntaxError at %d", c.in, err, c.offset)
		}
		if ok && !strings.Contains(se.Error(), strconv.Itoa(c.offset)) {
			t.Errorf("Parse(%q): message %q lacks the offset", c.in, se.Error())
		}
	}
}

// TestGet checks Get on non-objects and the no-allocation path.
func TestGet(t *testing.T) {
	v, err := Parse([]byte(`{"id":"0","params":{"height":1},"params":{"x":2}}`))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := (Value{Kind: KindString}).Get("id"); ok {
		t.Error("Get on a string found a member")
	}
	if _, ok := v.Get("nope"); ok {
		t.Error("found a missing member")
	}
	if p, _ := v.Get("params"); compact(p) != "{height:u1,x:u2}" {
		t.Errorf("params = %s", compact(p))
	}
	if raceEnabled {
		t.Log("Get's allocations not counted under the race detector")
	} else if n := testing.AllocsPerRun(100, func() { v.Get("id") }); n != 0 {
		t.Errorf("Get allocates %v times", n)
	}
}

// A body of tiny values beyond MaxValues is refused rather than parsed into
// about 100 bytes per value.
func TestTooManyValues(t *testing.T) {
	for _, body := range []string{
		`{"a":[` + strings.Repeat("1,", MaxValues) + `1]}`,
		`{` + strings.Repeat(`"a":1,`, MaxValues) + `"a":1}`,
		`{` + strings.Repeat(`"a":{},`, MaxValues) + `"a":{}}`,
	} {
		if _, err := Parse([]byte(body)); err == nil || !strings.Contains(err.Error(), "too many values") {
			t.Errorf("%.20s...: %v", body, err)
		}
	}
	ok := `{"hashes":[` + strings.Repeat(`"ab",`, 1000) + `"ab"]}`
	if _, err := Parse([]byte(ok)); err != nil {
		t.Errorf("1001 hashes: %v", err)
	}
}
