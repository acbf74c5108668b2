package cryptonight

import (
	"bytes"
	"encoding/hex"
	"errors"
	"testing"
)

// fuzzPool has one Hasher, so every fuzz input runs on a scratchpad the
// previous one left dirty.
var fuzzPool = NewPool(1)

// FuzzCryptoNight checks internal consistency on any input, variant and
// height: no panic; errors exactly for unknown variants and short v1 input;
// and a reused pooled Hasher equals a fresh one. Correctness itself is
// checked against monerod: TestDifferentialAgainstMonerod and the
// tests/hash vectors.
func FuzzCryptoNight(f *testing.F) {
	// Seeds: a mainnet v9 hashing blob (block 1731606), the v1 vector
	// minimum, an empty input.
	blob, _ := hex.DecodeString("0909d692f5e005b9f62b42bb2bd434ad6d549c8002e4bec44201c837ee3953d6685d641a21bdd4e7a1c2f54d2d941c760c3e4fef5808e42c3bbe9f49157af609c33c2b5afe4c1444060bcd04")
	f.Add(blob, uint8(V2), uint64(1731606))
	f.Add(make([]byte, 43), uint8(V1), uint64(0))
	f.Add(blob, uint8(R), uint64(1806260))
	f.Add([]byte{}, uint8(V0), uint64(0))
	f.Add(bytes.Repeat([]byte{0xff}, 300), uint8(R5), ^uint64(0))
	f.Fuzz(func(t *testing.T, data []byte, v uint8, height uint64) {
		if len(data) > 4096 {
			return
		}
		variant := int(v%8) - 1 // -1 .. 6: the two ends are invalid
		pooled, err := fuzzPool.Sum(data, variant, height)
		switch {
		case variant < V0 || variant > R5:
			if !errors.Is(err, ErrVariant) {
				t.Fatalf("variant %d: %v", variant, err)
			}
			return
		case variant == V1 && len(data) < 43:
			if !errors.Is(err, ErrShortInput) {
				t.Fatalf("v1 on %d bytes: %v", len(data), err)
			}
			return
		case err != nil:
			t.Fatal(err)
		}
		fresh, err := NewHasher().Sum(data, variant, height)
		if err != nil || fresh != pooled {
			t.Fatalf("fresh %x (%v) != pooled %x", fresh, err, pooled)
		}
	})
}
