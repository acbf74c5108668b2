// Code in this file is the template of selene.go (TestGeneratedInSync keeps them equal up to names;
// `go test -run TestGeneratedInSync -update` rewrites selene.go). Edit this file, not selene.go.

package helioselene

import (
	"errors"
	"math/big"

	"golang.org/x/crypto/blake2b"
)

// HeliosPoint is a point of Helios, y² = x³ - 3x + b over Field25519, in projective coordinates
// (X : Y : Z) with x = X/Z, y = Y/Z; the identity is (0 : 1 : 0). The zero value is not a valid point:
// use NewHeliosPoint, HeliosGenerator or SetBytes.
type HeliosPoint struct {
	x, y, z Field25519
}

// ErrHeliosEncoding is returned for 32 bytes that do not encode a Helios point the way the reference
// encodes it (see SetBytes).
var ErrHeliosEncoding = errors.New("helioselene: invalid Helios point encoding")

// ErrHeliosIdentity is returned by XY for the identity, which has no affine coordinates.
var ErrHeliosIdentity = errors.New("helioselene: the Helios identity has no affine coordinates")

// heliosB, heliosB3: the curve's b and 3b (3b appears in the complete formulas).
var heliosB, heliosB3 Field25519

// heliosG is the generator the reference fixes.
var heliosG HeliosPoint

func init() {
	heliosB = mustField25519(heliosBHex)
	heliosB3.Add(&heliosB, &heliosB)
	heliosB3.Add(&heliosB3, &heliosB)
	heliosG = HeliosPoint{x: mustField25519(heliosGXHex), y: mustField25519(heliosGYHex)}
	heliosG.z.One()
}

// mustField25519 decodes a big-endian hex constant.
func mustField25519(h string) Field25519 {
	v, ok := new(big.Int).SetString(h, 16)
	if !ok {
		panic("helioselene: bad constant " + h)
	}
	var b [32]byte
	vb := v.Bytes()
	for i := range vb {
		b[i] = vb[len(vb)-1-i]
	}
	var z Field25519
	if _, err := z.SetBytes(b[:]); err != nil {
		panic("helioselene: bad constant " + h)
	}
	return z
}

// NewHeliosPoint returns the identity.
func NewHeliosPoint() *HeliosPoint {
	p := new(HeliosPoint)
	p.y.One()
	return p
}

// HeliosGenerator returns the generator.
func HeliosGenerator() *HeliosPoint {
	p := heliosG
	return &p
}

// Set sets p = q.
func (p *HeliosPoint) Set(q *HeliosPoint) *HeliosPoint { *p = *q; return p }

// Identity sets p to the identity.
func (p *HeliosPoint) Identity() *HeliosPoint {
	p.x.Zero()
	p.y.One()
	p.z.Zero()
	return p
}

// IsIdentity reports whether p is the identity (Z = 0: the complete formulas keep the identity at
// (0 : Y : 0), and no affine point has Z = 0).
func (p *HeliosPoint) IsIdentity() bool { return p.z.IsZero() }

// Equal reports whether p and q are the same point.
func (p *HeliosPoint) Equal(q *HeliosPoint) bool {
	var a, b Field25519
	a.Mul(&p.x, &q.z)
	b.Mul(&q.x, &p.z)
	if !a.Equal(&b) {
		return false
	}
	a.Mul(&p.y, &q.z)
	b.Mul(&q.y, &p.z)
	return a.Equal(&b)
}

// Negate sets p = -q.
func (p *HeliosPoint) Negate(q *HeliosPoint) *HeliosPoint {
	p.x = q.x
	p.y.Negate(&q.y)
	p.z = q.z
	return p
}

// Add sets p = q + r, with the complete addition for a = -3 of Renes, Costello and Batina,
// "Complete addition formulas for prime order elliptic curves" (eprint 2015/1060), algorithm 4. It holds
// for every pair of inputs, the identity and q = r included.
func (p *HeliosPoint) Add(q, r *HeliosPoint) *HeliosPoint {
	var t0, t1, t2, t3, t4, x3, y3, z3 Field25519
	t0.Mul(&q.x, &r.x)
	t1.Mul(&q.y, &r.y)
	t2.Mul(&q.z, &r.z)
	t3.Add(&q.x, &q.y)
	t4.Add(&r.x, &r.y)
	t3.Mul(&t3, &t4)
	t4.Add(&t0, &t1)
	t3.Sub(&t3, &t4)
	t4.Add(&q.y, &q.z)
	x3.Add(&r.y, &r.z)
	t4.Mul(&t4, &x3)
	x3.Add(&t1, &t2)
	t4.Sub(&t4, &x3)
	x3.Add(&q.x, &q.z)
	y3.Add(&r.x, &r.z)
	x3.Mul(&x3, &y3)
	y3.Add(&t0, &t2)
	y3.Sub(&x3, &y3)
	z3.Mul(&heliosB, &t2)
	x3.Sub(&y3, &z3)
	z3.Add(&x3, &x3)
	x3.Add(&x3, &z3)
	z3.Sub(&t1, &x3)
	x3.Add(&t1, &x3)
	y3.Mul(&heliosB, &y3)
	t1.Add(&t2, &t2)
	t2.Add(&t1, &t2)
	y3.Sub(&y3, &t2)
	y3.Sub(&y3, &t0)
	t1.Add(&y3, &y3)
	y3.Add(&t1, &y3)
	t1.Add(&t0, &t0)
	t0.Add(&t1, &t0)
	t0.Sub(&t0, &t2)
	t1.Mul(&t4, &y3)
	t2.Mul(&t0, &y3)
	y3.Mul(&x3, &z3)
	y3.Add(&y3, &t2)
	x3.Mul(&t3, &x3)
	x3.Sub(&x3, &t1)
	z3.Mul(&t4, &z3)
	t1.Mul(&t3, &t0)
	z3.Add(&z3, &t1)
	p.x, p.y, p.z = x3, y3, z3
	return p
}

// Sub sets p = q - r.
func (p *HeliosPoint) Sub(q, r *HeliosPoint) *HeliosPoint {
	var n HeliosPoint
	n.Negate(r)
	return p.Add(q, &n)
}

// Double sets p = 2q with dbl-2007-bl-2 for a = -3 (the reference's formula: 7M + 3S, cheaper than the
// complete doubling). It is exact for every point but the identity, which it would turn into (0 : 0 : 0),
// so the identity is selected back, without a branch, as the reference does. (A prime-order curve has no
// point with y = 0, the formula's other exception.)
func (p *HeliosPoint) Double(q *HeliosPoint) *HeliosPoint {
	var w, t, s, ss, sss, r, rr, bb, h, x3, y3 Field25519
	w.Sub(&q.x, &q.z)
	t.Add(&q.x, &q.z)
	w.Mul(&w, &t)
	t.Double(&w)
	w.Add(&t, &w) // w = 3(X - Z)(X + Z) = 3X² + aZ²
	s.Mul(&q.y, &q.z)
	s.Double(&s) // s = 2YZ
	ss.Square(&s)
	sss.Mul(&s, &ss)
	r.Mul(&q.y, &s)
	rr.Square(&r)
	bb.Mul(&q.x, &r)
	bb.Double(&bb) // B = 2XR
	h.Square(&w)
	t.Double(&bb)
	h.Sub(&h, &t) // h = w² - 2B
	x3.Mul(&h, &s)
	y3.Sub(&bb, &h)
	y3.Mul(&w, &y3)
	t.Double(&rr)
	y3.Sub(&y3, &t)
	zl := q.z.l[0] | q.z.l[1] | q.z.l[2] | q.z.l[3]
	id := 1 ^ ((zl | -zl) >> 63) // 1 for the identity (Z = 0)
	var one, zero Field25519
	one.One()
	p.x.Select(&zero, &x3, id)
	p.y.Select(&one, &y3, id)
	p.z.Select(&zero, &sss, id)
	return p
}

// Select sets p = a if cond == 1 and p = b if cond == 0, without branching on cond.
func (p *HeliosPoint) Select(a, b *HeliosPoint, cond uint64) *HeliosPoint {
	p.x.Select(&a.x, &b.x, cond)
	p.y.Select(&a.y, &b.y, cond)
	p.z.Select(&a.z, &b.z, cond)
	return p
}

// ScalarMult sets p = k·q, by a fixed 4-bit window whose table is read without branching on the
// scalar's digits (the reference does the same).
func (p *HeliosPoint) ScalarMult(k *HelioseleneField, q *HeliosPoint) *HeliosPoint {
	var table [16]HeliosPoint
	table[0].Identity()
	table[1] = *q
	for i := 2; i < 16; i++ {
		table[i].Add(&table[i-1], q)
	}
	kb := k.Bytes()
	var r, t HeliosPoint
	r.Identity()
	for i := 63; i >= 0; i-- {
		d := uint64(kb[i/2]>>(4*uint(i%2))) & 15
		r.Double(&r)
		r.Double(&r)
		r.Double(&r)
		r.Double(&r)
		t.Identity()
		for j := range table {
			t.Select(&table[j], &t, eqMask(uint64(j), d))
		}
		r.Add(&r, &t)
	}
	*p = r
	return p
}

// XY returns the affine coordinates (the reference's to_xy), or ErrHeliosIdentity for the identity.
func (p *HeliosPoint) XY() (x, y Field25519, err error) {
	var zi Field25519
	if _, ok := zi.Invert(&p.z); !ok {
		return x, y, ErrHeliosIdentity
	}
	x.Mul(&p.x, &zi)
	y.Mul(&p.y, &zi)
	return x, y, nil
}

// Bytes returns the reference's encoding: x little-endian, y's parity in bit 255; the identity is 32
// zero bytes.
func (p *HeliosPoint) Bytes() [32]byte {
	x, y, err := p.XY()
	if err != nil {
		return [32]byte{}
	}
	b := x.Bytes()
	if y.IsOdd() {
		b[31] |= 0x80
	}
	return b
}

// heliosRecoverY returns a y with y² = x³ - 3x + b, and whether there is one.
func heliosRecoverY(x *Field25519) (Field25519, bool) {
	var r, t Field25519
	r.Square(x)
	r.Mul(&r, x)
	t.Add(x, x)
	t.Add(&t, x)
	r.Sub(&r, &t)
	r.Add(&r, &heliosB)
	y, ok := new(Field25519).Sqrt(&r)
	return *y, ok
}

// SetBytes decodes 32 bytes as the reference's from_bytes (read_G) does. It refuses any length other
// than 32, an x (bit 255 cleared) that is not a canonical field element, an x with no point on the
// curve, and the identity's x = 0 with the sign bit set; the y whose parity is the sign bit is chosen.
// Every accepted encoding is canonical: Bytes gives it back.
func (p *HeliosPoint) SetBytes(b []byte) (*HeliosPoint, error) {
	if len(b) != 32 {
		return nil, ErrHeliosEncoding
	}
	var xb [32]byte
	copy(xb[:], b)
	sign := xb[31] >> 7
	xb[31] &= 0x7f
	var x Field25519
	if _, err := x.SetBytes(xb[:]); err != nil {
		return nil, ErrHeliosEncoding
	}
	if x.IsZero() {
		if sign != 0 {
			return nil, ErrHeliosEncoding
		}
		return p.Identity(), nil
	}
	y, ok := heliosRecoverY(&x)
	if !ok {
		return nil, ErrHeliosEncoding
	}
	// A prime-order curve has no point with y = 0, so the parity always picks exactly one root.
	if y.IsOdd() != (sign == 1) {
		y.Negate(&y)
	}
	p.x, p.y = x, y
	p.z.One()
	return p, nil
}

// HeliosHashToF is the Helios ciphersuite's hash_to_F: BLAKE2b-512(dst || msg) as a little-endian
// integer reduced mod the scalar field's order.
func HeliosHashToF(dst, msg []byte) HelioseleneField {
	h := blake2b.Sum512(append(append([]byte{}, dst...), msg...))
	var z HelioseleneField
	z.SetWideBytes(&h)
	return z
}
