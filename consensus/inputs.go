package consensus

import (
	"errors"
	"fmt"

	"github.com/gonero/gonero/crypto"
	"github.com/gonero/gonero/cryptonote"
)

// RingOutput is what the chain knows of an output a ring references.
type RingOutput struct {
	Key        cryptonote.Key
	Commitment cryptonote.Key // for pre-RingCT amounts, zeroCommit(amount)
	UnlockTime uint64         // of the transaction that created it
	Height     uint64         // of the block that created it
}

// ErrOutputNotFound is returned by a TxChainState for an index at or above
// the count of its amount.
var ErrOutputNotFound = errors.New("output does not exist")

// TxChainState is the main chain as check_tx_inputs sees it: the blocks
// below the one the transaction goes into.
type TxChainState interface {
	// NumOutputs is the number of outputs ever created with this amount
	// (0 for RingCT outputs), locked ones included.
	NumOutputs(amount uint64) (uint64, error)
	// KeyImageSpent reports whether a main-chain transaction spent ki.
	KeyImageSpent(ki cryptonote.Key) (bool, error)
	// Outputs returns the outputs of this amount at these absolute indexes,
	// in order, or an error wrapping ErrOutputNotFound. For amount 0 the
	// commitment is the stored one; for other amounts it may be left zero.
	Outputs(amount uint64, indexes []uint64) ([]RingOutput, error)
}

// InputContext is the chain-dependent part of check_tx_inputs.
type InputContext struct {
	HF     uint8  // hard-fork version of the block the tx goes into
	Height uint64 // H: blocks below it
	// Now is the time against which time-based unlocks are judged:
	// get_adjusted_time(H) from hard fork 13, the node's clock before.
	Now   uint64
	State TxChainState
}

// MinMixin is the smallest ring size − 1 a hard fork requires.
func MinMixin(hf uint8) int {
	switch {
	case hf >= VersionMinMixin15:
		return 15
	case hf >= VersionMinMixin10:
		return 10
	case hf >= VersionMinMixin6:
		return 6
	case hf >= VersionMinMixin4:
		return 4
	}
	return 2
}

// AbsoluteOffsets turns a ring's relative key offsets into absolute output
// indexes (the sums wrap as monerod's do; a wrapped index does not exist).
func AbsoluteOffsets(rel []uint64) []uint64 {
	abs := make([]uint64, len(rel))
	var sum uint64
	for i, r := range rel {
		sum += r
		abs[i] = sum
	}
	return abs
}

// IsSpendTimeUnlocked is is_tx_spendtime_unlocked for an output of a
// transaction with this unlock time, judged for a block at height H.
func IsSpendTimeUnlocked(unlockTime, height, now uint64, hf uint8) bool {
	if unlockTime < MaxBlockNumber {
		return height-1+LockedTxAllowedDeltaBlocks >= unlockTime
	}
	delta := uint64(DifficultyTargetV2)
	if hf < 2 {
		delta = LockedTxAllowedDeltaSeconds
	}
	return now+delta >= unlockTime
}

// AdjustedTime is get_adjusted_time(H) given the timestamps of blocks
// H−60 … H−1 (ts, oldest first): the smaller of their median projected
// to block H and the last one plus a target. Below 60 blocks monerod uses
// the node's clock, which the caller passes as now.
func AdjustedTime(ts []uint64, now uint64) uint64 {
	if len(ts) < TimestampCheckWindow {
		return now
	}
	median := Median(ts) + (TimestampCheckWindow+1)*DifficultyTargetV2/2
	next := ts[len(ts)-1] + DifficultyTargetV2
	return min(median, next)
}

// CheckTxInputs is Blockchain::check_tx_inputs without the signatures, in
// its order: at least two outputs (v2, from hard fork 12), ring sizes and
// versions, sorted key images (from 7), and per input: a non-empty ring, a
// key image not spent on the chain, ring members that exist and are
// unlocked; then the spendable age (from 12). It returns each input's ring
// for VerifyTxSignatures.
func CheckTxInputs(tx *cryptonote.Transaction, ctx *InputContext) ([][]RingOutput, error) {
	hf := ctx.HF
	if hf >= VersionMin2Outputs && tx.Version >= 2 && len(tx.Outputs) < 2 {
		return nil, txErr(RuleTooFewOutputs, FlagTooFewOutputs, fmt.Errorf("%d output(s)", len(tx.Outputs)))
	}
	if hf >= 2 {
		if err := checkRingSizes(tx, ctx); err != nil {
			return nil, err
		}
	}
	if hf >= VersionSortedInputs {
		var last *cryptonote.Key
		for i := range tx.Inputs {
			in, ok := tx.Inputs[i].(cryptonote.TxInToKey)
			if !ok {
				continue
			}
			if last != nil && !keyImageLess(in.KeyImage, *last) {
				return nil, txErr(RuleUnsortedInputs, 0, fmt.Errorf("input %d's key image is not below input %d's", i, i-1))
			}
			ki := in.KeyImage
			last = &ki
		}
	}
	rings := make([][]RingOutput, len(tx.Inputs))
	var maxUsedHeight uint64
	for i, txin := range tx.Inputs {
		in, ok := txin.(cryptonote.TxInToKey)
		if !ok {
			return nil, txErr(RuleInputType, 0, fmt.Errorf("input %d is %T", i, txin))
		}
		if len(in.KeyOffsets) == 0 {
			return nil, txErr(RuleEmptyRing, 0, fmt.Errorf("input %d", i))
		}
		spent, err := ctx.State.KeyImageSpent(in.KeyImage)
		if err != nil {
			return nil, err
		}
		if spent {
			return nil, txErr(RuleKeyImageSpent, FlagDoubleSpend, fmt.Errorf("key image %s", in.KeyImage))
		}
		abs := AbsoluteOffsets(in.KeyOffsets)
		ring, err := ctx.State.Outputs(in.Amount, abs)
		if err != nil {
			if errors.Is(err, ErrOutputNotFound) {
				return nil, txErr(RuleOutputNotFound, 0, fmt.Errorf("input %d, amount %d: %w", i, in.Amount, err))
			}
			return nil, err
		}
		if len(ring) != len(abs) {
			return nil, txErr(RuleOutputNotFound, 0, fmt.Errorf("input %d: %d of %d ring members found", i, len(ring), len(abs)))
		}
		for j := range ring {
			if !IsSpendTimeUnlocked(ring[j].UnlockTime, ctx.Height, ctx.Now, hf) {
				return nil, txErr(RuleRingMemberLocked, 0, fmt.Errorf("input %d, ring member %d has unlock time %d", i, j, ring[j].UnlockTime))
			}
			if in.Amount != 0 {
				ring[j].Commitment = crypto.ZeroCommit(in.Amount)
			}
		}
		maxUsedHeight = max(maxUsedHeight, ring[len(ring)-1].Height)
		rings[i] = ring
	}
	if hf >= VersionEnforceMinAge && maxUsedHeight+TxSpendableAge > ctx.Height {
		return nil, txErr(RuleRingMemberTooYoung, 0,
			fmt.Errorf("newest ring member at height %d, spendable from %d, block height %d", maxUsedHeight, maxUsedHeight+TxSpendableAge, ctx.Height))
	}
	return rings, nil
}

// ResolveRings reads the ring of every input from state as CheckTxInputs
// does (absolute offsets, the outputs in ring order, the zero-mask
// commitment for pre-RingCT amounts), without any of its rules: for
// checking signatures ahead of a block (the result is what
// VerifyTxSignatures takes). It fails for an input that is not a key input,
// an empty ring, or a member the state does not hold.
func ResolveRings(tx *cryptonote.Transaction, state TxChainState) ([][]RingOutput, error) {
	rings := make([][]RingOutput, len(tx.Inputs))
	for i, txin := range tx.Inputs {
		in, ok := txin.(cryptonote.TxInToKey)
		if !ok {
			return nil, fmt.Errorf("input %d is %T", i, txin)
		}
		if len(in.KeyOffsets) == 0 {
			return nil, fmt.Errorf("input %d has an empty ring", i)
		}
		abs := AbsoluteOffsets(in.KeyOffsets)
		ring, err := state.Outputs(in.Amount, abs)
		if err != nil {
			return nil, err
		}
		if len(ring) != len(abs) {
			return nil, fmt.Errorf("input %d: %d of %d ring members found", i, len(ring), len(abs))
		}
		if in.Amount != 0 {
			for j := range ring {
				ring[j].Commitment = crypto.ZeroCommit(in.Amount)
			}
		}
		rings[i] = ring
	}
	return rings, nil
}

// checkRingSizes is check_tx_inputs' mixin and version rules (from hard
// fork 2).
func checkRingSizes(tx *cryptonote.Transaction, ctx *InputContext) error {
	hf := ctx.HF
	minMixin := MinMixin(hf)
	nUnmixable, nMixable := 0, 0
	minActual, maxActual := int(^uint(0)>>1), 0
	for _, txin := range tx.Inputs {
		in, ok := txin.(cryptonote.TxInToKey)
		if !ok {
			continue
		}
		if in.Amount == 0 {
			nMixable++
		} else {
			n, err := ctx.State.NumOutputs(in.Amount)
			if err != nil {
				return err
			}
			if n <= uint64(minMixin) {
				nUnmixable++
			} else {
				nMixable++
			}
		}
		mixin := len(in.KeyOffsets) - 1
		minActual = min(minActual, mixin)
		maxActual = max(maxActual, mixin)
	}
	if hf >= VersionSameMixin && minActual != maxActual {
		return txErr(RuleVaryingRingSize, FlagLowMixin, fmt.Errorf("ring sizes %d to %d, it should be constant", minActual+1, maxActual+1))
	}
	if minActual < minMixin && !(hf == VersionMinMixin15 && minActual == 10) {
		if nUnmixable == 0 {
			return txErr(RuleLowRingSize, FlagLowMixin, fmt.Errorf("ring size %d and no unmixable inputs", minActual+1))
		}
		if nMixable > 1 {
			return txErr(RuleLowRingSize, FlagLowMixin, fmt.Errorf("ring size %d and more than one mixable input with unmixable inputs", minActual+1))
		}
	} else if (hf > VersionMinMixin15 && minActual > 15) ||
		(hf == VersionMinMixin15 && minActual != 15 && minActual != 10) ||
		(hf < VersionMinMixin15 && hf >= VersionMinMixin10+2 && minActual > 10) ||
		((hf == VersionMinMixin10 || hf == VersionMinMixin10+1) && minActual != 10) {
		return txErr(RuleInvalidRingSize, FlagLowMixin, fmt.Errorf("ring size %d, it should be %d", minActual+1, minMixin+1))
	}
	maxVersion := uint64(2)
	if hf <= 3 {
		maxVersion = 1
	}
	if tx.Version > maxVersion {
		return txErr(RuleVersionTooHigh, 0, fmt.Errorf("version %d, max %d", tx.Version, maxVersion))
	}
	minVersion := uint64(1)
	if nUnmixable == 0 && hf >= VersionEnforceRct {
		minVersion = 2
	}
	if tx.Version < minVersion {
		return txErr(RuleVersionTooLow, 0, fmt.Errorf("version %d, min %d", tx.Version, minVersion))
	}
	return nil
}
