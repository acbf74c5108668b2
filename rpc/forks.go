package rpc

import (
	"time"

	"github.com/gonero/gonero/chaindb"
	"github.com/gonero/gonero/consensus"
	"github.com/gonero/gonero/epeejson"
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

// Fee estimate constants (cryptonote_config.h).
const (
	feeEstimateMaxGrace      = 100                // the 2021 estimate's CHECK on grace_blocks
	blockRewardOverestimate  = 10_000_000_000_000 // BLOCK_REWARD_OVERESTIMATE
	scaling2021RoundingDigit = 2                  // CRYPTONOTE_SCALING_2021_FEE_ROUNDING_PLACES
)

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
func (s *Server) feeEstimate(r *chaindb.Reader, height, grace uint64) (uint64, []uint64, *Error) {
	next := s.chain.NextBlockFacts()
	version := s.network.VersionAt(max(height, 1) - 1)
	limitHalf := consensus.BlockWeightLimit(next.EffectiveMedian) / 2
	generated := next.Top.GeneratedCoins
	if height == 0 {
		generated = 0
	}
	baseReward, err := consensus.BlockReward(limitHalf, 1, generated, version)
	if err != nil {
		baseReward = blockRewardOverestimate
	}
	failed := errInternal("can't produce valid response.")
	if version >= consensus.Version2021Scaling {
		if grace >= feeEstimateMaxGrace {
			// monerod first pushes grace_blocks zeros into a copy of its
			// long-term median (for 2^64-1 that never ends), then throws
			// above 100, or fails reading the weights of 0 blocks at
			// 100; its JSON-RPC layer answers code 0 with no message.
			// gonero gives that answer at once.
			return 0, nil, &Error{Code: 0, Message: ""}
		}
		// Mlw: the long-term median with grace zeros pushed, floored at
		// the full reward zone. Zeros never raise a median, so while the
		// long-term median is at the floor, the floor is the answer.
		mlw := uint64(consensus.FullRewardZoneV5)
		if next.LongTermEffectiveMedian > consensus.FullRewardZoneV5 {
			first := uint64(0)
			if height > consensus.LongTermBlockWeightWindow {
				first = height - consensus.LongTermBlockWeightWindow
			}
			metas, err := r.MetasInRange(first, height)
			if err != nil {
				return 0, nil, failed
			}
			weights := make([]uint64, 0, len(metas)+int(grace))
			for i := range metas {
				weights = append(weights, metas[i].LongTermWeight)
			}
			for i := uint64(0); i < grace; i++ {
				weights = append(weights, 0)
			}
			if len(weights) > consensus.LongTermBlockWeightWindow {
				weights = weights[len(weights)-consensus.LongTermBlockWeightWindow:]
			}
			mlw = max(consensus.Median(weights), consensus.FullRewardZoneV5)
		}
		weights, e := lastBlockWeights(r, height, feeEstimateMaxGrace-grace, failed)
		if e != nil {
			return 0, nil, e
		}
		for i := uint64(0); i < grace; i++ {
			weights = append(weights, 0)
		}
		msw := max(consensus.Median(weights), mlw)
		mnw := min(msw, 50*mlw)
		fees := fees2021(baseReward, mnw, mlw)
		return fees[0], fees, nil
	}
	if version < consensus.VersionDynamicFee {
		return consensus.FeePerKB, nil, nil
	}
	grace = min(grace, consensus.RewardBlocksWindow-1)
	minWeight := consensus.FullRewardZone(version)
	weights, e := lastBlockWeights(r, height, consensus.RewardBlocksWindow-grace, failed)
	if e != nil {
		return 0, nil, e
	}
	for i := uint64(0); i < grace; i++ {
		weights = append(weights, minWeight)
	}
	median := max(consensus.Median(weights), minWeight)
	if version >= consensus.VersionLongTermBlockWeight {
		median = min(median, next.LongTermEffectiveMedian)
	}
	return consensus.DynamicBaseFee(baseReward, median, version), nil, nil
}

// lastBlockWeights is get_last_n_blocks_weights: the weights of the last n
// blocks (fewer on a shorter chain).
func lastBlockWeights(r *chaindb.Reader, height, n uint64, failed *Error) ([]uint64, *Error) {
	first := height - min(height, n)
	metas, err := r.MetasInRange(first, height)
	if err != nil {
		return nil, failed
	}
	weights := make([]uint64, 0, len(metas)+consensus.RewardBlocksWindow)
	for i := range metas {
		weights = append(weights, metas[i].Weight)
	}
	return weights, nil
}

// fees2021 is get_dynamic_base_fee_estimate_2021_scaling's arithmetic
// (uint64, wrapping as monerod's does), each level rounded up to two
// significant digits.
func fees2021(baseReward, mnw, mlw uint64) []uint64 {
	const ref = consensus.DynamicFeeReferenceTxWeight
	const zone = consensus.FullRewardZoneV5
	mfw := min(mnw, mlw)
	fl := baseReward * ref / (mfw * mfw)
	fn := 4 * baseReward * ref / (mfw * mfw)
	fm := 16 * baseReward * ref / (zone * mfw)
	fh := max(4*fm, 4*fm*mfw/(32*ref*mnw/zone))
	return []uint64{roundMoneyUp(fl), roundMoneyUp(fn), roundMoneyUp(fm), roundMoneyUp(fh)}
}

// roundMoneyUp is round_money_up(amount, 2): every digit after the first
// two that is not zero bumps the second digit up (with carry).
func roundMoneyUp(amount uint64) uint64 {
	const digits = scaling2021RoundingDigit
	var buf [21]byte
	s := append(buf[:0], uitoa(amount)...)
	if len(s) <= digits {
		return amount
	}
	bump := false
	for i := digits; i < len(s); i++ {
		if s[i] != '0' {
			bump = true
			s[i] = '0'
		}
	}
	for i := digits - 1; bump && i >= 0; i-- {
		if s[i] == '9' {
			s[i] = '0'
		} else {
			s[i]++
			bump = false
		}
	}
	if bump {
		s = append([]byte{'1'}, s...)
	}
	var v uint64
	for _, d := range s {
		v = v*10 + uint64(d-'0') // may wrap past 2^64 as strtoull's ULONG_MAX would not; such a fee is not reachable
	}
	return v
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
