// Helios is the template of this package: selene.go is this file with the curves and fields swapped.

package gbp

import (
	"crypto/rand"
	"slices"

	"github.com/gonero/gonero/fcmp/helioselene"
	"github.com/gonero/gonero/fcmp/transcript"
)

// HeliosTerm is one weighted variable of a linear combination: index I of its vector, weight W.
type HeliosTerm struct {
	I int
	W helioselene.HelioseleneField
}

// HeliosLinComb is one constraint of a Helios circuit (the reference's LinComb): the weighted sum of
// the multiplication inputs aL, aR, the outputs aO, the committed vectors' entries (WCG[i] weights
// vector commitment i), the Pedersen-committed values V, and the constant C is zero.
type HeliosLinComb struct {
	WL, WR, WO []HeliosTerm
	WCG        [][]HeliosTerm
	WV         []HeliosTerm
	C          helioselene.HelioseleneField
}

// HeliosConstraints are a circuit's constraints laid out flat: every constraint's terms in one slice,
// so that a verifier building thousands of them (FCMP++'s divisor gadgets) allocates a few growing
// slices instead of one combination per constraint, and HeliosVerifyConstraints weighs them in one
// pass. The zero value is empty; Term adds a term to the open constraint, End closes it.
type HeliosConstraints struct {
	terms  []heliosFlatTerm
	ends   []int32 // ends[k] is the end of constraint k's terms
	consts []helioselene.HelioseleneField
	blocks []heliosBlock
}

// HeliosShared are weights that blocks of consecutive constraints share (Block): row r weights
// variable j of a block in the block's constraint r. FCMP++'s divisor gadgets evaluate every divisor
// of a challenge at the same points, so their six evaluation constraints differ only in their
// variables; the verification sums a shared set's rows under the constraints' weights once, and then
// weighs each block's variables with one multiplication each instead of six.
type HeliosShared struct {
	rows [][]helioselene.HelioseleneField
}

// NewHeliosShared makes a shared weight set of rows of equal length.
func NewHeliosShared(rows [][]helioselene.HelioseleneField) *HeliosShared {
	for _, r := range rows {
		if len(r) != len(rows[0]) {
			panic("gbp: shared weight rows of different lengths")
		}
	}
	return &HeliosShared{rows: rows}
}

type heliosBlock struct {
	first int
	sh    *HeliosShared
	vars  []Var
}

type heliosFlatTerm struct {
	w    helioselene.HelioseleneField
	kind Kind
	c, i int32 // c: the vector commitment (KindC); i: the index in its vector
}

// Term adds w times entry i of the kind's vector (of vector commitment c for KindC) to the open
// constraint. Indices beyond int32 are refused by the verification as nonexistent terms.
func (cs *HeliosConstraints) Term(kind Kind, c, i int, w *helioselene.HelioseleneField) {
	if c < 0 || c > 1<<30 || i < 0 || i > 1<<30 {
		c, i = -1, -1
	}
	cs.terms = append(cs.terms, heliosFlatTerm{w: *w, kind: kind, c: int32(c), i: int32(i)})
}

// End closes the open constraint with constant k: the weighted sum of its terms plus k is zero.
func (cs *HeliosConstraints) End(k *helioselene.HelioseleneField) {
	cs.ends = append(cs.ends, int32(len(cs.terms)))
	cs.consts = append(cs.consts, *k)
}

// Block adds, to constraints first, first+1, ... (one per row of sh, already closed or not), the terms
// sh.rows[r][j]·vars[j]. vars is kept, not copied.
func (cs *HeliosConstraints) Block(first int, sh *HeliosShared, vars []Var) {
	if len(sh.rows) > 0 && len(vars) != len(sh.rows[0]) {
		panic("gbp: a block's variables do not match its shared weights")
	}
	cs.blocks = append(cs.blocks, heliosBlock{first: first, sh: sh, vars: vars})
}

// Grow makes room for at least terms more terms and constraints more constraints.
func (cs *HeliosConstraints) Grow(terms, constraints int) {
	cs.terms = slices.Grow(cs.terms, terms)
	cs.ends = slices.Grow(cs.ends, constraints)
	cs.consts = slices.Grow(cs.consts, constraints)
}

// Len is the number of closed constraints.
func (cs *HeliosConstraints) Len() int { return len(cs.ends) }

// Reset empties cs, keeping its memory.
func (cs *HeliosConstraints) Reset() {
	cs.terms, cs.ends, cs.consts = cs.terms[:0], cs.ends[:0], cs.consts[:0]
	clear(cs.blocks) // drop the references to the shared weights and variables
	cs.blocks = cs.blocks[:0]
}

// heliosFlatten lays linear combinations out as HeliosConstraints.
func heliosFlatten(lcs []HeliosLinComb) *HeliosConstraints {
	cs := new(HeliosConstraints)
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

// HeliosGenerators are a generalized Bulletproofs generator set on Helios: g, h, the vectors g_bold and
// h_bold (a power of two long), and the sums of h_bold's first 2^i points.
type HeliosGenerators struct {
	g, h         helioselene.HeliosPoint
	gBold, hBold []helioselene.HeliosPoint
	hSum         []helioselene.HeliosPoint
}

// NewHeliosGenerators checks the shape the reference's Generators::new checks (g_bold non-empty, as long
// as h_bold, a power of two) and precomputes the h_bold prefix sums. The reference also refuses a
// duplicated generator; the sets used here are fixed hash-derived constants, checked against the
// oracle's vectors by fcmp/tree, so that is not repeated at every start.
func NewHeliosGenerators(g, h helioselene.HeliosPoint, gBold, hBold []helioselene.HeliosPoint) (*HeliosGenerators, error) {
	if len(gBold) == 0 || len(gBold) != len(hBold) || pow2(len(gBold)) != len(gBold) {
		return nil, ErrGenerators
	}
	gens := &HeliosGenerators{g: g, h: h, gBold: gBold, hBold: hBold}
	sum := helioselene.NewHeliosPoint()
	for i := range hBold {
		sum.Add(sum, &hBold[i])
		if pow2(i+1) == i+1 {
			gens.hSum = append(gens.hSum, *sum)
		}
	}
	return gens, nil
}

// H is the generator h, which blinds every commitment.
func (gens *HeliosGenerators) H() helioselene.HeliosPoint { return gens.h }

// Len is the number of g_bold (and h_bold) generators.
func (gens *HeliosGenerators) Len() int { return len(gens.gBold) }

// HeliosBatch accumulates queued proofs' checks: a scalar for each fixed generator and extra
// (scalar, point) pairs for the proofs' own points. Verify checks them all with one multiscalar
// multiplication.
type HeliosBatch struct {
	g, h               helioselene.HelioseleneField
	gBold, hBold, hSum []helioselene.HelioseleneField
	scalars            []helioselene.HelioseleneField
	points             []helioselene.HeliosPoint
}

func (b *HeliosBatch) grow(n int) {
	for len(b.gBold) < n {
		var zero helioselene.HelioseleneField
		b.gBold = append(b.gBold, zero)
		b.hBold = append(b.hBold, zero)
		b.hSum = append(b.hSum, zero)
	}
}

// Add queues s·P.
func (b *HeliosBatch) Add(s *helioselene.HelioseleneField, p *helioselene.HeliosPoint) {
	b.scalars = append(b.scalars, *s)
	b.points = append(b.points, *p)
}

// AddG queues s·g, g the generators' g.
func (b *HeliosBatch) AddG(s *helioselene.HelioseleneField) { b.g.Add(&b.g, s) }

// AddH queues s·h.
func (b *HeliosBatch) AddH(s *helioselene.HelioseleneField) { b.h.Add(&b.h, s) }

// Verify reports whether every check queued in b holds: Σ scalar·point is the identity.
func (gens *HeliosGenerators) Verify(b *HeliosBatch) bool {
	if len(b.gBold) > len(gens.gBold) {
		return false
	}
	n := 2 + 3*len(b.gBold) + len(b.scalars)
	scalars := make([]helioselene.HelioseleneField, 0, n)
	points := make([]helioselene.HeliosPoint, 0, n)
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
	return helioselene.HeliosMultiScalarMult(scalars, points).IsIdentity()
}

// heliosWeight draws a verifier weight: the batch's soundness rests on weights the prover cannot
// predict.
func heliosWeight() helioselene.HelioseleneField {
	var buf [64]byte
	if _, err := rand.Read(buf[:]); err != nil {
		panic("gbp: no randomness: " + err.Error())
	}
	var w helioselene.HelioseleneField
	w.SetWideBytes(&buf)
	return w
}

func heliosChallenge(t *transcript.Verifier) (helioselene.HelioseleneField, error) {
	c := t.Challenge()
	var x helioselene.HelioseleneField
	x.SetWideBytes(&c)
	if x.IsZero() {
		return x, ErrZeroChallenge
	}
	return x, nil
}

func heliosReadPoint(t *transcript.Verifier) (helioselene.HeliosPoint, error) {
	var p helioselene.HeliosPoint
	b, err := t.ReadPoint()
	if err != nil {
		return p, err
	}
	if _, err := p.SetBytes(b); err != nil {
		return p, ErrProof
	}
	return p, nil
}

func heliosReadScalar(t *transcript.Verifier) (helioselene.HelioseleneField, error) {
	var s helioselene.HelioseleneField
	b, err := t.ReadScalar()
	if err != nil {
		return s, err
	}
	if _, err := s.SetBytes(b); err != nil {
		return s, ErrProof
	}
	return s, nil
}

func heliosPowers(x *helioselene.HelioseleneField, n int) []helioselene.HelioseleneField {
	p := make([]helioselene.HelioseleneField, n)
	p[0].One()
	for i := 1; i < n; i++ {
		p[i].Mul(&p[i-1], x)
	}
	return p
}

// HeliosReadCommitments reads c vector commitments and v Pedersen commitments, absorbing their counts
// and encodings as read_commitments does.
func HeliosReadCommitments(t *transcript.Verifier, c, v int) (C, V []helioselene.HeliosPoint, err error) {
	t.Count(c)
	C = make([]helioselene.HeliosPoint, c)
	for i := range C {
		if C[i], err = heliosReadPoint(t); err != nil {
			return nil, nil, err
		}
	}
	t.Count(v)
	V = make([]helioselene.HeliosPoint, v)
	for i := range V {
		if V[i], err = heliosReadPoint(t); err != nil {
			return nil, nil, err
		}
	}
	return C, V, nil
}

// HeliosVerify reads an arithmetic-circuit proof from t and queues its check into b: the circuit has
// rows multiplication rows (padded to a power of two, at most gens.Len()), the constraints, the vector
// commitments C and the Pedersen commitments V. An error means the proof is invalid (and b spoiled);
// nil means the proof holds if b's Verify does.
func HeliosVerify(gens *HeliosGenerators, b *HeliosBatch, rows int, constraints []HeliosLinComb,
	C, V []helioselene.HeliosPoint, t *transcript.Verifier) error {
	for k := range constraints {
		if len(constraints[k].WCG) > len(C) {
			return ErrStatement
		}
	}
	return HeliosVerifyConstraints(gens, b, rows, heliosFlatten(constraints), C, V, t)
}

// HeliosVerifyConstraints is HeliosVerify for constraints laid out flat.
func HeliosVerifyConstraints(gens *HeliosGenerators, b *HeliosBatch, rows int, cs *HeliosConstraints,
	C, V []helioselene.HeliosPoint, t *transcript.Verifier) error {
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
			if !heliosVarOK(v, n, len(C), len(V)) {
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

	AI, err := heliosReadPoint(t)
	if err != nil {
		return err
	}
	AO, err := heliosReadPoint(t)
	if err != nil {
		return err
	}
	S, err := heliosReadPoint(t)
	if err != nil {
		return err
	}
	y, err := heliosChallenge(t)
	if err != nil {
		return err
	}
	z1, err := heliosChallenge(t)
	if err != nil {
		return err
	}
	var yInv helioselene.HelioseleneField
	yInv.Invert(&y)
	yInvs := heliosPowers(&yInv, n)

	T := make([]helioselene.HeliosPoint, tPolyLen-1)
	for i := range T {
		if T[i], err = heliosReadPoint(t); err != nil {
			return err
		}
	}
	xc, err := heliosChallenge(t)
	if err != nil {
		return err
	}
	x := heliosPowers(&xc, tPolyLen)
	tauX, err := heliosReadScalar(t)
	if err != nil {
		return err
	}
	u, err := heliosReadScalar(t)
	if err != nil {
		return err
	}
	tCaret, err := heliosReadScalar(t)
	if err != nil {
		return err
	}
	w1 := heliosWeight()
	w2 := heliosWeight()
	xw := make([]helioselene.HelioseleneField, len(x))
	for i := range x {
		xw[i].Mul(&x[i], &w2)
	}

	// One pass over the constraints, constraint k weighted by z^(k+1): the aL, aR, aO and V weights,
	// Σ z·c, and the vector commitments' weights, which go to h_bold: commitment ci takes power e of x
	// on the left and ni - e on the right, so its weights are scaled by x^(ni-e) (times w2).
	lW := make([]helioselene.HelioseleneField, n)
	rW := make([]helioselene.HelioseleneField, n)
	oW := make([]helioselene.HelioseleneField, n)
	hB := make([]helioselene.HelioseleneField, n)
	vW := make([]helioselene.HelioseleneField, len(V))
	var zk, zc, tmp, zx helioselene.HelioseleneField
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
		heliosWeighBlocks(cs, &z1, ni, xw, lW, rW, oW, hB, vW)
	}
	var delta helioselene.HelioseleneField
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
	var w1x helioselene.HelioseleneField
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

	ipX, err := heliosChallenge(t)
	if err != nil {
		return err
	}
	tmp.Mul(&w2, &ipX)
	tmp.Mul(&tmp, &tCaret)
	b.g.Add(&b.g, &tmp)
	return heliosVerifyIP(b, n, yInvs, &ipX, &w2, t)
}

func heliosVarOK(v Var, n, c, nv int) bool {
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

// heliosWeighBlocks adds the shared-weight blocks' terms to the accumulated weights: each shared set's
// rows summed under z's powers once, then each block's variables weighed by z^(first+1) times the sum.
func heliosWeighBlocks(cs *HeliosConstraints, z1 *helioselene.HelioseleneField, ni int,
	xw, lW, rW, oW, hB, vW []helioselene.HelioseleneField) {
	zs := make([]helioselene.HelioseleneField, len(cs.ends))
	zs[0] = *z1
	for k := 1; k < len(zs); k++ {
		zs[k].Mul(&zs[k-1], z1)
	}
	var sums []*HeliosShared
	var sumW [][]helioselene.HelioseleneField
	var tmp, f helioselene.HelioseleneField
	for _, bl := range cs.blocks {
		var w []helioselene.HelioseleneField
		for i, sh := range sums {
			if sh == bl.sh {
				w = sumW[i]
				break
			}
		}
		if w == nil {
			// Σ_r z^r·rows[r] (constraint first+r has weight z^(first+1)·z^r).
			w = make([]helioselene.HelioseleneField, len(bl.vars))
			var zr helioselene.HelioseleneField
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

// heliosVerifyIP queues the inner-product argument over the first n generators, h_bold weighted by
// hWeights, u the discrete logarithm of g, under the verifier weight w.
func heliosVerifyIP(b *HeliosBatch, n int, hWeights []helioselene.HelioseleneField,
	u, w *helioselene.HelioseleneField, t *transcript.Verifier) error {
	rounds := log2(n)
	L := make([]helioselene.HeliosPoint, rounds)
	R := make([]helioselene.HeliosPoint, rounds)
	xs := make([]helioselene.HelioseleneField, rounds)
	var err error
	for k := 0; k < rounds; k++ {
		if L[k], err = heliosReadPoint(t); err != nil {
			return err
		}
		if R[k], err = heliosReadPoint(t); err != nil {
			return err
		}
		if xs[k], err = heliosChallenge(t); err != nil {
			return err
		}
	}
	xInvs := make([]helioselene.HelioseleneField, rounds)
	var tmp helioselene.HelioseleneField
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
	products := make([]helioselene.HelioseleneField, 1<<rounds)
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
	a, err := heliosReadScalar(t)
	if err != nil {
		return err
	}
	bb, err := heliosReadScalar(t)
	if err != nil {
		return err
	}
	var wa, wb helioselene.HelioseleneField
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
