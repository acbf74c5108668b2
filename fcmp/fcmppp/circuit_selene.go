// Code generated from circuit_helios.go by gen_test.go (go test -run TestGeneratedInSync -update); DO NOT EDIT.

package fcmppp

import (
	"errors"

	"github.com/gonero/gonero/fcmp/gbp"
	"github.com/gonero/gonero/fcmp/helioselene"
	"github.com/gonero/gonero/fcmp/transcript"
)

type seleneTerm struct {
	v variable
	w helioselene.Field25519
}

// seleneLC is a linear combination being built; every operation returns a fresh value (no slice is
// shared between two combinations).
type seleneLC struct {
	terms []seleneTerm
	c     helioselene.Field25519
}

var seleneOne, seleneMinusOne = func() (o, m helioselene.Field25519) {
	o.One()
	m.Negate(&o)
	return
}()

func seleneVar(v variable) seleneLC { return seleneLC{terms: []seleneTerm{{v, seleneOne}}} }

func (a seleneLC) clone(extra int) seleneLC {
	t := make([]seleneTerm, len(a.terms), len(a.terms)+extra)
	copy(t, a.terms)
	return seleneLC{terms: t, c: a.c}
}

func (a seleneLC) term(w helioselene.Field25519, v variable) seleneLC {
	r := a.clone(1)
	r.terms = append(r.terms, seleneTerm{v, w})
	return r
}

// push appends a term in place, for a combination its builder owns alone (term copies, so that a
// combination used twice is never changed behind its other user; building long ones by term would be
// quadratic).
func (a *seleneLC) push(w helioselene.Field25519, v variable) {
	a.terms = append(a.terms, seleneTerm{v, w})
}

func (a seleneLC) constant(c helioselene.Field25519) seleneLC {
	r := a.clone(0)
	r.c.Add(&r.c, &c)
	return r
}

func (a seleneLC) minus(b seleneLC) seleneLC {
	r := a.clone(len(b.terms))
	for _, t := range b.terms {
		var w helioselene.Field25519
		w.Negate(&t.w)
		r.terms = append(r.terms, seleneTerm{t.v, w})
	}
	r.c.Sub(&r.c, &b.c)
	return r
}

type seleneCircuit struct {
	muls int
	cs   gbp.SeleneConstraints
}

func (c *seleneCircuit) reset() {
	c.muls = 0
	c.cs.Reset()
}

// constrain lays lc out as the next constraint.
func (c *seleneCircuit) constrain(lc seleneLC) {
	for i := range lc.terms {
		t := &lc.terms[i]
		c.cs.Term(kinds[t.v.kind], t.v.c, t.v.i, &t.w)
	}
	c.cs.End(&lc.c)
}

// term adds w·v to the constraint being laid out (closed by cs.End).
func (c *seleneCircuit) term(w *helioselene.Field25519, v variable) {
	c.cs.Term(kinds[v.kind], v.c, v.i, w)
}

func (c *seleneCircuit) equality(a, b seleneLC) { c.constrain(a.minus(b)) }

// mul adds a multiplication row; a and b, when given, are constrained to its inputs.
func (c *seleneCircuit) mul(a, b *seleneLC) (l, r, o variable) {
	l, r, o = variable{kind: varL, i: c.muls}, variable{kind: varR, i: c.muls}, variable{kind: varO, i: c.muls}
	c.muls++
	if a != nil {
		c.constrain(a.term(seleneMinusOne, l))
	}
	if b != nil {
		c.constrain(b.term(seleneMinusOne, r))
	}
	return l, r, o
}

func (c *seleneCircuit) inverse(lc *seleneLC) (l, r variable) {
	l, r, o := c.mul(lc, nil)
	c.constrain(seleneVar(o).constant(seleneMinusOne))
	return l, r
}

func (c *seleneCircuit) inequality(a, b seleneLC) {
	d := a.minus(b)
	c.inverse(&d)
}

type seleneCurve struct{ a, b helioselene.Field25519 }

func (c *seleneCircuit) onCurve(curve *seleneCurve, x, y variable) {
	vx := seleneVar(x)
	_, _, x2 := c.mul(&vx, &vx)
	vx2 := seleneVar(x2)
	_, _, x3 := c.mul(&vx2, &vx)
	expected := seleneVar(x3).term(curve.a, x).constant(curve.b)
	vy := seleneVar(y)
	_, _, y2 := c.mul(&vy, &vy)
	c.equality(seleneVar(y2), expected)
}

// incompleteAddFixed constrains (x0, y0) + b = -c... as the reference's incomplete_add_fixed: the line
// through the public point and b meets the curve again at c's reflection.
func (c *seleneCircuit) incompleteAddFixed(x0, y0 *helioselene.Field25519, b, cc [2]variable) {
	var nx0, ny0 helioselene.Field25519
	nx0.Negate(x0)
	ny0.Negate(y0)
	c.inequality(seleneVar(b[0]), seleneLC{c: *x0})
	x1MinusX0 := seleneVar(b[0]).constant(nx0)
	slope, _, o := c.mul(nil, &x1MinusX0)
	c.equality(seleneVar(o), seleneVar(b[1]).constant(ny0))
	x2MinusX0 := seleneVar(cc[0]).constant(nx0)
	vs := seleneVar(slope)
	_, _, o = c.mul(&vs, &x2MinusX0)
	c.equality(seleneVar(o), seleneLC{}.term(seleneMinusOne, cc[1]).constant(ny0))
	_, _, o = c.mul(&vs, &vs)
	c.equality(seleneVar(o), seleneVar(b[0]).term(seleneOne, cc[0]).constant(*x0))
}

func (c *seleneCircuit) memberOfList(member seleneLC, list []seleneLC) {
	carry := list[0].minus(member)
	for _, item := range list[1:] {
		next := item.minus(member)
		_, _, o := c.mul(&carry, &next)
		carry = seleneVar(o)
	}
	c.constrain(carry)
}

var errSeleneChallenge = errors.New("fcmppp: degenerate Selene-field challenge")

func seleneChallenge(t *transcript.Verifier) (helioselene.Field25519, error) {
	b := t.Challenge()
	var x helioselene.Field25519
	x.SetWideBytes(&b)
	if x.IsZero() {
		return x, errSeleneChallenge
	}
	return x, nil
}

//lint:ignore U1000 only the leaf layer (on Selene) uses it; the two generated circuits stay alike.
func (c *seleneCircuit) tupleMemberOfList(t *transcript.Verifier, member []variable, list [][]variable) error {
	ch := make([]helioselene.Field25519, len(member))
	for i := range ch {
		var err error
		if ch[i], err = seleneChallenge(t); err != nil {
			return err
		}
	}
	var m seleneLC
	for i, v := range member {
		m.push(ch[i], v)
	}
	items := make([]seleneLC, len(list))
	for k, tuple := range list {
		for i, v := range tuple {
			items[k].push(ch[i], v)
		}
	}
	c.memberOfList(m, items)
	return nil
}

// seleneTable is a GeneratorTable: a generator's affine coordinates and those of its 2^i multiples.
type seleneTable [][2]helioselene.Field25519

func newSeleneTable(curve *seleneCurve, x, y helioselene.Field25519, bits int) seleneTable {
	t := make(seleneTable, bits)
	t[0] = [2]helioselene.Field25519{x, y}
	for i := 1; i < bits; i++ {
		// Affine doubling: λ = (3x² + a)/(2y), x' = λ² - 2x, y' = λ(x - x') - y.
		px, py := &t[i-1][0], &t[i-1][1]
		var num, den, l, nx, ny helioselene.Field25519
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
		t[i] = [2]helioselene.Field25519{nx, ny}
	}
	return t
}

// seleneBatchInvert inverts every element in place (Montgomery's trick); it fails on a zero.
func seleneBatchInvert(v []helioselene.Field25519) bool {
	prefix := make([]helioselene.Field25519, len(v))
	var acc helioselene.Field25519
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
		var inv helioselene.Field25519
		inv.Mul(&acc, &prefix[i])
		acc.Mul(&acc, &v[i])
		v[i] = inv
	}
	return true
}

// seleneChallengePoint is one of the discrete-log gadget's challenge points with the weights its
// divisor evaluation gives each divisor coefficient (in divisorVars.all's order), computed once per
// challenge, whose gadgets all share them: the denominator's (pd, times p1d) and the numerator's (pn,
// times p1n), with their constants.
type seleneChallengePoint struct {
	pd, pn   []helioselene.Field25519
	pdC, pnC helioselene.Field25519
}

func newSeleneChallengePoint(curve *seleneCurve, slope, x, y, invTwoY *helioselene.Field25519, bits int) seleneChallengePoint {
	nx, nyx := xCoefficients(bits), yxCoefficients(bits)
	// Powers x^1..x^nx and y·x^1..y·x^nyx.
	xs := make([]helioselene.Field25519, nx)
	yx := make([]helioselene.Field25519, nyx)
	xs[0] = *x
	for i := 1; i < nx; i++ {
		xs[i].Mul(&xs[i-1], x)
	}
	yx[0].Mul(y, x)
	for i := 1; i < nyx; i++ {
		yx[i].Mul(&yx[i-1], x)
	}
	var threeXSqPlusA, t, p0n0, p1n, p1d helioselene.Field25519
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
	p := seleneChallengePoint{pd: make([]helioselene.Field25519, 1+nyx+nx), pn: make([]helioselene.Field25519, 1+nyx+nx)}
	pnYX, pnX2, pdYX, pdX2 := p.pn[1:1+nyx], p.pn[1+nyx:nyx+nx], p.pd[1:1+nyx], p.pd[1+nyx:nyx+nx]
	p.pn[0].Mul(&p0n0, &p1n)
	p.pnC = p1n
	for j := range nyx {
		var w, k helioselene.Field25519
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
		var k helioselene.Field25519
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

type seleneDlogChallenge struct {
	c                [3]seleneChallengePoint
	shared           *gbp.SeleneShared // the six evaluation rows: c[0]'s denominator, numerator, c[1]'s, ...
	slope, intercept helioselene.Field25519
}

// seleneCurvePoint draws a challenge x until x³ + ax + b is a square, its root's sign chosen by odd.
func seleneCurvePoint(t *transcript.Verifier, curve *seleneCurve, odd bool) (x, y helioselene.Field25519, err error) {
	for {
		if x, err = seleneChallenge(t); err != nil {
			return
		}
		var rhs, ax helioselene.Field25519
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

// seleneDiscreteLogChallenge draws the discrete-log gadget's challenge (three points on a line) and the
// generators' tables weighted by it.
func seleneDiscreteLogChallenge(t *transcript.Verifier, curve *seleneCurve, tables []seleneTable, bits int) (*seleneDlogChallenge, [][]helioselene.Field25519, error) {
	signs := t.Challenge()
	c0x, c0y, err := seleneCurvePoint(t, curve, signs[0]&1 == 1)
	if err != nil {
		return nil, nil, err
	}
	c1x, c1y, err := seleneCurvePoint(t, curve, (signs[0]>>1)&1 == 1)
	if err != nil {
		return nil, nil, err
	}
	if c0x.Equal(&c1x) {
		return nil, nil, errSeleneChallenge
	}
	var slope, intercept, d, c2x, c2y helioselene.Field25519
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

	inv := make([]helioselene.Field25519, 3+len(tables)*bits)
	inv[0].Double(&c0y)
	inv[1].Double(&c1y)
	inv[2].Double(&c2y)
	for i, tab := range tables {
		for j := 0; j < bits; j++ {
			var e helioselene.Field25519
			e.Mul(&slope, &tab[j][0])
			e.Sub(&tab[j][1], &e)
			inv[3+i*bits+j].Sub(&intercept, &e)
		}
	}
	if !seleneBatchInvert(inv) {
		return nil, nil, errSeleneChallenge
	}
	ch := &seleneDlogChallenge{slope: slope, intercept: intercept}
	ch.c[0] = newSeleneChallengePoint(curve, &slope, &c0x, &c0y, &inv[0], bits)
	ch.c[1] = newSeleneChallengePoint(curve, &slope, &c1x, &c1y, &inv[1], bits)
	ch.c[2] = newSeleneChallengePoint(curve, &slope, &c2x, &c2y, &inv[2], bits)
	ch.shared = gbp.NewSeleneShared([][]helioselene.Field25519{ch.c[0].pd, ch.c[0].pn, ch.c[1].pd, ch.c[1].pn, ch.c[2].pd, ch.c[2].pn})
	gens := make([][]helioselene.Field25519, len(tables))
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
func (c *seleneCircuit) divisorChallengeEvals(d *divisorVars, ch *seleneDlogChallenge) (q [3]variable) {
	first := c.cs.Len()
	for k := range ch.c {
		l, r, o := variable{kind: varL, i: c.muls}, variable{kind: varR, i: c.muls}, variable{kind: varO, i: c.muls}
		c.muls++
		c.term(&seleneMinusOne, l) // denominator - l = 0
		c.cs.End(&ch.c[k].pdC)
		c.term(&seleneMinusOne, o) // numerator - o = 0
		c.cs.End(&ch.c[k].pnC)
		q[k] = r
	}
	c.cs.Block(first, ch.shared, d.all)
	return q
}

// discreteLog constrains the point to be on the curve and to be the committed bits times the
// generator whose challenged table is given, through the committed divisor.
func (c *seleneCircuit) discreteLog(curve *seleneCurve, p *pointWithDlog, ch *seleneDlogChallenge, gen []helioselene.Field25519) [2]variable {
	c.onCurve(curve, p.x, p.y)
	q := c.divisorChallengeEvals(&p.divisor, ch)
	interp := seleneLC{c: ch.intercept}.term(seleneOne, p.y).term(ch.slope, p.x)
	_, inverse := c.inverse(&interp)
	// The quotients' sum equals Σ bit·gen + inverse.
	c.term(&seleneOne, q[0])
	c.term(&seleneOne, q[1])
	c.term(&seleneOne, q[2])
	for i, bit := range p.dlog {
		var w helioselene.Field25519
		w.Negate(&gen[i])
		c.term(&w, bit)
	}
	c.term(&seleneMinusOne, inverse)
	var zero helioselene.Field25519
	c.cs.End(&zero)
	return [2]variable{p.x, p.y}
}

// additionalLayer proves a branch above the leaves: the blinded hash minus a blind of known discrete
// logarithm is a hash (x, y) whose x is among the branch's children.
func (c *seleneCircuit) additionalLayer(curve *seleneCurve, ch *seleneDlogChallenge, gen []helioselene.Field25519,
	blindedHashX, blindedHashY *helioselene.Field25519, blind *pointWithDlog, hash [2]variable, branch []variable) {
	b := c.discreteLog(curve, blind, ch, gen)
	c.onCurve(curve, hash[0], hash[1])
	c.incompleteAddFixed(blindedHashX, blindedHashY, b, hash)
	list := make([]seleneLC, len(branch))
	for i, v := range branch {
		list[i] = seleneVar(v)
	}
	c.memberOfList(seleneVar(hash[0]), list)
}
