// The template of selene_prover_test.go: a generalized Bulletproofs prover on Helios, for the tests only
// (gonero proves nothing on chain), following d06d9518's ArithmeticCircuitStatement::prove and
// IpStatement::prove step by step so that the verifier can be exercised on circuits of every shape.

package gbp

import (
	"github.com/gonero/gonero/fcmp/helioselene"
	"github.com/gonero/gonero/fcmp/transcript"
)

type heliosWitness struct {
	aL, aR         []helioselene.HelioseleneField
	cValues        [][]helioselene.HelioseleneField
	cMasks         []helioselene.HelioseleneField
	vValues, vMask []helioselene.HelioseleneField
}

func heliosMSM(s []helioselene.HelioseleneField, p []helioselene.HeliosPoint) helioselene.HeliosPoint {
	return *helioselene.HeliosMultiScalarMult(s, p)
}

func heliosPad(v []helioselene.HelioseleneField, n int) []helioselene.HelioseleneField {
	out := make([]helioselene.HelioseleneField, n)
	copy(out, v)
	return out
}

func heliosInner(a, b []helioselene.HelioseleneField) helioselene.HelioseleneField {
	var s, t helioselene.HelioseleneField
	for i := range a {
		t.Mul(&a[i], &b[i])
		s.Add(&s, &t)
	}
	return s
}

// commitments returns the witness's vector commitments C and Pedersen commitments V.
func (w *heliosWitness) commitments(gens *HeliosGenerators) (C, V []helioselene.HeliosPoint) {
	for i, vals := range w.cValues {
		s := append(append([]helioselene.HelioseleneField{}, vals...), w.cMasks[i])
		p := append(append([]helioselene.HeliosPoint{}, gens.gBold[:len(vals)]...), gens.h)
		C = append(C, heliosMSM(s, p))
	}
	for i := range w.vValues {
		V = append(V, heliosMSM([]helioselene.HelioseleneField{w.vValues[i], w.vMask[i]},
			[]helioselene.HeliosPoint{gens.g, gens.h}))
	}
	return C, V
}

func heliosProverChallenge(p *transcript.Prover) helioselene.HelioseleneField {
	c := p.Challenge()
	var x helioselene.HelioseleneField
	x.SetWideBytes(&c)
	return x
}

func heliosProve(gens *HeliosGenerators, rows int, constraints []HeliosLinComb, w *heliosWitness, p *transcript.Prover) {
	n := pow2(rows)
	aL, aR := heliosPad(w.aL, n), heliosPad(w.aR, n)
	aO := make([]helioselene.HelioseleneField, n)
	for i := range aO {
		aO[i].Mul(&aL[i], &aR[i])
	}
	c := len(w.cValues)
	gB, hB := gens.gBold[:n], gens.hBold[:n]
	alpha, beta, rho := heliosWeight(), heliosWeight(), heliosWeight()
	join := func(ss ...[]helioselene.HelioseleneField) []helioselene.HelioseleneField {
		var out []helioselene.HelioseleneField
		for _, s := range ss {
			out = append(out, s...)
		}
		return out
	}
	joinP := func(ps ...[]helioselene.HeliosPoint) []helioselene.HeliosPoint {
		var out []helioselene.HeliosPoint
		for _, s := range ps {
			out = append(out, s...)
		}
		return out
	}
	h1 := []helioselene.HeliosPoint{gens.h}
	AI := heliosMSM(join(aL, aR, []helioselene.HelioseleneField{alpha}), joinP(gB, hB, h1))
	AO := heliosMSM(join(aO, []helioselene.HelioseleneField{beta}), joinP(gB, h1))
	sL, sR := make([]helioselene.HelioseleneField, n), make([]helioselene.HelioseleneField, n)
	for i := range sL {
		sL[i], sR[i] = heliosWeight(), heliosWeight()
	}
	S := heliosMSM(join(sL, sR, []helioselene.HelioseleneField{rho}), joinP(gB, hB, h1))
	p.PushPoint(AI.Bytes())
	p.PushPoint(AO.Bytes())
	p.PushPoint(S.Bytes())
	y := heliosProverChallenge(p)
	z1 := heliosProverChallenge(p)
	var yInv helioselene.HelioseleneField
	yInv.Invert(&y)
	yInvs, ys := heliosPowers(&yInv, n), heliosPowers(&y, n)
	z := make([]helioselene.HelioseleneField, len(constraints))
	for k := range z {
		if k == 0 {
			z[k] = z1
		} else {
			z[k].Mul(&z[k-1], &z1)
		}
	}
	ni := 2 + 2*(c/2)
	ilr, io, is, jlr, jo, js := ni/2, ni, ni+1, ni/2, 0, ni+1
	l := make([][]helioselene.HelioseleneField, is+1)
	r := make([][]helioselene.HelioseleneField, is+1)
	for i := range l {
		l[i], r[i] = make([]helioselene.HelioseleneField, n), make([]helioselene.HelioseleneField, n)
	}
	lW, rW, oW := make([]helioselene.HelioseleneField, n), make([]helioselene.HelioseleneField, n), make([]helioselene.HelioseleneField, n)
	for k := range constraints {
		heliosAccumulate(lW, constraints[k].WL, &z[k])
		heliosAccumulate(rW, constraints[k].WR, &z[k])
		heliosAccumulate(oW, constraints[k].WO, &z[k])
	}
	var tmp helioselene.HelioseleneField
	for i := 0; i < n; i++ {
		l[ilr][i].Mul(&rW[i], &yInvs[i])
		l[ilr][i].Add(&l[ilr][i], &aL[i])
		l[io][i] = aO[i]
		l[is][i] = sL[i]
		tmp.Mul(&aR[i], &ys[i])
		r[jlr][i].Add(&lW[i], &tmp)
		r[jo][i].Sub(&oW[i], &ys[i])
		r[js][i].Mul(&sR[i], &ys[i])
	}
	for ci := range w.cValues {
		cg := make([]helioselene.HelioseleneField, n)
		for k := range constraints {
			if ci < len(constraints[k].WCG) {
				heliosAccumulate(cg, constraints[k].WCG[ci], &z[k])
			}
		}
		e := ci
		if e >= ilr {
			e++
		}
		l[e] = heliosPad(w.cValues[ci], n)
		r[ni-e] = cg
	}
	tp := make([]helioselene.HelioseleneField, 2*len(l)-1)
	for i := range l {
		for j := range r {
			ip := heliosInner(l[i], r[j])
			tp[i+j].Add(&tp[i+j], &ip)
		}
	}
	tau := make([]helioselene.HelioseleneField, len(tp))
	for k := range tp {
		if k == ni {
			continue
		}
		tau[k] = heliosWeight()
		T := heliosMSM([]helioselene.HelioseleneField{tp[k], tau[k]}, []helioselene.HeliosPoint{gens.g, gens.h})
		p.PushPoint(T.Bytes())
	}
	xc := heliosProverChallenge(p)
	x := heliosPowers(&xc, len(tp))
	lx, rx := make([]helioselene.HelioseleneField, n), make([]helioselene.HelioseleneField, n)
	for i := range l {
		for k := 0; k < n; k++ {
			tmp.Mul(&l[i][k], &x[i])
			lx[k].Add(&lx[k], &tmp)
			tmp.Mul(&r[i][k], &x[i])
			rx[k].Add(&rx[k], &tmp)
		}
	}
	tCaret := heliosInner(lx, rx)
	vW := make([]helioselene.HelioseleneField, len(w.vValues))
	for k := range constraints {
		heliosAccumulate(vW, constraints[k].WV, &z[k])
	}
	tau[ni] = heliosInner(vW, w.vMask)
	tau[ni].Negate(&tau[ni])
	tauX := heliosInner(tau, x)
	var u helioselene.HelioseleneField
	for _, pair := range [][2]*helioselene.HelioseleneField{{&alpha, &x[ilr]}, {&beta, &x[io]}, {&rho, &x[is]}} {
		tmp.Mul(pair[0], pair[1])
		u.Add(&u, &tmp)
	}
	for ci := range w.cMasks {
		e := ci
		if e >= ilr {
			e++
		}
		tmp.Mul(&x[e], &w.cMasks[ci])
		u.Add(&u, &tmp)
	}
	p.PushScalar(tauX.Bytes())
	p.PushScalar(u.Bytes())
	p.PushScalar(tCaret.Bytes())
	ipX := heliosProverChallenge(p)

	// The inner-product argument: u·g as the cross-term generator, h_bold weighted by y⁻ⁱ.
	U := *helioselene.NewHeliosPoint()
	U.ScalarMult(&ipX, &gens.g)
	g := append([]helioselene.HeliosPoint{}, gB...)
	h := make([]helioselene.HeliosPoint, n)
	for i := range h {
		h[i].ScalarMult(&yInvs[i], &hB[i])
	}
	a, bv := lx, rx
	for len(g) > 1 {
		m := len(g) / 2
		cl := heliosInner(a[:m], bv[m:])
		cr := heliosInner(a[m:], bv[:m])
		L := heliosMSM(join(a[:m], bv[m:], []helioselene.HelioseleneField{cl}), joinP(g[m:], h[:m], []helioselene.HeliosPoint{U}))
		R := heliosMSM(join(a[m:], bv[:m], []helioselene.HelioseleneField{cr}), joinP(g[:m], h[m:], []helioselene.HeliosPoint{U}))
		p.PushPoint(L.Bytes())
		p.PushPoint(R.Bytes())
		xk := heliosProverChallenge(p)
		var xi helioselene.HelioseleneField
		xi.Invert(&xk)
		ng, nh := make([]helioselene.HeliosPoint, m), make([]helioselene.HeliosPoint, m)
		na, nb := make([]helioselene.HelioseleneField, m), make([]helioselene.HelioseleneField, m)
		for i := 0; i < m; i++ {
			ng[i] = heliosMSM([]helioselene.HelioseleneField{xi, xk}, []helioselene.HeliosPoint{g[i], g[m+i]})
			nh[i] = heliosMSM([]helioselene.HelioseleneField{xk, xi}, []helioselene.HeliosPoint{h[i], h[m+i]})
			na[i].Mul(&a[i], &xk)
			tmp.Mul(&a[m+i], &xi)
			na[i].Add(&na[i], &tmp)
			nb[i].Mul(&bv[i], &xi)
			tmp.Mul(&bv[m+i], &xk)
			nb[i].Add(&nb[i], &tmp)
		}
		g, h, a, bv = ng, nh, na, nb
	}
	p.PushScalar(a[0].Bytes())
	p.PushScalar(bv[0].Bytes())
}

func heliosAccumulate(acc []helioselene.HelioseleneField, terms []HeliosTerm, w *helioselene.HelioseleneField) {
	var t helioselene.HelioseleneField
	for _, term := range terms {
		t.Mul(&term.W, w)
		acc[term.I].Add(&acc[term.I], &t)
	}
}
