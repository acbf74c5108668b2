package helioselene

import (
	"bytes"
	"math/big"
	"testing"
)

// le32 is the 32-byte little-endian encoding of v (v < 2^256).
func le32(v *big.Int) []byte {
	b := make([]byte, 32)
	vb := v.Bytes()
	for i := range vb {
		b[i] = vb[len(vb)-1-i]
	}
	return b
}

// TestPointDecodeRefuses checks the refusals the reference makes beyond the oracle's eight encodings
// per curve: a non-canonical x that would reduce to a valid one, x = 0 with the sign bit, wrong lengths.
func TestPointDecodeRefuses(t *testing.T) {
	p25519Int, _ := new(big.Int).SetString(modulus25519, 16)
	pHSInt, _ := new(big.Int).SetString(modulusHS, 16)
	g := HeliosGenerator().Bytes() // x = 3
	nonCanon := le32(new(big.Int).Add(p25519Int, big.NewInt(3)))
	nonCanon[31] |= g[31] & 0x80
	if _, err := new(HeliosPoint).SetBytes(nonCanon); err == nil {
		t.Error("Helios: x = p + 3 accepted")
	}
	sg := SeleneGenerator().Bytes() // x = 1
	nonCanon = le32(new(big.Int).Add(pHSInt, big.NewInt(1)))
	nonCanon[31] |= sg[31] & 0x80
	if _, err := new(SelenePoint).SetBytes(nonCanon); err == nil {
		t.Error("Selene: x = p + 1 accepted")
	}
	negZero := make([]byte, 32)
	negZero[31] = 0x80
	if _, err := new(HeliosPoint).SetBytes(negZero); err == nil {
		t.Error("Helios: -0 accepted")
	}
	if _, err := new(SelenePoint).SetBytes(negZero); err == nil {
		t.Error("Selene: -0 accepted")
	}
	for _, n := range []int{0, 31, 33} {
		if _, err := new(HeliosPoint).SetBytes(make([]byte, n)); err == nil {
			t.Errorf("Helios: %d bytes accepted", n)
		}
		if _, err := new(SelenePoint).SetBytes(make([]byte, n)); err == nil {
			t.Errorf("Selene: %d bytes accepted", n)
		}
	}
	// The generator with the other sign bit is -G.
	g[31] ^= 0x80
	q, err := new(HeliosPoint).SetBytes(g[:])
	if err != nil || !q.Equal(new(HeliosPoint).Negate(HeliosGenerator())) {
		t.Errorf("Helios: flipped sign is not -G (%v)", err)
	}
}

// TestGroupLaws checks the arithmetic beyond the vectors: the curves' orders (the other field's
// modulus) annihilate the generator, and scalar multiplication distributes.
func TestGroupLaws(t *testing.T) {
	var minusOneHS HelioseleneField
	minusOneHS.One()
	minusOneHS.Negate(&minusOneHS)
	// (q-1)·G + G = identity on Helios, whose order is the Helioselene modulus.
	h := new(HeliosPoint).ScalarMult(&minusOneHS, HeliosGenerator())
	if !new(HeliosPoint).Add(h, HeliosGenerator()).IsIdentity() {
		t.Error("Helios: order·G is not the identity")
	}
	var minusOne25519 Field25519
	minusOne25519.One()
	minusOne25519.Negate(&minusOne25519)
	s := new(SelenePoint).ScalarMult(&minusOne25519, SeleneGenerator())
	if !new(SelenePoint).Add(s, SeleneGenerator()).IsIdentity() {
		t.Error("Selene: order·G is not the identity")
	}
	id := NewHeliosPoint()
	if !new(HeliosPoint).Double(id).IsIdentity() || !new(HeliosPoint).Add(id, id).IsIdentity() {
		t.Error("Helios: identity arithmetic")
	}
	if !new(HeliosPoint).Add(id, HeliosGenerator()).Equal(HeliosGenerator()) {
		t.Error("Helios: G + 0 != G")
	}
	if _, _, err := id.XY(); err == nil {
		t.Error("Helios: identity has affine coordinates")
	}
	if !bytes.Equal(hexBytes(NewSelenePoint().Bytes()), make([]byte, 32)) {
		t.Error("Selene: identity encoding")
	}
}

func hexBytes(b [32]byte) []byte { return b[:] }
