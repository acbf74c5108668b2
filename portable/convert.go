package portable

import (
	"math"
	"strconv"
)

// asUint converts v for an unsigned C++ field whose largest value is max,
// following epee's portable_storage_val_converters.h (docs/p2p-levin.md §3.5): any integer type
// is accepted when the value fits (negative or too large: ErrOutOfRange); a
// string of decimal digits only for a uint64_t field (boost::lexical_cast,
// which throws on overflow); everything else throws (ErrWrongType). The
// MyMonero ISO-8601 date hack of that converter is not reproduced: no P2P
// field is a timestamp sent as a string.
func asUint(v Value, max uint64) (uint64, error) {
	switch v.Type {
	case TypeUint64, TypeUint32, TypeUint16, TypeUint8:
		if v.Uint > max {
			return 0, ErrOutOfRange
		}
		return v.Uint, nil
	case TypeInt64, TypeInt32, TypeInt16, TypeInt8:
		if v.Int < 0 || uint64(v.Int) > max {
			return 0, ErrOutOfRange
		}
		return uint64(v.Int), nil
	case TypeString:
		if max != math.MaxUint64 || !allDigits(v.Bytes) {
			break
		}
		n, err := strconv.ParseUint(string(v.Bytes), 10, 64)
		if err != nil {
			return 0, ErrOutOfRange
		}
		return n, nil
	}
	return 0, ErrWrongType
}

func allDigits(b []byte) bool {
	if len(b) == 0 {
		return false
	}
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// asInt converts v for a signed field of range [lo, hi] (see asUint; no
// string conversion).
func asInt(v Value, lo, hi int64) (int64, error) {
	switch v.Type {
	case TypeInt64, TypeInt32, TypeInt16, TypeInt8:
		if v.Int < lo || v.Int > hi {
			return 0, ErrOutOfRange
		}
		return v.Int, nil
	case TypeUint64, TypeUint32, TypeUint16, TypeUint8:
		if v.Uint > uint64(hi) {
			return 0, ErrOutOfRange
		}
		return int64(v.Uint), nil
	}
	return 0, ErrWrongType
}

// lookup returns the named entry or a FieldError wrapping ErrMissing.
func (s Section) lookup(name string) (Value, error) {
	v, ok := s.Get(name)
	if !ok {
		return Value{}, &FieldError{Path: name, Err: ErrMissing}
	}
	return v, nil
}

func (s Section) getUint(name string, max uint64) (uint64, error) {
	v, err := s.lookup(name)
	if err != nil {
		return 0, err
	}
	n, err := asUint(v, max)
	if err != nil {
		return 0, &FieldError{Path: name, Err: err}
	}
	return n, nil
}

// Typed getters. Each fails with a *FieldError wrapping ErrMissing when the
// entry is absent, ErrWrongType when its type cannot be converted the way
// monerod converts it, or ErrOutOfRange when the integer does not fit.

// GetUint64 returns an integer entry of any width, or a decimal string.
func (s Section) GetUint64(name string) (uint64, error) { return s.getUint(name, math.MaxUint64) }

// GetUint32 returns an integer entry that fits a uint32.
func (s Section) GetUint32(name string) (uint32, error) {
	n, err := s.getUint(name, math.MaxUint32)
	return uint32(n), err
}

// GetUint16 returns an integer entry that fits a uint16.
func (s Section) GetUint16(name string) (uint16, error) {
	n, err := s.getUint(name, math.MaxUint16)
	return uint16(n), err
}

// GetUint8 returns an integer entry that fits a uint8.
func (s Section) GetUint8(name string) (uint8, error) {
	n, err := s.getUint(name, math.MaxUint8)
	return uint8(n), err
}

// GetInt64 returns an integer entry that fits an int64.
func (s Section) GetInt64(name string) (int64, error) {
	v, err := s.lookup(name)
	if err != nil {
		return 0, err
	}
	n, err := asInt(v, math.MinInt64, math.MaxInt64)
	if err != nil {
		return 0, &FieldError{Path: name, Err: err}
	}
	return n, nil
}

// GetBool returns a BOOL entry (epee converts nothing else to bool).
func (s Section) GetBool(name string) (bool, error) {
	v, err := s.typed(name, TypeBool)
	return v.Bool, err
}

// GetDouble returns a DOUBLE entry.
func (s Section) GetDouble(name string) (float64, error) {
	v, err := s.typed(name, TypeDouble)
	return v.Double, err
}

// GetString returns a STRING entry as a Go string (a copy).
func (s Section) GetString(name string) (string, error) {
	v, err := s.typed(name, TypeString)
	return string(v.Bytes), err
}

// GetBlob returns a STRING entry's bytes (aliasing the decoded input).
func (s Section) GetBlob(name string) ([]byte, error) {
	v, err := s.typed(name, TypeString)
	return v.Bytes, err
}

// GetSection returns an OBJECT entry.
func (s Section) GetSection(name string) (Section, error) {
	v, err := s.typed(name, TypeObject)
	return v.Object, err
}

// GetSectionArray returns the elements of an array of objects.
func (s Section) GetSectionArray(name string) ([]Section, error) {
	v, err := s.typed(name, ArrayFlag|TypeObject)
	if err != nil {
		return nil, err
	}
	out := make([]Section, len(v.Array))
	for i := range v.Array {
		out[i] = v.Array[i].Object
	}
	return out, nil
}

// GetBlobArray returns the elements of an array of strings (aliasing the
// decoded input).
func (s Section) GetBlobArray(name string) ([][]byte, error) {
	v, err := s.typed(name, ArrayFlag|TypeString)
	if err != nil {
		return nil, err
	}
	out := make([][]byte, len(v.Array))
	for i := range v.Array {
		out[i] = v.Array[i].Bytes
	}
	return out, nil
}

func (s Section) typed(name string, t Type) (Value, error) {
	v, err := s.lookup(name)
	if err != nil {
		return Value{}, err
	}
	if v.Type != t {
		return Value{}, &FieldError{Path: name, Err: ErrWrongType}
	}
	return v, nil
}
