package rpc

import (
	"errors"
	"slices"
	"sync"
	"time"

	"github.com/gonero/gonero/chaindb"
	"github.com/gonero/gonero/consensus"
	"github.com/gonero/gonero/crypto"
	"github.com/gonero/gonero/cryptonote"
	"github.com/gonero/gonero/httpd"
	"github.com/gonero/gonero/portable"
	"github.com/gonero/gonero/rpctypes"
)

// serveGetOIndexes is /get_o_indexes.bin: the global output indexes of one
// transaction (miner transactions included).
func (s *Server) serveGetOIndexes(req *httpd.Request) httpd.Response {
	txid, err := rpctypes.ParseOIndexesRequest(req.Body)
	if err != nil {
		return badRequest()
	}
	var idx []uint64
	found := false
	if err := s.wsView("get_o_indexes", func(r *chaindb.Reader) error {
		var err error
		idx, err = r.TxOutputIndexes(txid)
		if errors.Is(err, chaindb.ErrNotFound) {
			found = false
			return nil
		}
		found = err == nil
		return err
	}); err != nil {
		return internalError()
	}
	if !found {
		return statusOnlyBin(statusFailed)
	}
	n := 4
	if len(idx) > 0 {
		n++
	}
	w := rpctypes.BinAnswer(n, 96+8*len(idx))
	w.FieldUint64("credits", 0)
	if len(idx) > 0 {
		w.Array("o_indexes", portable.TypeUint64, len(idx))
		for _, v := range idx {
			w.Uint64(v)
		}
	}
	rpctypes.WriteBinTail(w, statusOK)
	return binResponse(w)
}

// getOuts is Blockchain::get_outs: every output asked, or nothing at all
// when one of them does not exist (false). A pre-RingCT output's mask is
// the commitment to its amount with blinding factor 1 (zeroCommit), as
// monerod's database returns it.
func (s *Server) getOuts(in *rpctypes.GetOutsRequest, outs []rpctypes.OutKey) ([]rpctypes.OutKey, bool, error) {
	outs = slices.Grow(outs[:0], len(in.Outputs))[:len(in.Outputs)]
	ok := true
	var unlockCtx struct {
		height  uint64
		hf      uint8
		now     uint64
		haveNow bool
	}
	err := s.wsView("get_outs", func(r *chaindb.Reader) error {
		ok = true
		height, err := r.Height()
		if err != nil {
			return err
		}
		unlockCtx.height = height
		if height > 0 {
			unlockCtx.hf = s.network.VersionAt(height - 1)
		}
		ref := func(i int) (uint64, uint64) { return in.Outputs[i].Amount, in.Outputs[i].Index }
		each := r.EachRingMember // an entry's tx hash is a second lookup: only when asked
		if in.GetTxID {
			each = r.EachOutput
		}
		err = each(len(in.Outputs), ref, func(i int, o *chaindb.OutputEntry) error {
			k := &outs[i]
			*k = rpctypes.OutKey{Key: o.Key, Height: o.Height}
			if o.Amount == 0 {
				k.Mask = o.Commitment
			} else {
				k.Mask = cryptonote.Key(crypto.ZeroCommit(o.Amount))
			}
			if in.GetTxID {
				k.TxID = o.TxHash
			}
			if o.UnlockTime >= consensus.MaxBlockNumber && !unlockCtx.haveNow {
				// A time lock is judged against the adjusted time (hard fork
				// 13 on) or the clock, as is_tx_spendtime_unlocked does.
				next := s.chain.NextBlockFacts()
				unlockCtx.now, unlockCtx.haveNow = next.AdjustedTime(time.Now()), true
				if unlockCtx.hf < consensus.VersionDeterministicUT {
					unlockCtx.now = uint64(time.Now().Unix())
				}
			}
			k.Unlocked = consensus.IsSpendTimeUnlocked(o.UnlockTime, height, unlockCtx.now, unlockCtx.hf)
			return nil
		})
		if errors.Is(err, chaindb.ErrNotFound) {
			ok = false
			return nil
		}
		return err
	})
	return outs, ok, err
}

// outKeyPool holds the lookup results of get_outs between requests: a
// wallet asks for 150 ring members or more each time, and the answer is
// written from them before the handler returns.
var outKeyPool = sync.Pool{New: func() any { return new([]rpctypes.OutKey) }}

// serveGetOutsBin is /get_outs.bin: keys, masks and heights of ring
// members.
func (s *Server) serveGetOutsBin(req *httpd.Request) httpd.Response {
	in, err := rpctypes.ParseGetOutsBinRequest(req.Body)
	if err != nil {
		return badRequest()
	}
	if req.Restricted && len(in.Outputs) > restrictedMaxGlobalOuts {
		return binBody(rpctypes.OutsBin(nil, "Too many outs requested"))
	}
	if claim := (answerClaim{req: req}); !claim.addItems(uint64(len(in.Outputs)), outBinAnswerBytes) {
		return s.busyAnswer(req)
	}
	buf := outKeyPool.Get().(*[]rpctypes.OutKey)
	defer outKeyPool.Put(buf)
	outs, ok, err := s.getOuts(&in, *buf)
	*buf = outs
	if err != nil {
		return internalError()
	}
	if !ok {
		return binBody(rpctypes.OutsBin(nil, statusFailed))
	}
	return binBody(rpctypes.OutsBin(outs, statusOK))
}

// serveGetOutsJSON is /get_outs, the same in JSON with hex strings.
func (s *Server) serveGetOutsJSON(req *httpd.Request) httpd.Response {
	parse := rpctypes.ParseGetOutsJSONRequest
	if req.Restricted {
		// Outputs past the cap are checked, not built: the answer is the
		// refusal below whatever they hold (issue 33: 40,000 outputs cost
		// ~19 MB and a 400 before).
		parse = func(b []byte) (rpctypes.GetOutsRequest, error) {
			return rpctypes.ParseGetOutsJSONRequestCapped(b, restrictedMaxGlobalOuts)
		}
	}
	in, err := parse(req.Body)
	if err != nil {
		return badRequest()
	}
	if req.Restricted && len(in.Outputs) > restrictedMaxGlobalOuts {
		return jsonBody(rpctypes.OutsJSON(nil, false, "Too many outs requested"))
	}
	if claim := (answerClaim{req: req}); !claim.addItems(uint64(len(in.Outputs)), outAnswerBytes) {
		return s.busyAnswer(req)
	}
	outs, ok, err := s.getOuts(&in, nil)
	if err != nil {
		return internalError()
	}
	if !ok {
		return jsonBody(rpctypes.OutsJSON(nil, false, statusFailed))
	}
	return jsonBody(rpctypes.OutsJSON(outs, in.GetTxID, statusOK))
}
