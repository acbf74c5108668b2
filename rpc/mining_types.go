package rpc

import (
	"encoding/hex"

	"github.com/gonero/gonero/chaindb"
	"github.com/gonero/gonero/cryptonote"
	"github.com/gonero/gonero/epeejson"
	"github.com/gonero/gonero/internal/u128"
)

// Requests and answers of the mining endpoints (core_rpc_server_commands_defs.h
// COMMAND_RPC_GETBLOCKTEMPLATE, GETMINERDATA, CALCPOW, ADD_AUX_POW,
// SUBMITBLOCK, GETBLOCKHASH, GET_COINBASE_TX_SUM, GET_ALTERNATE_CHAINS,
// GET_ALT_BLOCKS_HASHES, START_MINING, MINING_STATUS). Members are written
// in the order monerod's JSON prints them (sorted).

// blockTemplateRequest is get_block_template's request.
type blockTemplateRequest struct {
	reserveSize   uint64
	walletAddress string
	prevBlock     string
	extraNonce    string
}

func parseBlockTemplateRequest(p requestParams) (blockTemplateRequest, *Error) {
	var r blockTemplateRequest
	var e *Error
	if r.reserveSize, e = p.Uint64("reserve_size"); e != nil {
		return r, e
	}
	if r.walletAddress, e = p.String("wallet_address"); e != nil {
		return r, e
	}
	if r.prevBlock, e = p.String("prev_block"); e != nil {
		return r, e
	}
	r.extraNonce, e = p.String("extra_nonce")
	return r, e
}

// blockTemplateResult is get_block_template's answer.
type blockTemplateResult struct {
	blob, hashingBlob []byte
	difficulty        u128.U128
	expectedReward    uint64
	height            uint64
	nextSeedHash      string // "" when it is the seed hash
	prevHash          cryptonote.Hash
	reservedOffset    uint64
	seedHash          string // "" before RandomX
	seedHeight        uint64
	status            string
}

func (r *blockTemplateResult) write(w *epeejson.Writer) {
	w.BeginObject()
	w.KeyString("blockhashing_blob", hex.EncodeToString(r.hashingBlob))
	w.KeyString("blocktemplate_blob", hex.EncodeToString(r.blob))
	w.KeyUint("difficulty", r.difficulty.Lo)
	w.KeyUint("difficulty_top64", r.difficulty.Hi)
	w.KeyUint("expected_reward", r.expectedReward)
	w.KeyUint("height", r.height)
	w.KeyString("next_seed_hash", r.nextSeedHash)
	w.KeyString("prev_hash", r.prevHash.String())
	w.KeyUint("reserved_offset", r.reservedOffset)
	w.KeyString("seed_hash", r.seedHash)
	w.KeyUint("seed_height", r.seedHeight)
	w.KeyString("status", r.status)
	writeUntrusted(w)
	w.KeyString("wide_difficulty", r.difficulty.Hex())
	w.EndObject()
}

// minerBacklogEntry is one of get_miner_data's tx_backlog.
type minerBacklogEntry struct {
	id          cryptonote.Hash
	weight, fee uint64
}

// minerDataResult is get_miner_data's answer.
type minerDataResult struct {
	generated    uint64
	difficulty   u128.U128
	height       uint64
	major        uint8
	medianWeight uint64
	prevID       cryptonote.Hash
	seedHash     cryptonote.Hash
	backlog      []minerBacklogEntry
}

func (r *minerDataResult) write(w *epeejson.Writer) {
	w.BeginObject()
	w.KeyUint("already_generated_coins", r.generated)
	w.KeyString("difficulty", r.difficulty.Hex())
	w.KeyUint("height", r.height)
	w.KeyUint("major_version", uint64(r.major))
	w.KeyUint("median_weight", r.medianWeight)
	w.KeyString("prev_id", r.prevID.String())
	w.KeyString("seed_hash", r.seedHash.String())
	w.KeyString("status", "OK")
	if len(r.backlog) > 0 { // monerod omits an empty array
		w.Key("tx_backlog")
		w.BeginArray()
		for _, b := range r.backlog {
			w.BeginObject()
			w.KeyUint("fee", b.fee)
			w.KeyString("id", b.id.String())
			w.KeyUint("weight", b.weight)
			w.EndObject()
		}
		w.EndArray()
	}
	writeUntrusted(w)
	w.EndObject()
}

// auxPow is one merge-mined chain of add_aux_pow: its id and block hash,
// as the client wrote them (the answer echoes them).
type auxPow struct{ id, hash string }

// parseAuxPow reads add_aux_pow's aux_pow: an array of objects; anything
// else (a single object, an array of scalars) is no list at all to epee.
func parseAuxPow(p requestParams) ([]auxPow, *Error) {
	v, ok := p.Get("aux_pow")
	if !ok || v.Kind != epeejson.KindArray {
		return nil, nil
	}
	out := make([]auxPow, 0, len(v.Arr))
	for _, elem := range v.Arr {
		if elem.Kind != epeejson.KindObject {
			return nil, nil
		}
		ep := newParams(elem, true)
		id, e := ep.String("id")
		if e != nil {
			return nil, e
		}
		hash, e := ep.String("hash")
		if e != nil {
			return nil, e
		}
		out = append(out, auxPow{id: id, hash: hash})
	}
	return out, nil
}

// auxPowResult is add_aux_pow's answer.
type auxPowResult struct {
	auxPow      []auxPow
	blob        []byte
	hashingBlob []byte
	merkleRoot  cryptonote.Hash
	depth       uint32
}

func (r *auxPowResult) write(w *epeejson.Writer) {
	w.BeginObject()
	w.Key("aux_pow")
	w.BeginArray()
	for _, a := range r.auxPow {
		w.BeginObject()
		w.KeyString("hash", a.hash)
		w.KeyString("id", a.id)
		w.EndObject()
	}
	w.EndArray()
	w.KeyString("blockhashing_blob", hex.EncodeToString(r.hashingBlob))
	w.KeyString("blocktemplate_blob", hex.EncodeToString(r.blob))
	w.KeyString("merkle_root", r.merkleRoot.String())
	w.KeyUint("merkle_tree_depth", uint64(r.depth))
	w.KeyString("status", "OK")
	writeUntrusted(w)
	w.EndObject()
}

// coinbaseSumResult is get_coinbase_tx_sum's answer; on a refused range
// only the status is set and the wide members are empty strings.
type coinbaseSumResult struct {
	emission, fees u128.U128
	status         string
}

func (r *coinbaseSumResult) write(w *epeejson.Writer) {
	wideEmission, wideFees := "", ""
	if r.status == "OK" {
		wideEmission, wideFees = r.emission.Hex(), r.fees.Hex()
	}
	w.BeginObject()
	writeCredits(w)
	w.KeyUint("emission_amount", r.emission.Lo)
	w.KeyUint("emission_amount_top64", r.emission.Hi)
	w.KeyUint("fee_amount", r.fees.Lo)
	w.KeyUint("fee_amount_top64", r.fees.Hi)
	writeStatusTail(w, r.status)
	writeUntrusted(w)
	w.KeyString("wide_emission_amount", wideEmission)
	w.KeyString("wide_fee_amount", wideFees)
	w.EndObject()
}

// altChain is one of get_alternate_chains' chains: its tip, and its blocks
// from the tip down to the one above the main chain.
type altChain struct {
	tip        chaindb.BlockMeta
	hashes     []cryptonote.Hash
	mainParent cryptonote.Hash
}

func writeAltChains(w *epeejson.Writer, chains []altChain, status string) {
	w.BeginObject()
	if len(chains) > 0 { // monerod omits an empty array
		w.Key("chains")
		w.BeginArray()
		for _, c := range chains {
			w.BeginObject()
			w.Key("block_hash")
			w.String(c.tip.Hash.String())
			w.Key("block_hashes")
			w.BeginArray()
			for _, h := range c.hashes {
				w.String(h.String())
			}
			w.EndArray()
			// monerod's difficulty is the tip's cumulative difficulty.
			w.KeyUint("difficulty", c.tip.CumulativeDifficulty.Lo)
			w.KeyUint("difficulty_top64", c.tip.CumulativeDifficulty.Hi)
			w.KeyUint("height", c.tip.Height)
			w.KeyUint("length", uint64(len(c.hashes)))
			w.KeyString("main_chain_parent_block", c.mainParent.String())
			w.KeyString("wide_difficulty", c.tip.CumulativeDifficulty.Hex())
			w.EndObject()
		}
		w.EndArray()
	}
	w.KeyString("status", status)
	writeUntrusted(w)
	w.EndObject()
}

// startMiningRequest is /start_mining's request.
type startMiningRequest struct {
	minerAddress  string
	threads       uint64
	background    bool
	ignoreBattery bool
}

func parseStartMiningRequest(p requestParams) (startMiningRequest, *Error) {
	var r startMiningRequest
	var e *Error
	if r.minerAddress, e = p.String("miner_address"); e != nil {
		return r, e
	}
	if r.threads, e = p.Uint64("threads_count"); e != nil {
		return r, e
	}
	if r.background, e = p.Bool("do_background_mining"); e != nil {
		return r, e
	}
	r.ignoreBattery, e = p.Bool("ignore_battery")
	return r, e
}

// miningStatusResult is /mining_status's answer.
type miningStatusResult struct {
	active        bool
	address       string
	bgEnabled     bool
	bgIgnoreBatt  bool
	bgIdle        uint64
	bgMinIdleSecs uint64
	bgTarget      uint64
	blockReward   uint64
	blockTarget   uint64
	difficulty    u128.U128
	powAlgorithm  string
	speed         uint64
	threads       uint64
}

func (r *miningStatusResult) write(w *epeejson.Writer) {
	w.BeginObject()
	w.KeyBool("active", r.active)
	w.KeyString("address", r.address)
	w.KeyUint("bg_idle_threshold", r.bgIdle)
	w.KeyBool("bg_ignore_battery", r.bgIgnoreBatt)
	w.KeyUint("bg_min_idle_seconds", r.bgMinIdleSecs)
	w.KeyUint("bg_target", r.bgTarget)
	w.KeyUint("block_reward", r.blockReward)
	w.KeyUint("block_target", r.blockTarget)
	w.KeyUint("difficulty", r.difficulty.Lo)
	w.KeyUint("difficulty_top64", r.difficulty.Hi)
	w.KeyBool("is_background_mining_enabled", r.bgEnabled)
	w.KeyString("pow_algorithm", r.powAlgorithm)
	w.KeyUint("speed", r.speed)
	w.KeyString("status", "OK")
	w.KeyUint("threads_count", r.threads)
	writeUntrusted(w)
	w.KeyString("wide_difficulty", r.difficulty.Hex())
	w.EndObject()
}

// writeStatusOnly is the answer of the endpoints whose response is
// rpc_response_base alone (start_mining, stop_mining, submit_block).
func writeStatusOnly(w *epeejson.Writer, status string) {
	w.BeginObject()
	w.KeyString("status", status)
	writeUntrusted(w)
	w.EndObject()
}

// submitBlockResult is submit_block's answer: since monerod 0.18.4 it
// names the block (block_id, the id of the block parsed from the blob, set
// only when the block was handled: empty on BUSY).
type submitBlockResult struct {
	status  string
	blockID string
}

func (r *submitBlockResult) write(w *epeejson.Writer) {
	w.BeginObject()
	w.KeyString("block_id", r.blockID)
	w.KeyString("status", r.status)
	writeUntrusted(w)
	w.EndObject()
}
