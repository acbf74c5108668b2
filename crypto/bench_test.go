package crypto

import (
	"testing"

	"filippo.io/edwards25519"
)

func BenchmarkHashToEC(b *testing.B) {
	key := h.Bytes()
	for b.Loop() {
		HashToEC(key)
	}
}

func BenchmarkCheckKeyImage(b *testing.B) {
	x := ScalarFromUint64(123456789)
	pub := new(edwards25519.Point).ScalarBaseMult(x)
	ki, _ := GenerateKeyImage(pub.Bytes(), x)
	for b.Loop() {
		if !CheckKeyImage(ki[:]) {
			b.Fatal("refused")
		}
	}
}

func BenchmarkDecodePoint(b *testing.B) {
	key := h.Bytes()
	for b.Loop() {
		DecodePoint(key)
	}
}
