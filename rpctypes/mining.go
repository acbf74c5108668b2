package rpctypes

import (
	"encoding/hex"

	"github.com/gonero/gonero/cryptonote"
	"github.com/gonero/gonero/epeejson"
	"github.com/gonero/gonero/internal/u128"
)

// Requests and answers of the mining endpoints (core_rpc_server_commands_defs.h
// COMMAND_RPC_GETBLOCKTEMPLATE, GETMINERDATA, CALCPOW, ADD_AUX_POW,
// SUBMITBLOCK, GETBLOCKHASH, GET_COINBASE_TX_SUM, GET_ALTERNATE_CHAINS,
// GET_ALT_BLOCKS_HASHES, START_MINING, MINING_STATUS). Members are written
// in the order monerod's JSON prints them (sorted).

// BlockTemplateRequest is get_block_template's request
// (COMMAND_RPC_GETBLOCKTEMPLATE::request, core_rpc_server_commands_defs.h).
type BlockTemplateRequest struct {
	ReserveSize   uint64 `json:"reserve_size"`
	WalletAddress string `json:"wallet_address"`
	PrevBlock     string `json:"prev_block"`
	ExtraNonce    string `json:"extra_nonce"`
}

// ParseBlockTemplateRequest loads it from params.
func ParseBlockTemplateRequest(p Params) (BlockTemplateRequest, *Error) {
	var r BlockTemplateRequest
	var e *Error
	if r.ReserveSize, e = p.Uint64("reserve_size"); e != nil {
		return r, e
	}
	if r.WalletAddress, e = p.String("wallet_address"); e != nil {
		return r, e
	}
	if r.PrevBlock, e = p.String("prev_block"); e != nil {
		return r, e
	}
	r.ExtraNonce, e = p.String("extra_nonce")
	return r, e
}

// BlockTemplateResponse is get_block_template's answer
// (COMMAND_RPC_GETBLOCKTEMPLATE::response, core_rpc_server_commands_defs.h).
type BlockTemplateResponse struct {
	Blob, HashingBlob []byte
	Difficulty        u128.U128
	ExpectedReward    uint64
	Height            uint64
	NextSeedHash      string // "" when it is the seed hash
	PrevHash          cryptonote.Hash
	ReservedOffset    uint64
	SeedHash          string // "" before RandomX
	SeedHeight        uint64
	Status            string
}

// Write writes the answer.
func (r *BlockTemplateResponse) Write(w *epeejson.Writer) {
	w.BeginObject()
	w.KeyString("blockhashing_blob", hex.EncodeToString(r.HashingBlob))
	w.KeyString("blocktemplate_blob", hex.EncodeToString(r.Blob))
	w.KeyUint("difficulty", r.Difficulty.Lo)
	w.KeyUint("difficulty_top64", r.Difficulty.Hi)
	w.KeyUint("expected_reward", r.ExpectedReward)
	w.KeyUint("height", r.Height)
	w.KeyString("next_seed_hash", r.NextSeedHash)
	w.KeyString("prev_hash", r.PrevHash.String())
	w.KeyUint("reserved_offset", r.ReservedOffset)
	w.KeyString("seed_hash", r.SeedHash)
	w.KeyUint("seed_height", r.SeedHeight)
	w.KeyString("status", r.Status)
	WriteUntrusted(w)
	w.KeyString("wide_difficulty", r.Difficulty.Hex())
	w.EndObject()
}

// MinerBacklogEntry is one of get_miner_data's tx_backlog
// (COMMAND_RPC_GETMINERDATA::response::tx_backlog_entry).
type MinerBacklogEntry struct {
	ID          cryptonote.Hash
	Weight, Fee uint64
}

// MinerDataResponse is get_miner_data's answer
// (COMMAND_RPC_GETMINERDATA::response, core_rpc_server_commands_defs.h).
type MinerDataResponse struct {
	Generated    uint64
	Difficulty   u128.U128
	Height       uint64
	Major        uint8
	MedianWeight uint64
	PrevID       cryptonote.Hash
	SeedHash     cryptonote.Hash
	Backlog      []MinerBacklogEntry
}

// Write writes the answer.
func (r *MinerDataResponse) Write(w *epeejson.Writer) {
	w.BeginObject()
	w.KeyUint("already_generated_coins", r.Generated)
	w.KeyString("difficulty", r.Difficulty.Hex())
	w.KeyUint("height", r.Height)
	w.KeyUint("major_version", uint64(r.Major))
	w.KeyUint("median_weight", r.MedianWeight)
	w.KeyString("prev_id", r.PrevID.String())
	w.KeyString("seed_hash", r.SeedHash.String())
	w.KeyString("status", "OK")
	if len(r.Backlog) > 0 { // monerod omits an empty array
		w.Key("tx_backlog")
		w.BeginArray()
		for _, b := range r.Backlog {
			w.BeginObject()
			w.KeyUint("fee", b.Fee)
			w.KeyString("id", b.ID.String())
			w.KeyUint("weight", b.Weight)
			w.EndObject()
		}
		w.EndArray()
	}
	WriteUntrusted(w)
	w.EndObject()
}

// AuxPow is one merge-mined chain of add_aux_pow (struct aux_pow_t): its id and block hash,
// as the client wrote them (the answer echoes them).
type AuxPow struct {
	ID   string `json:"id"`
	Hash string `json:"hash"`
}

// ParseAuxPow reads add_aux_pow's aux_pow (COMMAND_RPC_ADD_AUX_POW::request): an array of objects; anything
// else (a single object, an array of scalars) is no list at all to epee.
func ParseAuxPow(p Params) ([]AuxPow, *Error) {
	v, ok := p.Get("aux_pow")
	mustBeParsed(v)
	if !ok || v.Kind != epeejson.KindArray {
		return nil, nil
	}
	out := make([]AuxPow, 0, len(v.Arr))
	for _, elem := range v.Arr {
		if elem.Kind != epeejson.KindObject {
			return nil, nil
		}
		ep := NewParams(elem, true)
		id, e := ep.String("id")
		if e != nil {
			return nil, e
		}
		hash, e := ep.String("hash")
		if e != nil {
			return nil, e
		}
		out = append(out, AuxPow{ID: id, Hash: hash})
	}
	return out, nil
}

// AddAuxPowResponse is add_aux_pow's answer
// (COMMAND_RPC_ADD_AUX_POW::response, core_rpc_server_commands_defs.h).
type AddAuxPowResponse struct {
	AuxPow      []AuxPow
	Blob        []byte
	HashingBlob []byte
	MerkleRoot  cryptonote.Hash
	Depth       uint32
}

// Write writes the answer.
func (r *AddAuxPowResponse) Write(w *epeejson.Writer) {
	w.BeginObject()
	w.Key("aux_pow")
	w.BeginArray()
	for _, a := range r.AuxPow {
		w.BeginObject()
		w.KeyString("hash", a.Hash)
		w.KeyString("id", a.ID)
		w.EndObject()
	}
	w.EndArray()
	w.KeyString("blockhashing_blob", hex.EncodeToString(r.HashingBlob))
	w.KeyString("blocktemplate_blob", hex.EncodeToString(r.Blob))
	w.KeyString("merkle_root", r.MerkleRoot.String())
	w.KeyUint("merkle_tree_depth", uint64(r.Depth))
	w.KeyString("status", "OK")
	WriteUntrusted(w)
	w.EndObject()
}

// CoinbaseTxSumResponse is get_coinbase_tx_sum's answer
// (COMMAND_RPC_GET_COINBASE_TX_SUM::response, core_rpc_server_commands_defs.h); on a refused range
// only the status is set and the wide members are empty strings.
type CoinbaseTxSumResponse struct {
	Emission, Fees u128.U128
	Status         string
}

// Write writes the answer.
func (r *CoinbaseTxSumResponse) Write(w *epeejson.Writer) {
	wideEmission, wideFees := "", ""
	if r.Status == "OK" {
		wideEmission, wideFees = r.Emission.Hex(), r.Fees.Hex()
	}
	w.BeginObject()
	WriteCredits(w)
	w.KeyUint("emission_amount", r.Emission.Lo)
	w.KeyUint("emission_amount_top64", r.Emission.Hi)
	w.KeyUint("fee_amount", r.Fees.Lo)
	w.KeyUint("fee_amount_top64", r.Fees.Hi)
	WriteStatusTail(w, r.Status)
	WriteUntrusted(w)
	w.KeyString("wide_emission_amount", wideEmission)
	w.KeyString("wide_fee_amount", wideFees)
	w.EndObject()
}

// AltChain is one of get_alternate_chains' chains (struct chain_info,
// core_rpc_server_commands_defs.h): its tip, and its blocks from the tip
// down to the one above the main chain.
type AltChain struct {
	Tip       cryptonote.Hash // block_hash
	TipHeight uint64          // height
	// Difficulty is the tip's cumulative difficulty, which monerod calls
	// the chain's difficulty.
	Difficulty u128.U128
	Hashes     []cryptonote.Hash
	MainParent cryptonote.Hash
}

// WriteAltChains writes get_alternate_chains' answer
// (COMMAND_RPC_GET_ALTERNATE_CHAINS::response).

func WriteAltChains(w *epeejson.Writer, chains []AltChain, status string) {
	w.BeginObject()
	if len(chains) > 0 { // monerod omits an empty array
		w.Key("chains")
		w.BeginArray()
		for _, c := range chains {
			w.BeginObject()
			w.Key("block_hash")
			w.String(c.Tip.String())
			w.Key("block_hashes")
			w.BeginArray()
			for _, h := range c.Hashes {
				w.String(h.String())
			}
			w.EndArray()
			w.KeyUint("difficulty", c.Difficulty.Lo)
			w.KeyUint("difficulty_top64", c.Difficulty.Hi)
			w.KeyUint("height", c.TipHeight)
			w.KeyUint("length", uint64(len(c.Hashes)))
			w.KeyString("main_chain_parent_block", c.MainParent.String())
			w.KeyString("wide_difficulty", c.Difficulty.Hex())
			w.EndObject()
		}
		w.EndArray()
	}
	w.KeyString("status", status)
	WriteUntrusted(w)
	w.EndObject()
}

// StartMiningRequest is /start_mining's request
// (COMMAND_RPC_START_MINING::request, core_rpc_server_commands_defs.h).
type StartMiningRequest struct {
	MinerAddress  string `json:"miner_address"`
	Threads       uint64 `json:"threads_count"`
	Background    bool   `json:"do_background_mining"`
	IgnoreBattery bool   `json:"ignore_battery"`
}

// ParseStartMiningRequest loads it from params.
func ParseStartMiningRequest(p Params) (StartMiningRequest, *Error) {
	var r StartMiningRequest
	var e *Error
	if r.MinerAddress, e = p.String("miner_address"); e != nil {
		return r, e
	}
	if r.Threads, e = p.Uint64("threads_count"); e != nil {
		return r, e
	}
	if r.Background, e = p.Bool("do_background_mining"); e != nil {
		return r, e
	}
	r.IgnoreBattery, e = p.Bool("ignore_battery")
	return r, e
}

// MiningStatusResponse is /mining_status' answer
// (COMMAND_RPC_MINING_STATUS::response, core_rpc_server_commands_defs.h);
// its status is always OK. The difficulty is the next block's, in
// monerod's three members (SetDifficulty fills them).
type MiningStatusResponse struct {
	Active                    bool   `json:"active"`
	Address                   string `json:"address"`
	BgIdleThreshold           uint64 `json:"bg_idle_threshold"`
	BgIgnoreBattery           bool   `json:"bg_ignore_battery"`
	BgMinIdleSeconds          uint64 `json:"bg_min_idle_seconds"`
	BgTarget                  uint64 `json:"bg_target"`
	BlockReward               uint64 `json:"block_reward"`
	BlockTarget               uint64 `json:"block_target"`
	Difficulty                uint64 `json:"difficulty"`
	DifficultyTop64           uint64 `json:"difficulty_top64"`
	IsBackgroundMiningEnabled bool   `json:"is_background_mining_enabled"`
	PowAlgorithm              string `json:"pow_algorithm"`
	Speed                     uint64 `json:"speed"`
	ThreadsCount              uint64 `json:"threads_count"`
	WideDifficulty            string `json:"wide_difficulty"`
}

// SetDifficulty sets difficulty, difficulty_top64 and wide_difficulty.
func (r *MiningStatusResponse) SetDifficulty(d u128.U128) {
	r.Difficulty, r.DifficultyTop64, r.WideDifficulty = d.Lo, d.Hi, d.Hex()
}

// Write writes the answer.
func (r *MiningStatusResponse) Write(w *epeejson.Writer) {
	w.BeginObject()
	w.KeyBool("active", r.Active)
	w.KeyString("address", r.Address)
	w.KeyUint("bg_idle_threshold", r.BgIdleThreshold)
	w.KeyBool("bg_ignore_battery", r.BgIgnoreBattery)
	w.KeyUint("bg_min_idle_seconds", r.BgMinIdleSeconds)
	w.KeyUint("bg_target", r.BgTarget)
	w.KeyUint("block_reward", r.BlockReward)
	w.KeyUint("block_target", r.BlockTarget)
	w.KeyUint("difficulty", r.Difficulty)
	w.KeyUint("difficulty_top64", r.DifficultyTop64)
	w.KeyBool("is_background_mining_enabled", r.IsBackgroundMiningEnabled)
	w.KeyString("pow_algorithm", r.PowAlgorithm)
	w.KeyUint("speed", r.Speed)
	w.KeyString("status", StatusOK)
	w.KeyUint("threads_count", r.ThreadsCount)
	WriteUntrusted(w)
	w.KeyString("wide_difficulty", r.WideDifficulty)
	w.EndObject()
}

// WriteStatusOnly is the answer of the endpoints whose response is
// rpc_response_base alone (start_mining, stop_mining, submit_block).
func WriteStatusOnly(w *epeejson.Writer, status string) {
	w.BeginObject()
	w.KeyString("status", status)
	WriteUntrusted(w)
	w.EndObject()
}

// SubmitBlockResponse is submit_block's answer
// (COMMAND_RPC_SUBMITBLOCK::response, core_rpc_server_commands_defs.h): since monerod 0.18.4 it
// names the block (block_id, the id of the block parsed from the blob, set
// only when the block was handled: empty on BUSY).
type SubmitBlockResponse struct {
	Status  string `json:"status"`
	BlockID string `json:"block_id"`
}

// Write writes the answer.
func (r *SubmitBlockResponse) Write(w *epeejson.Writer) {
	w.BeginObject()
	w.KeyString("block_id", r.BlockID)
	w.KeyString("status", r.Status)
	WriteUntrusted(w)
	w.EndObject()
}
