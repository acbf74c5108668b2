package fcmppp

import (
	"encoding/hex"
	"testing"
)

// benchCase reads case i of a committed file into Read's and Queue's arguments.
type benchArgs struct {
	pseudo, kis [][32]byte
	layers      int
	proof, root []byte
	tx          [32]byte
}

func argsOf(c *oracleCase) benchArgs {
	var a benchArgs
	for _, s := range c.PseudoOuts {
		v, _ := hex32(s)
		a.pseudo = append(a.pseudo, v)
	}
	for _, s := range c.KeyImages {
		v, _ := hex32(s)
		a.kis = append(a.kis, v)
	}
	a.tx, _ = hex32(c.SignableTxHash)
	r, _ := hex32(c.TreeRoot)
	a.root = r[:]
	a.proof, _ = hex.DecodeString(c.Proof)
	a.layers = c.Layers
	return a
}

// benchVerify is the oracle's time "single": read, queue into fresh batches, check.
func benchVerify(b *testing.B, file string, i int) {
	p := testParams(b)
	cs := loadCases(b, "../../testdata/fcmp/proofs/"+file)
	a := argsOf(&cs[i])
	b.ResetTimer()
	for n := 0; n < b.N; n++ {
		if err := p.VerifyOne(a.pseudo, a.layers, a.proof, a.root, a.tx, a.kis); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(a.pseudo))/1e6, "ms/input")
}

func BenchmarkVerify1x1(b *testing.B) { benchVerify(b, "fcmp_pp_prove_1-3x1-3.json", 0) }
func BenchmarkVerify2x2(b *testing.B) { benchVerify(b, "fcmp_pp_prove_2x2.json", 0) }
func BenchmarkVerify8x1(b *testing.B) { benchVerify(b, "fcmp_pp_prove_8x1_s02.json", 0) }
func BenchmarkVerify8x8(b *testing.B) { benchVerify(b, "fcmp_pp_prove_8x8.json", 0) }

// benchBatch is the oracle's time "batch": copies of one proof queued into one batch and checked once;
// the metrics are per proof and per input.
func benchBatch(b *testing.B, file string, i, copies int) {
	p := testParams(b)
	cs := loadCases(b, "../../testdata/fcmp/proofs/"+file)
	a := argsOf(&cs[i])
	b.ResetTimer()
	for n := 0; n < b.N; n++ {
		var bt Batch
		for k := 0; k < copies; k++ {
			pr, err := Read(a.pseudo, a.layers, a.proof)
			if err != nil {
				b.Fatal(err)
			}
			if err := p.Queue(&bt, pr, a.root, a.tx, a.kis); err != nil {
				b.Fatal(err)
			}
		}
		if !p.Verify(&bt) {
			b.Fatal("batch fails")
		}
	}
	perProof := float64(b.Elapsed().Nanoseconds()) / float64(b.N) / float64(copies) / 1e6
	b.ReportMetric(perProof, "ms/proof")
	b.ReportMetric(perProof/float64(len(a.pseudo)), "ms/input")
}

func BenchmarkBatch1x1(b *testing.B) { benchBatch(b, "fcmp_pp_prove_1-3x1-3.json", 0, 10) }
func BenchmarkBatch2x2(b *testing.B) { benchBatch(b, "fcmp_pp_prove_2x2.json", 0, 10) }
func BenchmarkBatch8x1(b *testing.B) { benchBatch(b, "fcmp_pp_prove_8x1_s02.json", 0, 10) }
func BenchmarkBatch8x8(b *testing.B) { benchBatch(b, "fcmp_pp_prove_8x8.json", 0, 10) }

// BenchmarkVerifyBatch queues the nine grid proofs (1..3 inputs × 1..3 layers, 18 inputs) into one batch
// and checks it once.
func BenchmarkVerifyBatch(b *testing.B) {
	p := testParams(b)
	cs := loadCases(b, "../../testdata/fcmp/proofs/fcmp_pp_prove_1-3x1-3.json")
	var args []benchArgs
	inputs := 0
	for i := range cs {
		args = append(args, argsOf(&cs[i]))
		inputs += len(cs[i].PseudoOuts)
	}
	b.ResetTimer()
	for n := 0; n < b.N; n++ {
		var bt Batch
		for _, a := range args {
			pr, err := Read(a.pseudo, a.layers, a.proof)
			if err != nil {
				b.Fatal(err)
			}
			if err := p.Queue(&bt, pr, a.root, a.tx, a.kis); err != nil {
				b.Fatal(err)
			}
		}
		if !p.Verify(&bt) {
			b.Fatal("batch fails")
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(inputs)/1e6, "ms/input")
}
