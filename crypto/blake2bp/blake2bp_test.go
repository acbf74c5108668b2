package blake2bp

import (
	"bytes"
	"testing"

	"golang.org/x/crypto/blake2b"
)

// TestBlake2bAgainstXCrypto: with no personalisation, Sum is
// plain keyed BLAKE2b, which x/crypto computes; every output length, key
// lengths 0 to 64 and inputs across block boundaries.
func TestBlake2bAgainstXCrypto(t *testing.T) {
	data := make([]byte, 300)
	for i := range data {
		data[i] = byte(i*7 + 3)
	}
	for _, keyLen := range []int{0, 1, 32, 64} {
		key := data[:keyLen]
		for _, dataLen := range []int{0, 1, 127, 128, 129, 255, 256, 257, 300} {
			for outLen := 1; outLen <= 64; outLen++ {
				h, err := blake2b.New(outLen, key)
				if err != nil {
					t.Fatal(err)
				}
				h.Write(data[:dataLen])
				want := h.Sum(nil)
				got := make([]byte, outLen)
				// Split the input to exercise the streaming writes.
				Sum(got, key, nil, data[:dataLen/3], data[dataLen/3:dataLen])
				if !bytes.Equal(got, want) {
					t.Fatalf("key %d data %d out %d: %x, want %x", keyLen, dataLen, outLen, got, want)
				}
			}
		}
	}
}
