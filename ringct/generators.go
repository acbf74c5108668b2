// Generators and shared arithmetic for the Bulletproof (RingCT types 3–5)
// and Bulletproof+ (type 6) range-proof verifiers: the fixed vector
// generators Gᵢ and Hᵢ, scalar helpers, and the weighted batch that turns
// every proof's equations into one multiscalar multiplication.
//
// Scalars are edwards25519 (filippo) Scalars, as in package crypto. Points
// are msm.Points, for its MultiscalarMulVartime (ringct/internal/msm says
// why); they cross between the two only as encodings (the generators once,
// at start-up).

package ringct

import (
	"crypto/rand"
	"runtime"
	"sync"

	"filippo.io/edwards25519"

	"github.com/gonero/gonero/crypto"
	"github.com/gonero/gonero/cryptonote"
	"github.com/gonero/gonero/ringct/internal/msm"
)

const (
	bpLogN   = 6
	bpN      = 1 << bpLogN // bits per amount
	bpMaxM   = 16          // amounts per proof (BULLETPROOF_MAX_OUTPUTS, BULLETPROOF_PLUS_MAX_OUTPUTS)
	bpMaxMN  = bpN * bpMaxM
	bpMaxLog = bpLogN + 4 // inner-product rounds of a 16-amount proof
)

// generators holds the vector generators of one scheme: Gi[i] = Hp'(2i+1),
// Hi[i] = Hp'(2i), i < 64·16.
type generators struct {
	Gi, Hi [bpMaxMN]*msm.Point
}

var (
	bpGensOnce, bppGensOnce sync.Once
	bpGens, bppGens         *generators

	bppTranscriptOnce sync.Once
	bppTranscript     [32]byte
)

// bulletproofGenerators returns the generators of the original Bulletproofs
// (salt "bulletproof"), computed on first use.
func bulletproofGenerators() *generators {
	bpGensOnce.Do(func() { bpGens = makeGenerators("bulletproof") })
	return bpGens
}

// bulletproofPlusGenerators returns the Bulletproof+ generators (salt
// "bulletproof_plus"), computed on first use.
func bulletproofPlusGenerators() *generators {
	bppGensOnce.Do(func() { bppGens = makeGenerators("bulletproof_plus") })
	return bppGens
}

// bulletproofPlusTranscript is the initial BP+ transcript: the encoding of
// hash_to_p3(Keccak("bulletproof_plus_transcript")) = 8·F(Keccak(Keccak(…))).
func bulletproofPlusTranscript() [32]byte {
	bppTranscriptOnce.Do(func() {
		h := crypto.Keccak256([]byte("bulletproof_plus_transcript"))
		p, err := crypto.HashToEC(h[:])
		if err != nil {
			panic("ringct: BP+ transcript has no image under hash_to_ec")
		}
		copy(bppTranscript[:], p.Bytes())
	})
	return bppTranscript
}

// makeGenerators is monerod's init_exponents: Hᵢ = get_exponent(H, 2i),
// Gᵢ = get_exponent(H, 2i+1), where get_exponent(H, n) =
// hash_to_p3(Keccak(H ‖ salt ‖ varint(n))) and hash_to_p3 hashes again.
func makeGenerators(salt string) *generators {
	g := new(generators)
	parallel(bpMaxMN, func(i int) {
		buf := make([]byte, 0, 32+len(salt)+10)
		g.Hi[i] = exponent(buf, salt, uint64(2*i))
		g.Gi[i] = exponent(buf, salt, uint64(2*i+1))
	})
	return g
}

// parallel runs f(0) … f(n−1) on a few goroutines.
func parallel(n int, f func(int)) {
	workers := min(runtime.GOMAXPROCS(0), 8)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := w; i < n; i += workers {
				f(i)
			}
		}(w)
	}
	wg.Wait()
}

func exponent(buf []byte, salt string, n uint64) *msm.Point {
	buf = append(buf[:0], crypto.H().Bytes()...)
	buf = append(buf, salt...)
	buf = cryptonote.AppendVarint(buf, n)
	h := crypto.Keccak256(buf)
	p, err := crypto.HashToEC(h[:])
	if err != nil {
		panic("ringct: Bulletproof generator has no image under hash_to_ec")
	}
	return msm.FromEdwards(p)
}

// decodeVoi decodes b with monerod's rules (msm.Decode).
func decodeVoi(b []byte) (*msm.Point, bool) { return msm.Decode(b) }

// Scalar helpers. The zero value of edwards25519.Scalar is 0.

var (
	scOne    = scalarFromUint64(1)
	scInv8   = mustInvert(scalarFromUint64(8))
	scTwo64m = twoToThe64MinusOne() // 2⁶⁴ − 1
	scTwoN   = powersOfTwo()        // 2⁰ … 2⁶³
)

func scalarFromUint64(v uint64) *edwards25519.Scalar { return crypto.ScalarFromUint64(v) }

func mustInvert(s *edwards25519.Scalar) *edwards25519.Scalar {
	return edwards25519.NewScalar().Invert(s)
}

func twoToThe64MinusOne() *edwards25519.Scalar {
	return scalarFromUint64(^uint64(0))
}

func powersOfTwo() [bpN]edwards25519.Scalar {
	var p [bpN]edwards25519.Scalar
	p[0].Set(scOne)
	for i := 1; i < bpN; i++ {
		p[i].Add(&p[i-1], &p[i-1])
	}
	return p
}

func isZeroScalar(s *edwards25519.Scalar) bool {
	var zero edwards25519.Scalar
	return s.Equal(&zero) == 1
}

// batchInvert replaces every element of xs by its inverse (Montgomery's
// trick: one inversion and 3(n−1) multiplications). All must be non-zero.
func batchInvert(xs []edwards25519.Scalar) {
	if len(xs) == 0 {
		return
	}
	prefix := make([]edwards25519.Scalar, len(xs))
	acc := *scOne
	for i := range xs {
		prefix[i] = acc
		acc.Multiply(&acc, &xs[i])
	}
	acc.Invert(&acc)
	for i := len(xs) - 1; i >= 0; i-- {
		var inv edwards25519.Scalar
		inv.Multiply(&acc, &prefix[i])
		acc.Multiply(&acc, &xs[i])
		xs[i] = inv
	}
}

// challengeProducts returns sᵢ for i < 2^len(w): the product over rounds k of
// w[k] when bit k of i, counted from the most significant of len(w) bits, is
// set, and of winv[k] otherwise (monerod's challenges_cache / w_cache).
func challengeProducts(w, winv []edwards25519.Scalar) []edwards25519.Scalar {
	rounds := len(w)
	s := make([]edwards25519.Scalar, 1<<rounds)
	s[0] = winv[0]
	s[1] = w[0]
	for j := 1; j < rounds; j++ {
		for k := (1 << j) - 1; k >= 0; k-- {
			s[2*k+1].Multiply(&s[k], &w[j])
			s[2*k].Multiply(&s[k], &winv[j])
		}
	}
	return s
}

// randomWeight returns a uniformly random non-zero scalar (252 bits of
// entropy) from crypto/rand.
func randomWeight() *edwards25519.Scalar {
	var b [64]byte
	for {
		if _, err := rand.Read(b[:]); err != nil {
			panic("ringct: crypto/rand failed: " + err.Error())
		}
		s, _ := edwards25519.NewScalar().SetUniformBytes(b[:])
		if !isZeroScalar(s) {
			return s
		}
	}
}

// batch accumulates weighted proof equations: merged coefficients of the
// generators Gᵢ, Hᵢ, G and H, plus one term per proof point.
type batch struct {
	gens   *generators
	gi, hi []edwards25519.Scalar // merged coefficients of Gᵢ, Hᵢ
	g, h   edwards25519.Scalar   // merged coefficients of G and H
	terms  msm.Terms
}

func newBatch(gens *generators, maxMN, extra int) *batch {
	return &batch{
		gens:  gens,
		gi:    make([]edwards25519.Scalar, maxMN),
		hi:    make([]edwards25519.Scalar, maxMN),
		terms: msm.MakeTerms(2*maxMN + 2 + extra),
	}
}

// add appends the term s·p.
func (b *batch) add(s *edwards25519.Scalar, p *msm.Point) {
	b.terms.Add(msm.NewScalar(s), p)
}

var (
	voiG = msm.FromEdwards(edwards25519.NewGeneratorPoint())
	voiH = msm.FromEdwards(crypto.H())
	// voiGx is G with its table, for CLSAG's s·G in every ring member.
	voiGx = msm.Expand(voiG)
)

// isZero evaluates the sum of all terms and reports whether it is the
// identity. Every point in it has prime order (proof points are multiplied
// by 8), so the test is exact.
func (b *batch) isZero() bool {
	var zero edwards25519.Scalar
	for i := range b.gi {
		if b.gi[i].Equal(&zero) == 0 {
			b.terms.Add(msm.NewScalar(&b.gi[i]), b.gens.Gi[i])
		}
		if b.hi[i].Equal(&zero) == 0 {
			b.terms.Add(msm.NewScalar(&b.hi[i]), b.gens.Hi[i])
		}
	}
	b.terms.Add(msm.NewScalar(&b.g), voiG)
	b.terms.Add(msm.NewScalar(&b.h), voiH)
	return b.terms.Sum(msm.New()).IsIdentity()
}

// decodePoint8 decodes a proof point with monerod's rules and multiplies it
// by the cofactor (rct::scalarmult8).
func decodePoint8(k *cryptonote.Key) (*msm.Point, bool) {
	p, ok := decodeVoi(k[:])
	if !ok {
		return nil, false
	}
	return p.MulByCofactor(p), true
}

// voiInv8 is INV_EIGHT = 8⁻¹ mod ℓ.
var voiInv8 = msm.NewScalar(scInv8)

// commitmentsV returns V = INV_EIGHT·outPk for each commitment (what
// expand_transaction_1 stores in the proof), their encodings for the
// transcript, and V' = 8·V for the equations. It fails if a commitment
// does not decode (monerod's scalarmultKey throws).
// proofShape is what Bulletproofs and Bulletproofs+ check alike before any
// arithmetic: 1..16 commitments, L and R of 6 + log2(M) entries each (M the
// commitment count rounded up to a power of two), and the commitments as
// V = outPk/8 (their encodings for the transcript, 8·V for the equations).
func proofShape(outPk, l, r []cryptonote.Key) (logm, rounds int, venc []byte, v8 []*msm.Point, ok bool) {
	m := len(outPk)
	if m < 1 || m > bpMaxM {
		return 0, 0, nil, nil, false
	}
	logm = logM(m)
	rounds = bpLogN + logm
	if len(l) != rounds || len(r) != rounds {
		return 0, 0, nil, nil, false
	}
	venc, v8, ok = commitmentsV(outPk)
	return logm, rounds, venc, v8, ok
}

func commitmentsV(outPk []cryptonote.Key) (enc []byte, v8 []*msm.Point, ok bool) {
	enc = make([]byte, 0, 32*len(outPk))
	v8 = make([]*msm.Point, len(outPk))
	var c [32]byte
	for j := range outPk {
		p, ok := decodeVoi(outPk[j][:])
		if !ok {
			return nil, nil, false
		}
		v := msm.New().Mul(p, voiInv8)
		v.Encode(&c)
		enc = append(enc, c[:]...)
		v8[j] = v.MulByCofactor(v)
	}
	return enc, v8, true
}

// logM returns log₂ of the smallest power of two ≥ m, for 1 ≤ m ≤ 16.
func logM(m int) int {
	l := 0
	for 1<<l < m {
		l++
	}
	return l
}
