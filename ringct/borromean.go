package ringct

import (
	"errors"
	"fmt"

	"filippo.io/edwards25519"

	"github.com/gonero/gonero/crypto"
	"github.com/gonero/gonero/cryptonote"
)

// h2 is monerod's table H2: h2[i] = 2^i·H.
var h2 = func() (t [64]edwards25519.Point) {
	t[0].Set(crypto.H())
	for i := 1; i < 64; i++ {
		t[i].Add(&t[i-1], &t[i-1])
	}
	return t
}()

// twoTo256 is 2^256 mod ℓ.
var twoTo256 = func() *edwards25519.Scalar {
	var wide [64]byte
	wide[32] = 1
	s, _ := edwards25519.NewScalar().SetUniformBytes(wide[:])
	return s
}()

// slide runs ref10's slide recoding (the signed-window form
// ge_double_scalarmult_base_vartime uses) of the 256-bit little-endian a
// into digits r (0, ±1 … ±15) and counts the carries it drops past digit
// 255. Each dropped carry makes the digits represent 2^256 less than a.
func slide(r *[256]int, a *[32]byte) int {
	for i := range r {
		r[i] = int(a[i>>3]>>(i&7)) & 1
	}
	lost := 0
	for i := range r {
		if r[i] == 0 {
			continue
		}
		for b := 1; b <= 6 && i+b < 256; b++ {
			if r[i+b] == 0 {
				continue
			}
			if r[i]+(r[i+b]<<b) <= 15 {
				r[i] += r[i+b] << b
				r[i+b] = 0
			} else if r[i]-(r[i+b]<<b) >= -15 {
				r[i] -= r[i+b] << b
				k := i + b
				for ; k < 256; k++ {
					if r[k] == 0 {
						r[k] = 1
						break
					}
					r[k] = 0
				}
				if k == 256 {
					lost++
				}
			} else {
				break
			}
		}
	}
	return lost
}

// effectiveScalar is the scalar monerod's ge_double_scalarmult_base_vartime
// multiplies G by when handed the 32 bytes b without a canonicity check, as
// verRange does with Borromean s0/s1: b itself when b < ℓ, otherwise b's
// 256-bit value reduced mod ℓ, less 2^256 for each carry the ref10 slide
// recoding drops past bit 255.
func effectiveScalar(b [32]byte) *edwards25519.Scalar {
	s := edwards25519.NewScalar()
	if _, err := s.SetCanonicalBytes(b[:]); err == nil {
		return s
	}
	s = crypto.ReduceScalar32(b[:])
	var digits [256]int
	for range slide(&digits, &b) {
		s.Subtract(s, twoTo256)
	}
	return s
}

// VerifyBorromean is monerod's verRange (RingCT types 1 and 2): the
// Borromean range proof rs of the output commitment C. Every Ci must decode
// and ΣCi must encode to C; with P1_i = Ci, P2_i = Ci − 2^i·H, ee and the
// 64 (s0, s1) pairs: L_i = s0_i·G + ee·P1_i, c_i = Hs(L_i),
// L'_i = s1_i·G + c_i·P2_i, and Hs(L'_0 ‖ … ‖ L'_63) must equal ee. The s0
// and s1 scalars are used as monerod uses them, unchecked and unreduced
// (effectiveScalar); ee must be canonical since it is compared with a hash.
// It returns nil when the proof is valid.
func VerifyBorromean(C cryptonote.Key, rs *cryptonote.RangeSig) error {
	if rs == nil {
		return ErrNilSignature
	}
	var ee edwards25519.Scalar
	if err := decodeScalar(&ee, rs.Ee[:]); err != nil {
		return fmt.Errorf("ringct: Borromean ee: %w", err)
	}
	var P1 [64]edwards25519.Point
	sum := edwards25519.NewIdentityPoint()
	for i := range P1 {
		if err := decodePoint(&P1[i], rs.Ci[i][:]); err != nil {
			return fmt.Errorf("ringct: Borromean Ci[%d]: %w", i, err)
		}
		sum.Add(sum, &P1[i])
	}
	if [32]byte(sum.Bytes()) != C {
		return errors.New("ringct: Borromean Ci do not sum to the commitment")
	}
	h := newHasher()
	var (
		buf  [64 * 32]byte
		L    edwards25519.Point
		P2   edwards25519.Point
		c, e edwards25519.Scalar
	)
	for i := range P1 {
		L.VarTimeDoubleScalarBaseMult(&ee, &P1[i], effectiveScalar(rs.S0[i]))
		h.scalar(&c, L.Bytes())
		P2.Subtract(&P1[i], &h2[i])
		L.VarTimeDoubleScalarBaseMult(&c, &P2, effectiveScalar(rs.S1[i]))
		copy(buf[32*i:], L.Bytes())
	}
	h.scalar(&e, buf[:])
	if e.Equal(&ee) != 1 {
		return ErrMismatch
	}
	return nil
}
