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

func (a heliosLC) plus(b heliosLC) heliosLC {
	r := a.clone(len(b.terms))
	r.terms = append(r.terms, b.terms...)
	r.c.Add(&r.c, &b.c)
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

func (a heliosLC) scale(s *helioselene.HelioseleneField) heliosLC {
	r := a.clone(0)
	for i := range r.terms {
		r.terms[i].w.Mul(&r.terms[i].w, s)
	}
	r.c.Mul(&r.c, s)
	return r
}

// gbp converts the combination into the proof system's constraint.
func (a heliosLC) gbp() gbp.HeliosLinComb {
	var lc gbp.HeliosLinComb
	for _, t := range a.terms {
		term := gbp.HeliosTerm{I: t.v.i, W: t.w}
		switch t.v.kind {
		case varL:
			lc.WL = append(lc.WL, term)
		case varR:
			lc.WR = append(lc.WR, term)
		case varO:
			lc.WO = append(lc.WO, term)
		case varC:
			for len(lc.WCG) <= t.v.c {
				lc.WCG = append(lc.WCG, nil)
			}
			lc.WCG[t.v.c] = append(lc.WCG[t.v.c], term)
		}
	}
	lc.C = a.c
	return lc
}

type heliosCircuit struct {
	muls        int
	constraints []heliosLC
}

func (c *heliosCircuit) constrain(lc heliosLC) { c.constraints = append(c.constraints, lc) }

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

type heliosChallengePoint struct {
	y, p0n0, p1n, p1d helioselene.HelioseleneField
	yx, x, xp0n0      []helioselene.HelioseleneField
}

func newHeliosChallengePoint(curve *heliosCurve, slope, x, y, invTwoY *helioselene.HelioseleneField, bits int) heliosChallengePoint {
	nx, nyx := xCoefficients(bits), yxCoefficients(bits)
	p := heliosChallengePoint{y: *y, x: make([]helioselene.HelioseleneField, nx), yx: make([]helioselene.HelioseleneField, nyx),
		xp0n0: make([]helioselene.HelioseleneField, nyx)}
	p.x[0] = *x
	for i := 1; i < nx; i++ {
		p.x[i].Mul(&p.x[i-1], x)
	}
	p.yx[0].Mul(y, x)
	for i := 1; i < nyx; i++ {
		p.yx[i].Mul(&p.yx[i-1], x)
	}
	var threeXSqPlusA, t helioselene.HelioseleneField
	threeXSqPlusA.Square(x)
	t.Double(&threeXSqPlusA)
	threeXSqPlusA.Add(&threeXSqPlusA, &t)
	threeXSqPlusA.Add(&threeXSqPlusA, &curve.a)
	p.p0n0.Mul(&threeXSqPlusA, invTwoY)
	for i := range p.xp0n0 {
		p.xp0n0[i].Mul(&p.p0n0, &p.x[i])
	}
	p.p1n.Double(y)
	t.Mul(slope, &p.p1n)
	p.p1d.Sub(&threeXSqPlusA, &t)
	return p
}

type heliosDlogChallenge struct {
	c                [3]heliosChallengePoint
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
	gens := make([][]helioselene.HelioseleneField, len(tables))
	for i := range tables {
		gens[i] = inv[3+i*bits : 3+(i+1)*bits]
	}
	return ch, gens, nil
}

func (c *heliosCircuit) divisorChallengeEval(d *divisorVars, ch *heliosChallengePoint) variable {
	p0n := heliosLC{terms: make([]heliosTerm, 0, 2+2*len(d.yx)+len(d.xFrom2)), c: heliosOne}
	p0n.push(ch.p0n0, d.y)
	for j, v := range d.yx {
		p0n.push(ch.xp0n0[j], v)
	}
	p0n.push(ch.y, d.yx[0])
	for j := 1; j < len(d.yx); j++ {
		var k, w helioselene.HelioseleneField
		k.SetUint64(uint64(j + 1))
		w.Mul(&k, &ch.yx[j-1])
		p0n.push(w, d.yx[j])
	}
	for i, v := range d.xFrom2 {
		var k, w helioselene.HelioseleneField
		k.SetUint64(uint64(i + 2))
		w.Mul(&k, &ch.x[i])
		p0n.push(w, v)
	}
	p0d := heliosLC{terms: make([]heliosTerm, 0, 2+len(d.yx)+len(d.xFrom2)), c: ch.x[0]}
	p0d.push(ch.y, d.y)
	for j, v := range d.yx {
		p0d.push(ch.yx[j], v)
	}
	for i, v := range d.xFrom2 {
		p0d.push(ch.x[i+1], v)
	}
	p0d.push(heliosOne, d.zero)
	pn := p0n.scale(&ch.p1n)
	pd := p0d.scale(&ch.p1d)
	_, o, nClaim := c.mul(&pd, nil)
	c.equality(pn, heliosVar(nClaim))
	return o
}

// discreteLog constrains the point to be on the curve and to be the committed bits times the
// generator whose challenged table is given, through the committed divisor.
func (c *heliosCircuit) discreteLog(curve *heliosCurve, p *pointWithDlog, ch *heliosDlogChallenge, gen []helioselene.HelioseleneField) [2]variable {
	c.onCurve(curve, p.x, p.y)
	lhs := heliosVar(c.divisorChallengeEval(&p.divisor, &ch.c[0])).
		plus(heliosVar(c.divisorChallengeEval(&p.divisor, &ch.c[1]))).
		plus(heliosVar(c.divisorChallengeEval(&p.divisor, &ch.c[2])))
	rhs := heliosLC{terms: make([]heliosTerm, 0, len(p.dlog)+1)}
	for i, bit := range p.dlog {
		rhs.push(gen[i], bit)
	}
	interp := heliosLC{c: ch.intercept}.term(heliosOne, p.y).term(ch.slope, p.x)
	_, inverse := c.inverse(&interp)
	rhs = rhs.term(heliosOne, inverse)
	c.equality(lhs, rhs)
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

func (c *heliosCircuit) linCombs() []gbp.HeliosLinComb {
	out := make([]gbp.HeliosLinComb, len(c.constraints))
	for i := range c.constraints {
		out[i] = c.constraints[i].gbp()
	}
	return out
}
