package rpctypes

import (
	"encoding/binary"

	"github.com/gonero/gonero/epeejson"
)

// TxInfo is one element of /get_transaction_pool's "transactions"
// (struct tx_info, core_rpc_server_commands_defs.h).
type TxInfo struct {
	IDHash             string `json:"id_hash"`
	TxJSON             string `json:"tx_json"`
	BlobSize           uint64 `json:"blob_size"`
	Weight             uint64 `json:"weight"`
	Fee                uint64 `json:"fee"`
	MaxUsedBlockIDHash string `json:"max_used_block_id_hash"`
	MaxUsedBlockHeight uint64 `json:"max_used_block_height"`
	KeptByBlock        bool   `json:"kept_by_block"`
	LastFailedHeight   uint64 `json:"last_failed_height"`
	LastFailedIDHash   string `json:"last_failed_id_hash"`
	ReceiveTime        uint64 `json:"receive_time"`
	Relayed            bool   `json:"relayed"`
	LastRelayedTime    uint64 `json:"last_relayed_time"`
	DoNotRelay         bool   `json:"do_not_relay"`
	DoubleSpendSeen    bool   `json:"double_spend_seen"`
	TxBlobHex          string `json:"tx_blob"`
}

// Write writes the entry.
func (t *TxInfo) Write(w *epeejson.Writer) {
	w.BeginObject()
	w.KeyUint("blob_size", t.BlobSize)
	w.KeyBool("do_not_relay", t.DoNotRelay)
	w.KeyBool("double_spend_seen", t.DoubleSpendSeen)
	w.KeyUint("fee", t.Fee)
	w.KeyString("id_hash", t.IDHash)
	w.KeyBool("kept_by_block", t.KeptByBlock)
	w.KeyUint("last_failed_height", t.LastFailedHeight)
	w.KeyString("last_failed_id_hash", t.LastFailedIDHash)
	w.KeyUint("last_relayed_time", t.LastRelayedTime)
	w.KeyUint("max_used_block_height", t.MaxUsedBlockHeight)
	w.KeyString("max_used_block_id_hash", t.MaxUsedBlockIDHash)
	w.KeyUint("receive_time", t.ReceiveTime)
	w.KeyBool("relayed", t.Relayed)
	w.KeyString("tx_blob", t.TxBlobHex)
	w.KeyString("tx_json", t.TxJSON)
	w.KeyUint("weight", t.Weight)
	w.EndObject()
}

// SpentKeyImageInfo is one element of "spent_key_images" (struct
// spent_key_image_info, core_rpc_server_commands_defs.h).
type SpentKeyImageInfo struct {
	IDHash    string   `json:"id_hash"`
	TxsHashes []string `json:"txs_hashes"`
}

// Write writes the entry.
func (k *SpentKeyImageInfo) Write(w *epeejson.Writer) {
	w.BeginObject()
	w.KeyString("id_hash", k.IDHash)
	if len(k.TxsHashes) > 0 {
		w.Key("txs_hashes")
		w.BeginArray()
		for _, h := range k.TxsHashes {
			w.String(h)
		}
		w.EndArray()
	}
	w.EndObject()
}

// GetTransactionPoolResponse is /get_transaction_pool's answer
// (COMMAND_RPC_GET_TRANSACTION_POOL::response, core_rpc_server_commands_defs.h);
// its status is always OK.
type GetTransactionPoolResponse struct {
	Transactions   []TxInfo            `json:"transactions"`
	SpentKeyImages []SpentKeyImageInfo `json:"spent_key_images"`
}

// Write writes the answer.
func (r *GetTransactionPoolResponse) Write(w *epeejson.Writer) {
	w.BeginObject()
	WriteCredits(w)
	if len(r.SpentKeyImages) > 0 {
		w.Key("spent_key_images")
		w.BeginArray()
		for i := range r.SpentKeyImages {
			r.SpentKeyImages[i].Write(w)
		}
		w.EndArray()
	}
	w.KeyString("status", StatusOK)
	w.KeyString("top_hash", "")
	if len(r.Transactions) > 0 {
		w.Key("transactions")
		w.BeginArray()
		for i := range r.Transactions {
			r.Transactions[i].Write(w)
		}
		w.EndArray()
	}
	WriteUntrusted(w)
	w.EndObject()
}

// TxpoolHisto is one bin of pool_stats.histo (struct txpool_histo,
// core_rpc_server_commands_defs.h).
type TxpoolHisto struct {
	Txs   uint64 `json:"txs"` // uint32_t in monerod
	Bytes uint64 `json:"bytes"`
}

// TxpoolStats is struct txpool_stats (core_rpc_server_commands_defs.h).
type TxpoolStats struct {
	BytesTotal      uint64        `json:"bytes_total"`
	BytesMin        uint64        `json:"bytes_min"` // uint32_t
	BytesMax        uint64        `json:"bytes_max"` // uint32_t
	BytesMed        uint64        `json:"bytes_med"` // uint32_t
	FeeTotal        uint64        `json:"fee_total"`
	Oldest          uint64        `json:"oldest"`
	TxsTotal        uint64        `json:"txs_total"` // uint32_t
	NumFailing      uint64        `json:"num_failing"`
	Num10m          uint64        `json:"num_10m"`
	NumNotRelayed   uint64        `json:"num_not_relayed"`
	Histo98pc       uint64        `json:"histo_98pc"`
	Histo           []TxpoolHisto `json:"histo"`
	NumDoubleSpends uint64        `json:"num_double_spends"`
}

// GetTransactionPoolStatsResponse is /get_transaction_pool_stats' answer
// (COMMAND_RPC_GET_TRANSACTION_POOL_STATS::response,
// core_rpc_server_commands_defs.h), as a client reads it; WritePoolStats
// writes it.
type GetTransactionPoolStatsResponse struct {
	Status    string      `json:"status"`
	PoolStats TxpoolStats `json:"pool_stats"`
}

// Write writes pool_stats.
func (st *TxpoolStats) Write(w *epeejson.Writer) {
	w.BeginObject()
	w.KeyUint("bytes_max", st.BytesMax)
	w.KeyUint("bytes_med", st.BytesMed)
	w.KeyUint("bytes_min", st.BytesMin)
	w.KeyUint("bytes_total", st.BytesTotal)
	w.KeyUint("fee_total", st.FeeTotal)
	if len(st.Histo) > 0 {
		w.Key("histo")
		w.BeginArray()
		for _, h := range st.Histo {
			w.BeginObject()
			w.KeyUint("bytes", h.Bytes)
			w.KeyUint("txs", h.Txs)
			w.EndObject()
		}
		w.EndArray()
	}
	w.KeyUint("histo_98pc", st.Histo98pc)
	w.KeyUint("num_10m", st.Num10m)
	w.KeyUint("num_double_spends", st.NumDoubleSpends)
	w.KeyUint("num_failing", st.NumFailing)
	w.KeyUint("num_not_relayed", st.NumNotRelayed)
	w.KeyUint("oldest", st.Oldest)
	w.KeyUint("txs_total", st.TxsTotal)
	w.EndObject()
}

// WritePoolStats writes /get_transaction_pool_stats' answer.
func WritePoolStats(w *epeejson.Writer, st *TxpoolStats) {
	w.BeginObject()
	WriteCredits(w)
	w.Key("pool_stats")
	st.Write(w)
	w.KeyString("status", StatusOK)
	w.KeyString("top_hash", "")
	WriteUntrusted(w)
	w.EndObject()
}

// BacklogEntry is struct tx_backlog_entry (core_rpc_server_commands_defs.h): sent as a blob of 24-byte
// records (KV_SERIALIZE_CONTAINER_POD_AS_BLOB), three uint64 LE each.
type BacklogEntry struct {
	Weight, Fee, TimeInPool uint64
}

// BacklogBlob is get_txpool_backlog's backlog member.
func BacklogBlob(entries []BacklogEntry) string {
	b := make([]byte, 0, 24*len(entries))
	for _, e := range entries {
		b = binary.LittleEndian.AppendUint64(b, e.Weight)
		b = binary.LittleEndian.AppendUint64(b, e.Fee)
		b = binary.LittleEndian.AppendUint64(b, e.TimeInPool)
	}
	return string(b)
}

// ParseTxids reads the "txids" list of flush_txpool and relay_tx
// (COMMAND_RPC_FLUSH_TRANSACTION_POOL::request, COMMAND_RPC_RELAY_TX::request).
func ParseTxids(p Params) ([]string, *Error) {
	return p.Strings("txids")
}
