package consensus

import (
	"os"
	"testing"

	"github.com/gonero/gonero/cryptonote"
	"github.com/gonero/gonero/internal/testutil"
)

// A real mainnet RingCT type-3 transaction passes check_tx_outputs exactly
// in its hard-fork era (8–10), and a clear amount on one of its outputs is
// refused as an invalid output.
func TestRealTxOutputsByEra(t *testing.T) {
	blob, err := os.ReadFile(testutil.Path(t, "testdata", "mainnet", "tx", "84d48dc11ec91950f8b70a85af9db91fe0c8abef71ef5db08304f7344b99ea66.bin"))
	if err != nil {
		t.Fatal(err)
	}
	tx, err := cryptonote.ParseTransaction(blob)
	if err != nil {
		t.Fatal(err)
	}
	if tx.Rct.Type != cryptonote.RctTypeBulletproof {
		t.Fatalf("vector is type %d", tx.Rct.Type)
	}
	for hf := uint8(1); hf <= 16; hf++ {
		err := CheckTxOutputs(tx, hf, false)
		if want := hf >= 8 && hf <= 10; (err == nil) != want {
			t.Errorf("type 3 at hard fork %d: %v (allowed: %v)", hf, err, want)
		}
		if err != nil && FlagsOf(err) != FlagInvalidOutput {
			t.Errorf("hard fork %d: flags %b, want invalid_output", hf, FlagsOf(err))
		}
	}
	withOutAmount := *tx
	withOutAmount.Outputs = append([]cryptonote.TxOut(nil), tx.Outputs...)
	withOutAmount.Outputs[0].Amount = 1
	if err := CheckTxOutputs(&withOutAmount, 8, false); FlagsOf(err) != FlagInvalidOutput {
		t.Errorf("a RingCT output with a clear amount: %v", err)
	}
	if err := CheckTxSemantic(tx, 8); err != nil {
		t.Errorf("the real transaction fails check_tx_semantic: %v", err)
	}
}
