package txpool

import (
	"slices"

	"github.com/gonero/gonero/consensus"
	"github.com/gonero/gonero/cryptonote"
)

// SanityCheck is monerod's tx_sanity_check, which sendrawtransaction applies
// unless do_sanity_checks is false: a wallet bug, not a rule. With more than
// 10 ring members in all and at least 10,000 mature RingCT outputs on the
// chain, at least 80% of the members must be distinct and their median index
// must lie in the newest 40% of the outputs.
func SanityCheck(blob []byte, matureRctOutputs uint64) bool {
	tx, err := cryptonote.ParseTransaction(blob)
	if err != nil {
		return false
	}
	if len(tx.Inputs) == 1 {
		if _, gen := tx.Inputs[0].(cryptonote.TxInGen); gen {
			return false
		}
	}
	distinct := map[uint64]struct{}{}
	n := 0
	for _, in := range tx.Inputs {
		k, ok := in.(cryptonote.TxInToKey)
		if !ok || k.Amount != 0 {
			continue
		}
		for _, idx := range consensus.AbsoluteOffsets(k.KeyOffsets) {
			distinct[idx] = struct{}{}
		}
		n += len(k.KeyOffsets)
	}
	if n <= 10 || matureRctOutputs < 10_000 {
		return true
	}
	if len(distinct) < n*8/10 {
		return false
	}
	offsets := make([]uint64, 0, len(distinct))
	for idx := range distinct {
		offsets = append(offsets, idx)
	}
	slices.Sort(offsets)
	return consensus.Median(offsets) >= matureRctOutputs*6/10
}
