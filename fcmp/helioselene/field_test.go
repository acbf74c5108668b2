package helioselene

import (
	"encoding/hex"
	"math/big"
	"testing"
)

func (z *Field25519) hex() string       { b := z.Bytes(); return hex.EncodeToString(b[:]) }
func (z *HelioseleneField) hex() string { b := z.Bytes(); return hex.EncodeToString(b[:]) }

func fe(t testing.TB, s string) *Field25519 {
	t.Helper()
	z, err := new(Field25519).SetBytes(unhex(t, s))
	if err != nil {
		t.Fatalf("%s: %v", s, err)
	}
	return z
}

func fq(t testing.TB, s string) *HelioseleneField {
	t.Helper()
	z, err := new(HelioseleneField).SetBytes(unhex(t, s))
	if err != nil {
		t.Fatalf("%s: %v", s, err)
	}
	return z
}

func TestFieldVectors(t *testing.T) {
	v := loadVectors(t)
	if v.Field.Modulus != modulus25519 || v.FieldHS.Modulus != modulusHS {
		t.Fatalf("moduli %s %s", v.Field.Modulus, v.FieldHS.Modulus)
	}
	for i, o := range v.Field.Ops {
		a := fe(t, o.A)
		if got := new(Field25519).Square(a).hex(); got != o.Sq {
			t.Errorf("25519 op %d: a² = %s, want %s", i, got, o.Sq)
		}
		r, ok := new(Field25519).Sqrt(fe(t, o.Sq))
		if !ok || r.hex() != o.Sqrt {
			t.Errorf("25519 op %d: sqrt = %s %v, want %s", i, r.hex(), ok, o.Sqrt)
		}
		inv, ok := new(Field25519).Invert(a)
		if !ok || inv.hex() != o.Inv {
			t.Errorf("25519 op %d: 1/a = %s, want %s", i, inv.hex(), o.Inv)
		}
	}
	for i, o := range v.FieldHS.Ops {
		a := fq(t, o.A)
		if got := new(HelioseleneField).Square(a).hex(); got != o.Sq {
			t.Errorf("HS op %d: a² = %s, want %s", i, got, o.Sq)
		}
		r, ok := new(HelioseleneField).Sqrt(fq(t, o.Sq))
		if !ok || r.hex() != o.Sqrt {
			t.Errorf("HS op %d: sqrt = %s %v, want %s", i, r.hex(), ok, o.Sqrt)
		}
		inv, ok := new(HelioseleneField).Invert(a)
		if !ok || inv.hex() != o.Inv {
			t.Errorf("HS op %d: 1/a = %s, want %s", i, inv.hex(), o.Inv)
		}
	}
	// The scalar-field operations of each curve: Helios's scalars are the Helioselene field, Selene's
	// are 2^255-19.
	for i, o := range v.Helios.ScalarFieldOps {
		a, b := fq(t, o.A), fq(t, o.B)
		check := func(what, got, want string) {
			if got != want {
				t.Errorf("Helios scalar op %d: %s = %s, want %s", i, what, got, want)
			}
		}
		check("a+b", new(HelioseleneField).Add(a, b).hex(), o.Sum)
		check("a*b", new(HelioseleneField).Mul(a, b).hex(), o.Prod)
		check("a-b", new(HelioseleneField).Sub(a, b).hex(), o.Diff)
		inv, _ := new(HelioseleneField).Invert(a)
		check("1/a", inv.hex(), o.Inv)
	}
	for i, o := range v.Selene.ScalarFieldOps {
		a, b := fe(t, o.A), fe(t, o.B)
		check := func(what, got, want string) {
			if got != want {
				t.Errorf("Selene scalar op %d: %s = %s, want %s", i, what, got, want)
			}
		}
		check("a+b", new(Field25519).Add(a, b).hex(), o.Sum)
		check("a*b", new(Field25519).Mul(a, b).hex(), o.Prod)
		check("a-b", new(Field25519).Sub(a, b).hex(), o.Diff)
		inv, _ := new(Field25519).Invert(a)
		check("1/a", inv.hex(), o.Inv)
	}
}

// TestFieldAgainstBig compares every operation with math/big on values that exercise the limbs' edges.
func TestFieldAgainstBig(t *testing.T) {
	for _, mod := range []string{modulus25519, modulusHS} {
		p, _ := new(big.Int).SetString(mod, 16)
		le := func(x *big.Int) []byte {
			b := make([]byte, 32)
			xb := x.Bytes()
			for i := range xb {
				b[i] = xb[len(xb)-1-i]
			}
			return b
		}
		vals := []*big.Int{big.NewInt(0), big.NewInt(1), big.NewInt(2), new(big.Int).Sub(p, big.NewInt(1)),
			new(big.Int).Rsh(p, 1), new(big.Int).Lsh(big.NewInt(1), 254), new(big.Int).Lsh(big.NewInt(1), 64)}
		seed := new(big.Int).SetUint64(0x9e3779b97f4a7c15)
		for range 20 {
			seed.Mul(seed, seed).Add(seed, big.NewInt(12345)).Mod(seed, p)
			vals = append(vals, new(big.Int).Set(seed))
		}
		type ops struct {
			add, sub, mul func(a, b []byte) []byte
			inv, neg      func(a []byte) []byte
		}
		var o ops
		if mod == modulus25519 {
			dec := func(b []byte) *Field25519 { z, _ := new(Field25519).SetBytes(b); return z }
			enc := func(z *Field25519) []byte { b := z.Bytes(); return b[:] }
			o = ops{
				add: func(a, b []byte) []byte { return enc(new(Field25519).Add(dec(a), dec(b))) },
				sub: func(a, b []byte) []byte { return enc(new(Field25519).Sub(dec(a), dec(b))) },
				mul: func(a, b []byte) []byte { return enc(new(Field25519).Mul(dec(a), dec(b))) },
				inv: func(a []byte) []byte { z, _ := new(Field25519).Invert(dec(a)); return enc(z) },
				neg: func(a []byte) []byte { return enc(new(Field25519).Negate(dec(a))) },
			}
		} else {
			dec := func(b []byte) *HelioseleneField { z, _ := new(HelioseleneField).SetBytes(b); return z }
			enc := func(z *HelioseleneField) []byte { b := z.Bytes(); return b[:] }
			o = ops{
				add: func(a, b []byte) []byte { return enc(new(HelioseleneField).Add(dec(a), dec(b))) },
				sub: func(a, b []byte) []byte { return enc(new(HelioseleneField).Sub(dec(a), dec(b))) },
				mul: func(a, b []byte) []byte { return enc(new(HelioseleneField).Mul(dec(a), dec(b))) },
				inv: func(a []byte) []byte { z, _ := new(HelioseleneField).Invert(dec(a)); return enc(z) },
				neg: func(a []byte) []byte { return enc(new(HelioseleneField).Negate(dec(a))) },
			}
		}
		for _, a := range vals {
			for _, b := range vals {
				want := func(x *big.Int) string { return hex.EncodeToString(le(new(big.Int).Mod(x, p))) }
				if got := hex.EncodeToString(o.add(le(a), le(b))); got != want(new(big.Int).Add(a, b)) {
					t.Fatalf("%s: %v + %v", mod, a, b)
				}
				if got := hex.EncodeToString(o.sub(le(a), le(b))); got != want(new(big.Int).Sub(a, b)) {
					t.Fatalf("%s: %v - %v", mod, a, b)
				}
				if got := hex.EncodeToString(o.mul(le(a), le(b))); got != want(new(big.Int).Mul(a, b)) {
					t.Fatalf("%s: %v * %v", mod, a, b)
				}
			}
			wantInv := new(big.Int).ModInverse(a, p)
			if wantInv == nil {
				wantInv = new(big.Int)
			}
			if got := hex.EncodeToString(o.inv(le(a))); got != hex.EncodeToString(le(wantInv)) {
				t.Fatalf("%s: 1/%v", mod, a)
			}
			if got := hex.EncodeToString(o.neg(le(a))); got != hex.EncodeToString(le(new(big.Int).Mod(new(big.Int).Neg(a), p))) {
				t.Fatalf("%s: -%v", mod, a)
			}
		}
	}
}

func TestFieldDecodeRefuses(t *testing.T) {
	for _, mod := range []string{modulus25519, modulusHS} {
		p, _ := new(big.Int).SetString(mod, 16)
		for _, v := range []*big.Int{p, new(big.Int).Add(p, big.NewInt(1)), new(big.Int).Lsh(big.NewInt(1), 255),
			new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 256), big.NewInt(1))} {
			b := make([]byte, 32)
			vb := v.Bytes()
			for i := range vb {
				b[i] = vb[len(vb)-1-i]
			}
			_, e1 := new(Field25519).SetBytes(b)
			_, e2 := new(HelioseleneField).SetBytes(b)
			if (mod == modulus25519 && e1 == nil) || (mod == modulusHS && e2 == nil) {
				t.Errorf("%s: %x accepted", mod, b)
			}
		}
		// p - 1 is accepted.
		b := make([]byte, 32)
		vb := new(big.Int).Sub(p, big.NewInt(1)).Bytes()
		for i := range vb {
			b[i] = vb[len(vb)-1-i]
		}
		_, e1 := new(Field25519).SetBytes(b)
		_, e2 := new(HelioseleneField).SetBytes(b)
		if (mod == modulus25519 && e1 != nil) || (mod == modulusHS && e2 != nil) {
			t.Errorf("%s: p-1 refused", mod)
		}
	}
	for _, n := range []int{0, 31, 33} {
		if _, err := new(Field25519).SetBytes(make([]byte, n)); err == nil {
			t.Errorf("%d bytes accepted", n)
		}
		if _, err := new(HelioseleneField).SetBytes(make([]byte, n)); err == nil {
			t.Errorf("%d bytes accepted", n)
		}
	}
}

func TestWideReduce(t *testing.T) {
	for _, mod := range []string{modulus25519, modulusHS} {
		p, _ := new(big.Int).SetString(mod, 16)
		for _, fill := range []byte{0x00, 0x01, 0x7f, 0x80, 0xfe, 0xff} {
			var w [64]byte
			for i := range w {
				w[i] = fill ^ byte(i*37)
			}
			be := make([]byte, 64)
			for i := range w {
				be[63-i] = w[i]
			}
			want := new(big.Int).Mod(new(big.Int).SetBytes(be), p)
			var got []byte
			if mod == modulus25519 {
				b := new(Field25519).SetWideBytes(&w).Bytes()
				got = b[:]
			} else {
				b := new(HelioseleneField).SetWideBytes(&w).Bytes()
				got = b[:]
			}
			for i, j := 0, len(got)-1; i < j; i, j = i+1, j-1 {
				got[i], got[j] = got[j], got[i]
			}
			if new(big.Int).SetBytes(got).Cmp(want) != 0 {
				t.Errorf("%s fill %x: wide reduce %x, want %x", mod, fill, got, want)
			}
		}
	}
}

func TestFieldConstants(t *testing.T) {
	if [4]uint64{p25519P0, p25519P1, p25519P2, p25519P3} != p25519.p || p25519Inv != p25519.pInv {
		t.Error("2^255-19 constants")
	}
	if [4]uint64{pHSP0, pHSP1, pHSP2, pHSP3} != pHS.p || pHSInv != pHS.pInv {
		t.Error("Helioselene field constants")
	}
}
