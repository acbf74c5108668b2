package cryptonight

import (
	"fmt"
	"testing"
)

// BenchmarkSum measures one hash per variant on a reused Hasher; hashes/s
// is 1e9 / ns/op.
func BenchmarkSum(b *testing.B) {
	input := make([]byte, 76) // a typical block hashing blob's length
	for i := range input {
		input[i] = byte(i)
	}
	for _, v := range []int{V0, V1, V2, R} {
		b.Run(fmt.Sprintf("variant%d", v), func(b *testing.B) {
			h := NewHasher()
			b.SetBytes(int64(len(input)))
			for i := 0; b.Loop(); i++ {
				input[39] = byte(i)
				if _, err := h.Sum(input, v, 1806260+uint64(i)); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "hashes/s")
		})
	}
}

// BenchmarkGenerateV4 measures CryptoNight-R's program generation alone.
func BenchmarkGenerateV4(b *testing.B) {
	var p v4Program
	for i := 0; b.Loop(); i++ {
		generateV4(&p, 1806260+uint64(i))
	}
}
