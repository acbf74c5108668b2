package chain

import (
	"os"
	"testing"

	"github.com/gonero/gonero/cryptonote"
	"github.com/gonero/gonero/internal/testutil"
	"github.com/gonero/gonero/params"
)

// RingCT types are admitted only in their hard-fork era (check_tx_outputs),
// with the two grandfathered mainnet MLSAG transactions at forks 14 and 15.
func TestRingCTTypeEras(t *testing.T) {
	blob, err := os.ReadFile(testutil.Path(t, "testdata", "mainnet", "tx", "84d48dc11ec91950f8b70a85af9db91fe0c8abef71ef5db08304f7344b99ea66.bin"))
	if err != nil {
		t.Fatal(err)
	}
	tx, err := cryptonote.ParseTransaction(blob)
	if err != nil {
		t.Fatal(err)
	}
	id := tx.ID()
	if tx.Rct.Type != cryptonote.RctTypeBulletproof {
		t.Fatalf("vector is type %d", tx.Rct.Type)
	}
	for version := uint8(1); version <= 16; version++ {
		_, err := checkTx(params.Mainnet, id, tx, version)
		if want := version >= 8 && version <= 10; (err == nil) != want {
			t.Errorf("type 3 at hard fork %d: %v (allowed: %v)", version, err, want)
		}
	}
	for _, c := range []struct {
		typ, version uint8
		grand        bool
		net          params.Network
		want         bool
	}{
		{cryptonote.RctTypeBulletproof2, 13, false, params.Mainnet, true},
		{cryptonote.RctTypeBulletproof2, 14, false, params.Mainnet, false},
		{cryptonote.RctTypeBulletproof2, 14, true, params.Mainnet, true},
		{cryptonote.RctTypeBulletproof2, 15, true, params.Mainnet, true},
		{cryptonote.RctTypeBulletproof2, 16, true, params.Mainnet, false},
		{cryptonote.RctTypeBulletproof2, 14, true, params.Testnet, false},
		{cryptonote.RctTypeCLSAG, 15, false, params.Mainnet, true},
		{cryptonote.RctTypeCLSAG, 16, false, params.Mainnet, false},
		{cryptonote.RctTypeBulletproofPlus, 14, false, params.Mainnet, false},
		{cryptonote.RctTypeBulletproofPlus, 16, false, params.Mainnet, true},
		{cryptonote.RctTypeSimple, 9, false, params.Mainnet, false},
		{cryptonote.RctTypeNull, 16, false, params.Mainnet, false},
	} {
		id := cryptonote.Hash{1}
		if c.grand {
			id = cryptonote.MustParseHash("c5151944f0583097ba0c88cd0f43e7fabb3881278aa2f73b3b0a007c5d34e910")
		}
		if got := rctTypeAllowed(c.net, id, c.typ, c.version); got != c.want {
			t.Errorf("type %d at %d (grandfathered id %v, %s): %v, want %v", c.typ, c.version, c.grand, c.net, got, c.want)
		}
	}
	// A RingCT transaction spending a pre-RingCT output names its amount.
	withAmount := *tx
	withAmount.Inputs = append([]cryptonote.TxIn(nil), tx.Inputs...)
	in := withAmount.Inputs[0].(cryptonote.TxInToKey)
	in.Amount = 20000000000000
	withAmount.Inputs[0] = in
	if _, err := checkTx(params.Mainnet, id, &withAmount, 8); err != nil {
		t.Errorf("input with a clear amount refused: %v", err)
	}
	withOutAmount := *tx
	withOutAmount.Outputs = append([]cryptonote.TxOut(nil), tx.Outputs...)
	withOutAmount.Outputs[0].Amount = 1
	if _, err := checkTx(params.Mainnet, id, &withOutAmount, 8); err == nil {
		t.Error("a RingCT output with a clear amount was accepted")
	}
}
