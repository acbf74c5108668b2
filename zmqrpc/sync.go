package zmqrpc

import (
	"encoding/hex"
	"errors"
	"slices"
	"strconv"

	"github.com/gonero/gonero/chaindb"
	"github.com/gonero/gonero/cryptonote"
	"github.com/gonero/gonero/zmqpub"
)

// find_blockchain_supplement's limits (cryptonote_config.h).
const (
	maxSyncBlocks = 1000              // COMMAND_RPC_GET_BLOCKS_FAST_MAX_BLOCK_COUNT
	maxSyncTxs    = 20000             // COMMAND_RPC_GET_BLOCKS_FAST_MAX_TX_COUNT
	maxSyncBytes  = 100 * 1024 * 1024 // FIND_BLOCKCHAIN_SUPPLEMENT_MAX_SIZE
	minSyncBlocks = 3
	maxHashes     = 10000 // BLOCKS_IDS_SYNCHRONIZING_DEFAULT_COUNT
)

var errNoSplit = errors.New("no split point")

// splitPoint is find_blockchain_supplement's search: the ids must end with
// the genesis id; the first of them on the main chain is where the answer
// starts.
func splitPoint(r *chaindb.Reader, ids []cryptonote.Hash) (uint64, bool) {
	if len(ids) == 0 {
		return 0, false
	}
	genesis, err := r.MetaByHeight(0)
	if err != nil || ids[len(ids)-1] != genesis.Hash {
		return 0, false
	}
	for _, id := range ids {
		if h, err := r.HeightByHash(id); err == nil {
			return h, true
		}
	}
	return 0, false
}

func getHashList(o object, key string) ([]cryptonote.Hash, error) {
	els, err := getArray(o, key)
	if err != nil {
		return nil, err
	}
	out := make([]cryptonote.Hash, len(els))
	for i, e := range els {
		if out[i], err = toHash(e); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func getBool(o object, key string) (bool, error) {
	v, ok := o.find(key)
	if !ok {
		return false, missingKey(key)
	}
	if v.kind() != kindBool {
		return false, wrongType("boolean")
	}
	return v[0] == 't', nil
}

func (s *Server) getHashesFast(params raw, w *writer) (string, error) {
	o, err := paramsObject(params)
	if err != nil {
		return "", err
	}
	known, err := getHashList(o, "known_hashes")
	if err != nil {
		return "", err
	}
	if _, err := getUint64(o, "start_height"); err != nil {
		return "", err
	}
	var metas []chaindb.BlockMeta
	var start, height uint64
	err = s.chain.View(func(r *chaindb.Reader) error {
		split, ok := splitPoint(r, known)
		if !ok {
			return errNoSplit
		}
		if height, err = r.Height(); err != nil {
			return err
		}
		start = split
		metas, err = r.MetasInRange(split, min(height, split+maxHashes))
		return err
	})
	if errors.Is(err, errNoSplit) {
		return "Blockchain::find_blockchain_supplement() returned false", nil
	} else if err != nil {
		return errStore, nil
	}
	w.key("hashes")
	w.b = append(w.b, '[')
	for i := range metas {
		if i > 0 {
			w.b = append(w.b, ',')
		}
		w.b = append(w.b, '"')
		w.b = hex.AppendEncode(w.b, metas[i].Hash[:])
		w.b = append(w.b, '"')
	}
	w.b = append(w.b, ']')
	w.uint("start_height", start)
	w.uint("current_height", height)
	return "", nil
}

func (s *Server) getBlocksFast(params raw, w *writer) (string, error) {
	o, err := paramsObject(params)
	if err != nil {
		return "", err
	}
	ids, err := getHashList(o, "block_ids")
	if err != nil {
		return "", err
	}
	reqStart, err := getUint64(o, "start_height")
	if err != nil {
		return "", err
	}
	prune, err := getBool(o, "prune")
	if err != nil {
		return "", err
	}
	const fail = "core::find_blockchain_supplement() returned false"
	var start, height uint64
	// The blocks' rendered pieces are gathered first (cached, never
	// changed), then written into an answer sized once: appended one by
	// one, a whole chain's answer (4 MB pruned, 14 MB not) grew the buffer
	// and the indices' twenty-odd times over, copying it each time, which
	// under a flood of get_blocks_fast was a third of the node's CPU.
	var rbs []*renderedBlock
	err = s.chain.View(func(r *chaindb.Reader) error {
		rbs = rbs[:0]
		var err error
		if height, err = r.Height(); err != nil {
			return err
		}
		if reqStart > 0 {
			if reqStart >= height {
				return errNoSplit
			}
			start = reqStart
		} else {
			var ok bool
			if start, ok = splitPoint(r, ids); !ok {
				return errNoSplit
			}
		}
		// The metas in one walk: a lookup per block cost a few small
		// allocations each (a thousand blocks, most of the answer's).
		metas, err := r.MetasInRange(start, min(height, start+maxSyncBlocks))
		if err != nil {
			return err
		}
		if rbs == nil {
			rbs = make([]*renderedBlock, 0, len(metas))
		}
		var size uint64
		txs := 0
		for i := 0; i < len(metas) && (size < maxSyncBytes || len(rbs) < minSyncBlocks); i++ {
			rb, err := s.renderedBlock(r, &metas[i], prune)
			if err != nil {
				return err
			}
			rbs = append(rbs, rb)
			size += rb.size
			txs += rb.txs
			if len(rbs) >= minSyncBlocks && txs >= maxSyncTxs {
				break
			}
		}
		return nil
	})
	if errors.Is(err, errNoSplit) {
		return fail, nil
	} else if err != nil {
		return errStore, nil
	}
	const (
		blocksKey  = `,"blocks":[`
		indicesKey = `,"output_indices":[`
		// The two heights' members, at their longest, and the "}}" that
		// closes the answer (handle).
		tail = 2*len(`,"current_height":`+"18446744073709551615") + len("}}")
	)
	// The blocks and their indices are referred to, not copied (ref):
	// kept renders never change. What is copied (the keys, the commas,
	// the pieces too short to refer to) is sized once.
	n := len(blocksKey) + len(indicesKey) + 2 + tail
	for _, rb := range rbs {
		n += 2 // a comma each
		for _, p := range [][]byte{rb.json, rb.indices} {
			if len(p) < refMin {
				n += len(p)
			}
		}
	}
	w.b = slices.Grow(w.b, n)
	w.b = append(w.b, blocksKey...)
	for i, rb := range rbs {
		if i > 0 {
			w.b = append(w.b, ',')
		}
		w.ref(rb.json)
	}
	w.b = append(w.b, ']')
	w.uint("start_height", start)
	w.uint("current_height", height)
	w.b = append(w.b, indicesKey...)
	for i, rb := range rbs {
		if i > 0 {
			w.b = append(w.b, ',')
		}
		w.ref(rb.indices)
	}
	w.b = append(w.b, ']')
	return "", nil
}

// renderedBlock is one block of a get_blocks_fast answer: its
// block_with_transactions JSON and its output indices, with the blob sizes
// find_blockchain_supplement counts. Both are fixed for a main-chain block
// id, so they are kept (blockCache) for the next wallet that syncs.
type renderedBlock struct {
	json, indices []byte
	size          uint64
	txs           int
}

type blockKey struct {
	id    cryptonote.Hash
	prune bool
}

func (s *Server) renderedBlock(r *chaindb.Reader, meta *chaindb.BlockMeta, prune bool) (*renderedBlock, error) {
	k := blockKey{meta.Hash, prune}
	if rb, ok := s.blocks.Get(k); ok {
		return rb, nil
	}
	blob, err := r.BlockBlob(meta.Height)
	if err != nil {
		return nil, err
	}
	b, err := cryptonote.ParseBlock(blob)
	if err != nil {
		return nil, err
	}
	rb := &renderedBlock{size: uint64(len(blob)), txs: len(b.TxHashes)}
	j := append(make([]byte, 0, 2*len(blob)+64), `{"block":`...)
	j = zmqpub.AppendBlockJSON(j, b)
	j = append(j, `,"transactions":[`...)
	idx, err := r.TxOutputIndexes(meta.MinerTxHash)
	if err != nil {
		return nil, err
	}
	ind := appendUints([]byte{'['}, idx)
	for i, id := range b.TxHashes {
		var tx *cryptonote.Transaction
		if prune {
			parts, err := r.TxParts(id)
			if err != nil {
				return nil, err
			}
			rb.size += uint64(len(parts.Pruned))
			if tx, err = cryptonote.ParsePrunedTransaction(parts.Pruned); err != nil {
				return nil, err
			}
		} else {
			txBlob, err := r.TxBlob(id)
			if err != nil {
				return nil, err
			}
			rb.size += uint64(len(txBlob))
			if tx, err = cryptonote.ParseTransaction(txBlob); err != nil {
				return nil, err
			}
		}
		if i > 0 {
			j = append(j, ',')
		}
		j = zmqpub.AppendTxJSON(j, tx, prune)
		idx, err := r.TxOutputIndexes(id)
		if err != nil {
			return nil, err
		}
		ind = append(ind, ',')
		ind = appendUints(ind, idx)
	}
	rb.json = append(j, "]}"...)
	rb.indices = append(ind, ']')
	s.blocks.Put(k, rb)
	return rb, nil
}

func appendUints(b []byte, v []uint64) []byte {
	b = append(b, '[')
	for i, x := range v {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendUint(b, x, 10)
	}
	return append(b, ']')
}
