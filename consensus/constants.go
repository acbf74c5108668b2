// Package consensus holds monerod v0.18's consensus arithmetic as pure
// functions: next difficulty, emission and the weight penalty, long-term
// weights and medians, the proof-of-work predicate and RandomX seed heights,
// and the version and timestamp rules for a new block. Nothing here reads
// storage; callers pass the numbers, and helpers such as
// DifficultyInputRange say which heights those numbers must come from.
//
// The network-independent protocol constants live here too, next to the
// rules that use them; what differs per network is in package params.
package consensus

import "math"

// Difficulty (cryptonote_config.h; difficulty.cpp next_difficulty).
const (
	DifficultyTargetV1    = 60                               // seconds per block while the block version is 1
	DifficultyTargetV2    = 120                              // seconds per block from version 2
	DifficultyWindow      = 720                              // blocks whose timestamps and work enter the calculation
	DifficultyLag         = 15                               // newest blocks left out of the window
	DifficultyCut         = 60                               // outlying timestamps dropped at each end after sorting
	DifficultyBlocksCount = DifficultyWindow + DifficultyLag // blocks monerod reads per calculation
)

// Emission (cryptonote_config.h; cryptonote_basic_impl.cpp get_block_reward).
const (
	MoneySupply                  = math.MaxUint64  // "infinite": the curve approaches 2^64-1 atomic units
	EmissionSpeedFactorPerMinute = 20              // base reward = remaining supply >> (factor - (target minutes - 1))
	FinalSubsidyPerMinute        = 300_000_000_000 // tail emission: 0.3 XMR per minute of target, 0.6 XMR per v2 block
	Coin                         = 1_000_000_000_000
	MinedMoneyUnlockWindow       = 60 // a miner tx unlocks at its height + 60 (CRYPTONOTE_MINED_MONEY_UNLOCK_WINDOW)
)

// Block weight (cryptonote_config.h; blockchain.cpp update_next_cumulative_weight_limit).
const (
	FullRewardZoneV1                = 20_000  // penalty-free block weight, version 1
	FullRewardZoneV2                = 60_000  // versions 2..4
	FullRewardZoneV5                = 300_000 // from version 5; also the floor of the long-term median
	RewardBlocksWindow              = 100     // blocks in the short-term weight median
	LongTermBlockWeightWindow       = 100_000 // blocks in the long-term weight median
	ShortTermBlockWeightSurgeFactor = 50      // effective median <= 50 * long-term median
)

// Block timestamps (cryptonote_config.h; blockchain.cpp check_block_timestamp).
const (
	TimestampCheckWindow = 60   // a timestamp must not be below the median of this many previous ones
	BlockFutureTimeLimit = 7200 // nor more than this many seconds ahead of local time
)

// RandomX (rx-slow-hash.c, cryptonote_config.h). monerod lets the
// SEEDHASH_EPOCH_* environment variables lower the epoch values; a node that
// must agree with the network ignores that.
const (
	SeedHashEpochBlocks = 2048 // the seed block changes every 2048 blocks
	SeedHashEpochLag    = 64   // ... and is used 64 blocks after it became due
	RandomXVersion      = 12   // RX_BLOCK_VERSION: first major version mined with RandomX
)

// Hard-fork versions at which the rules in this package change
// (cryptonote_config.h HF_VERSION_*).
const (
	VersionLongTermBlockWeight = 10 // long-term weights and the effective median
	VersionEffectiveMedian     = 12 // the reward penalty uses the effective median (..._SHORT_TERM_MEDIAN_IN_PENALTY)
	VersionExactCoinbase       = 13 // the miner tx must claim exactly reward + fees again
	Version2021Scaling         = 15 // long-term weight floor and the new effective-median bounds
)
