package helioselene

import "math/big"

// The moduli's limbs and -p⁻¹ mod 2^64 as constants for the unrolled multiplications (TestFieldConstants
// checks them against the ones newFieldParams derives).
const (
	p25519P0  = 0xffffffffffffffed
	p25519P1  = 0xffffffffffffffff
	p25519P2  = 0xffffffffffffffff
	p25519P3  = 0x7fffffffffffffff
	p25519Inv = 0x86bca1af286bca1b
	pHSP0     = 0x6eb6d2727927c79f
	pHSP1     = 0xbf7f782cb7656b58
	pHSP2     = 0xffffffffffffffff
	pHSP3     = 0x7fffffffffffffff
	pHSInv    = 0x8a5f094bd6f46ba1
)

// The two moduli, as helioselene (d06d9518 crypto/helioselene/src/field.rs) and dalek-ff-group write them.
const (
	modulus25519 = "7fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffed"
	modulusHS    = "7fffffffffffffffffffffffffffffffbf7f782cb7656b586eb6d2727927c79f"
)

var (
	// p25519: 2^255 - 19 ≡ 5 (mod 8); square roots per RFC 8032's sqrt8k5, as dalek-ff-group does.
	p25519 = newFieldParams(modulus25519, func(p *big.Int) *big.Int {
		return new(big.Int).Rsh(new(big.Int).Add(p, big.NewInt(3)), 3)
	})
	// pHS: the Helioselene field, p ≡ 3 (mod 4): the square root is x^((p+1)/4).
	pHS = newFieldParams(modulusHS, func(p *big.Int) *big.Int {
		return new(big.Int).Rsh(new(big.Int).Add(p, big.NewInt(1)), 2)
	})

	// sqrtM1 is 2^((p-1)/4), the square root of -1 that dalek-ff-group's sqrt multiplies by.
	sqrtM1 = func() Field25519 {
		p, _ := new(big.Int).SetString(modulus25519, 16)
		e := new(big.Int).Rsh(new(big.Int).Sub(p, big.NewInt(1)), 2)
		v := new(big.Int).Exp(big.NewInt(2), e, p)
		var b [32]byte
		vb := v.Bytes()
		for i := range vb {
			b[i] = vb[len(vb)-1-i]
		}
		var z Field25519
		if _, err := z.SetBytes(b[:]); err != nil {
			panic(err)
		}
		return z
	}()
)

// Sqrt sets z to a square root of x and reports whether x is a square (z is unspecified when not). It
// returns the root the reference returns (dalek-ff-group's sqrt8k5 without sign normalisation:
// c = x^((p+3)/8), or c·√-1 when c² ≠ x), since constants such as Wei25519's are defined through it.
func (z *Field25519) Sqrt(x *Field25519) (*Field25519, bool) {
	var c, c2, ci Field25519
	c.pow(x, &p25519.sqrtExp)
	c2.Square(&c)
	ci.Mul(&c, &sqrtM1)
	var sel uint64
	if c2.Equal(x) {
		sel = 1
	}
	z.Select(&c, &ci, sel)
	c2.Square(z)
	return z, c2.Equal(x)
}

// Sqrt sets z to x^((p+1)/4), the reference's square root, and reports whether it squares back to x.
func (z *HelioseleneField) Sqrt(x *HelioseleneField) (*HelioseleneField, bool) {
	var c, c2 HelioseleneField
	c.pow(x, &pHS.sqrtExp)
	c2.Square(&c)
	ok := c2.Equal(x)
	*z = c
	return z, ok
}
