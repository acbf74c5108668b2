package crypto

import (
	"filippo.io/edwards25519"
)

// CheckRingSignature is check_ring_signature, the v1 (pre-RingCT) ring
// signature of one input: ring keys pubs, key image ki, message prefixHash
// and n signature pairs (c_i ‖ r_i). With L_i = r_i·G + c_i·P_i and
// R_i = r_i·Hp(P_i) + c_i·I it is valid iff
// Hs(m ‖ L_0 ‖ R_0 ‖ … ‖ L_{n−1} ‖ R_{n−1}) = Σ c_i.
//
// Every c_i and r_i must be canonical and every point must decode. Like
// monerod, it does not test the key image's subgroup (a separate rule does).
func CheckRingSignature(prefixHash [32]byte, ki [32]byte, pubs [][32]byte, sigs [][64]byte) bool {
	n := len(pubs)
	if n == 0 || len(sigs) != n {
		return false
	}
	image, err := DecodePoint(ki[:])
	if err != nil {
		return false
	}
	buf := make([]byte, 0, 32+64*n)
	buf = append(buf, prefixHash[:]...)
	sum := edwards25519.NewScalar()
	var L, R edwards25519.Point
	for i := range n {
		c, err := DecodeScalar(sigs[i][:32])
		if err != nil {
			return false
		}
		r, err := DecodeScalar(sigs[i][32:])
		if err != nil {
			return false
		}
		p, err := DecodePoint(pubs[i][:])
		if err != nil {
			return false
		}
		hp, err := HashToEC(pubs[i][:])
		if err != nil {
			return false
		}
		L.VarTimeDoubleScalarBaseMult(c, p, r)
		R.VarTimeMultiScalarMult([]*edwards25519.Scalar{r, c}, []*edwards25519.Point{hp, image})
		buf = append(buf, L.Bytes()...)
		buf = append(buf, R.Bytes()...)
		sum.Add(sum, c)
	}
	h := HashToScalar(buf)
	return h.Equal(sum) == 1
}
