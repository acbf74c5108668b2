package cryptonote

import "testing"

// CompareHash32 reads the hash as eight little-endian words, the last
// most significant (LMDB's compare_hash32).
func TestCompareHash32(t *testing.T) {
	var first, lastLow, lastHigh Hash
	first[0] = 0xff    // lowest byte of the least significant word
	lastLow[28] = 0xff // lowest byte of the most significant word
	lastHigh[31] = 1   // highest byte of the most significant word
	for _, c := range []struct {
		a, b Hash
		want int
	}{
		{Hash{}, Hash{}, 0},
		{first, lastLow, -1},
		{lastLow, lastHigh, -1},
		{lastHigh, first, 1},
		{lastHigh, lastHigh, 0},
	} {
		if got := CompareHash32(c.a, c.b); got != c.want {
			t.Errorf("CompareHash32(%s, %s) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}
