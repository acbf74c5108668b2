package consensus

import "math/bits"

// BaseReward is the block subsidy before any weight penalty
// (cryptonote_basic_impl.cpp get_block_reward): the not yet generated supply
// shifted right by 20 for version 1 (60 s blocks) or 19 after (120 s
// blocks), but never less than the tail emission of 0.3 XMR per target
// minute. alreadyGenerated is the total generated before this block.
func BaseReward(alreadyGenerated uint64, version uint8) uint64 {
	targetMinutes := DifficultyTarget(version) / 60
	speedFactor := EmissionSpeedFactorPerMinute - (targetMinutes - 1)
	r := (MoneySupply - alreadyGenerated) >> speedFactor
	if tail := FinalSubsidyPerMinute * targetMinutes; r < tail {
		r = tail
	}
	return r
}

// BlockReward is get_block_reward: the base reward, reduced by the penalty
// for a block whose weight exceeds the median, reward * (1 - (W/M - 1)^2)
// computed exactly as monerod does it: M is raised to the version's full
// reward zone, the factor (2M - W) * W is a 64-bit product, the product with
// the base reward is 128-bit, and it is divided by M twice with truncation.
// A block heavier than 2M is refused with *BlockTooBigError.
//
// median is RewardMedian's result for the block's version.
func BlockReward(median, weight, alreadyGenerated uint64, version uint8) (uint64, error) {
	base := BaseReward(alreadyGenerated, version)
	median = max(median, FullRewardZone(version))
	if weight <= median {
		return base, nil
	}
	if weight > 2*median {
		return 0, &BlockTooBigError{Weight: weight, Median: median}
	}
	factor := (2*median - weight) * weight // size_t arithmetic in monerod
	hi, lo := bits.Mul64(base, factor)
	hi, lo = div128By64(hi, lo, median)
	_, lo = div128By64(hi, lo, median)
	return lo, nil // the penalty leaves less than base, so the high word is 0
}

// div128By64 is int-util.h div128_64 without the remainder: the 128-bit
// quotient of hi:lo / d.
func div128By64(hi, lo, d uint64) (qhi, qlo uint64) {
	qhi, r := hi/d, hi%d
	qlo, _ = bits.Div64(r, lo, d)
	return qhi, qlo
}

// CheckMinerTxAmount applies validate_miner_transaction's amount rules to a
// block whose miner tx outputs sum to outputs, whose reward is BlockReward's
// result and whose transactions pay fees. It returns the coins the block
// generates: the full reward, except in versions 2..12 where a miner may
// claim less and only outputs - fees is generated.
func CheckMinerTxAmount(outputs, reward, fees uint64, version uint8) (generated uint64, err error) {
	if reward+fees < outputs {
		return 0, &MinerTxAmountError{Outputs: outputs, Reward: reward, Fees: fees, Err: ErrMinerTxOverspend}
	}
	if version < 2 || version >= VersionExactCoinbase {
		if reward+fees != outputs {
			return 0, &MinerTxAmountError{Outputs: outputs, Reward: reward, Fees: fees, Err: ErrMinerTxNotExact}
		}
		return reward, nil
	}
	if outputs < fees {
		// monerod's "base reward calculation bug" assertion: the unsigned
		// difference below would wrap.
		return 0, &MinerTxAmountError{Outputs: outputs, Reward: reward, Fees: fees, Err: ErrMinerTxBelowFees}
	}
	return outputs - fees, nil
}

// AddGeneratedCoins is the running total after a block that generated
// generated coins, capped at MoneySupply so that tail emission never wraps
// (blockchain.cpp handle_block_to_main_chain).
func AddGeneratedCoins(alreadyGenerated, generated uint64) uint64 {
	if generated < MoneySupply-alreadyGenerated {
		return alreadyGenerated + generated
	}
	return MoneySupply
}
