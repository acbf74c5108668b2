package rpc

import (
	"errors"
	"time"

	"github.com/gonero/gonero/chaindb"
	"github.com/gonero/gonero/consensus"
	"github.com/gonero/gonero/epeejson"
	"github.com/gonero/gonero/feeestimate"
	"github.com/gonero/gonero/params"
	"github.com/gonero/gonero/rpctypes"
)

// Chain-wide facts: hard_fork_info, get_version, get_fee_estimate and
// getblockheadersrange (core_rpc_server.cpp v0.18.0.0).

// forksEndpoints are the hard-fork, version, fee and header-range methods (endpoints.go).
func forksEndpoints() []endpoint {
	return []endpoint{
		{names: []string{"hard_fork_info"}, access: accessPublic, method: hardForkInfo},
		// get_version's request is rpc_request_base: no "client" member.
		{names: []string{"get_version"}, access: accessPublic, method: getVersion, noClient: true},
		{names: []string{"get_fee_estimate"}, access: accessPublic, method: getFeeEstimate},
		// Capped: restrictedBlockHeaderRange headers; fill_pow_hash ignored.
		{names: []string{"get_block_headers_range", "getblockheadersrange"}, access: accessCapped, method: getBlockHeadersRange},
	}
}

// getVersion is get_version. Since 0.18.4 it also tells the chain height,
// the sync target (0 once synchronized, as get_info's) and the network's
// hard-fork table.
func getVersion(c *call) (func(*epeejson.Writer), *Error) {
	forks := c.server.network.HardForks()
	res := &rpctypes.GetVersionResponse{
		CurrentHeight: c.server.chain.Height(),
		TargetHeight:  c.server.peers.TargetHeight(),
		HardForks:     make([]rpctypes.HardForkEntry, len(forks)),
	}
	for i, f := range forks {
		res.HardForks[i] = rpctypes.HardForkEntry{Height: f.Height, HFVersion: f.Version}
	}
	return res.Write, nil
}

// Hard-fork bookkeeping constants (hardfork.h).
const (
	hardForkWindow     = 10080        // DEFAULT_WINDOW_SIZE: blocks whose votes are counted
	hardForkForkedTime = 31557600     // DEFAULT_FORKED_TIME: a year after the last fork, "likely forked"
	hardForkUpdateTime = 31557600 / 2 // DEFAULT_UPDATE_TIME: half a year after it, "update needed"
	stateLikelyForked  = 0            // HardFork::LikelyForked
	stateUpdateNeeded  = 1            // HardFork::UpdateNeeded
	stateReady         = 2            // HardFork::Ready
	noHeight           = ^uint64(0)   // earliest_height of a version the table never reaches
)

func hardForkInfo(c *call) (func(*epeejson.Writer), *Error) {
	in, e := rpctypes.ParseHardForkInfoRequest(c.params)
	if e != nil {
		return nil, e
	}
	var f rpctypes.HardForkInfoResponse
	if e := c.view(func(r *chaindb.Reader, height uint64) *Error {
		var e *Error
		f, e = hardForkState(r, c.server.network, height, in.Version, time.Now())
		return e
	}); e != nil {
		return nil, e
	}
	return f.Write, nil
}

// hardForkState is HardFork::get_voting_info and friends for a chain of
// height blocks: version 0 asks about the next fork (get_next_version).
func hardForkState(r *chaindb.Reader, net params.Network, height uint64, version uint8, now time.Time) (rpctypes.HardForkInfoResponse, *Error) {
	forks := net.HardForks()
	newest := forks[len(forks)-1].Version
	var f rpctypes.HardForkInfoResponse
	// HardFork's current version is the fork voted in for the next block
	// (get_voted_fork_index(height) at start-up and after each block; every
	// v0.18 threshold is 0), not the top block's: on a chain of genesis
	// alone, regtest's is already the newest.
	f.Version = net.VersionAt(height)
	if version == 0 {
		version = nextForkVersion(forks, height)
	}
	f.Enabled = f.Version >= version
	f.Voting = newest
	// Every v0.18 table has threshold 0 everywhere, so (window·0+99)/100 = 0.
	f.Threshold = 0
	f.EarliestHeight = noHeight
	for i := len(forks) - 1; i >= 0 && forks[i].Version >= version; i-- {
		f.EarliestHeight = forks[i].Height
	}
	// The votes of the last window blocks (genesis included): a block votes
	// for its minor version (0 counts as 1), capped at the newest version.
	window := min(height, hardForkWindow)
	f.Window = uint32(window)
	if window > 0 {
		metas, err := r.MetasInRange(height-window, height)
		if err != nil {
			return f, errInternal("can't produce valid response.")
		}
		for i := range metas {
			vote := max(metas[i].MinorVersion, 1)
			if min(vote, newest) >= version {
				f.Votes++
			}
		}
	}
	f.State = stateReady
	if len(forks) > 1 {
		last := forks[len(forks)-1].Time
		switch t := now.Unix(); {
		case t >= last+hardForkForkedTime:
			f.State = stateLikelyForked
		case t >= last+hardForkUpdateTime:
			f.State = stateUpdateNeeded
		}
	}
	return f, nil
}

// nextForkVersion is HardFork::get_next_version: the version of the fork
// after the one in force at height, or the newest when that is in force.
func nextForkVersion(forks []params.HardFork, height uint64) uint8 {
	for i := len(forks) - 1; i >= 0; i-- {
		if height >= forks[i].Height {
			if i == len(forks)-1 {
				return forks[i].Version
			}
			return forks[i+1].Version
		}
	}
	return forks[0].Version // original_version
}

func getFeeEstimate(c *call) (func(*epeejson.Writer), *Error) {
	in, e := rpctypes.ParseGetFeeEstimateRequest(c.params)
	if e != nil {
		return nil, e
	}
	var fee uint64
	var fees []uint64
	if e := c.view(func(r *chaindb.Reader, height uint64) *Error {
		var e *Error
		fee, fees, e = c.server.feeEstimate(r, height, in.GraceBlocks)
		return e
	}); e != nil {
		return nil, e
	}
	res := &rpctypes.GetFeeEstimateResponse{Fee: fee, Fees: fees, QuantizationMask: consensus.FeeQuantizationMask}
	return res.Write, nil
}

// feeEstimate is get_dynamic_base_fee_estimate(_2021_scaling): the fee per
// byte (per kB before fork 8) and, from fork 15, the four priority levels.
// Where monerod's estimate throws (too many grace blocks), its JSON-RPC
// layer answers code 0 with no message.
func (s *Server) feeEstimate(r *chaindb.Reader, height, grace uint64) (uint64, []uint64, *Error) {
	next := s.chain.NextBlockFacts()
	if feeestimate.Version(s.network, height) < consensus.Version2021Scaling {
		fee, err := feeestimate.Base(r, s.network, next, height, grace)
		if err != nil {
			return 0, nil, errInternal("can't produce valid response.")
		}
		return fee, nil, nil
	}
	fees, err := feeestimate.Scaling2021(r, s.network, next, height, grace)
	var he *feeestimate.HeightError
	switch {
	case errors.Is(err, feeestimate.ErrGraceInvalid) || errors.As(err, &he):
		return 0, nil, &Error{Code: 0, Message: ""}
	case err != nil:
		return 0, nil, errInternal("can't produce valid response.")
	}
	return fees[0], fees, nil
}

func getBlockHeadersRange(c *call) (func(*epeejson.Writer), *Error) {
	start, e := c.params.Uint64("start_height")
	if e != nil {
		return nil, e
	}
	end, e := c.params.Uint64("end_height")
	if e != nil {
		return nil, e
	}
	fill, e := c.params.Bool("fill_pow_hash")
	if e != nil {
		return nil, e
	}
	var list []headerFields
	if e := c.view(func(r *chaindb.Reader, height uint64) *Error {
		if start >= height || end >= height || start > end {
			return &Error{Code: codeTooBigHeight, Message: "Invalid start/end heights."}
		}
		if c.restricted && end-start > restrictedBlockHeaderRange {
			return &Error{Code: codeRestricted, Message: "Too many block headers requested."}
		}
		if !c.claimItems(end-start+1, headerAnswerBytes) {
			return errCoreBusy
		}
		metas, err := r.MetasInRange(start, end+1)
		if err != nil {
			return errInternal("can't produce valid response.")
		}
		list = make([]headerFields, 0, len(metas))
		for i := range metas {
			b := blockAt{meta: metas[i]}
			pow, e := c.powInput(r, &b, fill)
			if e != nil {
				return e
			}
			list = append(list, newHeader(b, height, pow))
		}
		return nil
	}); e != nil {
		return nil, e
	}
	for i := range list {
		if e := c.fillPoW(&list[i]); e != nil {
			return nil, e
		}
	}
	res := &rpctypes.GetBlockHeadersRangeResponse{Headers: make([]rpctypes.BlockHeader, len(list))}
	for i := range list {
		res.Headers[i] = list[i].header()
	}
	return res.Write, nil
}
