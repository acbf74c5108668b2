package rpctypes

import (
	"github.com/gonero/gonero/epeejson"
)

// GetTransactionsRequest is /gettransactions' request
// (COMMAND_RPC_GET_TRANSACTIONS::request, core_rpc_server_commands_defs.h).
type GetTransactionsRequest struct {
	TxsHashes    []string `json:"txs_hashes"`
	DecodeAsJSON bool     `json:"decode_as_json"`
	Prune        bool     `json:"prune"`
	Split        bool     `json:"split"`
}

// ParseGetTransactions loads the request; false means a member of the
// wrong type (400).
func ParseGetTransactions(p Params) (GetTransactionsRequest, bool) {
	var r GetTransactionsRequest
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

// TxEntry is one element of gettransactions' "txs"
// (COMMAND_RPC_GET_TRANSACTIONS::entry, core_rpc_server_commands_defs.h):
// a mined transaction has block_height, confirmations, block_timestamp
// and output_indices; a pool one relayed and received_timestamp.
type TxEntry struct {
	TxHash          string `json:"tx_hash"`
	AsHex           string `json:"as_hex"`
	PrunedAsHex     string `json:"pruned_as_hex"`
	PrunableAsHex   string `json:"prunable_as_hex"`
	PrunableHash    string `json:"prunable_hash"`
	AsJSON          string `json:"as_json"`
	InPool          bool   `json:"in_pool"`
	DoubleSpendSeen bool   `json:"double_spend_seen"`
	// mined
	BlockHeight    uint64   `json:"block_height"`
	Confirmations  uint64   `json:"confirmations"`
	BlockTimestamp uint64   `json:"block_timestamp"`
	OutputIndices  []uint64 `json:"output_indices"`
	// pool
	Relayed           bool   `json:"relayed"`
	ReceivedTimestamp uint64 `json:"received_timestamp"`
}

// Write writes the entry.
func (e *TxEntry) Write(w *epeejson.Writer) {
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

// GetTransactionsResponse is /gettransactions' answer
// (COMMAND_RPC_GET_TRANSACTIONS::response, core_rpc_server_commands_defs.h): the legacy txs_as_hex (one per
// found transaction) and txs_as_json (with decode_as_json), txs, missed_tx.
type GetTransactionsResponse struct {
	Status   string    `json:"status"`
	Txs      []TxEntry `json:"txs"`
	MissedTx []string  `json:"missed_tx"`
	// TxsAsHex and TxsAsJSON are read by clients; the writer prints them
	// from Txs.
	TxsAsHex   []string `json:"txs_as_hex"`
	TxsAsJSON  []string `json:"txs_as_json"`
	WithJSON   bool     `json:"-"`
	OnlyStatus bool     `json:"-"` // a refusal: nothing but the status
}

// Write writes the answer.
func (r *GetTransactionsResponse) Write(w *epeejson.Writer) {
	w.BeginObject()
	WriteCredits(w)
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
			r.Txs[i].Write(w)
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
	WriteUntrusted(w)
	w.EndObject()
}

// IsKeyImageSpentRequest is /is_key_image_spent's request
// (COMMAND_RPC_IS_KEY_IMAGE_SPENT::request, core_rpc_server_commands_defs.h).
type IsKeyImageSpentRequest struct {
	KeyImages []string `json:"key_images"`
}

// ParseIsKeyImageSpent loads the request; false means a member of the
// wrong type (400).
func ParseIsKeyImageSpent(p Params) (IsKeyImageSpentRequest, bool) {
	var r IsKeyImageSpentRequest
	var e *Error
	if r.KeyImages, e = p.Strings("key_images"); e != nil {
		return r, false
	}
	return r, true
}

// Spent states (COMMAND_RPC_IS_KEY_IMAGE_SPENT::STATUS).
const (
	KeyImageUnspent = 0
	KeyImageInChain = 1
	KeyImageInPool  = 2
)

// IsKeyImageSpentResponse is its answer
// (COMMAND_RPC_IS_KEY_IMAGE_SPENT::response, core_rpc_server_commands_defs.h).
type IsKeyImageSpentResponse struct {
	Status      string   `json:"status"`
	SpentStatus []uint64 `json:"spent_status"`
}

// Write writes the answer.
func (r *IsKeyImageSpentResponse) Write(w *epeejson.Writer) {
	w.BeginObject()
	WriteCredits(w)
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
	WriteUntrusted(w)
	w.EndObject()
}
