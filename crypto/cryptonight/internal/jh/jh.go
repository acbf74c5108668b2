// Package jh is JH-256, the SHA-3 finalist in its final (round 3, 42
// rounds) version: the hash monerod's jh.c computes and CryptoNight uses
// as one of its four finalizers.
//
// This follows the specification's description of E8 (H. Wu, "The Hash
// Function JH", 2011) rather than its bit-slice form: the 1024-bit state
// is grouped into 256 4-bit elements, each round substitutes every element
// through one of two S-boxes chosen by a round-constant bit, mixes
// neighbours with the linear map L and permutes the elements with P8. The
// substitution and L of a pair are merged into one table look-up and P8
// into an index table, all computed at init from the definitions, as are
// the 42 round constants (from the fractional part of √2, each the image
// of the previous under the 6-dimensional round with constant zero).
package jh

import (
	"encoding/binary"
	"math/big"
)

// Size is the length of a JH-256 hash.
const Size = 32

const (
	blockSize = 64  // JH compresses 512-bit blocks
	stateSize = 128 // into a 1024-bit state
	rounds    = 42  // rounds of E8 in the final version (35 before)
	elements  = 256 // 4-bit elements of the grouped state
)

// sboxes are S0 and S1; a round-constant bit picks one for each element.
var sboxes = [2][16]byte{
	{9, 0, 4, 11, 13, 12, 3, 15, 1, 10, 2, 6, 7, 5, 8, 14},
	{3, 12, 6, 13, 5, 7, 1, 9, 15, 2, 0, 4, 11, 10, 14, 8},
}

// lin is the linear map L on a pair of 4-bit elements, an MDS code over
// GF(2^4). Bit 0 of an element is its most significant bit.
func lin(a, b byte) (c, d byte) {
	bit := func(x byte, i int) byte { return x >> (3 - i) & 1 }
	a0, a1, a2, a3 := bit(a, 0), bit(a, 1), bit(a, 2), bit(a, 3)
	b0, b1, b2, b3 := bit(b, 0), bit(b, 1), bit(b, 2), bit(b, 3)
	d0 := b0 ^ a1
	d1 := b1 ^ a2
	d2 := b2 ^ a3 ^ a0
	d3 := b3 ^ a0
	c0 := a0 ^ d1
	c1 := a1 ^ d2
	c2 := a2 ^ d3 ^ d0
	c3 := a3 ^ d0
	return c0<<3 | c1<<2 | c2<<1 | c3, d0<<3 | d1<<2 | d2<<1 | d3
}

// permSource returns P_d = φ_d ∘ P'_d ∘ π_d on 2^d elements as a gather
// table: element k after the permutation is element src[k] before it.
//   - π_d swaps the last two of every four elements;
//   - P'_d puts the even elements in the first half and the odd ones in
//     the second, keeping their order;
//   - φ_d swaps neighbours in the second half.
func permSource(d uint) []int {
	n := 1 << d
	half := n / 2
	pi := func(k int) int {
		if k&2 != 0 {
			return k ^ 1
		}
		return k
	}
	pPrime := func(k int) int {
		if k < half {
			return 2 * k
		}
		return 2*(k-half) + 1
	}
	phi := func(k int) int {
		if k >= half {
			return k ^ 1
		}
		return k
	}
	src := make([]int, n)
	for k := range src {
		src[k] = pi(pPrime(phi(k)))
	}
	return src
}

// roundSource is P8's gather table.
var roundSource [elements]uint8

// pairTable[sel][a<<4|b] is S-boxes then L on the pair (a, b), packed as
// c<<4|d; sel's high bit picks a's S-box, its low bit b's.
var pairTable [4][256]byte

// selectors[r][i] is round r's sel for pair i.
var selectors [rounds][elements / 2]uint8

// initialState is H(0): H(-1), the output size in bits in its first two
// bytes, compressed with an all-zero block.
var initialState [stateSize]byte

func init() {
	for k, s := range permSource(8) {
		roundSource[k] = uint8(s)
	}
	for sel := range 4 {
		for ab := range 256 {
			c, d := lin(sboxes[sel>>1][ab>>4], sboxes[sel&1][ab&15])
			pairTable[sel][ab] = c<<4 | d
		}
	}
	for r, c := range roundConstants() {
		for i := range elements / 2 {
			// Bits 2i and 2i+1 of the constant, most significant first.
			selectors[r][i] = c[i/4] >> (6 - 2*(i%4)) & 3
		}
	}
	initialState[0], initialState[1] = 256>>8, 256&0xff
	compress(&initialState, make([]byte, blockSize))
}

// roundConstants returns E8's 42 256-bit constants: the first is the
// fractional part of √2; each next one is the previous, as 64 4-bit
// elements, through R6 with an all-zero constant (S0 everywhere).
func roundConstants() (cs [rounds][32]byte) {
	root := new(big.Int).Sqrt(new(big.Int).Lsh(big.NewInt(2), 512))
	// √2·2^256 has 257 bits: drop the integer part, 1.
	copy(cs[0][:], root.FillBytes(make([]byte, 33))[1:])
	src := permSource(6)
	for r := 1; r < rounds; r++ {
		var e, w [64]byte
		for i := range e {
			e[i] = cs[r-1][i/2] >> (4 - 4*(i%2)) & 15
		}
		for i := 0; i < 64; i += 2 {
			w[i], w[i+1] = lin(sboxes[0][e[i]], sboxes[0][e[i+1]])
		}
		for k := range e {
			e[k] = w[src[k]]
		}
		for i := range cs[r] {
			cs[r][i] = e[2*i]<<4 | e[2*i+1]
		}
	}
	return cs
}

// element is the element that holds bit i+256·b of H (i < 256) in its
// bit b (bit 0 the most significant): element 2i for i < 128, 2(i-128)+1
// otherwise.
func element(i int) int {
	if i < 128 {
		return 2 * i
	}
	return 2*(i-128) + 1
}

// group arranges H's 1024 bits into 256 elements: element 2i holds bits
// i, i+256, i+512, i+768 and element 2i+1 bits i+128, i+384, i+640,
// i+896 (i < 128), the first of each in the element's top bit. Byte m of
// H holds bits 8m..8m+7, which all go to the same bit b = m/32 of eight
// elements.
func group(h *[stateSize]byte, q *[elements]byte) {
	*q = [elements]byte{}
	for m, v := range h {
		shift := 3 - m/32
		base := 8 * (m % 32)
		for t := range 8 {
			q[element(base+t)&(elements-1)] |= v >> (7 - t) & 1 << shift
		}
	}
}

// degroup is group's inverse.
func degroup(q *[elements]byte, h *[stateSize]byte) {
	for m := range h {
		shift := 3 - m/32
		base := 8 * (m % 32)
		var v byte
		for t := range 8 {
			v |= q[element(base+t)&(elements-1)] >> shift & 1 << (7 - t)
		}
		h[m] = v
	}
}

// e8 is JH's bijection on the 1024-bit state. Each round reads its pairs
// through the previous round's permutation: pair i of a round is elements
// roundSource[2i] and roundSource[2i+1] of the previous round's output
// (the identity before the first round).
func e8(h *[stateSize]byte) {
	var q, w [elements]byte
	group(h, &q)
	sel := &selectors[0]
	for i := range elements / 2 {
		v := pairTable[sel[i]&3][q[2*i]<<4|q[2*i+1]]
		w[2*i], w[2*i+1] = v>>4, v&15
	}
	in, out := &w, &q
	for r := 1; r < rounds; r++ {
		sel := &selectors[r]
		for i := range elements / 2 {
			v := pairTable[sel[i]&3][in[roundSource[2*i]]<<4|in[roundSource[2*i+1]]]
			out[2*i], out[2*i+1] = v>>4, v&15
		}
		in, out = out, in
	}
	for k, s := range roundSource {
		out[k] = in[s]
	}
	degroup(out, h)
}

// compress is F8: the block enters the first half of the state before E8
// and the second half after it.
func compress(h *[stateSize]byte, block []byte) {
	for i := range blockSize {
		h[i] ^= block[i]
	}
	e8(h)
	for i := range blockSize {
		h[blockSize+i] ^= block[i]
	}
}

// Sum256 returns the JH-256 hash of data.
func Sum256(data []byte) [Size]byte {
	h := initialState
	n := uint64(len(data))
	for len(data) >= blockSize {
		compress(&h, data[:blockSize])
		data = data[blockSize:]
	}
	// Padding: 0x80, zeros, then the message length in bits as a 128-bit
	// big-endian number, filling whole blocks; unlike most hashes JH
	// always pads by at least a full block, so an empty tail still gets
	// one block and any other tail two.
	var tail [2 * blockSize]byte
	copy(tail[:], data)
	tail[len(data)] = 0x80
	end := blockSize
	if len(data) > 0 {
		end = 2 * blockSize
	}
	binary.BigEndian.PutUint64(tail[end-16:], n>>61)
	binary.BigEndian.PutUint64(tail[end-8:], n<<3)
	for b := 0; b < end; b += blockSize {
		compress(&h, tail[b:b+blockSize])
	}
	var out [Size]byte
	copy(out[:], h[stateSize-Size:])
	return out
}
