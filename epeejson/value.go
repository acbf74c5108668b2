package epeejson

import (
	"errors"
	"sort"
	"time"
)

// Kind of a parsed value. JSON null members are dropped by the parser (as epee
// does), so there is no null kind.
type Kind uint8

// The kinds epee's JSON parser can produce. The number kinds follow how
// match_number2 classifies the literal, which decides the storage type
// (uint64_t, int64_t or double) and therefore what the converters accept.
const (
	KindObject Kind = iota + 1
	KindArray
	KindString
	KindUint   // a number without sign, fraction or exponent (fits uint64)
	KindInt    // a number with a leading '-' and no fraction or exponent (fits int64; "-0" gives 0)
	KindDouble // a number with '.', 'e' or 'E'
	KindBool
)

// String names the kind for messages.
func (k Kind) String() string {
	switch k {
	case KindObject:
		return "object"
	case KindArray:
		return "array"
	case KindString:
		return "string"
	case KindUint:
		return "uint"
	case KindInt:
		return "int"
	case KindDouble:
		return "double"
	case KindBool:
		return "bool"
	}
	return "invalid"
}

// Value is one parsed JSON value. Only the field that belongs to Kind is set.
type Value struct {
	Kind   Kind
	Str    string
	Uint   uint64
	Int    int64
	Double float64
	Bool   bool
	Arr    []Value
	Obj    []Member // input order, duplicates kept
}

// Member is one name/value pair of an object.
type Member struct {
	Name  string
	Value Value
}

// Get returns the member named name of an object value as monerod sees it.
//
// epee sections are std::map, so duplicate names collapse: a later scalar or
// array replaces the earlier value (portable_storage::set_value and
// insert_first_value overwrite), i.e. the LAST member wins. One refinement
// comes from portable_storage::open_section, which returns an existing section
// instead of replacing it: an object that follows an object of the same name
// is merged into it, so {"a":{"x":1},"a":{"y":2}} gives a = {"x":1,"y":2}.
// Get reproduces that by returning the concatenation of the run of objects
// ending at the last member (which allocates only in that duplicate case).
// Members that epee never stores (null, [], and scalars with an empty name)
// are already dropped by Parse.
func (v Value) Get(name string) (Value, bool) {
	if v.Kind != KindObject {
		return Value{}, false
	}
	obj := v.Obj
	for i := len(obj) - 1; i >= 0; i-- {
		if obj[i].Name == name {
			if obj[i].Value.Kind != KindObject {
				return obj[i].Value, true
			}
			return mergeObjects(obj[:i+1], name), true
		}
	}
	return Value{}, false
}

// mergeObjects returns the effective value of name when the last member of obj
// (named name) is an object: that object merged with the objects of the same
// name directly before it (a non-object member of that name in between stops
// the run, because open_section replaces a non-section entry with a new
// section).
func mergeObjects(obj []Member, name string) Value {
	last := len(obj) - 1
	first := last
	total := len(obj[last].Value.Obj)
	for i := last - 1; i >= 0; i-- {
		if obj[i].Name != name {
			continue
		}
		if obj[i].Value.Kind != KindObject {
			break
		}
		first = i
		total += len(obj[i].Value.Obj)
	}
	if first == last {
		return obj[last].Value
	}
	merged := make([]Member, 0, total)
	for i := first; i <= last; i++ {
		if obj[i].Name == name {
			merged = append(merged, obj[i].Value.Obj...)
		}
	}
	return Value{Kind: KindObject, Obj: merged}
}

// effectiveMembers returns the members of an object the way epee stores them:
// sorted by name (std::map<std::string, …> order, i.e. byte-wise), one per name,
// with the value Get would return. Members with an empty name are left out
// (epee refuses to insert them). When obj is already strictly sorted and has
// no empty names, obj itself is returned without allocating.
func effectiveMembers(obj []Member) []Member {
	clean := true
	for i := range obj {
		if obj[i].Name == "" || (i > 0 && obj[i-1].Name >= obj[i].Name) {
			clean = false
			break
		}
	}
	if clean {
		return obj
	}
	idx := make([]int, 0, len(obj))
	for i := range obj {
		if obj[i].Name != "" {
			idx = append(idx, i)
		}
	}
	// Stable: members of the same name keep their input order, which decides
	// the winner.
	sort.SliceStable(idx, func(a, b int) bool { return obj[idx[a]].Name < obj[idx[b]].Name })
	out := make([]Member, 0, len(idx))
	group := make([]Member, 0, 4)
	for g := 0; g < len(idx); {
		name := obj[idx[g]].Name
		e := g
		group = group[:0]
		for e < len(idx) && obj[idx[e]].Name == name {
			group = append(group, obj[idx[e]])
			e++
		}
		last := group[len(group)-1].Value
		if last.Kind == KindObject {
			last = mergeObjects(group, name)
		}
		out = append(out, Member{Name: name, Value: last})
		g = e
	}
	return out
}

// ErrWrongType means monerod answers -32602 Invalid params: epee's convert_t
// threw while loading the field.
var ErrWrongType = errors.New("epeejson: wrong type")

// ErrWrongShape means monerod silently ignores the member: treat the field as
// absent (it keeps its default).
var ErrWrongShape = errors.New("epeejson: wrong shape")

// AsUint64 converts a value for a uint64_t request field (height, …) like
// epee's get_value → convert_t:
//   - KindUint: the value.
//   - KindInt: accepted when not negative (convert_int_to_uint only rejects
//     values below 0; "-0" parses as int64 0 and gives 0), else ErrWrongType.
//   - KindString: a string of ASCII digits only is converted ("10" → 10,
//     observed); the empty string, a value above 2^64-1 and any other string
//     are ErrWrongType (boost::lexical_cast throws). The MyMonero ISO-8601 hack
//     is implemented too: "YYYY-MM-DDTHH:MM:SSZ" gives the Unix time, read as
//     UTC (monerod uses mktime, i.e. the server's local time zone; UTC is what a
//     server normally runs in); when strptime would reject its fields (month 13,
//     hour 24, …) monerod leaves the field unchanged, so that is ErrWrongShape.
//   - KindDouble, KindBool: ErrWrongType (convert_t has no such conversion).
//   - KindObject, KindArray: ErrWrongType. convert_t throws for a section or
//     an array too (the storage_entry visitor reaches every variant type), and
//     monerod answered -32602 to "height":{} (getblock_height_object).
func (v Value) AsUint64() (uint64, error) {
	switch v.Kind {
	case KindUint:
		return v.Uint, nil
	case KindInt:
		if v.Int < 0 {
			return 0, ErrWrongType
		}
		return uint64(v.Int), nil
	case KindString:
		return stringToUint64(v.Str)
	}
	return 0, ErrWrongType
}

// stringToUint64 is epee's convert_to_integral<std::string, uint64_t>.
func stringToUint64(s string) (uint64, error) {
	allDigits := true
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			allDigits = false
			break
		}
	}
	if allDigits {
		// boost::lexical_cast<uint64_t>: "" and overflow throw.
		if s == "" {
			return 0, ErrWrongType
		}
		var n uint64
		for i := 0; i < len(s); i++ {
			d := uint64(s[i] - '0')
			if n > (^uint64(0)-d)/10 {
				return 0, ErrWrongType
			}
			n = n*10 + d
		}
		return n, nil
	}
	t, matched, valid := isoTimestamp(s)
	switch {
	case !matched:
		return 0, ErrWrongType
	case !valid:
		return 0, ErrWrongShape
	}
	return t, nil
}

// isoTimestamp implements the regex \d{4}-[01]\d-[0-3]\dT[0-2]\d:[0-5]\d:[0-5]\dZ
// followed by strptime("%Y-%m-%dT%H:%M:%S") and mktime. matched reports the
// regex; valid that strptime accepts the fields (when it does not, monerod
// leaves the field unchanged).
func isoTimestamp(s string) (t uint64, matched, valid bool) {
	const pattern = "dddd-Dd-DdTDd:Dd:DdZ" // d: digit; D: restricted first digit
	if len(s) != len(pattern) {
		return 0, false, false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch pattern[i] {
		case 'd':
			if c < '0' || c > '9' {
				return 0, false, false
			}
		case 'D':
			var max byte
			switch i {
			case 5:
				max = '1' // [01]\d month
			case 8:
				max = '3' // [0-3]\d day
			case 11:
				max = '2' // [0-2]\d hour
			default:
				max = '5' // [0-5]\d minute, second
			}
			if c < '0' || c > max {
				return 0, false, false
			}
		default:
			if c != pattern[i] {
				return 0, false, false
			}
		}
	}
	num := func(i, n int) int {
		v := 0
		for _, c := range []byte(s[i : i+n]) {
			v = v*10 + int(c-'0')
		}
		return v
	}
	year, month, day := num(0, 4), num(5, 2), num(8, 2)
	hour, minute, second := num(11, 2), num(14, 2), num(17, 2)
	// glibc strptime ranges: %m 1..12, %d 1..31, %H 0..23 (%M, %S are already
	// within range by the regex). Day 31 of a short month passes strptime and
	// mktime normalizes it, as time.Date does.
	if month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 {
		return 0, true, false
	}
	unix := time.Date(year, time.Month(month), day, hour, minute, second, 0, time.UTC).Unix()
	return uint64(unix), true, true // time_t → uint64_t: years before 1970 wrap, as in C++
}

// AsString converts a value for a std::string request field (hash, client, …):
// only KindString is accepted; numbers, bools, objects and arrays are
// ErrWrongType (convert_t has no conversion to std::string; "hash":123 gave
// -32602, getblock_hash_number).
func (v Value) AsString() (string, error) {
	if v.Kind == KindString {
		return v.Str, nil
	}
	return "", ErrWrongType
}

// AsBool converts a value for a bool request field (fill_pow_hash): only
// KindBool is accepted; numbers, strings, objects and arrays are ErrWrongType
// (is_convertable excludes bool targets).
func (v Value) AsBool() (bool, error) {
	if v.Kind == KindBool {
		return v.Bool, nil
	}
	return false, ErrWrongType
}

// AsStrings converts a value for a std::vector<std::string> request field
// (hashes). A value that is not an array is ErrWrongShape: get_first_value
// returns null for a non-array entry and the field stays empty. An array whose
// elements are not strings is ErrWrongType (each element goes through convert_t).
func (v Value) AsStrings() ([]string, error) {
	if v.Kind != KindArray {
		return nil, ErrWrongShape
	}
	if len(v.Arr) == 0 {
		return nil, nil
	}
	out := make([]string, len(v.Arr))
	for i := range v.Arr {
		if v.Arr[i].Kind != KindString {
			return nil, ErrWrongType
		}
		out[i] = v.Arr[i].Str
	}
	return out, nil
}
