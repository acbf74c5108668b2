package ringct

import (
	"testing"

	"github.com/gonero/gonero/cryptonote"
)

// fuzzReader hands out 32-byte keys from fuzz input, zero-padded at the end.
type fuzzReader struct{ b []byte }

func (r *fuzzReader) byte1() byte {
	if len(r.b) == 0 {
		return 0
	}
	c := r.b[0]
	r.b = r.b[1:]
	return c
}

func (r *fuzzReader) key() (k [32]byte) {
	n := copy(k[:], r.b)
	r.b = r.b[n:]
	return k
}

const fuzzMaxRing = 64

func encodeCLSAGInput(msg [32]byte, ring []RingMember, pseudoOut, ki [32]byte, sig *cryptonote.Clsag) []byte {
	b := []byte{byte(len(ring))}
	b = append(b, msg[:]...)
	b = append(b, pseudoOut[:]...)
	b = append(b, ki[:]...)
	b = append(b, sig.C1[:]...)
	b = append(b, sig.D[:]...)
	for i := range ring {
		b = append(b, ring[i].Dest[:]...)
		b = append(b, ring[i].Mask[:]...)
		b = append(b, sig.S[i][:]...)
	}
	return b
}

func FuzzVerifyCLSAG(f *testing.F) {
	v := loadCLSAGVector(f)
	p := v.tx.Rct.Prunable
	for i := range v.rings {
		ki := v.tx.Inputs[i].(cryptonote.TxInToKey).KeyImage
		f.Add(encodeCLSAGInput(v.msg, v.rings[i], p.PseudoOuts[i], ki, &p.CLSAGs[i]))
	}
	r := newTestRing(2, 1)
	sig, ki, _ := SignCLSAG(r.msg, r.ring, r.pseudoOut, r.l, r.p, r.z)
	f.Add(encodeCLSAGInput(r.msg, r.ring, r.pseudoOut, ki, sig))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		rd := &fuzzReader{data}
		n := int(rd.byte1()) % (fuzzMaxRing + 1)
		msg, pseudo, ki := rd.key(), rd.key(), rd.key()
		sig := &cryptonote.Clsag{C1: rd.key(), D: rd.key()}
		ring := make([]RingMember, n)
		for i := range ring {
			ring[i] = RingMember{Dest: rd.key(), Mask: rd.key()}
			sig.S = append(sig.S, rd.key())
		}
		if len(rd.b) > 0 && rd.b[0]&1 == 1 && n > 0 {
			sig.S = sig.S[:n-1] // size mismatch
		}
		_ = VerifyCLSAG(msg, ring, pseudo, ki, sig)
	})
}

func encodeMGInput(msg [32]byte, ring []RingMember, pseudoOut, ki [32]byte, sig *cryptonote.MgSig) []byte {
	b := []byte{byte(len(ring))}
	b = append(b, msg[:]...)
	b = append(b, pseudoOut[:]...)
	b = append(b, ki[:]...)
	b = append(b, sig.Cc[:]...)
	for i := range ring {
		b = append(b, ring[i].Dest[:]...)
		b = append(b, ring[i].Mask[:]...)
		for _, s := range sig.Ss[i] {
			b = append(b, s[:]...)
		}
	}
	return b
}

func FuzzVerifyMLSAGSimple(f *testing.F) {
	for _, n := range []int{2, 5} {
		r := newTestRing(n, 1)
		sig, ki, _ := SignMLSAGSimple(r.msg, r.ring, r.pseudoOut, r.l, r.p, r.z)
		f.Add(encodeMGInput(r.msg, r.ring, r.pseudoOut, ki, sig))
	}
	f.Add([]byte{1})
	f.Fuzz(func(t *testing.T, data []byte) {
		rd := &fuzzReader{data}
		n := int(rd.byte1()) % (fuzzMaxRing + 1)
		msg, pseudo, ki := rd.key(), rd.key(), rd.key()
		sig := &cryptonote.MgSig{Cc: rd.key()}
		ring := make([]RingMember, n)
		for i := range ring {
			ring[i] = RingMember{Dest: rd.key(), Mask: rd.key()}
			sig.Ss = append(sig.Ss, []cryptonote.Key{rd.key(), rd.key()})
		}
		if len(rd.b) > 0 && n > 0 {
			switch rd.b[0] % 4 { // shape faults
			case 1:
				sig.Ss = sig.Ss[:n-1]
			case 2:
				sig.Ss[n-1] = sig.Ss[n-1][:1]
			case 3:
				sig.Ss[0] = nil
			}
		}
		_ = VerifyMLSAGSimple(msg, ring, pseudo, ki, sig)
	})
}

func FuzzVerifyMLSAGFull(f *testing.F) {
	v := loadFullMLSAGVector(f)
	ki := v.tx.Inputs[0].(cryptonote.TxInToKey).KeyImage
	mg := &v.tx.Rct.Prunable.MGs[0]
	b := []byte{1, byte(len(v.ring)), byte(len(v.tx.Rct.OutPk))}
	b = append(b, v.msg[:]...)
	b = append(b, mg.Cc[:]...)
	b = append(b, ki[:]...)
	for _, o := range v.tx.Rct.OutPk {
		b = append(b, o[:]...)
	}
	for i, m := range v.ring {
		b = append(b, m.Dest[:]...)
		b = append(b, m.Mask[:]...)
		for _, s := range mg.Ss[i] {
			b = append(b, s[:]...)
		}
	}
	f.Add(b, v.tx.Rct.TxnFee)
	f.Fuzz(func(t *testing.T, data []byte, fee uint64) {
		rd := &fuzzReader{data}
		k := int(rd.byte1()) % 5
		n := int(rd.byte1()) % (fuzzMaxRing/4 + 1)
		nout := int(rd.byte1()) % 5
		msg := rd.key()
		sig := &cryptonote.MgSig{Cc: rd.key()}
		kis := make([][32]byte, k)
		for j := range kis {
			kis[j] = rd.key()
		}
		outPk := make([]cryptonote.Key, nout)
		for o := range outPk {
			outPk[o] = rd.key()
		}
		rings := make([][]RingMember, k)
		for j := range rings {
			rings[j] = make([]RingMember, n)
		}
		for i := range n {
			for j := range k {
				rings[j][i] = RingMember{Dest: rd.key(), Mask: rd.key()}
			}
			row := make([]cryptonote.Key, k+1)
			for j := range row {
				row[j] = rd.key()
			}
			sig.Ss = append(sig.Ss, row)
		}
		_ = VerifyMLSAGFull(msg, rings, kis, outPk, fee, sig)
	})
}

func FuzzVerifyBorromean(f *testing.F) {
	v := loadFullMLSAGVector(f)
	for i, rs := range v.tx.Rct.Prunable.RangeSigs {
		b := append([]byte(nil), v.tx.Rct.OutPk[i][:]...)
		b = append(b, rs.Ee[:]...)
		for j := range 64 {
			b = append(b, rs.S0[j][:]...)
			b = append(b, rs.S1[j][:]...)
			b = append(b, rs.Ci[j][:]...)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		rd := &fuzzReader{data}
		C := rd.key()
		rs := &cryptonote.RangeSig{Ee: rd.key()}
		for j := range 64 {
			rs.S0[j], rs.S1[j], rs.Ci[j] = rd.key(), rd.key(), rd.key()
		}
		_ = VerifyBorromean(C, rs)
		var r [256]int
		_ = slide(&r, &C)
		_ = effectiveScalar(C)
	})
}

func FuzzCheckBalance(f *testing.F) {
	v := loadCLSAGVector(f)
	b := []byte{2, 2}
	for _, k := range v.tx.Rct.Prunable.PseudoOuts {
		b = append(b, k[:]...)
	}
	for _, k := range v.tx.Rct.OutPk {
		b = append(b, k[:]...)
	}
	f.Add(b, v.tx.Rct.TxnFee)
	f.Fuzz(func(t *testing.T, data []byte, fee uint64) {
		rd := &fuzzReader{data}
		in := make([]cryptonote.Key, rd.byte1()%17)
		out := make([]cryptonote.Key, rd.byte1()%17)
		for i := range in {
			in[i] = rd.key()
		}
		for i := range out {
			out[i] = rd.key()
		}
		_ = CheckBalance(in, out, fee)
	})
}

// FuzzMessageHash: any transaction the parser accepts, and the same with
// its RingCT parts shortened or dropped, hashes or fails without panicking.
func FuzzMessageHash(f *testing.F) {
	var v struct{ Hex string }
	loadJSON(f, &v, "testdata", "vectors", "monero-oxide", "clsag_tx.json")
	f.Add(unhex(f, v.Hex), byte(0))
	fv := loadFullMLSAGVector(f)
	f.Add(fv.tx.Serialize(), byte(3))
	f.Fuzz(func(t *testing.T, blob []byte, mode byte) {
		tx, err := cryptonote.ParseTransaction(blob)
		if err != nil {
			return
		}
		_, _ = MessageHash(tx)
		if tx.Rct == nil {
			return
		}
		switch mode % 4 {
		case 1:
			tx.Rct.Prunable = nil
		case 2:
			if len(tx.Rct.EcdhInfo) > 0 {
				tx.Rct.EcdhInfo = tx.Rct.EcdhInfo[1:]
			}
		case 3:
			tx.Rct.PseudoOuts = append(tx.Rct.PseudoOuts, cryptonote.Key{})
		}
		_, _ = MessageHash(tx)
	})
}
