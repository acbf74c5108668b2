package cryptonote

// AppendVarint appends the canonical LEB128 encoding monero uses for varints.
func AppendVarint(b []byte, v uint64) []byte {
	for v >= 0x80 {
		b = append(b, byte(v)|0x80)
		v >>= 7
	}
	return append(b, byte(v))
}

// VarintLen is the encoded length of v.
func VarintLen(v uint64) int {
	n := 1
	for v >= 0x80 {
		v >>= 7
		n++
	}
	return n
}

// decodeVarint reads a varint for a field of the given bit width from b,
// applying monerod's rules (common/varint.h read_varint): a 0x00 byte after
// the first is non-canonical; the byte that reaches the field's width must
// fit in the remaining bits. Unlike monerod it also rejects a varint cut off
// by the end of the data (monerod accepts that only for malformed blobs).
func decodeVarint(b []byte, width uint) (v uint64, n int, err error) {
	var shift uint
	for i, c := range b {
		if i > 0 && c == 0 {
			return 0, i, ErrNonCanonicalVarint
		}
		if shift+7 >= width && c >= 1<<(width-shift) {
			return 0, i, ErrVarintOverflow
		}
		v |= uint64(c&0x7f) << shift
		if c&0x80 == 0 {
			return v, i + 1, nil
		}
		shift += 7
	}
	return 0, len(b), ErrTruncated
}
