// Bulletproof range-proof verification (RingCT types 3, 4 and 5), batched
// as monerod's bulletproof_VERIFY(vector) does: docs/tx-verification.md §3.10.

package ringct

import (
	"filippo.io/edwards25519"

	"github.com/gonero/gonero/crypto"
	"github.com/gonero/gonero/cryptonote"
	"github.com/gonero/gonero/ringct/internal/msm"
)

// BulletproofItem is one Bulletproof with the commitments it covers: the
// transaction's outPk. The proof's V = INV_EIGHT·outPk is derived inside.
type BulletproofItem struct {
	Proof       *cryptonote.Bulletproof
	Commitments []cryptonote.Key
}

// bpData is one proof after its structural checks and transcript.
type bpData struct {
	taux, mu, a, b, t *edwards25519.Scalar
	v8                []*msm.Point
	a8, s8, t18, t28  *msm.Point
	l8, r8            []*msm.Point
	y, z, x, xip      edwards25519.Scalar
	w                 []edwards25519.Scalar // one challenge per round
	logM, rounds      int
}

// VerifyBulletproofs checks every proof as one multiscalar multiplication,
// each proof's two equations with their own random weights. It returns false
// if any proof is malformed or invalid; a batch verdict equals the
// conjunction of the proofs' individual verdicts (up to the negligible
// chance that random weights cancel a wrong proof).
func VerifyBulletproofs(items []BulletproofItem) bool {
	if len(items) == 0 {
		return true
	}
	data := make([]bpData, len(items))
	maxLogM, extra := 0, 0
	var toInvert []edwards25519.Scalar
	for i := range items {
		pd := &data[i]
		if !pd.parse(&items[i]) {
			return false
		}
		maxLogM = max(maxLogM, pd.logM)
		extra += len(pd.v8) + 2*pd.rounds + 4
		toInvert = append(toInvert, pd.w...)
		toInvert = append(toInvert, pd.y)
	}
	batchInvert(toInvert)

	b := newBatch(bulletproofGenerators(), bpN<<maxLogM, extra)
	off := 0
	for i := range data {
		pd := &data[i]
		inv := toInvert[off : off+pd.rounds+1]
		off += pd.rounds + 1
		pd.accumulate(b, randomWeight(), randomWeight(), inv[:pd.rounds], &inv[pd.rounds])
	}
	return b.isZero()
}

// parse applies the structural checks (canonical τx, μ, a, b, t;
// 1 ≤ m ≤ 16; len(L) = len(R) = 6 + log₂M; every point decodes) and
// computes the challenges, refusing zero ones.
func (pd *bpData) parse(it *BulletproofItem) bool {
	p := it.Proof
	if p == nil {
		return false
	}
	for _, f := range []struct {
		dst **edwards25519.Scalar
		src *cryptonote.Key
	}{{&pd.taux, &p.Taux}, {&pd.mu, &p.Mu}, {&pd.a, &p.Aa}, {&pd.b, &p.B}, {&pd.t, &p.T}} {
		s, err := crypto.DecodeScalar(f.src[:])
		if err != nil {
			return false
		}
		*f.dst = s
	}
	var ok bool
	var venc []byte
	if pd.logM, pd.rounds, venc, pd.v8, ok = proofShape(it.Commitments, p.L, p.R); !ok {
		return false
	}
	for _, f := range []struct {
		dst **msm.Point
		src *cryptonote.Key
	}{{&pd.a8, &p.A}, {&pd.s8, &p.S}, {&pd.t18, &p.T1}, {&pd.t28, &p.T2}} {
		if *f.dst, ok = decodePoint8(f.src); !ok {
			return false
		}
	}
	pd.l8 = make([]*msm.Point, pd.rounds)
	pd.r8 = make([]*msm.Point, pd.rounds)
	for k := 0; k < pd.rounds; k++ {
		if pd.l8[k], ok = decodePoint8(&p.L[k]); !ok {
			return false
		}
		if pd.r8[k], ok = decodePoint8(&p.R[k]); !ok {
			return false
		}
	}

	// y = Hs(Hs(V) ‖ A ‖ S); z = Hs(y); x = Hs(z ‖ z ‖ T1 ‖ T2);
	// x_ip = Hs(x ‖ x ‖ τx ‖ μ ‖ t); w_k = Hs(previous ‖ L_k ‖ R_k).
	hv := crypto.HashToScalar(venc)
	pd.y = *crypto.HashToScalar(hv.Bytes(), p.A[:], p.S[:])
	if isZeroScalar(&pd.y) {
		return false
	}
	pd.z = *crypto.HashToScalar(pd.y.Bytes())
	if isZeroScalar(&pd.z) {
		return false
	}
	zb := pd.z.Bytes()
	pd.x = *crypto.HashToScalar(zb, zb, p.T1[:], p.T2[:])
	if isZeroScalar(&pd.x) {
		return false
	}
	xb := pd.x.Bytes()
	pd.xip = *crypto.HashToScalar(xb, xb, p.Taux[:], p.Mu[:], p.T[:])
	if isZeroScalar(&pd.xip) {
		return false
	}
	prev := pd.xip.Bytes()
	pd.w = make([]edwards25519.Scalar, pd.rounds)
	for k := 0; k < pd.rounds; k++ {
		pd.w[k] = *crypto.HashToScalar(prev, p.L[k][:], p.R[k][:])
		if isZeroScalar(&pd.w[k]) {
			return false
		}
		prev = pd.w[k].Bytes()
	}
	return true
}

// accumulate adds wy times equation 1 and wz times equation 2, each written
// as a sum that must be the identity:
//
//	(1) Σⱼ z^(j+2)·V'ⱼ + x·T1' + x²·T2' + (δ − t)·H − τx·G
//	(2) A' + x·S' − μ·G + Σᵢ (−z − a·sᵢ)·Gᵢ
//	    + Σᵢ (z + y⁻ⁱ·(z^(2+⌊i/64⌋)·2^(i mod 64) − b·s_{MN−1−i}))·Hᵢ
//	    + x_ip·(t − a·b)·H + Σₖ (wₖ²·L'ₖ + wₖ⁻²·R'ₖ)
//
// with δ = (z − z²)·Σ_{i<MN} yⁱ − (2⁶⁴ − 1)·Σ_{j<M} z^(j+3).
func (pd *bpData) accumulate(b *batch, wy, wz *edwards25519.Scalar, wInv []edwards25519.Scalar, yInv *edwards25519.Scalar) {
	mn := bpN << pd.logM
	M := 1 << pd.logM
	var t, u edwards25519.Scalar

	// Σ_{i<MN} yⁱ.
	var ySum, yPow edwards25519.Scalar
	yPow.Set(scOne)
	for i := 0; i < mn; i++ {
		ySum.Add(&ySum, &yPow)
		yPow.Multiply(&yPow, &pd.y)
	}
	// z², and Σ_{j<M} z^(j+3).
	var z2, zPow, zSum edwards25519.Scalar
	z2.Multiply(&pd.z, &pd.z)
	zPow.Multiply(&z2, &pd.z)
	for j := 0; j < M; j++ {
		zSum.Add(&zSum, &zPow)
		zPow.Multiply(&zPow, &pd.z)
	}
	var delta edwards25519.Scalar
	delta.Subtract(&pd.z, &z2)
	delta.Multiply(&delta, &ySum)
	t.Multiply(scTwo64m, &zSum)
	delta.Subtract(&delta, &t)

	// Equation 1.
	t.Set(&z2)
	for j := range pd.v8 {
		u.Multiply(&t, wy)
		b.add(&u, pd.v8[j])
		t.Multiply(&t, &pd.z)
	}
	t.Multiply(&pd.x, wy)
	b.add(&t, pd.t18)
	t.Multiply(&t, &pd.x)
	b.add(&t, pd.t28)
	t.Subtract(&delta, pd.t)
	b.h.MultiplyAdd(&t, wy, &b.h)
	t.Multiply(pd.taux, wy)
	b.g.Subtract(&b.g, &t)

	// Equation 2.
	b.add(wz, pd.a8)
	t.Multiply(&pd.x, wz)
	b.add(&t, pd.s8)
	t.Multiply(pd.mu, wz)
	b.g.Subtract(&b.g, &t)
	t.Multiply(pd.a, pd.b)
	t.Subtract(pd.t, &t)
	t.Multiply(&t, &pd.xip)
	b.h.MultiplyAdd(&t, wz, &b.h)
	for k := 0; k < pd.rounds; k++ {
		t.Multiply(&pd.w[k], &pd.w[k])
		t.Multiply(&t, wz)
		b.add(&t, pd.l8[k])
		t.Multiply(&wInv[k], &wInv[k])
		t.Multiply(&t, wz)
		b.add(&t, pd.r8[k])
	}

	s := challengeProducts(pd.w, wInv)
	var wzZ, wzA, wzB, yInvPow, zBlock edwards25519.Scalar
	wzZ.Multiply(wz, &pd.z)
	wzA.Multiply(wz, pd.a)
	wzA.Negate(&wzA)
	wzB.Multiply(wz, pd.b)
	yInvPow.Set(scOne)
	zBlock.Set(&z2) // z^(2+⌊i/64⌋)
	for i := 0; i < mn; i++ {
		if i > 0 && i%bpN == 0 {
			zBlock.Multiply(&zBlock, &pd.z)
		}
		// Gᵢ: wz·(−z − a·sᵢ)
		t.Multiply(&wzA, &s[i])
		t.Subtract(&t, &wzZ)
		b.gi[i].Add(&b.gi[i], &t)
		// Hᵢ: wz·(z + y⁻ⁱ·(z^(2+⌊i/64⌋)·2^(i mod 64) − b·s_{MN−1−i}))
		u.Multiply(&zBlock, &scTwoN[i%bpN])
		u.Multiply(&u, wz)
		t.Multiply(&wzB, &s[mn-1-i])
		u.Subtract(&u, &t)
		t.MultiplyAdd(&u, &yInvPow, &wzZ)
		b.hi[i].Add(&b.hi[i], &t)
		yInvPow.Multiply(&yInvPow, yInv)
	}
}
