package groestl

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"testing"

	"github.com/gonero/gonero/internal/testutil"
)

// readVectors reads monero's tests/hash/tests-extra-groestl.txt: 321 lines
// in monero v0.18 (the SHA-3 ShortMsgKAT lengths 0..2047 bits that are
// whole bytes, and the LongMsgKAT message).
func readVectors(t *testing.T) []testutil.HashVector {
	vs := testutil.HashVectors(t, "tests-extra-groestl.txt", false)
	if len(vs) != 321 {
		t.Fatalf("%d vectors, want 321", len(vs))
	}
	return vs
}

// TestMoneroVectors runs every line of monero's Grøstl vectors through
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

// TestSbox checks the generated S-box against FIPS-197's well-known
// values and that it is a permutation.
func TestSbox(t *testing.T) {
	for x, want := range map[byte]byte{0x00: 0x63, 0x01: 0x7c, 0x53: 0xed, 0xff: 0x16, 0x10: 0xca} {
		if sbox[x] != want {
			t.Errorf("S(%#02x) = %#02x, want %#02x", x, sbox[x], want)
		}
	}
	var seen [256]bool
	for _, s := range sbox {
		if seen[s] {
			t.Fatalf("S-box repeats %#02x", s)
		}
		seen[s] = true
	}
}

// referenceSum256 is Grøstl-256 written as the specification states it:
// an 8×8 byte matrix, padding over the whole message, and each step of a
// round on its own (byte-wise AddRoundConstant, SubBytes, ShiftBytes,
// MixBytes as a matrix product with explicit GF(2^8) multiplications).
// It shares only the S-box and mul with Sum256.
func referenceSum256(msg []byte) [Size]byte {
	type matrix [8][8]byte // [row][column]
	fromBytes := func(b []byte) (m matrix) {
		for k, v := range b[:64] {
			m[k%8][k/8] = v
		}
		return m
	}
	xor := func(a, b matrix) (m matrix) {
		for i := range m {
			for j := range m[i] {
				m[i][j] = a[i][j] ^ b[i][j]
			}
		}
		return m
	}
	perm := func(m matrix, q bool) matrix {
		for r := range 10 {
			for j := range 8 {
				if q {
					for i := range 8 {
						m[i][j] ^= 0xff
					}
					m[7][j] ^= byte(j<<4 ^ r)
				} else {
					m[0][j] ^= byte(j<<4 ^ r)
				}
			}
			for i := range 8 {
				for j := range 8 {
					m[i][j] = sbox[m[i][j]]
				}
			}
			shifts := [8]int{0, 1, 2, 3, 4, 5, 6, 7}
			if q {
				shifts = [8]int{1, 3, 5, 7, 0, 2, 4, 6}
			}
			var sh matrix
			for i := range 8 {
				for j := range 8 {
					sh[i][j] = m[i][(j+shifts[i])%8]
				}
			}
			b := [8]byte{2, 2, 3, 4, 5, 3, 5, 7}
			for j := range 8 {
				for i := range 8 {
					var v byte
					for k := range 8 {
						v ^= mul(b[(k-i+8)%8], sh[k][j])
					}
					m[i][j] = v
				}
			}
		}
		return m
	}
	// Pad: a one bit, zero bits up to 64 bits short of a block boundary,
	// then the number of blocks as a 64-bit big-endian integer.
	padded := append(append([]byte{}, msg...), 0x80)
	for len(padded)%64 != 56 {
		padded = append(padded, 0)
	}
	padded = binary.BigEndian.AppendUint64(padded, uint64(len(padded)+8)/64)
	var iv [64]byte
	iv[62] = 1 // 256 as a big-endian integer in the last bytes
	h := fromBytes(iv[:])
	for b := 0; b < len(padded); b += 64 {
		m := fromBytes(padded[b:])
		h = xor(xor(perm(xor(h, m), false), perm(m, true)), h)
	}
	h = xor(perm(h, false), h)
	var out [Size]byte
	for k := range out {
		out[k] = h[(k+32)%8][(k+32)/8]
	}
	return out
}

// FuzzSum256 checks Sum256 against the reference formulation on any
// input, and that changing any one byte changes the hash.
func FuzzSum256(f *testing.F) {
	f.Add([]byte{}, uint16(0))
	f.Add(make([]byte, 55), uint16(54))
	f.Add(make([]byte, 56), uint16(7)) // the first length needing a second padding block
	f.Add(bytes.Repeat([]byte{0xa5}, 200), uint16(199))
	f.Add(bytes.Repeat([]byte{0xff}, 1000), uint16(500))
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
		// Appending a zero byte must change the hash (length is hashed).
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
