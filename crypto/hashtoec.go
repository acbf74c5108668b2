package crypto

import (
	"filippo.io/edwards25519"
	"filippo.io/edwards25519/field"
)

// The map F of monerod's ge_fromfe_frombytes_vartime, from 32 bytes to a
// curve point (an Elligator-like map Monero uses for key images, ring
// signatures and the Bulletproof generators). Constants, over GF(p) with
// A = 486662:
//
//	ma  = −A, ma2 = −A²
//	fffb1 = √(−2A(A+2)), fffb2 = √(2A(A+2)), fffb3 = √(−√−1·A(A+2)), fffb4 = √(√−1·A(A+2))
//
// The sign of these roots does not matter: the x coordinate's sign is set
// at the end from the branch taken.
var (
	feA, feMA, feMA2, feSqrtM1   field.Element
	feFFFB1, feFFFB2, feFFFB3    field.Element
	feFFFB4, feOne, fe19, feZero field.Element
)

func init() {
	feOne.One()
	feA.Zero()
	feA.Mult32(&feOne, 486662)
	feMA.Negate(&feA)
	feMA2.Square(&feA)
	feMA2.Negate(&feMA2)
	fe19.Mult32(&feOne, 19)
	// √−1: the non-negative root of −1.
	var minusOne field.Element
	minusOne.Negate(&feOne)
	feSqrtM1.SqrtRatio(&minusOne, &feOne)

	// A(A+2)
	var a2, aa2 field.Element
	a2.Add(&feA, &feOne)
	a2.Add(&a2, &feOne)
	aa2.Multiply(&feA, &a2)
	var t field.Element
	t.Add(&aa2, &aa2) // 2A(A+2)
	mustSqrt(&feFFFB2, &t)
	t.Negate(&t) // −2A(A+2)
	mustSqrt(&feFFFB1, &t)
	t.Multiply(&feSqrtM1, &aa2) // √−1·A(A+2)
	mustSqrt(&feFFFB4, &t)
	t.Negate(&t)
	mustSqrt(&feFFFB3, &t)
}

func mustSqrt(dst, x *field.Element) {
	if _, ok := dst.SqrtRatio(x, &feOne); ok != 1 {
		panic("crypto: hash_to_ec constant is not a square")
	}
}

// HashToPoint is ge_fromfe_frombytes_vartime (monerod's tests call it
// hash_to_point): F applied to 32 raw bytes, without hashing and without
// the cofactor.
//
// For the few inputs where F has no affine image (z + w = 0, which no hash
// output is known to reach) it returns ErrBadPoint rather than panicking.
func HashToPoint(b []byte) (*edwards25519.Point, error) {
	// u: the 32 bytes as a little-endian integer including bit 255, mod p.
	// field.SetBytes drops bit 255; 2^255 ≡ 19 (mod p).
	var u field.Element
	if len(b) != 32 {
		return nil, ErrBadPoint
	}
	if _, err := u.SetBytes(b); err != nil {
		return nil, ErrBadPoint
	}
	if b[31]&0x80 != 0 {
		u.Add(&u, &fe19)
	}
	var v, w, x, y, z, r field.Element
	v.Square(&u)
	v.Add(&v, &v) // 2u²
	w.Add(&v, &feOne)
	x.Square(&w)
	y.Multiply(&feMA2, &v)
	x.Add(&x, &y) // w² − A²·v
	divPowM1(&r, &w, &x)
	y.Square(&r)
	x.Multiply(&y, &x) // c = r²·x
	var sign int
	y.Subtract(&w, &x)
	if y.Equal(&feZero) == 1 {
		r.Multiply(&r, &feFFFB2)
		r.Multiply(&r, &u)
		z.Multiply(&feMA, &v)
		sign = 0
	} else if y.Add(&w, &x); y.Equal(&feZero) == 1 {
		r.Multiply(&r, &feFFFB1)
		r.Multiply(&r, &u)
		z.Multiply(&feMA, &v)
		sign = 0
	} else {
		x.Multiply(&x, &feSqrtM1)
		y.Subtract(&w, &x)
		if y.Equal(&feZero) == 1 {
			r.Multiply(&r, &feFFFB4)
		} else {
			r.Multiply(&r, &feFFFB3)
		}
		z.Set(&feMA)
		sign = 1
	}
	if r.IsNegative() != sign {
		r.Negate(&r)
	}
	// Projective (X·(z+w) : z−w : z+w); extended T = X·(z−w).
	var X, Y, Z, T field.Element
	Z.Add(&z, &w)
	Y.Subtract(&z, &w)
	X.Multiply(&r, &Z)
	T.Multiply(&r, &Y)
	p, err := new(edwards25519.Point).SetExtendedCoordinates(&X, &Y, &Z, &T)
	if err != nil {
		return nil, ErrBadPoint
	}
	return p, nil
}

// divPowM1 is fe_divpowm1: (u/v)^((p+3)/8) = u·v³·(u·v⁷)^((p−5)/8).
func divPowM1(out, u, v *field.Element) {
	var v3, uv7, t field.Element
	v3.Square(v)
	v3.Multiply(&v3, v) // v³
	uv7.Square(&v3)
	uv7.Multiply(&uv7, v)
	uv7.Multiply(&uv7, u) // u·v⁷
	t.Pow22523(&uv7)
	t.Multiply(&t, &v3)
	out.Multiply(&t, u)
}

// HashToEC is hash_to_ec (Hp): 8·F(Keccak-256(b)), where b is normally a
// public key. It does not require b to decode, as monerod does not.
func HashToEC(b []byte) (*edwards25519.Point, error) {
	h := Keccak256(b)
	p, err := HashToPoint(h[:])
	if err != nil {
		return nil, err
	}
	return p.MultByCofactor(p), nil
}
