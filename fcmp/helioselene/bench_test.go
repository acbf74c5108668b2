package helioselene

import "testing"

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
