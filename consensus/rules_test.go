package consensus

import (
	"strconv"
	"testing"

	"github.com/gonero/gonero/cryptonote"
)

// Every rule has its own non-empty name; 0 is no rule.
func TestRuleNames(t *testing.T) {
	seen := map[string]Rule{}
	for _, r := range Rules() {
		name := r.String()
		if name == "" {
			t.Errorf("rule %d has no name", r)
		}
		if other, dup := seen[name]; dup {
			t.Errorf("rules %d and %d are both %q", other, r, name)
		}
		seen[name] = r
	}
	if Rule(0).String() != "" || numRules.String() != "rule "+strconv.Itoa(int(numRules)) {
		t.Errorf("Rule(0) %q, Rule(%d) %q", Rule(0), numRules, numRules)
	}
	// The refusal reads as it always did: the rule's text, then the details.
	if got := (&TxError{Rule: RuleFeeTooLow}).Error(); got != "fee too low" {
		t.Errorf("TxError text %q", got)
	}
}

// The rules no other test reaches through its function's own table, each
// refused with its code and flags by the function that holds it (some are
// unreachable through the pool, an earlier rule refusing first, but the
// functions are called alone too).
func TestRulesByFunction(t *testing.T) {
	st := &fakeState{counts: map[uint64]uint64{0: 100, 5_000: 100}, spent: map[cryptonote.Key]bool{}}
	v2 := func(edit func(tx *cryptonote.Transaction)) *cryptonote.Transaction {
		tx := rctTx(16, [][]uint64{ring(16), ring(16)}, 2)
		edit(tx)
		return tx
	}
	inputs := func(tx *cryptonote.Transaction, hf uint8) error {
		_, err := CheckTxInputs(tx, &InputContext{HF: hf, Height: 200, State: st})
		return err
	}
	for _, c := range []struct {
		name  string
		err   error
		rule  Rule
		flags TxFlags
	}{
		{"blob over MaxTxSize", CheckTxPre(v2(func(*cryptonote.Transaction) {}), MaxTxSize+1, 16), RuleTxTooBig, FlagTooBig},
		{"v2 at hard fork 3", CheckTxPre(v2(func(*cryptonote.Transaction) {}), 100, 3), RuleTxVersion, 0},
		{"inputs overflowing", CheckTxSemantic(&cryptonote.Transaction{Version: 1,
			Inputs: []cryptonote.TxIn{cryptonote.TxInToKey{Amount: 1 << 63, KeyOffsets: []uint64{1}, KeyImage: keyImage(0)},
				cryptonote.TxInToKey{Amount: 1 << 63, KeyOffsets: []uint64{1}, KeyImage: keyImage(1)}},
			Outputs: []cryptonote.TxOut{{Amount: 1, Target: cryptonote.TxOutToTaggedKey{Key: point(1)}}}}, 16), RuleMoneyOverflow, FlagOverspend},
		{"v2 output with an amount", CheckTxOutputs(v2(func(tx *cryptonote.Transaction) { tx.Outputs[0].Amount = 5 }), 16, false),
			RuleV2AmountNotZero, FlagInvalidOutput},
		{"output to a script", CheckTxOutputs(v2(func(tx *cryptonote.Transaction) {
			tx.Outputs[0].Target = cryptonote.TxOutToScriptHash{}
		}), 16, false), RuleOutputNotToKey, FlagInvalidOutput},
		{"output key not a point", CheckTxOutputs(v2(func(tx *cryptonote.Transaction) {
			tx.Outputs[0].Target = cryptonote.TxOutToTaggedKey{Key: cryptonote.Key{2}}
		}), 16, false), RuleOutputKeyInvalid, FlagInvalidOutput},
		{"CLSAG type at hard fork 16", CheckTxOutputs(v2(func(tx *cryptonote.Transaction) { tx.Rct.Type = cryptonote.RctTypeCLSAG }), 16, false),
			RuleRctTypeNotAllowed, FlagInvalidOutput},
		{"untagged output at hard fork 16", CheckTxOutputs(v2(func(tx *cryptonote.Transaction) {
			tx.Outputs[1].Target = cryptonote.TxOutToKey{Key: point(101)}
		}), 16, false), RuleOutputTypes, FlagInvalidOutput},
		{"gen input", inputs(v2(func(tx *cryptonote.Transaction) { tx.Inputs[0] = cryptonote.TxInGen{Height: 1} }), 16), RuleInputType, 0},
		{"v2 at hard fork 3, its inputs", inputs(rctTx(3, [][]uint64{ring(3)}, 2), 3), RuleVersionTooHigh, 0},
		{"empty ring at hard fork 1", inputs(&cryptonote.Transaction{Version: 1,
			Inputs: []cryptonote.TxIn{cryptonote.TxInToKey{Amount: 5_000, KeyImage: keyImage(0)}}}, 1), RuleEmptyRing, 0},
		{"rings missing", VerifyTxSignatures(v2(func(*cryptonote.Transaction) {}), nil), RuleSignatures, 0},
	} {
		if err := c.err; RuleOf(err) != c.rule || FlagsOf(err) != c.flags {
			t.Errorf("%s: %v (rule %q, flags %v), want %q (flags %v)", c.name, err, RuleOf(err), FlagsOf(err).Reason(), c.rule, c.flags.Reason())
		}
	}
}
