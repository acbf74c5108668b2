package epeejson

import (
	"errors"
	"sort"
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
	// Skipped marks an array or object ParseShallow checked but did not
	// build (it stands empty): a reader that needs its elements must have
	// asked for the whole parse (rpctypes panics on reading it). Beside
	// Bool, it takes no room: a Value stays 104 bytes.
	Skipped bool
	Arr     []Value
	Obj     []Member // input order, duplicates kept
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
// epee's get_value → convert_t in monerod 0.18.5.3:
//   - KindUint: the value.
//   - KindInt: accepted when not negative (convert_int_to_uint only rejects
//     values below 0; "-0" parses as int64 0 and gives 0), else ErrWrongType.
//   - KindString: ErrWrongType. monerod 0.18.0 converted a string of digits
//     ("10" → 10) and MyMonero's ISO-8601 timestamps; 0.18.5.3 refuses every
//     string ("height":"0" is -32602, observed).
//   - KindDouble, KindBool: ErrWrongType (convert_t has no such conversion).
//   - KindObject, KindArray: ErrWrongType. convert_t throws for a section or
//     an array too (the storage_entry visitor reaches every variant type), and
//     monerod answers -32602 to "height":{} (getblock_height_object).
func (v Value) AsUint64() (uint64, error) {
	switch v.Kind {
	case KindUint:
		return v.Uint, nil
	case KindInt:
		if v.Int < 0 {
			return 0, ErrWrongType
		}
		return uint64(v.Int), nil
	}
	return 0, ErrWrongType
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
