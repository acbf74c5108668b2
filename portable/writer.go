package portable

import (
	"encoding/binary"
	"math"
)

// Writer appends a binary storage blob directly, without building a
// Section tree: for large answers (a thousand blocks of /getblocks.bin)
// whose layout the caller knows, and for pieces of them that are cached
// already encoded (a block_complete_entry is immutable for a block id) and
// spliced in with Raw.
//
// The caller is responsible for what Encode checks: names of 1 to 254
// bytes, written in monerod's order (sorted byte-wise), each section's
// entry count and each array's element count given before its content and
// then honoured, and array elements of the declared type. A Writer never
// fails; a wrong count produces a blob monerod cannot read, which the tests
// of each user catch by decoding what it wrote.
type Writer struct {
	buf []byte
}

// NewWriter returns a Writer appending to buf (which may be nil).
func NewWriter(buf []byte) *Writer { return &Writer{buf: buf} }

// Bytes returns what has been written.
func (w *Writer) Bytes() []byte { return w.buf }

// Len is the number of bytes written.
func (w *Writer) Len() int { return len(w.buf) }

// Header writes the storage header that starts every blob.
func (w *Writer) Header() { w.buf = append(w.buf, storageHeader[:]...) }

// Section starts a section of n entries: the root, an OBJECT value after
// Field(name, TypeObject), or an element of an array of objects.
func (w *Writer) Section(n int) { w.buf = AppendVarint(w.buf, uint64(n)) }

// Field writes an entry's name and scalar type code; its value follows.
func (w *Writer) Field(name string, t Type) {
	w.buf = append(w.buf, byte(len(name)))
	w.buf = append(w.buf, name...)
	w.buf = append(w.buf, byte(t))
}

// Array writes an entry's name, the array type of elem and the count n;
// n bare elements follow.
func (w *Writer) Array(name string, elem Type, n int) {
	w.Field(name, ArrayFlag|elem)
	w.buf = AppendVarint(w.buf, uint64(n))
}

// Bare values: after Field, or as array elements.

func (w *Writer) Uint64(v uint64) { w.buf = binary.LittleEndian.AppendUint64(w.buf, v) }
func (w *Writer) Uint32(v uint32) { w.buf = binary.LittleEndian.AppendUint32(w.buf, v) }
func (w *Writer) Uint8(v uint8)   { w.buf = append(w.buf, v) }
func (w *Writer) Double(v float64) {
	w.buf = binary.LittleEndian.AppendUint64(w.buf, math.Float64bits(v))
}

func (w *Writer) Bool(v bool) {
	b := byte(0)
	if v {
		b = 1
	}
	w.buf = append(w.buf, b)
}

// Blob writes a STRING value (binary-safe).
func (w *Writer) Blob(b []byte) {
	w.buf = AppendVarint(w.buf, uint64(len(b)))
	w.buf = append(w.buf, b...)
}

// String writes a STRING value from a Go string.
func (w *Writer) String(s string) {
	w.buf = AppendVarint(w.buf, uint64(len(s)))
	w.buf = append(w.buf, s...)
}

// Raw appends bytes already in the format (e.g. a cached encoded section).
func (w *Writer) Raw(b []byte) { w.buf = append(w.buf, b...) }

// Convenience for whole scalar entries.

func (w *Writer) FieldUint64(name string, v uint64) { w.Field(name, TypeUint64); w.Uint64(v) }
func (w *Writer) FieldBool(name string, v bool)     { w.Field(name, TypeBool); w.Bool(v) }
func (w *Writer) FieldBlob(name string, b []byte)   { w.Field(name, TypeString); w.Blob(b) }
func (w *Writer) FieldString(name, s string)        { w.Field(name, TypeString); w.String(s) }

// AppendVarint appends n as a size marker of the smallest width (docs/p2p-levin.md §3.2), as
// monerod writes them. n must be below 2^62 (no count or length comes near).
func AppendVarint(b []byte, n uint64) []byte {
	switch {
	case n <= 63:
		return append(b, byte(n<<2))
	case n <= 16383:
		return binary.LittleEndian.AppendUint16(b, uint16(n<<2|1))
	case n <= 1<<30-1:
		return binary.LittleEndian.AppendUint32(b, uint32(n<<2|2))
	}
	return binary.LittleEndian.AppendUint64(b, n<<2|3)
}

// VarintLen is the number of bytes AppendVarint writes for n.
func VarintLen(n uint64) int {
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
