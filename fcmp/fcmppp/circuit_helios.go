// The circuit on Helios's scalar field (the Helios proof's constraints); circuit_selene.go is generated
// from this file (gen_test.go). It is the verifier's side of d06d9518's circuit abstraction, EC gadgets
// and discrete-log gadget: the same constraints in the same order, with no witness.

package fcmppp

import (
	"errors"

	"github.com/gonero/gonero/fcmp/gbp"
	"github.com/gonero/gonero/fcmp/helioselene"
	"github.com/gonero/gonero/fcmp/transcript"
)

type heliosTerm struct {
	v variable
	w helioselene.HelioseleneField
}

// heliosLC is a linear combination being built; every operation returns a fresh value (no slice is
// shared between two combinations).
type heliosLC struct {
	terms []heliosTerm
	c     helioselene.HelioseleneField
}

var heliosOne, heliosMinusOne = func() (o, m helioselene.HelioseleneField) {
	o.One()
	m.Negate(&o)
	return
}()

func heliosVar(v variable) heliosLC { return heliosLC{terms: []heliosTerm{{v, heliosOne}}} }

func (a heliosLC) clone(extra int) heliosLC {
	t := make([]heliosTerm, len(a.terms), len(a.terms)+extra)
	copy(t, a.terms)
	return heliosLC{terms: t, c: a.c}
}

func (a heliosLC) term(w helioselene.HelioseleneField, v variable) heliosLC {
	r := a.clone(1)
	r.terms = append(r.terms, heliosTerm{v, w})
	return r
}

// push appends a term in place, for a combination its builder owns alone (term copies, so that a
// combination used twice is never changed behind its other user; building long ones by term would be
// quadratic).
func (a *heliosLC) push(w helioselene.HelioseleneField, v variable) {
	a.terms = append(a.terms, heliosTerm{v, w})
}

func (a heliosLC) constant(c helioselene.HelioseleneField) heliosLC {
	r := a.clone(0)
	r.c.Add(&r.c, &c)
	return r
}

func (a heliosLC) minus(b heliosLC) heliosLC {
	r := a.clone(len(b.terms))
	for _, t := range b.terms {
		var w helioselene.HelioseleneField
		w.Negate(&t.w)
		r.terms = append(r.terms, heliosTerm{t.v, w})
	}
	r.c.Sub(&r.c, &b.c)
	return r
}

type heliosCircuit struct {
	muls int
	cs   gbp.HeliosConstraints
}

func (c *heliosCircuit) reset() {
	c.muls = 0
	c.cs.Reset()
}

// constrain lays lc out as the next constraint.
func (c *heliosCircuit) constrain(lc heliosLC) {
	for i := range lc.terms {
		t := &lc.terms[i]
		c.cs.Term(kinds[t.v.kind], t.v.c, t.v.i, &t.w)
	}
	c.cs.End(&lc.c)
}

// term adds w·v to the constraint being laid out (closed by cs.End).
func (c *heliosCircuit) term(w *helioselene.HelioseleneField, v variable) {
	c.cs.Term(kinds[v.kind], v.c, v.i, w)
}

func (c *heliosCircuit) equality(a, b heliosLC) { c.constrain(a.minus(b)) }

// mul adds a multiplication row; a and b, when given, are constrained to its inputs.
func (c *heliosCircuit) mul(a, b *heliosLC) (l, r, o variable) {
	l, r, o = variable{kind: varL, i: c.muls}, variable{kind: varR, i: c.muls}, variable{kind: varO, i: c.muls}
	c.muls++
	if a != nil {
		c.constrain(a.term(heliosMinusOne, l))
	}
	if b != nil {
		c.constrain(b.term(heliosMinusOne, r))
	}
	return l, r, o
}

func (c *heliosCircuit) inverse(lc *heliosLC) (l, r variable) {
	l, r, o := c.mul(lc, nil)
	c.constrain(heliosVar(o).constant(heliosMinusOne))
	return l, r
}

func (c *heliosCircuit) inequality(a, b heliosLC) {
	d := a.minus(b)
	c.inverse(&d)
}

type heliosCurve struct{ a, b helioselene.HelioseleneField }

func (c *heliosCircuit) onCurve(curve *heliosCurve, x, y variable) {
	vx := heliosVar(x)
	_, _, x2 := c.mul(&vx, &vx)
	vx2 := heliosVar(x2)
	_, _, x3 := c.mul(&vx2, &vx)
	expected := heliosVar(x3).term(curve.a, x).constant(curve.b)
	vy := heliosVar(y)
	_, _, y2 := c.mul(&vy, &vy)
	c.equality(heliosVar(y2), expected)
}

// incompleteAddFixed constrains (x0, y0) + b = -c... as the reference's incomplete_add_fixed: the line
// through the public point and b meets the curve again at c's reflection.
func (c *heliosCircuit) incompleteAddFixed(x0, y0 *helioselene.HelioseleneField, b, cc [2]variable) {
	var nx0, ny0 helioselene.HelioseleneField
	nx0.Negate(x0)
	ny0.Negate(y0)
	c.inequality(heliosVar(b[0]), heliosLC{c: *x0})
	x1MinusX0 := heliosVar(b[0]).constant(nx0)
	slope, _, o := c.mul(nil, &x1MinusX0)
	c.equality(heliosVar(o), heliosVar(b[1]).constant(ny0))
	x2MinusX0 := heliosVar(cc[0]).constant(nx0)
	vs := heliosVar(slope)
	_, _, o = c.mul(&vs, &x2MinusX0)
	c.equality(heliosVar(o), heliosLC{}.term(heliosMinusOne, cc[1]).constant(ny0))
	_, _, o = c.mul(&vs, &vs)
	c.equality(heliosVar(o), heliosVar(b[0]).term(heliosOne, cc[0]).constant(*x0))
}

func (c *heliosCircuit) memberOfList(member heliosLC, list []heliosLC) {
	carry := list[0].minus(member)
	for _, item := range list[1:] {
		next := item.minus(member)
		_, _, o := c.mul(&carry, &next)
		carry = heliosVar(o)
	}
	c.constrain(carry)
}

var errHeliosChallenge = errors.New("fcmppp: degenerate Helios-field challenge")

func heliosChallenge(t *transcript.Verifier) (helioselene.HelioseleneField, error) {
	b := t.Challenge()
	var x helioselene.HelioseleneField
	x.SetWideBytes(&b)
	if x.IsZero() {
		return x, errHeliosChallenge
	}
	return x, nil
}

//lint:ignore U1000 only the leaf layer (on Selene) uses it; the two generated circuits stay alike.
func (c *heliosCircuit) tupleMemberOfList(t *transcript.Verifier, member []variable, list [][]variable) error {
	ch := make([]helioselene.HelioseleneField, len(member))
	for i := range ch {
		var err error
		if ch[i], err = heliosChallenge(t); err != nil {
			return err
		}
	}
	var m heliosLC
	for i, v := range member {
		m.push(ch[i], v)
	}
	items := make([]heliosLC, len(list))
	for k, tuple := range list {
		for i, v := range tuple {
			items[k].push(ch[i], v)
		}
	}
	c.memberOfList(m, items)
	return nil
}

// heliosTable is a GeneratorTable: a generator's affine coordinates and those of its 2^i multiples.
type heliosTable [][2]helioselene.HelioseleneField

func newHeliosTable(curve *heliosCurve, x, y helioselene.HelioseleneField, bits int) heliosTable {
	t := make(heliosTable, bits)
	t[0] = [2]helioselene.HelioseleneField{x, y}
	for i := 1; i < bits; i++ {
		// Affine doubling: λ = (3x² + a)/(2y), x' = λ² - 2x, y' = λ(x - x') - y.
		px, py := &t[i-1][0], &t[i-1][1]
		var num, den, l, nx, ny helioselene.HelioseleneField
		num.Square(px)
		l.Double(&num)
		num.Add(&num, &l)
		num.Add(&num, &curve.a)
		den.Double(py)
		den.Invert(&den)
		l.Mul(&num, &den)
		nx.Square(&l)
		num.Double(px)
		nx.Sub(&nx, &num)
		ny.Sub(px, &nx)
		ny.Mul(&ny, &l)
		ny.Sub(&ny, py)
		t[i] = [2]helioselene.HelioseleneField{nx, ny}
	}
	return t
}

// heliosBatchInvert inverts every element in place (Montgomery's trick); it fails on a zero.
func heliosBatchInvert(v []helioselene.HelioseleneField) bool {
	prefix := make([]helioselene.HelioseleneField, len(v))
	var acc helioselene.HelioseleneField
	acc.One()
	for i := range v {
		if v[i].IsZero() {
			return false
		}
		prefix[i] = acc
		acc.Mul(&acc, &v[i])
	}
	acc.Invert(&acc)
	for i := len(v) - 1; i >= 0; i-- {
		var inv helioselene.HelioseleneField
		inv.Mul(&acc, &prefix[i])
		acc.Mul(&acc, &v[i])
		v[i] = inv
	}
	return true
}

// heliosChallengePoint is one of the discrete-log gadget's challenge points with the weights its
// divisor evaluation gives each divisor coefficient (in divisorVars.all's order), computed once per
// challenge, whose gadgets all share them: the denominator's (pd, times p1d) and the numerator's (pn,
// times p1n), with their constants.
type heliosChallengePoint struct {
	pd, pn   []helioselene.HelioseleneField
	pdC, pnC helioselene.HelioseleneField
}

func newHeliosChallengePoint(curve *heliosCurve, slope, x, y, invTwoY *helioselene.HelioseleneField, bits int) heliosChallengePoint {
	nx, nyx := xCoefficients(bits), yxCoefficients(bits)
	// Powers x^1..x^nx and y·x^1..y·x^nyx.
	xs := make([]helioselene.HelioseleneField, nx)
	yx := make([]helioselene.HelioseleneField, nyx)
	xs[0] = *x
	for i := 1; i < nx; i++ {
		xs[i].Mul(&xs[i-1], x)
	}
	yx[0].Mul(y, x)
	for i := 1; i < nyx; i++ {
		yx[i].Mul(&yx[i-1], x)
	}
	var threeXSqPlusA, t, p0n0, p1n, p1d helioselene.HelioseleneField
	threeXSqPlusA.Square(x)
	t.Double(&threeXSqPlusA)
	threeXSqPlusA.Add(&threeXSqPlusA, &t)
	threeXSqPlusA.Add(&threeXSqPlusA, &curve.a)
	p0n0.Mul(&threeXSqPlusA, invTwoY)
	p1n.Double(y)
	t.Mul(slope, &p1n)
	p1d.Sub(&threeXSqPlusA, &t)

	// The weights of the reference's numerator combination (constant 1; y: p0n0; y·x^j: p0n0·x^(j+1),
	// plus y for j = 0 and (j+1)·y·x^j otherwise, its two terms merged; x^i: i·x^(i-1)) times p1n, and of
	// its denominator (constant x; y: y; y·x^j: y·x^(j+1); x^i: x^i; the zero coefficient: 1) times p1d.
	// The rows run y, y·x^1.., x^2.., the zero coefficient (divisorVars.all).
	p := heliosChallengePoint{pd: make([]helioselene.HelioseleneField, 1+nyx+nx), pn: make([]helioselene.HelioseleneField, 1+nyx+nx)}
	pnYX, pnX2, pdYX, pdX2 := p.pn[1:1+nyx], p.pn[1+nyx:nyx+nx], p.pd[1:1+nyx], p.pd[1+nyx:nyx+nx]
	p.pn[0].Mul(&p0n0, &p1n)
	p.pnC = p1n
	for j := range nyx {
		var w, k helioselene.HelioseleneField
		w.Mul(&p0n0, &xs[j])
		if j == 0 {
			w.Add(&w, y)
		} else {
			k.SetUint64(uint64(j + 1))
			k.Mul(&k, &yx[j-1])
			w.Add(&w, &k)
		}
		pnYX[j].Mul(&w, &p1n)
		pdYX[j].Mul(&yx[j], &p1d)
	}
	for i := range nx - 1 {
		var k helioselene.HelioseleneField
		k.SetUint64(uint64(i + 2))
		k.Mul(&k, &xs[i])
		pnX2[i].Mul(&k, &p1n)
		pdX2[i].Mul(&xs[i+1], &p1d)
	}
	p.pd[0].Mul(y, &p1d)
	p.pd[nyx+nx] = p1d
	p.pdC.Mul(x, &p1d)
	return p
}

type heliosDlogChallenge struct {
	c                [3]heliosChallengePoint
	shared           *gbp.HeliosShared // the six evaluation rows: c[0]'s denominator, numerator, c[1]'s, ...
	slope, intercept helioselene.HelioseleneField
}

// heliosCurvePoint draws a challenge x until x³ + ax + b is a square, its root's sign chosen by odd.
func heliosCurvePoint(t *transcript.Verifier, curve *heliosCurve, odd bool) (x, y helioselene.HelioseleneField, err error) {
	for {
		if x, err = heliosChallenge(t); err != nil {
			return
		}
		var rhs, ax helioselene.HelioseleneField
		rhs.Square(&x)
		rhs.Mul(&rhs, &x)
		ax.Mul(&curve.a, &x)
		rhs.Add(&rhs, &ax)
		rhs.Add(&rhs, &curve.b)
		if _, ok := y.Sqrt(&rhs); !ok {
			continue
		}
		if y.IsOdd() != odd {
			y.Negate(&y)
		}
		return
	}
}

// heliosDiscreteLogChallenge draws the discrete-log gadget's challenge (three points on a line) and the
// generators' tables weighted by it.
func heliosDiscreteLogChallenge(t *transcript.Verifier, curve *heliosCurve, tables []heliosTable, bits int) (*heliosDlogChallenge, [][]helioselene.HelioseleneField, error) {
	signs := t.Challenge()
	c0x, c0y, err := heliosCurvePoint(t, curve, signs[0]&1 == 1)
	if err != nil {
		return nil, nil, err
	}
	c1x, c1y, err := heliosCurvePoint(t, curve, (signs[0]>>1)&1 == 1)
	if err != nil {
		return nil, nil, err
	}
	if c0x.Equal(&c1x) {
		return nil, nil, errHeliosChallenge
	}
	var slope, intercept, d, c2x, c2y helioselene.HelioseleneField
	d.Sub(&c1x, &c0x)
	d.Invert(&d)
	slope.Sub(&c1y, &c0y)
	slope.Mul(&slope, &d)
	intercept.Mul(&slope, &c0x)
	intercept.Sub(&c0y, &intercept)
	// c2 = -(c0 + c1): the line's third intersection with the curve.
	c2x.Square(&slope)
	c2x.Sub(&c2x, &c0x)
	c2x.Sub(&c2x, &c1x)
	c2y.Sub(&c0x, &c2x)
	c2y.Mul(&c2y, &slope)
	c2y.Sub(&c2y, &c0y)
	c2y.Negate(&c2y)

	inv := make([]helioselene.HelioseleneField, 3+len(tables)*bits)
	inv[0].Double(&c0y)
	inv[1].Double(&c1y)
	inv[2].Double(&c2y)
	for i, tab := range tables {
		for j := 0; j < bits; j++ {
			var e helioselene.HelioseleneField
			e.Mul(&slope, &tab[j][0])
			e.Sub(&tab[j][1], &e)
			inv[3+i*bits+j].Sub(&intercept, &e)
		}
	}
	if !heliosBatchInvert(inv) {
		return nil, nil, errHeliosChallenge
	}
	ch := &heliosDlogChallenge{slope: slope, intercept: intercept}
	ch.c[0] = newHeliosChallengePoint(curve, &slope, &c0x, &c0y, &inv[0], bits)
	ch.c[1] = newHeliosChallengePoint(curve, &slope, &c1x, &c1y, &inv[1], bits)
	ch.c[2] = newHeliosChallengePoint(curve, &slope, &c2x, &c2y, &inv[2], bits)
	ch.shared = gbp.NewHeliosShared([][]helioselene.HelioseleneField{ch.c[0].pd, ch.c[0].pn, ch.c[1].pd, ch.c[1].pn, ch.c[2].pd, ch.c[2].pn})
	gens := make([][]helioselene.HelioseleneField, len(tables))
	for i := range tables {
		gens[i] = inv[3+i*bits : 3+(i+1)*bits]
	}
	return ch, gens, nil
}

// divisorChallengeEvals adds the rows and constraints evaluating the divisor at the three challenge
// points (the reference's: per point, a multiplication whose left input is the scaled denominator and
// whose output is the scaled numerator, two constraints); the divisor's coefficients' terms, the
// challenge's shared rows, go in as one block. It returns the multiplications' right inputs, the
// quotients.
func (c *heliosCircuit) divisorChallengeEvals(d *divisorVars, ch *heliosDlogChallenge) (q [3]variable) {
	first := c.cs.Len()
	for k := range ch.c {
		l, r, o := variable{kind: varL, i: c.muls}, variable{kind: varR, i: c.muls}, variable{kind: varO, i: c.muls}
		c.muls++
		c.term(&heliosMinusOne, l) // denominator - l = 0
		c.cs.End(&ch.c[k].pdC)
		c.term(&heliosMinusOne, o) // numerator - o = 0
		c.cs.End(&ch.c[k].pnC)
		q[k] = r
	}
	c.cs.Block(first, ch.shared, d.all)
	return q
}

// discreteLog constrains the point to be on the curve and to be the committed bits times the
// generator whose challenged table is given, through the committed divisor.
func (c *heliosCircuit) discreteLog(curve *heliosCurve, p *pointWithDlog, ch *heliosDlogChallenge, gen []helioselene.HelioseleneField) [2]variable {
	c.onCurve(curve, p.x, p.y)
	q := c.divisorChallengeEvals(&p.divisor, ch)
	interp := heliosLC{c: ch.intercept}.term(heliosOne, p.y).term(ch.slope, p.x)
	_, inverse := c.inverse(&interp)
	// The quotients' sum equals Σ bit·gen + inverse.
	c.term(&heliosOne, q[0])
	c.term(&heliosOne, q[1])
	c.term(&heliosOne, q[2])
	for i, bit := range p.dlog {
		var w helioselene.HelioseleneField
		w.Negate(&gen[i])
		c.term(&w, bit)
	}
	c.term(&heliosMinusOne, inverse)
	var zero helioselene.HelioseleneField
	c.cs.End(&zero)
	return [2]variable{p.x, p.y}
}

// additionalLayer proves a branch above the leaves: the blinded hash minus a blind of known discrete
// logarithm is a hash (x, y) whose x is among the branch's children.
func (c *heliosCircuit) additionalLayer(curve *heliosCurve, ch *heliosDlogChallenge, gen []helioselene.HelioseleneField,
	blindedHashX, blindedHashY *helioselene.HelioseleneField, blind *pointWithDlog, hash [2]variable, branch []variable) {
	b := c.discreteLog(curve, blind, ch, gen)
	c.onCurve(curve, hash[0], hash[1])
	c.incompleteAddFixed(blindedHashX, blindedHashY, b, hash)
	list := make([]heliosLC, len(branch))
	for i, v := range branch {
		list[i] = heliosVar(v)
	}
	c.memberOfList(heliosVar(hash[0]), list)
}
