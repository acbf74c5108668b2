package rpc

import (
	"encoding/binary"

	"github.com/gonero/gonero/epeejson"
)

// txInfo is one element of /get_transaction_pool's "transactions"
// (struct tx_info).
type txInfo struct {
	IDHash             string
	TxJSON             string
	BlobSize           uint64
	Weight             uint64
	Fee                uint64
	MaxUsedBlockIDHash string
	MaxUsedBlockHeight uint64
	KeptByBlock        bool
	LastFailedHeight   uint64
	LastFailedIDHash   string
	ReceiveTime        uint64
	Relayed            bool
	LastRelayedTime    uint64
	DoNotRelay         bool
	DoubleSpendSeen    bool
	TxBlobHex          string
}

func (t *txInfo) write(w *epeejson.Writer) {
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

// spentKeyImageInfo is one element of "spent_key_images".
type spentKeyImageInfo struct {
	IDHash    string
	TxsHashes []string
}

func (k *spentKeyImageInfo) write(w *epeejson.Writer) {
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

type getTransactionPoolResponse struct {
	Transactions   []txInfo
	SpentKeyImages []spentKeyImageInfo
}

func (r *getTransactionPoolResponse) write(w *epeejson.Writer) {
	w.BeginObject()
	writeCredits(w)
	if len(r.SpentKeyImages) > 0 {
		w.Key("spent_key_images")
		w.BeginArray()
		for i := range r.SpentKeyImages {
			r.SpentKeyImages[i].write(w)
		}
		w.EndArray()
	}
	w.KeyString("status", statusOK)
	w.KeyString("top_hash", "")
	if len(r.Transactions) > 0 {
		w.Key("transactions")
		w.BeginArray()
		for i := range r.Transactions {
			r.Transactions[i].write(w)
		}
		w.EndArray()
	}
	writeUntrusted(w)
	w.EndObject()
}

// txpoolHisto is one bin of pool_stats.histo.
type txpoolHisto struct {
	Txs   uint64 // uint32_t in monerod
	Bytes uint64
}

// txpoolStats is struct txpool_stats.
type txpoolStats struct {
	BytesTotal      uint64
	BytesMin        uint64 // uint32_t
	BytesMax        uint64 // uint32_t
	BytesMed        uint64 // uint32_t
	FeeTotal        uint64
	Oldest          uint64
	TxsTotal        uint64 // uint32_t
	NumFailing      uint64
	Num10m          uint64
	NumNotRelayed   uint64
	Histo98pc       uint64
	Histo           []txpoolHisto
	NumDoubleSpends uint64
}

func (st *txpoolStats) write(w *epeejson.Writer) {
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

func writePoolStats(w *epeejson.Writer, st *txpoolStats) {
	w.BeginObject()
	writeCredits(w)
	w.Key("pool_stats")
	st.write(w)
	w.KeyString("status", statusOK)
	w.KeyString("top_hash", "")
	writeUntrusted(w)
	w.EndObject()
}

// backlogEntry is struct tx_backlog_entry: sent as a blob of 24-byte
// records (KV_SERIALIZE_CONTAINER_POD_AS_BLOB), three uint64 LE each.
type backlogEntry struct {
	Weight, Fee, TimeInPool uint64
}

func backlogBlob(entries []backlogEntry) string {
	b := make([]byte, 0, 24*len(entries))
	for _, e := range entries {
		b = binary.LittleEndian.AppendUint64(b, e.Weight)
		b = binary.LittleEndian.AppendUint64(b, e.Fee)
		b = binary.LittleEndian.AppendUint64(b, e.TimeInPool)
	}
	return string(b)
}

// txidsRequest reads the "txids" list of flush_txpool and relay_tx.
func txidsRequest(p requestParams) ([]string, *Error) {
	return p.Strings("txids")
}
