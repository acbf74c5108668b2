package zmqrpc

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
)

// The table computed for Grisu matches its known entries (hex literals of
// rapidjson's diyfp.h, facts of 10^k), and Grisu2's digits always read
// back as the same double.
func TestGrisu(t *testing.T) {
	for _, c := range []struct {
		i int
		f uint64
		e int
	}{{0, 0xfa8fd5a0081c0288, -1220}, {46, 0xad78ebc5ac620000, 3}, {86, 0xaf87023b9bf0ee6b, 1066}} {
		if got := cachedPowers[c.i]; got.f != c.f || got.e != c.e {
			t.Errorf("cached power %d: %#x·2^%d, want %#x·2^%d", c.i, got.f, got.e, c.f, c.e)
		}
	}
	// The difference from the shortest digits that monerod showed.
	if got := string(writeDouble(nil, -12345678901234567890.0)); got != "-12345678901234568000.0" {
		t.Errorf("got %s", got)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 200000; i++ {
		v := math.Float64frombits(rng.Uint64() &^ (1 << 63))
		if math.IsNaN(v) || math.IsInf(v, 0) || v == 0 {
			continue
		}
		digits, k := grisu2(v)
		back, err := strconv.ParseFloat(string(digits)+"e"+strconv.Itoa(k), 64)
		if err != nil || back != v {
			t.Fatalf("%v: digits %s e%d read back as %v", v, digits, k, back)
		}
	}
}
