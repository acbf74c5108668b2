package consensus

import "math/bits"

// Fees (cryptonote_config.h). No minimum fee is consensus: these are the
// pool's rule (Blockchain::check_fee), never applied to a block's txs.
const (
	DynamicFeeReferenceTxWeight = 3000
	DynamicFeePerKBBaseFee      = 2_000_000_000
	DynamicFeePerKBBaseFeeV5    = 400_000_000 // 2e9 · 60000 / 300000
	DynamicFeePerKBBaseReward   = 10_000_000_000_000
	FeeQuantizationMask         = 10_000 // 10^(12 − 8): fees are rounded up to 8 decimals
)

// DynamicBaseFee is Blockchain::get_dynamic_base_fee: the fee per byte
// (from hard fork 8) or per kB (4–7) for a block reward and a median weight.
func DynamicBaseFee(blockReward, medianWeight uint64, hf uint8) uint64 {
	minWeight := FullRewardZone(hf)
	medianWeight = max(medianWeight, minWeight)
	if hf >= VersionPerByteFee {
		hi, lo := bits.Mul64(blockReward, DynamicFeeReferenceTxWeight)
		hi, lo = div128By64(hi, lo, medianWeight)
		if hf >= Version2021Scaling {
			_, lo = div128By64(hi, lo, medianWeight)
			return lo - lo/20
		}
		_, lo = div128By64(hi, lo, minWeight)
		return lo / 5
	}
	feeBase := uint64(DynamicFeePerKBBaseFee)
	if hf >= 5 {
		feeBase = DynamicFeePerKBBaseFeeV5
	}
	unscaled := feeBase * minWeight / medianWeight
	hi, lo := bits.Mul64(unscaled, blockReward)
	_, lo = div128By64(hi, lo, DynamicFeePerKBBaseReward)
	return (lo + FeeQuantizationMask - 1) / FeeQuantizationMask * FeeQuantizationMask
}

// FeeContext is what check_fee reads of the chain.
type FeeContext struct {
	HF                uint8
	BlockWeightLimit  uint64 // m_current_block_cumul_weight_limit
	LongTermEffective uint64 // m_long_term_effective_median_block_weight
	AlreadyGenerated  uint64 // coins generated up to the top block
}

// NeededFee is the fee check_fee asks of a transaction of this weight
// (before its 2% tolerance).
func NeededFee(weight uint64, c FeeContext) uint64 {
	var baseReward uint64
	median := c.BlockWeightLimit / 2
	if c.HF >= VersionDynamicFee {
		r, err := BlockReward(median, 1, c.AlreadyGenerated, c.HF)
		if err != nil {
			return ^uint64(0)
		}
		baseReward = r
	}
	if c.HF >= VersionPerByteFee {
		m := median
		if c.HF >= VersionLongTermBlockWeight { // the long-term median enters the fee with it
			m = min(median, c.LongTermEffective)
		}
		needed := weight * DynamicBaseFee(baseReward, m, c.HF)
		return (needed + FeeQuantizationMask - 1) / FeeQuantizationMask * FeeQuantizationMask
	}
	perKB := uint64(FeePerKB)
	if c.HF >= VersionDynamicFee {
		perKB = DynamicBaseFee(baseReward, median, c.HF)
	}
	kb := weight / 1024
	if weight%1024 != 0 {
		kb++
	}
	return kb * perKB
}

// CheckFee is Blockchain::check_fee: the fee is at least the needed fee
// less 2%.
func CheckFee(weight, fee uint64, c FeeContext) bool {
	needed := NeededFee(weight, c)
	return fee >= needed-needed/50 // a 2% tolerance
}
