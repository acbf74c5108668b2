package ringct

import (
	"testing"

	"github.com/gonero/gonero/cryptonote"
)

// Reference figures from monerod's own performance_tests (Debian
// monero-tests 0.18.0.0+~0+20200826, /usr/lib/monero/tests/bin), run on the
// same 2-vCPU machine while other jobs loaded it (load average 5–9), so
// orders of magnitude only. Each call verifies w = 2 signatures over one
// ring of N and checks a small balance multiexp (sig_clsag.h,
// sig_mlsag.h); medians per call, then per signature:
//
//	test_sig_clsag<16, 2, 2>   9.53 ms/call  ≈ 4.8 ms per ring-16 CLSAG
//	test_sig_mlsag<8, 2, 2>    5.89 ms/call  ≈ 2.9 ms per ring-8 simple MLSAG
//	test_sig_mlsag<16, 2, 2>  11.58 ms/call  ≈ 5.8 ms per ring-16 simple MLSAG
//
// The Go figures, right before, on the same load (go test -bench, 3 runs):
//
//	BenchmarkVerifyCLSAG16         2.43–2.54 ms/op  137 allocs
//	BenchmarkSignCLSAG16           2.63–2.69 ms/op
//	BenchmarkVerifyMLSAGSimple11   1.87–1.99 ms/op   74 allocs
//	BenchmarkVerifyMLSAGFull5      0.95–1.26 ms/op
//	BenchmarkVerifyBorromean       7.3–10.5 ms/op (one 64-bit proof)
//
// With the ring loop on curve25519-voi (user CPU time of 500 calls at
// -test.cpu 1, against the edwards25519 version built alongside):
// VerifyCLSAG16 2.0 ms against 2.44 ms, 155 allocs.

func BenchmarkVerifyCLSAG16(b *testing.B) {
	v := loadCLSAGVector(b)
	ki := v.tx.Inputs[0].(cryptonote.TxInToKey).KeyImage
	p := v.tx.Rct.Prunable
	b.ReportAllocs()
	for b.Loop() {
		if err := VerifyCLSAG(v.msg, v.rings[0], p.PseudoOuts[0], ki, &p.CLSAGs[0]); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSignCLSAG16(b *testing.B) {
	r := newTestRing(16, 3)
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := SignCLSAG(r.msg, r.ring, r.pseudoOut, r.l, r.p, r.z); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkVerifyMLSAGSimple11(b *testing.B) {
	r := newTestRing(11, 3)
	sig, ki, err := SignMLSAGSimple(r.msg, r.ring, r.pseudoOut, r.l, r.p, r.z)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if err := VerifyMLSAGSimple(r.msg, r.ring, r.pseudoOut, ki, sig); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkVerifyMLSAGFull5(b *testing.B) {
	v := loadFullMLSAGVector(b)
	ki := [][32]byte{v.tx.Inputs[0].(cryptonote.TxInToKey).KeyImage}
	r := v.tx.Rct
	b.ReportAllocs()
	for b.Loop() {
		if err := VerifyMLSAGFull(v.msg, [][]RingMember{v.ring}, ki, r.OutPk, r.TxnFee, &r.Prunable.MGs[0]); err != nil {
			b.Fatal(err)
		}
	}
}

// One output's Borromean proof (64 bits).
func BenchmarkVerifyBorromean(b *testing.B) {
	v := loadFullMLSAGVector(b)
	b.ReportAllocs()
	for b.Loop() {
		if err := VerifyBorromean(v.tx.Rct.OutPk[0], &v.tx.Rct.Prunable.RangeSigs[0]); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkMessageHash(b *testing.B) {
	v := loadCLSAGVector(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := MessageHash(v.tx); err != nil {
			b.Fatal(err)
		}
	}
}
