package rpc

import (
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/gonero/gonero/chaindb"
	"github.com/gonero/gonero/consensus"
	"github.com/gonero/gonero/crypto"
	"github.com/gonero/gonero/cryptonote"
	"github.com/gonero/gonero/epeejson"
	"github.com/gonero/gonero/httpd"
	"github.com/gonero/gonero/internal/boundedcache"
	"github.com/gonero/gonero/params"
	"github.com/gonero/gonero/portable"
	"github.com/gonero/gonero/txpool"
)

// The wallet-sync endpoints: what a wallet asks while it refreshes (blocks,
// block hashes, global output indexes) and while it builds a transaction
// (the RingCT output distribution, ring members' keys, the histogram of
// pre-RingCT amounts). core_rpc_server.cpp of monerod v0.18.0.0:
// on_get_blocks, on_get_blocks_by_height, on_get_hashes, on_get_indexes,
// on_get_outs_bin, on_get_outs, on_get_output_distribution(_bin),
// on_get_output_histogram.

func init() {
	registerPath((*Server).serveGetBlocks, "/getblocks.bin", "/get_blocks.bin")
	registerPath((*Server).serveGetBlocksByHeight, "/getblocks_by_height.bin", "/get_blocks_by_height.bin")
	registerPath((*Server).serveGetHashes, "/gethashes.bin", "/get_hashes.bin")
	registerPath((*Server).serveGetOIndexes, "/get_o_indexes.bin")
	registerPath((*Server).serveGetOutsBin, "/get_outs.bin")
	registerPath((*Server).serveGetOutsJSON, "/get_outs")
	registerPath((*Server).serveOutputDistributionBin, "/get_output_distribution.bin")
	registerMethod(method{handler: getOutputDistribution}, "get_output_distribution")
	registerMethod(method{handler: getOutputHistogram}, "get_output_histogram")
}

// Limits of one /getblocks.bin answer (cryptonote_config.h,
// blockchain.cpp): at most this many blocks, and no block after the one
// that brings the blobs past maxSyncBytes or the transactions to
// maxSyncTxs, but never fewer than minSyncBlocks.
const (
	maxSyncBlocks = 1000              // COMMAND_RPC_GET_BLOCKS_FAST_MAX_BLOCK_COUNT
	maxSyncTxs    = 20000             // COMMAND_RPC_GET_BLOCKS_FAST_MAX_TX_COUNT
	maxSyncBytes  = 100 * 1024 * 1024 // FIND_BLOCKCHAIN_SUPPLEMENT_MAX_SIZE
	minSyncBlocks = 3
	// maxHashes is BLOCKS_IDS_SYNCHRONIZING_DEFAULT_COUNT, the most
	// /gethashes.bin answers.
	maxHashes = 10000
	// spendableAge is CRYPTONOTE_DEFAULT_TX_SPENDABLE_AGE, which
	// get_output_histogram's unlocked count applies.
	spendableAge = 10
)

const statusFailed = "Failed"

// internalError is monerod's answer when a .bin handler returns false: an
// empty 500, after which epee closes the connection.
func internalError() httpd.Response {
	return httpd.Response{Status: 500, ContentType: "text/plain", Close: true}
}

// walletSync holds what the endpoints cache: encoded block entries (a
// block_complete_entry and its output indexes are immutable for a block
// id) and the cumulative RingCT output counts per height.
type walletSync struct {
	once sync.Once
	// blocks keeps encoded blocks by syncKey, bounded in bytes.
	blocks *boundedcache.Cache[syncKey, *syncBlock]
	rct    rctCounts
	// dist holds encoded /get_output_distribution.bin answers by request
	// and top block id (distributionKey).
	distMu sync.Mutex
	dist   map[string][]byte
}

func (s *Server) ws() *walletSync {
	s.wsync.once.Do(func() {
		s.wsync.blocks = boundedcache.New[syncKey](syncBlockCacheBytes, syncBlockCacheBytes/8, (*syncBlock).bytes)
		s.wsync.dist = make(map[string][]byte)
	})
	return &s.wsync
}

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

// view runs fn on a store snapshot; a failed read is logged.
func (s *Server) wsView(what string, fn func(r *chaindb.Reader) error) error {
	err := s.store.View(fn)
	if err != nil && !errors.Is(err, errNoDistribution) {
		s.log.Error(what+": chain read failed", "err", err)
	}
	return err
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
	in, err := parseGetBlocksRequest(req.Body)
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
	)
	getBlocks, getPool := in.RequestedInfo != poolOnly, in.RequestedInfo != blocksOnly
	if in.RequestedInfo > poolOnly {
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
			blocks, status = nil, statusOK
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
	if len(blocks) > 0 {
		n += 2
		for _, b := range blocks {
			total += len(b.entry) + len(b.indices)
		}
	}
	w := binAnswer(n, total)
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
			w.Raw(b.entry)
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
	extent := uint8(poolInfoNone)
	if pool != nil {
		extent = poolInfoFull
		if pool.Incremental {
			extent = poolInfoIncremental
		}
	}
	if extent != poolInfoNone { // KV_SERIALIZE_OPT leaves a default value out
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
	writeBinTail(w, status)
	if in.RequestedInfo == blocksOnly {
		s.answers.putKept(version, s.answerVersion(), routeGetBlocks, req, keptAnswer{answer: w.Bytes(), timeAt: timeAt})
	}
	return binResponse(w)
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
	heights, err := parseHeightsRequest(req.Body)
	if err != nil {
		return badRequest()
	}
	if req.Restricted && len(heights) > restrictedBlockCount {
		return statusOnlyBin("Too many blocks requested in restricted mode")
	}
	var blocks []*syncBlock
	status := statusOK
	if err := s.wsView("getblocks_by_height", func(r *chaindb.Reader) error {
		blocks, status = blocks[:0], statusOK
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
			blocks = append(blocks, b)
		}
		return nil
	}); err != nil {
		return internalError()
	}
	n := 4
	total := 96
	if len(blocks) > 0 {
		n++
		for _, b := range blocks {
			total += len(b.entry)
		}
	}
	w := binAnswer(n, total)
	if len(blocks) > 0 {
		w.Array("blocks", portable.TypeObject, len(blocks))
		for _, b := range blocks {
			w.Raw(b.entry)
		}
	}
	w.FieldUint64("credits", 0)
	writeBinTail(w, status)
	return binResponse(w)
}

// serveGetHashes is /gethashes.bin: block ids from the split point on, at
// most 10,000. start_height is not used to choose them; a failed answer
// echoes it (monerod sets the answer's start_height from it first).
func (s *Server) serveGetHashes(req *httpd.Request) httpd.Response {
	in, err := parseGetHashesRequest(req.Body)
	if err != nil {
		return badRequest()
	}
	var ids []byte
	start, height := in.StartHeight, uint64(0)
	status := statusOK
	if err := s.wsView("gethashes", func(r *chaindb.Reader) error {
		ids, start, height, status = nil, in.StartHeight, 0, statusOK
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
	n := 6
	if len(ids) > 0 {
		n++
	}
	w := binAnswer(n, 128+len(ids))
	w.FieldUint64("credits", 0)
	w.FieldUint64("current_height", height)
	if len(ids) > 0 {
		w.FieldBlob("m_block_ids", ids)
	}
	w.FieldUint64("start_height", start)
	writeBinTail(w, status)
	return binResponse(w)
}

// serveGetOIndexes is /get_o_indexes.bin: the global output indexes of one
// transaction (miner transactions included).
func (s *Server) serveGetOIndexes(req *httpd.Request) httpd.Response {
	txid, err := parseOIndexesRequest(req.Body)
	if err != nil {
		return badRequest()
	}
	var idx []uint64
	found := false
	if err := s.wsView("get_o_indexes", func(r *chaindb.Reader) error {
		var err error
		idx, err = r.TxOutputIndexes(txid)
		if errors.Is(err, chaindb.ErrNotFound) {
			found = false
			return nil
		}
		found = err == nil
		return err
	}); err != nil {
		return internalError()
	}
	if !found {
		return statusOnlyBin(statusFailed)
	}
	n := 4
	if len(idx) > 0 {
		n++
	}
	w := binAnswer(n, 96+8*len(idx))
	w.FieldUint64("credits", 0)
	if len(idx) > 0 {
		w.Array("o_indexes", portable.TypeUint64, len(idx))
		for _, v := range idx {
			w.Uint64(v)
		}
	}
	writeBinTail(w, statusOK)
	return binResponse(w)
}

// getOuts is Blockchain::get_outs: every output asked, or nothing at all
// when one of them does not exist (false). A pre-RingCT output's mask is
// the commitment to its amount with blinding factor 1 (zeroCommit), as
// monerod's database returns it.
func (s *Server) getOuts(in *getOutsRequest, outs []outKey) ([]outKey, bool, error) {
	outs = slices.Grow(outs[:0], len(in.Outputs))[:len(in.Outputs)]
	ok := true
	var unlockCtx struct {
		height  uint64
		hf      uint8
		now     uint64
		haveNow bool
	}
	err := s.wsView("get_outs", func(r *chaindb.Reader) error {
		ok = true
		height, err := r.Height()
		if err != nil {
			return err
		}
		unlockCtx.height = height
		if height > 0 {
			unlockCtx.hf = s.network.VersionAt(height - 1)
		}
		ref := func(i int) (uint64, uint64) { return in.Outputs[i].Amount, in.Outputs[i].Index }
		err = r.EachOutput(len(in.Outputs), ref, func(i int, o *chaindb.OutputEntry) error {
			k := &outs[i]
			*k = outKey{Key: o.Key, Height: o.Height}
			if o.Amount == 0 {
				k.Mask = o.Commitment
			} else {
				k.Mask = cryptonote.Key(crypto.ZeroCommit(o.Amount))
			}
			if in.GetTxID {
				k.TxID = o.TxHash
			}
			if o.UnlockTime >= consensus.MaxBlockNumber && !unlockCtx.haveNow {
				// A time lock is judged against the adjusted time (hard fork
				// 13 on) or the clock, as is_tx_spendtime_unlocked does.
				next := s.chain.NextBlockFacts()
				unlockCtx.now, unlockCtx.haveNow = next.AdjustedTime(time.Now()), true
				if unlockCtx.hf < consensus.VersionDeterministicUT {
					unlockCtx.now = uint64(time.Now().Unix())
				}
			}
			k.Unlocked = consensus.IsSpendTimeUnlocked(o.UnlockTime, height, unlockCtx.now, unlockCtx.hf)
			return nil
		})
		if errors.Is(err, chaindb.ErrNotFound) {
			ok = false
			return nil
		}
		return err
	})
	return outs, ok, err
}

// outKeyPool holds the lookup results of get_outs between requests: a
// wallet asks for 150 ring members or more each time, and the answer is
// written from them before the handler returns.
var outKeyPool = sync.Pool{New: func() any { return new([]outKey) }}

// serveGetOutsBin is /get_outs.bin: keys, masks and heights of ring
// members.
func (s *Server) serveGetOutsBin(req *httpd.Request) httpd.Response {
	in, err := parseGetOutsBinRequest(req.Body)
	if err != nil {
		return badRequest()
	}
	if req.Restricted && len(in.Outputs) > restrictedMaxGlobalOuts {
		return writeOutsBin(nil, "Too many outs requested")
	}
	buf := outKeyPool.Get().(*[]outKey)
	defer outKeyPool.Put(buf)
	outs, ok, err := s.getOuts(&in, *buf)
	*buf = outs
	if err != nil {
		return internalError()
	}
	if !ok {
		return writeOutsBin(nil, statusFailed)
	}
	return writeOutsBin(outs, statusOK)
}

// serveGetOutsJSON is /get_outs, the same in JSON with hex strings.
func (s *Server) serveGetOutsJSON(req *httpd.Request) httpd.Response {
	in, err := parseGetOutsJSONRequest(req.Body)
	if err != nil {
		return badRequest()
	}
	if req.Restricted && len(in.Outputs) > restrictedMaxGlobalOuts {
		return writeOutsJSON(nil, false, "Too many outs requested")
	}
	outs, ok, err := s.getOuts(&in, nil)
	if err != nil {
		return internalError()
	}
	if !ok {
		return writeOutsJSON(nil, false, statusFailed)
	}
	return writeOutsJSON(outs, in.GetTxID, statusOK)
}

// errNoDistribution is get_output_distribution's "cannot" (monerod's
// boost::none): a range the chain does not have.
var errNoDistribution = errors.New("rpc: no output distribution for that range")

// rctStartHeight is where get_output_distribution starts amount 0: the
// first height RingCT outputs can exist (hard fork 4), 0 on regtest.
func rctStartHeight(n params.Network) uint64 {
	if n == params.Regtest {
		return 0
	}
	for _, f := range n.HardForks() {
		if f.Version >= 4 {
			return f.Height
		}
	}
	return 0
}

// outputDistribution is RpcHandler::get_output_distribution over
// Blockchain::get_output_distribution for one amount: the per-block (or,
// cumulative, running) count of outputs from max(from, the amount's start)
// to to, to already resolved (0 in the request means the top).
//
// Surprising but monerod's: for an amount other than 0 the first value
// includes every output below from_height and base stays 0; for amount 0,
// base is the count below start_height and the first value excludes it.
func (s *Server) outputDistribution(r *chaindb.Reader, amount, from, to, height uint64, cumulative bool) (*distribution, error) {
	var start uint64
	if amount == 0 {
		start = rctStartHeight(s.network)
	}
	if to > 0 && to < from {
		return nil, errNoDistribution
	}
	start = max(start, from)
	if height == 0 || start >= height || to >= height {
		return nil, errNoDistribution
	}
	var dist []uint64
	var base uint64
	if amount == 0 {
		if to < start {
			// monerod reserves to+1-start heights: a length error, caught
			// as a failure.
			return nil, errNoDistribution
		}
		cum, err := s.ws().rct.cumulative(r, s.network, to)
		if err != nil {
			return nil, err
		}
		dist = append([]uint64(nil), cum[start:to+1]...)
		if start > 0 {
			base = cum[start-1]
		}
	} else {
		var err error
		if dist, err = amountDistribution(r, amount, from, height); err != nil {
			return nil, err
		}
	}
	if to > 0 && to >= from {
		offset := max(from, start)
		if offset <= to && to-offset+1 < uint64(len(dist)) {
			dist = dist[:to-offset+1]
		}
	}
	if !cumulative && len(dist) > 0 {
		for i := len(dist) - 1; i > 0; i-- {
			dist[i] -= dist[i-1]
		}
		dist[0] -= base
	}
	return &distribution{Amount: amount, StartHeight: start, Base: base, Data: dist}, nil
}

// amountDistribution is BlockchainLMDB::get_output_distribution: the
// running count of outputs of amount per block from from to the top, the
// outputs below from counted in the first value.
func amountDistribution(r *chaindb.Reader, amount, from, height uint64) ([]uint64, error) {
	if from >= height {
		return nil, errNoDistribution
	}
	dist := make([]uint64, height-from)
	n, err := r.OutputCount(amount)
	if err != nil {
		return nil, err
	}
	for i := uint64(0); i < n; i++ {
		o, err := r.Output(amount, i)
		if err != nil {
			return nil, err
		}
		if o.Height >= from && o.Height < height {
			dist[o.Height-from]++
		} else if o.Height < from {
			dist[0]++
		}
	}
	for i := 1; i < len(dist); i++ {
		dist[i] += dist[i-1]
	}
	return dist, nil
}

// rctCounts caches the cumulative count of RingCT outputs at each height
// (the store's rct_counts index, read once), as monerod caches its amount-0
// distribution. Entries stay valid while the block at their height does;
// hashes kept every rctCheckEvery heights (and at the end) find how much
// of the cache a reorganisation left valid.
type rctCounts struct {
	mu     sync.Mutex
	cum    []uint64
	checks []cryptonote.Hash // checks[i]: id at height i*rctCheckEvery
	last   cryptonote.Hash   // id at height len(cum)-1
}

const rctCheckEvery = 256

// cumulative returns the counts for heights 0..to (at least), valid for the
// snapshot r. The slice must not be modified.
func (c *rctCounts) cumulative(r *chaindb.Reader, _ params.Network, to uint64) ([]uint64, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	idAt := func(h uint64) (cryptonote.Hash, error) {
		m, err := r.MetaByHeight(h)
		return m.Hash, err
	}
	if n := uint64(len(c.cum)); n > 0 {
		id, err := idAt(n - 1)
		if err != nil || id != c.last {
			// Keep the prefix up to the newest check that still holds.
			keep := uint64(0)
			for i := len(c.checks) - 1; i >= 0; i-- {
				h := uint64(i) * rctCheckEvery
				if h >= n {
					continue
				}
				if id, err := idAt(h); err == nil && id == c.checks[i] {
					keep = h + 1
					break
				}
			}
			c.cum = c.cum[:keep]
			c.checks = c.checks[:(keep+rctCheckEvery-1)/rctCheckEvery]
			if keep > 0 {
				if c.last, err = idAt(keep - 1); err != nil {
					return nil, err
				}
			}
		}
	}
	for h := uint64(len(c.cum)); h <= to; h++ {
		v, err := r.RctOutputsUpTo(h)
		if err != nil {
			return nil, err
		}
		c.cum = append(c.cum, v)
		if h%rctCheckEvery == 0 {
			id, err := idAt(h)
			if err != nil {
				return nil, err
			}
			c.checks = append(c.checks, id)
		}
		if h == to {
			if c.last, err = idAt(h); err != nil {
				return nil, err
			}
		}
	}
	return c.cum, nil
}

// distributions answers a distribution request for the snapshot r.
func (s *Server) distributions(r *chaindb.Reader, in *distributionRequest) ([]*distribution, error) {
	height, err := r.Height()
	if err != nil {
		return nil, err
	}
	to := in.ToHeight
	if to == 0 {
		to = height - 1 // 0 stands for the top (wraps on an empty chain, which then fails)
	}
	out := make([]*distribution, 0, len(in.Amounts))
	for _, amount := range in.Amounts {
		d, err := s.outputDistribution(r, amount, in.FromHeight, to, height, in.Cumulative)
		if err != nil {
			return nil, err
		}
		d.Binary, d.Compress = in.Binary, in.Compress
		out = append(out, d)
	}
	return out, nil
}

// rctOnly reports whether amounts is exactly [0], the only request a
// restricted listener serves.
func rctOnly(amounts []uint64) bool { return len(amounts) == 1 && amounts[0] == 0 }

// serveOutputDistributionBin is /get_output_distribution.bin.
func (s *Server) serveOutputDistributionBin(req *httpd.Request) httpd.Response {
	version := s.answerVersion()
	if answer, ok := s.answers.get(version, routeDistribution, req); ok { // see fastpath.go
		return httpd.Response{ContentType: "application/octet-stream", Body: answer}
	}
	in, err := parseDistributionBinRequest(req.Body)
	if err != nil {
		return badRequest()
	}
	if req.Restricted && !rctOnly(in.Amounts) {
		// monerod sets a status but returns false: an empty 500.
		return internalError()
	}
	if !in.Binary {
		return statusOnlyBin("Binary only call")
	}
	// The answer depends on the request and the chain alone, and the top
	// id stands for the whole chain: a wallet's repeated request (amount 0,
	// to the top) is answered from the cache until a block arrives.
	top := s.chain.Top().Hash
	key := distributionKey(&in, top)
	ws := s.ws()
	if key != "" {
		ws.distMu.Lock()
		body, hit := ws.dist[key]
		ws.distMu.Unlock()
		if hit {
			s.answers.put(version, s.answerVersion(), routeDistribution, req, body)
			return httpd.Response{ContentType: "application/octet-stream", Body: body}
		}
	}
	var ds []*distribution
	consistent := true
	if err := s.wsView("get_output_distribution", func(r *chaindb.Reader) error {
		t, err := r.Top()
		if err != nil {
			return err
		}
		consistent = t.Hash == top
		ds, err = s.distributions(r, &in)
		return err
	}); err != nil {
		return statusOnlyBin("Failed to get output distribution")
	}
	n := 4
	size := 128
	if len(ds) > 0 {
		n++
		for _, d := range ds {
			size += 96 + 9*len(d.Data)
		}
	}
	w := binAnswer(n, size)
	w.FieldUint64("credits", 0)
	if len(ds) > 0 {
		w.Array("distributions", portable.TypeObject, len(ds))
		for _, d := range ds {
			d.writeBin(w)
		}
	}
	writeBinTail(w, statusOK)
	if key != "" && consistent {
		ws.distMu.Lock()
		if len(ws.dist) >= maxCachedDistributions {
			clear(ws.dist)
		}
		ws.dist[key] = w.Bytes()
		ws.distMu.Unlock()
		s.answers.put(version, s.answerVersion(), routeDistribution, req, w.Bytes())
	}
	return binResponse(w)
}

// maxCachedDistributions bounds the distribution answers kept; the cache
// is emptied when full (it refills with the requests wallets repeat).
const maxCachedDistributions = 64

// distributionKey names a request's answer on the chain whose top is top;
// "" for a request too large to be worth keeping.
func distributionKey(in *distributionRequest, top cryptonote.Hash) string {
	if len(in.Amounts) > 4 {
		return ""
	}
	b := make([]byte, 0, 32+3*8+3+8*len(in.Amounts))
	b = append(b, top[:]...)
	b = binary.LittleEndian.AppendUint64(b, in.FromHeight)
	b = binary.LittleEndian.AppendUint64(b, in.ToHeight)
	b = append(b, boolByte(in.Cumulative), boolByte(in.Binary), boolByte(in.Compress))
	for _, a := range in.Amounts {
		b = binary.LittleEndian.AppendUint64(b, a)
	}
	return string(b)
}

func boolByte(b bool) byte {
	if b {
		return 1
	}
	return 0
}

var (
	errDistributionRestricted = &Error{codeRestricted, "Restricted RPC can only get output distribution for rct outputs. Use your own node."}
	errDistributionFailed     = &Error{codeInternalError, "Failed to get output distribution"}
)

// getOutputDistribution is the JSON-RPC get_output_distribution.
func getOutputDistribution(c *call) (func(*epeejson.Writer), *Error) {
	in, e := distributionParams(c.params)
	if e != nil {
		return nil, e
	}
	if c.restricted && !rctOnly(in.Amounts) {
		return nil, errDistributionRestricted
	}
	var ds []*distribution
	if err := c.server.wsView("get_output_distribution", func(r *chaindb.Reader) error {
		var err error
		ds, err = c.server.distributions(r, &in)
		return err
	}); err != nil {
		return nil, errDistributionFailed
	}
	return func(w *epeejson.Writer) {
		w.BeginObject()
		w.KeyUint("credits", 0)
		if len(ds) > 0 {
			w.Key("distributions")
			w.BeginArray()
			for _, d := range ds {
				d.writeJSON(w)
			}
			w.EndArray()
		}
		w.KeyString("status", statusOK)
		w.KeyString("top_hash", "")
		w.KeyBool("untrusted", false)
		w.EndObject()
	}, nil
}

// getOutputHistogram is the JSON-RPC get_output_histogram: per amount, how
// many outputs exist, how many are spendable by age (only when unlocked or
// recent_cutoff is asked) and how many of those are in blocks stamped at or
// after recent_cutoff.
func getOutputHistogram(c *call) (func(*epeejson.Writer), *Error) {
	in, e := histogramParams(c.params)
	if e != nil {
		return nil, e
	}
	status := statusOK
	var entries []histogramEntry
	switch {
	case c.restricted && len(in.Amounts) == 0:
		status = "Restricted RPC will not serve histograms on the whole blockchain. Use your own node."
	case c.restricted && in.RecentCutoff > 0 && in.RecentCutoff < uint64(time.Now().Unix())-restrictedHistogramRecentCutoff:
		status = "Recent cutoff is too old"
	default:
		if err := c.server.wsView("get_output_histogram", func(r *chaindb.Reader) error {
			var err error
			entries, err = outputHistogram(r, &in)
			return err
		}); err != nil {
			status = "Failed to get output histogram"
			entries = nil
		}
	}
	return func(w *epeejson.Writer) {
		w.BeginObject()
		w.KeyUint("credits", 0)
		if len(entries) > 0 {
			w.Key("histogram")
			w.BeginArray()
			for i := range entries {
				entries[i].write(w)
			}
			w.EndArray()
		}
		w.KeyString("status", status)
		w.KeyString("top_hash", "")
		w.KeyBool("untrusted", false)
		w.EndObject()
	}, nil
}

// outputHistogram is BlockchainLMDB::get_output_histogram followed by the
// handler's min/max filter. Amounts come out in ascending order, each once.
func outputHistogram(r *chaindb.Reader, in *histogramRequest) ([]histogramEntry, error) {
	var entries []histogramEntry
	if len(in.Amounts) == 0 {
		if err := r.ForEachOutputAmount(func(amount, count uint64) error {
			if count >= in.MinCount {
				entries = append(entries, histogramEntry{Amount: amount, Total: count})
			}
			return nil
		}); err != nil {
			return nil, err
		}
	} else {
		seen := make(map[uint64]bool, len(in.Amounts))
		for _, a := range in.Amounts {
			if seen[a] {
				continue
			}
			seen[a] = true
			n, err := r.OutputCount(a)
			if err != nil {
				return nil, err
			}
			if n >= in.MinCount {
				entries = append(entries, histogramEntry{Amount: a, Total: n})
			}
		}
		sortEntries(entries)
	}
	if in.Unlocked || in.RecentCutoff > 0 {
		height, err := r.Height()
		if err != nil {
			return nil, err
		}
		stamps := map[uint64]uint64{}
		for i := range entries {
			e := &entries[i]
			n := e.Total
			for n > 0 {
				o, err := r.Output(e.Amount, n-1)
				if err != nil {
					return nil, err
				}
				if o.Height+spendableAge <= height {
					break
				}
				n--
			}
			e.Unlocked = n
			if in.RecentCutoff > 0 {
				for n > 0 {
					o, err := r.Output(e.Amount, n-1)
					if err != nil {
						return nil, err
					}
					ts, ok := stamps[o.Height]
					if !ok {
						m, err := r.MetaByHeight(o.Height)
						if err != nil {
							return nil, err
						}
						ts = m.Timestamp
						stamps[o.Height] = ts
					}
					if ts < in.RecentCutoff {
						break
					}
					n--
					e.Recent++
				}
			}
		}
	}
	kept := entries[:0]
	for _, e := range entries {
		if e.Total >= in.MinCount && (e.Total <= in.MaxCount || in.MaxCount == 0) {
			kept = append(kept, e)
		}
	}
	return kept, nil
}

func sortEntries(es []histogramEntry) {
	slices.SortFunc(es, func(a, b histogramEntry) int { return cmp.Compare(a.Amount, b.Amount) })
}
