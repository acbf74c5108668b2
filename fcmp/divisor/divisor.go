// Package divisor computes the divisor of an Ed25519 scalar multiplication as d06d9518's ec-divisors
// crate does (ScalarDecomposition::new and scalar_mul_divisor): the function on Wei25519 whose zeros are
// -s·G and the decomposition's multiples of G (as many copies of 2^i·G as coefficient i says), with a
// pole at infinity only. An FCMP++ prover commits to such divisors; a verifier only evaluates committed
// ones, so this serves the checker and the tests (the oracle's `divisor` vector).
//
// The function is kept as A(x) + y·B(x), reduced by the curve equation y² = x³ + ax + b. Such a
// function is unique up to a constant; the reference's products and quotients of monic lines make it
// monic (the coefficient of its highest pole order is 1), and so is this one.
package divisor

import (
	"errors"

	"filippo.io/edwards25519"

	"github.com/gonero/gonero/fcmp/ec"
	"github.com/gonero/gonero/fcmp/helioselene"
)

type fe = helioselene.Field25519

// ScalarBits is the bit length of Ed25519 scalars (ff's NUM_BITS): the decomposition's length and the
// sum of its coefficients.
const ScalarBits = 253

// Decompose is ScalarDecomposition::new: coefficients c_i with Σ c_i·2^i = s (mod l) and Σ c_i =
// ScalarBits. It refuses zero.
func Decompose(s *edwards25519.Scalar) ([]uint64, error) {
	if s.Equal(edwards25519.NewScalar()) == 1 {
		return nil, errors.New("divisor: zero scalar")
	}
	b := s.Bytes()
	dec := make([]uint64, ScalarBits)
	for i := range dec {
		dec[i] = uint64(b[i/8]>>(i%8)) & 1
	}
	// A scalar below ScalarBits has too few bits to reach the sum: l is added (the bits of l-1, plus 1).
	small := true
	for i := 1; i < 32; i++ {
		if b[i] != 0 {
			small = false
		}
	}
	if small && uint64(b[0]) < ScalarBits {
		lm1 := new(edwards25519.Scalar).Subtract(edwards25519.NewScalar(), oneScalar()).Bytes()
		for i := range dec {
			dec[i] += uint64(lm1[i/8]>>(i%8)) & 1
		}
		dec[0]++
	}
	var sum uint64
	for _, c := range dec {
		sum += c
	}
	// Too high a sum: the lowest coefficient above 1 gives 2 for 1 more at the next position, one at a
	// time, for log2(ScalarBits) rounds.
	log2 := 0
	for 1<<log2 < ScalarBits {
		log2++
	}
	for r := 0; r < log2 && sum != ScalarBits; r++ {
		for i := 0; i < ScalarBits-1; i++ {
			if dec[i] > 1 {
				dec[i] -= 2
				dec[i+1]++
				sum--
				break
			}
		}
	}
	// Too low: the highest non-zero coefficient gives 1 for 2 at the position below, one at a time.
	for r := 0; r < ScalarBits && sum != ScalarBits; r++ {
		for i := ScalarBits - 1; i >= 1; i-- {
			if dec[i] != 0 {
				dec[i]--
				dec[i-1] += 2
				sum++
				break
			}
		}
	}
	if sum != ScalarBits {
		return nil, errors.New("divisor: decomposition did not reach its sum")
	}
	return dec, nil
}

func oneScalar() *edwards25519.Scalar {
	s, _ := new(edwards25519.Scalar).SetCanonicalBytes([]byte{1, 31: 0})
	return s
}

// Poly is a divisor in the reference's layout: Y[0] the coefficient of y, YX[0][i] of y·x^(i+1),
// X[i] of x^(i+1), Zero the constant.
type Poly struct {
	Y    []fe
	YX   [][]fe
	X    []fe
	Zero fe
}

// fn is A(x) + y·B(x).
type fn struct{ a, b []fe }

// curve is Wei25519's y² = x³ + ax + b.
type curve struct{ a, b fe }

func polyMul(p, q []fe) []fe {
	if len(p) == 0 || len(q) == 0 {
		return nil
	}
	r := make([]fe, len(p)+len(q)-1)
	var t fe
	for i := range p {
		for j := range q {
			t.Mul(&p[i], &q[j])
			r[i+j].Add(&r[i+j], &t)
		}
	}
	return r
}

func polyAdd(p, q []fe) []fe {
	if len(p) < len(q) {
		p, q = q, p
	}
	r := append([]fe{}, p...)
	for i := range q {
		r[i].Add(&r[i], &q[i])
	}
	return r
}

func (c *curve) mul(f, g fn) fn {
	// y² = x³ + ax + b.
	y2 := []fe{c.b, c.a, {}, {}}
	y2[3].One()
	return fn{
		a: polyAdd(polyMul(f.a, g.a), polyMul(y2, polyMul(f.b, g.b))),
		b: polyAdd(polyMul(f.a, g.b), polyMul(f.b, g.a)),
	}
}

// divMonic divides p by the monic d exactly; a remainder is an error.
func divMonic(p, d []fe) ([]fe, error) {
	if len(d) == 0 {
		return nil, errors.New("divisor: division by zero")
	}
	if len(p) < len(d) {
		for i := range p {
			if !p[i].IsZero() {
				return nil, errors.New("divisor: inexact division")
			}
		}
		return nil, nil
	}
	r := append([]fe{}, p...)
	q := make([]fe, len(p)-len(d)+1)
	var t fe
	for i := len(q) - 1; i >= 0; i-- {
		q[i] = r[i+len(d)-1]
		for j := range d {
			t.Mul(&q[i], &d[j])
			r[i+j].Sub(&r[i+j], &t)
		}
	}
	for i := 0; i < len(d)-1; i++ {
		if !r[i].IsZero() {
			return nil, errors.New("divisor: inexact division")
		}
	}
	return q, nil
}

// point is an Ed25519 point with its Wei25519 coordinates (none for the identity).
type point struct {
	p    *edwards25519.Point
	x, y fe
	inf  bool
}

func mkPoint(p *edwards25519.Point) point {
	x, y, err := ec.ToWei25519(p)
	return point{p: p, x: x, y: y, inf: err != nil}
}

func (a point) add(b point) point { return mkPoint(new(edwards25519.Point).Add(a.p, b.p)) }
func (a point) neg() point        { return mkPoint(new(edwards25519.Point).Negate(a.p)) }
func (a point) eq(b point) bool   { return a.p.Equal(b.p) == 1 }

// line is the reference's line through a and b (the tangent when they are equal, the vertical
// through one when the other is the identity or its inverse, 1 through two identities), monic.
func line(a, b point) fn {
	var one fe
	one.One()
	switch {
	case a.inf && b.inf:
		return fn{a: []fe{one}}
	case a.inf || b.inf || a.add(b).inf:
		x := a.x
		if a.inf {
			x = b.x
		}
		var nx fe
		nx.Negate(&x)
		return fn{a: []fe{nx, one}}
	}
	if a.eq(b) {
		b = a.add(a).neg()
	}
	var slope, d, intercept fe
	d.Sub(&b.x, &a.x)
	d.Invert(&d)
	slope.Sub(&b.y, &a.y)
	slope.Mul(&slope, &d)
	intercept.Mul(&slope, &b.x)
	intercept.Sub(&b.y, &intercept)
	var ns, ni fe
	ns.Negate(&slope)
	ni.Negate(&intercept)
	return fn{a: []fe{ni, ns}, b: []fe{one}}
}

type partial struct {
	sum point
	f   fn
}

// newDivisor is new_divisor: the monic function whose zeros are the points (an even number, summing to
// the identity, none the identity).
func newDivisor(c *curve, pts []point) (fn, error) {
	var divs []partial
	for i := 0; i < len(pts); i += 2 {
		a := pts[i]
		if i+1 < len(pts) {
			divs = append(divs, partial{a.add(pts[i+1]), line(a, pts[i+1])})
		} else {
			divs = append(divs, partial{mkPoint(edwards25519.NewIdentityPoint()), line(a, a.neg())})
		}
	}
	for len(divs) > 1 {
		var next []partial
		if len(divs)%2 == 1 {
			next = append(next, divs[len(divs)-1])
			divs = divs[:len(divs)-1]
		}
		for len(divs) > 0 {
			a, b := divs[len(divs)-1], divs[len(divs)-2]
			divs = divs[:len(divs)-2]
			num := c.mul(c.mul(a.f, b.f), line(a.sum, b.sum))
			// The verticals through a and b are polynomials in x alone.
			den := polyMul(line(a.sum, a.sum.neg()).a, line(b.sum, b.sum.neg()).a)
			qa, err := divMonic(num.a, den)
			if err != nil {
				return fn{}, err
			}
			qb, err := divMonic(num.b, den)
			if err != nil {
				return fn{}, err
			}
			next = append(next, partial{a.sum.add(b.sum), fn{qa, qb}})
		}
		divs = next
	}
	return divs[0].f, nil
}

// ScalarMulDivisor is scalar_mul_divisor: the divisor proving s·G through the decomposition dec of s.
func ScalarMulDivisor(s *edwards25519.Scalar, dec []uint64, g *edwards25519.Point) (*Poly, error) {
	if len(dec) != ScalarBits {
		return nil, errors.New("divisor: decomposition of the wrong length")
	}
	pts := make([]point, 0, ScalarBits+1)
	pts = append(pts, mkPoint(new(edwards25519.Point).Negate(new(edwards25519.Point).ScalarMult(s, g))))
	gen := new(edwards25519.Point).Set(g)
	for _, c := range dec {
		for k := uint64(0); k < c; k++ {
			pts = append(pts, mkPoint(new(edwards25519.Point).Set(gen)))
		}
		gen = new(edwards25519.Point).Add(gen, gen)
	}
	for _, p := range pts {
		if p.inf {
			return nil, errors.New("divisor: the identity among the points")
		}
	}
	f, err := newDivisor(&wei25519, pts)
	if err != nil {
		return nil, err
	}
	// The reference's lengths: y·x^0, y·x^1..x^((n+1)/2-2), x^1..x^(n/2), the constant.
	n := len(pts)
	get := func(p []fe, i int) fe {
		if i < len(p) {
			return p[i]
		}
		return fe{}
	}
	out := &Poly{Y: []fe{get(f.b, 0)}, Zero: get(f.a, 0)}
	yx := make([]fe, (n+1)/2-2)
	for i := range yx {
		yx[i] = get(f.b, i+1)
	}
	out.YX = [][]fe{yx}
	out.X = make([]fe, n/2)
	for i := range out.X {
		out.X[i] = get(f.a, i+1)
	}
	// Nothing may lie beyond those lengths: the function has no higher terms.
	for i := len(yx) + 1; i < len(f.b); i++ {
		if !f.b[i].IsZero() {
			return nil, errors.New("divisor: y·x term beyond the divisor's length")
		}
	}
	for i := n/2 + 1; i < len(f.a); i++ {
		if !f.a[i].IsZero() {
			return nil, errors.New("divisor: x term beyond the divisor's length")
		}
	}
	return out, nil
}

var wei25519 = func() curve {
	be := func(h string) fe {
		var b [32]byte
		for i := 0; i < 32; i++ {
			var v byte
			for _, ch := range h[2*i : 2*i+2] {
				v <<= 4
				switch {
				case ch >= '0' && ch <= '9':
					v |= byte(ch - '0')
				default:
					v |= byte(ch-'a') + 10
				}
			}
			b[31-i] = v
		}
		var f fe
		if _, err := f.SetBytes(b[:]); err != nil {
			panic(err)
		}
		return f
	}
	// Wei25519's a and b (draft-ietf-lwig-curve-representations-02 E.3), big-endian hex.
	return curve{a: be("2aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa984914a144"),
		b: be("7b425ed097b425ed097b425ed097b425ed097b425ed097b4260b5e9c7710c864")}
}()
