package portable

import "encoding/binary"

// Reader reads a storage blob piece by piece, without building a Section
// tree: for hot request bodies whose layout the caller knows (a wallet's
// /get_outs.bin, 150 outputs per request). It is the reading twin of
// Writer.
//
// A Reader checks only that each piece is there and well formed. It does
// not apply Decode's limits, duplicate-name or array-size checks: a caller
// reads the layout it expects and, on anything else (another name, another
// type, a count it does not accept), gives up and decodes the body with
// Decode, so that every unusual body still gets Decode's verdict. Every
// method returns false once the blob is short or malformed, and keeps
// returning false.
type Reader struct {
	data []byte
	off  int
	bad  bool
}

// NewReader starts reading data after the storage header; false if the
// header is not there.
func NewReader(data []byte) (*Reader, bool) {
	if len(data) < len(storageHeader) || [9]byte(data[:9]) != storageHeader {
		return nil, false
	}
	return &Reader{data: data, off: len(storageHeader)}, true
}

// Left is the number of bytes not read yet.
func (r *Reader) Left() int { return len(r.data) - r.off }

// Done reports whether the whole blob was read without a failure.
func (r *Reader) Done() bool { return !r.bad && r.off == len(r.data) }

func (r *Reader) take(n int) ([]byte, bool) {
	if r.bad || n < 0 || r.Left() < n {
		r.bad = true
		return nil, false
	}
	b := r.data[r.off : r.off+n : r.off+n]
	r.off += n
	return b, true
}

// Varint reads a size marker: a section's entry count, an array's element
// count or a string's length.
func (r *Reader) Varint() (uint64, bool) {
	if r.bad || r.Left() < 1 {
		r.bad = true
		return 0, false
	}
	b, ok := r.take(1 << (r.data[r.off] & 3))
	if !ok {
		return 0, false
	}
	var v uint64
	switch len(b) {
	case 1:
		v = uint64(b[0])
	case 2:
		v = uint64(binary.LittleEndian.Uint16(b))
	case 4:
		v = uint64(binary.LittleEndian.Uint32(b))
	default:
		v = binary.LittleEndian.Uint64(b)
	}
	return v >> 2, true
}

// Name reads an entry name (1 to 255 bytes; the result aliases the blob).
func (r *Reader) Name() ([]byte, bool) {
	n, ok := r.take(1)
	if !ok || n[0] == 0 {
		r.bad = true
		return nil, false
	}
	return r.take(int(n[0]))
}

// Type reads a type code as it is on the wire (the array form that is
// prefixed by code 13 is reported as 13: callers refuse it).
func (r *Reader) Type() (Type, bool) {
	b, ok := r.take(1)
	if !ok {
		return 0, false
	}
	return Type(b[0]), true
}

// Uint64 reads the 8 bytes of a uint64 value.
func (r *Reader) Uint64() (uint64, bool) {
	b, ok := r.take(8)
	if !ok {
		return 0, false
	}
	return binary.LittleEndian.Uint64(b), true
}

// Bool reads a bool value; a byte other than 0 or 1 is malformed, as Decode
// has it.
func (r *Reader) Bool() (bool, bool) {
	b, ok := r.take(1)
	if !ok || b[0] > 1 {
		r.bad = true
		return false, false
	}
	return b[0] == 1, true
}

// String reads a string value (length and bytes; the result aliases the
// blob).
func (r *Reader) String() ([]byte, bool) {
	n, ok := r.Varint()
	if !ok || n >= maxStringLen || n > uint64(r.Left()) {
		r.bad = true
		return nil, false
	}
	return r.take(int(n))
}
