package epeejson

import (
	"math"
	"strconv"
)

// Writer produces monerod's exact output format (dump_as_json in
// portable_storage_to_json.h):
//
//   - An object is "{" CRLF, then one line per member, indented two spaces per
//     level, `"name": value`, with "," ending every member line but the last,
//     then the closing "}" at the parent's indentation; no newline after the
//     outermost "}". An empty object is "{" CRLF + indentation + "}".
//   - Arrays are on one line, elements joined by "," without spaces. Objects in
//     an array take the indentation of a member object of the array's owner,
//     giving `"list": [{` CRLF … `},{` CRLF … `}]`.
//   - Strings and names: \b \f \n \r \t \v " \ and / are escaped, every other
//     byte is copied raw (transform_to_escape_sequence).
//   - Integers in decimal; booleans true/false; doubles like C++ ostream << with
//     its default precision 6 (printf "%.6g").
//
// The caller writes object members in sorted (byte-wise) order and leaves out
// empty arrays, as epee's std::map and KV_SERIALIZE do; the Writer does not sort
// (except in Value) nor check the sequence of calls. It appends to a reused
// buffer and allocates nothing in steady state.
type Writer struct {
	buf   []byte
	stack []frame
}

// frame is one open object or array.
type frame struct {
	// indent is the level of the object's closing brace (its members sit one
	// level deeper); for an array, the level given to objects inside it.
	indent int
	count  int // members or elements written so far
	array  bool
}

// NewWriter returns a Writer that appends to buf[:0].
func NewWriter(buf []byte) *Writer {
	return &Writer{buf: buf[:0], stack: make([]frame, 0, 8)}
}

// Bytes returns the output so far.
func (w *Writer) Bytes() []byte { return w.buf }

// Reset discards the output and open containers and appends to buf[:0] from now
// on (pass w.Bytes() to reuse the buffer).
func (w *Writer) Reset(buf []byte) {
	w.buf = buf[:0]
	w.stack = w.stack[:0]
}

// value prepares for a value and returns the indentation level an object
// started here gets: at top level 0; as a member, one deeper than its parent
// object; in an array, the array's level (epee passes the array visitor the
// member's indentation and each element section reuses it).
func (w *Writer) value() int {
	n := len(w.stack)
	if n == 0 {
		return 0
	}
	f := &w.stack[n-1]
	if !f.array {
		return f.indent + 1 // Key has written the separator and the name
	}
	if f.count > 0 {
		w.buf = append(w.buf, ',')
	}
	f.count++
	return f.indent
}

// BeginObject opens an object.
func (w *Writer) BeginObject() {
	indent := w.value()
	w.buf = append(w.buf, '{', '\r', '\n')
	w.stack = append(w.stack, frame{indent: indent})
}

// EndObject closes the current object.
func (w *Writer) EndObject() {
	indent := 0
	if n := len(w.stack); n > 0 {
		f := w.stack[n-1]
		w.stack = w.stack[:n-1]
		if f.count > 0 {
			w.buf = append(w.buf, '\r', '\n')
		}
		indent = f.indent
	}
	w.buf = appendIndent(w.buf, indent)
	w.buf = append(w.buf, '}')
}

// BeginArray opens an array.
func (w *Writer) BeginArray() {
	indent := w.value()
	w.buf = append(w.buf, '[')
	w.stack = append(w.stack, frame{indent: indent, array: true})
}

// EndArray closes the current array.
func (w *Writer) EndArray() {
	if n := len(w.stack); n > 0 {
		w.stack = w.stack[:n-1]
	}
	w.buf = append(w.buf, ']')
}

// Key starts a member of the current object: the next value written is its
// value.
func (w *Writer) Key(name string) {
	indent := 1
	if n := len(w.stack); n > 0 {
		f := &w.stack[n-1]
		if f.count > 0 {
			w.buf = append(w.buf, ',', '\r', '\n')
		}
		f.count++
		indent = f.indent + 1
	}
	w.buf = appendIndent(w.buf, indent)
	w.buf = append(w.buf, '"')
	w.buf = appendEscaped(w.buf, name)
	w.buf = append(w.buf, '"', ':', ' ')
}

// String writes a string value.
func (w *Writer) String(s string) {
	w.value()
	w.buf = append(w.buf, '"')
	w.buf = appendEscaped(w.buf, s)
	w.buf = append(w.buf, '"')
}

// Uint writes an unsigned integer value.
func (w *Writer) Uint(v uint64) {
	w.value()
	w.buf = strconv.AppendUint(w.buf, v, 10)
}

// Int writes a signed integer value.
func (w *Writer) Int(v int64) {
	w.value()
	w.buf = strconv.AppendInt(w.buf, v, 10)
}

// Bool writes true or false.
func (w *Writer) Bool(b bool) {
	w.value()
	if b {
		w.buf = append(w.buf, "true"...)
	} else {
		w.buf = append(w.buf, "false"...)
	}
}

// Double writes a double the way a C++ ostream with default flags does: "%.6g"
// (1.5, 0.1, 3.14159, 1000, 1e+300, -0, 1.23457e+08, 1e-05; inf, -inf, nan and
// -nan as glibc prints them).
func (w *Writer) Double(f float64) {
	w.value()
	w.buf = appendDouble(w.buf, f)
}

// KeyString is Key(name) followed by String(s).
func (w *Writer) KeyString(name, s string) {
	w.Key(name)
	w.buf = append(w.buf, '"')
	w.buf = appendEscaped(w.buf, s)
	w.buf = append(w.buf, '"')
}

// KeyUint is Key(name) followed by Uint(v).
func (w *Writer) KeyUint(name string, v uint64) {
	w.Key(name)
	w.buf = strconv.AppendUint(w.buf, v, 10)
}

// KeyBool is Key(name) followed by Bool(b).
func (w *Writer) KeyBool(name string, b bool) {
	w.Key(name)
	if b {
		w.buf = append(w.buf, "true"...)
	} else {
		w.buf = append(w.buf, "false"...)
	}
}

// Value writes any value as epee would print it after storing it: object
// members sorted by name, one per name with the value Get returns (last
// duplicate wins; consecutive duplicate objects merge), members with an empty
// name or an empty array left out (epee never stores those from JSON).
// The zero Value (Kind 0) is written as 0, like a default-constructed epee
// storage_entry (uint64_t 0) — which is what monerod echoes for a missing id.
func (w *Writer) Value(v Value) {
	switch v.Kind {
	case KindObject:
		w.BeginObject()
		for _, m := range effectiveMembers(v.Obj) {
			if m.Value.Kind == KindArray && len(m.Value.Arr) == 0 {
				continue
			}
			w.Key(m.Name)
			w.Value(m.Value)
		}
		w.EndObject()
	case KindArray:
		w.BeginArray()
		for i := range v.Arr {
			w.Value(v.Arr[i])
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
	default:
		w.Uint(0)
	}
}

const spaces = "                                                                " // 64

// appendIndent appends level × 2 spaces (make_indent).
func appendIndent(dst []byte, level int) []byte {
	n := 2 * level
	for n > len(spaces) {
		dst = append(dst, spaces...)
		n -= len(spaces)
	}
	return append(dst, spaces[:n]...)
}

// escapes maps each byte transform_to_escape_sequence escapes to the letter
// after the backslash; 0 means the byte is copied raw.
var escapes = [256]byte{
	'\b': 'b', '\f': 'f', '\n': 'n', '\r': 'r', '\t': 't', '\v': 'v',
	'"': '"', '\\': '\\', '/': '/',
}

// appendEscaped appends s escaped; runs of bytes that need no escaping are
// copied in one go.
func appendEscaped(dst []byte, s string) []byte {
	start := 0
	for i := 0; i < len(s); i++ {
		if e := escapes[s[i]]; e != 0 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', e)
			start = i + 1
		}
	}
	return append(dst, s[start:]...)
}

// appendDouble formats f as printf("%.6g") does in glibc. Go's 'g' format with
// precision 6 chooses between the two notations by the same rule (exponent < -4
// or >= precision) and also drops trailing zeros and writes at least two
// exponent digits; only the non-finite spellings differ.
func appendDouble(dst []byte, f float64) []byte {
	switch {
	case math.IsInf(f, 1):
		return append(dst, "inf"...)
	case math.IsInf(f, -1):
		return append(dst, "-inf"...)
	case math.IsNaN(f):
		if math.Signbit(f) {
			return append(dst, "-nan"...)
		}
		return append(dst, "nan"...)
	}
	return strconv.AppendFloat(dst, f, 'g', 6, 64)
}
