package rpctypes

import (
	"bytes"

	"github.com/gonero/gonero/epeejson"
)

// SendRawTxRequest is /sendrawtransaction's request
// (COMMAND_RPC_SEND_RAW_TX::request, core_rpc_server_commands_defs.h).
type SendRawTxRequest struct {
	TxAsHex        string `json:"tx_as_hex"`
	DoNotRelay     bool   `json:"do_not_relay"`
	DoSanityChecks bool   `json:"do_sanity_checks"` // default true
}

// ParseSendRawTxRequest loads it from a body: none (or only white space)
// is the all-default request; false is a body that does not parse or a
// member of the wrong type (monerod's 400).
func ParseSendRawTxRequest(body []byte) (SendRawTxRequest, bool) {
	r := SendRawTxRequest{DoSanityChecks: true}
	if len(bytes.TrimSpace(body)) == 0 {
		return r, true
	}
	v, err := epeejson.Parse(body)
	if err != nil {
		return r, false
	}
	p := NewParams(v, true)
	var e *Error
	if r.TxAsHex, e = p.String("tx_as_hex"); e != nil {
		return r, false
	}
	if r.DoNotRelay, e = p.Bool("do_not_relay"); e != nil {
		return r, false
	}
	if r.DoSanityChecks, e = p.BoolOr("do_sanity_checks", true); e != nil {
		return r, false
	}
	return r, true
}

// SendRawTxResponse is its answer (COMMAND_RPC_SEND_RAW_TX::response of
// monerod 0.18.5.3): the status, the reason, and the verification flags
// of a refused transaction.
type SendRawTxResponse struct {
	DoubleSpend       bool   `json:"double_spend"`
	FeeTooLow         bool   `json:"fee_too_low"`
	InvalidInput      bool   `json:"invalid_input"`
	InvalidOutput     bool   `json:"invalid_output"`
	LowMixin          bool   `json:"low_mixin"`
	NonzeroUnlockTime bool   `json:"nonzero_unlock_time"`
	NotRelayed        bool   `json:"not_relayed"`
	Overspend         bool   `json:"overspend"`
	Reason            string `json:"reason"`
	SanityCheckFailed bool   `json:"sanity_check_failed"`
	Status            string `json:"status"`
	TooBig            bool   `json:"too_big"`
	TooFewOutputs     bool   `json:"too_few_outputs"`
	TxExtraTooBig     bool   `json:"tx_extra_too_big"`
}

// Write writes the answer.
func (r *SendRawTxResponse) Write(w *epeejson.Writer) {
	w.BeginObject()
	WriteCredits(w)
	w.KeyBool("double_spend", r.DoubleSpend)
	w.KeyBool("fee_too_low", r.FeeTooLow)
	w.KeyBool("invalid_input", r.InvalidInput)
	w.KeyBool("invalid_output", r.InvalidOutput)
	w.KeyBool("low_mixin", r.LowMixin)
	w.KeyBool("nonzero_unlock_time", r.NonzeroUnlockTime)
	w.KeyBool("not_relayed", r.NotRelayed)
	w.KeyBool("overspend", r.Overspend)
	w.KeyString("reason", r.Reason)
	w.KeyBool("sanity_check_failed", r.SanityCheckFailed)
	w.KeyString("status", r.Status)
	w.KeyBool("too_big", r.TooBig)
	w.KeyBool("too_few_outputs", r.TooFewOutputs)
	w.KeyString("top_hash", "")
	w.KeyBool("tx_extra_too_big", r.TxExtraTooBig)
	WriteUntrusted(w)
	w.EndObject()
}
