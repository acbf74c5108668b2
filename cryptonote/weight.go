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
	var nPad uint64
	pad := func(rounds int) {
		if rounds >= 6 && rounds <= 10 { // the decoder guarantees it; a hand-built value may not
			nPad += 1 << (rounds - 6)
		}
	}
	if tx.Rct.Type == RctTypeBulletproofPlus {
		for i := range p.BulletproofsPlus {
			pad(len(p.BulletproofsPlus[i].L))
		}
	} else {
		for i := range p.Bulletproofs {
			pad(len(p.Bulletproofs[i].L))
		}
	}
	return w + bulletproofClawback(nPad, tx.Rct.Type == RctTypeBulletproofPlus)
}

// bulletproofClawback is the extra weight of proofs covering nPad padded
// outputs: 4/5 of what nPad separate 2-output proofs would have cost beyond
// the one aggregated proof.
func bulletproofClawback(nPad uint64, plus bool) uint64 {
	if nPad <= 2 {
		return 0
	}
	k := uint64(9)
	if plus {
		k = 6
	}
	base := 32 * (k + 14) / 2
	nlr := uint64(bits.Len64(nPad-1)) + 6 // ceil(log2(nPad)) + 6
	size := 32 * (k + 2*nlr)
	return (base*nPad - size) * 4 / 5
}
