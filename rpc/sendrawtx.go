package rpc

import (
	"bytes"
	"encoding/hex"
	"errors"

	"github.com/gonero/gonero/consensus"
	"github.com/gonero/gonero/cryptonote"
	"github.com/gonero/gonero/epeejson"
	"github.com/gonero/gonero/httpd"
	"github.com/gonero/gonero/rpctypes"
	"github.com/gonero/gonero/txpool"
)

// sendRawTxRequest is COMMAND_RPC_SEND_RAW_TX's request.
type sendRawTxRequest struct {
	TxAsHex        string
	DoNotRelay     bool
	DoSanityChecks bool // default true
}

// sendRawTxResponse is its answer (monerod 0.18.5.3's fields; the epee
// writer sorts them as monerod prints them).
type sendRawTxResponse struct {
	Status            string
	Reason            string
	NotRelayed        bool
	Flags             consensus.TxFlags
	SanityCheckFailed bool
}

func (r *sendRawTxResponse) write(w *epeejson.Writer) {
	f := r.Flags
	w.BeginObject()
	w.KeyUint("credits", 0)
	w.KeyBool("double_spend", f&consensus.FlagDoubleSpend != 0)
	w.KeyBool("fee_too_low", f&consensus.FlagFeeTooLow != 0)
	w.KeyBool("invalid_input", f&consensus.FlagInvalidInput != 0)
	w.KeyBool("invalid_output", f&consensus.FlagInvalidOutput != 0)
	w.KeyBool("low_mixin", f&consensus.FlagLowMixin != 0)
	w.KeyBool("nonzero_unlock_time", f&consensus.FlagNonzeroUnlockTime != 0)
	w.KeyBool("not_relayed", r.NotRelayed)
	w.KeyBool("overspend", f&consensus.FlagOverspend != 0)
	w.KeyString("reason", r.Reason)
	w.KeyBool("sanity_check_failed", r.SanityCheckFailed)
	w.KeyString("status", r.Status)
	w.KeyBool("too_big", f&consensus.FlagTooBig != 0)
	w.KeyBool("too_few_outputs", f&consensus.FlagTooFewOutputs != 0)
	w.KeyString("top_hash", "")
	w.KeyBool("tx_extra_too_big", f&consensus.FlagTxExtraTooBig != 0)
	w.KeyBool("untrusted", false)
	w.EndObject()
}

// serveSendRawTx is /sendrawtransaction (and /send_raw_transaction):
// core_rpc_server::on_send_raw_tx of monerod 0.18.5.3. A refused transaction
// gets status "Failed" with the verification flags set (monerod leaves
// "reason" empty then); an accepted one "OK", with "Not relayed" when
// do_not_relay was asked or the node already had it.
func (s *Server) serveSendRawTx(req *httpd.Request) httpd.Response {
	var p requestParams
	if len(bytes.TrimSpace(req.Body)) > 0 {
		v, err := epeejson.Parse(req.Body)
		if err != nil {
			return httpd.Response{Status: 400, ContentType: "text/plain"}
		}
		p = newParams(v, true)
	}
	var in sendRawTxRequest
	var e *Error
	if in.TxAsHex, e = p.String("tx_as_hex"); e != nil {
		return httpd.Response{Status: 400, ContentType: "text/plain"}
	}
	if in.DoNotRelay, e = p.Bool("do_not_relay"); e != nil {
		return httpd.Response{Status: 400, ContentType: "text/plain"}
	}
	if in.DoSanityChecks, e = rpctypes.Convert(p, "do_sanity_checks", true, epeejson.Value.AsBool); e != nil {
		return httpd.Response{Status: 400, ContentType: "text/plain"}
	}
	out := s.sendRawTx(&in)
	w := epeejson.NewWriter(make([]byte, 0, 512))
	out.write(w)
	return jsonResponse(w)
}

func (s *Server) sendRawTx(in *sendRawTxRequest) *sendRawTxResponse {
	if !s.peers.Synchronized() {
		return &sendRawTxResponse{Status: statusBusy}
	}
	if s.pool == nil {
		return &sendRawTxResponse{Status: "Failed"}
	}
	blob, err := hex.DecodeString(in.TxAsHex)
	if err != nil {
		s.log.Info("sendrawtransaction: failed to parse tx from hex")
		return &sendRawTxResponse{Status: "Failed"}
	}
	if in.DoSanityChecks && !txpool.SanityCheck(blob, s.chain.MatureOutputs(0)) {
		return &sendRawTxResponse{Status: "Failed", Reason: "Sanity check failed", SanityCheckFailed: true}
	}
	entry, err := s.pool.Add(blob, txpool.AddOptions{Source: txpool.SourceRPC, DoNotRelay: in.DoNotRelay})
	switch {
	case errors.Is(err, txpool.ErrAlreadyInPool), errors.Is(err, txpool.ErrAlreadyInChain):
		// monerod's handle_incoming_tx succeeds without adding: nothing is
		// relayed, and the answer says so.
		return &sendRawTxResponse{Status: statusOK, Reason: "Not relayed", NotRelayed: true}
	case err != nil:
		flags := consensus.FlagsOf(err)
		s.log.Info("sendrawtransaction: tx verification failed", "reason", flags.Reason(), "err", err)
		return &sendRawTxResponse{Status: "Failed", Flags: flags}
	case entry.DoNotRelay:
		s.log.Info("sendrawtransaction: tx accepted, but not relayed", "tx", entry.ID)
		return &sendRawTxResponse{Status: statusOK, Reason: "Not relayed", NotRelayed: true}
	}
	s.log.Info("sendrawtransaction: tx accepted", "tx", entry.ID, "fee", entry.Fee, "weight", entry.Weight)
	return &sendRawTxResponse{Status: statusOK}
}

// Status strings (CORE_RPC_STATUS_*).
const (
	statusOK   = "OK"
	statusBusy = "BUSY"
)

// servePoolHashes is /get_transaction_pool_hashes: the pool's transaction
// ids as hex strings (an empty list is not printed, as epee omits empty
// arrays).
func (s *Server) servePoolHashes(req *httpd.Request) httpd.Response {
	return s.poolHashesAnswer(req, func(w *epeejson.Writer, ids []cryptonote.Hash) {
		w.Key("tx_hashes")
		w.BeginArray()
		for _, id := range ids {
			w.String(id.String())
		}
		w.EndArray()
	})
}

// servePoolHashesBin is /get_transaction_pool_hashes.bin, which despite its
// name is a JSON endpoint: the ids as one string of their raw bytes
// (KV_SERIALIZE_CONTAINER_POD_AS_BLOB).
func (s *Server) servePoolHashesBin(req *httpd.Request) httpd.Response {
	return s.poolHashesAnswer(req, func(w *epeejson.Writer, ids []cryptonote.Hash) {
		raw := make([]byte, 0, 32*len(ids))
		for _, id := range ids {
			raw = append(raw, id[:]...)
		}
		w.KeyString("tx_hashes", string(raw))
	})
}

// poolHashesAnswer writes the answer both pool-hash endpoints share, with
// writeIDs printing the (non-empty) id list in the endpoint's form.
func (s *Server) poolHashesAnswer(req *httpd.Request, writeIDs func(*epeejson.Writer, []cryptonote.Hash)) httpd.Response {
	w := epeejson.NewWriter(make([]byte, 0, 256))
	w.BeginObject()
	w.KeyUint("credits", 0)
	w.KeyString("status", statusOK)
	w.KeyString("top_hash", "")
	if ids := s.poolHashes(req.Restricted); len(ids) > 0 {
		writeIDs(w, ids)
	}
	w.KeyBool("untrusted", false)
	w.EndObject()
	return jsonResponse(w)
}

// poolHashes lists the pool in monerod's table order (visiblePool); a
// restricted listener does not see transactions kept back from relaying or
// stemmed (allow_sensitive false).
func (s *Server) poolHashes(restricted bool) []cryptonote.Hash {
	var ids []cryptonote.Hash
	for _, e := range s.visiblePool(restricted) {
		ids = append(ids, e.ID)
	}
	return ids
}

func init() {
	registerPath((*Server).serveSendRawTx, "/sendrawtransaction", "/send_raw_transaction")
	registerPath((*Server).servePoolHashes, "/get_transaction_pool_hashes")
	registerPath((*Server).servePoolHashesBin, "/get_transaction_pool_hashes.bin")
}
