package consensus

// FullRewardZone is the block weight up to which no reward penalty applies
// (get_min_block_weight): 20000 for version 1, 60000 for 2..4, 300000 after.
func FullRewardZone(version uint8) uint64 {
	switch {
	case version < 2:
		return FullRewardZoneV1
	case version < 5:
		return FullRewardZoneV2
	}
	return FullRewardZoneV5
}

// The medians below are always Median of a window of stored values of the
// blocks immediately below the new block at height h (genesis included while
// the chain is short):
//
//	short-term median: block weights of heights [h - min(h, RewardBlocksWindow), h)
//	long-term median:  long-term weights of heights [h - min(h, LongTermBlockWeightWindow), h)
//
// RollingMedian keeps the long-term one up to date block by block.

// LongTermWeight is the long-term weight stored for a new block of the given
// weight and version (Blockchain::get_next_long_term_block_weight).
// longTermMedian is the long-term median for the block's height. Before
// version 10 it is just the weight; after, the weight clamped around the
// long-term median (to at most 1.4x it, and from version 15 into
// [median/1.7, 1.7 * median]), with the median floored at 300000.
func LongTermWeight(weight, longTermMedian uint64, version uint8) uint64 {
	if version < VersionLongTermBlockWeight {
		return weight
	}
	ltm := max(FullRewardZoneV5, longTermMedian)
	var ceiling uint64
	if version >= Version2021Scaling {
		weight = max(weight, ltm*10/17)
		ceiling = ltm + ltm*7/10
	} else {
		ceiling = ltm + ltm*2/5
	}
	return min(weight, ceiling)
}

// EffectiveMedian is the median weight that limits the next block at height
// h and, from version 12, scales its reward penalty
// (Blockchain::update_next_cumulative_weight_limit, the value get_info
// reports as block_weight_median). shortTermMedian and longTermMedian are the
// medians for height h; version is the version of the block at h. Before
// version 10 it is the short-term median; after, the short-term median
// bounded by the long-term one (at most 50x it). It is never below the
// version's full reward zone.
func EffectiveMedian(shortTermMedian, longTermMedian uint64, version uint8) uint64 {
	m := shortTermMedian
	if version >= VersionLongTermBlockWeight {
		ltm := max(FullRewardZoneV5, longTermMedian)
		if version >= Version2021Scaling {
			m = min(max(ltm, shortTermMedian), ShortTermBlockWeightSurgeFactor*ltm)
		} else {
			m = min(max(FullRewardZoneV5, shortTermMedian), ShortTermBlockWeightSurgeFactor*ltm)
		}
	}
	return max(m, FullRewardZone(version))
}

// BlockWeightLimit is the largest weight a block may have given the
// effective median (m_current_block_cumul_weight_limit; get_info
// block_weight_limit). BlockReward enforces it through its own median.
func BlockWeightLimit(effectiveMedian uint64) uint64 {
	return 2 * effectiveMedian
}

// RewardMedian is the median BlockReward must be given for a block of this
// version (validate_miner_transaction): the plain short-term median before
// version 12, the effective median from version 12.
func RewardMedian(shortTermMedian, effectiveMedian uint64, version uint8) uint64 {
	if version >= VersionEffectiveMedian {
		return effectiveMedian
	}
	return shortTermMedian
}
