package rpc

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/gonero/gonero/epeejson"
	"github.com/gonero/gonero/httpd"
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

// monerod 0.18.5.3's restricted listener (core_rpc_server.h: the
// MAP_URI_AUTO_*_IF and MAP_JON_RPC_*_IF entries guarded by !m_restricted)
// does not serve these: a 404 for a path, -32601 for a method. Checked
// against the binary by TestRestrictedSetMatchesMonerod.
var (
	monerodRestrictedPaths = strings.Fields(`/get_alt_blocks_hashes /get_net_stats /get_peer_list
		/get_transaction_pool /in_peers /mining_status /out_peers /pop_blocks /save_bc /set_bootstrap_daemon
		/set_limit /set_log_categories /set_log_hash_rate /set_log_level /start_mining /stop_daemon /stop_mining
		/update`)
	monerodRestrictedMethods = strings.Fields(`banned calc_pow flush_cache flush_txpool generateblocks
		get_alternate_chains get_bans get_coinbase_tx_sum get_connections prune_blockchain relay_tx
		rpc_access_account rpc_access_data rpc_access_tracking set_bans sync_info`)
)

// gonero serves exactly monerod's endpoints.
func TestEveryMonerodEndpointIsServed(t *testing.T) {
	paths := slices.Sorted(maps.Keys(endpoints.paths))
	names := slices.Sorted(maps.Keys(endpoints.methods))
	if want := slices.Sorted(slices.Values(monerodPaths)); !slices.Equal(paths, want) {
		t.Errorf("paths:\n gonero  %v\n monerod %v", paths, want)
	}
	if want := slices.Sorted(slices.Values(monerodMethods)); !slices.Equal(names, want) {
		t.Errorf("methods:\n gonero  %v\n monerod %v", names, want)
	}
}

// refusedNames are the names a restricted listener does not serve, by the
// registry's declarations.
func refusedNames(m map[string]*endpoint) []string {
	var out []string
	for n, e := range m {
		if e.access == accessRefused {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return out
}

// The registry refuses on a restricted listener exactly what monerod's does.
func TestRestrictedSetIsMonerods(t *testing.T) {
	if got, want := refusedNames(endpoints.paths), slices.Sorted(slices.Values(monerodRestrictedPaths)); !slices.Equal(got, want) {
		t.Errorf("refused paths:\n gonero  %v\n monerod %v", got, want)
	}
	if got, want := refusedNames(endpoints.methods), slices.Sorted(slices.Values(monerodRestrictedMethods)); !slices.Equal(got, want) {
		t.Errorf("refused methods:\n gonero  %v\n monerod %v", got, want)
	}
}

// Every entry of every table declares its access, and the tables build; an
// entry without one (the zero value), or otherwise malformed, is refused by
// the registry and named, and New does not start.
func TestEveryEndpointDeclaresItsAccess(t *testing.T) {
	if errEndpoints != nil {
		t.Fatalf("the endpoint tables do not build: %v", errEndpoints)
	}
	for _, table := range endpointTables() {
		for _, e := range table {
			if e.access == accessUndeclared || e.access >= accessEnd {
				t.Errorf("%v: access %v", e.names, e.access)
			}
		}
	}

	get := func(*call) (func(*epeejson.Writer), *Error) { return nil, nil }
	serve := func(*Server, *httpd.Request) httpd.Response { return httpd.Response{} }
	bad := []struct {
		e    endpoint
		want string
	}{
		{endpoint{names: []string{"get_new"}, method: get}, "get_new declares no restricted-listener access"},
		{endpoint{names: []string{"/get_new", "/getnew"}, path: serve}, "/get_new /getnew declares no restricted-listener access"},
		{endpoint{names: []string{"get_new"}, access: accessEnd, method: get}, "unknown access"},
		{endpoint{access: accessPublic, method: get}, "without a name"},
		{endpoint{names: []string{"get_new"}, access: accessPublic}, "exactly one"},
		{endpoint{names: []string{"get_new"}, access: accessPublic, method: get, path: serve}, "exactly one"},
		{endpoint{names: []string{"get_new"}, access: accessPublic, path: serve}, "does not begin with /"},
		{endpoint{names: []string{"/get_new"}, access: accessPublic, method: get}, "begins with /"},
		{endpoint{names: []string{"/json_rpc"}, access: accessPublic, path: serve}, "envelope"},
		{endpoint{names: []string{"/get_new"}, access: accessPublic, path: serve, noClient: true}, "noClient"},
		{endpoint{names: []string{"get_info"}, access: accessPublic, method: get}, "get_info registered twice"},
	}
	for _, b := range bad {
		tables := append(endpointTables(), []endpoint{b.e})
		r, err := buildRegistry(tables...)
		if err == nil || !strings.Contains(err.Error(), b.want) {
			t.Errorf("%+v: error %v, want one saying %q", b.e.names, err, b.want)
			continue
		}
		// The entries that were right are still there; the bad one is not
		// served anywhere under its own names.
		if len(r.paths) != len(endpoints.paths) || len(r.methods) != len(endpoints.methods) {
			t.Errorf("%v: the registry kept %d paths and %d methods, want %d and %d",
				b.e.names, len(r.paths), len(r.methods), len(endpoints.paths), len(endpoints.methods))
		}
	}

	// New refuses to start with such a table.
	saved := errEndpoints
	t.Cleanup(func() { errEndpoints = saved })
	_, errEndpoints = buildRegistry([]endpoint{{names: []string{"get_new"}, method: get}})
	if _, err := New(Config{}); err == nil || !strings.Contains(err.Error(), "declares no restricted-listener access") {
		t.Errorf("New with an undeclared endpoint: %v", err)
	}
}
