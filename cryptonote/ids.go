package cryptonote

import "errors"

// TxHashes are the identifiers derived from a serialized transaction.
type TxHashes struct {
	ID           Hash // the transaction id
	PrefixHash   Hash // what ring signatures sign
	PrunableHash Hash // v2 only: H(prunable part), zero for RingCT type 0 and v1
}

// Hashes serializes tx and computes its id: for v1 the hash of the whole
// blob; for v2 H(H(prefix) || H(rct base) || H(rct prunable)), the last being
// 32 zero bytes for RingCT type 0 (every v2 coinbase).
func (tx *Transaction) Hashes() TxHashes {
	blob, parts := tx.appendParts(nil)
	return hashesOf(tx, blob, parts)
}

func hashesOf(tx *Transaction, blob []byte, parts txParts) TxHashes {
	var h TxHashes
	h.PrefixHash = Keccak256(blob[:parts.prefixEnd])
	if tx.Version == 1 {
		h.ID = Keccak256(blob)
		return h
	}
	if tx.Rct != nil && tx.Rct.Type != RctTypeNull {
		h.PrunableHash = Keccak256(blob[parts.baseEnd:])
	}
	base := Keccak256(blob[parts.prefixEnd:parts.baseEnd])
	var three [3 * HashSize]byte
	copy(three[:], h.PrefixHash[:])
	copy(three[32:], base[:])
	copy(three[64:], h.PrunableHash[:])
	h.ID = Keccak256(three[:])
	return h
}

// ID is the transaction id.
func (tx *Transaction) ID() Hash { return tx.Hashes().ID }

// TreeHash is monero's Merkle root of a block's transaction ids (miner tx
// first). It panics on an empty list, which no block can produce.
func TreeHash(ids []Hash) Hash {
	n := len(ids)
	switch n {
	case 0:
		panic("cryptonote: tree hash of no hashes")
	case 1:
		return ids[0]
	case 2:
		return Keccak256(ids[0][:], ids[1][:])
	}
	cnt := 1
	for cnt*2 < n { // largest power of two strictly below n
		cnt *= 2
	}
	// The first 2*cnt-n ids pass through; the rest are paired.
	level := make([]Hash, cnt)
	pass := 2*cnt - n
	copy(level, ids[:pass])
	for i, j := pass, pass; j < cnt; i, j = i+2, j+1 {
		level[j] = Keccak256(ids[i][:], ids[i+1][:])
	}
	for cnt > 2 {
		cnt /= 2
		for j := 0; j < cnt; j++ {
			level[j] = Keccak256(level[2*j][:], level[2*j+1][:])
		}
	}
	return Keccak256(level[0][:], level[1][:])
}

// HashingBlob is the input of the proof-of-work function: the header, the
// tree hash of all transaction ids, and the transaction count including the
// miner transaction.
func (blk *Block) HashingBlob() []byte {
	return blk.hashingBlob(blk.MinerTx.ID())
}

func (blk *Block) hashingBlob(minerTxID Hash) []byte {
	ids := make([]Hash, 0, 1+len(blk.TxHashes))
	ids = append(ids, minerTxID)
	ids = append(ids, blk.TxHashes...)
	root := TreeHash(ids)
	b := AppendBlockHeader(make([]byte, 0, 96), &blk.BlockHeader)
	b = append(b, root[:]...)
	return AppendVarint(b, uint64(len(ids)))
}

// Mainnet block 202612 was accepted with an id computed by a buggy tree
// hash; monerod maps its real blob to that id on every network
// (cryptonote_format_utils.cpp calculate_block_hash).
var (
	block202612BlobHash = MustParseHash("3a8a2b3a29b50fc86ff73dd087ea43c6f0d6b8f936c849194d5c84c737903966")
	block202612ID       = MustParseHash("bbd604d2ba11ba27935e006ed39c9bfdd99b76bf4a50654bc1e1e61217962698")
)

// ErrBlock202612Collision is returned for a block that is not the real block
// 202612 but whose normal id equals the id monerod reserves for it.
var ErrBlock202612Collision = errors.New("block id collides with the special-cased id of mainnet block 202612")

// ID computes the block id: H(varint(len(hashing blob)) || hashing blob),
// with the 202612 special case.
func (blk *Block) ID() (Hash, error) {
	id := blk.idFromHashingBlob(blk.HashingBlob())
	if gen, ok := blk.MinerTx.coinbaseGen(); ok && gen.Height != 202612 {
		return id, nil
	}
	if Keccak256(blk.Serialize()) == block202612BlobHash {
		return block202612ID, nil
	}
	if id == block202612ID {
		return Hash{}, ErrBlock202612Collision
	}
	return id, nil
}

func (blk *Block) idFromHashingBlob(hb []byte) Hash {
	prefix := AppendVarint(make([]byte, 0, 10), uint64(len(hb)))
	return Keccak256(prefix, hb)
}

// coinbaseGen returns the gen input of a well-formed miner transaction.
func (tx *Transaction) coinbaseGen() (TxInGen, bool) {
	if len(tx.Inputs) != 1 {
		return TxInGen{}, false
	}
	g, ok := tx.Inputs[0].(TxInGen)
	return g, ok
}
