// Package cryptonight computes monerod's cn_slow_hash: CryptoNight in the
// variants Monero used for proof of work before RandomX — v0 (original), v1
// (variant 1), v2 (variants 2 and 3) and CryptoNight-R (variants 4 and 5).
// It knows nothing of blocks: which variant a block uses is the consensus
// package's choice.
//
// Each hash needs a 2 MiB scratchpad. Sum takes one from a bounded package
// pool; a Pool of another size or a single Hasher can be used instead.
package cryptonight

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/bits"

	"github.com/aead/skein"
	"github.com/dchest/blake256"
	"github.com/gonero/gonero/crypto/cryptonight/internal/groestl"
	"github.com/gonero/gonero/crypto/cryptonight/internal/jh"
)

// Size is the length of a CryptoNight hash.
const Size = 32

// Variants as monerod numbers them (cn_slow_hash's variant argument).
const (
	V0 = 0 // original CryptoNight
	V1 = 1 // "monero7": the v1 tweaks
	V2 = 2 // "cn/2": shuffle, integer division and square root
	V3 = 3 // behaves exactly like V2 (monerod treats 2 and 3 alike)
	R  = 4 // CryptoNight-R: shuffle plus a height-seeded random program
	R5 = 5 // behaves exactly like R
)

const (
	scratchpadBytes = 1 << 21
	scratchpadWords = scratchpadBytes / 8
	// iterations counts the main loop's passes; each does two scratchpad
	// accesses (monerod's ITER/2).
	iterations = 1 << 19
	// wordMask turns a 64-bit lane into the word index of a 16-byte block
	// of the scratchpad: (x & 0x1FFFF0) / 8.
	wordMask = (scratchpadBytes - 1) &^ 15 >> 3
	// v1NonceOffset is where the v1 tweak reads the input, whatever the
	// real position of a block's nonce.
	v1NonceOffset = 35
	v1MinInput    = v1NonceOffset + 8
)

var (
	// ErrVariant is returned for a variant outside 0..5.
	ErrVariant = errors.New("cryptonight: unknown variant")
	// ErrShortInput is returned for variant 1 on fewer than 43 bytes
	// (monerod prints "Cryptonight variant 1 needs at least 43 bytes of
	// data" and exits the process).
	ErrShortInput = errors.New("cryptonight: variant 1 needs at least 43 bytes of data")
)

// Hasher holds one scratchpad. It is not safe for concurrent use; a Pool
// shares Hashers between goroutines.
type Hasher struct {
	sp   [scratchpadWords]uint64
	prog v4Program
}

// NewHasher allocates a Hasher (2 MiB).
func NewHasher() *Hasher { return new(Hasher) }

// Sum is cn_slow_hash(data, variant, height). height matters only to
// CryptoNight-R.
func (h *Hasher) Sum(data []byte, variant int, height uint64) ([Size]byte, error) {
	if variant < V0 || variant > R5 {
		return [Size]byte{}, fmt.Errorf("%w %d", ErrVariant, variant)
	}
	if variant == V1 && len(data) < v1MinInput {
		return [Size]byte{}, ErrShortInput
	}
	return h.sum(data, variant, height), nil
}

func (h *Hasher) sum(data []byte, variant int, height uint64) [Size]byte {
	state := keccak1600(data)
	st := stateWords(&state)
	k1 := expandKey(state[0:32])
	k2 := expandKey(state[32:64])
	sp := &h.sp

	// Fill the scratchpad: bytes 64..191 of the state, pseudo-encrypted
	// again and again, 128 bytes at a time.
	var text [16]uint64
	copy(text[:], st[8:24])
	for i := 0; i < scratchpadWords; i += 16 {
		pseudoEncrypt8(&text, &k1)
		copy(sp[i:i+16], text[:])
	}

	switch {
	case variant == V1:
		h.loopV1(&st, binary.LittleEndian.Uint64(data[v1NonceOffset:]))
	case variant >= R:
		generateV4(&h.prog, height)
		h.loopV4(&st)
	case variant >= V2:
		h.loopV2(&st)
	default:
		h.loopV0(&st)
	}

	// Fold the scratchpad back into the state with the second key.
	copy(text[:], st[8:24])
	for i := 0; i < scratchpadWords; i += 16 {
		for j := range text {
			text[j] ^= sp[i+j]
		}
		pseudoEncrypt8(&text, &k2)
	}
	copy(st[8:24], text[:])
	keccakF(&st)
	state = stateBytes(&st)
	return finalHash(&state)
}

// finalHashes are monerod's extra_hashes, chosen by the final state's low
// two bits.
var finalHashes = [4]func([]byte) [Size]byte{
	func(b []byte) [Size]byte { return blake256.Sum256(b) },
	groestl.Sum256,
	jh.Sum256,
	// Skein-512 with a 256-bit output (monerod's skein_hash(256, …)).
	func(b []byte) (out [Size]byte) { skein.Sum256(&out, b, nil); return out },
}

func finalHash(state *[200]byte) [Size]byte {
	return finalHashes[state[0]&3](state[:])
}

// The four main loops below repeat the common step rather than branch on
// the variant inside the hot loop. Notation as in monerod: a and b are the
// registers, c the block read at the first address and passed through one
// AES round, d the block read at the second address.

func (h *Hasher) loopV0(st *[25]uint64) {
	sp := &h.sp
	a0, a1 := st[0]^st[4], st[1]^st[5]
	b0, b1 := st[2]^st[6], st[3]^st[7]
	for range iterations {
		j := a0 >> 3 & wordMask
		c0, c1 := aesRound(sp[j], sp[j|1], a0, a1)
		sp[j], sp[j|1] = c0^b0, c1^b1

		j = c0 >> 3 & wordMask
		d0, d1 := sp[j], sp[j|1]
		hi, lo := bits.Mul64(c0, d0)
		a0 += hi
		a1 += lo
		sp[j], sp[j|1] = a0, a1
		a0 ^= d0
		a1 ^= d1
		b0, b1 = c0, c1
	}
}

// v1Table is the constant of the v1 byte-11 tweak.
const v1Table = 0x75310

func (h *Hasher) loopV1(st *[25]uint64, nonce uint64) {
	sp := &h.sp
	tweak := st[24] ^ nonce
	a0, a1 := st[0]^st[4], st[1]^st[5]
	b0, b1 := st[2]^st[6], st[3]^st[7]
	for range iterations {
		j := a0 >> 3 & wordMask
		c0, c1 := aesRound(sp[j], sp[j|1], a0, a1)
		// The tweak changes byte 11 of the stored block, not c.
		s1 := c1 ^ b1
		t := byte(s1 >> 24)
		idx := ((t>>3)&6 | t&1) << 1
		t ^= byte(uint32(v1Table)>>idx) & 0x30
		sp[j], sp[j|1] = c0^b0, s1&^(0xff<<24)|uint64(t)<<24

		j = c0 >> 3 & wordMask
		d0, d1 := sp[j], sp[j|1]
		hi, lo := bits.Mul64(c0, d0)
		a0 += hi
		a1 += lo
		// Only the stored copy of a carries the tweak.
		sp[j], sp[j|1] = a0, a1^tweak
		a0 ^= d0
		a1 ^= d1
		b0, b1 = c0, c1
	}
}

// sqrtV2 is floor(2·sqrt(2^64 + x) − 2^33), exact: a float64 estimate
// corrected by one either way, as monerod's VARIANT2_INTEGER_MATH_SQRT_FIXUP
// does. The float64 conversion stops the compiler fusing the multiply and
// subtract, which would change the estimate's rounding.
func sqrtV2(x uint64) uint64 {
	r := uint64(float64(math.Sqrt(float64(x)+18446744073709551616.0)*2.0) - 8589934592.0)
	s, b := r>>1, r&1
	r2 := s*(s+b) + r<<32
	var fix uint64
	if r2+b > x {
		fix--
	}
	if r2+1<<32 < x-s {
		fix++
	}
	return r + fix
}

func (h *Hasher) loopV2(st *[25]uint64) {
	sp := &h.sp
	a0, a1 := st[0]^st[4], st[1]^st[5]
	b0, b1 := st[2]^st[6], st[3]^st[7]
	// e is the previous b (monerod's b + 16).
	e0, e1 := st[8]^st[10], st[9]^st[11]
	div, sqr := st[12], st[13]
	for range iterations {
		j := a0 >> 3 & wordMask
		c0, c1 := aesRound(sp[j], sp[j|1], a0, a1)
		shuffle(sp, j, a0, a1, b0, b1, e0, e1)
		sp[j], sp[j|1] = c0^b0, c1^b1

		j = c0 >> 3 & wordMask
		d0, d1 := sp[j], sp[j|1]
		d0 ^= div ^ sqr<<32
		divisor := uint64(uint32(c0+sqr<<1) | 0x80000001)
		div = c1/divisor&0xffffffff | (c1%divisor)<<32
		sqr = sqrtV2(c0 + div)

		hi, lo := bits.Mul64(c0, d0)
		sp[j^2] ^= hi
		sp[j^3] ^= lo
		hi ^= sp[j^4]
		lo ^= sp[j^5]
		shuffle(sp, j, a0, a1, b0, b1, e0, e1)
		a0 += hi
		a1 += lo
		sp[j], sp[j|1] = a0, a1
		a0 ^= d0
		a1 ^= d1
		e0, e1 = b0, b1
		b0, b1 = c0, c1
	}
}

// shuffle is VARIANT2_SHUFFLE_ADD at the block of word index j: the three
// other blocks of its 64-byte line, rotated and added to e (previous b), b
// and a. It returns the XOR of their old values, which CryptoNight-R mixes
// into c.
func shuffle(sp *[scratchpadWords]uint64, j, a0, a1, b0, b1, e0, e1 uint64) (uint64, uint64) {
	j1, j2, j3 := j^2, j^4, j^6
	x0, x1 := sp[j1], sp[j1|1]
	y0, y1 := sp[j2], sp[j2|1]
	z0, z1 := sp[j3], sp[j3|1]
	sp[j1], sp[j1|1] = z0+e0, z1+e1
	sp[j2], sp[j2|1] = x0+b0, x1+b1
	sp[j3], sp[j3|1] = y0+a0, y1+a1
	return x0 ^ y0 ^ z0, x1 ^ y1 ^ z1
}

func (h *Hasher) loopV4(st *[25]uint64) {
	sp := &h.sp
	prog := &h.prog
	a0, a1 := st[0]^st[4], st[1]^st[5]
	b0, b1 := st[2]^st[6], st[3]^st[7]
	e0, e1 := st[8]^st[10], st[9]^st[11]
	// r0..r3 persist across iterations; r4..r8 are reloaded each time.
	var r [9]uint32
	r[0], r[1], r[2], r[3] = uint32(st[12]), uint32(st[12]>>32), uint32(st[13]), uint32(st[13]>>32)
	for range iterations {
		j := a0 >> 3 & wordMask
		c0, c1 := aesRound(sp[j], sp[j|1], a0, a1)
		x0, x1 := shuffle(sp, j, a0, a1, b0, b1, e0, e1)
		c0 ^= x0
		c1 ^= x1
		sp[j], sp[j|1] = c0^b0, c1^b1

		j = c0 >> 3 & wordMask
		d0, d1 := sp[j], sp[j|1]
		d0 ^= uint64(r[0]+r[1]) | uint64(r[2]+r[3])<<32
		r[4], r[5], r[6], r[7], r[8] = uint32(a0), uint32(a1), uint32(b0), uint32(e0), uint32(e1)
		prog.run(&r)
		// The program's result changes the a that is added to and stored;
		// the shuffle below still uses the a of the iteration's start.
		f0 := a0 ^ (uint64(r[2]) | uint64(r[3])<<32)
		f1 := a1 ^ (uint64(r[0]) | uint64(r[1])<<32)

		hi, lo := bits.Mul64(c0, d0)
		x0, x1 = shuffle(sp, j, a0, a1, b0, b1, e0, e1)
		c0 ^= x0
		c1 ^= x1
		f0 += hi
		f1 += lo
		sp[j], sp[j|1] = f0, f1
		a0, a1 = f0^d0, f1^d1
		e0, e1 = b0, b1
		b0, b1 = c0, c1
	}
}
