package cryptonote

import "math/bits"

// Weight is the transaction weight used for block weights and fees: the blob
// size, plus for Bulletproof-family RingCT types the "clawback" that charges
// aggregated range proofs for the outputs they cover
// (cryptonote_format_utils.cpp get_transaction_weight). blobSize must be the
// length of tx's serialization.
func (tx *Transaction) Weight(blobSize int) uint64 {
	w := uint64(blobSize)
	if tx.Version < 2 || tx.Rct == nil || tx.Rct.Type < RctTypeBulletproof || tx.Rct.Prunable == nil {
		return w
	}
	p := tx.Rct.Prunable
	var rounds []int
	for i := range p.Bulletproofs {
		rounds = append(rounds, len(p.Bulletproofs[i].L))
	}
	for i := range p.BulletproofsPlus {
		rounds = append(rounds, len(p.BulletproofsPlus[i].L))
	}
	return w + bulletproofClawback(paddedOutputs(rounds), tx.Rct.Type == RctTypeBulletproofPlus)
}

// paddedOutputs is rct::n_bulletproof_max_amounts: a proof with L rounds
// covers 2^(L-6) outputs; any proof outside 6..10 rounds makes the count 0
// (the decoder refuses such proofs, but a hand-built value may hold one).
func paddedOutputs(rounds []int) uint64 {
	var n uint64
	for _, l := range rounds {
		if l < 6 || l > 10 {
			return 0
		}
		n += 1 << (l - 6)
	}
	return n
}

// bulletproofClawback (get_transaction_weight_clawback) is 4/5 of what nPad
// outputs' share of 2-output proofs would have weighed beyond the one
// aggregated proof that covers them.
func bulletproofClawback(nPad uint64, plus bool) uint64 {
	if nPad <= 2 {
		return 0
	}
	k := uint64(9) // scalars in a proof besides L and R
	if plus {
		k = 6
	}
	base := 32 * (k + 14) / 2
	nlr := uint64(bits.Len64(nPad-1)) + 6 // ceil(log2(nPad)) + 6
	size := 32 * (k + 2*nlr)
	return (base*nPad - size) * 4 / 5
}
