package consensus

import (
	"errors"
	"strings"
)

// TxFlags are monerod's tx_verification_context flags: what a refused
// transaction is reported as by send_raw_transaction. A refusal that sets
// none of them is only "verification failed".
type TxFlags uint16

const (
	FlagLowMixin TxFlags = 1 << iota
	FlagDoubleSpend
	FlagInvalidInput
	FlagInvalidOutput
	FlagTooBig
	FlagOverspend
	FlagFeeTooLow
	FlagTooFewOutputs
	// FlagTxExtraTooBig and FlagNonzeroUnlockTime are the pool-only rules
	// monerod added in 0.18.2.1 and 0.18.3.4 (m_tx_extra_too_big, commit
	// 5900ed370; m_nonzero_unlock_time, commit dd47d03cf):
	// send_raw_transaction's tx_extra_too_big and nonzero_unlock_time.
	FlagTxExtraTooBig
	FlagNonzeroUnlockTime
)

// reasons are core_rpc_server.cpp on_send_raw_tx's texts and the answer
// fields that report each flag, in its order.
var reasons = []struct {
	flag  TxFlags
	text  string
	field string
}{
	{FlagLowMixin, "bad ring size", "low_mixin"},
	{FlagDoubleSpend, "double spend", "double_spend"},
	{FlagInvalidInput, "invalid input", "invalid_input"},
	{FlagInvalidOutput, "invalid output", "invalid_output"},
	{FlagTooBig, "too big", "too_big"},
	{FlagOverspend, "overspend", "overspend"},
	{FlagFeeTooLow, "fee too low", "fee_too_low"},
	{FlagTooFewOutputs, "too few outputs", "too_few_outputs"},
	{FlagTxExtraTooBig, "tx-extra too big", "tx_extra_too_big"},
	{FlagNonzeroUnlockTime, "tx unlock time is not zero", "nonzero_unlock_time"},
}

// Reason is the "reason" string monerod builds from the flags: the texts
// joined with ", ".
func (f TxFlags) Reason() string {
	var parts []string
	for _, r := range reasons {
		if f&r.flag != 0 {
			parts = append(parts, r.text)
		}
	}
	return strings.Join(parts, ", ")
}

// Fields names the send_raw_transaction answer fields the flags set
// (low_mixin, double_spend, ...), in monerod's order.
func (f TxFlags) Fields() []string {
	var out []string
	for _, r := range reasons {
		if f&r.flag != 0 {
			out = append(out, r.field)
		}
	}
	return out
}

// AllTxFlags is every flag, in monerod's order.
const AllTxFlags = FlagLowMixin | FlagDoubleSpend | FlagInvalidInput | FlagInvalidOutput | FlagTooBig |
	FlagOverspend | FlagFeeTooLow | FlagTooFewOutputs | FlagTxExtraTooBig | FlagNonzeroUnlockTime

// TxError is a transaction refused by a rule. Rule is the rule's code (its
// String names it in a few words, monerod's log wording where it has one),
// Flags what monerod's verification context would carry, Err the details. NoDropOffense is
// monerod's m_no_drop_offense (0.18.2.2 on, commit 059b97538): the transaction stays out of the
// pool and is not relayed, but the peer that sent it is not punished (a fee
// too low, a pool-only rule, a key image another pool transaction spends).
type TxError struct {
	Rule          Rule
	Flags         TxFlags
	Err           error
	NoDropOffense bool
}

func (e *TxError) Error() string {
	if e.Err == nil {
		return e.Rule.String()
	}
	return e.Rule.String() + ": " + e.Err.Error()
}

func (e *TxError) Unwrap() error { return e.Err }

// FlagsOf returns the flags of a TxError anywhere in err's chain, 0 if none.
func FlagsOf(err error) TxFlags {
	var te *TxError
	if errors.As(err, &te) {
		return te.Flags
	}
	return 0
}

// RuleOf returns the rule of a TxError anywhere in err's chain, 0 if none.
func RuleOf(err error) Rule {
	var te *TxError
	if errors.As(err, &te) {
		return te.Rule
	}
	return 0
}

// IsNoDropOffense reports a TxError anywhere in err's chain that is no
// offence of the peer that relayed the transaction (TxError.NoDropOffense).
func IsNoDropOffense(err error) bool {
	var te *TxError
	return errors.As(err, &te) && te.NoDropOffense
}

func txErr(rule Rule, flags TxFlags, err error) error {
	return &TxError{Rule: rule, Flags: flags, Err: err}
}
