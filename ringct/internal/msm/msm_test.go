package msm

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"

	"filippo.io/edwards25519"
)

// randomTerms returns n random scalars and points of edwards25519, drawn
// from a fixed stream.
func randomTerms(n int, seed uint64) ([]*edwards25519.Scalar, []*edwards25519.Point) {
	rng := rand.New(rand.NewPCG(seed, uint64(n)))
	var b [64]byte
	draw := func() *edwards25519.Scalar {
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
		s, _ := edwards25519.NewScalar().SetUniformBytes(b[:])
		return s
	}
	ss := make([]*edwards25519.Scalar, n)
	ps := make([]*edwards25519.Point, n)
	for i := range ss {
		ss[i] = draw()
		ps[i] = new(edwards25519.Point).ScalarBaseMult(draw())
	}
	return ss, ps
}

// TestSumsMatchEdwards25519: the sums computed here equal edwards25519's
// for the sizes the verifiers use, from a CLSAG member's three terms to a
// 16-output Bulletproof's ~2100; so do Sub, Mul, MulByCofactor and the
// encodings.
func TestSumsMatchEdwards25519(t *testing.T) {
	for _, n := range []int{1, 3, 64, 191, 280, 2100} {
		ss, ps := randomTerms(n, 1)
		want := new(edwards25519.Point).VarTimeMultiScalarMult(ss, ps)
		terms := MakeTerms(n)
		for i := range ss {
			terms.Add(NewScalar(ss[i]), FromEdwards(ps[i]))
		}
		if got := terms.Sum(New()).Bytes(); !bytes.Equal(got, want.Bytes()) {
			t.Fatalf("%d terms: %x, want %x", n, got, want.Bytes())
		}
		if n == 3 {
			got := New().Sum3(NewScalar(ss[0]), FromEdwards(ps[0]), NewScalar(ss[1]), FromEdwards(ps[1]), NewScalar(ss[2]), FromEdwards(ps[2]))
			if !bytes.Equal(got.Bytes(), want.Bytes()) {
				t.Fatalf("Sum3: %x, want %x", got.Bytes(), want.Bytes())
			}
		}
	}
	ss, ps := randomTerms(2, 2)
	a, b := FromEdwards(ps[0]), FromEdwards(ps[1])
	if got, want := New().Sub(a, b).Bytes(), new(edwards25519.Point).Subtract(ps[0], ps[1]).Bytes(); !bytes.Equal(got, want) {
		t.Errorf("Sub: %x, want %x", got, want)
	}
	if got, want := New().Mul(a, NewScalar(ss[0])).Bytes(), new(edwards25519.Point).ScalarMult(ss[0], ps[0]).Bytes(); !bytes.Equal(got, want) {
		t.Errorf("Mul: %x, want %x", got, want)
	}
	if got, want := New().MulByCofactor(a).Bytes(), new(edwards25519.Point).MultByCofactor(ps[0]).Bytes(); !bytes.Equal(got, want) {
		t.Errorf("MulByCofactor: %x, want %x", got, want)
	}
	var prod Scalar
	prod.Mul(NewScalar(ss[0]), NewScalar(ss[1]))
	want := edwards25519.NewScalar().Multiply(ss[0], ss[1])
	if got := New().Mul(FromEdwards(edwards25519.NewGeneratorPoint()), &prod).Bytes(); !bytes.Equal(got, new(edwards25519.Point).ScalarBaseMult(want).Bytes()) {
		t.Error("Scalar.Mul disagrees with edwards25519")
	}
	if !New().IsIdentity() || a.IsIdentity() {
		t.Error("IsIdentity")
	}
}

// BenchmarkSum compares the sums of this package with edwards25519's
// VarTimeMultiScalarMult at the verifiers' sizes: 3 terms (a CLSAG ring
// member's two sums), ~280 (a 2-output Bulletproof+ batch) and ~2100 (a
// 16-output one). It is the measurement that keeps curve25519-voi: should
// edwards25519 match it, this package can go.
func BenchmarkSum(b *testing.B) {
	for _, n := range []int{3, 280, 2100} {
		ss, ps := randomTerms(n, 3)
		b.Run(fmt.Sprintf("msm/%d", n), func(b *testing.B) {
			terms := MakeTerms(n)
			for i := range ss {
				terms.Add(NewScalar(ss[i]), FromEdwards(ps[i]))
			}
			dst := New()
			for b.Loop() {
				terms.Sum(dst)
			}
		})
		b.Run(fmt.Sprintf("edwards25519/%d", n), func(b *testing.B) {
			var dst edwards25519.Point
			for b.Loop() {
				dst.VarTimeMultiScalarMult(ss, ps)
			}
		})
	}
}
