package carrot

import (
	"encoding/hex"
	"errors"
	"fmt"

	"filippo.io/edwards25519"
	"filippo.io/edwards25519/field"

	"github.com/gonero/gonero/crypto"
)

// Point is a compressed Edwards25519 point (a public key, commitment, key
// image or one-time address).
type Point [32]byte

// X25519 is a Montgomery u-coordinate: the enote ephemeral pubkey D_e and
// the uncontextualised ECDH secret s_sr.
type X25519 [32]byte

// Scalar is a canonical little-endian scalar modulo ℓ.
type Scalar [32]byte

func (p Point) String() string  { return hex.EncodeToString(p[:]) }
func (x X25519) String() string { return hex.EncodeToString(x[:]) }
func (s Scalar) String() string { return hex.EncodeToString(s[:]) }

// generatorTHex is the FCMP++ generator T as monerod master hard-codes it
// (src/crypto/generators.cpp at 0aa9c51bd8eb53abb0a7023b5c768d9b46ee18a0,
// copied from the fcmp-oracle's xcheck/master_generators_TUV.txt). fcmp/ec
// holds the same constant; it sits in this package's layer, so neither
// imports the other, and TestAgreesWithFcmpEC keeps the two equal.
// carrot-rs's vectors that involve T (K_ps, K_s and everything after the
// one-time address) pass with it, and fail with the older T that
// kayabaNerve/fcmp-plus-plus d06d9518 derives.
const generatorTHex = "61b736ce93b62a3d3778ab204da85d3b4cdc07250f5da7e3df2629928134d526"

var generatorT = func() *edwards25519.Point {
	b, _ := hex.DecodeString(generatorTHex)
	p, err := crypto.DecodePoint(b)
	if err != nil {
		panic("carrot: generator T does not decode")
	}
	return p
}()

// T returns the FCMP++ generator T.
func T() Point { return Point(generatorT.Bytes()) }

// Errors of the decoders and of the arithmetic on hostile points.
var (
	ErrBadPoint  = errors.New("carrot: not a canonical Edwards25519 point")
	ErrBadScalar = errors.New("carrot: not a canonical scalar (≥ ℓ)")
	ErrBadX25519 = errors.New("carrot: not a canonical X25519 u-coordinate")
	ErrTorsion   = errors.New("carrot: point has a torsion component")
	ErrLength    = errors.New("carrot: wrong length")
)

// point decodes p as the reference's arithmetic does before using a point
// that is not a decoder's output: anything on the curve. The Parse
// functions are stricter (canonical only).
func (p Point) point() (*edwards25519.Point, error) {
	q, err := new(edwards25519.Point).SetBytes(p[:])
	if err != nil {
		return nil, ErrBadPoint
	}
	return q, nil
}

func (s Scalar) scalar() *edwards25519.Scalar {
	// Every Scalar made here is canonical; one filled in by a caller may
	// not be, and is reduced rather than refused (ParseScalar refuses).
	var wide [64]byte
	copy(wide[:], s[:])
	r, _ := edwards25519.NewScalar().SetUniformBytes(wide[:])
	return r
}

func scalarOf(s *edwards25519.Scalar) Scalar { return Scalar(s.Bytes()) }

func pointOf(p *edwards25519.Point) Point { return Point(p.Bytes()) }

// ParsePoint decodes a canonical compressed Edwards25519 point (y < p, no
// negative zero), as monerod's ge_frombytes_vartime does.
func ParsePoint(b []byte) (Point, error) {
	if len(b) != 32 {
		return Point{}, fmt.Errorf("%w: point of %d bytes, want 32", ErrLength, len(b))
	}
	if _, err := crypto.DecodePoint(b); err != nil {
		return Point{}, ErrBadPoint
	}
	return Point(b), nil
}

// ParseAddressPoint decodes a point of an address (K^j_s, K^j_v): canonical,
// not the identity and torsion-free. Carrot's sender refuses a view pubkey
// with torsion, and a spend pubkey with torsion or the identity yields
// outputs that cannot be spent.
func ParseAddressPoint(b []byte) (Point, error) {
	p, err := ParsePoint(b)
	if err != nil {
		return Point{}, err
	}
	q, _ := p.point()
	if q.Equal(edwards25519.NewIdentityPoint()) == 1 {
		return Point{}, fmt.Errorf("%w: the identity", ErrBadPoint)
	}
	if !crypto.IsInPrimeSubgroup(q) {
		return Point{}, ErrTorsion
	}
	return p, nil
}

// ParseScalar decodes a canonical scalar (< ℓ).
func ParseScalar(b []byte) (Scalar, error) {
	if len(b) != 32 {
		return Scalar{}, fmt.Errorf("%w: scalar of %d bytes, want 32", ErrLength, len(b))
	}
	if _, err := edwards25519.NewScalar().SetCanonicalBytes(b); err != nil {
		return Scalar{}, ErrBadScalar
	}
	return Scalar(b), nil
}

// fieldP is 2^255-19, little-endian.
var fieldP = [32]byte{0xed, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f}

// ParseX25519 decodes an enote ephemeral pubkey: a u-coordinate below p
// with the top bit clear. X25519 arithmetic ignores the top bit and reduces
// u mod p, so without this check 19 or 20 encodings would name one key.
func ParseX25519(b []byte) (X25519, error) {
	if len(b) != 32 {
		return X25519{}, fmt.Errorf("%w: X25519 key of %d bytes, want 32", ErrLength, len(b))
	}
	for i := 31; i >= 0; i-- {
		if b[i] < fieldP[i] {
			return X25519(b), nil
		}
		if b[i] > fieldP[i] {
			return X25519{}, ErrBadX25519
		}
	}
	return X25519{}, ErrBadX25519 // u == p
}

// x25519 is the unclamped Montgomery ladder: u([k]P) for the integer k
// given by the scalar's 255 low bits. Carrot multiplies by reduced scalars
// (k_v, d_e), never by RFC 7748's clamped ones, so
// golang.org/x/crypto/curve25519 (which clamps) does not compute it. Like
// the reference (curve25519-dalek's MontgomeryPoint), it ignores u's top
// bit, reduces u mod p, and works on the twist too.
func x25519(k *edwards25519.Scalar, u X25519) X25519 {
	var x1 field.Element
	if _, err := x1.SetBytes(u[:]); err != nil {
		panic(err) // 32 bytes always
	}
	kb := k.Bytes()
	var x2, z2, x3, z3, a, aa, b, bb, e, c, d, da, cb field.Element
	x2.One()
	z2.Zero()
	x3.Set(&x1)
	z3.One()
	swap := 0
	for t := 254; t >= 0; t-- {
		kt := int(kb[t/8]>>(t%8)) & 1
		swap ^= kt
		x2.Swap(&x3, swap)
		z2.Swap(&z3, swap)
		swap = kt
		a.Add(&x2, &z2)
		aa.Square(&a)
		b.Subtract(&x2, &z2)
		bb.Square(&b)
		e.Subtract(&aa, &bb)
		c.Add(&x3, &z3)
		d.Subtract(&x3, &z3)
		da.Multiply(&d, &a)
		cb.Multiply(&c, &b)
		x3.Add(&da, &cb)
		x3.Square(&x3)
		z3.Subtract(&da, &cb)
		z3.Square(&z3)
		z3.Multiply(&z3, &x1)
		x2.Multiply(&aa, &bb)
		z2.Mult32(&e, 121665)
		z2.Add(&z2, &aa)
		z2.Multiply(&z2, &e)
	}
	x2.Swap(&x3, swap)
	z2.Swap(&z3, swap)
	z2.Invert(&z2) // 0 for z2 = 0, as the reference: u = 0
	x2.Multiply(&x2, &z2)
	return X25519(x2.Bytes())
}

// montgomery is ConvertPointE: the u-coordinate (1+y)/(1-y) of an Edwards
// point (0 for the identity, as the reference).
func montgomery(p *edwards25519.Point) X25519 { return X25519(p.BytesMontgomery()) }

// mulGT is x G + y T, in constant time: x and y are secrets (account keys,
// one-time address extensions).
func mulGT(x, y *edwards25519.Scalar) *edwards25519.Point {
	p := new(edwards25519.Point).ScalarBaseMult(x)
	return p.Add(p, new(edwards25519.Point).ScalarMult(y, generatorT))
}
