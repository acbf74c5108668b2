// Package msm is ringct's one door to github.com/oasisprotocol/curve25519-voi:
// the points, scalars and variable-time multiscalar multiplications of the
// verifiers' hot loops (CLSAG's ring loop, the Bulletproof and Bulletproof+
// batch). Everything else in gonero computes on filippo.io/edwards25519
// (package crypto); values cross between the two only as encodings.
//
// Why a second library: voi's MultiscalarMulVartime (AVX2 field arithmetic,
// Straus for few terms, Pippenger above ~190) beats edwards25519's
// VarTimeMultiScalarMult at every size the verifiers use. BenchmarkSum, user
// CPU time per sum at -test.cpu 1 (edwards25519 v1.2.0 against voi
// 20230904; 2-core Xeon, loaded): 3 terms (a CLSAG ring member's sums)
// 49 µs against 66 µs; 280 (a 2-output Bulletproof+ batch) 1.7 ms against
// 3.6 ms; 2100 (a 16-output one) 9.7 ms against 39.5 ms. Should edwards25519
// catch up, this package is the only one to change.
package msm

import (
	"filippo.io/edwards25519"
	"github.com/oasisprotocol/curve25519-voi/curve"
	"github.com/oasisprotocol/curve25519-voi/curve/scalar"
)

// Point is a point of edwards25519. New, Decode and FromEdwards make one;
// methods set their receiver and return it. The zero Point is no point, but
// serves as a destination.
type Point struct{ p curve.EdwardsPoint }

// Scalar is a scalar mod ℓ.
type Scalar struct{ s scalar.Scalar }

// New returns the identity, to use as a destination.
func New() *Point {
	p := new(Point)
	p.p.Identity()
	return p
}

// Decode decodes b with monerod's rules (ge_frombytes_vartime, as
// crypto.DecodePoint): canonical y < p, x recovered from y, and no "x = 0
// with the sign bit set". voi's SetCompressedY alone is laxer (it reduces
// y mod p and ignores the sign of a zero x); IsCanonicalVartime refuses
// exactly those encodings. ringct's TestDecodeVoiMatchesCrypto and
// FuzzDecodeVoi hold the two decoders to the same set.
func Decode(b []byte) (*Point, bool) {
	var c curve.CompressedEdwardsY
	if len(b) != 32 {
		return nil, false
	}
	copy(c[:], b)
	if !c.IsCanonicalVartime() {
		return nil, false
	}
	p := new(Point)
	if _, err := p.p.SetCompressedY(&c); err != nil {
		return nil, false
	}
	return p, true
}

// FromEdwards converts a point of edwards25519 by its encoding.
func FromEdwards(p *edwards25519.Point) *Point {
	v, ok := Decode(p.Bytes())
	if !ok {
		panic("msm: point does not survive its encoding")
	}
	return v
}

// Encode writes p's 32-byte encoding to dst.
func (p *Point) Encode(dst *[32]byte) {
	var c curve.CompressedEdwardsY
	c.SetEdwardsPoint(&p.p)
	*dst = c
}

// Bytes is p's 32-byte encoding.
func (p *Point) Bytes() []byte {
	var b [32]byte
	p.Encode(&b)
	return b[:]
}

// Sub sets p = a − b.
func (p *Point) Sub(a, b *Point) *Point {
	p.p.Sub(&a.p, &b.p)
	return p
}

// MulByCofactor sets p = 8·q.
func (p *Point) MulByCofactor(q *Point) *Point {
	p.p.MulByCofactor(&q.p)
	return p
}

// Mul sets p = s·q (constant time).
func (p *Point) Mul(q *Point, s *Scalar) *Point {
	p.p.Mul(&q.p, &s.s)
	return p
}

// IsIdentity reports whether p is the identity.
func (p *Point) IsIdentity() bool { return p.p.IsIdentity() }

// NewScalar converts a (canonical) edwards25519 scalar.
func NewScalar(s *edwards25519.Scalar) *Scalar {
	return new(Scalar).Set(s)
}

// Set sets v to the (canonical) edwards25519 scalar s.
func (v *Scalar) Set(s *edwards25519.Scalar) *Scalar {
	if _, err := v.s.SetCanonicalBytes(s.Bytes()); err != nil {
		panic("msm: scalar is not canonical") // an edwards25519.Scalar always is
	}
	return v
}

// Mul sets v = a·b.
func (v *Scalar) Mul(a, b *Scalar) *Scalar {
	v.s.Mul(&a.s, &b.s)
	return v
}

// Terms is a sum Σ sᵢ·Pᵢ being built. It holds the pointers it is given:
// the scalars and points must not change until Sum.
type Terms struct {
	s []*scalar.Scalar
	p []*curve.EdwardsPoint
}

// MakeTerms returns an empty sum with room for n terms.
func MakeTerms(n int) Terms {
	return Terms{s: make([]*scalar.Scalar, 0, n), p: make([]*curve.EdwardsPoint, 0, n)}
}

// Add appends the term s·p.
func (t *Terms) Add(s *Scalar, p *Point) {
	t.s = append(t.s, &s.s)
	t.p = append(t.p, &p.p)
}

// Sum sets dst to the sum of the terms, in variable time (verification
// handles public values only), and returns it.
func (t *Terms) Sum(dst *Point) *Point {
	dst.p.MultiscalarMulVartime(t.s, t.p)
	return dst
}

// Sum3 sets p = a·A + b·B + c·C in variable time, the shape of a CLSAG ring
// member's two sums, without allocating: nothing it is given escapes.
func (p *Point) Sum3(a *Scalar, A *Point, b *Scalar, B *Point, c *Scalar, C *Point) *Point {
	s := [3]*scalar.Scalar{&a.s, &b.s, &c.s}
	q := [3]*curve.EdwardsPoint{&A.p, &B.p, &C.p}
	p.p.MultiscalarMulVartime(s[:], q[:])
	return p
}

// Expanded is a point with its lookup table of odd multiples built once,
// for a point that takes part in many sums (the generator G, a CLSAG's
// combined key-image term): a sum with a Point builds that table every
// time.
type Expanded struct{ e curve.ExpandedEdwardsPoint }

// Expand returns p with its table.
func Expand(p *Point) *Expanded {
	e := new(Expanded)
	e.e.SetEdwardsPoint(&p.p)
	return e
}

// SumE1P2 sets p = a·A + b·B + c·C in variable time, A expanded (a CLSAG's
// L with A = G).
func (p *Point) SumE1P2(a *Scalar, A *Expanded, b *Scalar, B *Point, c *Scalar, C *Point) *Point {
	ss := [1]*scalar.Scalar{&a.s}
	sp := [1]*curve.ExpandedEdwardsPoint{&A.e}
	ds := [2]*scalar.Scalar{&b.s, &c.s}
	dp := [2]*curve.EdwardsPoint{&B.p, &C.p}
	p.p.ExpandedMultiscalarMulVartime(ss[:], sp[:], ds[:], dp[:])
	return p
}

// SumE1P1 sets p = a·A + b·B in variable time, A expanded (a CLSAG's R
// with A its combined key-image term).
func (p *Point) SumE1P1(a *Scalar, A *Expanded, b *Scalar, B *Point) *Point {
	ss := [1]*scalar.Scalar{&a.s}
	sp := [1]*curve.ExpandedEdwardsPoint{&A.e}
	ds := [1]*scalar.Scalar{&b.s}
	dp := [1]*curve.EdwardsPoint{&B.p}
	p.p.ExpandedMultiscalarMulVartime(ss[:], sp[:], ds[:], dp[:])
	return p
}

// Sum2 sets p = a·A + b·B in variable time.
func (p *Point) Sum2(a *Scalar, A *Point, b *Scalar, B *Point) *Point {
	s := [2]*scalar.Scalar{&a.s, &b.s}
	q := [2]*curve.EdwardsPoint{&A.p, &B.p}
	p.p.MultiscalarMulVartime(s[:], q[:])
	return p
}
