package rpc

import (
	"errors"

	"github.com/gonero/gonero/cryptonote"
)

// A transaction's extra field as monerod's tx_extra_field variant reads and
// writes it (tx_extra.h): add_aux_pow takes out any merge-mining tag by
// parsing the miner transaction's extra into fields and writing back the
// others (remove_field_from_tx_extra), which also puts every other field in
// its canonical form.

// Extra-field tags (tx_extra.h).
const (
	extraPadding    = 0x00
	extraPubKey     = 0x01
	extraNonce      = 0x02
	extraMergeMine  = 0x03
	extraAdditional = 0x04
	extraMinergate  = 0xde

	extraPaddingMax = 255 // TX_EXTRA_PADDING_MAX_COUNT
	extraNonceMax   = 255 // TX_EXTRA_NONCE_MAX_COUNT
)

var errBadExtra = errors.New("extra field does not parse")

// extraField is one parsed field: its tag and its canonical encoding.
type extraField struct {
	tag byte
	enc []byte
}

// extraReader reads binary_archive values from an extra field.
type extraReader struct{ b []byte }

// varint is tools::read_varint: at most 10 bytes (64 bits), and no
// non-canonical trailing zero byte.
func (r *extraReader) varint() (uint64, bool) {
	var v uint64
	for i, shift := 0, uint(0); i < len(r.b); i, shift = i+1, shift+7 {
		c := r.b[i]
		if shift >= 63 && c > 1 { // the 10th byte holds one bit
			return 0, false
		}
		if c == 0 && shift != 0 {
			return 0, false
		}
		v |= uint64(c&0x7f) << shift
		if c&0x80 == 0 {
			r.b = r.b[i+1:]
			return v, true
		}
	}
	return 0, false
}

func (r *extraReader) bytes(n uint64) ([]byte, bool) {
	if n > uint64(len(r.b)) {
		return nil, false
	}
	out := r.b[:n]
	r.b = r.b[n:]
	return out, true
}

// string reads a varint length and that many bytes.
func (r *extraReader) string() ([]byte, bool) {
	n, ok := r.varint()
	if !ok {
		return nil, false
	}
	return r.bytes(n)
}

// parseExtra splits extra into fields as parse_tx_extra's loop does; any
// field that does not parse fails the whole.
func parseExtra(extra []byte) ([]extraField, error) {
	var fields []extraField
	r := extraReader{b: extra}
	for len(r.b) > 0 {
		tag := r.b[0]
		r.b = r.b[1:]
		f := extraField{tag: tag, enc: []byte{tag}}
		switch tag {
		case extraPadding:
			// Zeros up to the end, at most 255 bytes with the tag.
			size := 1
			for ; size <= extraPaddingMax && len(r.b) > 0; size++ {
				if r.b[0] != 0 {
					return nil, errBadExtra
				}
				r.b = r.b[1:]
			}
			if size > extraPaddingMax {
				return nil, errBadExtra
			}
			f.enc = append(f.enc, make([]byte, size-1)...)
		case extraPubKey:
			k, ok := r.bytes(32)
			if !ok {
				return nil, errBadExtra
			}
			f.enc = append(f.enc, k...)
		case extraNonce:
			s, ok := r.string()
			if !ok || len(s) > extraNonceMax {
				return nil, errBadExtra
			}
			f.enc = appendString(f.enc, s)
		case extraMergeMine:
			// A string holding exactly a varint depth and a 32-byte root.
			s, ok := r.string()
			if !ok {
				return nil, errBadExtra
			}
			in := extraReader{b: s}
			depth, ok := in.varint()
			if !ok {
				return nil, errBadExtra
			}
			root, ok := in.bytes(32)
			if !ok || len(in.b) != 0 {
				return nil, errBadExtra
			}
			inner := append(cryptonote.AppendVarint(nil, depth), root...)
			f.enc = appendString(f.enc, inner)
		case extraAdditional:
			n, ok := r.varint()
			if !ok || n > uint64(len(r.b))/32 {
				return nil, errBadExtra
			}
			keys, _ := r.bytes(n * 32)
			f.enc = append(cryptonote.AppendVarint(f.enc, n), keys...)
		case extraMinergate:
			s, ok := r.string()
			if !ok {
				return nil, errBadExtra
			}
			f.enc = appendString(f.enc, s)
		default:
			return nil, errBadExtra
		}
		fields = append(fields, f)
	}
	return fields, nil
}

func appendString(b, s []byte) []byte {
	return append(cryptonote.AppendVarint(b, uint64(len(s))), s...)
}

// withMergeMiningRoot is what add_aux_pow does to a miner transaction's
// extra: every merge-mining tag removed (the other fields written back
// canonically) and a new one appended with root. monerod writes depth 0
// there whatever the tree's depth (on_add_aux_pow passes its own local
// variable, never set, rather than the depth it reports).
func withMergeMiningRoot(extra []byte, root cryptonote.Hash) ([]byte, error) {
	fields, err := parseExtra(extra)
	if err != nil {
		return nil, err
	}
	out := make([]byte, 0, len(extra)+35)
	for _, f := range fields {
		if f.tag != extraMergeMine {
			out = append(out, f.enc...)
		}
	}
	out = append(out, extraMergeMine, 33, 0)
	return append(out, root[:]...), nil
}
