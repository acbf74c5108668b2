package rpc

import (
	"encoding/hex"
	"errors"
	"fmt"

	"github.com/gonero/gonero/chaindb"
	"github.com/gonero/gonero/cryptonote"
	"github.com/gonero/gonero/epeejson"
	"github.com/gonero/gonero/httpd"
	"github.com/gonero/gonero/rpctypes"
	"github.com/gonero/gonero/txpool"
)

// /gettransactions and /is_key_image_spent (core_rpc_server.cpp
// on_get_transactions, on_is_key_image_spent, v0.18.0.0).

// transactionsEndpoints are the transaction and key-image queries (endpoints.go).
func transactionsEndpoints() []endpoint {
	return []endpoint{
		// Capped: restrictedTransactionsCount transactions, restrictedSpentKeyImagesCount
		// key images; hidden pool transactions are not seen.
		{names: []string{"/get_transactions", "/gettransactions"}, access: accessCapped, path: (*Server).serveGetTransactions},
		{names: []string{"/is_key_image_spent"}, access: accessCapped, path: (*Server).serveIsKeyImageSpent},
	}
}

func (s *Server) serveGetTransactions(req *httpd.Request) httpd.Response {
	var p rpctypes.Params
	var ok bool
	if req.Restricted {
		// Hashes past the cap are checked (strings, as epee's array holds
		// one kind), not built: getTransactions refuses the request.
		p, ok = rpctypes.PathRequestCapped(req.Body, "txs_hashes", restrictedTransactionsCount)
	} else {
		p, ok = rpctypes.PathRequest(req.Body)
	}
	if !ok {
		return badRequest()
	}
	in, ok := rpctypes.ParseGetTransactions(p)
	if !ok {
		return badRequest()
	}
	out := s.getTransactions(&in, req.Restricted, &answerClaim{req: req})
	if out == nil {
		return s.busyAnswer(req)
	}
	w := epeejson.NewWriter(make([]byte, 0, 4096))
	out.Write(w)
	return jsonResponse(w)
}

func refusal(status string) *rpctypes.GetTransactionsResponse {
	return &rpctypes.GetTransactionsResponse{Status: status, OnlyStatus: true}
}

// chainTx is a transaction found on the main chain.
type chainTx struct {
	tx      *cryptonote.Transaction
	height  uint64
	indices []uint64
	// pruned: a pruned store holds only tx's pruned part (tx.Rct.Prunable
	// is nil) and the hash of the rest.
	pruned       bool
	prunableHash cryptonote.Hash
	// blobSize is the stored blob's size when known (0: a miner
	// transaction), for the memory budget's claim before the entry is
	// made.
	blobSize int
}

// findChainTx looks a transaction up on the main chain: a block's
// transaction by its blob, a miner transaction of version 2 through its
// first output (the store indexes miner transactions' outputs, not their
// blobs), one of version 1 (the genesis block's, those before RingCT)
// through the store's miner_txs index.
func findChainTx(r *chaindb.Reader, id cryptonote.Hash) (*chainTx, error) {
	indices, err := r.TxOutputIndexes(id)
	if err != nil {
		if errors.Is(err, chaindb.ErrNotFound) {
			return nil, nil
		}
		return nil, err
	}
	parts, err := r.TxParts(id)
	switch {
	case err == nil:
		loc, err := r.TxLocation(id)
		if err != nil {
			return nil, err
		}
		if !parts.HasPrunable {
			tx, err := cryptonote.ParsePrunedTransaction(parts.Pruned)
			if err != nil {
				return nil, err
			}
			return &chainTx{tx: tx, height: loc.Height, indices: indices, pruned: true, prunableHash: parts.PrunableHash,
				blobSize: len(parts.Pruned)}, nil
		}
		tx, err := cryptonote.ParseTransaction(append(parts.Pruned, parts.Prunable...))
		if err != nil {
			return nil, err
		}
		return &chainTx{tx: tx, height: loc.Height, indices: indices, blobSize: len(parts.Pruned) + len(parts.Prunable)}, nil
	case !errors.Is(err, chaindb.ErrNotFound):
		return nil, err
	}
	switch height, err := r.MinerTxHeight(id); {
	case err == nil:
		return minerTxAt(r, id, height, indices)
	case !errors.Is(err, chaindb.ErrNotFound):
		return nil, err
	}
	if len(indices) == 0 {
		return nil, nil
	}
	out, err := r.Output(0, indices[0])
	if err != nil {
		if errors.Is(err, chaindb.ErrNotFound) {
			return nil, nil
		}
		return nil, err
	}
	if out.TxHash != id {
		return nil, nil
	}
	return minerTxAt(r, id, out.Height, indices)
}

// minerTxAt is the miner transaction id of the main-chain block at height.
func minerTxAt(r *chaindb.Reader, id cryptonote.Hash, height uint64, indices []uint64) (*chainTx, error) {
	blk, err := r.BlockBlob(height)
	if err != nil {
		return nil, err
	}
	b, err := cryptonote.ParseBlock(blk)
	if err != nil {
		return nil, err
	}
	if b.MinerTx.ID() != id {
		return nil, fmt.Errorf("rpc: the miner tx of block %d is %s, not %s as the store's index says", height, b.MinerTx.ID(), id)
	}
	return &chainTx{tx: &b.MinerTx, height: height, indices: indices}, nil
}

// fillTxEntry sets an entry's blob members as monerod does: the split form
// (pruned_as_hex, prunable_as_hex unless pruned) when split or prune is
// asked, or when the transaction has no prunable data (a miner
// transaction: monerod then uses the split form even when not asked);
// otherwise the whole blob in as_hex. The JSON rendering follows the form:
// the pruned transaction when pruned or without prunable data.
func fillTxEntry(e *rpctypes.TxEntry, tx *cryptonote.Transaction, in *rpctypes.GetTransactionsRequest) {
	blob, prunedLen := tx.SplitBlob()
	pruned, prunable := blob[:prunedLen], blob[prunedLen:]
	if tx.Version > 1 {
		// monerod stores H(prunable part) for every v2 transaction, H of
		// nothing for a miner transaction's empty part.
		e.PrunableHash = cryptonote.Keccak256(prunable).String()
	} else {
		e.PrunableHash = cryptonote.Hash{}.String()
	}
	if in.Split || in.Prune || len(prunable) == 0 {
		e.PrunedAsHex = hex.EncodeToString(pruned)
		if !in.Prune {
			e.PrunableAsHex = hex.EncodeToString(prunable)
		}
		if in.DecodeAsJSON {
			if in.Prune || len(prunable) == 0 {
				e.AsJSON = tx.MonerodPrunedJSON()
			} else {
				e.AsJSON = tx.MonerodJSON()
			}
		}
		return
	}
	e.AsHex = hex.EncodeToString(blob)
	if in.DecodeAsJSON {
		e.AsJSON = tx.MonerodJSON()
	}
}

// fillPrunedTxEntry is fillTxEntry for a transaction whose prunable part the store
// pruned: monerod then answers the split form whatever was asked, with an
// empty prunable_as_hex, the stored prunable hash and the pruned JSON.
func fillPrunedTxEntry(e *rpctypes.TxEntry, ct *chainTx, in *rpctypes.GetTransactionsRequest) {
	e.PrunableHash = ct.prunableHash.String()
	e.PrunedAsHex = hex.EncodeToString(ct.tx.Serialize())
	if in.DecodeAsJSON {
		e.AsJSON = ct.tx.MonerodPrunedJSON()
	}
}

// txEntryBytes is what entry e adds to a get_transactions answer, for the
// memory budget (answerbudget.go).
func txEntryBytes(e *rpctypes.TxEntry) int {
	return len(e.AsHex) + len(e.PrunedAsHex) + len(e.PrunableAsHex) + len(e.AsJSON) + 8*len(e.OutputIndices) + txListingBytes
}

// txEntryEstimate is what an entry for a blob of n bytes is claimed at
// before it is made: its hex, and its JSON when asked (about two and a
// half times the blob: keys and signatures in hex).
func txEntryEstimate(n int, in *rpctypes.GetTransactionsRequest) int {
	if in.DecodeAsJSON {
		return 5*n + txListingBytes
	}
	return 2*n + txListingBytes
}

// claimTxEntry claims entry e of a blob of n bytes: estimated before fill
// makes it, the rest (if it came out larger) after; false: refused.
func claimTxEntry(claim *answerClaim, e *rpctypes.TxEntry, n int, in *rpctypes.GetTransactionsRequest, fill func()) bool {
	est := txEntryEstimate(n, in)
	if !claim.add(est) {
		return false
	}
	fill()
	return claim.add(txEntryBytes(e) - est)
}

// getTransactions answers get_transactions, claiming each entry's bytes
// as it is made; nil: the memory budget refused one (answer busy).
func (s *Server) getTransactions(in *rpctypes.GetTransactionsRequest, restricted bool, claim *answerClaim) *rpctypes.GetTransactionsResponse {
	if restricted && len(in.TxsHashes) > restrictedTransactionsCount {
		return refusal("Too many transactions requested in restricted mode")
	}
	ids := make([]cryptonote.Hash, len(in.TxsHashes))
	for i, text := range in.TxsHashes {
		b, err := hex.DecodeString(text)
		if err != nil {
			return refusal("Failed to parse hex representation of transaction hash")
		}
		if len(b) != len(ids[i]) {
			return refusal("Failed, size of data mismatch")
		}
		copy(ids[i][:], b)
	}
	out := &rpctypes.GetTransactionsResponse{Status: statusOK, WithJSON: in.DecodeAsJSON}
	found := make([]*rpctypes.TxEntry, len(ids))
	var missing []int
	refused := false
	err := s.store.View(func(r *chaindb.Reader) error {
		clear(found)
		missing, refused = missing[:0], false
		claim.restart()
		height, err := r.Height()
		if err != nil {
			return err
		}
		for i, id := range ids {
			ct, err := findChainTx(r, id)
			if err != nil {
				return err
			}
			if ct == nil {
				missing = append(missing, i)
				continue
			}
			meta, err := r.MetaByHeight(ct.height)
			if err != nil {
				return err
			}
			e := &rpctypes.TxEntry{TxHash: in.TxsHashes[i], BlockHeight: ct.height, Confirmations: height - ct.height,
				BlockTimestamp: meta.Timestamp, OutputIndices: ct.indices}
			if !claimTxEntry(claim, e, ct.blobSize, in, func() {
				if ct.pruned {
					fillPrunedTxEntry(e, ct, in)
				} else {
					fillTxEntry(e, ct.tx, in)
				}
			}) {
				refused = true
				return nil
			}
			found[i] = e
		}
		return nil
	})
	if err != nil {
		s.log.Error("gettransactions: chain read failed", "err", err)
		return refusal("Failed")
	}
	if refused {
		return nil
	}
	if len(missing) > 0 && s.pool != nil {
		// The pool as the listener may see it: a restricted one does not
		// see transactions kept back from relaying or in their stem phase,
		// nor when they arrived.
		pool := map[cryptonote.Hash]txpool.Entry{}
		for _, pe := range s.visiblePool(restricted) {
			pool[pe.ID] = pe
		}
		still := missing[:0]
		for _, i := range missing {
			pe, ok := pool[ids[i]]
			if !ok {
				still = append(still, i)
				continue
			}
			e := &rpctypes.TxEntry{TxHash: in.TxsHashes[i], InPool: true, DoubleSpendSeen: pe.DoubleSpendSeen, Relayed: reportedRelayed(&pe)}
			if !restricted {
				e.ReceivedTimestamp = uint64(pe.Received.Unix())
			}
			if !claimTxEntry(claim, e, len(pe.Blob), in, func() { fillTxEntry(e, pe.Tx, in) }) {
				return nil
			}
			found[i] = e
		}
		missing = still
	}
	for _, e := range found {
		if e != nil {
			out.Txs = append(out.Txs, *e)
		}
	}
	for _, i := range missing {
		out.MissedTx = append(out.MissedTx, ids[i].String())
	}
	return out
}

func (s *Server) serveIsKeyImageSpent(req *httpd.Request) httpd.Response {
	p, ok := rpctypes.PathRequest(req.Body)
	if !ok {
		return badRequest()
	}
	in, ok := rpctypes.ParseIsKeyImageSpent(p)
	if !ok {
		return badRequest()
	}
	out := s.isKeyImageSpent(&in, req.Restricted)
	w := epeejson.NewWriter(make([]byte, 0, 256+4*len(out.SpentStatus)))
	out.Write(w)
	return jsonResponse(w)
}

func (s *Server) isKeyImageSpent(in *rpctypes.IsKeyImageSpentRequest, restricted bool) *rpctypes.IsKeyImageSpentResponse {
	if restricted && len(in.KeyImages) > restrictedSpentKeyImagesCount {
		return &rpctypes.IsKeyImageSpentResponse{Status: "Too many key images queried in restricted mode"}
	}
	images := make([]cryptonote.Key, len(in.KeyImages))
	for i, text := range in.KeyImages {
		b, err := hex.DecodeString(text)
		if err != nil {
			return &rpctypes.IsKeyImageSpentResponse{Status: "Failed to parse hex representation of key image"}
		}
		// 0.18.0 noted a size mismatch and went on (reading 32 bytes
		// whatever the size); 0.18.5.3 stops there.
		if len(b) != len(images[i]) {
			return &rpctypes.IsKeyImageSpentResponse{Status: "Failed, size of data mismatch"}
		}
		copy(images[i][:], b)
	}
	out := &rpctypes.IsKeyImageSpentResponse{Status: statusOK, SpentStatus: make([]uint64, len(images))}
	err := s.store.View(func(r *chaindb.Reader) error {
		for i, ki := range images {
			_, spent, err := r.KeyImageSpent(ki)
			if err != nil {
				return err
			}
			if spent {
				out.SpentStatus[i] = rpctypes.KeyImageInChain
			}
		}
		return nil
	})
	if err != nil {
		s.log.Error("is_key_image_spent: chain read failed", "err", err)
		return &rpctypes.IsKeyImageSpentResponse{Status: "Failed"}
	}
	// Each key image the (visible) pool spends marks the first unspent
	// request entry equal to it, and only that one: monerod breaks out of
	// its loop over the request at the first match, so a key image asked
	// twice is reported in the pool once.
	for _, ki := range s.poolKeyImages(restricted) {
		for i := range images {
			if out.SpentStatus[i] == rpctypes.KeyImageUnspent && images[i] == ki {
				out.SpentStatus[i] = rpctypes.KeyImageInPool
				break
			}
		}
	}
	return out
}
