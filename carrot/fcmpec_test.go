package carrot

import (
	"testing"

	"github.com/gonero/gonero/fcmp/ec"
)

// TestAgreesWithFcmpEC: carrot keeps its own copy of generator T (fcmp/ec
// sits in the same layer, so neither imports the other); this holds the
// copies equal, so that a change of T in one shows here. Both hash with
// crypto/blake2bp.
func TestAgreesWithFcmpEC(t *testing.T) {
	if got, want := T(), Point(ec.MasterGenerators().T.Bytes()); got != want {
		t.Errorf("carrot's T %s, fcmp/ec's master T %s", got, want)
	}
}
