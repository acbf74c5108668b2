// Code generated from helios.go by gen_test.go (go test -run TestGeneratedInSync -update); DO NOT EDIT.

package gbp

import (
	"crypto/rand"
	"slices"

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

// SeleneConstraints are a circuit's constraints laid out flat: every constraint's terms in one slice,
// so that a verifier building thousands of them (FCMP++'s divisor gadgets) allocates a few growing
// slices instead of one combination per constraint, and SeleneVerifyConstraints weighs them in one
// pass. The zero value is empty; Term adds a term to the open constraint, End closes it.
type SeleneConstraints struct {
	terms  []seleneFlatTerm
	ends   []int32 // ends[k] is the end of constraint k's terms
	consts []helioselene.Field25519
	blocks []seleneBlock
}

// SeleneShared are weights that blocks of consecutive constraints share (Block): row r weights
// variable j of a block in the block's constraint r. FCMP++'s divisor gadgets evaluate every divisor
// of a challenge at the same points, so their six evaluation constraints differ only in their
// variables; the verification sums a shared set's rows under the constraints' weights once, and then
// weighs each block's variables with one multiplication each instead of six.
type SeleneShared struct {
	rows [][]helioselene.Field25519
}

// NewSeleneShared makes a shared weight set of rows of equal length.
func NewSeleneShared(rows [][]helioselene.Field25519) *SeleneShared {
	for _, r := range rows {
		if len(r) != len(rows[0]) {
			panic("gbp: shared weight rows of different lengths")
		}
	}
	return &SeleneShared{rows: rows}
}

type seleneBlock struct {
	first int
	sh    *SeleneShared
	vars  []Var
}

type seleneFlatTerm struct {
	w    helioselene.Field25519
	kind Kind
	c, i int32 // c: the vector commitment (KindC); i: the index in its vector
}

// Term adds w times entry i of the kind's vector (of vector commitment c for KindC) to the open
// constraint. Indices beyond int32 are refused by the verification as nonexistent terms.
func (cs *SeleneConstraints) Term(kind Kind, c, i int, w *helioselene.Field25519) {
	if c < 0 || c > 1<<30 || i < 0 || i > 1<<30 {
		c, i = -1, -1
	}
	cs.terms = append(cs.terms, seleneFlatTerm{w: *w, kind: kind, c: int32(c), i: int32(i)})
}

// End closes the open constraint with constant k: the weighted sum of its terms plus k is zero.
func (cs *SeleneConstraints) End(k *helioselene.Field25519) {
	cs.ends = append(cs.ends, int32(len(cs.terms)))
	cs.consts = append(cs.consts, *k)
}

// Block adds, to constraints first, first+1, ... (one per row of sh, already closed or not), the terms
// sh.rows[r][j]·vars[j]. vars is kept, not copied.
func (cs *SeleneConstraints) Block(first int, sh *SeleneShared, vars []Var) {
	if len(sh.rows) > 0 && len(vars) != len(sh.rows[0]) {
		panic("gbp: a block's variables do not match its shared weights")
	}
	cs.blocks = append(cs.blocks, seleneBlock{first: first, sh: sh, vars: vars})
}

// Grow makes room for at least terms more terms and constraints more constraints.
func (cs *SeleneConstraints) Grow(terms, constraints int) {
	cs.terms = slices.Grow(cs.terms, terms)
	cs.ends = slices.Grow(cs.ends, constraints)
	cs.consts = slices.Grow(cs.consts, constraints)
}

// Len is the number of closed constraints.
func (cs *SeleneConstraints) Len() int { return len(cs.ends) }

// Reset empties cs, keeping its memory.
func (cs *SeleneConstraints) Reset() {
	cs.terms, cs.ends, cs.consts = cs.terms[:0], cs.ends[:0], cs.consts[:0]
	clear(cs.blocks) // drop the references to the shared weights and variables
	cs.blocks = cs.blocks[:0]
}

// seleneFlatten lays linear combinations out as SeleneConstraints.
func seleneFlatten(lcs []SeleneLinComb) *SeleneConstraints {
	cs := new(SeleneConstraints)
	for k := range lcs {
		lc := &lcs[k]
		for _, t := range lc.WL {
			cs.Term(KindL, 0, t.I, &t.W)
		}
		for _, t := range lc.WR {
			cs.Term(KindR, 0, t.I, &t.W)
		}
		for _, t := range lc.WO {
			cs.Term(KindO, 0, t.I, &t.W)
		}
		for c, ts := range lc.WCG {
			for _, t := range ts {
				cs.Term(KindC, c, t.I, &t.W)
			}
		}
		for _, t := range lc.WV {
			cs.Term(KindV, 0, t.I, &t.W)
		}
		cs.End(&lc.C)
	}
	return cs
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
	for k := range constraints {
		if len(constraints[k].WCG) > len(C) {
			return ErrStatement
		}
	}
	return SeleneVerifyConstraints(gens, b, rows, seleneFlatten(constraints), C, V, t)
}

// SeleneVerifyConstraints is SeleneVerify for constraints laid out flat.
func SeleneVerifyConstraints(gens *SeleneGenerators, b *SeleneBatch, rows int, cs *SeleneConstraints,
	C, V []helioselene.SelenePoint, t *transcript.Verifier) error {
	if rows <= 0 || pow2(rows) > len(gens.gBold) {
		return ErrGenerators
	}
	n := pow2(rows)
	for k := range cs.terms {
		tm := &cs.terms[k]
		limit := n
		switch tm.kind {
		case KindC:
			if tm.c < 0 || int(tm.c) >= len(C) {
				return ErrStatement
			}
		case KindV:
			limit = len(V)
		case KindL, KindR, KindO:
		default:
			return ErrStatement
		}
		if tm.i < 0 || int(tm.i) >= limit {
			return ErrStatement
		}
	}
	for _, bl := range cs.blocks {
		if bl.first < 0 || bl.first+len(bl.sh.rows) > len(cs.ends) {
			return ErrStatement
		}
		for _, v := range bl.vars {
			if !seleneVarOK(v, n, len(C), len(V)) {
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
	w1 := seleneWeight()
	w2 := seleneWeight()
	xw := make([]helioselene.Field25519, len(x))
	for i := range x {
		xw[i].Mul(&x[i], &w2)
	}

	// One pass over the constraints, constraint k weighted by z^(k+1): the aL, aR, aO and V weights,
	// Σ z·c, and the vector commitments' weights, which go to h_bold: commitment ci takes power e of x
	// on the left and ni - e on the right, so its weights are scaled by x^(ni-e) (times w2).
	lW := make([]helioselene.Field25519, n)
	rW := make([]helioselene.Field25519, n)
	oW := make([]helioselene.Field25519, n)
	hB := make([]helioselene.Field25519, n)
	vW := make([]helioselene.Field25519, len(V))
	var zk, zc, tmp, zx helioselene.Field25519
	zk.One()
	start := 0
	for k, end := range cs.ends {
		zk.Mul(&zk, &z1)
		if !cs.consts[k].IsZero() {
			tmp.Mul(&zk, &cs.consts[k])
			zc.Add(&zc, &tmp)
		}
		lastC := int32(-1)
		for _, tm := range cs.terms[start:end] {
			switch tm.kind {
			case KindL:
				tmp.Mul(&tm.w, &zk)
				lW[tm.i].Add(&lW[tm.i], &tmp)
			case KindR:
				tmp.Mul(&tm.w, &zk)
				rW[tm.i].Add(&rW[tm.i], &tmp)
			case KindO:
				tmp.Mul(&tm.w, &zk)
				oW[tm.i].Add(&oW[tm.i], &tmp)
			case KindV:
				tmp.Mul(&tm.w, &zk)
				vW[tm.i].Add(&vW[tm.i], &tmp)
			case KindC:
				if tm.c != lastC {
					e := int(tm.c)
					if e >= ni/2 {
						e++
					}
					zx.Mul(&zk, &xw[ni-e])
					lastC = tm.c
				}
				tmp.Mul(&tm.w, &zx)
				hB[tm.i].Add(&hB[tm.i], &tmp)
			}
		}
		start = int(end)
	}
	if len(cs.blocks) > 0 {
		seleneWeighBlocks(cs, &z1, ni, xw, lW, rW, oW, hB, vW)
	}
	var delta helioselene.Field25519
	for i := range rW {
		rW[i].Mul(&rW[i], &yInvs[i])
		tmp.Mul(&rW[i], &lW[i])
		delta.Add(&delta, &tmp)
	}

	// The polynomial check: t_caret·g + tau_x·h = x^ni·(delta - <z, c>)·g + Σ x^ni·V-weights·V + Σ x^i·T_i.
	tmp.Mul(&tCaret, &w1)
	b.g.Add(&b.g, &tmp)
	tmp.Mul(&tauX, &w1)
	b.h.Add(&b.h, &tmp)
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
	b.Add(&xw[ilr], &AI)
	b.Add(&xw[io], &AO)
	b.hSum[log2(n)].Sub(&b.hSum[log2(n)], &w2)
	b.Add(&xw[is], &S)
	for i := range hB {
		tmp.Mul(&lW[i], &xw[jlr])
		hB[i].Add(&hB[i], &tmp)
		tmp.Mul(&oW[i], &w2)
		hB[i].Add(&hB[i], &tmp)
		tmp.Mul(&rW[i], &xw[jlr])
		b.gBold[i].Add(&b.gBold[i], &tmp)
	}
	for ci := range C {
		e := ci
		if e >= ni/2 {
			e++
		}
		b.Add(&xw[e], &C[ci])
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

func seleneVarOK(v Var, n, c, nv int) bool {
	limit := n
	switch v.Kind {
	case KindC:
		if v.C < 0 || int(v.C) >= c {
			return false
		}
	case KindV:
		limit = nv
	case KindL, KindR, KindO:
	default:
		return false
	}
	return v.I >= 0 && int(v.I) < limit
}

// seleneWeighBlocks adds the shared-weight blocks' terms to the accumulated weights: each shared set's
// rows summed under z's powers once, then each block's variables weighed by z^(first+1) times the sum.
func seleneWeighBlocks(cs *SeleneConstraints, z1 *helioselene.Field25519, ni int,
	xw, lW, rW, oW, hB, vW []helioselene.Field25519) {
	zs := make([]helioselene.Field25519, len(cs.ends))
	zs[0] = *z1
	for k := 1; k < len(zs); k++ {
		zs[k].Mul(&zs[k-1], z1)
	}
	var sums []*SeleneShared
	var sumW [][]helioselene.Field25519
	var tmp, f helioselene.Field25519
	for _, bl := range cs.blocks {
		var w []helioselene.Field25519
		for i, sh := range sums {
			if sh == bl.sh {
				w = sumW[i]
				break
			}
		}
		if w == nil {
			// Σ_r z^r·rows[r] (constraint first+r has weight z^(first+1)·z^r).
			w = make([]helioselene.Field25519, len(bl.vars))
			var zr helioselene.Field25519
			zr.One()
			for r, row := range bl.sh.rows {
				if r > 0 {
					zr.Mul(&zr, z1)
				}
				for j := range row {
					tmp.Mul(&row[j], &zr)
					w[j].Add(&w[j], &tmp)
				}
			}
			sums = append(sums, bl.sh)
			sumW = append(sumW, w)
		}
		zf := &zs[bl.first]
		lastC := int32(-1)
		for j, v := range bl.vars {
			switch v.Kind {
			case KindL:
				tmp.Mul(&w[j], zf)
				lW[v.I].Add(&lW[v.I], &tmp)
			case KindR:
				tmp.Mul(&w[j], zf)
				rW[v.I].Add(&rW[v.I], &tmp)
			case KindO:
				tmp.Mul(&w[j], zf)
				oW[v.I].Add(&oW[v.I], &tmp)
			case KindV:
				tmp.Mul(&w[j], zf)
				vW[v.I].Add(&vW[v.I], &tmp)
			case KindC:
				if v.C != lastC {
					e := int(v.C)
					if e >= ni/2 {
						e++
					}
					f.Mul(zf, &xw[ni-e])
					lastC = v.C
				}
				tmp.Mul(&w[j], &f)
				hB[v.I].Add(&hB[v.I], &tmp)
			}
		}
	}
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
