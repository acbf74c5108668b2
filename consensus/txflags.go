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
)

// reasons are core_rpc_server.cpp on_send_raw_tx's texts, in its order.
var reasons = []struct {
	flag TxFlags
	text string
}{
	{FlagLowMixin, "bad ring size"},
	{FlagDoubleSpend, "double spend"},
	{FlagInvalidInput, "invalid input"},
	{FlagInvalidOutput, "invalid output"},
	{FlagTooBig, "too big"},
	{FlagOverspend, "overspend"},
	{FlagFeeTooLow, "fee too low"},
	{FlagTooFewOutputs, "too few outputs"},
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

// TxError is a transaction refused by a rule. Rule names the rule in a few
// words (monerod's log wording where it has one), Flags what monerod's
// verification context would carry, Err the details.
type TxError struct {
	Rule  string
	Flags TxFlags
	Err   error
}

func (e *TxError) Error() string {
	if e.Err == nil {
		return e.Rule
	}
	return e.Rule + ": " + e.Err.Error()
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

func txErr(rule string, flags TxFlags, err error) error {
	return &TxError{Rule: rule, Flags: flags, Err: err}
}
