// Package blake2bp is BLAKE2b (RFC 7693) with the whole parameter block's
// key length, digest length and personalisation: monerod's blake2b_monero
// (personalised "Monero") under FCMP++'s unbiased hash-to-point and
// Carrot's hashes. golang.org/x/crypto/blake2b has no personalisation
// parameter. It is fed public data and secrets alike, and does not branch on
// either.
package blake2bp

import (
	"encoding/binary"
	"math/bits"
)

// The compression function is written out here; blake2bp_test.go checks it
// against x/crypto for an empty personalisation.

var blake2bIV = [8]uint64{
	0x6a09e667f3bcc908, 0xbb67ae8584caa73b, 0x3c6ef372fe94f82b, 0xa54ff53a5f1d36f1,
	0x510e527fade682d1, 0x9b05688c2b3e6c1f, 0x1f83d9abfb41bd6b, 0x5be0cd19137e2179,
}

var blake2bSigma = [12][16]byte{
	{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15},
	{14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3},
	{11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4},
	{7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8},
	{9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13},
	{2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9},
	{12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11},
	{13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10},
	{6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5},
	{10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0},
	{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15},
	{14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3},
}

func blake2bCompress(h *[8]uint64, block []byte, t uint64, last bool) {
	var m [16]uint64
	for i := range m {
		m[i] = binary.LittleEndian.Uint64(block[8*i:])
	}
	var v [16]uint64
	copy(v[:8], h[:])
	copy(v[8:], blake2bIV[:])
	v[12] ^= t // inputs here are far below 2^64 bytes: the high counter word stays 0
	if last {
		v[14] = ^v[14]
	}
	g := func(a, b, c, d int, x, y uint64) {
		v[a] += v[b] + x
		v[d] = bits.RotateLeft64(v[d]^v[a], -32)
		v[c] += v[d]
		v[b] = bits.RotateLeft64(v[b]^v[c], -24)
		v[a] += v[b] + y
		v[d] = bits.RotateLeft64(v[d]^v[a], -16)
		v[c] += v[d]
		v[b] = bits.RotateLeft64(v[b]^v[c], -63)
	}
	for r := 0; r < 12; r++ {
		s := &blake2bSigma[r]
		g(0, 4, 8, 12, m[s[0]], m[s[1]])
		g(1, 5, 9, 13, m[s[2]], m[s[3]])
		g(2, 6, 10, 14, m[s[4]], m[s[5]])
		g(3, 7, 11, 15, m[s[6]], m[s[7]])
		g(0, 5, 10, 15, m[s[8]], m[s[9]])
		g(1, 6, 11, 12, m[s[10]], m[s[11]])
		g(2, 7, 8, 13, m[s[12]], m[s[13]])
		g(3, 4, 9, 14, m[s[14]], m[s[15]])
	}
	for i := range h {
		h[i] ^= v[i] ^ v[i+8]
	}
}

// Sum writes BLAKE2b-(8*len(out)) of data, keyed with key
// (at most 64 bytes) and personalised with personal (at most 16 bytes),
// into out (1 to 64 bytes). The digest length is part of the parameter
// block, so a 3-byte hash is not a prefix of the 32-byte one.
func Sum(out, key, personal []byte, data ...[]byte) {
	if len(out) < 1 || len(out) > 64 || len(key) > 64 || len(personal) > 16 {
		panic("blake2bp: parameters out of range") // callers pass constants
	}
	h := blake2bIV
	h[0] ^= uint64(len(out)) | uint64(len(key))<<8 | 1<<16 | 1<<24
	var p [16]byte
	copy(p[:], personal)
	h[6] ^= binary.LittleEndian.Uint64(p[0:])
	h[7] ^= binary.LittleEndian.Uint64(p[8:])

	var buf [128]byte
	n := 0 // bytes in buf
	var t uint64
	write := func(b []byte) {
		for len(b) > 0 {
			if n == 128 {
				// A full block is compressed only once more input follows:
				// the last block must carry the final flag.
				t += 128
				blake2bCompress(&h, buf[:], t, false)
				n = 0
			}
			c := copy(buf[n:], b)
			n += c
			b = b[c:]
		}
	}
	if len(key) > 0 {
		var kb [128]byte
		copy(kb[:], key)
		write(kb[:])
	}
	for _, d := range data {
		write(d)
	}
	t += uint64(n)
	for i := n; i < 128; i++ {
		buf[i] = 0
	}
	blake2bCompress(&h, buf[:], t, true)
	var full [64]byte
	for i := range h {
		binary.LittleEndian.PutUint64(full[8*i:], h[i])
	}
	copy(out, full[:len(out)])
}
