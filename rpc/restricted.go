package rpc

// The restricted-mode rules, all in one place: which endpoints a restricted
// listener (monerod --restricted-rpc, --rpc-restricted-bind-port) does not
// serve, and the caps it puts on the ones it serves (core_rpc_server.h's
// MAP_URI_AUTO_JON2_IF / MAP_JON_RPC_WE_IF(..., !m_restricted) and the
// limits at the top of core_rpc_server.cpp, v0.18.5.3).

// restrictedRefusedPaths are the plain paths monerod maps only when not
// restricted: on a restricted listener they are unknown paths (404).
var restrictedRefusedPaths = map[string]bool{
	"/start_mining":         true,
	"/stop_mining":          true,
	"/mining_status":        true,
	"/save_bc":              true,
	"/get_peer_list":        true,
	"/set_log_hash_rate":    true,
	"/set_log_level":        true,
	"/set_log_categories":   true,
	"/set_bootstrap_daemon": true,
	"/stop_daemon":          true,
	"/get_net_stats":        true,
	"/set_limit":            true,
	"/out_peers":            true,
	"/in_peers":             true,
	"/update":               true,
	"/pop_blocks":           true,
	// Restricted since 0.18.4.
	"/get_alt_blocks_hashes": true,
	"/get_transaction_pool":  true,
}

// restrictedRefusedMethods are the JSON-RPC methods a restricted listener
// answers with -32601 "Method not found".
var restrictedRefusedMethods = map[string]bool{
	"calc_pow":             true,
	"generateblocks":       true,
	"get_connections":      true,
	"set_bans":             true,
	"get_bans":             true,
	"banned":               true,
	"flush_txpool":         true,
	"get_coinbase_tx_sum":  true,
	"get_alternate_chains": true,
	"relay_tx":             true,
	"sync_info":            true,
	"prune_blockchain":     true,
	"flush_cache":          true,
	"rpc_access_tracking":  true,
	"rpc_access_data":      true,
	"rpc_access_account":   true,
}

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

// methodAllowed says whether a listener may run a JSON-RPC method.
func methodAllowed(name string, restricted bool) bool {
	return !restricted || !restrictedRefusedMethods[name]
}
