// Bulletproof+ range-proof verification (RingCT type 6), batched as
// monerod's bulletproof_plus_VERIFY(vector) does: docs/tx-verification.md §3.11.

package ringct

import (
	"filippo.io/edwards25519"

	"github.com/gonero/gonero/crypto"
	"github.com/gonero/gonero/cryptonote"
	"github.com/gonero/gonero/ringct/internal/msm"
)

// BulletproofPlusItem is one Bulletproof+ with the commitments it covers:
// the transaction's outPk. The proof's V = INV_EIGHT·outPk is derived
// inside.
type BulletproofPlusItem struct {
	Proof       *cryptonote.BulletproofPlus
	Commitments []cryptonote.Key
}

// bppData is one proof after its structural checks and transcript.
type bppData struct {
	p            *cryptonote.BulletproofPlus
	r1, s1, d1   *edwards25519.Scalar
	v8           []*msm.Point
	a8, a18, b8  *msm.Point
	l8, r8       []*msm.Point
	y, z, e      edwards25519.Scalar
	ch           []edwards25519.Scalar // eₖ, one per round
	logM, rounds int
}

// VerifyBulletproofsPlus checks every proof as one multiscalar
// multiplication with an independent random weight per proof. It returns
// false if any proof is malformed or invalid; a batch verdict equals the
// conjunction of the proofs' individual verdicts (up to the negligible
// chance that random weights cancel a wrong proof).
func VerifyBulletproofsPlus(items []BulletproofPlusItem) bool {
	if len(items) == 0 {
		return true
	}
	tr0 := bulletproofPlusTranscript()
	data := make([]bppData, len(items))
	maxLogM, extra := 0, 0
	// Inverses: every eₖ and y of every proof, in one batch inversion.
	var toInvert []edwards25519.Scalar
	for i := range items {
		pd := &data[i]
		if !pd.parse(&items[i], tr0) {
			return false
		}
		maxLogM = max(maxLogM, pd.logM)
		extra += len(pd.v8) + 2*pd.rounds + 3
		toInvert = append(toInvert, pd.ch...)
		toInvert = append(toInvert, pd.y)
	}
	batchInvert(toInvert)

	b := newBatch(bulletproofPlusGenerators(), bpN<<maxLogM, extra)
	off := 0
	for i := range data {
		pd := &data[i]
		inv := toInvert[off : off+pd.rounds+1]
		off += pd.rounds + 1
		pd.accumulate(b, randomWeight(), inv[:pd.rounds], &inv[pd.rounds])
	}
	return b.isZero()
}

// parse applies the structural checks (canonical scalars, 1 ≤ m ≤ 16,
// len(L) = len(R) = 6 + log₂M, every point decodes) and computes the
// challenges, refusing zero ones.
func (pd *bppData) parse(it *BulletproofPlusItem, tr0 [32]byte) bool {
	p := it.Proof
	if p == nil {
		return false
	}
	pd.p = p
	var err error
	if pd.r1, err = crypto.DecodeScalar(p.R1[:]); err != nil {
		return false
	}
	if pd.s1, err = crypto.DecodeScalar(p.S1[:]); err != nil {
		return false
	}
	if pd.d1, err = crypto.DecodeScalar(p.D1[:]); err != nil {
		return false
	}
	var ok bool
	var venc []byte
	if pd.logM, pd.rounds, venc, pd.v8, ok = proofShape(it.Commitments, p.L, p.R); !ok {
		return false
	}
	if pd.a8, ok = decodePoint8(&p.A); !ok {
		return false
	}
	if pd.a18, ok = decodePoint8(&p.A1); !ok {
		return false
	}
	if pd.b8, ok = decodePoint8(&p.B); !ok {
		return false
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

	// Transcript: T = Hs(T₀ ‖ Hs(V)); y = T = Hs(T ‖ A); z = T = Hs(y);
	// eₖ = T = Hs(T ‖ Lₖ ‖ Rₖ); e = Hs(T ‖ A1 ‖ B).
	hv := crypto.HashToScalar(venc)
	t := crypto.HashToScalar(tr0[:], hv.Bytes())
	pd.y = *crypto.HashToScalar(t.Bytes(), p.A[:])
	if isZeroScalar(&pd.y) {
		return false
	}
	pd.z = *crypto.HashToScalar(pd.y.Bytes())
	if isZeroScalar(&pd.z) {
		return false
	}
	tb := pd.z.Bytes()
	pd.ch = make([]edwards25519.Scalar, pd.rounds)
	for k := 0; k < pd.rounds; k++ {
		pd.ch[k] = *crypto.HashToScalar(tb, p.L[k][:], p.R[k][:])
		if isZeroScalar(&pd.ch[k]) {
			return false
		}
		tb = pd.ch[k].Bytes()
	}
	pd.e = *crypto.HashToScalar(tb, p.A1[:], p.B[:])
	return !isZeroScalar(&pd.e)
}

// accumulate adds w times the proof's verification equation, written as a
// sum that must be the identity:
//
//	Σᵢ (r1·e·y⁻ⁱ·sᵢ + e²·z)·Gᵢ + Σᵢ (s1·e·s_{MN−1−i} − e²·(dᵢ·y^(MN−i) + z))·Hᵢ
//	+ (r1·y·s1 + e²·(z·y^(MN+1)·Σd + (z² − z)·ŷ))·H + d1·G
//	− e²·y^(MN+1)·Σⱼ z^(2(j+1))·V'ⱼ − e²·A' − e·A1' − B' − Σₖ e²·(eₖ²·L'ₖ + eₖ⁻²·R'ₖ)
//
// with dᵢ = z^(2(j+1))·2^b for i = 64j + b and ŷ = Σ_{k=1..MN} yᵏ.
func (pd *bppData) accumulate(b *batch, w *edwards25519.Scalar, chInv []edwards25519.Scalar, yInv *edwards25519.Scalar) {
	mn := bpN << pd.logM
	M := 1 << pd.logM
	var t, u edwards25519.Scalar
	var e2, z2 edwards25519.Scalar
	e2.Multiply(&pd.e, &pd.e)
	z2.Multiply(&pd.z, &pd.z)

	// y^MN, y^(MN+1), ŷ = y + y² + … + y^MN.
	var yMN, yMN1, ySum, yPow edwards25519.Scalar
	yPow.Set(&pd.y)
	for k := 0; k < mn; k++ {
		ySum.Add(&ySum, &yPow)
		if k < mn-1 {
			yPow.Multiply(&yPow, &pd.y)
		}
	}
	yMN.Set(&yPow)
	yMN1.Multiply(&yMN, &pd.y)

	// Σd = (2⁶⁴ − 1)·Σ_{j=1..M} z^(2j).
	var zEven, sumZ edwards25519.Scalar
	zEven.Set(&z2)
	for j := 0; j < M; j++ {
		sumZ.Add(&sumZ, &zEven)
		zEven.Multiply(&zEven, &z2)
	}
	var sumD edwards25519.Scalar
	sumD.Multiply(scTwo64m, &sumZ)

	s := challengeProducts(pd.ch, chInv)

	// Gᵢ, Hᵢ.
	var eR1W, eS1W, e2zW, e2wYPow, zPow edwards25519.Scalar
	eR1W.Multiply(&pd.e, pd.r1)
	eR1W.Multiply(&eR1W, w) // × y⁻ⁱ as i advances
	eS1W.Multiply(&pd.e, pd.s1)
	eS1W.Multiply(&eS1W, w)
	e2zW.Multiply(&e2, &pd.z)
	e2zW.Multiply(&e2zW, w)
	e2wYPow.Multiply(&e2, w)
	e2wYPow.Multiply(&e2wYPow, &yMN) // e²·w·y^(MN−i) as i advances
	zPow.Set(&z2)                    // z^(2(j+1)) for the current block j
	for i := 0; i < mn; i++ {
		if i > 0 && i%bpN == 0 {
			zPow.Multiply(&zPow, &z2)
		}
		// Gᵢ: w·(r1·e·y⁻ⁱ·sᵢ + e²·z)
		t.MultiplyAdd(&eR1W, &s[i], &e2zW)
		b.gi[i].Add(&b.gi[i], &t)
		// Hᵢ: w·(s1·e·s_{MN−1−i} − e²·z − e²·y^(MN−i)·dᵢ)
		u.Multiply(&zPow, &scTwoN[i%bpN]) // dᵢ
		u.Multiply(&u, &e2wYPow)
		t.Multiply(&eS1W, &s[mn-1-i])
		t.Subtract(&t, &e2zW)
		t.Subtract(&t, &u)
		b.hi[i].Add(&b.hi[i], &t)

		eR1W.Multiply(&eR1W, yInv)
		e2wYPow.Multiply(&e2wYPow, yInv)
	}

	// G: w·d1.
	b.g.MultiplyAdd(w, pd.d1, &b.g)

	// H: w·(r1·y·s1 + e²·(z·y^(MN+1)·Σd + (z² − z)·ŷ)).
	var hs edwards25519.Scalar
	hs.Multiply(pd.r1, &pd.y)
	hs.Multiply(&hs, pd.s1)
	t.Multiply(&pd.z, &yMN1)
	t.Multiply(&t, &sumD)
	u.Subtract(&z2, &pd.z)
	t.MultiplyAdd(&u, &ySum, &t)
	hs.MultiplyAdd(&e2, &t, &hs)
	b.h.MultiplyAdd(w, &hs, &b.h)

	// V'ⱼ: −w·e²·y^(MN+1)·z^(2(j+1)).
	var minusE2W edwards25519.Scalar
	minusE2W.Multiply(&e2, w)
	minusE2W.Negate(&minusE2W)
	t.Multiply(&minusE2W, &yMN1)
	for j := range pd.v8 {
		t.Multiply(&t, &z2)
		b.add(&t, pd.v8[j])
	}

	// A': −w·e²; A1': −w·e; B': −w.
	b.add(&minusE2W, pd.a8)
	t.Multiply(w, &pd.e)
	t.Negate(&t)
	b.add(&t, pd.a18)
	t.Negate(w)
	b.add(&t, pd.b8)

	// L'ₖ: −w·e²·eₖ²; R'ₖ: −w·e²·eₖ⁻².
	for k := 0; k < pd.rounds; k++ {
		t.Multiply(&pd.ch[k], &pd.ch[k])
		t.Multiply(&t, &minusE2W)
		b.add(&t, pd.l8[k])
		t.Multiply(&chInv[k], &chInv[k])
		t.Multiply(&t, &minusE2W)
		b.add(&t, pd.r8[k])
	}
}
