package rpc

import (
	"slices"
	"strings"
	"testing"
)

// monerod v0.18.0.0's daemon RPC, as core_rpc_server.h maps it: every plain
// path and every JSON-RPC method name, aliases included.
var (
	monerodPaths = strings.Fields(`/get_alt_blocks_hashes /get_blocks.bin /get_blocks_by_height.bin /get_hashes.bin
		/get_height /get_info /get_limit /get_net_stats /get_o_indexes.bin /get_output_distribution.bin /get_outs
		/get_outs.bin /get_peer_list /get_public_nodes /get_transaction_pool /get_transaction_pool_hashes
		/get_transaction_pool_hashes.bin /get_transaction_pool_stats /get_transactions /getblocks.bin
		/getblocks_by_height.bin /gethashes.bin /getheight /getinfo /gettransactions /in_peers /is_key_image_spent
		/mining_status /out_peers /pop_blocks /save_bc /send_raw_transaction /sendrawtransaction
		/set_bootstrap_daemon /set_limit /set_log_categories /set_log_hash_rate /set_log_level /start_mining
		/stop_daemon /stop_mining /update`)
	monerodMethods = strings.Fields(`add_aux_pow banned calc_pow flush_cache flush_txpool generateblocks
		get_alternate_chains get_bans get_block get_block_count get_block_header_by_hash get_block_header_by_height
		get_block_headers_range get_block_template get_coinbase_tx_sum get_connections get_fee_estimate get_info
		get_last_block_header get_miner_data get_output_distribution get_output_histogram get_txpool_backlog
		get_version getblock getblockcount getblockheaderbyhash getblockheaderbyheight getblockheadersrange
		getblocktemplate getlastblockheader hard_fork_info on_get_block_hash on_getblockhash prune_blockchain
		relay_tx rpc_access_account rpc_access_data rpc_access_info rpc_access_pay rpc_access_submit_nonce
		rpc_access_tracking set_bans submit_block submitblock sync_info`)
)

// gonero serves exactly monerod's endpoints, and the restricted-mode rules
// name only endpoints that exist.
func TestEveryMonerodEndpointIsServed(t *testing.T) {
	var paths, names []string
	for p := range pathHandlers {
		paths = append(paths, p)
	}
	for n := range methods {
		names = append(names, n)
	}
	slices.Sort(paths)
	slices.Sort(names)
	want := slices.Sorted(slices.Values(monerodPaths))
	if !slices.Equal(paths, want) {
		t.Errorf("paths:\n gonero  %v\n monerod %v", paths, want)
	}
	if want := slices.Sorted(slices.Values(monerodMethods)); !slices.Equal(names, want) {
		t.Errorf("methods:\n gonero  %v\n monerod %v", names, want)
	}
	for p := range restrictedRefusedPaths {
		if pathHandlers[p] == nil {
			t.Errorf("restricted.go refuses %s, which is not served", p)
		}
	}
	for n := range restrictedRefusedMethods {
		if _, ok := methods[n]; !ok {
			t.Errorf("restricted.go refuses %s, which is not served", n)
		}
	}
}
