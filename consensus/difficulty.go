package consensus

import (
	"math/bits"
	"slices"

	"github.com/gonero/gonero/internal/u128"
)

// DifficultyTarget is the block time the difficulty aims at for a block of
// the given major version (Blockchain::get_difficulty_target): 60 s for
// version 1, 120 s after. Pass the version of the block being produced
// (VersionAt of its height), not of the current top block.
func DifficultyTarget(version uint8) uint64 {
	if version < 2 {
		return DifficultyTargetV1
	}
	return DifficultyTargetV2
}

// DifficultyInputRange returns the heights [first, end) whose timestamps and
// cumulative difficulties NextDifficulty needs to compute the difficulty of
// the block at height chainHeight (= the current chain length): the last
// DifficultyBlocksCount blocks, never the genesis block
// (Blockchain::get_difficulty_for_next_block). The range is empty while
// chainHeight <= 1. The same range applies to an alternative chain, taking
// each height's data from that chain.
func DifficultyInputRange(chainHeight uint64) (first, end uint64) {
	first = 1
	if chainHeight > DifficultyBlocksCount {
		first = chainHeight - DifficultyBlocksCount
	}
	if chainHeight < first {
		return chainHeight, chainHeight
	}
	return first, chainHeight
}

// FixedDifficulty is the difficulty of the block at height under
// --fixed-difficulty n (n != 0): 1 for the genesis block, n for every other
// block, on the main chain and on alternative chains; NextDifficulty is not
// used at all then.
func FixedDifficulty(height, n uint64) u128.U128 {
	if height == 0 {
		return u128.From64(1)
	}
	return u128.From64(n)
}

// NextDifficulty is difficulty.cpp next_difficulty. timestamps and
// cumulativeDifficulties are those of the heights DifficultyInputRange
// names, oldest first; only the first DifficultyWindow entries are used (the
// newest DifficultyLag blocks of a full range are skipped). target comes
// from DifficultyTarget. The arguments are not modified.
//
// The result is 0 when the true value does not fit in 128 bits; monerod
// then refuses the block ("difficulty overhead"). The slices must have the
// same length (monerod asserts this); NextDifficulty panics otherwise.
func NextDifficulty(timestamps []uint64, cumulativeDifficulties []u128.U128, target uint64) u128.U128 {
	if len(timestamps) != len(cumulativeDifficulties) {
		panic("consensus: NextDifficulty needs as many timestamps as cumulative difficulties")
	}
	n := min(len(timestamps), DifficultyWindow)
	if n <= 1 {
		return u128.From64(1)
	}
	ts := make([]uint64, n)
	copy(ts, timestamps)
	slices.Sort(ts) // the cumulative difficulties stay in chain order

	lo, hi := 0, n
	if kept := DifficultyWindow - 2*DifficultyCut; n > kept {
		lo = (n - kept + 1) / 2
		hi = lo + kept
	}
	span := ts[hi-1] - ts[lo]
	if span == 0 {
		span = 1
	}
	// 128-bit subtraction wraps like boost's uint128 would if the input were
	// not monotonic; real chains never are.
	work, _ := cumulativeDifficulties[hi-1].Sub(cumulativeDifficulties[lo])

	// (work*target + span - 1) / span with a 192-bit numerator: p2:p1:p0.
	h0, p0 := bits.Mul64(work.Lo, target)
	h1, l1 := bits.Mul64(work.Hi, target)
	p1, c := bits.Add64(l1, h0, 0)
	p2 := h1 + c
	var c2 uint64
	p0, c = bits.Add64(p0, span-1, 0)
	p1, c2 = bits.Add64(p1, 0, c)
	p2 += c2

	q2, r := p2/span, p2%span
	q1, r := bits.Div64(r, p1, span)
	q0, _ := bits.Div64(r, p0, span)
	if q2 != 0 {
		return u128.U128{} // more than 128 bits
	}
	return u128.U128{Lo: q0, Hi: q1}
}
