package jh

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"math/big"
	"sync"
	"testing"

	"github.com/gonero/gonero/internal/testutil"
)

// readVectors reads monero's tests/hash/tests-extra-jh.txt: 321 lines
// in monero v0.18 (the SHA-3 ShortMsgKAT lengths 0..2047 bits that are
// whole bytes, and the LongMsgKAT message).
func readVectors(t *testing.T) []testutil.HashVector {
	vs := testutil.HashVectors(t, "tests-extra-jh.txt", false)
	if len(vs) != 321 {
		t.Fatalf("%d vectors, want 321", len(vs))
	}
	return vs
}

// TestMoneroVectors runs every line of monero's JH vectors through
// Sum256 and through the reference formulation.
func TestMoneroVectors(t *testing.T) {
	for i, v := range readVectors(t) {
		if got := Sum256(v.Input); hex.EncodeToString(got[:]) != v.Want {
			t.Errorf("line %d: Sum256 %x, want %s", i+1, got, v.Want)
		}
		if got := referenceSum256(v.Input); hex.EncodeToString(got[:]) != v.Want {
			t.Errorf("line %d: reference %x, want %s", i+1, got, v.Want)
		}
	}
}

// TestRoundConstants checks the generated constants: the first is the
// fractional part of √2 (whose leading 64 bits are also SHA-512's first
// IV word), and the 42 are distinct.
func TestRoundConstants(t *testing.T) {
	cs := roundConstants()
	if got := hex.EncodeToString(cs[0][:8]); got != "6a09e667f3bcc908" {
		t.Errorf("C0 starts %s", got)
	}
	ref := refConstants()
	seen := map[[32]byte]int{}
	for r, c := range cs {
		if want := refBytes(ref[r]); !bytes.Equal(c[:], want) {
			t.Errorf("C%d = %x, reference %x", r, c, want)
		}
		if p, dup := seen[c]; dup {
			t.Errorf("C%d = C%d", r, p)
		}
		seen[c] = r
	}
}

// TestLinearMap checks that L is a bijection on pairs and that the pair
// table is one too for each S-box selection (so E8 is a permutation).
func TestLinearMap(t *testing.T) {
	for sel := range 4 {
		var seen [256]bool
		for _, v := range pairTable[sel] {
			if seen[v] {
				t.Fatalf("pair table %d repeats %#02x", sel, v)
			}
			seen[v] = true
		}
	}
	var seen [256]bool
	for ab := range 256 {
		c, d := lin(byte(ab>>4), byte(ab&15))
		if seen[c<<4|d] {
			t.Fatalf("L is not a bijection at %#02x", ab)
		}
		seen[c<<4|d] = true
	}
}

// TestGroupRoundTrip checks degroup inverts group on a state with every
// byte distinct.
func TestGroupRoundTrip(t *testing.T) {
	var h, back [stateSize]byte
	for i := range h {
		h[i] = byte(i*37 + 11)
	}
	var q [elements]byte
	group(&h, &q)
	degroup(&q, &back)
	if back != h {
		t.Fatalf("degroup(group(h)) = %x, want %x", back, h)
	}
}

// The reference formulation below is JH-256 written as the specification
// states it, one bit per byte: padding over the whole message, H(0)
// computed from H(-1), and each E8 round as the spec's R8 with P8 applied
// as its three permutations π8, P'8 and φ8 in turn; the round constants
// are made by the same generic R_d with d = 6. It shares only the S-boxes
// with Sum256.

// refBits spreads b's bits one per byte, most significant first.
func refBits(b []byte) []byte {
	out := make([]byte, 8*len(b))
	for i := range out {
		out[i] = b[i/8] >> (7 - i%8) & 1
	}
	return out
}

// refBytes is refBits' inverse.
func refBytes(bs []byte) []byte {
	out := make([]byte, len(bs)/8)
	for i, v := range bs {
		out[i/8] |= v << (7 - i%8)
	}
	return out
}

// refRound is R_d on 2^d 4-bit elements a with 2^d constant bits c.
func refRound(d uint, a, c []byte) []byte {
	n := 1 << d
	v := make([]byte, n)
	for i := range v {
		v[i] = sboxes[c[i]][a[i]]
	}
	w := make([]byte, n)
	for i := 0; i < n; i += 2 {
		// L, bit 0 the most significant.
		var A, B [4]byte
		for j := range 4 {
			A[j], B[j] = v[i]>>(3-j)&1, v[i+1]>>(3-j)&1
		}
		D := [4]byte{B[0] ^ A[1], B[1] ^ A[2], B[2] ^ A[3] ^ A[0], B[3] ^ A[0]}
		C := [4]byte{A[0] ^ D[1], A[1] ^ D[2], A[2] ^ D[3] ^ D[0], A[3] ^ D[0]}
		w[i] = C[0]<<3 | C[1]<<2 | C[2]<<1 | C[3]
		w[i+1] = D[0]<<3 | D[1]<<2 | D[2]<<1 | D[3]
	}
	// π_d: b(4i+2) = a(4i+3), b(4i+3) = a(4i+2).
	x := append([]byte{}, w...)
	for i := 0; i < n; i += 4 {
		x[i+2], x[i+3] = w[i+3], w[i+2]
	}
	// P'_d: b(i) = a(2i), b(i + 2^(d-1)) = a(2i+1).
	y := make([]byte, n)
	for i := range n / 2 {
		y[i], y[i+n/2] = x[2*i], x[2*i+1]
	}
	// φ_d: neighbours in the second half swap.
	z := append([]byte{}, y...)
	for i := n / 2; i < n; i += 2 {
		z[i], z[i+1] = y[i+1], y[i]
	}
	return z
}

// refConstants are the round constants as 256 bits each: C0 = frac(√2),
// C(r+1) = R6(C(r), 0) on C(r) read as 64 elements.
var refConstants = sync.OnceValue(func() (cs [42][]byte) {
	root := new(big.Int).Sqrt(new(big.Int).Lsh(big.NewInt(2), 512))
	root.Sub(root, new(big.Int).Lsh(big.NewInt(1), 256))
	cr := refBits(root.FillBytes(make([]byte, 32)))
	for r := range cs {
		cs[r] = cr
		elems := make([]byte, 64)
		for i := range elems {
			elems[i] = cr[4*i]<<3 | cr[4*i+1]<<2 | cr[4*i+2]<<1 | cr[4*i+3]
		}
		cr = nil
		for _, e := range refRound(6, elems, make([]byte, 64)) {
			cr = append(cr, e>>3&1, e>>2&1, e>>1&1, e&1)
		}
	}
	return cs
})

func refE8(h []byte) []byte { // h: 1024 bits
	consts := refConstants()
	q := make([]byte, 256)
	for i := range 128 {
		q[2*i] = h[i]<<3 | h[i+256]<<2 | h[i+512]<<1 | h[i+768]
		q[2*i+1] = h[i+128]<<3 | h[i+384]<<2 | h[i+640]<<1 | h[i+896]
	}
	for r := range 42 {
		q = refRound(8, q, consts[r])
	}
	out := make([]byte, 1024)
	for i := range 128 {
		for b := range 4 {
			out[i+256*b] = q[2*i] >> (3 - b) & 1
			out[i+128+256*b] = q[2*i+1] >> (3 - b) & 1
		}
	}
	return out
}

// refF8 is the compression function on bits: h 1024, m 512.
func refF8(h, m []byte) []byte {
	h = append([]byte{}, h...)
	for i := range m {
		h[i] ^= m[i]
	}
	h = refE8(h)
	for i := range m {
		h[512+i] ^= m[i]
	}
	return h
}

func referenceSum256(msg []byte) [Size]byte {
	// Padding: a one bit, 383 + (-l mod 512) zero bits, l as 128 bits.
	l := 8 * len(msg)
	bits := append(refBits(msg), 1)
	bits = append(bits, make([]byte, 383+(512-l%512)%512)...)
	var length [16]byte
	binary.BigEndian.PutUint64(length[8:], uint64(l))
	bits = append(bits, refBits(length[:])...)
	h := make([]byte, 1024)
	h[7] = 1 // H(-1): 256 in the first 16 bits
	h = refF8(h, make([]byte, 512))
	for b := 0; b < len(bits); b += 512 {
		h = refF8(h, bits[b:b+512])
	}
	var out [Size]byte
	copy(out[:], refBytes(h[1024-256:]))
	return out
}

// FuzzSum256 checks Sum256 against the reference formulation on any
// input, and that changing any one byte changes the hash.
func FuzzSum256(f *testing.F) {
	f.Add([]byte{}, uint16(0))
	f.Add(make([]byte, 63), uint16(62))
	f.Add(make([]byte, 64), uint16(7)) // a whole block: padding is one block
	f.Add(bytes.Repeat([]byte{0xa5}, 200), uint16(199))
	f.Add(bytes.Repeat([]byte{0xff}, 300), uint16(150))
	f.Fuzz(func(t *testing.T, data []byte, pos uint16) {
		if len(data) > 4096 {
			return
		}
		got := Sum256(data)
		// The reference is slow: it checks the lengths that matter (every
		// padding case, CryptoNight's 200 bytes) and leaves longer inputs
		// to the other checks.
		if len(data) <= 300 {
			if ref := referenceSum256(data); got != ref {
				t.Fatalf("Sum256 %x, reference %x", got, ref)
			}
		}
		if again := Sum256(data); again != got {
			t.Fatalf("not deterministic: %x then %x", got, again)
		}
		if len(data) > 0 {
			flipped := append([]byte{}, data...)
			flipped[int(pos)%len(data)] ^= 1
			if Sum256(flipped) == got {
				t.Fatalf("flipping byte %d left the hash %x", int(pos)%len(data), got)
			}
		}
		if Sum256(append(append([]byte{}, data...), 0)) == got {
			t.Fatal("appending a zero byte left the hash unchanged")
		}
	})
}

// BenchmarkSum256State hashes a CryptoNight final state (200 bytes).
func BenchmarkSum256State(b *testing.B) {
	var st [200]byte
	for i := range st {
		st[i] = byte(i)
	}
	b.SetBytes(int64(len(st)))
	for b.Loop() {
		st[0]++
		Sum256(st[:])
	}
}
