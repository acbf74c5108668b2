package cryptonote

import "encoding/hex"

// Key is a 32-byte curve point or scalar: public keys, key images, RingCT
// commitments and proof elements.
type Key [32]byte

func (k Key) String() string { return hex.EncodeToString(k[:]) }

// Signature is a v1 ring-signature element (c || r).
type Signature [64]byte

// BlockHeader is the fixed part of a block that is hashed for proof of work.
type BlockHeader struct {
	MajorVersion uint8
	MinorVersion uint8 // the hard-fork vote
	Timestamp    uint64
	PrevID       Hash
	Nonce        uint32
}

// Block is a header, the coinbase ("miner") transaction, and the ids of the
// other transactions, in block order.
type Block struct {
	BlockHeader
	MinerTx  Transaction
	TxHashes []Hash
}

// TxIn is one of the input variants; the concrete types are TxInGen,
// TxInToKey, TxInToScript and TxInToScriptHash.
type TxIn interface{ inputTag() byte }

// TxInGen is the coinbase input: it creates coins at a block height.
type TxInGen struct{ Height uint64 }

// TxInToKey spends one of a ring of outputs; KeyOffsets are relative indexes.
type TxInToKey struct {
	Amount     uint64
	KeyOffsets []uint64
	KeyImage   Key
}

// TxInToScript and TxInToScriptHash parse but are never valid on chain.
type TxInToScript struct {
	Prev    Hash
	Prevout uint64
	Sigset  []byte
}

type TxInToScriptHash struct {
	Prev    Hash
	Prevout uint64
	Script  TxOutToScript
	Sigset  []byte
}

const (
	tagGen        = 0xff
	tagScript     = 0x00
	tagScriptHash = 0x01
	tagToKey      = 0x02
	tagTaggedKey  = 0x03
)

func (TxInGen) inputTag() byte          { return tagGen }
func (TxInToKey) inputTag() byte        { return tagToKey }
func (TxInToScript) inputTag() byte     { return tagScript }
func (TxInToScriptHash) inputTag() byte { return tagScriptHash }

// TxOut is an amount sent to a target.
type TxOut struct {
	Amount uint64
	Target TxOutTarget
}

// TxOutTarget is one of TxOutToKey, TxOutToTaggedKey, TxOutToScript, TxOutToScriptHash.
type TxOutTarget interface{ targetTag() byte }

type TxOutToKey struct{ Key Key }

// TxOutToTaggedKey carries a view tag (from hard fork 15) so wallets can skip
// most outputs after one byte of work.
type TxOutToTaggedKey struct {
	Key     Key
	ViewTag byte
}

type TxOutToScript struct {
	Keys   []Key
	Script []byte
}

type TxOutToScriptHash struct{ Hash Hash }

func (TxOutToKey) targetTag() byte        { return tagToKey }
func (TxOutToTaggedKey) targetTag() byte  { return tagTaggedKey }
func (TxOutToScript) targetTag() byte     { return tagScript }
func (TxOutToScriptHash) targetTag() byte { return tagScriptHash }

// Transaction is a v1 or v2 transaction. V1 carries ring Signatures (one
// slice per input, empty for non-key inputs); v2 carries RctSig (nil only
// for a v2 transaction without inputs, which never occurs on chain).
type Transaction struct {
	Version    uint64
	UnlockTime uint64
	Inputs     []TxIn
	Outputs    []TxOut
	Extra      []byte

	Signatures [][]Signature
	Rct        *RctSig
}

// RingCT signature types.
const (
	RctTypeNull            = 0
	RctTypeFull            = 1
	RctTypeSimple          = 2
	RctTypeBulletproof     = 3
	RctTypeBulletproof2    = 4
	RctTypeCLSAG           = 5
	RctTypeBulletproofPlus = 6
)

// RctSig is the RingCT part of a v2 transaction: the base (hashed on its
// own) and, unless the transaction was pruned, the prunable proofs.
type RctSig struct {
	Type       uint8
	TxnFee     uint64
	PseudoOuts []Key // in the base only for RctTypeSimple
	EcdhInfo   []EcdhTuple
	OutPk      []Key // commitments only; the destination keys are the outputs'
	Prunable   *RctPrunable
}

// EcdhTuple is the encrypted amount (and, before Bulletproof2, mask) of an
// output. From RctTypeBulletproof2 only the first 8 bytes of Amount are
// serialized and Mask is zero.
type EcdhTuple struct {
	Mask   Key
	Amount Key
}

// RctPrunable holds the proofs that a pruned node may drop.
type RctPrunable struct {
	RangeSigs        []RangeSig // types 1, 2
	Bulletproofs     []Bulletproof
	BulletproofsPlus []BulletproofPlus
	MGs              []MgSig // types 1-4
	CLSAGs           []Clsag // types 5, 6
	PseudoOuts       []Key   // types 3-6
}

// RangeSig is a Borromean range proof (types 1, 2).
type RangeSig struct {
	S0 [64]Key
	S1 [64]Key
	Ee Key
	Ci [64]Key
}

type Bulletproof struct {
	A, S, T1, T2, Taux, Mu Key
	L, R                   []Key
	Aa, B, T               Key // "a", "b", "t" in monerod's field names
}

type BulletproofPlus struct {
	A, A1, B, R1, S1, D1 Key
	L, R                 []Key
}

// MgSig is an MLSAG: Ss is ring size rows by a fixed column count.
type MgSig struct {
	Ss [][]Key
	Cc Key
}

type Clsag struct {
	S  []Key
	C1 Key
	D  Key
}

// ringSize is the ring size monerod uses for every input's signature when
// (de)serializing RingCT data: that of the first input (mixin + 1).
func (tx *Transaction) ringSize() int {
	if len(tx.Inputs) == 0 {
		return 0
	}
	if in, ok := tx.Inputs[0].(TxInToKey); ok {
		return len(in.KeyOffsets)
	}
	return 1
}

// OutputSum is the sum of the output amounts (the block reward for a miner
// transaction) and whether it overflowed 64 bits.
func (tx *Transaction) OutputSum() (sum uint64, overflow bool) {
	for _, o := range tx.Outputs {
		s := sum + o.Amount
		if s < sum {
			overflow = true
		}
		sum = s
	}
	return sum, overflow
}
