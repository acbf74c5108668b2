// Code generated from helios.go by gen_test.go (go test -run TestGeneratedInSync -update); DO NOT EDIT.

package gbp

import (
	"crypto/rand"

	"github.com/gonero/gonero/fcmp/helioselene"
	"github.com/gonero/gonero/fcmp/transcript"
)

// SeleneTerm is one weighted variable of a linear combination: index I of its vector, weight W.
type SeleneTerm struct {
	I int
	W helioselene.Field25519
}

// SeleneLinComb is one constraint of a Selene circuit (the reference's LinComb): the weighted sum of
// the multiplication inputs aL, aR, the outputs aO, the committed vectors' entries (WCG[i] weights
// vector commitment i), the Pedersen-committed values V, and the constant C is zero.
type SeleneLinComb struct {
	WL, WR, WO []SeleneTerm
	WCG        [][]SeleneTerm
	WV         []SeleneTerm
	C          helioselene.Field25519
}

// SeleneGenerators are a generalized Bulletproofs generator set on Selene: g, h, the vectors g_bold and
// h_bold (a power of two long), and the sums of h_bold's first 2^i points.
type SeleneGenerators struct {
	g, h         helioselene.SelenePoint
	gBold, hBold []helioselene.SelenePoint
	hSum         []helioselene.SelenePoint
}

// NewSeleneGenerators checks the shape the reference's Generators::new checks (g_bold non-empty, as long
// as h_bold, a power of two) and precomputes the h_bold prefix sums. The reference also refuses a
// duplicated generator; the sets used here are fixed hash-derived constants, checked against the
// oracle's vectors by fcmp/tree, so that is not repeated at every start.
func NewSeleneGenerators(g, h helioselene.SelenePoint, gBold, hBold []helioselene.SelenePoint) (*SeleneGenerators, error) {
	if len(gBold) == 0 || len(gBold) != len(hBold) || pow2(len(gBold)) != len(gBold) {
		return nil, ErrGenerators
	}
	gens := &SeleneGenerators{g: g, h: h, gBold: gBold, hBold: hBold}
	sum := helioselene.NewSelenePoint()
	for i := range hBold {
		sum.Add(sum, &hBold[i])
		if pow2(i+1) == i+1 {
			gens.hSum = append(gens.hSum, *sum)
		}
	}
	return gens, nil
}

// H is the generator h, which blinds every commitment.
func (gens *SeleneGenerators) H() helioselene.SelenePoint { return gens.h }

// Len is the number of g_bold (and h_bold) generators.
func (gens *SeleneGenerators) Len() int { return len(gens.gBold) }

// SeleneBatch accumulates queued proofs' checks: a scalar for each fixed generator and extra
// (scalar, point) pairs for the proofs' own points. Verify checks them all with one multiscalar
// multiplication.
type SeleneBatch struct {
	g, h               helioselene.Field25519
	gBold, hBold, hSum []helioselene.Field25519
	scalars            []helioselene.Field25519
	points             []helioselene.SelenePoint
}

func (b *SeleneBatch) grow(n int) {
	for len(b.gBold) < n {
		var zero helioselene.Field25519
		b.gBold = append(b.gBold, zero)
		b.hBold = append(b.hBold, zero)
		b.hSum = append(b.hSum, zero)
	}
}

// Add queues s·P.
func (b *SeleneBatch) Add(s *helioselene.Field25519, p *helioselene.SelenePoint) {
	b.scalars = append(b.scalars, *s)
	b.points = append(b.points, *p)
}

// AddG queues s·g, g the generators' g.
func (b *SeleneBatch) AddG(s *helioselene.Field25519) { b.g.Add(&b.g, s) }

// AddH queues s·h.
func (b *SeleneBatch) AddH(s *helioselene.Field25519) { b.h.Add(&b.h, s) }

// Verify reports whether every check queued in b holds: Σ scalar·point is the identity.
func (gens *SeleneGenerators) Verify(b *SeleneBatch) bool {
	if len(b.gBold) > len(gens.gBold) {
		return false
	}
	n := 2 + 3*len(b.gBold) + len(b.scalars)
	scalars := make([]helioselene.Field25519, 0, n)
	points := make([]helioselene.SelenePoint, 0, n)
	scalars = append(scalars, b.g, b.h)
	points = append(points, gens.g, gens.h)
	scalars = append(scalars, b.gBold...)
	points = append(points, gens.gBold[:len(b.gBold)]...)
	scalars = append(scalars, b.hBold...)
	points = append(points, gens.hBold[:len(b.hBold)]...)
	// hSum has one scalar per power of two; the batch keeps n slots of which only those are used.
	k := min(len(b.hSum), len(gens.hSum))
	scalars = append(scalars, b.hSum[:k]...)
	points = append(points, gens.hSum[:k]...)
	scalars = append(scalars, b.scalars...)
	points = append(points, b.points...)
	return helioselene.SeleneMultiScalarMult(scalars, points).IsIdentity()
}

// seleneWeight draws a verifier weight: the batch's soundness rests on weights the prover cannot
// predict.
func seleneWeight() helioselene.Field25519 {
	var buf [64]byte
	if _, err := rand.Read(buf[:]); err != nil {
		panic("gbp: no randomness: " + err.Error())
	}
	var w helioselene.Field25519
	w.SetWideBytes(&buf)
	return w
}

func seleneChallenge(t *transcript.Verifier) (helioselene.Field25519, error) {
	c := t.Challenge()
	var x helioselene.Field25519
	x.SetWideBytes(&c)
	if x.IsZero() {
		return x, ErrZeroChallenge
	}
	return x, nil
}

func seleneReadPoint(t *transcript.Verifier) (helioselene.SelenePoint, error) {
	var p helioselene.SelenePoint
	b, err := t.ReadPoint()
	if err != nil {
		return p, err
	}
	if _, err := p.SetBytes(b); err != nil {
		return p, ErrProof
	}
	return p, nil
}

func seleneReadScalar(t *transcript.Verifier) (helioselene.Field25519, error) {
	var s helioselene.Field25519
	b, err := t.ReadScalar()
	if err != nil {
		return s, err
	}
	if _, err := s.SetBytes(b); err != nil {
		return s, ErrProof
	}
	return s, nil
}

func selenePowers(x *helioselene.Field25519, n int) []helioselene.Field25519 {
	p := make([]helioselene.Field25519, n)
	p[0].One()
	for i := 1; i < n; i++ {
		p[i].Mul(&p[i-1], x)
	}
	return p
}

func seleneAccumulate(acc []helioselene.Field25519, terms []SeleneTerm, w *helioselene.Field25519) {
	var t helioselene.Field25519
	for _, term := range terms {
		t.Mul(&term.W, w)
		acc[term.I].Add(&acc[term.I], &t)
	}
}

// SeleneReadCommitments reads c vector commitments and v Pedersen commitments, absorbing their counts
// and encodings as read_commitments does.
func SeleneReadCommitments(t *transcript.Verifier, c, v int) (C, V []helioselene.SelenePoint, err error) {
	t.Count(c)
	C = make([]helioselene.SelenePoint, c)
	for i := range C {
		if C[i], err = seleneReadPoint(t); err != nil {
			return nil, nil, err
		}
	}
	t.Count(v)
	V = make([]helioselene.SelenePoint, v)
	for i := range V {
		if V[i], err = seleneReadPoint(t); err != nil {
			return nil, nil, err
		}
	}
	return C, V, nil
}

// SeleneVerify reads an arithmetic-circuit proof from t and queues its check into b: the circuit has
// rows multiplication rows (padded to a power of two, at most gens.Len()), the constraints, the vector
// commitments C and the Pedersen commitments V. An error means the proof is invalid (and b spoiled);
// nil means the proof holds if b's Verify does.
func SeleneVerify(gens *SeleneGenerators, b *SeleneBatch, rows int, constraints []SeleneLinComb,
	C, V []helioselene.SelenePoint, t *transcript.Verifier) error {
	if rows <= 0 || pow2(rows) > len(gens.gBold) {
		return ErrGenerators
	}
	n := pow2(rows)
	for k := range constraints {
		lc := &constraints[k]
		for _, ts := range [][]SeleneTerm{lc.WL, lc.WR, lc.WO} {
			for _, term := range ts {
				if term.I < 0 || term.I >= n {
					return ErrStatement
				}
			}
		}
		if len(lc.WCG) > len(C) {
			return ErrStatement
		}
		for _, ts := range lc.WCG {
			for _, term := range ts {
				if term.I < 0 || term.I >= n {
					return ErrStatement
				}
			}
		}
		for _, term := range lc.WV {
			if term.I < 0 || term.I >= len(V) {
				return ErrStatement
			}
		}
	}
	b.grow(n)

	// The layout of the l and r polynomials' coefficients (the reference's ni, ilr, io, is, jlr): the
	// vector commitments take the powers around the aL/aR one.
	ni := 2 + 2*(len(C)/2)
	ilr, io, is, jlr := ni/2, ni, ni+1, ni/2
	tPolyLen := 2*(ni+2) - 1

	AI, err := seleneReadPoint(t)
	if err != nil {
		return err
	}
	AO, err := seleneReadPoint(t)
	if err != nil {
		return err
	}
	S, err := seleneReadPoint(t)
	if err != nil {
		return err
	}
	y, err := seleneChallenge(t)
	if err != nil {
		return err
	}
	z1, err := seleneChallenge(t)
	if err != nil {
		return err
	}
	var yInv helioselene.Field25519
	yInv.Invert(&y)
	yInvs := selenePowers(&yInv, n)
	z := make([]helioselene.Field25519, len(constraints))
	for k := range z {
		if k == 0 {
			z[k] = z1
		} else {
			z[k].Mul(&z[k-1], &z1)
		}
	}

	lW := make([]helioselene.Field25519, n)
	rW := make([]helioselene.Field25519, n)
	oW := make([]helioselene.Field25519, n)
	for k := range constraints {
		seleneAccumulate(lW, constraints[k].WL, &z[k])
		seleneAccumulate(rW, constraints[k].WR, &z[k])
		seleneAccumulate(oW, constraints[k].WO, &z[k])
	}
	var delta, tmp helioselene.Field25519
	for i := range rW {
		rW[i].Mul(&rW[i], &yInvs[i])
		tmp.Mul(&rW[i], &lW[i])
		delta.Add(&delta, &tmp)
	}

	T := make([]helioselene.SelenePoint, tPolyLen-1)
	for i := range T {
		if T[i], err = seleneReadPoint(t); err != nil {
			return err
		}
	}
	xc, err := seleneChallenge(t)
	if err != nil {
		return err
	}
	x := selenePowers(&xc, tPolyLen)
	tauX, err := seleneReadScalar(t)
	if err != nil {
		return err
	}
	u, err := seleneReadScalar(t)
	if err != nil {
		return err
	}
	tCaret, err := seleneReadScalar(t)
	if err != nil {
		return err
	}

	// The polynomial check: t_caret·g + tau_x·h = x^ni·(delta - <z, c>)·g + Σ x^ni·V-weights·V + Σ x^i·T_i.
	w1 := seleneWeight()
	tmp.Mul(&tCaret, &w1)
	b.g.Add(&b.g, &tmp)
	tmp.Mul(&tauX, &w1)
	b.h.Add(&b.h, &tmp)
	vW := make([]helioselene.Field25519, len(V))
	for k := range constraints {
		seleneAccumulate(vW, constraints[k].WV, &z[k])
	}
	var zc helioselene.Field25519
	for k := range constraints {
		tmp.Mul(&z[k], &constraints[k].C)
		zc.Add(&zc, &tmp)
	}
	var w1x helioselene.Field25519
	w1x.Mul(&w1, &x[ni])
	tmp.Sub(&delta, &zc)
	tmp.Mul(&tmp, &w1x)
	b.g.Sub(&b.g, &tmp)
	for i := range vW {
		// The reference accumulates -z and negates the weight again: +w1·x^ni·(Σ z·WV).
		tmp.Mul(&vW[i], &w1x)
		b.Add(&tmp, &V[i])
	}
	for i := range T {
		e := i
		if i >= ni {
			e = i + 1
		}
		tmp.Mul(&w1, &x[e])
		tmp.Negate(&tmp)
		b.Add(&tmp, &T[i])
	}

	// The vector check, weighted by w2, then the inner-product argument on the same weight.
	w2 := seleneWeight()
	xw := make([]helioselene.Field25519, len(x))
	for i := range x {
		xw[i].Mul(&x[i], &w2)
	}
	b.Add(&xw[ilr], &AI)
	b.Add(&xw[io], &AO)
	b.hSum[log2(n)].Sub(&b.hSum[log2(n)], &w2)
	b.Add(&xw[is], &S)
	hB := make([]helioselene.Field25519, n)
	for i := range hB {
		hB[i].Mul(&lW[i], &xw[jlr])
		tmp.Mul(&oW[i], &w2)
		hB[i].Add(&hB[i], &tmp)
		tmp.Mul(&rW[i], &xw[jlr])
		b.gBold[i].Add(&b.gBold[i], &tmp)
	}
	// Vector commitment ci takes power e of x on the left and ni - e on the right: its weights, summed
	// over the constraints under z, go to h_bold times x^(ni-e). Each term is visited once (per
	// commitment and row it would be commitments × rows).
	for ci := range C {
		e := ci
		if e >= ni/2 {
			e++
		}
		b.Add(&xw[e], &C[ci])
	}
	for k := range constraints {
		for ci, terms := range constraints[k].WCG {
			e := ci
			if e >= ni/2 {
				e++
			}
			var zx helioselene.Field25519
			zx.Mul(&z[k], &xw[ni-e])
			seleneAccumulate(hB, terms, &zx)
		}
	}
	for i := range hB {
		hB[i].Mul(&hB[i], &yInvs[i])
		b.hBold[i].Add(&b.hBold[i], &hB[i])
	}
	tmp.Mul(&w2, &u)
	b.h.Sub(&b.h, &tmp)

	ipX, err := seleneChallenge(t)
	if err != nil {
		return err
	}
	tmp.Mul(&w2, &ipX)
	tmp.Mul(&tmp, &tCaret)
	b.g.Add(&b.g, &tmp)
	return seleneVerifyIP(b, n, yInvs, &ipX, &w2, t)
}

// seleneVerifyIP queues the inner-product argument over the first n generators, h_bold weighted by
// hWeights, u the discrete logarithm of g, under the verifier weight w.
func seleneVerifyIP(b *SeleneBatch, n int, hWeights []helioselene.Field25519,
	u, w *helioselene.Field25519, t *transcript.Verifier) error {
	rounds := log2(n)
	L := make([]helioselene.SelenePoint, rounds)
	R := make([]helioselene.SelenePoint, rounds)
	xs := make([]helioselene.Field25519, rounds)
	var err error
	for k := 0; k < rounds; k++ {
		if L[k], err = seleneReadPoint(t); err != nil {
			return err
		}
		if R[k], err = seleneReadPoint(t); err != nil {
			return err
		}
		if xs[k], err = seleneChallenge(t); err != nil {
			return err
		}
	}
	xInvs := make([]helioselene.Field25519, rounds)
	var tmp helioselene.Field25519
	for k := range xs {
		xInvs[k].Invert(&xs[k])
		tmp.Square(&xs[k])
		tmp.Mul(&tmp, w)
		b.Add(&tmp, &L[k])
		tmp.Square(&xInvs[k])
		tmp.Mul(&tmp, w)
		b.Add(&tmp, &R[k])
	}
	// products[i] is the product over the rounds of x_k or x_k⁻¹, chosen by i's bits with round 0 the
	// most significant (the reference's challenge_products), built by doubling the table each round.
	products := make([]helioselene.Field25519, 1<<rounds)
	products[0].One()
	if rounds > 0 {
		products[0] = xInvs[0]
		products[1] = xs[0]
		for j := 1; j < rounds; j++ {
			for slots := (1 << (j + 1)) - 1; slots > 0; slots -= 2 {
				half := products[slots/2]
				products[slots].Mul(&half, &xs[j])
				products[slots-1].Mul(&half, &xInvs[j])
			}
		}
	}
	a, err := seleneReadScalar(t)
	if err != nil {
		return err
	}
	bb, err := seleneReadScalar(t)
	if err != nil {
		return err
	}
	var wa, wb helioselene.Field25519
	wa.Mul(w, &a)
	wb.Mul(w, &bb)
	for i := 0; i < n; i++ {
		tmp.Mul(&wa, &products[i])
		b.gBold[i].Sub(&b.gBold[i], &tmp)
		tmp.Mul(&wb, &products[n-1-i])
		tmp.Mul(&tmp, &hWeights[i])
		b.hBold[i].Sub(&b.hBold[i], &tmp)
	}
	tmp.Mul(&a, &bb)
	tmp.Mul(&tmp, w)
	tmp.Mul(&tmp, u)
	b.g.Sub(&b.g, &tmp)
	return nil
}
