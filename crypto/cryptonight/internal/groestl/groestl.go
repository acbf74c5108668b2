// Package groestl is Grøstl-256, the SHA-3 finalist in its final (round 3,
// "tweaked") version: the hash monerod's groestl.c computes and CryptoNight
// uses as one of its four finalizers.
//
// The 512-bit state is an 8×8 byte matrix kept as eight columns, each a
// uint64 with row 0 in the most significant byte, so that a message block's
// bytes load column by column in big-endian order. One round's SubBytes,
// ShiftBytes and MixBytes are eight table look-ups per column; the tables
// are computed at init from the AES S-box and the MixBytes circulant
// matrix, not pasted.
package groestl

import (
	"encoding/binary"
	"math/bits"
)

// Size is the length of a Grøstl-256 hash.
const Size = 32

const (
	blockSize = 64 // Grøstl-224/256 work on 512-bit blocks
	rounds    = 10 // rounds of P and Q for the 512-bit permutations
)

// mixRow is the first row of MixBytes' circulant matrix B = circ(02, 02,
// 03, 04, 05, 03, 05, 07); row i is this row rotated right by i.
var mixRow = [8]byte{2, 2, 3, 4, 5, 3, 5, 7}

// shiftP and shiftQ are ShiftBytes' left rotations of each row for P and
// Q (round 3 gave Q its own, to tell the two permutations apart).
var (
	shiftP = [8]int{0, 1, 2, 3, 4, 5, 6, 7}
	shiftQ = [8]int{1, 3, 5, 7, 0, 2, 4, 6}
)

// sbox is the AES S-box; table[0][x] is the column MixBytes makes of a
// byte S(x) in row 0, table[i] the same for row i (table[0] rotated right
// by i bytes).
var (
	sbox  [256]byte
	table [8][256]uint64
)

func init() {
	sbox = aesSbox()
	for x := range 256 {
		s := sbox[x]
		var col uint64
		for r := range 8 {
			// B[r][0] = mixRow[(0-r) mod 8]
			col |= uint64(mul(mixRow[(8-r)%8], s)) << (56 - 8*r)
		}
		for i := range 8 {
			table[i][x] = bits.RotateLeft64(col, -8*i)
		}
	}
}

// mul multiplies in GF(2^8) modulo x^8+x^4+x^3+x+1 (AES's field, which
// MixBytes also uses).
func mul(a, b byte) byte {
	var p byte
	for b != 0 {
		if b&1 != 0 {
			p ^= a
		}
		hi := a & 0x80
		a <<= 1
		if hi != 0 {
			a ^= 0x1b
		}
		b >>= 1
	}
	return p
}

// aesSbox builds the AES S-box from its definition: the multiplicative
// inverse in GF(2^8) (0 for 0) followed by the affine map. Inverses come
// from powers of the generator 3: x = 3^k has inverse 3^(255-k).
func aesSbox() (s [256]byte) {
	var exp [255]byte
	var log [256]int
	p := byte(1)
	for k := range exp {
		exp[k], log[p] = p, k
		p = mul(p, 3)
	}
	for x := range 256 {
		var inv byte
		if x != 0 {
			inv = exp[(255-log[x])%255]
		}
		b := inv
		s[x] = b ^ bits.RotateLeft8(b, 1) ^ bits.RotateLeft8(b, 2) ^
			bits.RotateLeft8(b, 3) ^ bits.RotateLeft8(b, 4) ^ 0x63
	}
	return s
}

type state [8]uint64

func load(b []byte) (s state) {
	for j := range s {
		s[j] = binary.BigEndian.Uint64(b[8*j:])
	}
	return s
}

// round applies SubBytes, ShiftBytes and MixBytes with the row shifts
// sh: output column j takes row i's byte from input column j+sh[i].
func (s *state) round(sh *[8]int) {
	var out state
	for j := range out {
		var col uint64
		for i := range 8 {
			col ^= table[i][byte(s[(j+sh[i])&7]>>(56-8*i))]
		}
		out[j] = col
	}
	*s = out
}

// permP is P: AddRoundConstant puts (j<<4)^r in row 0 of column j.
func (s *state) permP() {
	for r := range uint64(rounds) {
		for j := range s {
			s[j] ^= (uint64(j)<<4 ^ r) << 56
		}
		s.round(&shiftP)
	}
}

// permQ is Q: AddRoundConstant flips every byte and puts (j<<4)^r, also
// flipped, in row 7 of column j.
func (s *state) permQ() {
	for r := range uint64(rounds) {
		for j := range s {
			s[j] ^= ^(uint64(j)<<4 ^ r)
		}
		s.round(&shiftQ)
	}
}

// compress is f(h, m) = P(h⊕m) ⊕ Q(m) ⊕ h.
func compress(h *state, block []byte) {
	q := load(block)
	var p state
	for j := range p {
		p[j] = h[j] ^ q[j]
	}
	p.permP()
	q.permQ()
	for j := range h {
		h[j] ^= p[j] ^ q[j]
	}
}

// Sum256 returns the Grøstl-256 hash of data.
func Sum256(data []byte) [Size]byte {
	// The IV is the output length in bits, 256, in the state's last bytes.
	var h state
	h[7] = 256
	n := uint64(len(data))
	for len(data) >= blockSize {
		compress(&h, data[:blockSize])
		data = data[blockSize:]
	}
	// Padding: 0x80, zeros, then the 64-bit big-endian count of blocks
	// including the padding ones; one block if the tail leaves room for
	// the nine bytes, two otherwise.
	var tail [2 * blockSize]byte
	copy(tail[:], data)
	tail[len(data)] = 0x80
	end := blockSize
	if len(data) > blockSize-9 {
		end = 2 * blockSize
	}
	blocks := n/blockSize + uint64(end/blockSize)
	binary.BigEndian.PutUint64(tail[end-8:end], blocks)
	for b := 0; b < end; b += blockSize {
		compress(&h, tail[b:b+blockSize])
	}
	// Output transformation: the last 256 bits of P(h) ⊕ h.
	p := h
	p.permP()
	var out [Size]byte
	for j := 4; j < 8; j++ {
		binary.BigEndian.PutUint64(out[8*(j-4):], p[j]^h[j])
	}
	return out
}
