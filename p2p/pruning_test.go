package p2p

import (
	"testing"

	"github.com/gonero/gonero/pruning"
)

// Full blocks are asked only of a peer whose seed keeps both ends of the
// span: stripe-1 peer on a 20,000-block chain holds 0-4,095 and the tip
// (14,500 on), not 4,096-32,767 below the tip.
func TestPeerHoldsSpan(t *testing.T) {
	s1 := pruning.SeedForStripe(1)
	const h = 20000
	for _, c := range []struct {
		seed     uint32
		first, n uint64
		want     bool
	}{
		{0, 5000, 100, true},       // unpruned peer
		{s1, 0, 100, true},         // its stripe
		{s1, 4000, 96, true},       // ends at 4,095
		{s1, 4000, 97, false},      // reaches 4,096
		{s1, 5000, 100, false},     // stripe 2
		{s1, h - 5500, 100, true},  // the tip
		{s1, h - 5501, 100, false}, // starts just below the tip
		{pruning.SeedForStripe(2), 4096, 100, true},
	} {
		if got := peerHoldsSpan(c.seed, h, c.first, c.n); got != c.want {
			t.Errorf("seed %#x span %d+%d: %v, want %v", c.seed, c.first, c.n, got, c.want)
		}
	}
}
