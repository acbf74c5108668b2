package portable

import (
	"bytes"
	"fmt"
	"math"
	"sort"
)

// Type is an epee storage type code (SERIALIZE_TYPE_* in
// portable_storage_base.h).
type Type uint8

// Scalar type codes, and the flag that turns any of them into "array of".
// Code 13 (SERIALIZE_TYPE_ARRAY) is not a value type of its own; see Decode.
const (
	TypeInt64  Type = 1
	TypeInt32  Type = 2
	TypeInt16  Type = 3
	TypeInt8   Type = 4
	TypeUint64 Type = 5
	TypeUint32 Type = 6
	TypeUint16 Type = 7
	TypeUint8  Type = 8
	TypeDouble Type = 9
	TypeString Type = 10 // binary-safe: hashes, keys and blobs are strings
	TypeBool   Type = 11
	TypeObject Type = 12

	ArrayFlag Type = 0x80 // SERIALIZE_FLAG_ARRAY
)

// IsArray reports whether t is an array type.
func (t Type) IsArray() bool { return t&ArrayFlag != 0 }

// Elem is the element type of an array type (t itself for a scalar type).
func (t Type) Elem() Type { return t &^ ArrayFlag }

// valid reports a scalar type code this package can hold.
func (t Type) valid() bool { return t >= TypeInt64 && t <= TypeObject }

func (t Type) String() string {
	if t.IsArray() {
		return "array of " + t.Elem().String()
	}
	switch t {
	case TypeInt64:
		return "int64"
	case TypeInt32:
		return "int32"
	case TypeInt16:
		return "int16"
	case TypeInt8:
		return "int8"
	case TypeUint64:
		return "uint64"
	case TypeUint32:
		return "uint32"
	case TypeUint16:
		return "uint16"
	case TypeUint8:
		return "uint8"
	case TypeDouble:
		return "double"
	case TypeString:
		return "string"
	case TypeBool:
		return "bool"
	case TypeObject:
		return "object"
	}
	return fmt.Sprintf("type(%d)", uint8(t))
}

// Value is one stored value. Type says which field holds it; the others are
// zero. Signed integers of every width are in Int, unsigned ones in Uint (the
// encoder refuses values that do not fit the width). An array has Type =
// ArrayFlag|element type and its elements, all of the element type, in
// Array; epee has no arrays of arrays.
type Value struct {
	Type   Type
	Int    int64
	Uint   uint64
	Double float64
	Bool   bool
	Bytes  []byte
	Object Section
	Array  []Value
}

// Section is an epee object: named entries in wire order. monerod writes
// them sorted by name (byte-wise, it keeps a std::map); Set keeps a sorted
// section sorted, and Decode keeps whatever order it read.
type Section struct {
	Entries []Entry
}

// Entry is one named value of a section.
type Entry struct {
	Name  string
	Value Value
}

// Constructors for the values monerod's KV_SERIALIZE writes.

func NewInt64(v int64) Value    { return Value{Type: TypeInt64, Int: v} }
func NewInt32(v int32) Value    { return Value{Type: TypeInt32, Int: int64(v)} }
func NewInt16(v int16) Value    { return Value{Type: TypeInt16, Int: int64(v)} }
func NewInt8(v int8) Value      { return Value{Type: TypeInt8, Int: int64(v)} }
func NewUint64(v uint64) Value  { return Value{Type: TypeUint64, Uint: v} }
func NewUint32(v uint32) Value  { return Value{Type: TypeUint32, Uint: uint64(v)} }
func NewUint16(v uint16) Value  { return Value{Type: TypeUint16, Uint: uint64(v)} }
func NewUint8(v uint8) Value    { return Value{Type: TypeUint8, Uint: uint64(v)} }
func NewDouble(v float64) Value { return Value{Type: TypeDouble, Double: v} }
func NewBool(v bool) Value      { return Value{Type: TypeBool, Bool: v} }
func NewBlob(v []byte) Value    { return Value{Type: TypeString, Bytes: v} }
func NewString(v string) Value  { return Value{Type: TypeString, Bytes: []byte(v)} }
func NewObject(v Section) Value { return Value{Type: TypeObject, Object: v} }

// NewObjectArray returns an array of objects (e.g. a peer list).
func NewObjectArray(v []Section) Value {
	arr := make([]Value, len(v))
	for i := range v {
		arr[i] = NewObject(v[i])
	}
	return Value{Type: ArrayFlag | TypeObject, Array: arr}
}

// NewBlobArray returns an array of strings (e.g. the txs of a 2002).
func NewBlobArray(v [][]byte) Value {
	arr := make([]Value, len(v))
	for i := range v {
		arr[i] = NewBlob(v[i])
	}
	return Value{Type: ArrayFlag | TypeString, Array: arr}
}

// Get returns the first entry named name.
func (s Section) Get(name string) (Value, bool) {
	for i := range s.Entries {
		if s.Entries[i].Name == name {
			return s.Entries[i].Value, true
		}
	}
	return Value{}, false
}

// Set replaces the value of the entry named name, or inserts a new entry
// before the first entry whose name sorts after it, so that a section built
// with Set alone is sorted as monerod writes it.
func (s *Section) Set(name string, v Value) {
	for i := range s.Entries {
		if s.Entries[i].Name == name {
			s.Entries[i].Value = v
			return
		}
	}
	i := sort.Search(len(s.Entries), func(i int) bool { return s.Entries[i].Name > name })
	s.Entries = append(s.Entries, Entry{})
	copy(s.Entries[i+1:], s.Entries[i:])
	s.Entries[i] = Entry{Name: name, Value: v}
}

// Equal reports whether two sections hold the same entries in the same
// order. Doubles compare by their bits, nil and empty strings are equal.
func (s Section) Equal(t Section) bool {
	if len(s.Entries) != len(t.Entries) {
		return false
	}
	for i := range s.Entries {
		if s.Entries[i].Name != t.Entries[i].Name || !s.Entries[i].Value.Equal(t.Entries[i].Value) {
			return false
		}
	}
	return true
}

// Equal reports whether two values are the same (see Section.Equal).
func (v Value) Equal(w Value) bool {
	if v.Type != w.Type {
		return false
	}
	if v.Type.IsArray() {
		if len(v.Array) != len(w.Array) {
			return false
		}
		for i := range v.Array {
			if !v.Array[i].Equal(w.Array[i]) {
				return false
			}
		}
		return true
	}
	switch v.Type {
	case TypeInt64, TypeInt32, TypeInt16, TypeInt8:
		return v.Int == w.Int
	case TypeUint64, TypeUint32, TypeUint16, TypeUint8:
		return v.Uint == w.Uint
	case TypeDouble:
		return math.Float64bits(v.Double) == math.Float64bits(w.Double)
	case TypeBool:
		return v.Bool == w.Bool
	case TypeString:
		return bytes.Equal(v.Bytes, w.Bytes)
	case TypeObject:
		return v.Object.Equal(w.Object)
	}
	return true
}
