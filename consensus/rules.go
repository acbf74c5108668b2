package consensus

import "strconv"

// Rule names a transaction rule. A refusal (TxError) carries one, so that
// callers compare codes, never error texts. Its String is the rule's name
// in a few words, monerod's log wording where monerod has one; those texts
// are part of gonero's monerod-compatible output (CONTRIBUTING.md, Errors)
// and must not change. docs/tx-verification.md §9 lists every code with the
// function that checks it and the tests that show it.
type Rule uint16

// The rules, grouped by the function that checks them. The numbers are
// not stored or sent anywhere, so rules may be added anywhere in the list;
// 0 is no rule.
const (
	_ Rule = iota

	// CheckTxPre, CheckTxWeight (ver_non_input_consensus rules 1-4).
	RuleTxTooBig   // blob over MaxTxSize
	RuleTxVersion  // version 0 or above the fork's maximum
	RuleTxTooHeavy // weight over TxWeightLimit (from hard fork 8)

	// CheckTxSemantic (core::check_tx_semantic).
	RuleNoInputs            // no inputs
	RuleInputTypes          // an input that is not to_key
	RuleInvalidOutputs      // check_outs_valid: output target, key, v1 amount
	RuleOutPkCount          // v2: len(outPk) != len(vout)
	RuleMoneyOverflow       // Σin or Σout overflows
	RuleWrongAmounts        // v1: Σin <= Σout
	RuleKeyImageTwice       // one key image in two inputs
	RuleDuplicateRingMember // a zero relative offset after the first (from hard fork 6)
	RuleKeyImageDomain      // key image the identity or outside the prime subgroup
	RuleSemanticOutputTypes // check_output_types, as check_tx_semantic calls it

	// CheckTxOutputs (Blockchain::check_tx_outputs).
	RuleAmountNotDecomposed // v1 output amount not d·10^k (from hard fork 2)
	RuleV2AmountNotZero     // v2 output amount not 0 (from hard fork 3)
	RuleOutputNotToKey      // output target not to a key (from hard fork 4)
	RuleOutputKeyInvalid    // output key not a point (from hard fork 4)
	RuleRctTypeNotAllowed   // RingCT type outside its forks
	RuleOutputTypes         // check_output_types, as check_tx_outputs calls it

	// CheckTxPoolEntry (tx_memory_pool::add_tx; no-drop offences).
	RuleFeeTooLow         // Blockchain::check_fee
	RuleTxExtraTooBig     // extra over MaxTxExtraSize
	RuleNonzeroUnlockTime // unlock_time != 0
	RuleKeyImageInPool    // a key image a pool transaction spends

	// CheckTxInputs (Blockchain::check_tx_inputs, without the signatures).
	RuleTooFewOutputs      // v2 with fewer than 2 outputs (from hard fork 12)
	RuleVaryingRingSize    // rings of different sizes (from hard fork 12)
	RuleLowRingSize        // ring below the fork's minimum
	RuleInvalidRingSize    // ring above the fork's exact size
	RuleVersionTooHigh     // version above the fork's maximum
	RuleVersionTooLow      // v1 without an unmixable input (from hard fork 6)
	RuleUnsortedInputs     // key images not strictly decreasing (from hard fork 7)
	RuleInputType          // an input that is not to_key
	RuleEmptyRing          // no key offsets
	RuleKeyImageSpent      // key image spent on the chain
	RuleOutputNotFound     // ring member that does not exist
	RuleRingMemberLocked   // ring member still locked
	RuleRingMemberTooYoung // newest ring member younger than TxSpendableAge (from hard fork 12)

	// CheckRctSemantics, VerifyTxSignatures.
	RuleRctSemantics // sizes, balance, range proofs
	RuleSignatures   // v1 ring signatures, MLSAG, CLSAG

	// Checks that are not monerod's rules but refuse a transaction all the same.
	RuleTimedOut      // txpool: timed out of the pool before
	RuleParse         // txpool: the blob is not a transaction
	RuleVerifierPanic // a verifier panicked on the transaction (PanicError)
	numRules
)

var ruleNames = [numRules]string{
	RuleTxTooBig:   "transaction too big",
	RuleTxVersion:  "bad tx version",
	RuleTxTooHeavy: "transaction is too heavy",

	RuleNoInputs:            "tx with empty inputs",
	RuleInputTypes:          "unsupported input types",
	RuleInvalidOutputs:      "tx with invalid outputs",
	RuleOutPkCount:          "tx with mismatched vout/outPk count",
	RuleMoneyOverflow:       "tx has money overflow",
	RuleWrongAmounts:        "tx with wrong amounts",
	RuleKeyImageTwice:       "tx uses a single key image more than once",
	RuleDuplicateRingMember: "tx uses duplicate ring members",
	RuleKeyImageDomain:      "tx uses key image not in the valid domain",
	RuleSemanticOutputTypes: "tx does not use valid output type(s)",

	RuleAmountNotDecomposed: "output amount is not decomposed",
	RuleV2AmountNotZero:     "v2 output amount is not 0",
	RuleOutputNotToKey:      "output is not to a key",
	RuleOutputKeyInvalid:    "output key is not a valid point",
	RuleRctTypeNotAllowed:   "RingCT type not allowed",
	RuleOutputTypes:         "invalid output type",

	RuleFeeTooLow:         "fee too low",
	RuleTxExtraTooBig:     "transaction tx-extra is too big",
	RuleNonzeroUnlockTime: "transaction unlock time is not zero",
	RuleKeyImageInPool:    "key image already spent in the pool",

	RuleTooFewOutputs:      "tx has fewer than two outputs",
	RuleVaryingRingSize:    "tx has varying ring size",
	RuleLowRingSize:        "tx has too low ring size",
	RuleInvalidRingSize:    "tx has invalid ring size",
	RuleVersionTooHigh:     "transaction version is higher than max accepted version",
	RuleVersionTooLow:      "transaction version is lower than min accepted version",
	RuleUnsortedInputs:     "transaction has unsorted inputs",
	RuleInputType:          "wrong type id in tx input",
	RuleEmptyRing:          "empty in_to_key.key_offsets",
	RuleKeyImageSpent:      "key image already spent in blockchain",
	RuleOutputNotFound:     "output does not exist",
	RuleRingMemberLocked:   "ring member is locked",
	RuleRingMemberTooYoung: "transaction spends at least one output which is too young",

	RuleRctSemantics: "rct signature semantics check failed",
	RuleSignatures:   "failed to check ring signatures",

	RuleTimedOut:      "transaction timed out of the pool before",
	RuleParse:         "failed to parse transaction",
	RuleVerifierPanic: "verifier panicked",
}

// String is the rule's name (empty for 0, "rule N" for a number no rule has).
func (r Rule) String() string {
	if r < numRules {
		return ruleNames[r]
	}
	return "rule " + strconv.Itoa(int(r))
}

// Rules is every rule, in code order.
func Rules() []Rule {
	out := make([]Rule, 0, numRules-1)
	for r := Rule(1); r < numRules; r++ {
		out = append(out, r)
	}
	return out
}
