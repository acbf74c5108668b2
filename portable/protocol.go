package portable

import (
	"encoding/binary"
	"fmt"
	"math"
	"strconv"
)

// The CryptoNote protocol payloads (NOTIFY_* 2001–2010,
// cryptonote_protocol_defs.h; docs/p2p-levin.md §7), written and
// loaded by the same rules as the admin payloads in p2p.go.

// HashSize is the size of a block or transaction hash.
const HashSize = 32

// TxBlobEntry is tx_blob_entry: a transaction blob and, when pruned, the
// hash of its prunable part.
type TxBlobEntry struct {
	Blob         []byte   // blob
	PrunableHash [32]byte // prunable_hash; zero when not pruned
}

// BlockCompleteEntry is block_complete_entry: a block blob with the blobs
// of its (non-miner) transactions, in tx_hashes order.
type BlockCompleteEntry struct {
	Pruned      bool          // pruned
	Block       []byte        // block
	BlockWeight uint64        // block_weight; only with pruned entries
	Txs         []TxBlobEntry // txs: objects when pruned, strings otherwise
}

func (b BlockCompleteEntry) ToSection() Section {
	var s Section
	s.Set("block", NewBlob(b.Block))
	if b.BlockWeight != 0 {
		s.Set("block_weight", NewUint64(b.BlockWeight))
	}
	if b.Pruned {
		s.Set("pruned", NewBool(true))
	}
	if len(b.Txs) > 0 {
		if b.Pruned {
			secs := make([]Section, len(b.Txs))
			for i, tx := range b.Txs {
				secs[i].Set("blob", NewBlob(tx.Blob))
				secs[i].Set("prunable_hash", NewBlob(tx.PrunableHash[:]))
			}
			s.Set("txs", NewObjectArray(secs))
		} else {
			blobs := make([][]byte, len(b.Txs))
			for i := range b.Txs {
				blobs[i] = b.Txs[i].Blob
			}
			s.Set("txs", NewBlobArray(blobs))
		}
	}
	return s
}

// FromSection reads pruned first and decodes txs accordingly, as monerod
// does; txs of any other shape are an error (monerod's converter throws).
func (b *BlockCompleteEntry) FromSection(s Section) error {
	*b = BlockCompleteEntry{}
	if v, ok := s.Get("pruned"); ok {
		if v.Type != TypeBool {
			return &FieldError{Path: "pruned", Err: ErrWrongType}
		}
		b.Pruned = v.Bool
	}
	var err error
	if b.Block, err = loadBytes(s, "block"); err != nil {
		return err
	}
	if b.BlockWeight, err = loadUint(s, "block_weight", math.MaxUint64); err != nil {
		return err
	}
	v, ok := s.Get("txs")
	if !ok || (v.Type.IsArray() && len(v.Array) == 0) {
		return nil
	}
	switch {
	case !b.Pruned && v.Type == ArrayFlag|TypeString:
		b.Txs = make([]TxBlobEntry, len(v.Array))
		for i := range v.Array {
			if len(v.Array[i].Bytes) > 0 {
				b.Txs[i].Blob = v.Array[i].Bytes
			}
		}
	case b.Pruned && v.Type == ArrayFlag|TypeObject:
		b.Txs = make([]TxBlobEntry, len(v.Array))
		for i := range v.Array {
			o := v.Array[i].Object
			if b.Txs[i].Blob, err = loadBytes(o, "blob"); err != nil {
				return withPath(withPath(err, "["+strconv.Itoa(i)+"]"), "txs")
			}
			h, err := loadBlob(o, "prunable_hash", 32)
			if err != nil {
				return withPath(withPath(err, "["+strconv.Itoa(i)+"]"), "txs")
			}
			copy(b.Txs[i].PrunableHash[:], h)
		}
	default:
		return &FieldError{Path: "txs", Err: ErrWrongType}
	}
	return nil
}

// NewBlock is NOTIFY_NEW_BLOCK (2001) and NOTIFY_NEW_FLUFFY_BLOCK (2008):
// the same layout.
type NewBlock struct {
	Block                   BlockCompleteEntry // b
	CurrentBlockchainHeight uint64             // current_blockchain_height
}

func (m NewBlock) ToSection() Section {
	return Section{Entries: []Entry{
		{"b", NewObject(m.Block.ToSection())},
		{"current_blockchain_height", NewUint64(m.CurrentBlockchainHeight)},
	}}
}

func (m *NewBlock) FromSection(s Section) error {
	*m = NewBlock{}
	if err := loadNested(s, "b", &m.Block); err != nil {
		return err
	}
	var err error
	m.CurrentBlockchainHeight, err = loadUint(s, "current_blockchain_height", math.MaxUint64)
	return err
}

// NewTransactions is NOTIFY_NEW_TRANSACTIONS (2002).
type NewTransactions struct {
	Txs [][]byte // txs
	// Padding is "_", always written.
	Padding []byte
	// Stem is !dandelionpp_fluff: the field is written only when false
	// (absent means fluff).
	Stem bool
}

func (m NewTransactions) ToSection() Section {
	var s Section
	s.Set("_", NewBlob(m.Padding))
	if m.Stem {
		s.Set("dandelionpp_fluff", NewBool(false))
	}
	if len(m.Txs) > 0 {
		s.Set("txs", NewBlobArray(m.Txs))
	}
	return s
}

func (m *NewTransactions) FromSection(s Section) error {
	*m = NewTransactions{}
	var err error
	if m.Txs, err = loadBytesArray(s, "txs"); err != nil {
		return err
	}
	if m.Padding, err = loadBytes(s, "_"); err != nil {
		return err
	}
	if v, ok := s.Get("dandelionpp_fluff"); ok {
		if v.Type != TypeBool {
			return &FieldError{Path: "dandelionpp_fluff", Err: ErrWrongType}
		}
		m.Stem = !v.Bool
	}
	return nil
}

// RequestGetObjects is NOTIFY_REQUEST_GET_OBJECTS (2003).
type RequestGetObjects struct {
	Blocks [][32]byte // blocks, concatenated
	Prune  bool       // prune
}

func (m RequestGetObjects) ToSection() Section {
	var s Section
	if len(m.Blocks) > 0 {
		s.Set("blocks", NewBlob(joinHashes(m.Blocks)))
	}
	if m.Prune {
		s.Set("prune", NewBool(true))
	}
	return s
}

func (m *RequestGetObjects) FromSection(s Section) error {
	*m = RequestGetObjects{}
	var err error
	if m.Blocks, err = loadHashes(s, "blocks"); err != nil {
		return err
	}
	m.Prune, err = loadBool(s, "prune")
	return err
}

// ResponseGetObjects is NOTIFY_RESPONSE_GET_OBJECTS (2004).
type ResponseGetObjects struct {
	Blocks                  []BlockCompleteEntry // blocks
	MissedIDs               [][32]byte           // missed_ids
	CurrentBlockchainHeight uint64               // current_blockchain_height
}

func (m ResponseGetObjects) ToSection() Section {
	var s Section
	if len(m.Blocks) > 0 {
		secs := make([]Section, len(m.Blocks))
		for i := range m.Blocks {
			secs[i] = m.Blocks[i].ToSection()
		}
		s.Set("blocks", NewObjectArray(secs))
	}
	s.Set("current_blockchain_height", NewUint64(m.CurrentBlockchainHeight))
	if len(m.MissedIDs) > 0 {
		s.Set("missed_ids", NewBlob(joinHashes(m.MissedIDs)))
	}
	return s
}

func (m *ResponseGetObjects) FromSection(s Section) error {
	*m = ResponseGetObjects{}
	if v, ok := s.Get("blocks"); ok && v.Type == ArrayFlag|TypeObject && len(v.Array) > 0 {
		m.Blocks = make([]BlockCompleteEntry, len(v.Array))
		for i := range v.Array {
			if err := m.Blocks[i].FromSection(v.Array[i].Object); err != nil {
				return withPath(withPath(err, "["+strconv.Itoa(i)+"]"), "blocks")
			}
		}
	}
	var err error
	if m.MissedIDs, err = loadHashes(s, "missed_ids"); err != nil {
		return err
	}
	m.CurrentBlockchainHeight, err = loadUint(s, "current_blockchain_height", math.MaxUint64)
	return err
}

// RequestChain is NOTIFY_REQUEST_CHAIN (2006).
type RequestChain struct {
	BlockIDs [][32]byte // block_ids: sparse history, newest first, genesis last
	Prune    bool       // prune
}

func (m RequestChain) ToSection() Section {
	var s Section
	if len(m.BlockIDs) > 0 {
		s.Set("block_ids", NewBlob(joinHashes(m.BlockIDs)))
	}
	if m.Prune {
		s.Set("prune", NewBool(true))
	}
	return s
}

func (m *RequestChain) FromSection(s Section) error {
	*m = RequestChain{}
	var err error
	if m.BlockIDs, err = loadHashes(s, "block_ids"); err != nil {
		return err
	}
	m.Prune, err = loadBool(s, "prune")
	return err
}

// ResponseChainEntry is NOTIFY_RESPONSE_CHAIN_ENTRY (2007).
type ResponseChainEntry struct {
	StartHeight               uint64     // start_height
	TotalHeight               uint64     // total_height
	CumulativeDifficulty      uint64     // cumulative_difficulty
	CumulativeDifficultyTop64 uint64     // cumulative_difficulty_top64
	BlockIDs                  [][32]byte // m_block_ids
	BlockWeights              []uint64   // m_block_weights
	FirstBlock                []byte     // first_block
}

func (m ResponseChainEntry) ToSection() Section {
	var s Section
	s.Set("cumulative_difficulty", NewUint64(m.CumulativeDifficulty))
	s.Set("cumulative_difficulty_top64", NewUint64(m.CumulativeDifficultyTop64))
	s.Set("first_block", NewBlob(m.FirstBlock))
	if len(m.BlockIDs) > 0 {
		s.Set("m_block_ids", NewBlob(joinHashes(m.BlockIDs)))
	}
	if len(m.BlockWeights) > 0 {
		w := make([]byte, 8*len(m.BlockWeights))
		for i, x := range m.BlockWeights {
			binary.LittleEndian.PutUint64(w[8*i:], x)
		}
		s.Set("m_block_weights", NewBlob(w))
	}
	s.Set("start_height", NewUint64(m.StartHeight))
	s.Set("total_height", NewUint64(m.TotalHeight))
	return s
}

func (m *ResponseChainEntry) FromSection(s Section) error {
	*m = ResponseChainEntry{}
	var err error
	if m.StartHeight, err = loadUint(s, "start_height", math.MaxUint64); err != nil {
		return err
	}
	if m.TotalHeight, err = loadUint(s, "total_height", math.MaxUint64); err != nil {
		return err
	}
	if m.CumulativeDifficulty, err = loadUint(s, "cumulative_difficulty", math.MaxUint64); err != nil {
		return err
	}
	if m.CumulativeDifficultyTop64, err = loadUint(s, "cumulative_difficulty_top64", math.MaxUint64); err != nil {
		return err
	}
	if m.BlockIDs, err = loadHashes(s, "m_block_ids"); err != nil {
		return err
	}
	w, err := loadBytes(s, "m_block_weights")
	if err != nil {
		return err
	}
	if len(w) > 0 && len(w)%8 == 0 { // another length is ignored, as KV_SERIALIZE_CONTAINER_POD_AS_BLOB does
		m.BlockWeights = make([]uint64, len(w)/8)
		for i := range m.BlockWeights {
			m.BlockWeights[i] = binary.LittleEndian.Uint64(w[8*i:])
		}
	}
	m.FirstBlock, err = loadBytes(s, "first_block")
	return err
}

// RequestFluffyMissingTx is NOTIFY_REQUEST_FLUFFY_MISSING_TX (2009).
type RequestFluffyMissingTx struct {
	BlockHash               [32]byte // block_hash
	CurrentBlockchainHeight uint64   // current_blockchain_height
	MissingTxIndices        []uint64 // missing_tx_indices
}

func (m RequestFluffyMissingTx) ToSection() Section {
	var s Section
	s.Set("block_hash", NewBlob(m.BlockHash[:]))
	s.Set("current_blockchain_height", NewUint64(m.CurrentBlockchainHeight))
	if len(m.MissingTxIndices) > 0 {
		w := make([]byte, 8*len(m.MissingTxIndices))
		for i, x := range m.MissingTxIndices {
			binary.LittleEndian.PutUint64(w[8*i:], x)
		}
		s.Set("missing_tx_indices", NewBlob(w))
	}
	return s
}

func (m *RequestFluffyMissingTx) FromSection(s Section) error {
	*m = RequestFluffyMissingTx{}
	h, err := loadBlob(s, "block_hash", 32)
	if err != nil {
		return err
	}
	copy(m.BlockHash[:], h)
	if m.CurrentBlockchainHeight, err = loadUint(s, "current_blockchain_height", math.MaxUint64); err != nil {
		return err
	}
	w, err := loadBytes(s, "missing_tx_indices")
	if err != nil {
		return err
	}
	if len(w) > 0 && len(w)%8 == 0 {
		m.MissingTxIndices = make([]uint64, len(w)/8)
		for i := range m.MissingTxIndices {
			m.MissingTxIndices[i] = binary.LittleEndian.Uint64(w[8*i:])
		}
	}
	return nil
}

// GetTxpoolComplement is NOTIFY_GET_TXPOOL_COMPLEMENT (2010).
type GetTxpoolComplement struct {
	Hashes [][32]byte // hashes
}

func (m GetTxpoolComplement) ToSection() Section {
	var s Section
	if len(m.Hashes) > 0 {
		s.Set("hashes", NewBlob(joinHashes(m.Hashes)))
	}
	return s
}

func (m *GetTxpoolComplement) FromSection(s Section) error {
	*m = GetTxpoolComplement{}
	var err error
	m.Hashes, err = loadHashes(s, "hashes")
	return err
}

func joinHashes(hs [][32]byte) []byte {
	b := make([]byte, 0, len(hs)*HashSize)
	for i := range hs {
		b = append(b, hs[i][:]...)
	}
	return b
}

// loadHashes loads a KV_SERIALIZE_CONTAINER_POD_AS_BLOB of hashes: absent
// or of a length that is not a multiple of 32 gives none (monerod ignores
// the field); an entry that is not a string is an error.
func loadHashes(s Section, name string) ([][32]byte, error) {
	b, err := loadBytes(s, name)
	if err != nil || len(b)%HashSize != 0 || len(b) == 0 {
		return nil, err
	}
	hs := make([][32]byte, len(b)/HashSize)
	for i := range hs {
		copy(hs[i][:], b[i*HashSize:])
	}
	return hs, nil
}

// loadBytes loads a string field of any length (nil when absent).
func loadBytes(s Section, name string) ([]byte, error) {
	v, ok := s.Get(name)
	if !ok {
		return nil, nil
	}
	if v.Type != TypeString {
		return nil, &FieldError{Path: name, Err: ErrWrongType}
	}
	if len(v.Bytes) == 0 {
		return nil, nil
	}
	return v.Bytes, nil
}

// loadBytesArray loads an array of strings (nil when absent).
func loadBytesArray(s Section, name string) ([][]byte, error) {
	v, ok := s.Get(name)
	if !ok {
		return nil, nil
	}
	if v.Type != ArrayFlag|TypeString {
		return nil, &FieldError{Path: name, Err: fmt.Errorf("%w: %v", ErrWrongType, v.Type)}
	}
	if len(v.Array) == 0 {
		return nil, nil
	}
	out := make([][]byte, len(v.Array))
	for i := range v.Array {
		out[i] = v.Array[i].Bytes
		if len(out[i]) == 0 {
			out[i] = nil
		}
	}
	return out, nil
}

func loadBool(s Section, name string) (bool, error) {
	v, ok := s.Get(name)
	if !ok {
		return false, nil
	}
	if v.Type != TypeBool {
		return false, &FieldError{Path: name, Err: ErrWrongType}
	}
	return v.Bool, nil
}
