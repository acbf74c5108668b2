package helioselene

import (
	"math/big"
	"math/bits"
)

// fieldParams are the constants of one 255-bit prime field in 4×64-bit Montgomery form (R = 2^256).
// Both fields have p < 2^255, which keeps every sum of two reduced elements inside 256 bits.
type fieldParams struct {
	p       [4]uint64 // the modulus
	pInv    uint64    // -p⁻¹ mod 2^64
	one     [4]uint64 // R mod p
	r2      [4]uint64 // R² mod p
	r3      [4]uint64 // R³ mod p
	pMinus2 [4]uint64 // the inversion exponent
	sqrtExp [4]uint64 // the square-root exponent: (p+3)/8 for 2^255-19, (p+1)/4 for the Helioselene field
}

// newFieldParams derives every constant from the modulus (hex, big-endian), so that none is typed in.
func newFieldParams(modulusHex string, sqrtExp func(p *big.Int) *big.Int) *fieldParams {
	p, ok := new(big.Int).SetString(modulusHex, 16)
	if !ok || p.BitLen() != 255 {
		panic("helioselene: bad modulus")
	}
	limbs := func(x *big.Int) [4]uint64 {
		var l [4]uint64
		w := new(big.Int).Set(x)
		mask := new(big.Int).SetUint64(^uint64(0))
		for i := range l {
			l[i] = new(big.Int).And(w, mask).Uint64()
			w.Rsh(w, 64)
		}
		return l
	}
	r := new(big.Int).Lsh(big.NewInt(1), 256)
	fp := &fieldParams{p: limbs(p)}
	// -p⁻¹ mod 2^64 by Newton's iteration (p is odd).
	inv := uint64(1)
	for range 6 {
		inv *= 2 - fp.p[0]*inv
	}
	fp.pInv = -inv
	fp.one = limbs(new(big.Int).Mod(r, p))
	fp.r2 = limbs(new(big.Int).Mod(new(big.Int).Mul(r, r), p))
	fp.r3 = limbs(new(big.Int).Mod(new(big.Int).Exp(r, big.NewInt(3), nil), p))
	fp.pMinus2 = limbs(new(big.Int).Sub(p, big.NewInt(2)))
	fp.sqrtExp = limbs(sqrtExp(p))
	return fp
}

// lessThan reports whether a < b as 256-bit integers.
func lessThan(a, b *[4]uint64) bool {
	var borrow uint64
	_, borrow = bits.Sub64(a[0], b[0], 0)
	_, borrow = bits.Sub64(a[1], b[1], borrow)
	_, borrow = bits.Sub64(a[2], b[2], borrow)
	_, borrow = bits.Sub64(a[3], b[3], borrow)
	return borrow == 1
}

// reduceOnce returns s - p when s ≥ p and s otherwise, for s < 2p.
func (f *fieldParams) reduceOnce(s [4]uint64) [4]uint64 {
	var d [4]uint64
	var b uint64
	d[0], b = bits.Sub64(s[0], f.p[0], 0)
	d[1], b = bits.Sub64(s[1], f.p[1], b)
	d[2], b = bits.Sub64(s[2], f.p[2], b)
	d[3], b = bits.Sub64(s[3], f.p[3], b)
	m := -b // all ones when s < p: keep s
	return [4]uint64{
		(s[0] & m) | (d[0] &^ m),
		(s[1] & m) | (d[1] &^ m),
		(s[2] & m) | (d[2] &^ m),
		(s[3] & m) | (d[3] &^ m),
	}
}

// montMul returns x·y·R⁻¹ mod p (CIOS) for x, y < p, for the conversions (the arithmetic uses the
// unrolled copies in field25519.go and fieldhs.go): every intermediate stays below 2p, so five limbs
// suffice and one conditional subtraction ends it.
func (f *fieldParams) montMul(x, y *[4]uint64) [4]uint64 {
	var t0, t1, t2, t3, t4 uint64
	p0, p1, p2, p3 := f.p[0], f.p[1], f.p[2], f.p[3]
	for i := range 4 {
		yi := y[i]
		var c, hi, lo, cc uint64
		// t += x·y[i]
		hi, lo = bits.Mul64(x[0], yi)
		t0, cc = bits.Add64(t0, lo, 0)
		c = hi + cc
		hi, lo = bits.Mul64(x[1], yi)
		lo, cc = bits.Add64(lo, c, 0)
		hi += cc
		t1, cc = bits.Add64(t1, lo, 0)
		c = hi + cc
		hi, lo = bits.Mul64(x[2], yi)
		lo, cc = bits.Add64(lo, c, 0)
		hi += cc
		t2, cc = bits.Add64(t2, lo, 0)
		c = hi + cc
		hi, lo = bits.Mul64(x[3], yi)
		lo, cc = bits.Add64(lo, c, 0)
		hi += cc
		t3, cc = bits.Add64(t3, lo, 0)
		c = hi + cc
		t4 += c
		// t = (t + m·p) / 2^64
		m := t0 * f.pInv
		hi, lo = bits.Mul64(m, p0)
		_, cc = bits.Add64(t0, lo, 0)
		c = hi + cc
		hi, lo = bits.Mul64(m, p1)
		lo, cc = bits.Add64(lo, c, 0)
		hi += cc
		t0, cc = bits.Add64(t1, lo, 0)
		c = hi + cc
		hi, lo = bits.Mul64(m, p2)
		lo, cc = bits.Add64(lo, c, 0)
		hi += cc
		t1, cc = bits.Add64(t2, lo, 0)
		c = hi + cc
		hi, lo = bits.Mul64(m, p3)
		lo, cc = bits.Add64(lo, c, 0)
		hi += cc
		t2, cc = bits.Add64(t3, lo, 0)
		c = hi + cc
		t3, cc = bits.Add64(t4, c, 0)
		t4 = cc
	}
	// t < 2p < 2^256 (t4 = 0 here), one conditional subtraction.
	return f.reduceOnce([4]uint64{t0, t1, t2, t3})
}
