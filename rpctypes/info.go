package rpctypes

import (
	"github.com/gonero/gonero/epeejson"
)

// CoreRPCVersion is CORE_RPC_VERSION of monerod 0.18.5.3: 3.16.
const CoreRPCVersion = 3<<16 | 16

// GetInfoResponse is get_info's answer (COMMAND_RPC_GET_INFO::response,
// core_rpc_server_commands_defs.h), for /json_rpc get_info and /get_info
// alike; its status is always OK. The four block size and weight members
// are left out while BlockWeightMedian is 0 (a node with no chain facts
// yet).
type GetInfoResponse struct {
	AdjustedTime              uint64 `json:"adjusted_time"`
	AltBlocksCount            uint64 `json:"alt_blocks_count"`
	BlockSizeLimit            uint64 `json:"block_size_limit"`
	BlockSizeMedian           uint64 `json:"block_size_median"`
	BlockWeightLimit          uint64 `json:"block_weight_limit"`
	BlockWeightMedian         uint64 `json:"block_weight_median"`
	BootstrapDaemonAddress    string `json:"bootstrap_daemon_address"`
	BusySyncing               bool   `json:"busy_syncing"`
	CumulativeDifficulty      uint64 `json:"cumulative_difficulty"`
	CumulativeDifficultyTop64 uint64 `json:"cumulative_difficulty_top64"`
	DatabaseSize              uint64 `json:"database_size"`
	Difficulty                uint64 `json:"difficulty"`
	DifficultyTop64           uint64 `json:"difficulty_top64"`
	FreeSpace                 uint64 `json:"free_space"`
	GreyPeerlistSize          uint64 `json:"grey_peerlist_size"`
	Height                    uint64 `json:"height"`
	HeightWithoutBootstrap    uint64 `json:"height_without_bootstrap"`
	IncomingConnectionsCount  uint64 `json:"incoming_connections_count"`
	Mainnet                   bool   `json:"mainnet"`
	Nettype                   string `json:"nettype"`
	Offline                   bool   `json:"offline"`
	OutgoingConnectionsCount  uint64 `json:"outgoing_connections_count"`
	Restricted                bool   `json:"restricted"`
	RPCConnectionsCount       uint64 `json:"rpc_connections_count"`
	Stagenet                  bool   `json:"stagenet"`
	StartTime                 uint64 `json:"start_time"`
	Synchronized              bool   `json:"synchronized"`
	Target                    uint64 `json:"target"`
	TargetHeight              uint64 `json:"target_height"`
	Testnet                   bool   `json:"testnet"`
	TopBlockHash              string `json:"top_block_hash"`
	TxCount                   uint64 `json:"tx_count"`
	TxPoolSize                uint64 `json:"tx_pool_size"`
	// Untrusted is true only on a bootstrap daemon's answer passed on.
	Untrusted                bool   `json:"untrusted"`
	UpdateAvailable          bool   `json:"update_available"`
	Version                  string `json:"version"`
	WasBootstrapEverUsed     bool   `json:"was_bootstrap_ever_used"`
	WhitePeerlistSize        uint64 `json:"white_peerlist_size"`
	WideCumulativeDifficulty string `json:"wide_cumulative_difficulty"`
	WideDifficulty           string `json:"wide_difficulty"`
}

// Write writes the answer.
func (r *GetInfoResponse) Write(w *epeejson.Writer) {
	w.BeginObject()
	w.KeyUint("adjusted_time", r.AdjustedTime)
	w.KeyUint("alt_blocks_count", r.AltBlocksCount)
	if r.BlockWeightMedian != 0 {
		w.KeyUint("block_size_limit", r.BlockSizeLimit)
		w.KeyUint("block_size_median", r.BlockSizeMedian)
		w.KeyUint("block_weight_limit", r.BlockWeightLimit)
		w.KeyUint("block_weight_median", r.BlockWeightMedian)
	}
	w.KeyString("bootstrap_daemon_address", r.BootstrapDaemonAddress)
	w.KeyBool("busy_syncing", r.BusySyncing)
	WriteCredits(w)
	w.KeyUint("cumulative_difficulty", r.CumulativeDifficulty)
	w.KeyUint("cumulative_difficulty_top64", r.CumulativeDifficultyTop64)
	w.KeyUint("database_size", r.DatabaseSize)
	w.KeyUint("difficulty", r.Difficulty)
	w.KeyUint("difficulty_top64", r.DifficultyTop64)
	w.KeyUint("free_space", r.FreeSpace)
	w.KeyUint("grey_peerlist_size", r.GreyPeerlistSize)
	w.KeyUint("height", r.Height)
	w.KeyUint("height_without_bootstrap", r.HeightWithoutBootstrap)
	w.KeyUint("incoming_connections_count", r.IncomingConnectionsCount)
	w.KeyBool("mainnet", r.Mainnet)
	w.KeyString("nettype", r.Nettype)
	w.KeyBool("offline", r.Offline)
	w.KeyUint("outgoing_connections_count", r.OutgoingConnectionsCount)
	w.KeyBool("restricted", r.Restricted)
	w.KeyUint("rpc_connections_count", r.RPCConnectionsCount)
	w.KeyBool("stagenet", r.Stagenet)
	w.KeyUint("start_time", r.StartTime)
	w.KeyString("status", StatusOK)
	w.KeyBool("synchronized", r.Synchronized)
	w.KeyUint("target", r.Target)
	w.KeyUint("target_height", r.TargetHeight)
	w.KeyBool("testnet", r.Testnet)
	w.KeyString("top_block_hash", r.TopBlockHash)
	w.KeyString("top_hash", "")
	w.KeyUint("tx_count", r.TxCount)
	w.KeyUint("tx_pool_size", r.TxPoolSize)
	w.KeyBool("untrusted", r.Untrusted)
	w.KeyBool("update_available", r.UpdateAvailable)
	w.KeyString("version", r.Version)
	w.KeyBool("was_bootstrap_ever_used", r.WasBootstrapEverUsed)
	w.KeyUint("white_peerlist_size", r.WhitePeerlistSize)
	w.KeyString("wide_cumulative_difficulty", r.WideCumulativeDifficulty)
	w.KeyString("wide_difficulty", r.WideDifficulty)
	w.EndObject()
}

// HardForkEntry is one fork of get_version's hard_forks (struct hf_entry,
// core_rpc_server_commands_defs.h).
type HardForkEntry struct {
	Height    uint64 `json:"height"`
	HFVersion uint8  `json:"hf_version"`
}

// GetVersionResponse is get_version's answer
// (COMMAND_RPC_GET_VERSION::response, core_rpc_server_commands_defs.h).
// Release is false: the build of 0.18.5.3 this node is compared with is
// not marked a release (MONERO_VERSION_IS_RELEASE); Version is always
// CoreRPCVersion. Its status is always OK.
type GetVersionResponse struct {
	CurrentHeight uint64          `json:"current_height"`
	HardForks     []HardForkEntry `json:"hard_forks"`    // omitted when empty
	Release       bool            `json:"release"`       // always false
	TargetHeight  uint64          `json:"target_height"` // omitted when 0 (KV_SERIALIZE_OPT)
	Version       uint32          `json:"version"`       // written as CoreRPCVersion
}

// Write writes the answer.
func (r *GetVersionResponse) Write(w *epeejson.Writer) {
	w.BeginObject()
	if r.CurrentHeight != 0 {
		w.KeyUint("current_height", r.CurrentHeight)
	}
	if len(r.HardForks) > 0 {
		w.Key("hard_forks")
		w.BeginArray()
		for _, f := range r.HardForks {
			w.BeginObject()
			w.KeyUint("height", f.Height)
			w.KeyUint("hf_version", uint64(f.HFVersion))
			w.EndObject()
		}
		w.EndArray()
	}
	w.KeyBool("release", false)
	w.KeyString("status", StatusOK)
	if r.TargetHeight != 0 {
		w.KeyUint("target_height", r.TargetHeight)
	}
	WriteUntrusted(w)
	w.KeyUint("version", CoreRPCVersion)
	w.EndObject()
}

// HardForkInfoRequest is hard_fork_info's request
// (COMMAND_RPC_HARD_FORK_INFO::request, core_rpc_server_commands_defs.h):
// version 0 asks about the next fork.
type HardForkInfoRequest struct {
	Version uint8 `json:"version"`
}

// ParseHardForkInfoRequest loads it from params. version is a uint8_t
// member: epee converts no string to it (unlike a uint64_t's digits), and
// refuses a value above 255.
func ParseHardForkInfoRequest(p Params) (HardForkInfoRequest, *Error) {
	asked, e := Convert(p, "version", 0, func(v epeejson.Value) (uint64, error) {
		if v.Kind == epeejson.KindString {
			return 0, epeejson.ErrWrongType
		}
		return v.AsUint64()
	})
	if e != nil {
		return HardForkInfoRequest{}, e
	}
	if asked > uint64(^uint8(0)) {
		return HardForkInfoRequest{}, ErrInvalidParams
	}
	return HardForkInfoRequest{Version: uint8(asked)}, nil
}

// HardForkInfoResponse is hard_fork_info's answer
// (COMMAND_RPC_HARD_FORK_INFO::response, core_rpc_server_commands_defs.h);
// its status is always OK.
type HardForkInfoResponse struct {
	EarliestHeight uint64 `json:"earliest_height"`
	Enabled        bool   `json:"enabled"`
	State          uint32 `json:"state"`
	Threshold      uint32 `json:"threshold"`
	Version        uint8  `json:"version"`
	Votes          uint32 `json:"votes"`
	Voting         uint8  `json:"voting"`
	Window         uint32 `json:"window"`
}

// Write writes the answer.
func (r *HardForkInfoResponse) Write(w *epeejson.Writer) {
	w.BeginObject()
	WriteCredits(w)
	w.KeyUint("earliest_height", r.EarliestHeight)
	w.KeyBool("enabled", r.Enabled)
	w.KeyUint("state", uint64(r.State))
	w.KeyString("status", StatusOK)
	w.KeyUint("threshold", uint64(r.Threshold))
	w.KeyString("top_hash", "")
	WriteUntrusted(w)
	w.KeyUint("version", uint64(r.Version))
	w.KeyUint("votes", uint64(r.Votes))
	w.KeyUint("voting", uint64(r.Voting))
	w.KeyUint("window", uint64(r.Window))
	w.EndObject()
}

// GetFeeEstimateRequest is get_fee_estimate's request
// (COMMAND_RPC_GET_BASE_FEE_ESTIMATE::request).
type GetFeeEstimateRequest struct {
	GraceBlocks uint64 `json:"grace_blocks"`
}

// ParseGetFeeEstimateRequest loads it from params.
func ParseGetFeeEstimateRequest(p Params) (GetFeeEstimateRequest, *Error) {
	g, e := p.Uint64("grace_blocks")
	return GetFeeEstimateRequest{GraceBlocks: g}, e
}

// GetFeeEstimateResponse is get_fee_estimate's answer
// (COMMAND_RPC_GET_BASE_FEE_ESTIMATE::response): the fee per byte and,
// from fork 15, the four priority levels (omitted when empty); its status
// is always OK.
type GetFeeEstimateResponse struct {
	Fee              uint64   `json:"fee"`
	Fees             []uint64 `json:"fees"`
	QuantizationMask uint64   `json:"quantization_mask"`
}

// Write writes the answer.
func (r *GetFeeEstimateResponse) Write(w *epeejson.Writer) {
	w.BeginObject()
	WriteCredits(w)
	w.KeyUint("fee", r.Fee)
	if len(r.Fees) > 0 {
		w.Key("fees")
		w.BeginArray()
		for _, f := range r.Fees {
			w.Uint(f)
		}
		w.EndArray()
	}
	w.KeyUint("quantization_mask", r.QuantizationMask)
	WriteStatusTail(w, StatusOK)
	WriteUntrusted(w)
	w.EndObject()
}
