// Package pruning is monerod's blockchain pruning geometry (src/common/pruning.{h,cpp}):
// which blocks' prunable transaction data a node with a given pruning seed keeps.
//
// The chain below the tip is cut into stripes of StripeSize blocks, dealt
// round-robin to 1<<LogStripes stripe numbers (1-based). A pruned node keeps
// the prunable data of its own stripe and of the last TipBlocks blocks, and
// drops it everywhere else. A pruning seed packs (log_stripes, stripe) into a
// u32; 0 means "not pruned".
package pruning

import (
	"crypto/rand"
	"errors"
	"fmt"
)

// Monerod's constants (cryptonote_config.h and pruning.h).
const (
	LogStripes = 3    // CRYPTONOTE_PRUNING_LOG_STRIPES
	Stripes    = 8    // 1 << LogStripes
	StripeSize = 4096 // CRYPTONOTE_PRUNING_STRIPE_SIZE
	TipBlocks  = 5500 // CRYPTONOTE_PRUNING_TIP_BLOCKS

	seedLogStripesShift = 7
	seedLogStripesMask  = 0x7
	seedStripeShift     = 0
	seedStripeMask      = 0x7f

	// maxBlockNumber is CRYPTONOTE_MAX_BLOCK_NUMBER; the next-unpruned
	// arithmetic refuses heights above it (and so cannot overflow).
	maxBlockNumber = 500000000
)

// LogStripesOf is get_pruning_log_stripes.
func LogStripesOf(seed uint32) uint32 { return (seed >> seedLogStripesShift) & seedLogStripesMask }

// StripeOf is get_pruning_stripe(seed): 0 for an unpruned seed, else 1-based.
func StripeOf(seed uint32) uint32 {
	if seed == 0 {
		return 0
	}
	return 1 + ((seed >> seedStripeShift) & seedStripeMask)
}

// MakeSeed is make_pruning_seed; monerod throws where this returns an error.
func MakeSeed(stripe, logStripes uint32) (uint32, error) {
	if logStripes > seedLogStripesMask {
		return 0, fmt.Errorf("pruning: log_stripes %d out of range", logStripes)
	}
	if stripe == 0 || uint64(stripe) > uint64(1)<<logStripes {
		return 0, fmt.Errorf("pruning: stripe %d out of range for %d stripes", stripe, uint64(1)<<logStripes)
	}
	return logStripes<<seedLogStripesShift | (stripe-1)<<seedStripeShift, nil
}

// SeedForStripe is MakeSeed(stripe, LogStripes) for a stripe known to be 1…8.
func SeedForStripe(stripe uint32) uint32 {
	s, err := MakeSeed(stripe, LogStripes)
	if err != nil {
		panic(err)
	}
	return s
}

// ErrInvalidSeed is what ValidateSeed returns for a seed a peer must not announce.
var ErrInvalidSeed = errors.New("pruning: invalid pruning seed")

// ValidateSeed accepts 0 (unpruned) and the seeds of this build's stripe
// count (0x180…0x187), as monerod's process_payload_sync_data and peer-list
// checks do: anything else is a protocol violation.
func ValidateSeed(seed uint32) error {
	if seed == 0 {
		return nil
	}
	if LogStripesOf(seed) != LogStripes || StripeOf(seed) > Stripes {
		return fmt.Errorf("%w %#x", ErrInvalidSeed, seed)
	}
	return nil
}

// StripeOfHeight is get_pruning_stripe(block_height, blockchain_height,
// log_stripes): 0 for a block in the tip (never pruned), else its stripe.
func StripeOfHeight(blockHeight, chainHeight uint64, logStripes uint32) uint32 {
	if blockHeight+TipBlocks >= chainHeight {
		return 0
	}
	return uint32((blockHeight/StripeSize)&(uint64(1)<<logStripes-1)) + 1
}

// SeedOfHeight is get_pruning_seed(block_height, blockchain_height, log_stripes).
func SeedOfHeight(blockHeight, chainHeight uint64, logStripes uint32) uint32 {
	s := StripeOfHeight(blockHeight, chainHeight, logStripes)
	if s == 0 {
		return 0
	}
	seed, _ := MakeSeed(s, logStripes)
	return seed
}

// HasUnprunedBlock is has_unpruned_block: whether a node with seed keeps the
// prunable data of blockHeight on a chain of chainHeight blocks.
func HasUnprunedBlock(blockHeight, chainHeight uint64, seed uint32) bool {
	stripe := StripeOf(seed)
	if stripe == 0 {
		return true
	}
	bs := StripeOfHeight(blockHeight, chainHeight, LogStripesOf(seed))
	return bs == 0 || bs == stripe
}

// NextUnprunedHeight is get_next_unpruned_block_height: the first height ≥
// blockHeight that seed holds unpruned (clamped to the start of the tip).
// Heights beyond monerod's CRYPTONOTE_MAX_BLOCK_NUMBER+1 are answered with
// blockHeight, as monerod's CHECK_AND_ASSERT_MES does.
func NextUnprunedHeight(blockHeight, chainHeight uint64, seed uint32) uint64 {
	if blockHeight > maxBlockNumber+1 || chainHeight > maxBlockNumber+1 {
		return blockHeight
	}
	stripe := StripeOf(seed)
	if stripe == 0 || blockHeight+TipBlocks >= chainHeight {
		return blockHeight
	}
	log := uint64(LogStripesOf(seed))
	if log == 0 {
		log = LogStripes
	}
	mask := uint64(1)<<log - 1
	blockStripe := uint32((blockHeight/StripeSize)&mask) + 1
	if blockStripe == stripe {
		return blockHeight
	}
	cycles := (blockHeight / StripeSize) >> log
	cycleStart := cycles
	if stripe <= blockStripe {
		cycleStart++
	}
	h := cycleStart*(StripeSize<<log) + uint64(stripe-1)*StripeSize
	if h+TipBlocks > chainHeight {
		if chainHeight < TipBlocks {
			return 0
		}
		return chainHeight - TipBlocks
	}
	return h
}

// NextPrunedHeight is get_next_pruned_block_height: the first height ≥
// blockHeight whose prunable data seed lacks (chainHeight if none).
func NextPrunedHeight(blockHeight, chainHeight uint64, seed uint32) uint64 {
	stripe := StripeOf(seed)
	if stripe == 0 || blockHeight+TipBlocks >= chainHeight {
		return chainHeight
	}
	log := uint64(LogStripesOf(seed))
	if log == 0 {
		log = LogStripes
	}
	mask := uint64(1)<<log - 1
	blockStripe := uint32((blockHeight/StripeSize)&mask) + 1
	if blockStripe != stripe {
		return blockHeight
	}
	next := 1 + (blockStripe & uint32(mask))
	nextSeed, _ := MakeSeed(next, uint32(log))
	return NextUnprunedHeight(blockHeight, chainHeight, nextSeed)
}

// RandomStripe is get_random_stripe: a uniformly chosen stripe 1…8.
func RandomStripe() uint32 {
	var b [1]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err) // crypto/rand does not fail on supported platforms
	}
	return 1 + uint32(b[0])%Stripes
}
