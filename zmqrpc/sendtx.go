package zmqrpc

import (
	"encoding/hex"
	"math"

	"github.com/gonero/gonero/cryptonote"
)

// send_raw_tx takes the transaction as JSON, in the form get_transactions
// and get_blocks_fast write it (json_object.cpp's toJsonValue). monerod
// reads it back with fromJsonValue into a cryptonote::transaction,
// serialises that with tx_to_blob and goes on as send_raw_tx_hex does
// (daemon_handler.cpp). So do we: jsonTx follows fromJsonValue's reads
// (their order decides which error a malformed document gets, their texts
// are monerod's), and txBlob follows the binary serialisation's writes,
// including what it does with a transaction whose parts do not fit
// together (its counts disagree): the serialiser stops, and the blob is
// what it wrote so far.

// jsonTx is what fromJsonValue(transaction) leaves: the transaction, and
// its pruned flag (set when a non-coinbase transaction has no signatures
// member and no proofs).
type jsonTx struct {
	tx     cryptonote.Transaction
	pruned bool
}

func (s *Server) sendRawTx(params raw, w *writer) (string, error) {
	o, err := paramsObject(params)
	if err != nil {
		return "", err
	}
	v, ok := o.find("tx")
	if !ok {
		return "", missingKey("tx")
	}
	t, err := parseJSONTx(v)
	if err != nil {
		return "", err
	}
	relay, err := getBool(o, "relay")
	if err != nil {
		return "", err
	}
	return s.submitBlob(t.blob(), relay, w)
}

// parseJSONTx is fromJsonValue(cryptonote::transaction).
func parseJSONTx(v raw) (*jsonTx, error) {
	o, err := jObject(v)
	if err != nil {
		return nil, err
	}
	t := &jsonTx{}
	tx := &t.tx
	if tx.Version, err = jField(o, "version", toUint64); err != nil {
		return nil, err
	}
	if tx.UnlockTime, err = jField(o, "unlock_time", toUint64); err != nil {
		return nil, err
	}
	if tx.Inputs, err = jField(o, "inputs", jVector(jInput)); err != nil {
		return nil, err
	}
	if tx.Outputs, err = jField(o, "outputs", jVector(jOutput)); err != nil {
		return nil, err
	}
	if tx.Extra, err = jField(o, "extra", jBytes); err != nil {
		return nil, err
	}
	rct, err := jField(o, "ringct", jRct)
	if err != nil {
		return nil, err
	}
	tx.Rct = rct
	sigs, hasSigs := o.find("signatures")
	if hasSigs {
		if tx.Signatures, err = jVector(jVector(jSig))(sigs); err != nil {
			return nil, err
		}
	}
	p := rct.Prunable
	if !isCoinbase(tx) && len(p.Bulletproofs) == 0 && len(p.BulletproofsPlus) == 0 && len(p.RangeSigs) == 0 &&
		len(p.MGs) == 0 && len(pseudoOuts(rct)) == 0 && !hasSigs {
		t.pruned = true
	}
	return t, nil
}

func isCoinbase(tx *cryptonote.Transaction) bool {
	if len(tx.Inputs) != 1 {
		return false
	}
	_, ok := tx.Inputs[0].(cryptonote.TxInGen)
	return ok
}

// pseudoOuts is rctSig::get_pseudo_outs: the base's for RctTypeSimple,
// else the prunable part's.
func pseudoOuts(r *cryptonote.RctSig) []cryptonote.Key {
	if r.Type == cryptonote.RctTypeSimple {
		return r.PseudoOuts
	}
	return r.Prunable.PseudoOuts
}

// jField is GET_FROM_JSON_OBJECT: the member must exist (the first of
// duplicates), then its value is read.
func jField[T any](o object, key string, read func(raw) (T, error)) (T, error) {
	v, ok := o.find(key)
	if !ok {
		var zero T
		return zero, missingKey(key)
	}
	return read(v)
}

func jObject(v raw) (object, error) {
	if v.kind() != kindObject {
		return object{}, wrongType("json object")
	}
	return parseObject(v), nil
}

// jVector is fromJsonValue of a vector: an array, each element read in
// turn.
func jVector[T any](read func(raw) (T, error)) func(raw) ([]T, error) {
	return func(v raw) ([]T, error) {
		if v.kind() != kindArray {
			return nil, wrongType("json array")
		}
		els := elements(v)
		out := make([]T, 0, len(els))
		for _, e := range els {
			x, err := read(e)
			if err != nil {
				return nil, err
			}
			out = append(out, x)
		}
		return out, nil
	}
}

// jUint8 is to_uint into a uint8_t: rapidjson's IsUint (32 bits), then
// convert_numeric's range check.
func jUint8(v raw) (uint8, error) {
	if v.kind() != kindNumber {
		return 0, wrongType("unsigned integer")
	}
	n := parseNumber(v)
	if n.double || (n.neg && n.u != 0) || n.u > math.MaxUint32 {
		return 0, wrongType("unsigned integer")
	}
	if n.u > math.MaxUint8 {
		return 0, wrongType("numeric overflow")
	}
	return uint8(n.u), nil
}

// jHex is read_hex into a fixed-size value (a key, hash, signature or
// view tag): a string of exactly its size in hex digits.
func jHex(v raw, dst []byte) error {
	if v.kind() != kindString {
		return wrongType("string")
	}
	s, _, _ := decodeString(v, 0, true)
	if len(s) != 2*len(dst) {
		return errBadInput
	}
	if _, err := hex.Decode(dst, []byte(s)); err != nil {
		return errBadInput
	}
	return nil
}

func jKey(v raw) (cryptonote.Key, error) {
	var k cryptonote.Key
	err := jHex(v, k[:])
	return k, err
}

func jHash(v raw) (cryptonote.Hash, error) {
	var h cryptonote.Hash
	err := jHex(v, h[:])
	return h, err
}

func jSig(v raw) (cryptonote.Signature, error) {
	var s cryptonote.Signature
	err := jHex(v, s[:])
	return s, err
}

func jViewTag(v raw) (byte, error) {
	var t [1]byte
	err := jHex(v, t[:])
	return t[0], err
}

// jBytes is fromJsonValue(std::vector<uint8_t>): hex of any even length.
func jBytes(v raw) ([]byte, error) {
	if v.kind() != kindString {
		return nil, wrongType("string")
	}
	s, _, _ := decodeString(v, 0, true)
	if len(s)%2 != 0 {
		return nil, errBadInput
	}
	out, err := hex.DecodeString(s)
	if err != nil {
		return nil, errBadInput
	}
	return out, nil
}

var jKeys = jVector(jKey)

// jInput is fromJsonValue(txin_v): an object of exactly one member (counting
// duplicates); every member is read in turn, the last known name winning,
// and an object whose member is none of the four leaves monerod's default
// variant, txin_gen at height 0.
func jInput(v raw) (cryptonote.TxIn, error) {
	o, err := jObject(v)
	if err != nil {
		return nil, err
	}
	if o.len() != 1 {
		return nil, missingKey("Invalid input object")
	}
	var in cryptonote.TxIn = cryptonote.TxInGen{}
	for i := range o.m {
		k, val := o.key(i), o.m[i].val
		switch k {
		case "to_key":
			o, err := jObject(val)
			if err != nil {
				return nil, err
			}
			var x cryptonote.TxInToKey
			if x.Amount, err = jField(o, "amount", toUint64); err != nil {
				return nil, err
			}
			if x.KeyOffsets, err = jField(o, "key_offsets", jVector(toUint64)); err != nil {
				return nil, err
			}
			if x.KeyImage, err = jField(o, "key_image", jKey); err != nil {
				return nil, err
			}
			in = x
		case "gen":
			o, err := jObject(val)
			if err != nil {
				return nil, err
			}
			h, err := jField(o, "height", toUint64)
			if err != nil {
				return nil, err
			}
			in = cryptonote.TxInGen{Height: h}
		case "to_script":
			o, err := jObject(val)
			if err != nil {
				return nil, err
			}
			var x cryptonote.TxInToScript
			if x.Prev, err = jField(o, "prev", jHash); err != nil {
				return nil, err
			}
			if x.Prevout, err = jField(o, "prevout", toUint64); err != nil {
				return nil, err
			}
			if x.Sigset, err = jField(o, "sigset", jBytes); err != nil {
				return nil, err
			}
			in = x
		case "to_scripthash":
			o, err := jObject(val)
			if err != nil {
				return nil, err
			}
			var x cryptonote.TxInToScriptHash
			if x.Prev, err = jField(o, "prev", jHash); err != nil {
				return nil, err
			}
			if x.Prevout, err = jField(o, "prevout", toUint64); err != nil {
				return nil, err
			}
			if x.Script, err = jField(o, "script", jOutToScript); err != nil {
				return nil, err
			}
			if x.Sigset, err = jField(o, "sigset", jBytes); err != nil {
				return nil, err
			}
			in = x
		}
	}
	return in, nil
}

func jOutToScript(v raw) (cryptonote.TxOutToScript, error) {
	var x cryptonote.TxOutToScript
	o, err := jObject(v)
	if err != nil {
		return x, err
	}
	if x.Keys, err = jField(o, "keys", jKeys); err != nil {
		return x, err
	}
	x.Script, err = jField(o, "script", jBytes)
	return x, err
}

// jOutput is fromJsonValue(tx_out): exactly two members (counting
// duplicates), each read in turn; without a known target the output
// keeps monerod's default one, an empty txout_to_script, and without
// "amount" amount 0.
func jOutput(v raw) (cryptonote.TxOut, error) {
	var out cryptonote.TxOut
	o, err := jObject(v)
	if err != nil {
		return out, err
	}
	if o.len() != 2 {
		return out, missingKey("Invalid input object")
	}
	out.Target = cryptonote.TxOutToScript{}
	for i := range o.m {
		k, val := o.key(i), o.m[i].val
		switch k {
		case "amount":
			if out.Amount, err = toUint64(val); err != nil {
				return out, err
			}
		case "to_key":
			o, err := jObject(val)
			if err != nil {
				return out, err
			}
			key, err := jField(o, "key", jKey)
			if err != nil {
				return out, err
			}
			out.Target = cryptonote.TxOutToKey{Key: key}
		case "to_tagged_key":
			o, err := jObject(val)
			if err != nil {
				return out, err
			}
			key, err := jField(o, "key", jKey)
			if err != nil {
				return out, err
			}
			tag, err := jField(o, "view_tag", jViewTag)
			if err != nil {
				return out, err
			}
			out.Target = cryptonote.TxOutToTaggedKey{Key: key, ViewTag: tag}
		case "to_script":
			x, err := jOutToScript(val)
			if err != nil {
				return out, err
			}
			out.Target = x
		case "to_scripthash":
			o, err := jObject(val)
			if err != nil {
				return out, err
			}
			h, err := jField(o, "hash", jHash)
			if err != nil {
				return out, err
			}
			out.Target = cryptonote.TxOutToScriptHash{Hash: h}
		}
	}
	return out, nil
}

// jRct is fromJsonValue(rctSig). Prunable is never nil here (empty when
// the JSON has none).
func jRct(v raw) (*cryptonote.RctSig, error) {
	o, err := jObject(v)
	if err != nil {
		return nil, err
	}
	r := &cryptonote.RctSig{Prunable: &cryptonote.RctPrunable{}}
	if r.Type, err = jField(o, "type", jUint8); err != nil {
		return nil, err
	}
	if r.Type != cryptonote.RctTypeNull {
		if r.EcdhInfo, err = jField(o, "encrypted", jVector(jEcdh)); err != nil {
			return nil, err
		}
		if r.OutPk, err = jField(o, "commitments", jKeys); err != nil {
			return nil, err
		}
		if r.TxnFee, err = jField(o, "fee", toUint64); err != nil {
			return nil, err
		}
	}
	pv, ok := o.find("prunable")
	if !ok {
		return r, nil
	}
	po, err := jObject(pv)
	if err != nil {
		return nil, err
	}
	p := r.Prunable
	if p.RangeSigs, err = jField(po, "range_proofs", jVector(jRangeSig)); err != nil {
		return nil, err
	}
	if p.Bulletproofs, err = jField(po, "bulletproofs", jVector(jBulletproof)); err != nil {
		return nil, err
	}
	if p.BulletproofsPlus, err = jField(po, "bulletproofs_plus", jVector(jBulletproofPlus)); err != nil {
		return nil, err
	}
	if p.MGs, err = jField(po, "mlsags", jVector(jMgSig)); err != nil {
		return nil, err
	}
	if p.CLSAGs, err = jField(po, "clsags", jVector(jClsag)); err != nil {
		return nil, err
	}
	pseudo, err := jField(po, "pseudo_outs", jKeys)
	if err != nil {
		return nil, err
	}
	if r.Type == cryptonote.RctTypeSimple {
		r.PseudoOuts = pseudo
	} else {
		p.PseudoOuts = pseudo
	}
	return r, nil
}

func jEcdh(v raw) (cryptonote.EcdhTuple, error) {
	var e cryptonote.EcdhTuple
	o, err := jObject(v)
	if err != nil {
		return e, err
	}
	if e.Mask, err = jField(o, "mask", jKey); err != nil {
		return e, err
	}
	e.Amount, err = jField(o, "amount", jKey)
	return e, err
}

// jKey64 reads a key64 member (rct::key[64]) as monerod does: a vector of
// keys that must hold exactly 64.
func jKey64(o object, key string) ([64]cryptonote.Key, error) {
	var out [64]cryptonote.Key
	ks, err := jField(o, key, jKeys)
	if err != nil {
		return out, err
	}
	if len(ks) != 64 {
		return out, wrongType("key64 (rct::key[64])")
	}
	copy(out[:], ks)
	return out, nil
}

// jRangeSig checks for "Ci" first, reads "asig", then "Ci".
func jRangeSig(v raw) (cryptonote.RangeSig, error) {
	var r cryptonote.RangeSig
	o, err := jObject(v)
	if err != nil {
		return r, err
	}
	if _, ok := o.find("Ci"); !ok {
		return r, missingKey("Ci")
	}
	av, ok := o.find("asig")
	if !ok {
		return r, missingKey("asig")
	}
	ao, err := jObject(av)
	if err != nil {
		return r, err
	}
	if r.S0, err = jKey64(ao, "s0"); err != nil {
		return r, err
	}
	if r.S1, err = jKey64(ao, "s1"); err != nil {
		return r, err
	}
	if r.Ee, err = jField(ao, "ee", jKey); err != nil {
		return r, err
	}
	r.Ci, err = jKey64(o, "Ci")
	return r, err
}

func jBulletproof(v raw) (cryptonote.Bulletproof, error) {
	var b cryptonote.Bulletproof
	o, err := jObject(v)
	if err != nil {
		return b, err
	}
	// V is read (and checked) but not kept: the serialisation restores it
	// from the commitments.
	if _, err = jField(o, "V", jKeys); err != nil {
		return b, err
	}
	for _, f := range []struct {
		k string
		p *cryptonote.Key
	}{{"A", &b.A}, {"S", &b.S}, {"T1", &b.T1}, {"T2", &b.T2}, {"taux", &b.Taux}, {"mu", &b.Mu}} {
		if *f.p, err = jField(o, f.k, jKey); err != nil {
			return b, err
		}
	}
	if b.L, err = jField(o, "L", jKeys); err != nil {
		return b, err
	}
	if b.R, err = jField(o, "R", jKeys); err != nil {
		return b, err
	}
	for _, f := range []struct {
		k string
		p *cryptonote.Key
	}{{"a", &b.Aa}, {"b", &b.B}, {"t", &b.T}} {
		if *f.p, err = jField(o, f.k, jKey); err != nil {
			return b, err
		}
	}
	return b, nil
}

func jBulletproofPlus(v raw) (cryptonote.BulletproofPlus, error) {
	var b cryptonote.BulletproofPlus
	o, err := jObject(v)
	if err != nil {
		return b, err
	}
	if _, err = jField(o, "V", jKeys); err != nil {
		return b, err
	}
	for _, f := range []struct {
		k string
		p *cryptonote.Key
	}{{"A", &b.A}, {"A1", &b.A1}, {"B", &b.B}, {"r1", &b.R1}, {"s1", &b.S1}, {"d1", &b.D1}} {
		if *f.p, err = jField(o, f.k, jKey); err != nil {
			return b, err
		}
	}
	if b.L, err = jField(o, "L", jKeys); err != nil {
		return b, err
	}
	b.R, err = jField(o, "R", jKeys)
	return b, err
}

// jMgSig and jClsag refuse a non-object with monerod's (misleading) text.
func jMgSig(v raw) (cryptonote.MgSig, error) {
	var m cryptonote.MgSig
	if v.kind() != kindObject {
		return m, wrongType("key64 (rct::key[64])")
	}
	o := parseObject(v)
	var err error
	if m.Ss, err = jField(o, "ss", jVector(jKeys)); err != nil {
		return m, err
	}
	m.Cc, err = jField(o, "cc", jKey)
	return m, err
}

func jClsag(v raw) (cryptonote.Clsag, error) {
	var c cryptonote.Clsag
	if v.kind() != kindObject {
		return c, wrongType("key64 (rct::key[64])")
	}
	o := parseObject(v)
	var err error
	if c.S, err = jField(o, "s", jKeys); err != nil {
		return c, err
	}
	if c.C1, err = jField(o, "c1", jKey); err != nil {
		return c, err
	}
	c.D, err = jField(o, "D", jKey)
	return c, err
}

// blob is tx_to_blob: the binary serialisation of monerod's
// cryptonote::transaction, which writes the prefix, then the signatures
// (version 1) or the RingCT parts (version 2), checking each count
// against the inputs and outputs as it goes and stopping at the first
// that disagrees. Where it stops inside the prefix or a version 1
// transaction's signatures, the bytes written so far are what monerod
// hands on, and they can still parse (a version 1 transaction whose
// inputs need no signatures), so they are reproduced exactly; a version 2
// transaction stopped inside its RingCT part never parses (every input
// needs prunable bytes after the base), so any unparseable blob answers
// the same and the prefix with the type byte stands for it.
func (t *jsonTx) blob() []byte {
	tx := &t.tx
	if tx.Version == 0 || tx.Version > 2 {
		return cryptonote.AppendVarint(nil, tx.Version)
	}
	prefix := (&cryptonote.Transaction{Version: tx.Version, UnlockTime: tx.UnlockTime, Inputs: tx.Inputs,
		Outputs: tx.Outputs, Extra: tx.Extra}).Serialize()
	if tx.Version == 1 {
		b := prefix
		expected := len(tx.Signatures) != 0
		if expected && len(tx.Signatures) != len(tx.Inputs) {
			return b
		}
		if t.pruned {
			return b
		}
		for i, in := range tx.Inputs {
			size := signatureSize(in)
			if !expected {
				if size == 0 {
					continue
				}
				return b
			}
			if size != len(tx.Signatures[i]) {
				return b
			}
			for _, s := range tx.Signatures[i] {
				b = append(b, s[:]...)
			}
		}
		return b
	}
	r := tx.Rct
	if len(tx.Inputs) == 0 {
		return prefix
	}
	if !rctFits(tx, t.pruned) {
		return append(prefix, r.Type)
	}
	full := *tx
	full.Signatures = nil
	rc := *r
	if t.pruned || r.Type == cryptonote.RctTypeNull {
		rc.Prunable = nil
	}
	full.Rct = &rc
	return full.Serialize()
}

// signatureSize is get_signature_size: a ring signature per ring member
// for a key input, none for the others.
func signatureSize(in cryptonote.TxIn) int {
	if k, ok := in.(cryptonote.TxInToKey); ok {
		return len(k.KeyOffsets)
	}
	return 0
}

// rctFits is whether serialize_rctsig_base and serialize_rctsig_prunable
// (rctTypes.h) write tx's RingCT part to its end.
func rctFits(tx *cryptonote.Transaction, pruned bool) bool {
	r := tx.Rct
	inputs, outputs := len(tx.Inputs), len(tx.Outputs)
	if r.Type > cryptonote.RctTypeBulletproofPlus {
		return false
	}
	if r.Type == cryptonote.RctTypeNull {
		return true
	}
	if r.Type == cryptonote.RctTypeSimple && len(r.PseudoOuts) != inputs {
		return false
	}
	if len(r.EcdhInfo) != outputs || len(r.OutPk) != outputs {
		return false
	}
	if pruned {
		return true
	}
	// mixin is the first input's ring size less one (size_t: an empty ring
	// wraps round to far beyond the limit).
	mixin := uint64(0)
	if k, ok := tx.Inputs[0].(cryptonote.TxInToKey); ok {
		mixin = uint64(len(k.KeyOffsets)) - 1
	}
	if mixin >= 0xffffffff || uint64(inputs) >= 0xffffffff || uint64(outputs) >= 0xffffffff {
		return false
	}
	p := r.Prunable
	switch r.Type {
	case cryptonote.RctTypeBulletproofPlus:
		if len(p.BulletproofsPlus) > outputs {
			return false
		}
		for i := range p.BulletproofsPlus {
			if l := len(p.BulletproofsPlus[i].L); l == 0 || l != len(p.BulletproofsPlus[i].R) {
				return false
			}
		}
		if maxAmounts(len(p.BulletproofsPlus), func(i int) (int, int) {
			return len(p.BulletproofsPlus[i].L), len(p.BulletproofsPlus[i].R)
		}) < uint64(outputs) {
			return false
		}
	case cryptonote.RctTypeBulletproof, cryptonote.RctTypeBulletproof2, cryptonote.RctTypeCLSAG:
		if len(p.Bulletproofs) > outputs {
			return false
		}
		for i := range p.Bulletproofs {
			if l := len(p.Bulletproofs[i].L); l == 0 || l != len(p.Bulletproofs[i].R) {
				return false
			}
		}
		if maxAmounts(len(p.Bulletproofs), func(i int) (int, int) {
			return len(p.Bulletproofs[i].L), len(p.Bulletproofs[i].R)
		}) < uint64(outputs) {
			return false
		}
	default:
		if len(p.RangeSigs) != outputs {
			return false
		}
	}
	if r.Type == cryptonote.RctTypeCLSAG || r.Type == cryptonote.RctTypeBulletproofPlus {
		if len(p.CLSAGs) != inputs {
			return false
		}
		for i := range p.CLSAGs {
			if uint64(len(p.CLSAGs[i].S)) != mixin+1 {
				return false
			}
		}
	} else {
		simple := r.Type == cryptonote.RctTypeSimple || r.Type == cryptonote.RctTypeBulletproof || r.Type == cryptonote.RctTypeBulletproof2
		elements, columns := 1, inputs+1
		if simple {
			elements, columns = inputs, 2
		}
		if len(p.MGs) != elements {
			return false
		}
		for i := range p.MGs {
			if uint64(len(p.MGs[i].Ss)) != mixin+1 {
				return false
			}
			for _, row := range p.MGs[i].Ss {
				if len(row) != columns {
					return false
				}
			}
		}
	}
	if r.Type >= cryptonote.RctTypeBulletproof && len(p.PseudoOuts) != inputs {
		return false
	}
	return true
}

// maxAmounts is n_bulletproof_max_amounts (and its _plus twin, the same
// with 16 outputs at most): 2^(L-6) amounts a proof, 0 for the whole list
// when a proof's L is under 6 or over 10 or differs from R.
func maxAmounts(n int, lr func(int) (int, int)) uint64 {
	var sum uint64
	for i := 0; i < n; i++ {
		l, r := lr(i)
		if l < 6 || l != r || l > 10 {
			return 0
		}
		n2 := uint64(1) << (l - 6)
		if n2 >= math.MaxUint32-sum {
			return 0
		}
		sum += n2
	}
	return sum
}
