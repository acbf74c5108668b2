package helioselene

import (
	"encoding/hex"
	"testing"
)

func hexOf(b [32]byte) string { return hex.EncodeToString(b[:]) }

func TestCurveVectors(t *testing.T) {
	v := loadVectors(t)
	if len(v.Helios.ScalarMul) != 8 || len(v.Selene.PointOps) != 4 || len(v.Helios.Decode) != 8 ||
		len(v.Field.Ops) != 4 || len(v.Selene.ScalarFieldOps) != 4 {
		t.Fatal("vectors.json is not the oracle's vectors output")
	}
	t.Run("Helios", func(t *testing.T) {
		c := v.Helios
		if got := hexOf(HeliosGenerator().Bytes()); got != c.Generator {
			t.Errorf("generator %s, want %s", got, c.Generator)
		}
		if got := hexOf(NewHeliosPoint().Bytes()); got != c.Identity {
			t.Errorf("identity %s, want %s", got, c.Identity)
		}
		for i, m := range c.ScalarMul {
			p := new(HeliosPoint).ScalarMult(fq(t, m.K), HeliosGenerator())
			if got := hexOf(p.Bytes()); got != m.KG {
				t.Errorf("mul %d: kG %s, want %s", i, got, m.KG)
			}
			x, y, err := p.XY()
			if err != nil || x.hex() != m.X || y.hex() != m.Y {
				t.Errorf("mul %d: to_xy %s %s %v, want %s %s", i, x.hex(), y.hex(), err, m.X, m.Y)
			}
		}
		for i, o := range c.PointOps {
			a := mustHelios(t, o.A)
			b := mustHelios(t, o.B)
			check := func(what string, p *HeliosPoint, want string) {
				if got := hexOf(p.Bytes()); got != want {
					t.Errorf("op %d: %s = %s, want %s", i, what, got, want)
				}
			}
			check("a+b", new(HeliosPoint).Add(a, b), o.Sum)
			check("a-b", new(HeliosPoint).Sub(a, b), o.Diff)
			check("2a", new(HeliosPoint).Double(a), o.Dbl)
			check("a+a", new(HeliosPoint).Add(a, a), o.Dbl)
			check("a+b-b", new(HeliosPoint).Sub(new(HeliosPoint).Add(a, b), b), o.A)
		}
		for i, d := range c.Decode {
			p, err := new(HeliosPoint).SetBytes(unhex(t, d.Bytes))
			if (err == nil) != d.Valid {
				t.Errorf("decode %d (%s): err %v, want valid=%v", i, d.Bytes, err, d.Valid)
				continue
			}
			if err == nil && hexOf(p.Bytes()) != *d.Reencoded {
				t.Errorf("decode %d: re-encoded %s, want %s", i, hexOf(p.Bytes()), *d.Reencoded)
			}
		}
		h := HeliosHashToF([]byte("oracle dst"), []byte("oracle message"))
		if h.hex() != c.HashToF {
			t.Errorf("hash_to_F %s, want %s", h.hex(), c.HashToF)
		}
	})
	t.Run("Selene", func(t *testing.T) {
		c := v.Selene
		if got := hexOf(SeleneGenerator().Bytes()); got != c.Generator {
			t.Errorf("generator %s, want %s", got, c.Generator)
		}
		if got := hexOf(NewSelenePoint().Bytes()); got != c.Identity {
			t.Errorf("identity %s, want %s", got, c.Identity)
		}
		for i, m := range c.ScalarMul {
			p := new(SelenePoint).ScalarMult(fe(t, m.K), SeleneGenerator())
			if got := hexOf(p.Bytes()); got != m.KG {
				t.Errorf("mul %d: kG %s, want %s", i, got, m.KG)
			}
			x, y, err := p.XY()
			if err != nil || x.hex() != m.X || y.hex() != m.Y {
				t.Errorf("mul %d: to_xy %s %s %v, want %s %s", i, x.hex(), y.hex(), err, m.X, m.Y)
			}
		}
		for i, o := range c.PointOps {
			a := mustSelene(t, o.A)
			b := mustSelene(t, o.B)
			check := func(what string, p *SelenePoint, want string) {
				if got := hexOf(p.Bytes()); got != want {
					t.Errorf("op %d: %s = %s, want %s", i, what, got, want)
				}
			}
			check("a+b", new(SelenePoint).Add(a, b), o.Sum)
			check("a-b", new(SelenePoint).Sub(a, b), o.Diff)
			check("2a", new(SelenePoint).Double(a), o.Dbl)
			check("a+a", new(SelenePoint).Add(a, a), o.Dbl)
			check("a+b-b", new(SelenePoint).Sub(new(SelenePoint).Add(a, b), b), o.A)
		}
		for i, d := range c.Decode {
			p, err := new(SelenePoint).SetBytes(unhex(t, d.Bytes))
			if (err == nil) != d.Valid {
				t.Errorf("decode %d (%s): err %v, want valid=%v", i, d.Bytes, err, d.Valid)
				continue
			}
			if err == nil && hexOf(p.Bytes()) != *d.Reencoded {
				t.Errorf("decode %d: re-encoded %s, want %s", i, hexOf(p.Bytes()), *d.Reencoded)
			}
		}
		h := SeleneHashToF([]byte("oracle dst"), []byte("oracle message"))
		if h.hex() != c.HashToF {
			t.Errorf("hash_to_F %s, want %s", h.hex(), c.HashToF)
		}
	})
}

func mustHelios(t testing.TB, s string) *HeliosPoint {
	t.Helper()
	p, err := new(HeliosPoint).SetBytes(unhex(t, s))
	if err != nil {
		t.Fatalf("%s: %v", s, err)
	}
	return p
}

func mustSelene(t testing.TB, s string) *SelenePoint {
	t.Helper()
	p, err := new(SelenePoint).SetBytes(unhex(t, s))
	if err != nil {
		t.Fatalf("%s: %v", s, err)
	}
	return p
}

// TestMultiScalarMult compares the multiscalar multiplication with the sum of single multiplications,
// for sizes around every window choice, with identities and zero scalars among the inputs.
func TestMultiScalarMult(t *testing.T) {
	for _, n := range []int{0, 1, 2, 3, 7, 16, 33, 100, 500} {
		hs := make([]HelioseleneField, n)
		hp := make([]HeliosPoint, n)
		ss := make([]Field25519, n)
		sp := make([]SelenePoint, n)
		wantH := NewHeliosPoint()
		wantS := NewSelenePoint()
		for i := range n {
			hs[i] = HeliosHashToF([]byte("msm scalar"), []byte{byte(i), byte(n)})
			k := HeliosHashToF([]byte("msm point"), []byte{byte(i), byte(n)})
			hp[i].ScalarMult(&k, HeliosGenerator())
			ss[i] = SeleneHashToF([]byte("msm scalar"), []byte{byte(i), byte(n)})
			k2 := SeleneHashToF([]byte("msm point"), []byte{byte(i), byte(n)})
			sp[i].ScalarMult(&k2, SeleneGenerator())
			switch i % 7 {
			case 3:
				hp[i].Identity()
				sp[i].Identity()
			case 5:
				hs[i].Zero()
				ss[i].Zero()
			case 6:
				hs[i].One()
				hs[i].Negate(&hs[i])
				ss[i].One()
				ss[i].Negate(&ss[i])
			}
			wantH.Add(wantH, new(HeliosPoint).ScalarMult(&hs[i], &hp[i]))
			wantS.Add(wantS, new(SelenePoint).ScalarMult(&ss[i], &sp[i]))
		}
		if got := HeliosMultiScalarMult(hs, hp); !got.Equal(wantH) {
			t.Errorf("Helios n=%d: multiscalar multiplication differs", n)
		}
		if got := SeleneMultiScalarMult(ss, sp); !got.Equal(wantS) {
			t.Errorf("Selene n=%d: multiscalar multiplication differs", n)
		}
	}
	// Every window width, against each other.
	for c := 1; c <= 12; c++ {
		k := HeliosHashToF([]byte("digits"), []byte{byte(c)})
		kb := k.Bytes()
		d := signedDigits([][32]byte{kb}, c)[0]
		var acc HelioseleneField
		var pow HelioseleneField
		pow.One()
		var base HelioseleneField
		base.SetUint64(1 << c)
		for _, v := range d {
			var t0 HelioseleneField
			if v >= 0 {
				t0.SetUint64(uint64(v))
			} else {
				t0.SetUint64(uint64(-v))
				t0.Negate(&t0)
			}
			t0.Mul(&t0, &pow)
			acc.Add(&acc, &t0)
			pow.Mul(&pow, &base)
			if v > 1<<(c-1) || v < -(1<<(c-1)) {
				t.Fatalf("c=%d: digit %d out of range", c, v)
			}
		}
		if !acc.Equal(&k) {
			t.Errorf("c=%d: signed digits do not sum to the scalar", c)
		}
	}
}

// TestMultiScalarMultRepeated gives the multiscalar multiplication few distinct points, their negations
// and equal scalars, so that affine buckets meet equal x coordinates: the doubling and the point plus
// its negation, which the batched affine additions handle apart.
func TestMultiScalarMultRepeated(t *testing.T) {
	for _, n := range []int{64, 300, 1000, -100} {
		// n < 0: -n copies of one point and one scalar (every bucket doubles).
		same := n < 0
		n = max(n, -n)
		hs := make([]HelioseleneField, n)
		hp := make([]HeliosPoint, n)
		ss := make([]Field25519, n)
		sp := make([]SelenePoint, n)
		wantH := NewHeliosPoint()
		wantS := NewSelenePoint()
		for i := range n {
			// Scalars from a set of three, so that equal digits send equal points to equal buckets.
			hs[i] = HeliosHashToF([]byte("msm repeated scalar"), []byte{byte(i % 3)})
			ss[i] = SeleneHashToF([]byte("msm repeated scalar"), []byte{byte(i % 3)})
			k := HeliosHashToF([]byte("msm repeated point"), []byte{byte(i % 4)})
			hp[i].ScalarMult(&k, HeliosGenerator())
			k2 := SeleneHashToF([]byte("msm repeated point"), []byte{byte(i % 4)})
			sp[i].ScalarMult(&k2, SeleneGenerator())
			if same {
				hs[i], ss[i], hp[i], sp[i] = hs[0], ss[0], hp[0], sp[0]
			} else if i%5 == 1 {
				hp[i].Negate(&hp[i])
				sp[i].Negate(&sp[i])
			}
			wantH.Add(wantH, new(HeliosPoint).ScalarMult(&hs[i], &hp[i]))
			wantS.Add(wantS, new(SelenePoint).ScalarMult(&ss[i], &sp[i]))
		}
		if got := HeliosMultiScalarMult(hs, hp); !got.Equal(wantH) {
			t.Errorf("Helios n=%d: multiscalar multiplication differs", n)
		}
		if got := SeleneMultiScalarMult(ss, sp); !got.Equal(wantS) {
			t.Errorf("Selene n=%d: multiscalar multiplication differs", n)
		}
	}
}
