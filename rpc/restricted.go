package rpc

// The caps a restricted listener (monerod --restricted-rpc,
// --rpc-restricted-bind-port) puts on the endpoints it serves: the limits at
// the top of core_rpc_server.cpp, v0.18.5.3. Which endpoints it serves at all
// is declared by each endpoint where it is registered (endpoints.go: access;
// accessCapped marks those that apply a cap).

// Caps on a restricted listener.
const (
	// restrictedMaxGlobalOuts bounds the outputs of one /get_outs(.bin)
	// request (MAX_RESTRICTED_GLOBAL_FAKE_OUTS_COUNT).
	restrictedMaxGlobalOuts = 5000
	// restrictedHistogramRecentCutoff is the most recent cutoff
	// get_output_histogram may ask (OUTPUT_HISTOGRAM_RECENT_CUTOFF_RESTRICTION,
	// seconds).
	restrictedHistogramRecentCutoff = 3 * 86400
	// restrictedBlockHeaderRange bounds getblockheadersrange
	// (RESTRICTED_BLOCK_HEADER_RANGE).
	restrictedBlockHeaderRange = 1000
	// restrictedTransactionsCount bounds /gettransactions
	// (RESTRICTED_TRANSACTIONS_COUNT).
	restrictedTransactionsCount = 100
	// restrictedSpentKeyImagesCount bounds /is_key_image_spent
	// (RESTRICTED_SPENT_KEY_IMAGES_COUNT).
	restrictedSpentKeyImagesCount = 5000
	// restrictedBlockCount bounds /getblocks_by_height.bin
	// (RESTRICTED_BLOCK_COUNT).
	restrictedBlockCount = 1000
)
