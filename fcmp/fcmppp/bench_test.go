package fcmppp

import (
	"encoding/hex"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"syscall"
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

// TestTimeLikeOracle prints, for each case file in $FCMP_TIME (space-separated; case 0 of each), what
// fcmp-oracle's `time --reps K` prints for the reference: single, the median of K runs of read + queue
// into a fresh batch + check; batch, K copies read and queued into one batch and checked once, median
// of 3, per proof. K is $FCMP_TIME_REPS (default 10); FCMP_TIME_MODE=single runs the singles only;
// FCMP_TIME_ALL=1 adds every case of the files in one batch (median of 3). It
// is a measurement, not a test: it runs only when $FCMP_TIME is set. Times are the process's CPU time
// (getrusage: user + system, every thread, so the garbage collector's work counts), since wall time
// means little on a loaded machine; compare with the oracle built to read the thread's CPU clock
// instead of Instant (docs/benchmarks.md).
func TestTimeLikeOracle(t *testing.T) {
	files := strings.Fields(os.Getenv("FCMP_TIME"))
	if len(files) == 0 {
		t.Skip("FCMP_TIME not set")
	}
	reps := 10
	if v, err := strconv.Atoi(os.Getenv("FCMP_TIME_REPS")); err == nil && v > 0 {
		reps = v
	}
	p := testParams(t)
	now := func() float64 { // ms of CPU time
		var ru syscall.Rusage
		if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
			t.Fatal(err)
		}
		return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e6
	}
	median := func(v []float64) float64 {
		sort.Float64s(v)
		return v[len(v)/2]
	}
	for _, f := range files {
		cs := loadCases(t, f)
		a := argsOf(&cs[0])
		n := len(a.pseudo)
		var single, batch []float64
		for range reps {
			start := now()
			if err := p.VerifyOne(a.pseudo, a.layers, a.proof, a.root, a.tx, a.kis); err != nil {
				t.Fatal(err)
			}
			single = append(single, now()-start)
		}
		if os.Getenv("FCMP_TIME_MODE") == "single" {
			continue
		}
		for range 3 {
			start := now()
			var bt Batch
			for range reps {
				pr, err := Read(a.pseudo, a.layers, a.proof)
				if err != nil {
					t.Fatal(err)
				}
				if err := p.Queue(&bt, pr, a.root, a.tx, a.kis); err != nil {
					t.Fatal(err)
				}
			}
			if !p.Verify(&bt) {
				t.Fatal("batch fails")
			}
			batch = append(batch, (now()-start)/float64(reps))
		}
		s, b := median(single), median(batch)
		fmt.Printf("gonero %-40s %2d %2d single_ms %8.2f ms/input %7.2f batch_ms %8.2f ms/input %7.2f\n",
			f, n, a.layers, s, s/float64(n), b, b/float64(n))
	}
	// With $FCMP_TIME_ALL set, every case of the files in one batch, as the oracle's time ends when it
	// is given several cases.
	if os.Getenv("FCMP_TIME_ALL") == "" {
		return
	}
	var all []benchArgs
	inputs := 0
	for _, f := range files {
		cs := loadCases(t, f)
		for i := range cs {
			all = append(all, argsOf(&cs[i]))
			inputs += len(cs[i].PseudoOuts)
		}
	}
	var runs []float64
	for range 3 {
		start := now()
		var bt Batch
		for _, a := range all {
			pr, err := Read(a.pseudo, a.layers, a.proof)
			if err != nil {
				t.Fatal(err)
			}
			if err := p.Queue(&bt, pr, a.root, a.tx, a.kis); err != nil {
				t.Fatal(err)
			}
		}
		if !p.Verify(&bt) {
			t.Fatal("batch fails")
		}
		runs = append(runs, now()-start)
	}
	m := median(runs)
	fmt.Printf("gonero all %d cases in one batch (%d inputs): %.2f ms, %.2f ms/proof, %.2f ms/input\n",
		len(all), inputs, m, m/float64(len(all)), m/float64(inputs))
}
