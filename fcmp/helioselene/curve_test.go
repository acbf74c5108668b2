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
