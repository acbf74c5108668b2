package cryptonote

import (
	"encoding/binary"
	"math/bits"
)

// MaxTxPerBlock is CRYPTONOTE_MAX_TX_PER_BLOCK: a block listing more
// transaction hashes fails to parse.
const MaxTxPerBlock = 0x10000000

// Decoder reads consecutive serialized objects from a byte slice, e.g. the
// block followed by its transactions in an export file record. Every read
// checks the remaining length before it allocates.
type Decoder struct {
	buf []byte
	pos int
	// pruned makes Transaction stop after the prefix (v1) or the RingCT
	// base (v2): the blob of a pruned transaction (pruned.go).
	pruned bool
}

// NewDecoder reads from b; the decoded values do not alias b.
func NewDecoder(b []byte) *Decoder { return &Decoder{buf: b} }

// Offset is the number of bytes consumed so far.
func (d *Decoder) Offset() int { return d.pos }

// Remaining is the number of bytes not yet consumed.
func (d *Decoder) Remaining() int { return len(d.buf) - d.pos }

func (d *Decoder) fail(field string, err error) error {
	return &DecodeError{Offset: d.pos, Field: field, Err: err}
}

func (d *Decoder) varint(field string, width uint) (uint64, error) {
	v, n, err := decodeVarint(d.buf[d.pos:], width)
	if err != nil {
		d.pos += n
		return 0, d.fail(field, err)
	}
	d.pos += n
	return v, nil
}

// Varint reads a 64-bit varint.
func (d *Decoder) Varint(field string) (uint64, error) { return d.varint(field, 64) }

func (d *Decoder) byte1(field string) (byte, error) {
	if d.pos >= len(d.buf) {
		return 0, d.fail(field, ErrTruncated)
	}
	c := d.buf[d.pos]
	d.pos++
	return c, nil
}

func (d *Decoder) fixed(field string, n int) ([]byte, error) {
	if n < 0 || d.Remaining() < n {
		return nil, d.fail(field, ErrTruncated)
	}
	b := d.buf[d.pos : d.pos+n]
	d.pos += n
	return b, nil
}

func (d *Decoder) hash(field string, dst *[32]byte) error {
	b, err := d.fixed(field, 32)
	if err != nil {
		return err
	}
	copy(dst[:], b)
	return nil
}

// count reads a vector length and checks that count elements of at least
// minSize bytes each can still be present, so that no slice is sized by an
// unchecked length.
func (d *Decoder) count(field string, minSize int) (int, error) {
	start := d.pos
	v, err := d.Varint(field)
	if err != nil {
		return 0, err
	}
	if !d.fits(v, uint64(minSize)) {
		d.pos = start
		return 0, d.fail(field, ErrTooLarge)
	}
	return int(v), nil
}

// fits reports whether n elements of size bytes fit in the remaining data.
func (d *Decoder) fits(n, size uint64) bool {
	hi, lo := bits.Mul64(n, size)
	return hi == 0 && lo <= uint64(d.Remaining())
}

func (d *Decoder) keys(field string, n int) ([]Key, error) {
	if !d.fits(uint64(n), 32) {
		return nil, d.fail(field, ErrTruncated)
	}
	ks := make([]Key, n)
	for i := range ks {
		copy(ks[i][:], d.buf[d.pos:])
		d.pos += 32
	}
	return ks, nil
}

func (d *Decoder) countedKeys(field string) ([]Key, error) {
	n, err := d.count(field, 32)
	if err != nil {
		return nil, err
	}
	return d.keys(field, n)
}

func (d *Decoder) countedBytes(field string) ([]byte, error) {
	n, err := d.count(field, 1)
	if err != nil {
		return nil, err
	}
	b, _ := d.fixed(field, n)
	return append([]byte(nil), b...), nil
}

// BlockHeader reads a block header.
func (d *Decoder) BlockHeader() (BlockHeader, error) {
	var h BlockHeader
	v, err := d.varint("major_version", 8)
	if err != nil {
		return h, err
	}
	h.MajorVersion = uint8(v)
	if v, err = d.varint("minor_version", 8); err != nil {
		return h, err
	}
	h.MinorVersion = uint8(v)
	if h.Timestamp, err = d.Varint("timestamp"); err != nil {
		return h, err
	}
	if err = d.hash("prev_id", (*[32]byte)(&h.PrevID)); err != nil {
		return h, err
	}
	nb, err := d.fixed("nonce", 4)
	if err != nil {
		return h, err
	}
	h.Nonce = binary.LittleEndian.Uint32(nb)
	return h, nil
}

// Block reads a block: header, miner transaction, transaction hashes.
func (d *Decoder) Block() (*Block, error) {
	var b Block
	var err error
	if b.BlockHeader, err = d.BlockHeader(); err != nil {
		return nil, err
	}
	tx, err := d.Transaction()
	if err != nil {
		return nil, err
	}
	b.MinerTx = *tx
	start := d.pos
	n, err := d.count("tx_hashes", 32)
	if err != nil {
		return nil, err
	}
	if n > MaxTxPerBlock {
		d.pos = start
		return nil, d.fail("tx_hashes", ErrTooLarge)
	}
	if n > 0 {
		b.TxHashes = make([]Hash, n)
		for i := range b.TxHashes {
			copy(b.TxHashes[i][:], d.buf[d.pos:])
			d.pos += 32
		}
	}
	return &b, nil
}

// Transaction reads a v1 or v2 transaction including its signatures.
func (d *Decoder) Transaction() (*Transaction, error) {
	tx := &Transaction{}
	if err := d.txPrefix(tx); err != nil {
		return nil, err
	}
	if tx.Version == 1 {
		if d.pruned {
			return tx, nil
		}
		return tx, d.v1Signatures(tx)
	}
	if len(tx.Inputs) == 0 {
		return tx, nil
	}
	return tx, d.rctSig(tx)
}

func (d *Decoder) txPrefix(tx *Transaction) error {
	var err error
	start := d.pos
	if tx.Version, err = d.Varint("version"); err != nil {
		return err
	}
	if tx.Version == 0 || tx.Version > 2 {
		d.pos = start
		return d.fail("version", ErrBadVersion)
	}
	if tx.UnlockTime, err = d.Varint("unlock_time"); err != nil {
		return err
	}
	nin, err := d.count("vin", 2)
	if err != nil {
		return err
	}
	tx.Inputs = make([]TxIn, 0, nin)
	for i := 0; i < nin; i++ {
		inStart := d.pos
		in, err := d.txIn()
		if err != nil {
			return err
		}
		// monerod 0.18.5.3 reads vin with its consensus guarantees
		// (cryptonote_basic.h, PR #11302): a txin_gen only as the single
		// input of a miner transaction, every other input a txin_to_key.
		// A blob breaking that fails to parse, in a pool transaction, a
		// block or a P2P message alike (docs/chain-format.md §3.1).
		switch in.(type) {
		case TxInToKey:
		case TxInGen:
			if nin != 1 {
				d.pos = inStart
				return d.fail("vin", ErrInputType)
			}
		default:
			d.pos = inStart
			return d.fail("vin", ErrInputType)
		}
		tx.Inputs = append(tx.Inputs, in)
	}
	nout, err := d.count("vout", 3)
	if err != nil {
		return err
	}
	tx.Outputs = make([]TxOut, 0, nout)
	for i := 0; i < nout; i++ {
		var o TxOut
		if o.Amount, err = d.Varint("vout.amount"); err != nil {
			return err
		}
		if o.Target, err = d.txOutTarget(); err != nil {
			return err
		}
		tx.Outputs = append(tx.Outputs, o)
	}
	tx.Extra, err = d.countedBytes("extra")
	return err
}

func (d *Decoder) txIn() (TxIn, error) {
	tag, err := d.byte1("vin.tag")
	if err != nil {
		return nil, err
	}
	switch tag {
	case tagGen:
		h, err := d.Varint("vin.gen.height")
		return TxInGen{Height: h}, err
	case tagToKey:
		var in TxInToKey
		if in.Amount, err = d.Varint("vin.key.amount"); err != nil {
			return nil, err
		}
		n, err := d.count("vin.key.key_offsets", 1)
		if err != nil {
			return nil, err
		}
		in.KeyOffsets = make([]uint64, n)
		for i := range in.KeyOffsets {
			if in.KeyOffsets[i], err = d.Varint("vin.key.key_offsets"); err != nil {
				return nil, err
			}
		}
		return in, d.hash("vin.key.k_image", (*[32]byte)(&in.KeyImage))
	case tagScript:
		var in TxInToScript
		if err = d.hash("vin.script.prev", (*[32]byte)(&in.Prev)); err != nil {
			return nil, err
		}
		if in.Prevout, err = d.Varint("vin.script.prevout"); err != nil {
			return nil, err
		}
		in.Sigset, err = d.countedBytes("vin.script.sigset")
		return in, err
	case tagScriptHash:
		var in TxInToScriptHash
		if err = d.hash("vin.scripthash.prev", (*[32]byte)(&in.Prev)); err != nil {
			return nil, err
		}
		if in.Prevout, err = d.Varint("vin.scripthash.prevout"); err != nil {
			return nil, err
		}
		if in.Script, err = d.outToScript("vin.scripthash.script"); err != nil {
			return nil, err
		}
		in.Sigset, err = d.countedBytes("vin.scripthash.sigset")
		return in, err
	}
	d.pos--
	return nil, d.fail("vin.tag", ErrUnknownTag)
}

func (d *Decoder) outToScript(field string) (TxOutToScript, error) {
	var s TxOutToScript
	var err error
	if s.Keys, err = d.countedKeys(field + ".keys"); err != nil {
		return s, err
	}
	s.Script, err = d.countedBytes(field + ".script")
	return s, err
}

func (d *Decoder) txOutTarget() (TxOutTarget, error) {
	tag, err := d.byte1("vout.target.tag")
	if err != nil {
		return nil, err
	}
	switch tag {
	case tagToKey:
		var t TxOutToKey
		return t, d.hash("vout.target.key", (*[32]byte)(&t.Key))
	case tagTaggedKey:
		var t TxOutToTaggedKey
		if err := d.hash("vout.target.tagged_key.key", (*[32]byte)(&t.Key)); err != nil {
			return nil, err
		}
		t.ViewTag, err = d.byte1("vout.target.tagged_key.view_tag")
		return t, err
	case tagScript:
		return d.outToScript("vout.target.script")
	case tagScriptHash:
		var t TxOutToScriptHash
		return t, d.hash("vout.target.scripthash", (*[32]byte)(&t.Hash))
	}
	d.pos--
	return nil, d.fail("vout.target.tag", ErrUnknownTag)
}

// v1Signatures reads, for each input, one 64-byte signature per ring member
// (none for non-key inputs); the counts are implied, not serialized.
func (d *Decoder) v1Signatures(tx *Transaction) error {
	tx.Signatures = make([][]Signature, len(tx.Inputs))
	for i, in := range tx.Inputs {
		k, ok := in.(TxInToKey)
		if !ok || len(k.KeyOffsets) == 0 {
			continue
		}
		if !d.fits(uint64(len(k.KeyOffsets)), 64) {
			return d.fail("signatures", ErrTruncated)
		}
		sigs := make([]Signature, len(k.KeyOffsets))
		for j := range sigs {
			copy(sigs[j][:], d.buf[d.pos:])
			d.pos += 64
		}
		tx.Signatures[i] = sigs
	}
	return nil
}

func (d *Decoder) rctSig(tx *Transaction) error {
	nin, nout := len(tx.Inputs), len(tx.Outputs)
	ring := tx.ringSize()
	if ring == 0 {
		return d.fail("rct_signatures", ErrInconsistent) // empty key_offsets in the first input
	}
	rct := &RctSig{}
	tx.Rct = rct
	var err error
	if rct.Type, err = d.byte1("rct_signatures.type"); err != nil {
		return err
	}
	if rct.Type == RctTypeNull {
		return nil
	}
	if rct.Type > RctTypeBulletproofPlus {
		d.pos--
		return d.fail("rct_signatures.type", ErrBadRctType)
	}
	if rct.TxnFee, err = d.Varint("rct_signatures.txnFee"); err != nil {
		return err
	}
	if rct.Type == RctTypeSimple {
		if rct.PseudoOuts, err = d.keys("rct_signatures.pseudoOuts", nin); err != nil {
			return err
		}
	}
	compact := rct.Type >= RctTypeBulletproof2
	ecdhSize := uint64(64)
	if compact {
		ecdhSize = 8
	}
	if !d.fits(uint64(nout), ecdhSize) {
		return d.fail("rct_signatures.ecdhInfo", ErrTruncated)
	}
	rct.EcdhInfo = make([]EcdhTuple, nout)
	for i := range rct.EcdhInfo {
		e := &rct.EcdhInfo[i]
		if compact {
			copy(e.Amount[:8], d.buf[d.pos:])
			d.pos += 8
		} else {
			copy(e.Mask[:], d.buf[d.pos:])
			copy(e.Amount[:], d.buf[d.pos+32:])
			d.pos += 64
		}
	}
	if rct.OutPk, err = d.keys("rct_signatures.outPk", nout); err != nil {
		return err
	}
	if d.pruned {
		return nil
	}
	rct.Prunable = &RctPrunable{}
	return d.rctPrunable(rct.Type, rct.Prunable, nin, nout, ring)
}

const rangeSigSize = 6176

func (d *Decoder) rctPrunable(typ uint8, p *RctPrunable, nin, nout, ring int) error {
	var err error
	switch typ {
	case RctTypeFull, RctTypeSimple:
		if !d.fits(uint64(nout), rangeSigSize) {
			return d.fail("rctsig_prunable.rangeSigs", ErrTruncated)
		}
		p.RangeSigs = make([]RangeSig, nout)
		for i := range p.RangeSigs {
			r := &p.RangeSigs[i]
			for j := range r.S0 {
				copy(r.S0[j][:], d.buf[d.pos:])
				d.pos += 32
			}
			for j := range r.S1 {
				copy(r.S1[j][:], d.buf[d.pos:])
				d.pos += 32
			}
			copy(r.Ee[:], d.buf[d.pos:])
			d.pos += 32
			for j := range r.Ci {
				copy(r.Ci[j][:], d.buf[d.pos:])
				d.pos += 32
			}
		}
	default:
		if err = d.bulletproofs(typ, p, nout); err != nil {
			return err
		}
	}

	if typ >= RctTypeCLSAG {
		// s: ring scalars, then c1 and D (the key image is not serialized).
		if !d.fits(uint64(nin), uint64(ring)*32+64) {
			return d.fail("rctsig_prunable.CLSAGs", ErrTruncated)
		}
		p.CLSAGs = make([]Clsag, nin)
		for i := range p.CLSAGs {
			c := &p.CLSAGs[i]
			c.S, _ = d.keys("rctsig_prunable.CLSAGs.s", ring)
			_ = d.hash("rctsig_prunable.CLSAGs.c1", (*[32]byte)(&c.C1))
			_ = d.hash("rctsig_prunable.CLSAGs.D", (*[32]byte)(&c.D))
		}
	} else {
		mgs, cols := nin, 2
		if typ == RctTypeFull {
			mgs, cols = 1, nin+1
		}
		hi, perMG := bits.Mul64(uint64(ring), uint64(cols))
		if hi != 0 || perMG > 1<<58 || !d.fits(uint64(mgs), perMG*32+32) {
			return d.fail("rctsig_prunable.MGs", ErrTruncated)
		}
		p.MGs = make([]MgSig, mgs)
		for i := range p.MGs {
			m := &p.MGs[i]
			m.Ss = make([][]Key, ring)
			for j := range m.Ss {
				m.Ss[j], _ = d.keys("rctsig_prunable.MGs.ss", cols)
			}
			_ = d.hash("rctsig_prunable.MGs.cc", (*[32]byte)(&m.Cc))
		}
	}

	if typ >= RctTypeBulletproof {
		if p.PseudoOuts, err = d.keys("rctsig_prunable.pseudoOuts", nin); err != nil {
			return err
		}
	}
	return nil
}

// bulletproofs reads the proof count and the proofs of types 3-6 and applies
// monerod's parse-time checks: no more proofs than outputs, and enough padded
// capacity (sum of 2^(len(L)-6)) for every output.
func (d *Decoder) bulletproofs(typ uint8, p *RctPrunable, nout int) error {
	var nbp uint64
	if typ == RctTypeBulletproof {
		b, err := d.fixed("rctsig_prunable.nbp", 4)
		if err != nil {
			return err
		}
		nbp = uint64(binary.LittleEndian.Uint32(b))
	} else {
		var err error
		if nbp, err = d.varint("rctsig_prunable.nbp", 32); err != nil {
			return err
		}
	}
	if nbp > uint64(nout) {
		return d.fail("rctsig_prunable.nbp", ErrInconsistent)
	}
	plus := typ == RctTypeBulletproofPlus
	fixedKeys := 9
	if plus {
		fixedKeys = 6
	}
	if !d.fits(nbp, uint64(fixedKeys*32+2)) {
		return d.fail("rctsig_prunable.bp", ErrTruncated)
	}
	var capacity uint64
	ok := true
	lrCap := func(l, r []Key) {
		if len(l) != len(r) || len(l) < 6 || len(l) > 10 {
			ok = false
			return
		}
		capacity += 1 << (len(l) - 6)
	}
	if plus {
		p.BulletproofsPlus = make([]BulletproofPlus, nbp)
		for i := range p.BulletproofsPlus {
			bp := &p.BulletproofsPlus[i]
			for _, k := range []*Key{&bp.A, &bp.A1, &bp.B, &bp.R1, &bp.S1, &bp.D1} {
				if err := d.hash("rctsig_prunable.bpp", (*[32]byte)(k)); err != nil {
					return err
				}
			}
			var err error
			if bp.L, err = d.countedKeys("rctsig_prunable.bpp.L"); err != nil {
				return err
			}
			if bp.R, err = d.countedKeys("rctsig_prunable.bpp.R"); err != nil {
				return err
			}
			lrCap(bp.L, bp.R)
		}
	} else {
		p.Bulletproofs = make([]Bulletproof, nbp)
		for i := range p.Bulletproofs {
			bp := &p.Bulletproofs[i]
			for _, k := range []*Key{&bp.A, &bp.S, &bp.T1, &bp.T2, &bp.Taux, &bp.Mu} {
				if err := d.hash("rctsig_prunable.bp", (*[32]byte)(k)); err != nil {
					return err
				}
			}
			var err error
			if bp.L, err = d.countedKeys("rctsig_prunable.bp.L"); err != nil {
				return err
			}
			if bp.R, err = d.countedKeys("rctsig_prunable.bp.R"); err != nil {
				return err
			}
			for _, k := range []*Key{&bp.Aa, &bp.B, &bp.T} {
				if err := d.hash("rctsig_prunable.bp", (*[32]byte)(k)); err != nil {
					return err
				}
			}
			lrCap(bp.L, bp.R)
		}
	}
	if !ok || capacity < uint64(nout) {
		return d.fail("rctsig_prunable.bp", ErrInconsistent)
	}
	return nil
}

func (d *Decoder) end(field string) error {
	if d.Remaining() != 0 {
		return d.fail(field, ErrTrailingBytes)
	}
	return nil
}

// ParseBlock decodes a whole block blob; trailing bytes are an error.
func ParseBlock(b []byte) (*Block, error) {
	d := NewDecoder(b)
	blk, err := d.Block()
	if err != nil {
		return nil, err
	}
	return blk, d.end("block")
}

// ParseTransaction decodes a whole transaction blob; trailing bytes are an error.
func ParseTransaction(b []byte) (*Transaction, error) {
	d := NewDecoder(b)
	tx, err := d.Transaction()
	if err != nil {
		return nil, err
	}
	return tx, d.end("transaction")
}
