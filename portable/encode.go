package portable

import (
	"encoding/binary"
	"fmt"
	"math"
	"strconv"
)

// Encode writes s as a binary storage blob: header, then the root section.
//
// Entries are written in the order they are in, so the output is
// deterministic and a blob Decode read is written back byte for byte when it
// was canonical (minimal varints, no trailing bytes, no bare ARRAY code).
// monerod writes entries sorted by name; sections built with Set or by the
// P2P types of this package are. Encode refuses what monerod could not read
// back: names of 0 or more than 255 bytes, duplicate names in a section,
// integers that do not fit their type, arrays whose elements are not all of
// the element type, arrays of arrays, unknown type codes, and nesting deeper
// than MaxDepth (which also stops a section that contains itself).
func Encode(s Section) ([]byte, error) {
	e := encoder{buf: make([]byte, 0, len(storageHeader)+sectionSize(s, 0))}
	e.buf = append(e.buf, storageHeader[:]...)
	if err := e.section(s, 0); err != nil {
		return nil, fmt.Errorf("portable: encode: %w", err)
	}
	return e.buf, nil
}

type encoder struct {
	buf []byte
}

// varint appends n as a size marker of the smallest width, as monerod does.
func (e *encoder) varint(n uint64) error {
	switch {
	case n <= 63:
		e.buf = append(e.buf, byte(n<<2))
	case n <= 16383:
		e.buf = binary.LittleEndian.AppendUint16(e.buf, uint16(n<<2|1))
	case n <= 1<<30-1:
		e.buf = binary.LittleEndian.AppendUint32(e.buf, uint32(n<<2|2))
	case n <= 1<<62-1:
		e.buf = binary.LittleEndian.AppendUint64(e.buf, n<<2|3)
	default:
		return fmt.Errorf("%w: count %d does not fit a size marker", ErrInvalidValue, n)
	}
	return nil
}

func (e *encoder) section(s Section, depth int) error {
	if depth > MaxDepth {
		return fmt.Errorf("%w (more than %d levels)", ErrTooDeep, MaxDepth)
	}
	if err := checkNames(s.Entries); err != nil {
		return err
	}
	e.varint(uint64(len(s.Entries)))
	for i := range s.Entries {
		ent := &s.Entries[i]
		e.buf = append(e.buf, byte(len(ent.Name)))
		e.buf = append(e.buf, ent.Name...)
		if err := e.entryValue(ent.Value, depth); err != nil {
			return fmt.Errorf("%s: %w", ent.Name, err)
		}
	}
	return nil
}

// checkNames refuses bad and duplicate names; sorted sections (the normal
// case) need no map.
func checkNames(entries []Entry) error {
	sorted := true
	for i := range entries {
		if n := len(entries[i].Name); n == 0 || n > 255 {
			return fmt.Errorf("%w: %q", ErrBadName, entries[i].Name)
		}
		if i > 0 && entries[i-1].Name >= entries[i].Name {
			sorted = false
		}
	}
	if sorted {
		return nil
	}
	seen := make(map[string]struct{}, len(entries))
	for i := range entries {
		if _, dup := seen[entries[i].Name]; dup {
			return fmt.Errorf("%w: %q", ErrDuplicateName, entries[i].Name)
		}
		seen[entries[i].Name] = struct{}{}
	}
	return nil
}

func (e *encoder) entryValue(v Value, depth int) error {
	if !v.Type.IsArray() {
		if !v.Type.valid() {
			return fmt.Errorf("%w: type code %d", ErrInvalidValue, v.Type)
		}
		e.buf = append(e.buf, byte(v.Type))
		return e.scalar(v, depth)
	}
	elem := v.Type.Elem()
	if !elem.valid() {
		return fmt.Errorf("%w: array type code %#x", ErrInvalidValue, uint8(v.Type))
	}
	e.buf = append(e.buf, byte(v.Type))
	e.varint(uint64(len(v.Array)))
	for i := range v.Array {
		if v.Array[i].Type != elem {
			return fmt.Errorf("[%d]: %w: %v in an array of %v", i, ErrInvalidValue, v.Array[i].Type, elem)
		}
		if err := e.scalar(v.Array[i], depth); err != nil {
			return fmt.Errorf("[%d]: %w", i, err)
		}
	}
	return nil
}

// scalar appends one bare value of a valid scalar type.
func (e *encoder) scalar(v Value, depth int) error {
	switch v.Type {
	case TypeInt64:
		e.buf = binary.LittleEndian.AppendUint64(e.buf, uint64(v.Int))
	case TypeInt32:
		if v.Int != int64(int32(v.Int)) {
			return outOfRange(v)
		}
		e.buf = binary.LittleEndian.AppendUint32(e.buf, uint32(v.Int))
	case TypeInt16:
		if v.Int != int64(int16(v.Int)) {
			return outOfRange(v)
		}
		e.buf = binary.LittleEndian.AppendUint16(e.buf, uint16(v.Int))
	case TypeInt8:
		if v.Int != int64(int8(v.Int)) {
			return outOfRange(v)
		}
		e.buf = append(e.buf, byte(v.Int))
	case TypeUint64:
		e.buf = binary.LittleEndian.AppendUint64(e.buf, v.Uint)
	case TypeUint32:
		if v.Uint > math.MaxUint32 {
			return outOfRange(v)
		}
		e.buf = binary.LittleEndian.AppendUint32(e.buf, uint32(v.Uint))
	case TypeUint16:
		if v.Uint > math.MaxUint16 {
			return outOfRange(v)
		}
		e.buf = binary.LittleEndian.AppendUint16(e.buf, uint16(v.Uint))
	case TypeUint8:
		if v.Uint > math.MaxUint8 {
			return outOfRange(v)
		}
		e.buf = append(e.buf, byte(v.Uint))
	case TypeDouble:
		e.buf = binary.LittleEndian.AppendUint64(e.buf, math.Float64bits(v.Double))
	case TypeBool:
		b := byte(0)
		if v.Bool {
			b = 1
		}
		e.buf = append(e.buf, b)
	case TypeString:
		if len(v.Bytes) >= maxStringLen {
			return fmt.Errorf("%w: string of %d bytes", ErrInvalidValue, len(v.Bytes))
		}
		e.varint(uint64(len(v.Bytes)))
		e.buf = append(e.buf, v.Bytes...)
	case TypeObject:
		return e.section(v.Object, depth+1)
	}
	return nil
}

func outOfRange(v Value) error {
	n := strconv.FormatUint(v.Uint, 10)
	if v.Type <= TypeInt8 {
		n = strconv.FormatInt(v.Int, 10)
	}
	return fmt.Errorf("%w: %s as %v", ErrOutOfRange, n, v.Type)
}

// sectionSize is the encoded size of s, so that Encode allocates once. It
// is only a capacity hint: for trees Encode refuses it may be wrong, and it
// stops at the depth Encode refuses.
func sectionSize(s Section, depth int) int {
	if depth > MaxDepth {
		return 0
	}
	n := varintSize(len(s.Entries))
	for i := range s.Entries {
		v := &s.Entries[i].Value
		n += 1 + len(s.Entries[i].Name) + 1
		if !v.Type.IsArray() {
			n += elemSize(v, depth)
			continue
		}
		n += varintSize(len(v.Array))
		for j := range v.Array {
			n += elemSize(&v.Array[j], depth)
		}
	}
	return n
}

func elemSize(v *Value, depth int) int {
	switch v.Type {
	case TypeInt64, TypeUint64, TypeDouble:
		return 8
	case TypeInt32, TypeUint32:
		return 4
	case TypeInt16, TypeUint16:
		return 2
	case TypeString:
		return varintSize(len(v.Bytes)) + len(v.Bytes)
	case TypeObject:
		return sectionSize(v.Object, depth+1)
	}
	return 1
}

func varintSize(n int) int {
	switch {
	case n <= 63:
		return 1
	case n <= 16383:
		return 2
	case n <= 1<<30-1:
		return 4
	}
	return 8
}
