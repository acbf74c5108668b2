// Code generated from field25519.go by gen_test.go (go test -run TestGeneratedInSync -update); DO NOT EDIT.

package helioselene

import (
	"encoding/binary"
	"errors"
	"math/bits"
)

// HelioseleneField is an element of GF(2^255 - 19), the ed25519 base field: Helios's base field and Selene's
// scalar field (helioselene's HelioseleneField, dalek-ff-group's FieldElement). It is kept in Montgomery form
// (value·2^256 mod p) in four 64-bit limbs, always fully reduced, so that equal values have equal limbs.
// The zero value is 0.
type HelioseleneField struct {
	l [4]uint64
}

// ErrHelioseleneFieldEncoding is returned for a 32-byte string that is not the canonical little-endian encoding
// of an element (its value is at least the modulus), or that is not 32 bytes long.
var ErrHelioseleneFieldEncoding = errors.New("helioselene: non-canonical HelioseleneField encoding")

// Set sets z = x.
func (z *HelioseleneField) Set(x *HelioseleneField) *HelioseleneField { *z = *x; return z }

// Zero sets z = 0.
func (z *HelioseleneField) Zero() *HelioseleneField { *z = HelioseleneField{}; return z }

// One sets z = 1.
func (z *HelioseleneField) One() *HelioseleneField { z.l = pHS.one; return z }

// SetUint64 sets z = v.
func (z *HelioseleneField) SetUint64(v uint64) *HelioseleneField {
	z.l = [4]uint64{v}
	return z.Mul(z, &HelioseleneField{pHS.r2})
}

// IsZero reports whether z = 0.
func (z *HelioseleneField) IsZero() bool { return z.l[0]|z.l[1]|z.l[2]|z.l[3] == 0 }

// Equal reports whether z = x.
func (z *HelioseleneField) Equal(x *HelioseleneField) bool {
	return (z.l[0]^x.l[0])|(z.l[1]^x.l[1])|(z.l[2]^x.l[2])|(z.l[3]^x.l[3]) == 0
}

// Add sets z = x + y.
func (z *HelioseleneField) Add(x, y *HelioseleneField) *HelioseleneField {
	// x, y < p < 2^255: the sum fits in 256 bits, then one conditional subtraction by mask.
	var c, b uint64
	s0, c := bits.Add64(x.l[0], y.l[0], 0)
	s1, c := bits.Add64(x.l[1], y.l[1], c)
	s2, c := bits.Add64(x.l[2], y.l[2], c)
	s3, _ := bits.Add64(x.l[3], y.l[3], c)
	d0, b := bits.Sub64(s0, pHSP0, 0)
	d1, b := bits.Sub64(s1, pHSP1, b)
	d2, b := bits.Sub64(s2, pHSP2, b)
	d3, b := bits.Sub64(s3, pHSP3, b)
	m := -b // all ones when the sum is below p: keep it
	z.l[0] = (s0 & m) | (d0 &^ m)
	z.l[1] = (s1 & m) | (d1 &^ m)
	z.l[2] = (s2 & m) | (d2 &^ m)
	z.l[3] = (s3 & m) | (d3 &^ m)
	return z
}

// Double sets z = 2x.
func (z *HelioseleneField) Double(x *HelioseleneField) *HelioseleneField { return z.Add(x, x) }

// Sub sets z = x - y.
func (z *HelioseleneField) Sub(x, y *HelioseleneField) *HelioseleneField {
	d0, b := bits.Sub64(x.l[0], y.l[0], 0)
	d1, b := bits.Sub64(x.l[1], y.l[1], b)
	d2, b := bits.Sub64(x.l[2], y.l[2], b)
	d3, b := bits.Sub64(x.l[3], y.l[3], b)
	// On a borrow add p back (mask instead of a branch).
	m := -b
	var c uint64
	z.l[0], c = bits.Add64(d0, pHSP0&m, 0)
	z.l[1], c = bits.Add64(d1, pHSP1&m, c)
	z.l[2], c = bits.Add64(d2, pHSP2&m, c)
	z.l[3], _ = bits.Add64(d3, pHSP3&m, c)
	return z
}

// Negate sets z = -x.
func (z *HelioseleneField) Negate(x *HelioseleneField) *HelioseleneField {
	var zero HelioseleneField
	return z.Sub(&zero, x)
}

// Mul sets z = x·y.
func (z *HelioseleneField) Mul(x, y *HelioseleneField) *HelioseleneField {
	z.l = montMulHelioseleneField(&x.l, &y.l)
	return z
}

// Square sets z = x².
func (z *HelioseleneField) Square(x *HelioseleneField) *HelioseleneField {
	z.l = montSquareHelioseleneField(&x.l)
	return z
}

// Select sets z = a if cond == 1 and z = b if cond == 0, without branching on cond.
func (z *HelioseleneField) Select(a, b *HelioseleneField, cond uint64) *HelioseleneField {
	m := -cond
	for i := range z.l {
		z.l[i] = (a.l[i] & m) | (b.l[i] &^ m)
	}
	return z
}

// pow sets z = x^e for a public exponent e (little-endian limbs), by a fixed 4-bit window.
func (z *HelioseleneField) pow(x *HelioseleneField, e *[4]uint64) *HelioseleneField {
	var table [16]HelioseleneField
	table[0].One()
	table[1] = *x
	for i := 2; i < 16; i++ {
		table[i].Mul(&table[i-1], x)
	}
	var r HelioseleneField
	r.One()
	for i := 63; i >= 0; i-- {
		w := (e[i/16] >> (uint(i%16) * 4)) & 15
		r.Square(&r)
		r.Square(&r)
		r.Square(&r)
		r.Square(&r)
		r.Mul(&r, &table[w])
	}
	*z = r
	return z
}

// Invert sets z = 1/x (Fermat: x^(p-2)) and reports whether x was invertible; for x = 0, z = 0 and
// false.
func (z *HelioseleneField) Invert(x *HelioseleneField) (*HelioseleneField, bool) {
	ok := !x.IsZero()
	z.pow(x, &pHS.pMinus2)
	return z, ok
}

// SetBytes sets z to the canonical 32-byte little-endian encoding b and refuses any other input (a value
// at least the modulus, or a length other than 32), as the reference's from_repr does.
func (z *HelioseleneField) SetBytes(b []byte) (*HelioseleneField, error) {
	if len(b) != 32 {
		return nil, ErrHelioseleneFieldEncoding
	}
	var v [4]uint64
	for i := range v {
		v[i] = binary.LittleEndian.Uint64(b[8*i:])
	}
	if !lessThan(&v, &pHS.p) {
		return nil, ErrHelioseleneFieldEncoding
	}
	z.l = pHS.montMul(&v, &pHS.r2)
	return z, nil
}

// SetWideBytes sets z to the 64-byte little-endian integer b reduced mod p (the reference's
// wide_reduce).
func (z *HelioseleneField) SetWideBytes(b *[64]byte) *HelioseleneField {
	var lo, hi [4]uint64
	for i := range lo {
		lo[i] = binary.LittleEndian.Uint64(b[8*i:])
		hi[i] = binary.LittleEndian.Uint64(b[32+8*i:])
	}
	// Each half is below 2^256 < 3p: two conditional subtractions bring it below p, as montMul wants.
	lo = pHS.reduceOnce(pHS.reduceOnce(lo))
	hi = pHS.reduceOnce(pHS.reduceOnce(hi))
	// lo·R²·R⁻¹ and hi·R³·R⁻¹ = hi·2^256·R are the two halves in Montgomery form.
	a := pHS.montMul(&lo, &pHS.r2)
	c := pHS.montMul(&hi, &pHS.r3)
	return z.Add(&HelioseleneField{a}, &HelioseleneField{c})
}

// Bytes returns the canonical 32-byte little-endian encoding of z.
func (z *HelioseleneField) Bytes() [32]byte {
	v := pHS.montMul(&z.l, &[4]uint64{1})
	var b [32]byte
	for i := range v {
		binary.LittleEndian.PutUint64(b[8*i:], v[i])
	}
	return b
}

// IsOdd reports whether the canonical value of z is odd (the reference's is_odd).
func (z *HelioseleneField) IsOdd() bool {
	v := pHS.montMul(&z.l, &[4]uint64{1})
	return v[0]&1 == 1
}

// montMulHelioseleneField returns x·y·R⁻¹ mod p for x, y < p: CIOS Montgomery multiplication, unrolled, with the
// modulus as constants; every intermediate stays below 2p, so five limbs suffice and one conditional
// subtraction ends it.
func montMulHelioseleneField(x, y *[4]uint64) [4]uint64 {
	var t0, t1, t2, t3, t4, c, hi, lo, cc, m uint64
	x0, x1, x2, x3 := x[0], x[1], x[2], x[3]
	// round 0: t += x·y[0], then t = (t + m·p) / 2^64
	yi := y[0]
	hi, lo = bits.Mul64(x0, yi)
	t0, cc = bits.Add64(t0, lo, 0)
	c = hi + cc
	hi, lo = bits.Mul64(x1, yi)
	lo, cc = bits.Add64(lo, c, 0)
	hi += cc
	t1, cc = bits.Add64(t1, lo, 0)
	c = hi + cc
	hi, lo = bits.Mul64(x2, yi)
	lo, cc = bits.Add64(lo, c, 0)
	hi += cc
	t2, cc = bits.Add64(t2, lo, 0)
	c = hi + cc
	hi, lo = bits.Mul64(x3, yi)
	lo, cc = bits.Add64(lo, c, 0)
	hi += cc
	t3, cc = bits.Add64(t3, lo, 0)
	c = hi + cc
	t4 += c
	m = t0 * pHSInv
	hi, lo = bits.Mul64(m, pHSP0)
	_, cc = bits.Add64(t0, lo, 0)
	c = hi + cc
	hi, lo = bits.Mul64(m, pHSP1)
	lo, cc = bits.Add64(lo, c, 0)
	hi += cc
	t0, cc = bits.Add64(t1, lo, 0)
	c = hi + cc
	hi, lo = bits.Mul64(m, pHSP2)
	lo, cc = bits.Add64(lo, c, 0)
	hi += cc
	t1, cc = bits.Add64(t2, lo, 0)
	c = hi + cc
	hi, lo = bits.Mul64(m, pHSP3)
	lo, cc = bits.Add64(lo, c, 0)
	hi += cc
	t2, cc = bits.Add64(t3, lo, 0)
	c = hi + cc
	t3, cc = bits.Add64(t4, c, 0)
	t4 = cc
	// round 1: t += x·y[1], then t = (t + m·p) / 2^64
	yi = y[1]
	hi, lo = bits.Mul64(x0, yi)
	t0, cc = bits.Add64(t0, lo, 0)
	c = hi + cc
	hi, lo = bits.Mul64(x1, yi)
	lo, cc = bits.Add64(lo, c, 0)
	hi += cc
	t1, cc = bits.Add64(t1, lo, 0)
	c = hi + cc
	hi, lo = bits.Mul64(x2, yi)
	lo, cc = bits.Add64(lo, c, 0)
	hi += cc
	t2, cc = bits.Add64(t2, lo, 0)
	c = hi + cc
	hi, lo = bits.Mul64(x3, yi)
	lo, cc = bits.Add64(lo, c, 0)
	hi += cc
	t3, cc = bits.Add64(t3, lo, 0)
	c = hi + cc
	t4 += c
	m = t0 * pHSInv
	hi, lo = bits.Mul64(m, pHSP0)
	_, cc = bits.Add64(t0, lo, 0)
	c = hi + cc
	hi, lo = bits.Mul64(m, pHSP1)
	lo, cc = bits.Add64(lo, c, 0)
	hi += cc
	t0, cc = bits.Add64(t1, lo, 0)
	c = hi + cc
	hi, lo = bits.Mul64(m, pHSP2)
	lo, cc = bits.Add64(lo, c, 0)
	hi += cc
	t1, cc = bits.Add64(t2, lo, 0)
	c = hi + cc
	hi, lo = bits.Mul64(m, pHSP3)
	lo, cc = bits.Add64(lo, c, 0)
	hi += cc
	t2, cc = bits.Add64(t3, lo, 0)
	c = hi + cc
	t3, cc = bits.Add64(t4, c, 0)
	t4 = cc
	// round 2: t += x·y[2], then t = (t + m·p) / 2^64
	yi = y[2]
	hi, lo = bits.Mul64(x0, yi)
	t0, cc = bits.Add64(t0, lo, 0)
	c = hi + cc
	hi, lo = bits.Mul64(x1, yi)
	lo, cc = bits.Add64(lo, c, 0)
	hi += cc
	t1, cc = bits.Add64(t1, lo, 0)
	c = hi + cc
	hi, lo = bits.Mul64(x2, yi)
	lo, cc = bits.Add64(lo, c, 0)
	hi += cc
	t2, cc = bits.Add64(t2, lo, 0)
	c = hi + cc
	hi, lo = bits.Mul64(x3, yi)
	lo, cc = bits.Add64(lo, c, 0)
	hi += cc
	t3, cc = bits.Add64(t3, lo, 0)
	c = hi + cc
	t4 += c
	m = t0 * pHSInv
	hi, lo = bits.Mul64(m, pHSP0)
	_, cc = bits.Add64(t0, lo, 0)
	c = hi + cc
	hi, lo = bits.Mul64(m, pHSP1)
	lo, cc = bits.Add64(lo, c, 0)
	hi += cc
	t0, cc = bits.Add64(t1, lo, 0)
	c = hi + cc
	hi, lo = bits.Mul64(m, pHSP2)
	lo, cc = bits.Add64(lo, c, 0)
	hi += cc
	t1, cc = bits.Add64(t2, lo, 0)
	c = hi + cc
	hi, lo = bits.Mul64(m, pHSP3)
	lo, cc = bits.Add64(lo, c, 0)
	hi += cc
	t2, cc = bits.Add64(t3, lo, 0)
	c = hi + cc
	t3, cc = bits.Add64(t4, c, 0)
	t4 = cc
	// round 3: t += x·y[3], then t = (t + m·p) / 2^64
	yi = y[3]
	hi, lo = bits.Mul64(x0, yi)
	t0, cc = bits.Add64(t0, lo, 0)
	c = hi + cc
	hi, lo = bits.Mul64(x1, yi)
	lo, cc = bits.Add64(lo, c, 0)
	hi += cc
	t1, cc = bits.Add64(t1, lo, 0)
	c = hi + cc
	hi, lo = bits.Mul64(x2, yi)
	lo, cc = bits.Add64(lo, c, 0)
	hi += cc
	t2, cc = bits.Add64(t2, lo, 0)
	c = hi + cc
	hi, lo = bits.Mul64(x3, yi)
	lo, cc = bits.Add64(lo, c, 0)
	hi += cc
	t3, cc = bits.Add64(t3, lo, 0)
	c = hi + cc
	t4 += c
	m = t0 * pHSInv
	hi, lo = bits.Mul64(m, pHSP0)
	_, cc = bits.Add64(t0, lo, 0)
	c = hi + cc
	hi, lo = bits.Mul64(m, pHSP1)
	lo, cc = bits.Add64(lo, c, 0)
	hi += cc
	t0, cc = bits.Add64(t1, lo, 0)
	c = hi + cc
	hi, lo = bits.Mul64(m, pHSP2)
	lo, cc = bits.Add64(lo, c, 0)
	hi += cc
	t1, cc = bits.Add64(t2, lo, 0)
	c = hi + cc
	hi, lo = bits.Mul64(m, pHSP3)
	lo, cc = bits.Add64(lo, c, 0)
	hi += cc
	t2, cc = bits.Add64(t3, lo, 0)
	c = hi + cc
	t3, cc = bits.Add64(t4, c, 0)
	t4 = cc
	_ = t4 // zero here: t < 2p < 2^256
	// One conditional subtraction of p, by mask.
	var d0, d1, d2, d3, b uint64
	d0, b = bits.Sub64(t0, pHSP0, 0)
	d1, b = bits.Sub64(t1, pHSP1, b)
	d2, b = bits.Sub64(t2, pHSP2, b)
	d3, b = bits.Sub64(t3, pHSP3, b)
	mask := -b
	return [4]uint64{(t0 & mask) | (d0 &^ mask), (t1 & mask) | (d1 &^ mask), (t2 & mask) | (d2 &^ mask), (t3 & mask) | (d3 &^ mask)}
}

// montSquareHelioseleneField returns x²·R⁻¹ mod p for x < p: the 512-bit square with each cross product
// computed once and doubled (10 multiplications instead of 16), then a separate Montgomery reduction.
func montSquareHelioseleneField(x *[4]uint64) [4]uint64 {
	x0, x1, x2, x3 := x[0], x[1], x[2], x[3]
	var hi, lo, c, cc uint64
	// Cross products x_i·x_j (i < j) into r1..r6.
	var r0, r1, r2, r3, r4, r5, r6, r7 uint64
	r2, r1 = bits.Mul64(x0, x1)
	hi, lo = bits.Mul64(x0, x2)
	r2, cc = bits.Add64(r2, lo, 0)
	r3 = hi + cc
	hi, lo = bits.Mul64(x0, x3)
	r3, cc = bits.Add64(r3, lo, 0)
	r4 = hi + cc
	hi, lo = bits.Mul64(x1, x2)
	r3, cc = bits.Add64(r3, lo, 0)
	c = hi + cc
	hi, lo = bits.Mul64(x1, x3)
	lo, cc = bits.Add64(lo, c, 0)
	hi += cc
	r4, cc = bits.Add64(r4, lo, 0)
	r5 = hi + cc
	hi, lo = bits.Mul64(x2, x3)
	r5, cc = bits.Add64(r5, lo, 0)
	r6 = hi + cc
	// Double them.
	r7 = r6 >> 63
	r6 = r6<<1 | r5>>63
	r5 = r5<<1 | r4>>63
	r4 = r4<<1 | r3>>63
	r3 = r3<<1 | r2>>63
	r2 = r2<<1 | r1>>63
	r1 <<= 1
	// Add the squares x_i² at limbs 2i, 2i+1.
	hi, r0 = bits.Mul64(x0, x0)
	r1, cc = bits.Add64(r1, hi, 0)
	hi, lo = bits.Mul64(x1, x1)
	r2, cc = bits.Add64(r2, lo, cc)
	r3, cc = bits.Add64(r3, hi, cc)
	hi, lo = bits.Mul64(x2, x2)
	r4, cc = bits.Add64(r4, lo, cc)
	r5, cc = bits.Add64(r5, hi, cc)
	hi, lo = bits.Mul64(x3, x3)
	r6, cc = bits.Add64(r6, lo, cc)
	r7, _ = bits.Add64(r7, hi, cc)
	return montReduceHelioseleneField(r0, r1, r2, r3, r4, r5, r6, r7)
}

// montReduceHelioseleneField returns T·R⁻¹ mod p for the 512-bit T = r0 + r1·2^64 + ... < p·2^256 (REDC, four
// word-by-word rounds); the result is below 2p before the final subtraction.
func montReduceHelioseleneField(r0, r1, r2, r3, r4, r5, r6, r7 uint64) [4]uint64 {
	var hi, lo, c, cc, m, top uint64
	// round 0: add m·p at limb 0, zeroing it
	m = r0 * pHSInv
	hi, lo = bits.Mul64(m, pHSP0)
	_, cc = bits.Add64(r0, lo, 0)
	c = hi + cc
	hi, lo = bits.Mul64(m, pHSP1)
	lo, cc = bits.Add64(lo, c, 0)
	hi += cc
	r1, cc = bits.Add64(r1, lo, 0)
	c = hi + cc
	hi, lo = bits.Mul64(m, pHSP2)
	lo, cc = bits.Add64(lo, c, 0)
	hi += cc
	r2, cc = bits.Add64(r2, lo, 0)
	c = hi + cc
	hi, lo = bits.Mul64(m, pHSP3)
	lo, cc = bits.Add64(lo, c, 0)
	hi += cc
	r3, cc = bits.Add64(r3, lo, 0)
	c = hi + cc
	r4, cc = bits.Add64(r4, c, 0)
	r5, cc = bits.Add64(r5, 0, cc)
	r6, cc = bits.Add64(r6, 0, cc)
	r7, cc = bits.Add64(r7, 0, cc)
	top += cc
	// round 1: add m·p at limb 1, zeroing it
	m = r1 * pHSInv
	hi, lo = bits.Mul64(m, pHSP0)
	_, cc = bits.Add64(r1, lo, 0)
	c = hi + cc
	hi, lo = bits.Mul64(m, pHSP1)
	lo, cc = bits.Add64(lo, c, 0)
	hi += cc
	r2, cc = bits.Add64(r2, lo, 0)
	c = hi + cc
	hi, lo = bits.Mul64(m, pHSP2)
	lo, cc = bits.Add64(lo, c, 0)
	hi += cc
	r3, cc = bits.Add64(r3, lo, 0)
	c = hi + cc
	hi, lo = bits.Mul64(m, pHSP3)
	lo, cc = bits.Add64(lo, c, 0)
	hi += cc
	r4, cc = bits.Add64(r4, lo, 0)
	c = hi + cc
	r5, cc = bits.Add64(r5, c, 0)
	r6, cc = bits.Add64(r6, 0, cc)
	r7, cc = bits.Add64(r7, 0, cc)
	top += cc
	// round 2: add m·p at limb 2, zeroing it
	m = r2 * pHSInv
	hi, lo = bits.Mul64(m, pHSP0)
	_, cc = bits.Add64(r2, lo, 0)
	c = hi + cc
	hi, lo = bits.Mul64(m, pHSP1)
	lo, cc = bits.Add64(lo, c, 0)
	hi += cc
	r3, cc = bits.Add64(r3, lo, 0)
	c = hi + cc
	hi, lo = bits.Mul64(m, pHSP2)
	lo, cc = bits.Add64(lo, c, 0)
	hi += cc
	r4, cc = bits.Add64(r4, lo, 0)
	c = hi + cc
	hi, lo = bits.Mul64(m, pHSP3)
	lo, cc = bits.Add64(lo, c, 0)
	hi += cc
	r5, cc = bits.Add64(r5, lo, 0)
	c = hi + cc
	r6, cc = bits.Add64(r6, c, 0)
	r7, cc = bits.Add64(r7, 0, cc)
	top += cc
	// round 3: add m·p at limb 3, zeroing it
	m = r3 * pHSInv
	hi, lo = bits.Mul64(m, pHSP0)
	_, cc = bits.Add64(r3, lo, 0)
	c = hi + cc
	hi, lo = bits.Mul64(m, pHSP1)
	lo, cc = bits.Add64(lo, c, 0)
	hi += cc
	r4, cc = bits.Add64(r4, lo, 0)
	c = hi + cc
	hi, lo = bits.Mul64(m, pHSP2)
	lo, cc = bits.Add64(lo, c, 0)
	hi += cc
	r5, cc = bits.Add64(r5, lo, 0)
	c = hi + cc
	hi, lo = bits.Mul64(m, pHSP3)
	lo, cc = bits.Add64(lo, c, 0)
	hi += cc
	r6, cc = bits.Add64(r6, lo, 0)
	c = hi + cc
	r7, cc = bits.Add64(r7, c, 0)
	top += cc
	_ = top // zero: the result is below 2p < 2^256
	var d0, d1, d2, d3, b uint64
	d0, b = bits.Sub64(r4, pHSP0, 0)
	d1, b = bits.Sub64(r5, pHSP1, b)
	d2, b = bits.Sub64(r6, pHSP2, b)
	d3, b = bits.Sub64(r7, pHSP3, b)
	mask := -b
	return [4]uint64{(r4 & mask) | (d0 &^ mask), (r5 & mask) | (d1 &^ mask), (r6 & mask) | (d2 &^ mask), (r7 & mask) | (d3 &^ mask)}
}
