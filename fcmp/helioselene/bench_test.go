package helioselene

import (
	"fmt"
	"math"
	"os"
	"strconv"
	"syscall"
	"testing"

	"filippo.io/edwards25519/field"
)

func benchField25519() (a, b Field25519) {
	a.SetWideBytes(&[64]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33})
	b.SetWideBytes(&[64]byte{9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25})
	return
}

func BenchmarkField25519Mul(b *testing.B) {
	x, y := benchField25519()
	for b.Loop() {
		x.Mul(&x, &y)
	}
}

func BenchmarkField25519Square(b *testing.B) {
	x, _ := benchField25519()
	for b.Loop() {
		x.Square(&x)
	}
}

func BenchmarkField25519Invert(b *testing.B) {
	x, _ := benchField25519()
	for b.Loop() {
		x.Invert(&x)
	}
}

func BenchmarkField25519Sqrt(b *testing.B) {
	x, _ := benchField25519()
	x.Square(&x)
	var r Field25519
	for b.Loop() {
		r.Sqrt(&x)
	}
}

func BenchmarkHelioseleneFieldMul(b *testing.B) {
	var x, y HelioseleneField
	x.SetUint64(0x123456789abcdef)
	y.SetUint64(0xfedcba987654321)
	x.Invert(&x)
	for b.Loop() {
		x.Mul(&x, &y)
	}
}

func BenchmarkHelioseleneFieldInvert(b *testing.B) {
	var x HelioseleneField
	x.SetUint64(0x123456789abcdef)
	for b.Loop() {
		x.Invert(&x)
	}
}

func BenchmarkHeliosAdd(b *testing.B) {
	p := HeliosGenerator()
	q := new(HeliosPoint).Double(p)
	for b.Loop() {
		p.Add(p, q)
	}
}

func BenchmarkHeliosDouble(b *testing.B) {
	p := HeliosGenerator()
	for b.Loop() {
		p.Double(p)
	}
}

func BenchmarkHeliosScalarMult(b *testing.B) {
	k := HeliosHashToF([]byte("bench"), nil)
	p := HeliosGenerator()
	for b.Loop() {
		p.ScalarMult(&k, p)
	}
}

func BenchmarkHeliosDecode(b *testing.B) {
	enc := new(HeliosPoint).Double(HeliosGenerator()).Bytes()
	var p HeliosPoint
	for b.Loop() {
		if _, err := p.SetBytes(enc[:]); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSeleneAdd(b *testing.B) {
	p := SeleneGenerator()
	q := new(SelenePoint).Double(p)
	for b.Loop() {
		p.Add(p, q)
	}
}

func BenchmarkSeleneScalarMult(b *testing.B) {
	k := SeleneHashToF([]byte("bench"), nil)
	p := SeleneGenerator()
	for b.Loop() {
		p.ScalarMult(&k, p)
	}
}

func benchMSMInputsHelios(n int) ([]HelioseleneField, []HeliosPoint) {
	ks := make([]HelioseleneField, n)
	ps := make([]HeliosPoint, n)
	k := HeliosHashToF([]byte("bench msm"), nil)
	step := new(HeliosPoint).ScalarMult(&k, HeliosGenerator())
	acc := HeliosGenerator()
	for i := range n {
		ks[i] = HeliosHashToF([]byte("bench msm"), []byte{byte(i), byte(i >> 8)})
		acc.Add(acc, step)
		ps[i] = *acc
	}
	return ks, ps
}

func benchMSMInputsSelene(n int) ([]Field25519, []SelenePoint) {
	ks := make([]Field25519, n)
	ps := make([]SelenePoint, n)
	k := SeleneHashToF([]byte("bench msm"), nil)
	step := new(SelenePoint).ScalarMult(&k, SeleneGenerator())
	acc := SeleneGenerator()
	for i := range n {
		ks[i] = SeleneHashToF([]byte("bench msm"), []byte{byte(i), byte(i >> 8)})
		acc.Add(acc, step)
		ps[i] = *acc
	}
	return ks, ps
}

func BenchmarkHeliosMSM(b *testing.B) {
	for _, n := range []int{64, 256, 1024, 4096} {
		ks, ps := benchMSMInputsHelios(n)
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			for b.Loop() {
				HeliosMultiScalarMult(ks, ps)
			}
		})
	}
}

func BenchmarkSeleneMSM(b *testing.B) {
	for _, n := range []int{64, 256, 1024, 4096} {
		ks, ps := benchMSMInputsSelene(n)
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			for b.Loop() {
				SeleneMultiScalarMult(ks, ps)
			}
		})
	}
}

// BenchmarkEdwards25519FieldMul is filippo.io/edwards25519's field multiplication (51-bit limbs,
// assembly on amd64), measured in the same run as a yardstick for the figures above on a shared machine.
func BenchmarkEdwards25519FieldMul(b *testing.B) {
	var x, y field.Element
	x.SetBytes(make([]byte, 32))
	x.Add(&x, new(field.Element).One())
	x.Add(&x, &x)
	x.Add(&x, &x)
	y.Add(&x, &x)
	y.Add(&y, &x)
	for b.Loop() {
		x.Multiply(&x, &y)
	}
}

// TestTimeOps prints the CPU time of the field and curve operations and of the multiscalar
// multiplication, best of 5, under the names fcmp-bench (the reference's primitives timed the same way,
// docs/benchmarks.md) prints. A measurement, not a test: it runs only when $HELIOSELENE_TIME is set.
func TestTimeOps(t *testing.T) {
	if os.Getenv("HELIOSELENE_TIME") == "" {
		t.Skip("HELIOSELENE_TIME not set")
	}
	cpu := func() float64 {
		var ru syscall.Rusage
		if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
			t.Fatal(err)
		}
		return float64(ru.Utime.Nano() + ru.Stime.Nano())
	}
	timeOp := func(name string, iters int, f func()) {
		best := math.MaxFloat64
		for range 5 {
			start := cpu()
			for range iters {
				f()
			}
			best = min(best, (cpu()-start)/float64(iters))
		}
		fmt.Printf("%s %.1f ns/op\n", name, best)
	}
	a, b := benchField25519()
	x := a
	timeOp("Field25519Mul", 2_000_000, func() { x.Mul(&x, &b) })
	timeOp("Field25519Square", 2_000_000, func() { x.Square(&x) })
	timeOp("Field25519Invert", 2_000, func() { x.Invert(&x) })
	sq := a
	sq.Square(&sq)
	var r Field25519
	timeOp("Field25519Sqrt", 2_000, func() { r.Sqrt(&sq) })
	var c, d HelioseleneField
	c.SetUint64(0x123456789abcdef)
	d.SetUint64(0xfedcba987654321)
	c.Invert(&c)
	y := c
	timeOp("HelioseleneFieldMul", 2_000_000, func() { y.Mul(&y, &d) })
	timeOp("HelioseleneFieldInvert", 2_000, func() { y.Invert(&y) })
	kh := HeliosHashToF([]byte("time"), nil)
	p := new(HeliosPoint).ScalarMult(&kh, HeliosGenerator())
	q := HeliosGenerator()
	timeOp("HeliosAdd", 200_000, func() { p.Add(p, q) })
	timeOp("HeliosDouble", 200_000, func() { p.Double(p) })
	timeOp("HeliosScalarMult", 200, func() { p.ScalarMult(&kh, p) })
	ks := SeleneHashToF([]byte("time"), nil)
	s := new(SelenePoint).ScalarMult(&ks, SeleneGenerator())
	u := SeleneGenerator()
	timeOp("SeleneAdd", 200_000, func() { s.Add(s, u) })
	timeOp("SeleneScalarMult", 200, func() { s.ScalarMult(&ks, s) })
	for _, n := range []int{64, 256, 1024, 4096} {
		iters := 3
		if n <= 256 {
			iters = 20
		}
		hk, hp := benchMSMInputsHelios(n)
		timeOp(fmt.Sprintf("HeliosMSM/%d", n), iters, func() { HeliosMultiScalarMult(hk, hp) })
		sk, sp := benchMSMInputsSelene(n)
		timeOp(fmt.Sprintf("SeleneMSM/%d", n), iters, func() { SeleneMultiScalarMult(sk, sp) })
	}
}
