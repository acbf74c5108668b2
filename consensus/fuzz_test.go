package consensus

import (
	"testing"

	"github.com/gonero/gonero/cryptonote"
	"github.com/gonero/gonero/internal/testutil"
)

// FuzzTxRules feeds parsed random and mutated real transactions to every
// rule that needs no chain, and to the input rules over a small fake chain:
// never a panic, and a refusal is always a *TxError.
func FuzzTxRules(f *testing.F) {
	f.Add(testutil.WalletTx(f, "2-transfer.jsonl", 14))
	f.Add(testutil.WalletTx(f, "6-sweep-all.jsonl", 15))
	f.Fuzz(func(t *testing.T, blob []byte) {
		tx, err := cryptonote.ParseTransaction(blob)
		if err != nil {
			return
		}
		for _, hf := range []uint8{1, 4, 8, 13, 16} {
			check := func(err error) {
				if err != nil && FlagsOf(err) == 0 {
					if _, ok := err.(*TxError); !ok {
						t.Fatalf("hf %d: refusal %v is not a *TxError", hf, err)
					}
				}
			}
			check(CheckTxPre(tx, len(blob), hf))
			check(CheckTxWeight(tx.Weight(len(blob)), hf))
			check(CheckTxSemantic(tx, hf))
			_, err := CheckTxPoolEntry(tx, PoolEntry{Weight: tx.Weight(len(blob)), FeeOK: func(uint64, uint64) bool { return true },
				KeyImageInPool: func(cryptonote.Key) bool { return false }})
			check(err)
			st := &fakeState{counts: map[uint64]uint64{0: 5000}, spent: map[cryptonote.Key]bool{}, height: 10}
			rings, err := CheckTxInputs(tx, &InputContext{HF: hf, Height: 4000, State: st})
			check(err)
			if err == nil {
				_ = VerifyTxSignatures(tx, rings)
			}
		}
		for _, err := range CheckRctSemantics([]*cryptonote.Transaction{tx}) {
			if err != nil && FlagsOf(err) != 0 {
				t.Fatalf("RingCT semantics set flags %b", FlagsOf(err))
			}
		}
	})
}
