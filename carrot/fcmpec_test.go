package carrot

import (
	"testing"

	"github.com/gonero/gonero/fcmp/ec"
)

// TestAgreesWithFcmpEC: carrot keeps its own copies of generator T and of
// personalised BLAKE2b (fcmp/ec sits in the same layer, so neither imports
// the other); this holds the copies equal, so that a change of T or a bug
// in one BLAKE2b shows here.
func TestAgreesWithFcmpEC(t *testing.T) {
	if got, want := T(), Point(ec.MasterGenerators().T.Bytes()); got != want {
		t.Errorf("carrot's T %s, fcmp/ec's master T %s", got, want)
	}
	data := make([]byte, 300)
	for i := range data {
		data[i] = byte(i * 13)
	}
	for _, n := range []int{0, 1, 32, 127, 128, 129, 300} {
		var got [64]byte
		blake2bPersonal(got[:], nil, personal, data[:n])
		if want := ec.Blake2bMonero512(data[:n]); got != want {
			t.Errorf("%d bytes: carrot %x, fcmp/ec %x", n, got, want)
		}
	}
}
