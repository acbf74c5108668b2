package rpc

import (
	"fmt"
	"time"

	"github.com/gonero/gonero/chaindb"
	"github.com/gonero/gonero/cryptonote"
	"github.com/gonero/gonero/httpd"
	"github.com/gonero/gonero/portable"
	"github.com/gonero/gonero/rpctypes"
	"github.com/gonero/gonero/txpool"
)

// syncBlockCacheBytes bounds the memory of cached block entries: a
// thousand-block answer of a busy chain, several times over.
const syncBlockCacheBytes = 256 << 20

// syncKey names one encoding of a block: pruned or not, with the miner
// transaction's output indexes or not.
type syncKey struct {
	id        cryptonote.Hash
	prune     bool
	noMinerTx bool
}

// syncBlock is a block encoded for /getblocks.bin.
type syncBlock struct {
	entry   []byte // block_complete_entry, a bare section
	indices []byte // block_output_indices, a bare section
	size    uint64 // the block blob and tx blobs as sent, for the 100 MiB cap
	txs     int    // non-miner transactions, for the 20,000 cap
}

func (b *syncBlock) bytes() int { return len(b.entry) + len(b.indices) + 64 }

// syncBlockAt returns the encoded block at height h of the snapshot.
func (s *Server) syncBlockAt(r *chaindb.Reader, h uint64, prune, noMinerTx bool) (*syncBlock, error) {
	meta, err := r.MetaByHeight(h)
	if err != nil {
		return nil, err
	}
	ws := s.ws()
	k := syncKey{id: meta.Hash, prune: prune, noMinerTx: noMinerTx}
	if b, ok := ws.blocks.Get(k); ok {
		return b, nil
	}
	b, err := encodeSyncBlock(r, h, &meta, prune, noMinerTx)
	if err != nil {
		return nil, err
	}
	ws.blocks.Put(k, b)
	return b, nil
}

func encodeSyncBlock(r *chaindb.Reader, h uint64, meta *chaindb.BlockMeta, prune, noMinerTx bool) (*syncBlock, error) {
	blob, err := r.BlockBlob(h)
	if err != nil {
		return nil, err
	}
	ids, err := r.TxHashes(h)
	if err != nil {
		return nil, err
	}
	b := &syncBlock{size: uint64(len(blob)), txs: len(ids)}
	txs := make([][]byte, len(ids))
	for i, id := range ids {
		if prune {
			// get_pruned_tx_blob: what a pruned store keeps, the same
			// bytes whether or not this store pruned the tx.
			parts, err := r.TxParts(id)
			if err != nil {
				return nil, err
			}
			txs[i] = parts.Pruned
		} else if txs[i], err = r.TxBlob(id); err != nil {
			// A pruned store cannot give a pruned tx whole; monerod's
			// get_blocks_from fails the same way.
			return nil, err
		}
		b.size += uint64(len(txs[i]))
	}
	// block_complete_entry: block, [block_weight: 0, omitted], pruned
	// (omitted when false), txs (omitted when empty; objects when pruned,
	// with monerod's null prunable_hash, else strings).
	n := 1
	if prune {
		n++
	}
	if len(txs) > 0 {
		n++
	}
	size := len(blob) + 16
	for _, t := range txs {
		size += len(t) + 48
	}
	w := portable.NewWriter(make([]byte, 0, size))
	w.Section(n)
	w.FieldBlob("block", blob)
	if prune {
		w.FieldBool("pruned", true)
	}
	if len(txs) > 0 {
		if prune {
			var null [32]byte
			w.Array("txs", portable.TypeObject, len(txs))
			for _, t := range txs {
				w.Section(2)
				w.FieldBlob("blob", t)
				w.FieldBlob("prunable_hash", null[:])
			}
		} else {
			w.Array("txs", portable.TypeString, len(txs))
			for _, t := range txs {
				w.Blob(t)
			}
		}
	}
	b.entry = w.Bytes()

	// block_output_indices: one entry per transaction, miner transaction
	// first; with no_miner_tx its entry is there but empty.
	lists := make([][]uint64, 0, 1+len(ids))
	if noMinerTx {
		lists = append(lists, nil)
	} else {
		idx, err := r.TxOutputIndexes(meta.MinerTxHash)
		if err != nil {
			return nil, err
		}
		lists = append(lists, idx)
	}
	for _, id := range ids {
		idx, err := r.TxOutputIndexes(id)
		if err != nil {
			return nil, err
		}
		lists = append(lists, idx)
	}
	b.indices = encodeIndexLists(lists)
	return b, nil
}

// encodeIndexLists writes a block_output_indices section.
func encodeIndexLists(lists [][]uint64) []byte {
	size := 16
	for _, l := range lists {
		size += 16 + 8*len(l)
	}
	w := portable.NewWriter(make([]byte, 0, size))
	w.Section(1)
	w.Array("indices", portable.TypeObject, len(lists))
	for _, l := range lists {
		if len(l) == 0 {
			w.Section(0) // tx_output_indices with its empty list omitted
			continue
		}
		w.Section(1)
		w.Array("indices", portable.TypeUint64, len(l))
		for _, v := range l {
			w.Uint64(v)
		}
	}
	return w.Bytes()
}

// splitPoint is find_blockchain_supplement's search: the ids must end
// with the genesis id; the first of them that is on the main chain is
// where the answer starts.
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

// serveGetBlocks is /getblocks.bin: the main-chain blocks after the
// wallet's newest known one (or from start_height), with their
// transactions and the global index of every output, and, as asked
// (requested_info), the pool or its changes since pool_info_since.
func (s *Server) serveGetBlocks(req *httpd.Request) httpd.Response {
	version := s.answerVersion()
	if kept, ok := s.answers.getKept(version, routeGetBlocks, req); ok { // see fastpath.go
		return httpd.Response{ContentType: "application/octet-stream", Body: kept.stampTime(time.Now())}
	}
	in, err := rpctypes.ParseGetBlocksRequest(req.Body)
	if err != nil {
		return badRequest()
	}
	// Set before anything is read, as monerod does: a pool change seen
	// twice by overlapping queries is harmless, one missed is not.
	daemonTime := uint64(time.Now().Unix())
	var (
		blocks        []*syncBlock
		start, height uint64
		status        = statusOK
		pool          *txpool.PoolChanges
		// The answer is claimed block by block as it is gathered, and
		// whole before it is written (answerbudget.go).
		claim   = answerClaim{req: req}
		refused bool
	)
	getBlocks, getPool := in.RequestedInfo != rpctypes.PoolOnly, in.RequestedInfo != rpctypes.BlocksOnly
	if in.RequestedInfo > rpctypes.PoolOnly {
		getBlocks, getPool, status = false, false, "Failed, wrong requested info"
	}
	if getPool {
		maxTxs := -1
		if req.Restricted {
			maxTxs = restrictedTransactionsCount
		}
		var changes txpool.PoolChanges
		if s.pool != nil {
			changes = s.pool.Changes(int64(in.PoolInfoSince), !req.Restricted, maxTxs,
				func(a, b txpool.Entry) int { return cryptonote.CompareHash32(a.ID, b.ID) })
		}
		pool = &changes
	}
	if getBlocks {
		maxBlocks := uint64(maxSyncBlocks)
		if in.MaxBlockCount > 0 {
			maxBlocks = min(in.MaxBlockCount, maxSyncBlocks)
		}
		if err := s.wsView("getblocks", func(r *chaindb.Reader) error {
			blocks, status, refused = nil, statusOK, false
			claim.restart()
			top, err := r.Top()
			if err != nil {
				return err
			}
			height = top.Height + 1
			// The quick "nothing new" answer: start_height 0 whatever was asked.
			if len(in.BlockIDs) > 0 && in.BlockIDs[0] == top.Hash {
				start = 0
				return nil
			}
			if in.StartHeight > 0 {
				if in.StartHeight >= height {
					status, height, start = statusFailed, 0, 0
					return nil
				}
				start = in.StartHeight
			} else {
				var ok bool
				if start, ok = splitPoint(r, in.BlockIDs); !ok {
					status, height, start = statusFailed, 0, 0
					return nil
				}
			}
			var size uint64
			txs := 0
			for h := start; h < height && uint64(len(blocks)) < maxBlocks && (size < maxSyncBytes || len(blocks) < minSyncBlocks); h++ {
				b, err := s.syncBlockAt(r, h, in.Prune, in.NoMinerTx)
				if err != nil {
					return err
				}
				if !claim.add(b.bytes()) {
					blocks, refused = nil, true
					return nil
				}
				blocks = append(blocks, b)
				size += b.size
				txs += b.txs
				if len(blocks) >= minSyncBlocks && txs >= maxSyncTxs {
					break
				}
			}
			return nil
		}); err != nil {
			return internalError()
		}
		if refused {
			return s.busyAnswer(req)
		}
	}
	if status == statusFailed {
		s.rpcHostFail(req)
	}
	// Fields in epee's (sorted) order; empty arrays are left out, as epee
	// leaves them out.
	n := 7
	total := 160
	var poolBlobs [][]byte
	if pool != nil {
		poolBlobs = make([][]byte, len(pool.Added))
		for i := range pool.Added {
			e := &pool.Added[i]
			poolBlobs[i] = e.Blob
			if in.Prune {
				blob, prunedLen := e.Tx.SplitBlob()
				poolBlobs[i] = blob[:prunedLen]
			}
			total += len(poolBlobs[i]) + 96
		}
		n += 1 + countNonEmpty(len(pool.Added), len(pool.Remaining))
		if pool.Incremental {
			n += countNonEmpty(len(pool.Removed))
		}
		total += 32 * (len(pool.Remaining) + len(pool.Removed))
	}
	shared := 0
	if len(blocks) > 0 {
		n += 2
		for _, b := range blocks {
			total += len(b.entry) + len(b.indices)
			shared += len(b.entry)
		}
	}
	claim.restart()
	if !claim.add(total) { // the pool's part, and the framing
		return s.busyAnswer(req)
	}
	bp := newBinParts(n, total-shared, total, s.sharedPartsOver)
	w := bp.w
	if len(poolBlobs) > 0 {
		w.Array("added_pool_txs", portable.TypeObject, len(poolBlobs))
		for i, blob := range poolBlobs {
			e := &pool.Added[i]
			w.Section(3)
			w.FieldBool("double_spend_seen", e.DoubleSpendSeen)
			w.FieldBlob("tx_blob", blob)
			w.FieldBlob("tx_hash", e.ID[:])
		}
	}
	if len(blocks) > 0 {
		w.Array("blocks", portable.TypeObject, len(blocks))
		for _, b := range blocks {
			bp.Shared(b.entry)
		}
	}
	w.FieldUint64("credits", 0)
	w.FieldUint64("current_height", height)
	w.Field("daemon_time", portable.TypeUint64)
	timeAt := w.Len()
	w.Uint64(daemonTime)
	if len(blocks) > 0 {
		w.Array("output_indices", portable.TypeObject, len(blocks))
		for _, b := range blocks {
			w.Raw(b.indices)
		}
	}
	extent := uint8(rpctypes.PoolInfoNone)
	if pool != nil {
		extent = rpctypes.PoolInfoFull
		if pool.Incremental {
			extent = rpctypes.PoolInfoIncremental
		}
	}
	if extent != rpctypes.PoolInfoNone { // KV_SERIALIZE_OPT leaves a default value out
		w.Field("pool_info_extent", portable.TypeUint8)
		w.Uint8(extent)
	}
	if pool != nil {
		if len(pool.Remaining) > 0 {
			w.FieldBlob("remaining_added_pool_txids", hashesBlob(pool.Remaining))
		}
		if pool.Incremental && len(pool.Removed) > 0 {
			w.FieldBlob("removed_pool_txids", hashesBlob(pool.Removed))
		}
	}
	w.FieldUint64("start_height", start)
	rpctypes.WriteBinTail(w, status)
	if in.RequestedInfo == rpctypes.BlocksOnly && !bp.share {
		s.answers.putKept(version, s.answerVersion(), routeGetBlocks, req, keptAnswer{answer: w.Bytes(), timeAt: timeAt})
	}
	return bp.response()
}

func countNonEmpty(lens ...int) int {
	n := 0
	for _, l := range lens {
		if l > 0 {
			n++
		}
	}
	return n
}

// hashesBlob is ids as one blob (KV_SERIALIZE_CONTAINER_POD_AS_BLOB).
func hashesBlob(ids []cryptonote.Hash) []byte {
	b := make([]byte, 0, 32*len(ids))
	for _, id := range ids {
		b = append(b, id[:]...)
	}
	return b
}

// serveGetBlocksByHeight is /getblocks_by_height.bin: the blocks at the
// heights asked, with their full transactions. At a height the chain does
// not have monerod stops with a status naming it, and still sends the
// blocks it had gathered before.
func (s *Server) serveGetBlocksByHeight(req *httpd.Request) httpd.Response {
	heights, err := rpctypes.ParseHeightsRequest(req.Body)
	if err != nil {
		return badRequest()
	}
	if req.Restricted && len(heights) > restrictedBlockCount {
		return statusOnlyBin("Too many blocks requested in restricted mode")
	}
	var blocks []*syncBlock
	status := statusOK
	claim, refused := answerClaim{req: req}, false // as /getblocks.bin's
	if err := s.wsView("getblocks_by_height", func(r *chaindb.Reader) error {
		blocks, status, refused = blocks[:0], statusOK, false
		claim.restart()
		chainHeight, err := r.Height()
		if err != nil {
			return err
		}
		for _, h := range heights {
			if h >= chainHeight {
				status = fmt.Sprintf("Error retrieving block at height %d", h)
				return nil
			}
			b, err := s.syncBlockAt(r, h, false, false)
			if err != nil {
				return err
			}
			if !claim.add(b.bytes()) {
				blocks, refused = nil, true
				return nil
			}
			blocks = append(blocks, b)
		}
		return nil
	}); err != nil {
		return internalError()
	}
	if refused {
		return s.busyAnswer(req)
	}
	n := 4
	total, shared := 96, 0
	if len(blocks) > 0 {
		n++
		for _, b := range blocks {
			total += len(b.entry)
			shared += len(b.entry)
		}
	}
	bp := newBinParts(n, total-shared, total, s.sharedPartsOver)
	w := bp.w
	if len(blocks) > 0 {
		w.Array("blocks", portable.TypeObject, len(blocks))
		for _, b := range blocks {
			bp.Shared(b.entry)
		}
	}
	w.FieldUint64("credits", 0)
	rpctypes.WriteBinTail(w, status)
	return bp.response()
}

// serveGetHashes is /gethashes.bin: block ids from the split point on, at
// most 10,000. start_height is not used to choose them; a failed answer
// echoes it (monerod sets the answer's start_height from it first).
func (s *Server) serveGetHashes(req *httpd.Request) httpd.Response {
	in, err := rpctypes.ParseGetHashesRequest(req.Body)
	if err != nil {
		return badRequest()
	}
	var ids []byte
	start, height := in.StartHeight, uint64(0)
	status := statusOK
	claim, refused := answerClaim{req: req}, false
	if err := s.wsView("gethashes", func(r *chaindb.Reader) error {
		ids, start, height, status, refused = nil, in.StartHeight, 0, statusOK, false
		claim.restart()
		split, ok := splitPoint(r, in.BlockIDs)
		if !ok {
			status = statusFailed
			return nil
		}
		chainHeight, err := r.Height()
		if err != nil {
			return err
		}
		end := min(chainHeight, split+maxHashes)
		if !claim.addItems(end-split, hashAnswerBytes) {
			refused = true
			return nil
		}
		metas, err := r.MetasInRange(split, end)
		if err != nil {
			return err
		}
		ids = make([]byte, 0, 32*len(metas))
		for i := range metas {
			ids = append(ids, metas[i].Hash[:]...)
		}
		start, height = split, chainHeight
		return nil
	}); err != nil {
		return internalError()
	}
	if refused {
		return s.busyAnswer(req)
	}
	if status == statusFailed {
		s.rpcHostFail(req)
	}
	n := 6
	if len(ids) > 0 {
		n++
	}
	w := rpctypes.BinAnswer(n, 128+len(ids))
	w.FieldUint64("credits", 0)
	w.FieldUint64("current_height", height)
	if len(ids) > 0 {
		w.FieldBlob("m_block_ids", ids)
	}
	w.FieldUint64("start_height", start)
	rpctypes.WriteBinTail(w, status)
	return binResponse(w)
}
