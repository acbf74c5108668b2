package ec

import (
	"errors"

	"filippo.io/edwards25519"

	"github.com/gonero/gonero/crypto"
)

// ErrTorsionClear is returned by ClearTorsion for bytes that are not a point, or whose prime-order part
// is the identity (monerod refuses such an output for the curve tree).
var ErrTorsionClear = errors.New("ec: point is invalid for the curve tree")

// invEight is 8⁻¹ mod ℓ.
var invEight = func() *edwards25519.Scalar {
	eight := crypto.ScalarFromUint64(8)
	return edwards25519.NewScalar().Invert(eight)
}()

// ClearTorsion is monerod master's get_valid_torsion_cleared_point_vartime (src/fcmp_pp/fcmp_pp_crypto.cpp):
// the point decoded as ge_frombytes_vartime decodes it, multiplied by 8⁻¹ mod ℓ and then by 8, which keeps
// its prime-order component and drops any torsion. It refuses an undecodable point and a result equal to
// the identity (a point of small order).
func ClearTorsion(b []byte) ([32]byte, error) {
	p, err := crypto.DecodePoint(b)
	if err != nil {
		return [32]byte{}, ErrTorsionClear
	}
	p.ScalarMult(invEight, p)
	p.MultByCofactor(p)
	if p.Equal(edwards25519.NewIdentityPoint()) == 1 {
		return [32]byte{}, ErrTorsionClear
	}
	return [32]byte(p.Bytes()), nil
}

// HasTorsion reports whether the decoded point has a torsion component (ClearTorsion would change it).
func HasTorsion(p *edwards25519.Point) bool {
	q := new(edwards25519.Point).ScalarMult(invEight, p)
	q.MultByCofactor(q)
	return q.Equal(p) != 1
}
