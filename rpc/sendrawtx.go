package rpc

import (
	"encoding/hex"
	"errors"

	"github.com/gonero/gonero/consensus"
	"github.com/gonero/gonero/cryptonote"
	"github.com/gonero/gonero/epeejson"
	"github.com/gonero/gonero/httpd"
	"github.com/gonero/gonero/rpctypes"
	"github.com/gonero/gonero/txpool"
)

// txFlagsAnswer is a refusal's answer: status Failed with the
// verification flags set (monerod leaves reason empty then).
func txFlagsAnswer(f consensus.TxFlags) *rpctypes.SendRawTxResponse {
	return &rpctypes.SendRawTxResponse{Status: "Failed",
		DoubleSpend: f&consensus.FlagDoubleSpend != 0, FeeTooLow: f&consensus.FlagFeeTooLow != 0,
		InvalidInput: f&consensus.FlagInvalidInput != 0, InvalidOutput: f&consensus.FlagInvalidOutput != 0,
		LowMixin: f&consensus.FlagLowMixin != 0, NonzeroUnlockTime: f&consensus.FlagNonzeroUnlockTime != 0,
		Overspend: f&consensus.FlagOverspend != 0, TooBig: f&consensus.FlagTooBig != 0,
		TooFewOutputs: f&consensus.FlagTooFewOutputs != 0, TxExtraTooBig: f&consensus.FlagTxExtraTooBig != 0}
}

// serveSendRawTx is /sendrawtransaction (and /send_raw_transaction):
// core_rpc_server::on_send_raw_tx of monerod 0.18.5.3. A refused transaction
// gets status "Failed" with the verification flags set (monerod leaves
// "reason" empty then); an accepted one "OK", with "Not relayed" when
// do_not_relay was asked or the node already had it.
func (s *Server) serveSendRawTx(req *httpd.Request) httpd.Response {
	in, ok := rpctypes.ParseSendRawTxRequest(req.Body)
	if !ok {
		return httpd.Response{Status: 400, ContentType: "text/plain"}
	}
	out := s.sendRawTx(&in)
	w := epeejson.NewWriter(make([]byte, 0, 512))
	out.Write(w)
	return jsonResponse(w)
}

func (s *Server) sendRawTx(in *rpctypes.SendRawTxRequest) *rpctypes.SendRawTxResponse {
	if !s.peers.Synchronized() {
		return &rpctypes.SendRawTxResponse{Status: statusBusy}
	}
	if s.pool == nil {
		return &rpctypes.SendRawTxResponse{Status: "Failed"}
	}
	blob, err := hex.DecodeString(in.TxAsHex)
	if err != nil {
		s.log.Info("sendrawtransaction: failed to parse tx from hex")
		return &rpctypes.SendRawTxResponse{Status: "Failed"}
	}
	if in.DoSanityChecks && !txpool.SanityCheck(blob, s.chain.MatureOutputs(0)) {
		return &rpctypes.SendRawTxResponse{Status: "Failed", Reason: "Sanity check failed", SanityCheckFailed: true}
	}
	entry, err := s.pool.Add(blob, txpool.AddOptions{Source: txpool.SourceRPC, DoNotRelay: in.DoNotRelay})
	switch {
	case errors.Is(err, txpool.ErrAlreadyInPool), errors.Is(err, txpool.ErrAlreadyInChain):
		// monerod's handle_incoming_tx succeeds without adding: nothing is
		// relayed, and the answer says so.
		return &rpctypes.SendRawTxResponse{Status: statusOK, Reason: "Not relayed", NotRelayed: true}
	case err != nil:
		flags := consensus.FlagsOf(err)
		s.log.Info("sendrawtransaction: tx verification failed", "reason", flags.Reason(), "err", err)
		return txFlagsAnswer(flags)
	case entry.DoNotRelay:
		s.log.Info("sendrawtransaction: tx accepted, but not relayed", "tx", entry.ID)
		return &rpctypes.SendRawTxResponse{Status: statusOK, Reason: "Not relayed", NotRelayed: true}
	}
	s.log.Info("sendrawtransaction: tx accepted", "tx", entry.ID, "fee", entry.Fee, "weight", entry.Weight)
	return &rpctypes.SendRawTxResponse{Status: statusOK}
}

// Status strings (CORE_RPC_STATUS_*).
const (
	statusOK   = rpctypes.StatusOK
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
		// An id in the answer: 64 hex digits and quotes, or 32 bytes
		// escaped; and the id gathered.
		if claim := (answerClaim{req: req}); !claim.addItems(uint64(len(ids)), idAnswerBytes) {
			return s.busyAnswer(req)
		}
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

// sendRawTxEndpoints are transaction submission and the pool's hashes (endpoints.go).
func sendRawTxEndpoints() []endpoint {
	return []endpoint{
		{names: []string{"/sendrawtransaction", "/send_raw_transaction"}, access: accessPublic, path: (*Server).serveSendRawTx},
		// Capped: do-not-relay and stem-phase transactions are left out.
		{names: []string{"/get_transaction_pool_hashes"}, access: accessCapped, path: (*Server).servePoolHashes},
		{names: []string{"/get_transaction_pool_hashes.bin"}, access: accessCapped, path: (*Server).servePoolHashesBin},
	}
}
