package cryptonight

import (
	"encoding/binary"
	"math/bits"
)

// CryptoNight uses AES rounds, not AES: the standard library offers only
// whole-block encryption, so the round is table driven here. A 16-byte block
// is two little-endian 64-bit lanes; its four columns are their 32-bit halves.

var (
	sbox               [256]byte
	te0, te1, te2, te3 [256]uint32
)

func init() {
	// The S-box from its definition (inverse in GF(2^8) then the affine
	// map) rather than a typed table.
	for x := range 256 {
		inv := gfInverse(byte(x))
		s := inv ^ bits.RotateLeft8(inv, 1) ^ bits.RotateLeft8(inv, 2) ^ bits.RotateLeft8(inv, 3) ^
			bits.RotateLeft8(inv, 4) ^ 0x63
		sbox[x] = s
		s2 := gfMul2(s)
		// Column (2s, s, s, 3s), row 0 in the low byte.
		t := uint32(s2) | uint32(s)<<8 | uint32(s)<<16 | uint32(s2^s)<<24
		te0[x] = t
		te1[x] = bits.RotateLeft32(t, 8)
		te2[x] = bits.RotateLeft32(t, 16)
		te3[x] = bits.RotateLeft32(t, 24)
	}
}

func gfMul2(x byte) byte {
	if x&0x80 != 0 {
		return x<<1 ^ 0x1b
	}
	return x << 1
}

func gfMul(a, b byte) byte {
	var p byte
	for b != 0 {
		if b&1 != 0 {
			p ^= a
		}
		a = gfMul2(a)
		b >>= 1
	}
	return p
}

// gfInverse is x^254, with 0 mapping to 0.
func gfInverse(x byte) byte {
	r := byte(1)
	for range 254 {
		r = gfMul(r, x)
	}
	return r
}

// aesRound is one AESENC: SubBytes, ShiftRows, MixColumns, then XOR the
// round key (k0, k1), on the block (x0, x1).
func aesRound(x0, x1, k0, k1 uint64) (uint64, uint64) {
	c0, c1, c2, c3 := uint32(x0), uint32(x0>>32), uint32(x1), uint32(x1>>32)
	n0 := te0[c0&0xff] ^ te1[c1>>8&0xff] ^ te2[c2>>16&0xff] ^ te3[c3>>24]
	n1 := te0[c1&0xff] ^ te1[c2>>8&0xff] ^ te2[c3>>16&0xff] ^ te3[c0>>24]
	n2 := te0[c2&0xff] ^ te1[c3>>8&0xff] ^ te2[c0>>16&0xff] ^ te3[c1>>24]
	n3 := te0[c3&0xff] ^ te1[c0>>8&0xff] ^ te2[c1>>16&0xff] ^ te3[c2>>24]
	return (uint64(n0) | uint64(n1)<<32) ^ k0, (uint64(n2) | uint64(n3)<<32) ^ k1
}

// roundKeys holds the first ten round keys of an AES-256 key schedule, the
// only ones CryptoNight's pseudo-encryption uses, as lane pairs.
type roundKeys [10][2]uint64

// expandKey is the AES-256 key expansion (what monerod's oaes_key_import_data
// does with a 32-byte key), cut to ten round keys.
func expandKey(key []byte) roundKeys {
	var w [40]uint32
	for i := range 8 {
		w[i] = binary.LittleEndian.Uint32(key[4*i:])
	}
	rcon := uint32(1)
	for i := 8; i < len(w); i++ {
		t := w[i-1]
		switch i % 8 {
		case 0:
			// RotWord moves byte 1 to byte 0: a right rotation of the
			// little-endian word.
			t = subWord(bits.RotateLeft32(t, -8)) ^ rcon
			rcon = uint32(gfMul2(byte(rcon)))
		case 4:
			t = subWord(t)
		}
		w[i] = w[i-8] ^ t
	}
	var rk roundKeys
	for r := range rk {
		rk[r][0] = uint64(w[4*r]) | uint64(w[4*r+1])<<32
		rk[r][1] = uint64(w[4*r+2]) | uint64(w[4*r+3])<<32
	}
	return rk
}

func subWord(x uint32) uint32 {
	return uint32(sbox[x&0xff]) | uint32(sbox[x>>8&0xff])<<8 | uint32(sbox[x>>16&0xff])<<16 | uint32(sbox[x>>24])<<24
}

// pseudoEncrypt is monerod's aesb_pseudo_round: ten AESENC rounds with the
// ten round keys, no initial whitening and MixColumns kept in the last round.
func pseudoEncrypt(x0, x1 uint64, rk *roundKeys) (uint64, uint64) {
	for r := range rk {
		x0, x1 = aesRound(x0, x1, rk[r][0], rk[r][1])
	}
	return x0, x1
}

// pseudoEncrypt8 is pseudoEncrypt on each of the eight blocks of text.
func pseudoEncrypt8(text *[16]uint64, rk *roundKeys) {
	if hasAESNI {
		pseudoEncrypt8AESNI(text, rk)
		return
	}
	for j := 0; j < len(text); j += 2 {
		text[j], text[j+1] = pseudoEncrypt(text[j], text[j+1], rk)
	}
}
