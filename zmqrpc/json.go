package zmqrpc

import (
	"bytes"
	"math"
	"strconv"
	"strings"
)

// The request parser follows what monerod's rapidjson 1.1 (default flags,
// iterative, in situ) accepts, because the answer to a document it refuses
// differs from the answer to one it accepts: no comments, NaN or trailing
// commas; control characters refused inside strings; a lone low surrogate
// kept (as three bytes); a number too big for a double refused; and, since
// monerod parses the message as a C string, the document ends at its first
// NUL byte. Nothing is materialised but what a method reads: a validating
// pass with a stack of one bit per level (rapidjson's iterative parser has
// no depth limit either, so a deep document must not cost a frame per
// level), then values are decoded from their byte spans on demand.

// jsonKind is the type of a value, from its first byte.
type jsonKind int

const (
	kindNull jsonKind = iota
	kindBool
	kindNumber
	kindString
	kindArray
	kindObject
)

// raw is one valid JSON value's text.
type raw []byte

func (r raw) kind() jsonKind {
	switch r[0] {
	case 'n':
		return kindNull
	case 't', 'f':
		return kindBool
	case '"':
		return kindString
	case '[':
		return kindArray
	case '{':
		return kindObject
	}
	return kindNumber
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// validate reports whether doc (already cut at its first NUL) is one JSON
// value, with only whitespace around it, as rapidjson accepts it.
func validate(doc []byte) bool {
	p := skipSpace(doc, 0)
	end, ok := scanValue(doc, p)
	if !ok {
		return false
	}
	return skipSpace(doc, end) == len(doc)
}

func skipSpace(b []byte, p int) int {
	for p < len(b) && isSpace(b[p]) {
		p++
	}
	return p
}

// scanValue validates the value starting at p (no leading space) and
// returns the offset just after it. Containers are walked with an explicit
// stack of bits (1 object, 0 array), so depth costs a bit, not a frame.
func scanValue(b []byte, p int) (int, bool) {
	var stack []uint64
	depth := 0
	push := func(obj bool) {
		if depth/64 >= len(stack) {
			stack = append(stack, 0)
		}
		if obj {
			stack[depth/64] |= 1 << (depth % 64)
		} else {
			stack[depth/64] &^= 1 << (depth % 64)
		}
		depth++
	}
	top := func() bool { d := depth - 1; return stack[d/64]&(1<<(d%64)) != 0 }
	// afterValue: a value just ended; continue the enclosing container.
	for {
		if p >= len(b) {
			return 0, false
		}
		switch c := b[p]; {
		case c == '{':
			p = skipSpace(b, p+1)
			if p < len(b) && b[p] == '}' {
				p++
				break
			}
			push(true)
			var ok bool
			if p, ok = scanKey(b, p); !ok {
				return 0, false
			}
			continue
		case c == '[':
			p = skipSpace(b, p+1)
			if p < len(b) && b[p] == ']' {
				p++
				break
			}
			push(false)
			continue
		case c == '"':
			var ok bool
			if p, ok = scanString(b, p); !ok {
				return 0, false
			}
		case c == 't':
			if !bytes.HasPrefix(b[p:], []byte("true")) {
				return 0, false
			}
			p += 4
		case c == 'f':
			if !bytes.HasPrefix(b[p:], []byte("false")) {
				return 0, false
			}
			p += 5
		case c == 'n':
			if !bytes.HasPrefix(b[p:], []byte("null")) {
				return 0, false
			}
			p += 4
		case c == '-' || (c >= '0' && c <= '9'):
			var ok bool
			if p, ok = scanNumber(b, p); !ok {
				return 0, false
			}
		default:
			return 0, false
		}
		// A value ended at p: close containers or go on to the next member.
		for {
			if depth == 0 {
				return p, true
			}
			p = skipSpace(b, p)
			if p >= len(b) {
				return 0, false
			}
			obj := top()
			if b[p] == ',' {
				p = skipSpace(b, p+1)
				if obj {
					var ok bool
					if p, ok = scanKey(b, p); !ok {
						return 0, false
					}
				}
				break
			}
			if (obj && b[p] == '}') || (!obj && b[p] == ']') {
				p++
				depth--
				continue
			}
			return 0, false
		}
	}
}

// scanKey validates `"key" :` and returns the offset of the value.
func scanKey(b []byte, p int) (int, bool) {
	if p >= len(b) || b[p] != '"' {
		return 0, false
	}
	p, ok := scanString(b, p)
	if !ok {
		return 0, false
	}
	p = skipSpace(b, p)
	if p >= len(b) || b[p] != ':' {
		return 0, false
	}
	return skipSpace(b, p+1), true
}

func hex4(b []byte, p int) (rune, bool) {
	if p+4 > len(b) {
		return 0, false
	}
	var v rune
	for _, c := range b[p : p+4] {
		v <<= 4
		switch {
		case c >= '0' && c <= '9':
			v |= rune(c - '0')
		case c >= 'a' && c <= 'f':
			v |= rune(c - 'a' + 10)
		case c >= 'A' && c <= 'F':
			v |= rune(c - 'A' + 10)
		default:
			return 0, false
		}
	}
	return v, true
}

// scanString validates the string at p (at its quote) and returns the
// offset after its closing quote.
func scanString(b []byte, p int) (int, bool) {
	_, end, ok := decodeString(b, p, false)
	return end, ok
}

// decodeString validates and, when want, decodes the string at p.
func decodeString(b []byte, p int, want bool) (string, int, bool) {
	p++
	var out []byte
	start := p
	for p < len(b) {
		c := b[p]
		switch {
		case c == '"':
			if !want {
				return "", p + 1, true
			}
			if out == nil { // no escapes: one copy
				return string(b[start:p]), p + 1, true
			}
			out = append(out, b[start:p]...)
			return string(out), p + 1, true
		case c < 0x20:
			return "", 0, false
		case c == '\\':
			if want {
				out = append(out, b[start:p]...)
			}
			if p+1 >= len(b) {
				return "", 0, false
			}
			e := b[p+1]
			p += 2
			var r rune
			switch e {
			case '"', '\\', '/':
				r = rune(e)
			case 'b':
				r = '\b'
			case 'f':
				r = '\f'
			case 'n':
				r = '\n'
			case 'r':
				r = '\r'
			case 't':
				r = '\t'
			case 'u':
				v, ok := hex4(b, p)
				if !ok {
					return "", 0, false
				}
				p += 4
				if v >= 0xD800 && v <= 0xDBFF {
					if p+2 > len(b) || b[p] != '\\' || b[p+1] != 'u' {
						return "", 0, false
					}
					v2, ok := hex4(b, p+2)
					if !ok || v2 < 0xDC00 || v2 > 0xDFFF {
						return "", 0, false
					}
					p += 6
					v = ((v-0xD800)<<10 | (v2 - 0xDC00)) + 0x10000
				}
				r = v
			default:
				return "", 0, false
			}
			if want {
				out = appendUTF8(out, r)
			}
			start = p
			continue
		}
		p++
	}
	return "", 0, false
}

// appendUTF8 encodes r as rapidjson does, surrogates included (which
// utf8.AppendRune would replace).
func appendUTF8(out []byte, r rune) []byte {
	switch {
	case r < 0x80:
		return append(out, byte(r))
	case r < 0x800:
		return append(out, 0xC0|byte(r>>6), 0x80|byte(r&0x3F))
	case r < 0x10000:
		return append(out, 0xE0|byte(r>>12), 0x80|byte(r>>6&0x3F), 0x80|byte(r&0x3F))
	}
	return append(out, 0xF0|byte(r>>18), 0x80|byte(r>>12&0x3F), 0x80|byte(r>>6&0x3F), 0x80|byte(r&0x3F))
}

// scanNumber validates rapidjson's number grammar at p.
func scanNumber(b []byte, p int) (int, bool) {
	start := p
	if b[p] == '-' {
		p++
	}
	if p >= len(b) {
		return 0, false
	}
	switch {
	case b[p] == '0':
		p++
	case b[p] >= '1' && b[p] <= '9':
		for p < len(b) && b[p] >= '0' && b[p] <= '9' {
			p++
		}
	default:
		return 0, false
	}
	if p < len(b) && b[p] == '.' {
		p++
		d := p
		for p < len(b) && b[p] >= '0' && b[p] <= '9' {
			p++
		}
		if p == d {
			return 0, false
		}
	}
	if p < len(b) && (b[p] == 'e' || b[p] == 'E') {
		p++
		if p < len(b) && (b[p] == '+' || b[p] == '-') {
			p++
		}
		d := p
		for p < len(b) && b[p] >= '0' && b[p] <= '9' {
			p++
		}
		if p == d {
			return 0, false
		}
	}
	if n := parseNumber(b[start:p]); n.double && (math.IsInf(n.f, 0) || math.IsNaN(n.f)) {
		return 0, false // rapidjson: "Number too big to be stored in double"
	}
	return p, true
}

// number is a JSON number as rapidjson classifies it: an integer that fits
// 64 bits (signed when negative) or a double.
type number struct {
	double bool
	neg    bool
	u      uint64 // magnitude of an integer
	f      float64
}

// parseNumber reads a validated number as rapidjson 1.1's reader does
// without kParseFullPrecisionFlag (monerod's flags): integers exactly while
// they fit 64 bits, then a double accumulated digit by digit (d*10+c), and
// fractions and exponents by one multiplication or division by an exact
// power of ten, which is not always the correctly rounded value.
func parseNumber(t []byte) number {
	p := 0
	minus := t[0] == '-'
	if minus {
		p++
	}
	digit := func() bool { return p < len(t) && t[p] >= '0' && t[p] <= '9' }
	var i64 uint64
	var d float64
	useDouble := false
	sig := 0
	for digit() {
		c := uint64(t[p] - '0')
		if !useDouble {
			if (minus && (i64 > 0x0CCCCCCCCCCCCCCC || (i64 == 0x0CCCCCCCCCCCCCCC && c > 8))) ||
				(!minus && (i64 > 0x1999999999999999 || (i64 == 0x1999999999999999 && c > 5))) {
				d, useDouble = float64(i64), true
			} else {
				i64 = i64*10 + c
				if i64 != 0 {
					sig++
				}
				p++
				continue
			}
		}
		if d >= 1.7976931348623157e307 {
			return number{double: true, f: math.Inf(1)}
		}
		d = d*10 + float64(c)
		p++
	}
	expFrac := 0
	if p < len(t) && t[p] == '.' {
		p++
		if !useDouble {
			for digit() && i64 <= 0x1FFFFFFFFFFFFF {
				i64 = i64*10 + uint64(t[p]-'0')
				expFrac--
				if i64 != 0 {
					sig++
				}
				p++
			}
			d, useDouble = float64(i64), true
		}
		for digit() {
			if sig < 17 {
				d = d*10 + float64(t[p]-'0')
				expFrac--
				if d > 0 {
					sig++
				}
			}
			p++
		}
	}
	exp := 0
	if p < len(t) && (t[p] == 'e' || t[p] == 'E') {
		p++
		if !useDouble {
			d, useDouble = float64(i64), true
		}
		expMinus := false
		if t[p] == '+' || t[p] == '-' {
			expMinus = t[p] == '-'
			p++
		}
		maxExp := 308 - expFrac
		for digit() {
			if expMinus && exp >= 214748364 {
				p++
				continue
			}
			exp = exp*10 + int(t[p]-'0')
			if !expMinus && exp > maxExp {
				return number{double: true, f: math.Inf(1)}
			}
			p++
		}
		if expMinus {
			exp = -exp
		}
	}
	if !useDouble {
		return number{neg: minus, u: i64}
	}
	e := exp + expFrac
	if e < -308 {
		d = fastPath(fastPath(d, -308), e+308)
	} else {
		d = fastPath(d, e)
	}
	if minus {
		d = -d
	}
	return number{double: true, f: d}
}

// fastPath is rapidjson's FastPath: one operation with the exact double
// nearest 10^|e| (its table of literals).
func fastPath(d float64, e int) float64 {
	if e < -308 {
		return 0
	}
	if e >= 0 {
		return d * pow10(e)
	}
	return d / pow10(-e)
}

func pow10(n int) float64 {
	f, _ := strconv.ParseFloat("1e"+strconv.Itoa(n), 64)
	return f
}

// object is a validated JSON object's members, in order, duplicates kept.
// A key is kept as its text between the quotes and decoded only when it
// has escapes: requests compare their few keys with plain names.
type object struct{ m []member }

type member struct {
	key raw  // the key's text between its quotes
	esc bool // whether that text has escapes
	val raw
}

// parseObject splits a validated object into members.
func parseObject(r raw) object {
	o := object{m: make([]member, 0, 8)}
	p := skipSpace(r, 1)
	if r[p] == '}' {
		return o
	}
	for {
		end, _ := scanString(r, p)
		k := r[p+1 : end-1]
		p = skipSpace(r, end)
		p = skipSpace(r, p+1) // ':'
		vend, _ := scanValue(r, p)
		o.m = append(o.m, member{key: k, esc: bytes.IndexByte(k, '\\') >= 0, val: r[p:vend]})
		p = skipSpace(r, vend)
		if r[p] == '}' {
			return o
		}
		p = skipSpace(r, p+1)
	}
}

// len is the number of members, duplicates counted.
func (o object) len() int { return len(o.m) }

// key is member i's name, decoded.
func (o object) key(i int) string {
	k := o.m[i].key
	if !o.m[i].esc {
		return string(k)
	}
	// decodeString starts at the opening quote: -1 here, the key's text
	// followed by its closing quote (the bytes after the slice).
	s, _, _ := decodeString(k[:len(k)+1:len(k)+1], -1, true)
	return s
}

// find is rapidjson's FindMember: the first member with that key.
func (o object) find(key string) (raw, bool) {
	for i := range o.m {
		if (!o.m[i].esc && string(o.m[i].key) == key) || (o.m[i].esc && o.key(i) == key) {
			return o.m[i].val, true
		}
	}
	return nil, false
}

// elements splits a validated array.
func elements(r raw) []raw {
	var out []raw
	p := skipSpace(r, 1)
	if r[p] == ']' {
		return out
	}
	for {
		end, _ := scanValue(r, p)
		out = append(out, r[p:end])
		p = skipSpace(r, end)
		if r[p] == ']' {
			return out
		}
		p = skipSpace(r, p+1)
	}
}

// cString is what monerod reads of a string through GetString() into a
// std::string: up to its first NUL.
func cString(s string) string {
	if i := strings.IndexByte(s, 0); i >= 0 {
		return s[:i]
	}
	return s
}

// writeString appends s as rapidjson's Writer writes it: '"' and '\\'
// escaped, control characters as \b \t \n \f \r or \u00XX (capitals),
// everything else (DEL, '/', any other byte) as is.
func writeString(out []byte, s string) []byte {
	const hexd = "0123456789ABCDEF"
	out = append(out, '"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			out = append(out, '\\', c)
		case c == '\b':
			out = append(out, '\\', 'b')
		case c == '\t':
			out = append(out, '\\', 't')
		case c == '\n':
			out = append(out, '\\', 'n')
		case c == '\f':
			out = append(out, '\\', 'f')
		case c == '\r':
			out = append(out, '\\', 'r')
		case c < 0x20:
			out = append(out, '\\', 'u', '0', '0', hexd[c>>4], hexd[c&15])
		default:
			out = append(out, c)
		}
	}
	return append(out, '"')
}

// writeNumber appends n as rapidjson's Writer writes the value its Reader
// produced: integers in decimal ("-0" is the integer 0), doubles in
// rapidjson's dtoa layout ("100.0", "1.5", "1e30", "1.5e-7").
func writeNumber(out []byte, n number) []byte {
	if !n.double {
		if n.neg && n.u != 0 {
			out = append(out, '-')
		}
		return strconv.AppendUint(out, n.u, 10)
	}
	return writeDouble(out, n.f)
}

func writeDouble(out []byte, f float64) []byte {
	if f == 0 {
		if math.Signbit(f) {
			return append(out, "-0.0"...)
		}
		return append(out, "0.0"...)
	}
	if f < 0 {
		out = append(out, '-')
		f = -f
	}
	// Grisu2's digits, laid out as rapidjson's Prettify does (k: the
	// exponent of the last digit, kk: of the decimal point).
	digitBytes, k := grisu2(f)
	digits := string(digitBytes)
	length := len(digits)
	kk := length + k
	switch {
	case k >= 0 && kk <= 21:
		out = append(out, digits...)
		for i := length; i < kk; i++ {
			out = append(out, '0')
		}
		return append(out, '.', '0')
	case kk > 0 && kk <= 21:
		out = append(out, digits[:kk]...)
		out = append(out, '.')
		return append(out, digits[kk:]...)
	case kk > -6 && kk <= 0:
		out = append(out, '0', '.')
		for i := kk; i < 0; i++ {
			out = append(out, '0')
		}
		return append(out, digits...)
	case length == 1:
		out = append(out, digits...)
		out = append(out, 'e')
		return strconv.AppendInt(out, int64(kk-1), 10)
	}
	out = append(out, digits[0], '.')
	out = append(out, digits[1:]...)
	out = append(out, 'e')
	return strconv.AppendInt(out, int64(kk-1), 10)
}

// echo re-serialises a validated scalar (an id) as monerod's writer would.
func echo(out []byte, r raw) []byte {
	switch r.kind() {
	case kindString:
		s, _, _ := decodeString(r, 0, true)
		return writeString(out, s)
	case kindNumber:
		return writeNumber(out, parseNumber(r))
	}
	return append(out, r...)
}
