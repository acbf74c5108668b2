package u128

import (
	"math/big"
	"testing"
)

func TestHexMatchesMonerodWideFields(t *testing.T) {
	// wide_cumulative_difficulty values monerod prints (docs/test-vectors.md, regtest README).
	cases := []struct {
		v    U128
		want string
	}{
		{From64(0), "0x0"},
		{From64(1), "0x1"},
		{From64(300), "0x12c"},
		{From64(313732272488), "0x490be69168"},
		{U128{Lo: 1, Hi: 1}, "0x10000000000000001"},
		{U128{Lo: ^uint64(0), Hi: ^uint64(0)}, "0xffffffffffffffffffffffffffffffff"},
	}
	for _, c := range cases {
		if got := c.v.Hex(); got != c.want {
			t.Errorf("Hex(%v) = %s, want %s", c.v, got, c.want)
		}
	}
}

func TestArithmeticAgainstBig(t *testing.T) {
	vals := []U128{{0, 0}, {1, 0}, {^uint64(0), 0}, {0, 1}, {^uint64(0), ^uint64(0)}, {12345, 678}}
	max := new(big.Int).Lsh(big.NewInt(1), 128)
	for _, a := range vals {
		for _, b := range vals {
			sum, over := a.Add(b)
			want := new(big.Int).Add(a.Big(), b.Big())
			if over != (want.Cmp(max) >= 0) {
				t.Fatalf("Add overflow flag wrong for %v+%v", a, b)
			}
			if !over && sum.Big().Cmp(want) != 0 {
				t.Fatalf("Add(%v,%v) = %v, want %v", a, b, sum, want)
			}
			diff, under := a.Sub(b)
			if under != (a.Big().Cmp(b.Big()) < 0) {
				t.Fatalf("Sub underflow flag wrong for %v-%v", a, b)
			}
			if !under && diff.Big().Cmp(new(big.Int).Sub(a.Big(), b.Big())) != 0 {
				t.Fatalf("Sub(%v,%v) = %v", a, b, diff)
			}
			if a.Cmp(b) != a.Big().Cmp(b.Big()) {
				t.Fatalf("Cmp(%v,%v) wrong", a, b)
			}
			back, ok := FromBig(a.Big())
			if !ok || back != a {
				t.Fatalf("FromBig round trip of %v", a)
			}
			if a.String() != a.Big().String() {
				t.Fatalf("String(%v)", a)
			}
		}
	}
	if _, ok := FromBig(max); ok {
		t.Fatal("FromBig accepted 2^128")
	}
}
