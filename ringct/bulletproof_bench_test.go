package ringct

import "testing"

func bppWithOutputs(b *testing.B, n int) []BulletproofPlusItem {
	_, items := realBPPlus(b)
	var out []BulletproofPlusItem
	for _, it := range items {
		if len(it.Commitments) == n {
			out = append(out, it)
		}
	}
	if len(out) == 0 {
		b.Fatalf("no real BP+ with %d outputs", n)
	}
	return out
}

func bpWithOutputs(b *testing.B, n int) []BulletproofItem {
	_, items := realBP(b)
	var out []BulletproofItem
	for _, it := range items {
		if len(it.Commitments) == n {
			out = append(out, it)
		}
	}
	if len(out) == 0 {
		b.Fatalf("no real BP with %d outputs", n)
	}
	return out
}

func benchBPP(b *testing.B, items []BulletproofPlusItem) {
	bulletproofPlusGenerators()
	b.ResetTimer()
	for b.Loop() {
		if !VerifyBulletproofsPlus(items) {
			b.Fatal("does not verify")
		}
	}
}

func benchBP(b *testing.B, items []BulletproofItem) {
	bulletproofGenerators()
	b.ResetTimer()
	for b.Loop() {
		if !VerifyBulletproofs(items) {
			b.Fatal("does not verify")
		}
	}
}

func BenchmarkBulletproofPlus2(b *testing.B) { benchBPP(b, bppWithOutputs(b, 2)[:1]) }

// Ten distinct real two-output proofs in one batch.
func BenchmarkBulletproofPlus2x10(b *testing.B) {
	items := bppWithOutputs(b, 2)
	if len(items) < 10 {
		b.Fatalf("only %d two-output BP+ proofs", len(items))
	}
	benchBPP(b, items[:10])
}

// The largest real BP+ (11 outputs) pads to M = 16: the same 2048-generator
// MSM as a 16-output proof, with 5 fewer commitment terms.
func BenchmarkBulletproofPlus16(b *testing.B) { benchBPP(b, bppWithOutputs(b, 11)[:1]) }

func BenchmarkBulletproof2(b *testing.B) { benchBP(b, bpWithOutputs(b, 2)[:1]) }

func BenchmarkBulletproof16(b *testing.B) { benchBP(b, bpWithOutputs(b, 16)[:1]) }

func BenchmarkBulletproofPlusGenerators(b *testing.B) {
	for b.Loop() {
		makeGenerators("bulletproof_plus")
	}
}
