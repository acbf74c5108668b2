package zmqpub

import (
	"encoding/hex"
	"strconv"

	"filippo.io/edwards25519"

	"github.com/gonero/gonero/cryptonote"
)

// The JSON here is monerod's serialization/json_object.cpp, written by
// rapidjson's compact Writer: no white space, keys in the order the C++
// writes them (not sorted, unlike the RPC's epee JSON), integers as plain
// decimals, every hash, key and signature as a lower-case hex string and
// byte vectors (extra, sigset, script) as one hex string. It differs from
// the `json` text of getblock / decode_as_json (json_archive) in names
// (inputs/outputs/ringct/encrypted/commitments instead of vin/vout/
// rct_signatures/ecdhInfo/outPk), in leaving CLSAGs out altogether, and in
// carrying the Bulletproof commitments V, which the blob does not hold.

// jsonBuf appends JSON values; comma placement is tracked per nesting level.
type jsonBuf struct {
	b     []byte
	first []bool // per open object/array: nothing written in it yet
}

func (j *jsonBuf) sep() {
	if n := len(j.first); n > 0 {
		if !j.first[n-1] {
			j.b = append(j.b, ',')
		}
		j.first[n-1] = false
	}
}

func (j *jsonBuf) open(c byte) {
	j.sep()
	j.b = append(j.b, c)
	j.first = append(j.first, true)
}

func (j *jsonBuf) close(c byte) {
	j.first = j.first[:len(j.first)-1]
	j.b = append(j.b, c)
}

func (j *jsonBuf) startObject() { j.open('{') }
func (j *jsonBuf) endObject()   { j.close('}') }
func (j *jsonBuf) startArray()  { j.open('[') }
func (j *jsonBuf) endArray()    { j.close(']') }

// key writes a member name; the value that follows must not add a comma.
func (j *jsonBuf) key(k string) {
	j.sep()
	j.b = append(j.b, '"')
	j.b = append(j.b, k...) // member names are fixed ASCII identifiers
	j.b = append(j.b, '"', ':')
	j.first[len(j.first)-1] = true // the value is not preceded by a comma
}

// value marks the end of a member's value (so the next member gets a comma).
func (j *jsonBuf) valueDone() {
	if n := len(j.first); n > 0 {
		j.first[n-1] = false
	}
}

func (j *jsonBuf) uint(v uint64) {
	j.sep()
	j.b = strconv.AppendUint(j.b, v, 10)
}

func (j *jsonBuf) hex(v []byte) {
	j.sep()
	j.b = append(j.b, '"')
	j.b = hex.AppendEncode(j.b, v)
	j.b = append(j.b, '"')
}

func (j *jsonBuf) str(s string) {
	j.sep()
	j.b = append(j.b, '"')
	j.b = append(j.b, s...) // only fixed ASCII text ("0x…" difficulties)
	j.b = append(j.b, '"')
}

// Member helpers: key then value.
func (j *jsonBuf) mUint(k string, v uint64) { j.key(k); j.uint(v); j.valueDone() }
func (j *jsonBuf) mHex(k string, v []byte)  { j.key(k); j.hex(v); j.valueDone() }
func (j *jsonBuf) mKeys(k string, v []cryptonote.Key) {
	j.key(k)
	j.keys(v)
	j.valueDone()
}

func (j *jsonBuf) keys(v []cryptonote.Key) {
	j.startArray()
	for i := range v {
		j.hex(v[i][:])
	}
	j.endArray()
}

func (j *jsonBuf) hashes(v []cryptonote.Hash) {
	j.startArray()
	for i := range v {
		j.hex(v[i][:])
	}
	j.endArray()
}

// writeBlock is toJsonValue(cryptonote::block).
func (j *jsonBuf) writeBlock(b *cryptonote.Block) {
	j.startObject()
	j.mUint("major_version", uint64(b.MajorVersion))
	j.mUint("minor_version", uint64(b.MinorVersion))
	j.mUint("timestamp", b.Timestamp)
	j.mHex("prev_id", b.PrevID[:])
	j.mUint("nonce", uint64(b.Nonce))
	j.key("miner_tx")
	j.writeTx(&b.MinerTx)
	j.valueDone()
	j.key("tx_hashes")
	j.hashes(b.TxHashes)
	j.valueDone()
	j.endObject()
}

// writeTx is toJsonValue(cryptonote::transaction) for an unpruned
// transaction as monerod holds it after parse_and_validate_tx_from_blob.
func (j *jsonBuf) writeTx(tx *cryptonote.Transaction) { j.writeTxAs(tx, false) }

// writeTxAs writes a transaction; pruned is monerod's transaction::pruned
// (set for every transaction of a pruned get_blocks_fast answer): no
// signatures member then.
func (j *jsonBuf) writeTxAs(tx *cryptonote.Transaction, pruned bool) {
	j.startObject()
	j.mUint("version", tx.Version)
	j.mUint("unlock_time", tx.UnlockTime)
	j.key("inputs")
	j.startArray()
	for _, in := range tx.Inputs {
		j.writeInput(in)
	}
	j.endArray()
	j.valueDone()
	j.key("outputs")
	j.startArray()
	for i := range tx.Outputs {
		j.writeOutput(&tx.Outputs[i])
	}
	j.endArray()
	j.valueDone()
	j.mHex("extra", tx.Extra)
	// Version 2 transactions keep an empty signature vector; version 1
	// ones one (possibly empty) vector per input.
	if !pruned {
		j.key("signatures")
		j.startArray()
		for _, sigs := range tx.Signatures {
			j.startArray()
			for i := range sigs {
				j.hex(sigs[i][:])
			}
			j.endArray()
		}
		j.endArray()
		j.valueDone()
	}
	j.key("ringct")
	j.writeRct(tx)
	j.valueDone()
	j.endObject()
}

func (j *jsonBuf) writeInput(in cryptonote.TxIn) {
	j.startObject()
	switch v := in.(type) {
	case cryptonote.TxInToKey:
		j.key("to_key")
		j.startObject()
		j.mUint("amount", v.Amount)
		j.key("key_offsets")
		j.startArray()
		for _, o := range v.KeyOffsets {
			j.uint(o)
		}
		j.endArray()
		j.valueDone()
		j.mHex("key_image", v.KeyImage[:])
		j.endObject()
	case cryptonote.TxInGen:
		j.key("gen")
		j.startObject()
		j.mUint("height", v.Height)
		j.endObject()
	case cryptonote.TxInToScript:
		j.key("to_script")
		j.startObject()
		j.mHex("prev", v.Prev[:])
		j.mUint("prevout", v.Prevout)
		j.mHex("sigset", v.Sigset)
		j.endObject()
	case cryptonote.TxInToScriptHash:
		j.key("to_scripthash")
		j.startObject()
		j.mHex("prev", v.Prev[:])
		j.mUint("prevout", v.Prevout)
		j.key("script")
		j.writeScriptOut(&v.Script)
		j.valueDone()
		j.mHex("sigset", v.Sigset)
		j.endObject()
	}
	j.valueDone()
	j.endObject()
}

func (j *jsonBuf) writeScriptOut(o *cryptonote.TxOutToScript) {
	j.startObject()
	j.mKeys("keys", o.Keys)
	j.mHex("script", o.Script)
	j.endObject()
}

func (j *jsonBuf) writeOutput(o *cryptonote.TxOut) {
	j.startObject()
	j.mUint("amount", o.Amount)
	switch t := o.Target.(type) {
	case cryptonote.TxOutToKey:
		j.key("to_key")
		j.startObject()
		j.mHex("key", t.Key[:])
		j.endObject()
	case cryptonote.TxOutToTaggedKey:
		j.key("to_tagged_key")
		j.startObject()
		j.mHex("key", t.Key[:])
		j.mHex("view_tag", []byte{t.ViewTag})
		j.endObject()
	case cryptonote.TxOutToScript:
		j.key("to_script")
		j.writeScriptOut(&t)
	case cryptonote.TxOutToScriptHash:
		j.key("to_scripthash")
		j.startObject()
		j.mHex("hash", t.Hash[:])
		j.endObject()
	}
	j.valueDone()
	j.endObject()
}

// writeRct is toJsonValue(rct::rctSig, prune) of monerod 0.18.5: the
// CLSAG signatures of types 5 and 6 under "clsags", after "mlsags" (0.18.0
// wrote none), and no "prunable" object at all for a pruned transaction
// (one whose prunable part is absent here; 0.18.0 wrote the base's pseudo
// outputs of type 2 there).
func (j *jsonBuf) writeRct(tx *cryptonote.Transaction) {
	var rv cryptonote.RctSig
	if tx.Rct != nil {
		rv = *tx.Rct
	}
	j.startObject()
	j.mUint("type", uint64(rv.Type))
	if rv.Type != cryptonote.RctTypeNull {
		j.key("encrypted")
		j.startArray()
		for i := range rv.EcdhInfo {
			j.startObject()
			j.mHex("mask", rv.EcdhInfo[i].Mask[:])
			j.mHex("amount", rv.EcdhInfo[i].Amount[:])
			j.endObject()
		}
		j.endArray()
		j.valueDone()
		j.mKeys("commitments", rv.OutPk)
		j.mUint("fee", rv.TxnFee)
	}
	p := rv.Prunable
	pruned := p == nil
	if pruned {
		p = &cryptonote.RctPrunable{}
	}
	// rctSig::get_pseudo_outs: the base's for RctTypeSimple, else the
	// prunable part's.
	pseudo := p.PseudoOuts
	if rv.Type == cryptonote.RctTypeSimple {
		pseudo = rv.PseudoOuts
	}
	if !pruned && (len(p.Bulletproofs) > 0 || len(p.BulletproofsPlus) > 0 || len(p.RangeSigs) > 0 || len(p.MGs) > 0 || len(pseudo) > 0) {
		j.key("prunable")
		j.startObject()
		j.key("range_proofs")
		j.startArray()
		for i := range p.RangeSigs {
			r := &p.RangeSigs[i]
			j.startObject()
			j.key("asig")
			j.startObject()
			j.mKeys("s0", r.S0[:])
			j.mKeys("s1", r.S1[:])
			j.mHex("ee", r.Ee[:])
			j.endObject()
			j.valueDone()
			j.mKeys("Ci", r.Ci[:])
			j.endObject()
		}
		j.endArray()
		j.valueDone()
		// expand_transaction_1 fills a proof's V with INV_EIGHT·outPk; the
		// JSON carries them.
		v := commitmentsV(rv.OutPk)
		j.key("bulletproofs")
		j.startArray()
		for i := range p.Bulletproofs {
			b := &p.Bulletproofs[i]
			j.startObject()
			j.mKeys("V", v)
			j.mHex("A", b.A[:])
			j.mHex("S", b.S[:])
			j.mHex("T1", b.T1[:])
			j.mHex("T2", b.T2[:])
			j.mHex("taux", b.Taux[:])
			j.mHex("mu", b.Mu[:])
			j.mKeys("L", b.L)
			j.mKeys("R", b.R)
			j.mHex("a", b.Aa[:])
			j.mHex("b", b.B[:])
			j.mHex("t", b.T[:])
			j.endObject()
		}
		j.endArray()
		j.valueDone()
		j.key("bulletproofs_plus")
		j.startArray()
		for i := range p.BulletproofsPlus {
			b := &p.BulletproofsPlus[i]
			j.startObject()
			j.mKeys("V", v)
			j.mHex("A", b.A[:])
			j.mHex("A1", b.A1[:])
			j.mHex("B", b.B[:])
			j.mHex("r1", b.R1[:])
			j.mHex("s1", b.S1[:])
			j.mHex("d1", b.D1[:])
			j.mKeys("L", b.L)
			j.mKeys("R", b.R)
			j.endObject()
		}
		j.endArray()
		j.valueDone()
		j.key("mlsags")
		j.startArray()
		for i := range p.MGs {
			m := &p.MGs[i]
			j.startObject()
			j.key("ss")
			j.startArray()
			for _, row := range m.Ss {
				j.keys(row)
			}
			j.endArray()
			j.valueDone()
			j.mHex("cc", m.Cc[:])
			j.endObject()
		}
		j.endArray()
		j.valueDone()
		j.key("clsags")
		j.startArray()
		for i := range p.CLSAGs {
			c := &p.CLSAGs[i]
			j.startObject()
			j.mKeys("s", c.S)
			j.mHex("c1", c.C1[:])
			j.mHex("D", c.D[:])
			j.endObject()
		}
		j.endArray()
		j.valueDone()
		j.mKeys("pseudo_outs", pseudo)
		j.endObject()
		j.valueDone()
	}
	j.endObject()
}

// invEight is 8⁻¹ mod ℓ.
var invEight = func() *edwards25519.Scalar {
	var eight [32]byte
	eight[0] = 8
	s, err := edwards25519.NewScalar().SetCanonicalBytes(eight[:])
	if err != nil {
		panic(err)
	}
	return edwards25519.NewScalar().Invert(s)
}()

// commitmentsV is rct::scalarmultKey(outPk[i], INV_EIGHT) for each
// commitment, as expand_transaction_1 stores them in a range proof. A
// commitment that is not a point (never in a verified transaction) gives
// the zero key.
func commitmentsV(outPk []cryptonote.Key) []cryptonote.Key {
	v := make([]cryptonote.Key, len(outPk))
	for i := range outPk {
		p, err := edwards25519.NewIdentityPoint().SetBytes(outPk[i][:])
		if err != nil {
			continue
		}
		copy(v[i][:], edwards25519.NewIdentityPoint().ScalarMult(invEight, p).Bytes())
	}
	return v
}

// MinerData is what json-full-miner_data carries: the facts for a template
// on top of the new top (Blockchain::send_miner_notifications).
type MinerData struct {
	MajorVersion          uint8
	Height                uint64 // of the next block
	PrevID                cryptonote.Hash
	SeedHash              cryptonote.Hash
	DifficultyLo          uint64 // difficulty, 128 bits
	DifficultyHi          uint64
	MedianWeight          uint64
	AlreadyGeneratedCoins uint64
	TxBacklog             []BacklogEntry
}

// BacklogEntry is a tx_block_template_backlog_entry.
type BacklogEntry struct {
	ID     cryptonote.Hash
	Weight uint64
	Fee    uint64
}

// TxEvent is a transaction that entered the pool (a txpool_event).
type TxEvent struct {
	Tx       *cryptonote.Transaction
	ID       cryptonote.Hash
	BlobSize uint64
	Weight   uint64
	Fee      uint64
}

func renderFullChain(blocks []*cryptonote.Block) []byte {
	j := jsonBuf{b: []byte(topicFullChain + ":")}
	j.startArray()
	for _, b := range blocks {
		j.writeBlock(b)
	}
	j.endArray()
	return j.b
}

func renderMinimalChain(height uint64, blocks []*cryptonote.Block, ids []cryptonote.Hash) []byte {
	j := jsonBuf{b: []byte(topicMinimalChain + ":")}
	j.startObject()
	j.mUint("first_height", height)
	j.mHex("first_prev_id", blocks[0].PrevID[:])
	j.key("ids")
	j.hashes(ids)
	j.valueDone()
	j.endObject()
	return j.b
}

func renderMinerData(m *MinerData) []byte {
	j := jsonBuf{b: []byte(topicMinerData + ":")}
	j.startObject()
	j.mUint("major_version", uint64(m.MajorVersion))
	j.mUint("height", m.Height)
	j.mHex("prev_id", m.PrevID[:])
	j.mHex("seed_hash", m.SeedHash[:])
	j.key("difficulty")
	j.str(difficultyHex(m.DifficultyHi, m.DifficultyLo))
	j.valueDone()
	j.mUint("median_weight", m.MedianWeight)
	j.mUint("already_generated_coins", m.AlreadyGeneratedCoins)
	j.key("tx_backlog")
	j.startArray()
	for i := range m.TxBacklog {
		e := &m.TxBacklog[i]
		j.startObject()
		j.mHex("id", e.ID[:])
		j.mUint("weight", e.Weight)
		j.mUint("fee", e.Fee)
		j.endObject()
	}
	j.endArray()
	j.valueDone()
	j.endObject()
	return j.b
}

// difficultyHex is cryptonote::hex(difficulty_type): "0x" and lower-case
// hex digits without leading zeros ("0x0" for zero).
func difficultyHex(hi, lo uint64) string {
	if hi == 0 {
		return "0x" + strconv.FormatUint(lo, 16)
	}
	l := strconv.FormatUint(lo, 16)
	for len(l) < 16 {
		l = "0" + l
	}
	return "0x" + strconv.FormatUint(hi, 16) + l
}

func renderFullTxpool(txs []TxEvent) []byte {
	j := jsonBuf{b: []byte(topicFullTxpool + ":")}
	j.startArray()
	for i := range txs {
		j.writeTx(txs[i].Tx)
	}
	j.endArray()
	return j.b
}

func renderMinimalTxpool(txs []TxEvent) []byte {
	j := jsonBuf{b: []byte(topicMinimalTxpool + ":")}
	j.startArray()
	for i := range txs {
		t := &txs[i]
		j.startObject()
		j.mHex("id", t.ID[:])
		j.mUint("blob_size", t.BlobSize)
		j.mUint("weight", t.Weight)
		j.mUint("fee", t.Fee)
		j.endObject()
	}
	j.endArray()
	return j.b
}
