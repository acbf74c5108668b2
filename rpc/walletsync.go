package rpc

import (
	"errors"
	"sync"

	"github.com/gonero/gonero/chaindb"
	"github.com/gonero/gonero/httpd"
	"github.com/gonero/gonero/internal/boundedcache"
)

// The wallet-sync endpoints: what a wallet asks while it refreshes (blocks,
// block hashes, global output indexes) and while it builds a transaction
// (the RingCT output distribution, ring members' keys, the histogram of
// pre-RingCT amounts). core_rpc_server.cpp of monerod v0.18.0.0:
// on_get_blocks, on_get_blocks_by_height, on_get_hashes, on_get_indexes,
// on_get_outs_bin, on_get_outs, on_get_output_distribution(_bin),
// on_get_output_histogram.
//
// This file holds what they share; the handlers are in walletsync_blocks.go,
// walletsync_outputs.go and walletsync_distribution.go (with the histogram),
// their requests and answers in walletsync_types.go.

// walletSyncEndpoints are the wallet synchronisation endpoints (endpoints.go).
func walletSyncEndpoints() []endpoint {
	return []endpoint{
		// Capped: at most restrictedTransactionsCount pool transactions whole.
		{names: []string{"/getblocks.bin", "/get_blocks.bin"}, access: accessCapped, path: (*Server).serveGetBlocks},
		// Capped: restrictedBlockCount blocks.
		{names: []string{"/getblocks_by_height.bin", "/get_blocks_by_height.bin"}, access: accessCapped, path: (*Server).serveGetBlocksByHeight},
		{names: []string{"/gethashes.bin", "/get_hashes.bin"}, access: accessPublic, path: (*Server).serveGetHashes},
		{names: []string{"/get_o_indexes.bin"}, access: accessPublic, path: (*Server).serveGetOIndexes},
		// Capped: restrictedMaxGlobalOuts outputs.
		{names: []string{"/get_outs.bin"}, access: accessCapped, path: (*Server).serveGetOutsBin},
		{names: []string{"/get_outs"}, access: accessCapped, path: (*Server).serveGetOutsJSON},
		// Capped: amount 0 (RingCT outputs) only.
		{names: []string{"/get_output_distribution.bin"}, access: accessCapped, path: (*Server).serveOutputDistributionBin},
		{names: []string{"get_output_distribution"}, access: accessCapped, method: getOutputDistribution, deepParams: true},
		// Capped: recent histograms only (restrictedHistogramRecentCutoff).
		{names: []string{"get_output_histogram"}, access: accessCapped, method: getOutputHistogram, deepParams: true},
	}
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

// view runs fn on a store snapshot; a failed read is logged.
func (s *Server) wsView(what string, fn func(r *chaindb.Reader) error) error {
	err := s.store.View(fn)
	if err != nil && !errors.Is(err, errNoDistribution) && !errors.Is(err, errAnswerRefused) {
		s.log.Error(what+": chain read failed", "err", err)
	}
	return err
}
