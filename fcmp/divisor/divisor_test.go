package divisor

import (
	"encoding/hex"
	"encoding/json"
	"os"
	"testing"

	"filippo.io/edwards25519"
)

// TestVector reproduces the oracle's divisor vector: the decomposition and every coefficient.
func TestVector(t *testing.T) {
	raw, err := os.ReadFile("../../testdata/fcmp/vectors.json")
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		D struct {
			Scalar, Point string
			Decomposition []uint64
			Y             []string   `json:"y_coefficients"`
			YX            [][]string `json:"yx_coefficients"`
			X             []string   `json:"x_coefficients"`
			Zero          string     `json:"zero_coefficient"`
		} `json:"divisor"`
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	d := v.D
	sb, _ := hex.DecodeString(d.Scalar)
	s, err := new(edwards25519.Scalar).SetCanonicalBytes(sb)
	if err != nil {
		t.Fatal(err)
	}
	pb, _ := hex.DecodeString(d.Point)
	g, err := new(edwards25519.Point).SetBytes(pb)
	if err != nil {
		t.Fatal(err)
	}
	dec, err := Decompose(s)
	if err != nil {
		t.Fatal(err)
	}
	if len(dec) != len(d.Decomposition) {
		t.Fatalf("decomposition of %d coefficients, want %d", len(dec), len(d.Decomposition))
	}
	for i := range dec {
		if dec[i] != d.Decomposition[i] {
			t.Fatalf("decomposition[%d] = %d, want %d", i, dec[i], d.Decomposition[i])
		}
	}
	p, err := ScalarMulDivisor(s, dec, g)
	if err != nil {
		t.Fatal(err)
	}
	hx := func(f fe) string { b := f.Bytes(); return hex.EncodeToString(b[:]) }
	check := func(name string, got []fe, want []string) {
		if len(got) != len(want) {
			t.Fatalf("%s: %d coefficients, want %d", name, len(got), len(want))
		}
		for i := range got {
			if hx(got[i]) != want[i] {
				t.Fatalf("%s[%d] = %s, want %s", name, i, hx(got[i]), want[i])
			}
		}
	}
	check("y", p.Y, d.Y)
	if len(d.YX) != 1 {
		t.Fatalf("%d yx rows", len(d.YX))
	}
	check("yx", p.YX[0], d.YX[0])
	check("x", p.X, d.X)
	if hx(p.Zero) != d.Zero {
		t.Fatalf("zero %s, want %s", hx(p.Zero), d.Zero)
	}
}

// TestDecompose: for small and random scalars, Σ c_i·2^i = s and Σ c_i = ScalarBits.
func TestDecompose(t *testing.T) {
	var scalars []*edwards25519.Scalar
	for _, v := range []byte{1, 2, 3, 100, 252, 253, 255} {
		s, _ := new(edwards25519.Scalar).SetCanonicalBytes([]byte{v, 31: 0})
		scalars = append(scalars, s)
	}
	for i := 0; i < 20; i++ {
		var b [64]byte
		for j := range b {
			b[j] = byte(i*131 + j*7)
		}
		s, _ := new(edwards25519.Scalar).SetUniformBytes(b[:])
		scalars = append(scalars, s)
	}
	minus1 := new(edwards25519.Scalar).Negate(oneScalar())
	scalars = append(scalars, minus1)
	for _, s := range scalars {
		dec, err := Decompose(s)
		if err != nil {
			t.Fatal(err)
		}
		sum := uint64(0)
		acc := edwards25519.NewScalar()
		pow := oneScalar()
		for _, c := range dec {
			sum += c
			var cs [32]byte
			cs[0] = byte(c)
			k, _ := new(edwards25519.Scalar).SetCanonicalBytes(cs[:])
			acc.MultiplyAdd(k, pow, acc)
			pow.Add(pow, pow)
		}
		if sum != ScalarBits || acc.Equal(s) != 1 {
			t.Fatalf("%x: sum %d, value equal %v", s.Bytes(), sum, acc.Equal(s) == 1)
		}
	}
	if _, err := Decompose(edwards25519.NewScalar()); err == nil {
		t.Fatal("zero decomposes")
	}
}
