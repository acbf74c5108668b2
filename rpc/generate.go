package rpc

import (
	"errors"
	"math"

	"github.com/gonero/gonero/address"
	"github.com/gonero/gonero/chain"
	"github.com/gonero/gonero/cryptonote"
	"github.com/gonero/gonero/epeejson"
	"github.com/gonero/gonero/params"
)

// Codes of generateblocks' errors (core_rpc_server_error_codes.h).
const (
	codeWrongWalletAddress = -4
	codeBlockNotAccepted   = -7
	codeRegtestRequired    = -13
)

var (
	errRegtestRequired = &Error{Code: codeRegtestRequired, Message: "Regtest required when generating blocks"}
	errWalletAddress   = &Error{Code: codeWrongWalletAddress, Message: "Failed to parse wallet address"}
	errInvalidPrev     = &Error{Code: codeInternalError, Message: "Invalid prev_block"}
	errNoTemplate      = &Error{Code: codeInternalError, Message: "Internal error: failed to create block template"}
	errNotAccepted     = &Error{Code: codeBlockNotAccepted, Message: "Block not accepted"}
	errCoreBusy        = &Error{Code: -9, Message: "Core is busy"}
)

// generateBlocks is monerod's generateblocks (regtest only; refused on a
// restricted listener): it mines amount_of_blocks blocks paying
// wallet_address, each from nonce starting_nonce up, and answers their ids
// and the height of the last one (the chain height when none is asked for).
// As in monerod, the address and prev_block are checked per block, so
// asking for 0 blocks checks neither.
//
// Differences, deliberate: a subaddress is accepted (monerod: -12 "Mining
// to subaddress is not supported yet"); prev_block must be the top block
// (monerod would mine an alternative block on any known block; gonero's
// miner extends the main chain only) and any other known block gets the
// answer monerod gives an unknown one.
func generateBlocks(c *call) (func(*epeejson.Writer), *Error) {
	amount, e := c.params.Uint64("amount_of_blocks")
	if e != nil {
		return nil, e
	}
	addrText, e := c.params.String("wallet_address")
	if e != nil {
		return nil, e
	}
	prevText, e := c.params.String("prev_block")
	if e != nil {
		return nil, e
	}
	nonce, e := c.params.Uint64("starting_nonce")
	if e != nil {
		return nil, e
	}
	if nonce > math.MaxUint32 { // a uint32_t in monerod's request
		return nil, errInvalidParams
	}
	s := c.server
	if !s.peers.Synchronized() {
		// monerod's CHECK_CORE_READY comes first: a successful answer with
		// status BUSY until the node has synchronized (always ready with
		// --offline).
		return func(w *epeejson.Writer) {
			w.BeginObject()
			w.KeyUint("height", 0)
			w.KeyString("status", "BUSY")
			writeUntrusted(w)
			w.EndObject()
		}, nil
	}
	if s.network != params.Regtest {
		return nil, errRegtestRequired
	}
	height := s.chain.Height()
	var blocks []cryptonote.Hash
	for i := uint64(0); i < amount; i++ {
		to, err := address.ParseFor(addrText, s.network)
		if err != nil {
			s.log.Debug("generateblocks: wallet_address refused", "err", err)
			return nil, errWalletAddress
		}
		if prevText != "" {
			prev, err := cryptonote.ParseHash(prevText)
			if err != nil {
				return nil, errInvalidPrev
			}
			if top := s.chain.Top().Hash; prev != top {
				if s.chain.HasBlock(prev) {
					s.log.Info("generateblocks: prev_block is not the top block; gonero mines on the top only", "prev_block", prev, "top", top)
				} else {
					s.log.Info("generateblocks: unknown prev_block", "prev_block", prev)
				}
				return nil, errNoTemplate
			}
			prevText = "" // later blocks follow the one just mined, as in monerod
		}
		meta, err := s.miner.MineBlock(s.miningCtx, to, uint32(nonce))
		if err != nil {
			if s.miningCtx.Err() != nil {
				return nil, errCoreBusy // shutting down
			}
			var be *chain.BlockError
			if errors.As(err, &be) {
				s.log.Error("generateblocks: mined block refused", "err", err)
				return nil, errNotAccepted
			}
			s.log.Error("generateblocks: no block template", "err", err)
			return nil, errNoTemplate
		}
		blocks = append(blocks, meta.Hash)
		height = meta.Height
	}
	return func(w *epeejson.Writer) {
		w.BeginObject()
		if len(blocks) > 0 { // monerod omits an empty array
			w.Key("blocks")
			w.BeginArray()
			for _, b := range blocks {
				w.String(b.String())
			}
			w.EndArray()
		}
		w.KeyUint("height", height)
		w.KeyString("status", "OK")
		writeUntrusted(w)
		w.EndObject()
	}, nil
}
