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

// pow sets z = x^e for a public exponent e (little-endian limbs). Both fields' exponents (p - 2, the
// square roots') start with a long run of ones: x^(2^L - 1) for the leading L ones takes L - 1 squarings
// and about log2(L) + popcount(L) multiplications (ones), and a sliding window over odd powers takes
// the remaining bits. For 2^255-19 this is 254 squarings and 13 to 16 multiplications instead of the
// 78 a fixed 4-bit window took; for the Helioselene field about 45.
func (z *HelioseleneField) pow(x *HelioseleneField, e *[4]uint64) *HelioseleneField {
	bit := func(i int) uint64 { return (e[i/64] >> uint(i%64)) & 1 }
	top := 255
	for top >= 0 && bit(top) == 0 {
		top--
	}
	if top < 0 {
		return z.One()
	}
	i := top
	for i >= 0 && bit(i) == 1 {
		i--
	}
	var r HelioseleneField
	r.ones(x, top-i)
	// The sliding window's width for the i+1 bits left: a table of 2^(w-1) odd powers against about
	// (i+1)/(w+1) multiplications.
	w, best := 1, i+2
	for cw := 2; cw <= 5; cw++ {
		if c := 1<<(cw-1) + (i+1)/(cw+1); c < best {
			w, best = cw, c
		}
	}
	var table [16]HelioseleneField // x, x^3, x^5, ...
	table[0] = *x
	if w > 1 {
		var x2 HelioseleneField
		x2.Square(x)
		for k := 1; k < 1<<(w-1); k++ {
			table[k].Mul(&table[k-1], &x2)
		}
	}
	for i >= 0 {
		if bit(i) == 0 {
			r.Square(&r)
			i--
			continue
		}
		// The longest window of at most w bits from bit i down that ends on a one.
		l := min(w, i+1)
		for bit(i-l+1) == 0 {
			l--
		}
		var v uint64
		for k := i; k > i-l; k-- {
			v = v<<1 | bit(k)
			r.Square(&r)
		}
		r.Mul(&r, &table[v>>1])
		i -= l
	}
	*z = r
	return z
}

// ones sets z = x^(2^n - 1) for n ≥ 1, by the bits of n from the top: x^(2^k - 1) gives x^(2^(2k) - 1)
// with k squarings and a multiplication, and x^(2^(k+1) - 1) with one of each.
func (z *HelioseleneField) ones(x *HelioseleneField, n int) *HelioseleneField {
	acc, k := *x, 1
	for b := bits.Len(uint(n)) - 2; b >= 0; b-- {
		t := acc
		for range k {
			t.Square(&t)
		}
		acc.Mul(&t, &acc)
		k *= 2
		if (n>>uint(b))&1 == 1 {
			acc.Square(&acc)
			acc.Mul(&acc, x)
			k++
		}
	}
	*z = acc
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
// modulus as constants. Each round computes its four products first and then adds them in two unbroken
// carry chains (a multiplication between two additions would clobber the carry flag). Every
// intermediate stays below 2p·2^64, within six limbs, and one conditional subtraction ends it.
func montMulHelioseleneField(x, y *[4]uint64) [4]uint64 {
	var t0, t1, t2, t3, t4, t5, c, m uint64
	var h0, h1, h2, h3, l0, l1, l2, l3 uint64
	x0, x1, x2, x3 := x[0], x[1], x[2], x[3]
	// round 0
	h0, l0 = bits.Mul64(x0, y[0])
	h1, l1 = bits.Mul64(x1, y[0])
	h2, l2 = bits.Mul64(x2, y[0])
	h3, l3 = bits.Mul64(x3, y[0])
	t0, c = bits.Add64(t0, l0, 0)
	t1, c = bits.Add64(t1, l1, c)
	t2, c = bits.Add64(t2, l2, c)
	t3, c = bits.Add64(t3, l3, c)
	t4, _ = bits.Add64(t4, 0, c)
	t1, c = bits.Add64(t1, h0, 0)
	t2, c = bits.Add64(t2, h1, c)
	t3, c = bits.Add64(t3, h2, c)
	t4, _ = bits.Add64(t4, h3, c)
	m = t0 * pHSInv
	h0, l0 = bits.Mul64(m, pHSP0)
	h1, l1 = bits.Mul64(m, pHSP1)
	h2, l2 = bits.Mul64(m, pHSP2)
	h3, l3 = bits.Mul64(m, pHSP3)
	_, c = bits.Add64(t0, l0, 0)
	t1, c = bits.Add64(t1, l1, c)
	t2, c = bits.Add64(t2, l2, c)
	t3, c = bits.Add64(t3, l3, c)
	t4, t5 = bits.Add64(t4, 0, c)
	t1, c = bits.Add64(t1, h0, 0)
	t2, c = bits.Add64(t2, h1, c)
	t3, c = bits.Add64(t3, h2, c)
	t4, c = bits.Add64(t4, h3, c)
	t5 += c
	t0, t1, t2, t3, t4 = t1, t2, t3, t4, t5
	// round 1
	h0, l0 = bits.Mul64(x0, y[1])
	h1, l1 = bits.Mul64(x1, y[1])
	h2, l2 = bits.Mul64(x2, y[1])
	h3, l3 = bits.Mul64(x3, y[1])
	t0, c = bits.Add64(t0, l0, 0)
	t1, c = bits.Add64(t1, l1, c)
	t2, c = bits.Add64(t2, l2, c)
	t3, c = bits.Add64(t3, l3, c)
	t4, _ = bits.Add64(t4, 0, c)
	t1, c = bits.Add64(t1, h0, 0)
	t2, c = bits.Add64(t2, h1, c)
	t3, c = bits.Add64(t3, h2, c)
	t4, _ = bits.Add64(t4, h3, c)
	m = t0 * pHSInv
	h0, l0 = bits.Mul64(m, pHSP0)
	h1, l1 = bits.Mul64(m, pHSP1)
	h2, l2 = bits.Mul64(m, pHSP2)
	h3, l3 = bits.Mul64(m, pHSP3)
	_, c = bits.Add64(t0, l0, 0)
	t1, c = bits.Add64(t1, l1, c)
	t2, c = bits.Add64(t2, l2, c)
	t3, c = bits.Add64(t3, l3, c)
	t4, t5 = bits.Add64(t4, 0, c)
	t1, c = bits.Add64(t1, h0, 0)
	t2, c = bits.Add64(t2, h1, c)
	t3, c = bits.Add64(t3, h2, c)
	t4, c = bits.Add64(t4, h3, c)
	t5 += c
	t0, t1, t2, t3, t4 = t1, t2, t3, t4, t5
	// round 2
	h0, l0 = bits.Mul64(x0, y[2])
	h1, l1 = bits.Mul64(x1, y[2])
	h2, l2 = bits.Mul64(x2, y[2])
	h3, l3 = bits.Mul64(x3, y[2])
	t0, c = bits.Add64(t0, l0, 0)
	t1, c = bits.Add64(t1, l1, c)
	t2, c = bits.Add64(t2, l2, c)
	t3, c = bits.Add64(t3, l3, c)
	t4, _ = bits.Add64(t4, 0, c)
	t1, c = bits.Add64(t1, h0, 0)
	t2, c = bits.Add64(t2, h1, c)
	t3, c = bits.Add64(t3, h2, c)
	t4, _ = bits.Add64(t4, h3, c)
	m = t0 * pHSInv
	h0, l0 = bits.Mul64(m, pHSP0)
	h1, l1 = bits.Mul64(m, pHSP1)
	h2, l2 = bits.Mul64(m, pHSP2)
	h3, l3 = bits.Mul64(m, pHSP3)
	_, c = bits.Add64(t0, l0, 0)
	t1, c = bits.Add64(t1, l1, c)
	t2, c = bits.Add64(t2, l2, c)
	t3, c = bits.Add64(t3, l3, c)
	t4, t5 = bits.Add64(t4, 0, c)
	t1, c = bits.Add64(t1, h0, 0)
	t2, c = bits.Add64(t2, h1, c)
	t3, c = bits.Add64(t3, h2, c)
	t4, c = bits.Add64(t4, h3, c)
	t5 += c
	t0, t1, t2, t3, t4 = t1, t2, t3, t4, t5
	// round 3
	h0, l0 = bits.Mul64(x0, y[3])
	h1, l1 = bits.Mul64(x1, y[3])
	h2, l2 = bits.Mul64(x2, y[3])
	h3, l3 = bits.Mul64(x3, y[3])
	t0, c = bits.Add64(t0, l0, 0)
	t1, c = bits.Add64(t1, l1, c)
	t2, c = bits.Add64(t2, l2, c)
	t3, c = bits.Add64(t3, l3, c)
	t4, _ = bits.Add64(t4, 0, c)
	t1, c = bits.Add64(t1, h0, 0)
	t2, c = bits.Add64(t2, h1, c)
	t3, c = bits.Add64(t3, h2, c)
	t4, _ = bits.Add64(t4, h3, c)
	m = t0 * pHSInv
	h0, l0 = bits.Mul64(m, pHSP0)
	h1, l1 = bits.Mul64(m, pHSP1)
	h2, l2 = bits.Mul64(m, pHSP2)
	h3, l3 = bits.Mul64(m, pHSP3)
	_, c = bits.Add64(t0, l0, 0)
	t1, c = bits.Add64(t1, l1, c)
	t2, c = bits.Add64(t2, l2, c)
	t3, c = bits.Add64(t3, l3, c)
	t4, t5 = bits.Add64(t4, 0, c)
	t1, c = bits.Add64(t1, h0, 0)
	t2, c = bits.Add64(t2, h1, c)
	t3, c = bits.Add64(t3, h2, c)
	t4, c = bits.Add64(t4, h3, c)
	t5 += c
	t0, t1, t2, t3 = t1, t2, t3, t4
	_ = t5 // zero: t < 2p < 2^256
	// t < 2p < 2^256 (t4 = 0): one conditional subtraction of p, by mask.
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
	// The six cross products x_i·x_j (i < j) and the four squares, all before any addition so that the
	// additions below run as unbroken carry chains.
	h01, l01 := bits.Mul64(x0, x1)
	h02, l02 := bits.Mul64(x0, x2)
	h03, l03 := bits.Mul64(x0, x3)
	h12, l12 := bits.Mul64(x1, x2)
	h13, l13 := bits.Mul64(x1, x3)
	h23, l23 := bits.Mul64(x2, x3)
	s0h, s0l := bits.Mul64(x0, x0)
	s1h, s1l := bits.Mul64(x1, x1)
	s2h, s2l := bits.Mul64(x2, x2)
	s3h, s3l := bits.Mul64(x3, x3)
	var c uint64
	// Σ x_i·x_j·2^(64(i+j)) into r1..r6.
	r1, r2, r3, r4, r5 := l01, l02, l03, l13, l23
	r2, c = bits.Add64(r2, h01, 0)
	r3, c = bits.Add64(r3, h02, c)
	r4, c = bits.Add64(r4, h03, c)
	r5, c = bits.Add64(r5, h13, c)
	r6, _ := bits.Add64(h23, 0, c)
	r3, c = bits.Add64(r3, l12, 0)
	r4, c = bits.Add64(r4, h12, c)
	r5, c = bits.Add64(r5, 0, c)
	r6, _ = bits.Add64(r6, 0, c)
	// Double them.
	r7 := r6 >> 63
	r6 = r6<<1 | r5>>63
	r5 = r5<<1 | r4>>63
	r4 = r4<<1 | r3>>63
	r3 = r3<<1 | r2>>63
	r2 = r2<<1 | r1>>63
	r1 <<= 1
	// Add the squares x_i² at limbs 2i, 2i+1.
	r0 := s0l
	r1, c = bits.Add64(r1, s0h, 0)
	r2, c = bits.Add64(r2, s1l, c)
	r3, c = bits.Add64(r3, s1h, c)
	r4, c = bits.Add64(r4, s2l, c)
	r5, c = bits.Add64(r5, s2h, c)
	r6, c = bits.Add64(r6, s3l, c)
	r7, _ = bits.Add64(r7, s3h, c)
	return montReduceHelioseleneField(r0, r1, r2, r3, r4, r5, r6, r7)
}

// montReduceHelioseleneField returns T·R⁻¹ mod p for the 512-bit T = r0 + r1·2^64 + ... < p·2^256 (REDC, four
// word-by-word rounds, each with its products first and two unbroken carry chains); the result is below
// 2p before the final subtraction.
func montReduceHelioseleneField(r0, r1, r2, r3, r4, r5, r6, r7 uint64) [4]uint64 {
	var h0, h1, h2, h3, l0, l1, l2, l3, c, m uint64
	// round 0: add m·p at limb 0, zeroing it
	m = r0 * pHSInv
	h0, l0 = bits.Mul64(m, pHSP0)
	h1, l1 = bits.Mul64(m, pHSP1)
	h2, l2 = bits.Mul64(m, pHSP2)
	h3, l3 = bits.Mul64(m, pHSP3)
	_, c = bits.Add64(r0, l0, 0)
	r1, c = bits.Add64(r1, l1, c)
	r2, c = bits.Add64(r2, l2, c)
	r3, c = bits.Add64(r3, l3, c)
	r4, c = bits.Add64(r4, 0, c)
	r5, c = bits.Add64(r5, 0, c)
	r6, c = bits.Add64(r6, 0, c)
	r7, _ = bits.Add64(r7, 0, c)
	r1, c = bits.Add64(r1, h0, 0)
	r2, c = bits.Add64(r2, h1, c)
	r3, c = bits.Add64(r3, h2, c)
	r4, c = bits.Add64(r4, h3, c)
	r5, c = bits.Add64(r5, 0, c)
	r6, c = bits.Add64(r6, 0, c)
	r7, _ = bits.Add64(r7, 0, c) // no carry out of r7: the total stays below 2^512
	// round 1: add m·p at limb 1, zeroing it
	m = r1 * pHSInv
	h0, l0 = bits.Mul64(m, pHSP0)
	h1, l1 = bits.Mul64(m, pHSP1)
	h2, l2 = bits.Mul64(m, pHSP2)
	h3, l3 = bits.Mul64(m, pHSP3)
	_, c = bits.Add64(r1, l0, 0)
	r2, c = bits.Add64(r2, l1, c)
	r3, c = bits.Add64(r3, l2, c)
	r4, c = bits.Add64(r4, l3, c)
	r5, c = bits.Add64(r5, 0, c)
	r6, c = bits.Add64(r6, 0, c)
	r7, _ = bits.Add64(r7, 0, c)
	r2, c = bits.Add64(r2, h0, 0)
	r3, c = bits.Add64(r3, h1, c)
	r4, c = bits.Add64(r4, h2, c)
	r5, c = bits.Add64(r5, h3, c)
	r6, c = bits.Add64(r6, 0, c)
	r7, _ = bits.Add64(r7, 0, c) // no carry out of r7: the total stays below 2^512
	// round 2: add m·p at limb 2, zeroing it
	m = r2 * pHSInv
	h0, l0 = bits.Mul64(m, pHSP0)
	h1, l1 = bits.Mul64(m, pHSP1)
	h2, l2 = bits.Mul64(m, pHSP2)
	h3, l3 = bits.Mul64(m, pHSP3)
	_, c = bits.Add64(r2, l0, 0)
	r3, c = bits.Add64(r3, l1, c)
	r4, c = bits.Add64(r4, l2, c)
	r5, c = bits.Add64(r5, l3, c)
	r6, c = bits.Add64(r6, 0, c)
	r7, _ = bits.Add64(r7, 0, c)
	r3, c = bits.Add64(r3, h0, 0)
	r4, c = bits.Add64(r4, h1, c)
	r5, c = bits.Add64(r5, h2, c)
	r6, c = bits.Add64(r6, h3, c)
	r7, _ = bits.Add64(r7, 0, c) // no carry out of r7: the total stays below 2^512
	// round 3: add m·p at limb 3, zeroing it
	m = r3 * pHSInv
	h0, l0 = bits.Mul64(m, pHSP0)
	h1, l1 = bits.Mul64(m, pHSP1)
	h2, l2 = bits.Mul64(m, pHSP2)
	h3, l3 = bits.Mul64(m, pHSP3)
	_, c = bits.Add64(r3, l0, 0)
	r4, c = bits.Add64(r4, l1, c)
	r5, c = bits.Add64(r5, l2, c)
	r6, c = bits.Add64(r6, l3, c)
	r7, _ = bits.Add64(r7, 0, c)
	r4, c = bits.Add64(r4, h0, 0)
	r5, c = bits.Add64(r5, h1, c)
	r6, c = bits.Add64(r6, h2, c)
	r7, _ = bits.Add64(r7, h3, c) // no carry out of r7: the total stays below 2^512
	var d0, d1, d2, d3, b uint64
	d0, b = bits.Sub64(r4, pHSP0, 0)
	d1, b = bits.Sub64(r5, pHSP1, b)
	d2, b = bits.Sub64(r6, pHSP2, b)
	d3, b = bits.Sub64(r7, pHSP3, b)
	mask := -b
	return [4]uint64{(r4 & mask) | (d0 &^ mask), (r5 & mask) | (d1 &^ mask), (r6 & mask) | (d2 &^ mask), (r7 & mask) | (d3 &^ mask)}
}
