package cryptonote

import "encoding/binary"

// AppendBlockHeader appends the serialized header.
func AppendBlockHeader(b []byte, h *BlockHeader) []byte {
	b = AppendVarint(b, uint64(h.MajorVersion))
	b = AppendVarint(b, uint64(h.MinorVersion))
	b = AppendVarint(b, h.Timestamp)
	b = append(b, h.PrevID[:]...)
	return binary.LittleEndian.AppendUint32(b, h.Nonce)
}

// Serialize returns the block blob.
func (blk *Block) Serialize() []byte {
	return blk.AppendTo(make([]byte, 0, 128+len(blk.TxHashes)*32))
}

// AppendTo appends the block blob to b.
func (blk *Block) AppendTo(b []byte) []byte {
	b = AppendBlockHeader(b, &blk.BlockHeader)
	b, _ = blk.MinerTx.appendParts(b)
	b = AppendVarint(b, uint64(len(blk.TxHashes)))
	for i := range blk.TxHashes {
		b = append(b, blk.TxHashes[i][:]...)
	}
	return b
}

// Serialize returns the transaction blob.
func (tx *Transaction) Serialize() []byte {
	b, _ := tx.appendParts(nil)
	return b
}

// txParts records where the prefix and the RingCT base end inside a
// serialized transaction, relative to its first byte; the v2 id hashes the
// three parts separately.
type txParts struct {
	prefixEnd, baseEnd int
}

func (tx *Transaction) appendParts(b []byte) ([]byte, txParts) {
	start := len(b)
	b = AppendVarint(b, tx.Version)
	b = AppendVarint(b, tx.UnlockTime)
	b = AppendVarint(b, uint64(len(tx.Inputs)))
	for _, in := range tx.Inputs {
		b = appendTxIn(b, in)
	}
	b = AppendVarint(b, uint64(len(tx.Outputs)))
	for _, o := range tx.Outputs {
		b = AppendVarint(b, o.Amount)
		b = appendTarget(b, o.Target)
	}
	b = AppendVarint(b, uint64(len(tx.Extra)))
	b = append(b, tx.Extra...)
	parts := txParts{prefixEnd: len(b) - start}
	if tx.Version == 1 {
		for _, sigs := range tx.Signatures {
			for i := range sigs {
				b = append(b, sigs[i][:]...)
			}
		}
		parts.baseEnd = len(b) - start
		return b, parts
	}
	if len(tx.Inputs) == 0 || tx.Rct == nil {
		parts.baseEnd = parts.prefixEnd
		return b, parts
	}
	b = tx.Rct.appendBase(b)
	parts.baseEnd = len(b) - start
	if tx.Rct.Type != RctTypeNull && tx.Rct.Prunable != nil {
		b = tx.Rct.appendPrunable(b)
	}
	return b, parts
}

func appendTxIn(b []byte, in TxIn) []byte {
	b = append(b, in.inputTag())
	switch in := in.(type) {
	case TxInGen:
		b = AppendVarint(b, in.Height)
	case TxInToKey:
		b = AppendVarint(b, in.Amount)
		b = AppendVarint(b, uint64(len(in.KeyOffsets)))
		for _, o := range in.KeyOffsets {
			b = AppendVarint(b, o)
		}
		b = append(b, in.KeyImage[:]...)
	case TxInToScript:
		b = append(b, in.Prev[:]...)
		b = AppendVarint(b, in.Prevout)
		b = appendCountedBytes(b, in.Sigset)
	case TxInToScriptHash:
		b = append(b, in.Prev[:]...)
		b = AppendVarint(b, in.Prevout)
		b = appendOutToScript(b, &in.Script)
		b = appendCountedBytes(b, in.Sigset)
	}
	return b
}

func appendTarget(b []byte, t TxOutTarget) []byte {
	b = append(b, t.targetTag())
	switch t := t.(type) {
	case TxOutToKey:
		b = append(b, t.Key[:]...)
	case TxOutToTaggedKey:
		b = append(b, t.Key[:]...)
		b = append(b, t.ViewTag)
	case TxOutToScript:
		b = appendOutToScript(b, &t)
	case TxOutToScriptHash:
		b = append(b, t.Hash[:]...)
	}
	return b
}

func appendOutToScript(b []byte, s *TxOutToScript) []byte {
	b = AppendVarint(b, uint64(len(s.Keys)))
	b = appendKeys(b, s.Keys)
	return appendCountedBytes(b, s.Script)
}

func appendCountedBytes(b, v []byte) []byte {
	b = AppendVarint(b, uint64(len(v)))
	return append(b, v...)
}

func appendKeys(b []byte, ks []Key) []byte {
	for i := range ks {
		b = append(b, ks[i][:]...)
	}
	return b
}

// SerializeBase returns the RingCT base (type, fee, the type-2 pseudo-outs,
// ecdhInfo, outPk) exactly as it is serialized inside a transaction: the
// bytes whose hash enters the v2 id and the RingCT signed message.
func (r *RctSig) SerializeBase() []byte { return r.appendBase(nil) }

func (r *RctSig) appendBase(b []byte) []byte {
	b = append(b, r.Type)
	if r.Type == RctTypeNull {
		return b
	}
	b = AppendVarint(b, r.TxnFee)
	if r.Type == RctTypeSimple {
		b = appendKeys(b, r.PseudoOuts)
	}
	for i := range r.EcdhInfo {
		e := &r.EcdhInfo[i]
		if r.Type >= RctTypeBulletproof2 {
			b = append(b, e.Amount[:8]...)
		} else {
			b = append(b, e.Mask[:]...)
			b = append(b, e.Amount[:]...)
		}
	}
	return appendKeys(b, r.OutPk)
}

func (r *RctSig) appendPrunable(b []byte) []byte {
	p := r.Prunable
	switch r.Type {
	case RctTypeFull, RctTypeSimple:
		for i := range p.RangeSigs {
			rs := &p.RangeSigs[i]
			b = appendKeys(b, rs.S0[:])
			b = appendKeys(b, rs.S1[:])
			b = append(b, rs.Ee[:]...)
			b = appendKeys(b, rs.Ci[:])
		}
	case RctTypeBulletproof:
		b = binary.LittleEndian.AppendUint32(b, uint32(len(p.Bulletproofs)))
		b = appendBulletproofs(b, p.Bulletproofs)
	case RctTypeBulletproof2, RctTypeCLSAG:
		b = AppendVarint(b, uint64(len(p.Bulletproofs)))
		b = appendBulletproofs(b, p.Bulletproofs)
	case RctTypeBulletproofPlus:
		b = AppendVarint(b, uint64(len(p.BulletproofsPlus)))
		for i := range p.BulletproofsPlus {
			bp := &p.BulletproofsPlus[i]
			for _, k := range []*Key{&bp.A, &bp.A1, &bp.B, &bp.R1, &bp.S1, &bp.D1} {
				b = append(b, k[:]...)
			}
			b = AppendVarint(b, uint64(len(bp.L)))
			b = appendKeys(b, bp.L)
			b = AppendVarint(b, uint64(len(bp.R)))
			b = appendKeys(b, bp.R)
		}
	}
	if r.Type >= RctTypeCLSAG {
		for i := range p.CLSAGs {
			c := &p.CLSAGs[i]
			b = appendKeys(b, c.S)
			b = append(b, c.C1[:]...)
			b = append(b, c.D[:]...)
		}
	} else {
		for i := range p.MGs {
			for _, row := range p.MGs[i].Ss {
				b = appendKeys(b, row)
			}
			b = append(b, p.MGs[i].Cc[:]...)
		}
	}
	if r.Type >= RctTypeBulletproof {
		b = appendKeys(b, p.PseudoOuts)
	}
	return b
}

func appendBulletproofs(b []byte, bps []Bulletproof) []byte {
	for i := range bps {
		bp := &bps[i]
		for _, k := range []*Key{&bp.A, &bp.S, &bp.T1, &bp.T2, &bp.Taux, &bp.Mu} {
			b = append(b, k[:]...)
		}
		b = AppendVarint(b, uint64(len(bp.L)))
		b = appendKeys(b, bp.L)
		b = AppendVarint(b, uint64(len(bp.R)))
		b = appendKeys(b, bp.R)
		b = append(b, bp.Aa[:]...)
		b = append(b, bp.B[:]...)
		b = append(b, bp.T[:]...)
	}
	return b
}
