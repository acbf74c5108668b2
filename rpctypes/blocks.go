package rpctypes

import "github.com/gonero/gonero/epeejson"

// BlockHeader is a block_header object (struct block_header_response,
// core_rpc_server_commands_defs.h) of getblock, getblockheaderbyhash,
// getblockheaderbyheight, getlastblockheader and getblockheadersrange.
// block_weight and long_term_weight are left out while 0, as monerod's
// KV_SERIALIZE_OPT does.
type BlockHeader struct {
	BlockSize                 uint64 `json:"block_size"`
	BlockWeight               uint64 `json:"block_weight"`
	CumulativeDifficulty      uint64 `json:"cumulative_difficulty"`
	CumulativeDifficultyTop64 uint64 `json:"cumulative_difficulty_top64"`
	Depth                     uint64 `json:"depth"`
	Difficulty                uint64 `json:"difficulty"`
	DifficultyTop64           uint64 `json:"difficulty_top64"`
	Hash                      string `json:"hash"`
	Height                    uint64 `json:"height"`
	LongTermWeight            uint64 `json:"long_term_weight"`
	MajorVersion              uint8  `json:"major_version"`
	MinerTxHash               string `json:"miner_tx_hash"`
	MinorVersion              uint8  `json:"minor_version"`
	Nonce                     uint32 `json:"nonce"`
	NumTxes                   uint64 `json:"num_txes"`
	OrphanStatus              bool   `json:"orphan_status"`
	PowHash                   string `json:"pow_hash"`
	PrevHash                  string `json:"prev_hash"`
	Reward                    uint64 `json:"reward"`
	Timestamp                 uint64 `json:"timestamp"`
	WideCumulativeDifficulty  string `json:"wide_cumulative_difficulty"`
	WideDifficulty            string `json:"wide_difficulty"`
}

// Write writes the 22 members in monerod's (sorted) order.
func (h *BlockHeader) Write(w *epeejson.Writer) {
	w.BeginObject()
	w.KeyUint("block_size", h.BlockSize)
	if h.BlockWeight != 0 {
		w.KeyUint("block_weight", h.BlockWeight)
	}
	w.KeyUint("cumulative_difficulty", h.CumulativeDifficulty)
	w.KeyUint("cumulative_difficulty_top64", h.CumulativeDifficultyTop64)
	w.KeyUint("depth", h.Depth)
	w.KeyUint("difficulty", h.Difficulty)
	w.KeyUint("difficulty_top64", h.DifficultyTop64)
	w.KeyString("hash", h.Hash)
	w.KeyUint("height", h.Height)
	if h.LongTermWeight != 0 {
		w.KeyUint("long_term_weight", h.LongTermWeight)
	}
	w.KeyUint("major_version", uint64(h.MajorVersion))
	w.KeyString("miner_tx_hash", h.MinerTxHash)
	w.KeyUint("minor_version", uint64(h.MinorVersion))
	w.KeyUint("nonce", uint64(h.Nonce))
	w.KeyUint("num_txes", h.NumTxes)
	w.KeyBool("orphan_status", h.OrphanStatus)
	w.KeyString("pow_hash", h.PowHash)
	w.KeyString("prev_hash", h.PrevHash)
	w.KeyUint("reward", h.Reward)
	w.KeyUint("timestamp", h.Timestamp)
	w.KeyString("wide_cumulative_difficulty", h.WideCumulativeDifficulty)
	w.KeyString("wide_difficulty", h.WideDifficulty)
	w.EndObject()
}

// BlockHeaderResponse is the answer of the header methods
// (COMMAND_RPC_GET_BLOCK_HEADER_BY_HASH::response and the others):
// block_header, and the block_headers list of getblockheaderbyhash's
// hashes (omitted when empty).
type BlockHeaderResponse struct {
	BlockHeader  BlockHeader   `json:"block_header"`
	BlockHeaders []BlockHeader `json:"block_headers"`
	Status       string        `json:"status"`
}

// Write writes the answer.
func (r *BlockHeaderResponse) Write(w *epeejson.Writer) {
	w.BeginObject()
	w.Key("block_header")
	r.BlockHeader.Write(w)
	WriteList(w, "block_headers", r.BlockHeaders, (*BlockHeader).Write)
	WriteCredits(w)
	WriteStatusTail(w, r.Status)
	WriteUntrusted(w)
	w.EndObject()
}

// GetBlockResponse is getblock's answer (COMMAND_RPC_GET_BLOCK::response,
// core_rpc_server_commands_defs.h); its status is always OK.
type GetBlockResponse struct {
	Blob        string      `json:"blob"`
	BlockHeader BlockHeader `json:"block_header"`
	JSON        string      `json:"json"`
	MinerTxHash string      `json:"miner_tx_hash"`
	TxHashes    []string    `json:"tx_hashes"` // omitted when empty
}

// Write writes the answer.
func (r *GetBlockResponse) Write(w *epeejson.Writer) {
	w.BeginObject()
	w.KeyString("blob", r.Blob)
	w.Key("block_header")
	r.BlockHeader.Write(w)
	WriteCredits(w)
	w.KeyString("json", r.JSON)
	w.KeyString("miner_tx_hash", r.MinerTxHash)
	WriteStatusTail(w, StatusOK)
	if len(r.TxHashes) > 0 {
		w.Key("tx_hashes")
		w.BeginArray()
		for _, h := range r.TxHashes {
			w.String(h)
		}
		w.EndArray()
	}
	WriteUntrusted(w)
	w.EndObject()
}

// GetBlockHeadersRangeResponse is getblockheadersrange's answer
// (COMMAND_RPC_GET_BLOCK_HEADERS_RANGE::response); its status is always
// OK, and its headers are never empty (a range holds a block at least).
type GetBlockHeadersRangeResponse struct {
	Headers []BlockHeader `json:"headers"`
}

// Write writes the answer.
func (r *GetBlockHeadersRangeResponse) Write(w *epeejson.Writer) {
	w.BeginObject()
	WriteCredits(w)
	w.Key("headers")
	w.BeginArray()
	for i := range r.Headers {
		r.Headers[i].Write(w)
	}
	w.EndArray()
	WriteStatusTail(w, StatusOK)
	WriteUntrusted(w)
	w.EndObject()
}

// GetBlockCountResponse is get_block_count's answer
// (COMMAND_RPC_GETBLOCKCOUNT::response); its status is always OK.
type GetBlockCountResponse struct {
	Count uint64 `json:"count"`
}

// Write writes the answer.
func (r *GetBlockCountResponse) Write(w *epeejson.Writer) {
	w.BeginObject()
	w.KeyUint("count", r.Count)
	w.KeyString("status", StatusOK)
	WriteUntrusted(w)
	w.EndObject()
}

// GetHeightResponse is /get_height's answer
// (COMMAND_RPC_GET_HEIGHT::response): the chain height and its top
// block's id; its status is always OK.
type GetHeightResponse struct {
	Hash   string `json:"hash"`
	Height uint64 `json:"height"`
}

// Write writes the answer.
func (r *GetHeightResponse) Write(w *epeejson.Writer) {
	w.BeginObject()
	w.KeyString("hash", r.Hash)
	w.KeyUint("height", r.Height)
	w.KeyString("status", StatusOK)
	WriteUntrusted(w)
	w.EndObject()
}
