// Code generated from helios_prover_test.go by gen_test.go (go test -run TestGeneratedInSync -update); DO NOT EDIT.

package gbp

import (
	"github.com/gonero/gonero/fcmp/helioselene"
	"github.com/gonero/gonero/fcmp/transcript"
)

type seleneWitness struct {
	aL, aR         []helioselene.Field25519
	cValues        [][]helioselene.Field25519
	cMasks         []helioselene.Field25519
	vValues, vMask []helioselene.Field25519
}

func seleneMSM(s []helioselene.Field25519, p []helioselene.SelenePoint) helioselene.SelenePoint {
	return *helioselene.SeleneMultiScalarMult(s, p)
}

func selenePad(v []helioselene.Field25519, n int) []helioselene.Field25519 {
	out := make([]helioselene.Field25519, n)
	copy(out, v)
	return out
}

func seleneInner(a, b []helioselene.Field25519) helioselene.Field25519 {
	var s, t helioselene.Field25519
	for i := range a {
		t.Mul(&a[i], &b[i])
		s.Add(&s, &t)
	}
	return s
}

// commitments returns the witness's vector commitments C and Pedersen commitments V.
func (w *seleneWitness) commitments(gens *SeleneGenerators) (C, V []helioselene.SelenePoint) {
	for i, vals := range w.cValues {
		s := append(append([]helioselene.Field25519{}, vals...), w.cMasks[i])
		p := append(append([]helioselene.SelenePoint{}, gens.gBold[:len(vals)]...), gens.h)
		C = append(C, seleneMSM(s, p))
	}
	for i := range w.vValues {
		V = append(V, seleneMSM([]helioselene.Field25519{w.vValues[i], w.vMask[i]},
			[]helioselene.SelenePoint{gens.g, gens.h}))
	}
	return C, V
}

func seleneProverChallenge(p *transcript.Prover) helioselene.Field25519 {
	c := p.Challenge()
	var x helioselene.Field25519
	x.SetWideBytes(&c)
	return x
}

func seleneProve(gens *SeleneGenerators, rows int, constraints []SeleneLinComb, w *seleneWitness, p *transcript.Prover) {
	n := pow2(rows)
	aL, aR := selenePad(w.aL, n), selenePad(w.aR, n)
	aO := make([]helioselene.Field25519, n)
	for i := range aO {
		aO[i].Mul(&aL[i], &aR[i])
	}
	c := len(w.cValues)
	gB, hB := gens.gBold[:n], gens.hBold[:n]
	alpha, beta, rho := seleneWeight(), seleneWeight(), seleneWeight()
	join := func(ss ...[]helioselene.Field25519) []helioselene.Field25519 {
		var out []helioselene.Field25519
		for _, s := range ss {
			out = append(out, s...)
		}
		return out
	}
	joinP := func(ps ...[]helioselene.SelenePoint) []helioselene.SelenePoint {
		var out []helioselene.SelenePoint
		for _, s := range ps {
			out = append(out, s...)
		}
		return out
	}
	h1 := []helioselene.SelenePoint{gens.h}
	AI := seleneMSM(join(aL, aR, []helioselene.Field25519{alpha}), joinP(gB, hB, h1))
	AO := seleneMSM(join(aO, []helioselene.Field25519{beta}), joinP(gB, h1))
	sL, sR := make([]helioselene.Field25519, n), make([]helioselene.Field25519, n)
	for i := range sL {
		sL[i], sR[i] = seleneWeight(), seleneWeight()
	}
	S := seleneMSM(join(sL, sR, []helioselene.Field25519{rho}), joinP(gB, hB, h1))
	p.PushPoint(AI.Bytes())
	p.PushPoint(AO.Bytes())
	p.PushPoint(S.Bytes())
	y := seleneProverChallenge(p)
	z1 := seleneProverChallenge(p)
	var yInv helioselene.Field25519
	yInv.Invert(&y)
	yInvs, ys := selenePowers(&yInv, n), selenePowers(&y, n)
	z := make([]helioselene.Field25519, len(constraints))
	for k := range z {
		if k == 0 {
			z[k] = z1
		} else {
			z[k].Mul(&z[k-1], &z1)
		}
	}
	ni := 2 + 2*(c/2)
	ilr, io, is, jlr, jo, js := ni/2, ni, ni+1, ni/2, 0, ni+1
	l := make([][]helioselene.Field25519, is+1)
	r := make([][]helioselene.Field25519, is+1)
	for i := range l {
		l[i], r[i] = make([]helioselene.Field25519, n), make([]helioselene.Field25519, n)
	}
	lW, rW, oW := make([]helioselene.Field25519, n), make([]helioselene.Field25519, n), make([]helioselene.Field25519, n)
	for k := range constraints {
		seleneAccumulate(lW, constraints[k].WL, &z[k])
		seleneAccumulate(rW, constraints[k].WR, &z[k])
		seleneAccumulate(oW, constraints[k].WO, &z[k])
	}
	var tmp helioselene.Field25519
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
		cg := make([]helioselene.Field25519, n)
		for k := range constraints {
			if ci < len(constraints[k].WCG) {
				seleneAccumulate(cg, constraints[k].WCG[ci], &z[k])
			}
		}
		e := ci
		if e >= ilr {
			e++
		}
		l[e] = selenePad(w.cValues[ci], n)
		r[ni-e] = cg
	}
	tp := make([]helioselene.Field25519, 2*len(l)-1)
	for i := range l {
		for j := range r {
			ip := seleneInner(l[i], r[j])
			tp[i+j].Add(&tp[i+j], &ip)
		}
	}
	tau := make([]helioselene.Field25519, len(tp))
	for k := range tp {
		if k == ni {
			continue
		}
		tau[k] = seleneWeight()
		T := seleneMSM([]helioselene.Field25519{tp[k], tau[k]}, []helioselene.SelenePoint{gens.g, gens.h})
		p.PushPoint(T.Bytes())
	}
	xc := seleneProverChallenge(p)
	x := selenePowers(&xc, len(tp))
	lx, rx := make([]helioselene.Field25519, n), make([]helioselene.Field25519, n)
	for i := range l {
		for k := 0; k < n; k++ {
			tmp.Mul(&l[i][k], &x[i])
			lx[k].Add(&lx[k], &tmp)
			tmp.Mul(&r[i][k], &x[i])
			rx[k].Add(&rx[k], &tmp)
		}
	}
	tCaret := seleneInner(lx, rx)
	vW := make([]helioselene.Field25519, len(w.vValues))
	for k := range constraints {
		seleneAccumulate(vW, constraints[k].WV, &z[k])
	}
	tau[ni] = seleneInner(vW, w.vMask)
	tau[ni].Negate(&tau[ni])
	tauX := seleneInner(tau, x)
	var u helioselene.Field25519
	for _, pair := range [][2]*helioselene.Field25519{{&alpha, &x[ilr]}, {&beta, &x[io]}, {&rho, &x[is]}} {
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
	ipX := seleneProverChallenge(p)

	// The inner-product argument: u·g as the cross-term generator, h_bold weighted by y⁻ⁱ.
	U := *helioselene.NewSelenePoint()
	U.ScalarMult(&ipX, &gens.g)
	g := append([]helioselene.SelenePoint{}, gB...)
	h := make([]helioselene.SelenePoint, n)
	for i := range h {
		h[i].ScalarMult(&yInvs[i], &hB[i])
	}
	a, bv := lx, rx
	for len(g) > 1 {
		m := len(g) / 2
		cl := seleneInner(a[:m], bv[m:])
		cr := seleneInner(a[m:], bv[:m])
		L := seleneMSM(join(a[:m], bv[m:], []helioselene.Field25519{cl}), joinP(g[m:], h[:m], []helioselene.SelenePoint{U}))
		R := seleneMSM(join(a[m:], bv[:m], []helioselene.Field25519{cr}), joinP(g[:m], h[m:], []helioselene.SelenePoint{U}))
		p.PushPoint(L.Bytes())
		p.PushPoint(R.Bytes())
		xk := seleneProverChallenge(p)
		var xi helioselene.Field25519
		xi.Invert(&xk)
		ng, nh := make([]helioselene.SelenePoint, m), make([]helioselene.SelenePoint, m)
		na, nb := make([]helioselene.Field25519, m), make([]helioselene.Field25519, m)
		for i := 0; i < m; i++ {
			ng[i] = seleneMSM([]helioselene.Field25519{xi, xk}, []helioselene.SelenePoint{g[i], g[m+i]})
			nh[i] = seleneMSM([]helioselene.Field25519{xk, xi}, []helioselene.SelenePoint{h[i], h[m+i]})
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

func seleneAccumulate(acc []helioselene.Field25519, terms []SeleneTerm, w *helioselene.Field25519) {
	var t helioselene.Field25519
	for _, term := range terms {
		t.Mul(&term.W, w)
		acc[term.I].Add(&acc[term.I], &t)
	}
}
