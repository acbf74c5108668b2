package rpc

import (
	"bytes"

	"github.com/gonero/gonero/epeejson"
	"github.com/gonero/gonero/httpd"
)

// pathRequest reads the JSON body of a plain-path endpoint the way
// monerod's MAP_URI_AUTO_JON2 does: an empty body is an empty request; a
// body that does not parse, or a "client" of the wrong type, is a 400.
func pathRequest(req *httpd.Request) (requestParams, bool) {
	var p requestParams
	if len(bytes.TrimSpace(req.Body)) == 0 {
		return p, true
	}
	v, err := epeejson.Parse(req.Body)
	if err != nil {
		return p, false
	}
	p = newParams(v, true)
	if _, e := p.String("client"); e != nil {
		return p, false
	}
	return p, true
}

// getTransactionsRequest is COMMAND_RPC_GET_TRANSACTIONS' request.
type getTransactionsRequest struct {
	TxsHashes    []string
	DecodeAsJSON bool
	Prune        bool
	Split        bool
}

// parseGetTransactions loads the request; false means a member of the
// wrong type (400).
func parseGetTransactions(p requestParams) (getTransactionsRequest, bool) {
	var r getTransactionsRequest
	var e *Error
	if r.TxsHashes, e = p.Strings("txs_hashes"); e != nil {
		return r, false
	}
	if r.DecodeAsJSON, e = p.Bool("decode_as_json"); e != nil {
		return r, false
	}
	if r.Prune, e = p.Bool("prune"); e != nil {
		return r, false
	}
	if r.Split, e = p.Bool("split"); e != nil {
		return r, false
	}
	return r, true
}

// txEntry is one element of gettransactions' "txs" (its entry struct):
// a mined transaction has block_height, confirmations, block_timestamp
// and output_indices; a pool one relayed and received_timestamp.
type txEntry struct {
	TxHash          string
	AsHex           string
	PrunedAsHex     string
	PrunableAsHex   string
	PrunableHash    string
	AsJSON          string
	InPool          bool
	DoubleSpendSeen bool
	// mined
	BlockHeight    uint64
	Confirmations  uint64
	BlockTimestamp uint64
	OutputIndices  []uint64
	// pool
	Relayed           bool
	ReceivedTimestamp uint64
}

func (e *txEntry) write(w *epeejson.Writer) {
	w.BeginObject()
	w.KeyString("as_hex", e.AsHex)
	w.KeyString("as_json", e.AsJSON)
	if !e.InPool {
		w.KeyUint("block_height", e.BlockHeight)
		w.KeyUint("block_timestamp", e.BlockTimestamp)
		w.KeyUint("confirmations", e.Confirmations)
	}
	w.KeyBool("double_spend_seen", e.DoubleSpendSeen)
	w.KeyBool("in_pool", e.InPool)
	if !e.InPool && len(e.OutputIndices) > 0 {
		w.Key("output_indices")
		w.BeginArray()
		for _, i := range e.OutputIndices {
			w.Uint(i)
		}
		w.EndArray()
	}
	w.KeyString("prunable_as_hex", e.PrunableAsHex)
	w.KeyString("prunable_hash", e.PrunableHash)
	w.KeyString("pruned_as_hex", e.PrunedAsHex)
	if e.InPool {
		w.KeyUint("received_timestamp", e.ReceivedTimestamp)
		w.KeyBool("relayed", e.Relayed)
	}
	w.KeyString("tx_hash", e.TxHash)
	w.EndObject()
}

// getTransactionsResponse is the answer: the legacy txs_as_hex (one per
// found transaction) and txs_as_json (with decode_as_json), txs, missed_tx.
type getTransactionsResponse struct {
	Status     string
	Txs        []txEntry
	MissedTx   []string
	WithJSON   bool
	OnlyStatus bool // a refusal: nothing but the status
}

func (r *getTransactionsResponse) write(w *epeejson.Writer) {
	w.BeginObject()
	writeCredits(w)
	if !r.OnlyStatus && len(r.MissedTx) > 0 {
		w.Key("missed_tx")
		w.BeginArray()
		for _, h := range r.MissedTx {
			w.String(h)
		}
		w.EndArray()
	}
	w.KeyString("status", r.Status)
	w.KeyString("top_hash", "")
	if !r.OnlyStatus && len(r.Txs) > 0 {
		w.Key("txs")
		w.BeginArray()
		for i := range r.Txs {
			r.Txs[i].write(w)
		}
		w.EndArray()
		w.Key("txs_as_hex")
		w.BeginArray()
		for i := range r.Txs {
			w.String(r.Txs[i].AsHex)
		}
		w.EndArray()
		if r.WithJSON {
			w.Key("txs_as_json")
			w.BeginArray()
			for i := range r.Txs {
				w.String(r.Txs[i].AsJSON)
			}
			w.EndArray()
		}
	}
	writeUntrusted(w)
	w.EndObject()
}

// isKeyImageSpentRequest is COMMAND_RPC_IS_KEY_IMAGE_SPENT's request.
type isKeyImageSpentRequest struct {
	KeyImages []string
}

func parseIsKeyImageSpent(p requestParams) (isKeyImageSpentRequest, bool) {
	var r isKeyImageSpentRequest
	var e *Error
	if r.KeyImages, e = p.Strings("key_images"); e != nil {
		return r, false
	}
	return r, true
}

// Spent states (COMMAND_RPC_IS_KEY_IMAGE_SPENT::STATUS).
const (
	keyImageUnspent = 0
	keyImageInChain = 1
	keyImageInPool  = 2
)

type isKeyImageSpentResponse struct {
	Status      string
	SpentStatus []uint64
}

func (r *isKeyImageSpentResponse) write(w *epeejson.Writer) {
	w.BeginObject()
	writeCredits(w)
	if len(r.SpentStatus) > 0 {
		w.Key("spent_status")
		w.BeginArray()
		for _, s := range r.SpentStatus {
			w.Uint(s)
		}
		w.EndArray()
	}
	w.KeyString("status", r.Status)
	w.KeyString("top_hash", "")
	writeUntrusted(w)
	w.EndObject()
}
