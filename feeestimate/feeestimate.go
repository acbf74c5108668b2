// Package feeestimate is monerod's fee estimate for wallets,
// Blockchain::get_dynamic_base_fee_estimate and its 2021 scaling
// (src/cryptonote_core/blockchain.cpp), computed from a store snapshot and
// the chain's next-block facts. The HTTP RPC's get_fee_estimate and the ZMQ
// RPC's get_dynamic_fee_estimate both answer with it, each in its own
// words for the refusals.
package feeestimate

import (
	"errors"
	"strconv"

	"github.com/gonero/gonero/chain"
	"github.com/gonero/gonero/chaindb"
	"github.com/gonero/gonero/consensus"
	"github.com/gonero/gonero/params"
)

// Constants of cryptonote_config.h.
const (
	// MaxGrace is the 2021 estimate's CHECK on grace_blocks (and the
	// reward window it takes them from).
	MaxGrace                 = 100
	blockRewardOverestimate  = 10_000_000_000_000 // BLOCK_REWARD_OVERESTIMATE
	scaling2021RoundingDigit = 2                  // CRYPTONOTE_SCALING_2021_FEE_ROUNDING_PLACES
)

// Refusals of the 2021 estimate, where monerod throws: more than MaxGrace
// grace blocks (its CHECK_AND_ASSERT_THROW_MES; monerod first pushes that
// many zeros into a copy of its long-term median, which for a huge count
// never ends: refused here at once), and exactly MaxGrace on a non-empty
// chain (get_last_n_blocks_weights(0) reads from the height past the top,
// and BlockchainLMDB throws BLOCK_DNE "Height N not in blockchain").
var ErrGraceInvalid = errors.New("feeestimate: more than 100 grace blocks")

// GraceInvalidText is monerod's text for ErrGraceInvalid.
const GraceInvalidText = "Grace blocks invalid In 2021 fee scaling estimate."

// HeightError is the BLOCK_DNE refusal; its text is monerod's.
type HeightError struct{ Height uint64 }

func (e *HeightError) Error() string {
	return "Height " + strconv.FormatUint(e.Height, 10) + " not in blockchain"
}

// Version is get_current_hard_fork_version for a chain of height blocks:
// the next block's version (HardFork::add moves to the fork voted for the
// height after the block added; a chain of the genesis block alone is
// already at regtest's 16).
func Version(net params.Network, height uint64) uint8 { return net.VersionAt(height) }

// baseReward is the estimates' block reward: at half the block weight
// limit, for the chain's version, BLOCK_REWARD_OVERESTIMATE when it
// cannot be had.
func baseReward(net params.Network, next *chain.NextBlock, height uint64) uint64 {
	generated := next.Top.GeneratedCoins
	if height == 0 {
		generated = 0
	}
	reward, err := consensus.BlockReward(consensus.BlockWeightLimit(next.EffectiveMedian)/2, 1, generated, Version(net, height))
	if err != nil {
		return blockRewardOverestimate
	}
	return reward
}

// Scaling2021 is get_dynamic_base_fee_estimate_2021_scaling for a chain
// of height blocks (r a snapshot of it, next its next-block facts) with
// grace blocks of headroom: the four priority levels' fees per byte. A
// store failure is returned as is.
func Scaling2021(r *chaindb.Reader, net params.Network, next chain.NextBlock, height, grace uint64) ([]uint64, error) {
	if grace > MaxGrace {
		return nil, ErrGraceInvalid
	}
	if grace == MaxGrace && height > 0 {
		return nil, &HeightError{Height: height}
	}
	// Mlw: the long-term median with grace zeros pushed, floored at the
	// full reward zone. Zeros never raise a median, so while the
	// long-term median is at the floor, the floor is the answer.
	mlw := uint64(consensus.FullRewardZoneV5)
	if next.LongTermEffectiveMedian > consensus.FullRewardZoneV5 {
		first := height - min(height, consensus.LongTermBlockWeightWindow)
		metas, err := r.MetasInRange(first, height)
		if err != nil {
			return nil, err
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
	weights, err := lastBlockWeights(r, height, MaxGrace-grace)
	if err != nil {
		return nil, err
	}
	for i := uint64(0); i < grace; i++ {
		weights = append(weights, 0)
	}
	msw := max(consensus.Median(weights), mlw)
	return fees2021(baseReward(net, &next, height), min(msw, 50*mlw), mlw), nil
}

// Base is get_dynamic_base_fee_estimate: the fee per kB before fork 8, per
// byte from it (FEE_PER_KB before dynamic fees). A store failure is
// returned as is.
func Base(r *chaindb.Reader, net params.Network, next chain.NextBlock, height, grace uint64) (uint64, error) {
	version := Version(net, height)
	if version < consensus.VersionDynamicFee {
		return consensus.FeePerKB, nil
	}
	grace = min(grace, consensus.RewardBlocksWindow-1)
	minWeight := consensus.FullRewardZone(version)
	weights, err := lastBlockWeights(r, height, consensus.RewardBlocksWindow-grace)
	if err != nil {
		return 0, err
	}
	for i := uint64(0); i < grace; i++ {
		weights = append(weights, minWeight)
	}
	median := max(consensus.Median(weights), minWeight)
	if version >= consensus.VersionLongTermBlockWeight {
		median = min(median, next.LongTermEffectiveMedian)
	}
	return consensus.DynamicBaseFee(baseReward(net, &next, height), median, version), nil
}

// lastBlockWeights is get_last_n_blocks_weights: the weights of the last n
// blocks (fewer on a shorter chain).
func lastBlockWeights(r *chaindb.Reader, height, n uint64) ([]uint64, error) {
	metas, err := r.MetasInRange(height-min(height, n), height)
	if err != nil {
		return nil, err
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
	s := []byte(strconv.FormatUint(amount, 10))
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
		v = v*10 + uint64(d-'0') // wraps past 2^64; no fee gets there
	}
	return v
}
