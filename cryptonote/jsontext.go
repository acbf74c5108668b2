package cryptonote

import (
	"encoding/hex"
	"strconv"
)

// jsonText reproduces monero's json_archive in indented mode, which renders
// the `json` field of getblock and tx_json/as_json. It is not a JSON library:
// its quirks are part of the output clients parse as text (docs/chain-format.md §12):
// ", " before every field but the first (so lines end in a space), and a
// single "inner array size" register that decides whether "]" gets its own
// line, overwritten by every array begun — including nested ones.
type jsonText struct {
	b     []byte
	depth int
	first bool
	inner int
}

func (w *jsonText) indent() {
	w.b = append(w.b, '\n')
	for i := 0; i < w.depth; i++ {
		w.b = append(w.b, ' ', ' ')
	}
}

func (w *jsonText) tag(name string) {
	if !w.first {
		w.b = append(w.b, ", "...)
	}
	w.indent()
	w.b = append(w.b, '"')
	w.b = append(w.b, name...)
	w.b = append(w.b, "\": "...)
	w.first = false
}

func (w *jsonText) beginObject() { w.b = append(w.b, '{'); w.depth++; w.first = true }
func (w *jsonText) endObject()   { w.depth--; w.indent(); w.b = append(w.b, '}') }

// beginArray starts an array; sized arrays pass their length, unsized ones 0.
func (w *jsonText) beginArray(sized int) { w.inner = sized; w.depth++; w.b = append(w.b, "[ "...) }
func (w *jsonText) delimit()             { w.b = append(w.b, ", "...) }
func (w *jsonText) endArray() {
	w.depth--
	if w.inner > 0 {
		w.indent()
	}
	w.b = append(w.b, ']')
}

// delimitUnlessLast writes the separator monero writes after element i of n.
func (w *jsonText) delimitUnlessLast(i, n int) {
	if n-i > 1 {
		w.delimit()
	}
}

func (w *jsonText) uint(v uint64) { w.b = strconv.AppendUint(w.b, v, 10) }
func (w *jsonText) blob(p []byte) {
	w.b = append(w.b, '"')
	w.b = hex.AppendEncode(w.b, p)
	w.b = append(w.b, '"')
}

func (w *jsonText) fieldUint(name string, v uint64) { w.tag(name); w.uint(v) }
func (w *jsonText) fieldBlob(name string, p []byte) { w.tag(name); w.blob(p) }

// sized array of 32-byte values
func (w *jsonText) keyArray(name string, ks []Key) {
	w.tag(name)
	w.beginArray(len(ks))
	for i := range ks {
		w.blob(ks[i][:])
		w.delimitUnlessLast(i, len(ks))
	}
	w.endArray()
}

// unsized array of 32-byte values
func (w *jsonText) keyList(ks []Key) {
	w.beginArray(0)
	for i := range ks {
		w.blob(ks[i][:])
		w.delimitUnlessLast(i, len(ks))
	}
	w.endArray()
}

func (w *jsonText) byteArray(name string, p []byte) {
	w.tag(name)
	w.beginArray(len(p))
	for i, c := range p {
		w.uint(uint64(c))
		w.delimitUnlessLast(i, len(p))
	}
	w.endArray()
}

// MonerodJSON is the `json` text monerod's getblock returns for this block.
func (blk *Block) MonerodJSON() string {
	w := jsonText{b: make([]byte, 0, 2048)}
	w.beginObject()
	w.fieldUint("major_version", uint64(blk.MajorVersion))
	w.fieldUint("minor_version", uint64(blk.MinorVersion))
	w.fieldUint("timestamp", blk.Timestamp)
	w.fieldBlob("prev_id", blk.PrevID[:])
	w.fieldUint("nonce", uint64(blk.Nonce))
	w.tag("miner_tx")
	w.transaction(&blk.MinerTx, false)
	w.tag("tx_hashes")
	w.beginArray(len(blk.TxHashes))
	for i := range blk.TxHashes {
		w.blob(blk.TxHashes[i][:])
		w.delimitUnlessLast(i, len(blk.TxHashes))
	}
	w.endArray()
	w.endObject()
	return string(w.b)
}

// MonerodJSON is the text monerod prints for a transaction (tx_json, as_json).
func (tx *Transaction) MonerodJSON() string {
	w := jsonText{b: make([]byte, 0, 4096)}
	w.transaction(tx, false)
	return string(w.b)
}

// MonerodPrunedJSON is the text monerod prints for a pruned transaction
// (gettransactions with prune and decode_as_json): what serialize_base
// writes, i.e. no v1 signatures and no RingCT prunable part.
func (tx *Transaction) MonerodPrunedJSON() string {
	w := jsonText{b: make([]byte, 0, 2048)}
	w.transaction(tx, true)
	return string(w.b)
}

// SplitBlob serializes tx and says where its pruned part (the prefix, and
// for v2 the RingCT base) ends; the rest is its prunable part.
func (tx *Transaction) SplitBlob() (blob []byte, prunedLen int) {
	blob, parts := tx.appendParts(nil)
	if tx.Version == 1 {
		return blob, parts.prefixEnd
	}
	return blob, parts.baseEnd
}

func (w *jsonText) transaction(tx *Transaction, pruned bool) {
	w.beginObject()
	w.fieldUint("version", tx.Version)
	w.fieldUint("unlock_time", tx.UnlockTime)
	w.tag("vin")
	w.beginArray(len(tx.Inputs))
	for i, in := range tx.Inputs {
		w.input(in)
		w.delimitUnlessLast(i, len(tx.Inputs))
	}
	w.endArray()
	w.tag("vout")
	w.beginArray(len(tx.Outputs))
	for i := range tx.Outputs {
		w.beginObject()
		w.fieldUint("amount", tx.Outputs[i].Amount)
		w.tag("target")
		w.target(tx.Outputs[i].Target)
		w.endObject()
		w.delimitUnlessLast(i, len(tx.Outputs))
	}
	w.endArray()
	w.byteArray("extra", tx.Extra)
	if tx.Version == 1 {
		if !pruned {
			w.v1Signatures(tx)
		}
	} else {
		w.tag("rct_signatures")
		if len(tx.Inputs) > 0 && tx.Rct != nil {
			w.rctBase(tx.Rct, len(tx.Inputs))
			if tx.Rct.Type != RctTypeNull && tx.Rct.Prunable != nil && !pruned {
				w.tag("rctsig_prunable")
				w.rctPrunable(tx.Rct)
			}
		}
	}
	w.endObject()
}

func (w *jsonText) input(in TxIn) {
	w.beginObject()
	switch in := in.(type) {
	case TxInGen:
		w.tag("gen")
		w.beginObject()
		w.fieldUint("height", in.Height)
		w.endObject()
	case TxInToKey:
		w.tag("key")
		w.beginObject()
		w.fieldUint("amount", in.Amount)
		w.tag("key_offsets")
		w.beginArray(len(in.KeyOffsets))
		for i, o := range in.KeyOffsets {
			w.uint(o)
			w.delimitUnlessLast(i, len(in.KeyOffsets))
		}
		w.endArray()
		w.fieldBlob("k_image", in.KeyImage[:])
		w.endObject()
	case TxInToScript:
		w.tag("script")
		w.beginObject()
		w.fieldBlob("prev", in.Prev[:])
		w.fieldUint("prevout", in.Prevout)
		w.byteArray("sigset", in.Sigset)
		w.endObject()
	case TxInToScriptHash:
		w.tag("scripthash")
		w.beginObject()
		w.fieldBlob("prev", in.Prev[:])
		w.fieldUint("prevout", in.Prevout)
		w.tag("script")
		w.outToScript(&in.Script)
		w.byteArray("sigset", in.Sigset)
		w.endObject()
	}
	w.endObject()
}

func (w *jsonText) outToScript(s *TxOutToScript) {
	w.beginObject()
	w.keyArray("keys", s.Keys)
	w.byteArray("script", s.Script)
	w.endObject()
}

func (w *jsonText) target(t TxOutTarget) {
	w.beginObject()
	switch t := t.(type) {
	case TxOutToKey:
		w.fieldBlob("key", t.Key[:])
	case TxOutToTaggedKey:
		w.tag("tagged_key")
		w.beginObject()
		w.fieldBlob("key", t.Key[:])
		w.fieldBlob("view_tag", []byte{t.ViewTag})
		w.endObject()
	case TxOutToScript:
		w.tag("script")
		w.outToScript(&t)
	case TxOutToScriptHash:
		w.fieldBlob("scripthash", t.Hash[:])
	}
	w.endObject()
}

// v1Signatures: one string per input holding all its signatures back to
// back; an input without signatures prints nothing but still gets its
// separator (transaction::serialize; serialization/crypto.h writes a vector
// of signatures as one blob and an empty one as nothing).
func (w *jsonText) v1Signatures(tx *Transaction) {
	w.tag("signatures")
	w.beginArray(0)
	n := len(tx.Inputs)
	for i := 0; i < n; i++ {
		var sigs []Signature
		if i < len(tx.Signatures) {
			sigs = tx.Signatures[i]
		}
		if len(sigs) > 0 {
			w.b = append(w.b, '"')
			for j := range sigs {
				w.b = hex.AppendEncode(w.b, sigs[j][:])
			}
			w.b = append(w.b, '"')
		}
		w.delimitUnlessLast(i, n)
	}
	w.endArray()
}

func (w *jsonText) rctBase(r *RctSig, nin int) {
	w.beginObject()
	w.fieldUint("type", uint64(r.Type))
	if r.Type != RctTypeNull {
		w.fieldUint("txnFee", r.TxnFee)
		if r.Type == RctTypeSimple {
			w.tag("pseudoOuts")
			w.keyList(r.PseudoOuts)
		}
		w.tag("ecdhInfo")
		w.beginArray(0)
		for i := range r.EcdhInfo {
			e := &r.EcdhInfo[i]
			w.beginObject()
			if r.Type >= RctTypeBulletproof2 {
				w.fieldBlob("amount", e.Amount[:8])
			} else {
				w.fieldBlob("mask", e.Mask[:])
				w.fieldBlob("amount", e.Amount[:])
			}
			w.endObject()
			w.delimitUnlessLast(i, len(r.EcdhInfo))
		}
		w.endArray()
		w.tag("outPk")
		w.keyList(r.OutPk)
	}
	w.endObject()
}

func (w *jsonText) rctPrunable(r *RctSig) {
	p := r.Prunable
	w.beginObject()
	switch r.Type {
	case RctTypeFull, RctTypeSimple:
		w.tag("rangeSigs")
		w.beginArray(0)
		for i := range p.RangeSigs {
			rs := &p.RangeSigs[i]
			w.beginObject()
			w.tag("asig")
			w.b = append(w.b, '"')
			for _, ks := range [][]Key{rs.S0[:], rs.S1[:], {rs.Ee}} {
				for j := range ks {
					w.b = hex.AppendEncode(w.b, ks[j][:])
				}
			}
			w.b = append(w.b, '"')
			w.tag("Ci")
			w.b = append(w.b, '"')
			for j := range rs.Ci {
				w.b = hex.AppendEncode(w.b, rs.Ci[j][:])
			}
			w.b = append(w.b, '"')
			w.endObject()
			w.delimitUnlessLast(i, len(p.RangeSigs))
		}
		w.endArray()
	case RctTypeBulletproofPlus:
		w.fieldUint("nbp", uint64(len(p.BulletproofsPlus)))
		w.tag("bpp")
		w.beginArray(0)
		for i := range p.BulletproofsPlus {
			bp := &p.BulletproofsPlus[i]
			w.beginObject()
			w.fieldBlob("A", bp.A[:])
			w.fieldBlob("A1", bp.A1[:])
			w.fieldBlob("B", bp.B[:])
			w.fieldBlob("r1", bp.R1[:])
			w.fieldBlob("s1", bp.S1[:])
			w.fieldBlob("d1", bp.D1[:])
			w.keyArray("L", bp.L)
			w.keyArray("R", bp.R)
			w.endObject()
			w.delimitUnlessLast(i, len(p.BulletproofsPlus))
		}
		w.endArray()
	default:
		w.fieldUint("nbp", uint64(len(p.Bulletproofs)))
		w.tag("bp")
		w.beginArray(0)
		for i := range p.Bulletproofs {
			bp := &p.Bulletproofs[i]
			w.beginObject()
			w.fieldBlob("A", bp.A[:])
			w.fieldBlob("S", bp.S[:])
			w.fieldBlob("T1", bp.T1[:])
			w.fieldBlob("T2", bp.T2[:])
			w.fieldBlob("taux", bp.Taux[:])
			w.fieldBlob("mu", bp.Mu[:])
			w.keyArray("L", bp.L)
			w.keyArray("R", bp.R)
			w.fieldBlob("a", bp.Aa[:])
			w.fieldBlob("b", bp.B[:])
			w.fieldBlob("t", bp.T[:])
			w.endObject()
			w.delimitUnlessLast(i, len(p.Bulletproofs))
		}
		w.endArray()
	}
	if r.Type >= RctTypeCLSAG {
		w.tag("CLSAGs")
		w.beginArray(0)
		for i := range p.CLSAGs {
			c := &p.CLSAGs[i]
			w.beginObject()
			w.tag("s")
			w.keyList(c.S)
			w.fieldBlob("c1", c.C1[:])
			w.fieldBlob("D", c.D[:])
			w.endObject()
			w.delimitUnlessLast(i, len(p.CLSAGs))
		}
		w.endArray()
	} else {
		w.tag("MGs")
		w.beginArray(0)
		for i := range p.MGs {
			m := &p.MGs[i]
			w.beginObject()
			w.tag("ss")
			w.beginArray(0)
			for j := range m.Ss {
				w.keyList(m.Ss[j])
				w.delimitUnlessLast(j, len(m.Ss))
			}
			w.endArray()
			w.fieldBlob("cc", m.Cc[:])
			w.endObject()
			w.delimitUnlessLast(i, len(p.MGs))
		}
		w.endArray()
	}
	if r.Type >= RctTypeBulletproof {
		w.tag("pseudoOuts")
		w.keyList(p.PseudoOuts)
	}
	w.endObject()
}
