package ringct

import (
	"errors"

	"github.com/gonero/gonero/crypto"
	"github.com/gonero/gonero/cryptonote"
)

// Errors of MessageHash.
var (
	ErrNotRingCT    = errors.New("ringct: not a RingCT transaction")
	ErrPruned       = errors.New("ringct: transaction has no prunable data")
	ErrInconsistent = errors.New("ringct: RingCT sizes do not match the transaction")
)

// MessageHash is get_pre_mlsag_hash, the message every MLSAG and CLSAG of a
// RingCT transaction signs:
//
//	Keccak(prefix_hash ‖ Keccak(rct base bytes) ‖ Keccak(range-proof fields))
//
// where the range-proof fields are, concatenated with no counts: types 1/2:
// s0[64] ‖ s1[64] ‖ ee ‖ Ci[64] per proof; types 3–5: A S T1 T2 taux mu L… R…
// a b t per proof; type 6: A A1 B r1 s1 d1 L… R… per proof.
//
// It fails for v1 transactions, RingCT type 0, a pruned transaction, nil
// inputs or output targets, and RingCT data whose sizes do not match the
// inputs and outputs (monerod's serializer refuses those).
func MessageHash(tx *cryptonote.Transaction) ([32]byte, error) {
	if tx == nil || tx.Version != 2 || tx.Rct == nil {
		return [32]byte{}, ErrNotRingCT
	}
	r := tx.Rct
	if r.Type < cryptonote.RctTypeFull || r.Type > cryptonote.RctTypeBulletproofPlus {
		return [32]byte{}, ErrNotRingCT
	}
	if r.Prunable == nil {
		return [32]byte{}, ErrPruned
	}
	nout := len(tx.Outputs)
	if len(r.EcdhInfo) != nout || len(r.OutPk) != nout ||
		(r.Type == cryptonote.RctTypeSimple && len(r.PseudoOuts) != len(tx.Inputs)) ||
		(r.Type != cryptonote.RctTypeSimple && len(r.PseudoOuts) != 0) {
		return [32]byte{}, ErrInconsistent
	}
	for _, in := range tx.Inputs {
		if in == nil {
			return [32]byte{}, ErrInconsistent
		}
	}
	for _, o := range tx.Outputs {
		if o.Target == nil {
			return [32]byte{}, ErrInconsistent
		}
	}
	prefix := tx.Hashes().PrefixHash
	base := crypto.Keccak256(r.SerializeBase())
	proofs := crypto.Keccak256(rangeProofBytes(r.Type, r.Prunable))
	return crypto.Keccak256(prefix[:], base[:], proofs[:]), nil
}

func appendKeys(b []byte, ks ...cryptonote.Key) []byte {
	for i := range ks {
		b = append(b, ks[i][:]...)
	}
	return b
}

// rangeProofBytes is the key vector get_pre_mlsag_hash hashes third.
func rangeProofBytes(typ uint8, p *cryptonote.RctPrunable) []byte {
	var b []byte
	switch typ {
	case cryptonote.RctTypeFull, cryptonote.RctTypeSimple:
		b = make([]byte, 0, len(p.RangeSigs)*193*32)
		for i := range p.RangeSigs {
			rs := &p.RangeSigs[i]
			b = appendKeys(b, rs.S0[:]...)
			b = appendKeys(b, rs.S1[:]...)
			b = appendKeys(b, rs.Ee)
			b = appendKeys(b, rs.Ci[:]...)
		}
	case cryptonote.RctTypeBulletproofPlus:
		for i := range p.BulletproofsPlus {
			bp := &p.BulletproofsPlus[i]
			b = appendKeys(b, bp.A, bp.A1, bp.B, bp.R1, bp.S1, bp.D1)
			b = appendKeys(b, bp.L...)
			b = appendKeys(b, bp.R...)
		}
	default:
		for i := range p.Bulletproofs {
			bp := &p.Bulletproofs[i]
			b = appendKeys(b, bp.A, bp.S, bp.T1, bp.T2, bp.Taux, bp.Mu)
			b = appendKeys(b, bp.L...)
			b = appendKeys(b, bp.R...)
			b = appendKeys(b, bp.Aa, bp.B, bp.T)
		}
	}
	return b
}
