package epeejson

import (
	"bytes"
	"strconv"
	"strings"
	"sync"
)

// SyntaxError is a body monerod's parser rejects (monerod answers -32700
// Parse error). Offset is the byte where the parser stopped.
type SyntaxError struct {
	Offset int
	Msg    string
}

func (e *SyntaxError) Error() string {
	return "epeejson: " + e.Msg + " at offset " + strconv.Itoa(e.Offset)
}

// maxRecursion is EPEE_JSON_RECURSION_LIMIT_INTERNAL: run_handler refuses to
// start a section at recursion 100, the top-level object being recursion 0.
const maxRecursion = 100

// MaxValues bounds the values one Parse builds. epee has no such limit, but a
// parsed value takes about 100 bytes, so a 1 MiB body of tiny array elements
// would cost ~100 MiB per request; no real request comes near this bound
// (1000 block hashes are 1000 values).
const MaxValues = 1 << 16

// Byte classes of epee's parse lut (parserse_base_utils.h, v0.18.0.0).
const (
	classDigit  = 1  // 0-9
	classFloat  = 2  // . e E: the literal is a double
	classAlpha  = 4  // A-Z a-z (also ::isalpha in the C locale)
	classSpace  = 8  // \t \n \v \f \r and space
	classNumber = 16 // 0-9 + - . e E: may continue a number literal
	classQuote  = 32 // " and \: end of a verbatim run inside a string
)

var lut = func() (t [256]uint8) {
	for c := '0'; c <= '9'; c++ {
		t[c] = classDigit | classNumber
	}
	for c := 'a'; c <= 'z'; c++ {
		t[c] = classAlpha
		t[c-'a'+'A'] = classAlpha
	}
	t['e'] |= classFloat | classNumber
	t['E'] |= classFloat | classNumber
	t['.'] = classFloat | classNumber
	t['+'] = classNumber
	t['-'] = classNumber
	for _, c := range "\t\n\v\f\r " {
		t[c] = classSpace
	}
	t['"'] = classQuote
	t['\\'] = classQuote
	return t
}()

func isSpace(c byte) bool { return lut[c]&classSpace != 0 }
func isDigit(c byte) bool { return lut[c]&classDigit != 0 }
func isAlpha(c byte) bool { return lut[c]&classAlpha != 0 }

// States of run_handler's match_state.
type parseState uint8

const (
	stateSectionStart      parseState = iota // match_state_lookup_for_section_start
	stateName                                // match_state_lookup_for_name
	stateSeparator                           // match_state_waiting_separator
	stateValue                               // match_state_wonder_after_separator
	stateAfterValue                          // match_state_wonder_after_value
	stateArrayStart                          // match_state_wonder_array
	stateArrayAfterValue                     // match_state_array_after_value
	stateArrayWaitingValue                   // match_state_array_waiting_value
)

// Parse parses a request body the way monerod does (load_from_json →
// run_handler in portable_storage_from_json.h):
//
//   - The top level must be an object (leading whitespace ok); bytes after its
//     closing } are ignored; an empty (or all-whitespace) body is an empty
//     object.
//   - The state machine simply stops at the end of the input, so EOF anywhere
//     between tokens is accepted: {"method":"get_info" and {"jsonrpc" (both
//     observed), {"a":["x", too. EOF inside a string, number or word is an
//     error. A nested object cut off by EOF keeps what it parsed,
//     and its parent then re-scans the bytes after that object's "{" (epee does
//     not move the parent's cursor in that case), so only "{" followed by
//     whitespace survives there.
//   - null members are dropped, and so are empty arrays (epee creates the
//     array entry with its first element); neither removes an earlier member
//     of the same name. A scalar member with an empty name is dropped (epee
//     refuses to insert it and ignores the failure); an object or non-empty
//     array with an empty name is an error (there epee checks).
//   - true/false/null are matched case-insensitively; any other word is an
//     error.
//   - Numbers: the literal is the longest run of 0-9 + - . e E after an
//     optional leading '-'; '.', 'e' or 'E' make it a double (strtod),
//     otherwise a leading '-' makes it an int64 (strtoll), else a uint64
//     (strtoull). The C functions read the longest valid prefix ("1-2" is 1,
//     "-" is 0); out of range (ERANGE: integers beyond 64 bits, doubles that
//     overflow or underflow inexactly) is an error.
//   - Strings: any byte but " and \ is taken verbatim (raw control bytes,
//     invalid UTF-8); escapes \b \f \n \r \t \v \' \" \\ \/ and \uXXXX (four hex
//     digits, encoded as UTF-8 with no surrogate pairing); any other escaped
//     byte stands for itself.
//   - Arrays hold one kind: all strings, all objects, all booleans, or numbers
//     of one storage type (an array starting with 1 cannot hold -1 or 1.5;
//     insert_next_value checks the type); arrays of arrays are errors.
//   - Objects nested more than 100 deep are an error.
//
// Members keep input order and duplicates (see Value.Get for how monerod
// resolves them). Errors are *SyntaxError. Parse never panics; memory is
// O(len(b)).
func Parse(b []byte) (Value, error) { return parse(b, "", "", 0) }

// ParseShallow accepts and refuses exactly what Parse does, but builds the
// value of every top-level member called name only one level deep: if it is
// an object, its scalar members are built, and its arrays and objects are
// checked byte for byte as Parse checks them but kept as an empty value of
// their kind (an Arr or Obj of length 0); if it is an array, the same (its
// elements are checked, not kept). The values checked and not kept cost no
// memory and do not count against MaxValues, which is why a body Parse
// refuses as too many values can pass here, as it passes in monerod.
//
// It is for a JSON-RPC envelope whose method reads only scalar params
// (get_info reads one, "client"): a megabyte of params nobody reads costs a
// scan, not ~100 bytes a value (issue 33).
func ParseShallow(b []byte, name string) (Value, error) { return parse(b, name, "", 0) }

// ParseCapped accepts and refuses exactly what Parse does, but of every
// top-level array member called name it builds only the first n+1
// elements: the rest are checked (their syntax, and that they are of the
// array's one kind) but not kept and not counted against MaxValues. A
// caller that refuses more than n elements (monerod's restricted caps:
// 100 transactions, 5,000 outputs) sees len > n and refuses for what
// a few kilobytes cost, instead of ~100 bytes a value (issue 33).
func ParseCapped(b []byte, name string, n int) (Value, error) { return parse(b, "", name, max(n, 0)) }

func parse(b []byte, shallow, capName string, capN int) (Value, error) {
	p := parserPool.Get().(*parser)
	p.src = string(b)
	p.shallow, p.capName, p.capN = shallow, capName, capN
	// Every member has a ':', so their count sizes the first slab well for
	// ordinary requests (bounded, in case the colons are inside strings).
	p.nextMemberSlab = min(max(bytes.Count(b, []byte{':'}), 1), 64)
	members, _, _, err := p.section(0, 0)
	p.release()
	if err != nil {
		return Value{}, err
	}
	return Value{Kind: KindObject, Obj: members}, nil
}

// parserPool keeps parsers for their scratch stacks.
var parserPool = sync.Pool{New: func() any { return new(parser) }}

// release empties p (keeping modest scratch capacity) and returns it to the
// pool; nothing of the parsed input stays referenced.
func (p *parser) release() {
	clear(p.members)
	clear(p.elements)
	p.members, p.elements = p.members[:0], p.elements[:0]
	if cap(p.members) > 1024 {
		p.members = nil
	}
	if cap(p.elements) > 1024 {
		p.elements = nil
	}
	p.src = ""
	p.shallow, p.inShallow, p.discard = "", false, 0
	p.capName, p.capN = "", 0
	p.values = 0
	p.memberSlab, p.elementSlab = nil, nil
	p.nextMemberSlab, p.nextElementSlab = 0, 0
	parserPool.Put(p)
}

// parser holds the input and scratch stacks shared by all nesting levels: the
// members of the open sections and the elements of the open arrays are
// collected there and copied out once into exact-size pieces of a slab.
type parser struct {
	values   int    // values built so far, against MaxValues
	src      string // a copy of the input; escape-free strings are substrings of it
	members  []Member
	elements []Value

	memberSlab      []Member // closed objects' members are carved from here
	elementSlab     []Value  // closed arrays' elements are carved from here
	nextMemberSlab  int      // least size of the next slab (they double)
	nextElementSlab int

	// ParseShallow: shallow is the top-level member built one level deep,
	// inShallow is set while its object is parsed, and discard > 0 while a
	// value is checked and not kept.
	shallow   string
	inShallow bool
	discard   int
	// ParseCapped: the top-level array member capName keeps capN+1 elements.
	capName string
	capN    int
}

// discards says whether a container value (object or array) of member name,
// found in a section at recursion, is to be checked and not kept: the
// shallow member's own array, or an array or object inside its object.
func (p *parser) discards(recursion int, name string, array bool) bool {
	if p.discard > 0 || p.shallow == "" {
		return false // already discarding (the outermost one counts), or not shallow
	}
	return (array && recursion == 0 && name == p.shallow) || (recursion == 1 && p.inShallow)
}

// keepEmpty records a discarded container at the boundary as an empty value
// of its kind, so that Value.Get sees the member with its kind (the last
// member still wins, and a scalar read of it still fails on the kind).
func (p *parser) keepEmpty(name string, kind Kind) error {
	if p.values++; p.values > MaxValues {
		return p.tooMany(0)
	}
	v := Value{Kind: kind, Skipped: true}
	if kind == KindArray {
		v.Arr = []Value{}
	} else {
		v.Obj = []Member{}
	}
	p.members = append(p.members, Member{Name: name, Value: v})
	return nil
}

func (p *parser) fail(off int, msg string) error {
	return &SyntaxError{Offset: off, Msg: msg}
}

// section is run_handler. It starts at start (the top-level input start, or the
// '{' of a nested object) and returns the object's members, the index of its
// closing '}' and closed=true, or closed=false when the input ended first.
func (p *parser) section(start int, recursion int) (obj []Member, end int, closed bool, err error) {
	if recursion >= maxRecursion {
		return nil, start, false, p.fail(start, "recursion limitation (100) exceeded")
	}
	s := p.src
	base := len(p.members)
	state := stateSectionStart
	var name string
	arrayBase := 0         // start of the current array's elements in p.elements
	var arrayKind Kind = 0 // kind of the current array's elements (numbers: their storage type)
	arrayDiscard := false  // the current array is checked, not kept (ParseShallow)
	arrayCapped := false   // the current array's later elements are checked, not kept (ParseCapped)

	i := start
	for ; i < len(s); i++ {
		c := s[i]
		switch state {
		case stateSectionStart:
			if c == '{' {
				state = stateName
			} else if !isSpace(c) {
				return nil, i, false, p.fail(i, "Wrong JSON character")
			}
		case stateName:
			switch {
			case c == '"':
				if name, i, err = p.matchString(i); err != nil {
					return nil, i, false, err
				}
				state = stateSeparator
			case c == '}':
				return p.closeSection(base), i, true, nil
			case !isSpace(c):
				return nil, i, false, p.fail(i, "Wrong JSON character")
			}
		case stateSeparator:
			if c == ':' {
				state = stateValue
			} else if !isSpace(c) {
				return nil, i, false, p.fail(i, "Wrong JSON character")
			}
		case stateValue:
			switch {
			case c == '"':
				var str string
				if str, i, err = p.matchString(i); err != nil {
					return nil, i, false, err
				}
				if err := p.setScalar(name, Value{Kind: KindString, Str: str}); err != nil {
					return nil, i, false, err
				}
				state = stateAfterValue
			case isDigit(c) || c == '-':
				var num Value
				if num, i, err = p.matchNumber(i); err != nil {
					return nil, i, false, err
				}
				if err := p.setScalar(name, num); err != nil {
					return nil, i, false, err
				}
				state = stateAfterValue
			case isAlpha(c):
				var word string
				if word, i, err = p.matchWord(i); err != nil {
					return nil, i, false, err
				}
				switch {
				case strings.EqualFold(word, "null"):
					// skipped: the member stays absent (or keeps an earlier value)
				case strings.EqualFold(word, "true"):
					if err := p.setScalar(name, Value{Kind: KindBool, Bool: true}); err != nil {
						return nil, i, false, err
					}
				case strings.EqualFold(word, "false"):
					if err := p.setScalar(name, Value{Kind: KindBool, Bool: false}); err != nil {
						return nil, i, false, err
					}
				default:
					return nil, i, false, p.fail(i, "Unknown value keyword "+strconv.Quote(word))
				}
				state = stateAfterValue
			case c == '{':
				if name == "" {
					// open_section cannot insert an empty name and run_handler throws.
					return nil, i, false, p.fail(i, "Failed to insert new section in json")
				}
				discard := p.discards(recursion, name, false)
				enter := recursion == 0 && name == p.shallow && p.shallow != ""
				if discard {
					p.discard++
				}
				p.inShallow = p.inShallow || enter
				sub, subEnd, subClosed, subErr := p.section(i, recursion+1)
				if enter {
					p.inShallow = false
				}
				if subErr != nil {
					return nil, i, false, subErr
				}
				switch {
				case discard:
					p.discard--
					if err := p.keepEmpty(name, KindObject); err != nil {
						return nil, i, false, err
					}
				case p.discard == 0:
					if p.values++; p.values > MaxValues {
						return nil, i, false, p.tooMany(i)
					}
					p.members = append(p.members, Member{Name: name, Value: Value{Kind: KindObject, Obj: sub}})
				}
				if subClosed {
					i = subEnd
				} // else: EOF inside; epee leaves the cursor on the '{' and re-scans after it
				state = stateAfterValue
			case c == '[':
				state = stateArrayStart
			case !isSpace(c):
				return nil, i, false, p.fail(i, "Wrong JSON character")
			}
		case stateAfterValue:
			switch {
			case c == ',':
				state = stateName
			case c == '}':
				return p.closeSection(base), i, true, nil
			case !isSpace(c):
				return nil, i, false, p.fail(i, "Wrong JSON character")
			}
		case stateArrayStart:
			var first Value
			switch {
			case c == '[':
				return nil, i, false, p.fail(i, "array of array not supported")
			case c == ']':
				state = stateAfterValue // empty array: nothing is stored
				continue
			case c == '{', c == '"', isDigit(c) || c == '-', isAlpha(c):
				if name == "" {
					// insert_first_value/insert_first_section fail for an empty name.
					return nil, i, false, p.fail(i, "failed to insert values entry")
				}
			case isSpace(c):
				continue
			default:
				return nil, i, false, p.fail(i, "Wrong JSON character")
			}
			arrayBase = len(p.elements)
			if arrayDiscard = p.discards(recursion, name, true); arrayDiscard {
				p.discard++
			}
			if first, i, err = p.arrayElement(i, recursion, 0); err != nil {
				return nil, i, false, err
			}
			arrayKind = first.Kind
			if p.discard == 0 {
				p.elements = append(p.elements, first)
			}
			state = stateArrayAfterValue
		case stateArrayAfterValue:
			switch {
			case c == ',':
				state = stateArrayWaitingValue
			case c == ']':
				if err := p.endArray(name, arrayBase, arrayDiscard, arrayCapped); err != nil {
					return nil, i, false, err
				}
				arrayDiscard, arrayCapped = false, false
				state = stateAfterValue
			case !isSpace(c):
				return nil, i, false, p.fail(i, "Wrong JSON character")
			}
		case stateArrayWaitingValue:
			if isSpace(c) {
				continue
			}
			if !arrayCapped && p.capName != "" && recursion == 0 && name == p.capName && p.discard == 0 && len(p.elements)-arrayBase > p.capN {
				arrayCapped = true
				p.discard++
			}
			if p.discard > 0 && (arrayKind == KindUint || arrayKind == KindInt || arrayKind == KindDouble) && (isDigit(c) || c == '-') {
				if i, err = p.skipNumber(i, arrayKind); err != nil {
					return nil, i, false, err
				}
				state = stateArrayAfterValue
				continue
			}
			var next Value
			if next, i, err = p.arrayElement(i, recursion, arrayKind); err != nil {
				return nil, i, false, err
			}
			if p.discard == 0 {
				p.elements = append(p.elements, next)
			}
			state = stateArrayAfterValue
		}
	}
	// End of input: run_handler's loop just ends without an error. An array
	// that has elements was already stored by epee.
	if state == stateArrayAfterValue || state == stateArrayWaitingValue {
		if err := p.endArray(name, arrayBase, arrayDiscard, arrayCapped); err != nil {
			return nil, i, false, err
		}
	}
	return p.closeSection(base), i, false, nil
}

// arrayElement parses one array element starting at s[i] (not a space). want
// is 0 for the first element, else the kind of the first element, which every
// later one must have (array_mode in run_handler; for numbers the storage type,
// checked by insert_next_value). It returns the index of the element's last
// byte, or of the '{' of an object cut off by EOF.
func (p *parser) arrayElement(i int, recursion int, want Kind) (Value, int, error) {
	if p.discard == 0 {
		if p.values++; p.values > MaxValues {
			return Value{}, i, p.tooMany(i)
		}
	}
	s := p.src
	start := i
	c := s[i]
	var v Value
	var err error
	switch {
	case c == '{' && (want == 0 || want == KindObject):
		sub, subEnd, subClosed, subErr := p.section(i, recursion+1)
		if subErr != nil {
			return Value{}, i, subErr
		}
		v = Value{Kind: KindObject, Obj: sub}
		if subClosed {
			i = subEnd
		}
	case c == '"' && (want == 0 || want == KindString):
		var str string
		if str, i, err = p.matchString(i); err != nil {
			return Value{}, i, err
		}
		v = Value{Kind: KindString, Str: str}
	case (isDigit(c) || c == '-') && (want == 0 || want == KindUint || want == KindInt || want == KindDouble):
		if v, i, err = p.matchNumber(i); err != nil {
			return Value{}, i, err
		}
		if want != 0 && v.Kind != want {
			return Value{}, start, p.fail(start, "Failed to insert next value (number of another type)")
		}
	case isAlpha(c) && (want == 0 || want == KindBool):
		var word string
		if word, i, err = p.matchWord(i); err != nil {
			return Value{}, i, err
		}
		switch {
		case strings.EqualFold(word, "true"):
			v = Value{Kind: KindBool, Bool: true}
		case strings.EqualFold(word, "false"):
			v = Value{Kind: KindBool, Bool: false}
		default:
			return Value{}, i, p.fail(i, "Unknown value keyword "+strconv.Quote(word))
		}
	default:
		return Value{}, i, p.fail(i, "Wrong JSON character")
	}
	return v, i, nil
}

// setScalar stores a scalar member. set_value fails for an empty name and
// run_handler ignores the failure, so such members vanish.
func (p *parser) setScalar(name string, v Value) error {
	if p.discard > 0 {
		return nil
	}
	if p.values++; p.values > MaxValues {
		return p.tooMany(0)
	}
	if name != "" {
		p.members = append(p.members, Member{Name: name, Value: v})
	}
	return nil
}

func (p *parser) tooMany(off int) error {
	return p.fail(off, "too many values (the limit is 65536)")
}

// closeSection copies the members collected since base out of the scratch
// stack.
func (p *parser) closeSection(base int) []Member {
	n := len(p.members) - base
	if n == 0 {
		return nil
	}
	if len(p.memberSlab) < n {
		size := max(n, p.nextMemberSlab)
		p.nextMemberSlab = 2 * size
		p.memberSlab = make([]Member, size)
	}
	obj := p.memberSlab[:n:n] // capped: appending to one object cannot overwrite the next
	p.memberSlab = p.memberSlab[n:]
	copy(obj, p.members[base:])
	clear(p.members[base:])
	p.members = p.members[:base]
	return obj
}

// endArray ends an array that has elements: stored (closeArray), or, if it
// was discarded, recorded empty at the boundary (nothing deeper); a capped
// array is stored with the elements it kept.
func (p *parser) endArray(name string, base int, discarded, capped bool) error {
	if discarded {
		p.discard--
		return p.keepEmpty(name, KindArray)
	}
	if capped {
		p.discard--
	}
	if p.discard == 0 {
		p.closeArray(name, base)
	}
	return nil
}

// closeArray stores the array collected since base as member name.
func (p *parser) closeArray(name string, base int) {
	n := len(p.elements) - base
	if n == 0 {
		return
	}
	if len(p.elementSlab) < n {
		size := max(n, p.nextElementSlab, 8)
		p.nextElementSlab = 2 * size
		p.elementSlab = make([]Value, size)
	}
	arr := p.elementSlab[:n:n]
	p.elementSlab = p.elementSlab[n:]
	copy(arr, p.elements[base:])
	clear(p.elements[base:])
	p.elements = p.elements[:base]
	p.members = append(p.members, Member{Name: name, Value: Value{Kind: KindArray, Arr: arr}})
}

// matchString is match_string2: s[i] is the opening quote. It returns the
// decoded string and the index of the closing quote.
func (p *parser) matchString(i int) (string, int, error) {
	s := p.src
	start := i + 1
	j := start
	for j < len(s) && lut[s[j]]&classQuote == 0 {
		j++
	}
	if j < len(s) && s[j] == '"' {
		return s[start:j], j, nil // no escapes: a substring, no copy
	}
	buf := make([]byte, 0, j-start+16)
	buf = append(buf, s[start:j]...)
	for ; j < len(s); j++ {
		c := s[j]
		if c == '"' {
			return string(buf), j, nil
		}
		if c != '\\' {
			buf = append(buf, c)
			continue
		}
		j++
		if j >= len(s) {
			break
		}
		switch e := s[j]; e {
		case 'b':
			buf = append(buf, '\b')
		case 'f':
			buf = append(buf, '\f')
		case 'n':
			buf = append(buf, '\n')
		case 'r':
			buf = append(buf, '\r')
		case 't':
			buf = append(buf, '\t')
		case 'v':
			buf = append(buf, '\v')
		case 'u':
			// Four hex digits must follow (in v0.18.0.0 the length check is one
			// short, but the byte it then reads is the NUL after the string,
			// which fails as "Bad Unicode encoding" all the same).
			if len(s)-j < 5 {
				return "", j, p.fail(j, "Invalid Unicode escape sequence")
			}
			var cp rune
			for k := 1; k <= 4; k++ {
				h := unhex(s[j+k])
				if h < 0 {
					return "", j + k, p.fail(j+k, "Bad Unicode encoding")
				}
				cp = cp<<4 | rune(h)
			}
			j += 4
			// Encoded like epee: 1-3 bytes, surrogates included (no pairing).
			switch {
			case cp <= 0x7f:
				buf = append(buf, byte(cp))
			case cp <= 0x7ff:
				buf = append(buf, 0xc0|byte(cp>>6), 0x80|byte(cp&0x3f))
			default:
				buf = append(buf, 0xe0|byte(cp>>12), 0x80|byte(cp>>6&0x3f), 0x80|byte(cp&0x3f))
			}
		default:
			// \' \" \\ \/ and unknown escapes: the byte itself.
			buf = append(buf, e)
		}
	}
	return "", len(s), p.fail(len(s), "Failed to match string in json entry")
}

func unhex(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

// matchWord is match_word2: s[i] is a letter. It returns the run of letters
// and the index of its last byte. A word running into EOF is an error.
func (p *parser) matchWord(i int) (string, int, error) {
	s := p.src
	j := i
	for j < len(s) && isAlpha(s[j]) {
		j++
	}
	if j == len(s) {
		return "", j, p.fail(j, "failed to match word number in json entry")
	}
	return s[i:j], j - 1, nil
}

// matchNumber is match_number2 plus the strtoull/strtoll/strtod conversion in
// run_handler. s[i] is a digit or '-'. It returns the value and the index of
// the literal's last byte.
func (p *parser) matchNumber(i int) (Value, int, error) {
	lit, kind, j, err := p.numberLiteral(i)
	if err != nil {
		return Value{}, j, err
	}
	v := Value{Kind: kind}
	var ok bool
	switch kind {
	case KindDouble:
		v.Double, ok = strtod(lit)
	case KindInt:
		v.Int, ok = strtoll(lit)
	default:
		v.Uint, ok = strtoull(lit)
	}
	if !ok {
		return Value{}, i, p.fail(i, "Invalid number: "+lit)
	}
	return v, j - 1, nil
}

// numberLiteral finds the number literal at s[i] and its storage type; j is
// the index after it.
func (p *parser) numberLiteral(i int) (lit string, kind Kind, j int, err error) {
	s := p.src
	j = i
	signed := false
	if s[j] == '-' {
		signed = true
		j++
	}
	isFloat := false
	for j < len(s) && lut[s[j]]&classNumber != 0 {
		if lut[s[j]]&classFloat != 0 {
			isFloat = true
		}
		j++
	}
	if j == len(s) {
		return "", 0, j, p.fail(j, "wrong number in json entry")
	}
	switch {
	case isFloat:
		kind = KindDouble
	case signed:
		kind = KindInt
	default:
		kind = KindUint
	}
	return s[i:j], kind, j, nil
}

// skipNumber checks a number that is not kept (a discarded array's later
// element) as matchNumber would, without making its Value: of kind want,
// in range. It returns the index of the literal's last byte. A megabyte of
// zeros is 500,000 of them.
func (p *parser) skipNumber(i int, want Kind) (int, error) {
	lit, kind, j, err := p.numberLiteral(i)
	if err != nil {
		return j, err
	}
	var ok bool
	switch kind {
	case KindDouble:
		_, ok = strtod(lit)
	case KindInt:
		_, ok = strtoll(lit)
	default:
		_, ok = strtoull(lit)
	}
	if !ok {
		return i, p.fail(i, "Invalid number: "+lit)
	}
	if kind != want {
		return i, p.fail(i, "Failed to insert next value (number of another type)")
	}
	return j - 1, nil
}
