package rpc_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gonero/gonero/chain"
	"github.com/gonero/gonero/chaindb"
	"github.com/gonero/gonero/epeejson"
	"github.com/gonero/gonero/httpd"
	"github.com/gonero/gonero/importer"
	"github.com/gonero/gonero/internal/monerodlab"
	"github.com/gonero/gonero/miner"
	"github.com/gonero/gonero/p2p"
	"github.com/gonero/gonero/params"
	"github.com/gonero/gonero/rpc"
	"github.com/gonero/gonero/txpool"
)

// This file is an external test package so that gonero's RPC answers from
// a real (offline) P2P node, as in gonerod: the peer lists, bans and
// connection limits are the node's.

// opsNode is gonero on a fresh chain: chain, pool, offline P2P node and an
// RPC server with a main and a restricted listener.
type opsNode struct {
	chain      *chain.Chain
	node       *p2p.Node
	main, rest string // base URLs
	stopped    chan struct{}
}

func startOpsNode(t *testing.T, exportFile string, peers []string) *opsNode {
	t.Helper()
	dir := t.TempDir()
	db, err := chaindb.Open(filepath.Join(dir, "chain.db"), chaindb.Options{Network: params.Regtest.String()})
	if err != nil {
		t.Fatal(err)
	}
	c, err := chain.Open(db, chain.Config{Network: params.Regtest, FixedDifficulty: 1})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := importer.Import(context.Background(), c, exportFile, 0, nil); err != nil {
		t.Fatal(err)
	}
	pool := txpool.NewForChain(c, txpool.Options{})
	node, err := p2p.New(p2p.Config{Chain: c, Pool: pool, Offline: true, Peers: peers})
	if err != nil {
		t.Fatal(err)
	}
	if err := node.Start(); err != nil {
		t.Fatal(err)
	}
	n := &opsNode{chain: c, node: node, stopped: make(chan struct{})}
	mnr := miner.New(c, miner.Options{ExtraNonce: rpc.GenerateBlocksExtraNonce(), Pool: pool})
	srv, err := rpc.New(rpc.Config{Chain: c, Peers: node, Pool: pool, DataDir: dir, Version: "test", Miner: mnr,
		Main: httpd.Config{Addr: "127.0.0.1:0"}, Restricted: &httpd.Config{Addr: "127.0.0.1:0"},
		Stop: func() { close(n.stopped) }})
	if err != nil {
		t.Fatal(err)
	}
	n.main, n.rest = "http://"+srv.MainAddr(), "http://"+srv.RestrictedAddr()
	done := make(chan error, 1)
	go func() { done <- srv.Serve() }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
		<-done
		_ = mnr.Stop()
		_ = node.Close()
		db.Close()
	})
	return n
}

var opsClient = &http.Client{Timeout: 60 * time.Second}

func postTo(t *testing.T, url, path, body string) (int, []byte) {
	t.Helper()
	resp, err := opsClient.Post(url+path, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, b
}

// normal re-emits a JSON body with sorted members, the named members
// removed wherever they occur, and the arrays named in sortArrays sorted
// by their elements' text (monerod lists some maps in hash order).
func normal(t *testing.T, body []byte, drop []string, sortArrays ...string) string {
	t.Helper()
	v, err := epeejson.Parse(body)
	if err != nil {
		t.Fatalf("unparsable body %q: %v", body, err)
	}
	var walk func(v epeejson.Value, name string) epeejson.Value
	walk = func(v epeejson.Value, name string) epeejson.Value {
		switch v.Kind {
		case epeejson.KindObject:
			out := v
			out.Obj = nil
			for _, m := range v.Obj {
				if !slices.Contains(drop, m.Name) {
					out.Obj = append(out.Obj, epeejson.Member{Name: m.Name, Value: walk(m.Value, m.Name)})
				}
			}
			return out
		case epeejson.KindArray:
			out := v
			out.Arr = make([]epeejson.Value, len(v.Arr))
			for i := range v.Arr {
				out.Arr[i] = walk(v.Arr[i], "")
			}
			if slices.Contains(sortArrays, name) {
				slices.SortFunc(out.Arr, func(a, b epeejson.Value) int { return strings.Compare(text(a), text(b)) })
			}
			return out
		}
		return v
	}
	return text(walk(v, ""))
}

func text(v epeejson.Value) string {
	w := epeejson.NewWriter(nil)
	w.Value(v)
	return string(w.Bytes())
}

// Public addresses both nodes are given as --add-peer: they only fill the
// grey lists (both nodes are offline and never dial).
var opsPeers = []string{"8.8.8.8:18080", "1.1.1.1:18080", "9.9.9.9:28080", "5.6.7.8:18080", "1.2.3.4:18080"}

// Every operator and explorer endpoint, asked of gonero and of monerod
// (both offline, on the same fresh chain, with the same peers added), on
// the main and the restricted listener, with good and bad requests: the
// answers are the same, HTTP status and body, but for the figures that are
// each node's own (start time, peer ids monerod draws at random for added
// peers, tracked call durations).
func TestOperatorEndpointsMatchMonerod(t *testing.T) {
	lab := monerodlab.Require(t)
	fresh := lab.FreshChain(t)
	g := startOpsNode(t, fresh.RawFile, slices.Clone(opsPeers))
	restrictedPort := monerodlab.FreePort(t)
	args := []string{"--rpc-restricted-bind-port", strconv.Itoa(restrictedPort)}
	for _, p := range opsPeers {
		args = append(args, "--add-peer", p)
	}
	m := lab.StartMonerod(t, fresh.NodeDir, args...)
	mMain, mRest := "http://127.0.0.1:"+strconv.Itoa(m.RPCPort), "http://127.0.0.1:"+strconv.Itoa(restrictedPort)

	asked := 0
	// ask posts body to path on the main (or restricted) listener of both
	// and compares; answers that differ are asked again a few times, for
	// the seconds left on a ban that can cross a second between the two.
	ask := func(restricted bool, path, body string, drop ...string) string {
		t.Helper()
		gu, mu := g.main, mMain
		if restricted {
			gu, mu = g.rest, mRest
		}
		var ours, theirs string
		for try := 0; try < 3; try++ {
			gs, gb := postTo(t, gu, path, body)
			ms, mb := postTo(t, mu, path, body)
			if gs != ms {
				t.Fatalf("%s %s (restricted %v): HTTP %d from gonero, %d from monerod\n gonero: %s\nmonerod: %s", path, body, restricted, gs, ms, gb, mb)
			}
			asked++
			if gs != 200 {
				return ""
			}
			ours, theirs = normal(t, gb, drop, "data"), normal(t, mb, drop, "data")
			if ours == theirs {
				return ours
			}
		}
		t.Fatalf("%s %s (restricted %v):\n gonero: %s\nmonerod: %s", path, body, restricted, ours, theirs)
		return ""
	}
	rpcBody := func(method, params string) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":7,"method":%q,"params":%s}`, method, params)
	}
	call := func(method, params string, drop ...string) string {
		t.Helper()
		return ask(false, "/json_rpc", rpcBody(method, params), drop...)
	}

	// rpc_access_tracking counts from here on: the calls below are the
	// same on both nodes.
	call("rpc_access_tracking", `{"clear":true}`)

	// get_info, on both listeners (the restricted one hides the private
	// figures); the node's own figures aside.
	own := []string{"start_time", "free_space", "database_size", "version", "rpc_connections_count"}
	for _, restricted := range []bool{false, true} {
		ask(restricted, "/json_rpc", rpcBody("get_info", `{}`), own...)
		ask(restricted, "/get_info", `{}`, own...)
		ask(restricted, "/getinfo", ``, own...)
	}

	// sync_info, bans.
	call("sync_info", `{}`)
	call("get_bans", `{}`)
	call("set_bans", `{"bans":[{"host":"1.2.3.4","ban":true,"seconds":3600},{"host":"10.0.0.0/8","ban":true,"seconds":7200},`+
		`{"ip":16909060,"ban":true,"seconds":60},{"host":"8.8.8.8:18080","ban":true,"seconds":100}]}`)
	call("get_bans", `{}`)
	for _, a := range []string{"1.2.3.4", "10.20.30.40", "4.3.2.1", "8.8.8.8", "9.9.9.9", "[2001:db8::1]:18080", "2001:db8::1", "nonsense", ""} {
		call("banned", fmt.Sprintf(`{"address":%q}`, a))
	}
	call("banned", `{"address":5}`)
	ask(false, "/get_peer_list", `{}`, "id")
	ask(false, "/get_peer_list", `{"include_blocked":true,"public_only":false}`, "id")
	call("set_bans", `{"bans":[{"host":"1.2.3.4","ban":false},{"host":"10.0.0.0/8","ban":false},{"host":"4.3.2.1","ban":false}]}`)
	call("get_bans", `{}`)
	call("set_bans", `{"bans":[{"host":"5.6.7.8","ban":true,"seconds":10},{"host":"no such host","ban":true,"seconds":10}]}`)
	call("get_bans", `{}`)
	call("set_bans", `{"bans":[{"host":7,"ban":true}]}`)
	call("set_bans", `{"bans":[{"ip":-1,"ban":true}]}`)
	call("set_bans", `{"bans":[{"ip":4294967296,"ban":true}]}`)
	call("set_bans", `{"bans":"nothing"}`)
	call("set_bans", `{"bans":[1,2]}`)
	call("set_bans", `{"bans":[{"host":"5.6.7.8","ban":false}]}`)
	// Neither host nor ip: refused since 0.18.4, after the entries
	// before it; a bare IPv6 host is one since 0.18.4, banned (and
	// listed) as the single address.
	call("set_bans", `{"bans":[{"ban":true,"seconds":10}]}`)
	call("set_bans", `{"bans":[{"host":"","ip":0,"ban":false}]}`)
	call("set_bans", `{"bans":[{"host":"5.6.7.9","ban":true,"seconds":100},{"ban":true,"seconds":10},{"host":"5.6.7.10","ban":true,"seconds":100}]}`)
	call("get_bans", `{}`, "seconds") // the remaining seconds may have ticked apart
	call("set_bans", `{"bans":[{"host":"2001:db8::2","ban":true,"seconds":100},{"host":"[2001:db8::3]:18080","ban":true,"seconds":100}]}`)
	call("get_bans", `{}`, "seconds")
	call("banned", `{"address":"2001:db8::3"}`, "seconds")
	call("banned", `{"address":"2001:db8::4"}`)
	call("set_bans", `{"bans":[{"host":"5.6.7.9","ban":false},{"host":"2001:db8::2","ban":false},{"host":"2001:db8::3","ban":false}]}`)
	call("get_bans", `{}`, "seconds")

	// Peer lists.
	for _, body := range []string{``, `{}`, `{"public_only":false}`, `{"include_blocked":true}`, `{"public_only":1}`, `{`} {
		ask(false, "/get_peer_list", body, "id")
	}
	for _, body := range []string{``, `{"gray":true}`, `{"white":false,"gray":true}`, `{"include_blocked":true}`, `{"gray":"yes"}`} {
		ask(false, "/get_public_nodes", body)
		ask(true, "/get_public_nodes", body)
	}

	// Flush, prune (checked only: asked to prune, monerod prunes its
	// chain and gonero, which does not prune, says it failed), RPC
	// payments as without them.
	for _, p := range []string{`{}`, `{"bad_txs":true,"bad_blocks":true}`, `{"bad_txs":1}`, `{"bad_txs":"x"}`, `{"bad_blocks":1}`} {
		call("flush_cache", p)
	}
	call("prune_blockchain", `{"check":true}`)
	call("prune_blockchain", `{"check":"yes"}`)
	call("rpc_access_info", `{}`)
	call("rpc_access_info", `{"client":"abc"}`)
	call("rpc_access_info", `{"client":5}`)
	for _, p := range []string{`{}`, `{"nonce":1,"cookie":2}`, `{"nonce":"x"}`, `{"nonce":4294967296}`} {
		call("rpc_access_submit_nonce", p)
	}
	for _, p := range []string{`{}`, `{"paying_for":"x","payment":"12"}`, `{"payment":-1}`} {
		call("rpc_access_pay", p)
	}
	call("rpc_access_data", `{}`)
	for _, p := range []string{`{}`, `{"client":"00","delta_balance":-5}`, `{"delta_balance":"x"}`, `{"client":5}`} {
		call("rpc_access_account", p)
	}

	// Limits, peers, logging.
	ask(false, "/get_net_stats", `{}`, "start_time")
	for _, body := range []string{`{}`, `{"limit_down":100}`, `{"limit_up":-1,"limit_down":-1}`, `{"limit_up":50}`,
		`{"limit_down":-5}`, `{"limit_down":7,"limit_up":-2}`, `{"limit_down":"x"}`, `{`} {
		ask(false, "/set_limit", body)
		ask(false, "/get_limit", `{}`)
	}
	ask(true, "/get_limit", ``)
	for _, path := range []string{"/out_peers", "/in_peers"} {
		name := strings.TrimPrefix(path, "/")
		for _, body := range []string{`{"set":false}`, fmt.Sprintf(`{%q:5}`, name), `{"set":false}`, fmt.Sprintf(`{%q:-1}`, name),
			fmt.Sprintf(`{%q:4294967295}`, name), `{"set":false}`, `{}`, `{"set":false}`, fmt.Sprintf(`{%q:12}`, name)} {
			ask(false, path, body)
		}
	}
	for _, body := range []string{`{"level":1}`, `{"level":5}`, `{"level":-1}`, `{"level":300}`, `{"level":"1"}`, `{"level":0}`} {
		ask(false, "/set_log_level", body)
	}
	for _, cats := range []string{"+foo:DEBUG", "+", "-foo:DEBUG", "-net:FATAL,global:INFO", "2", "1,bar:INFO", "7", "x:WARNING", "12x", ""} {
		ask(false, "/set_log_categories", fmt.Sprintf(`{"categories":%q}`, cats))
	}
	ask(false, "/set_log_level", `{"level":0}`)
	ask(false, "/set_log_hash_rate", `{"visible":true}`)
	ask(false, "/save_bc", `{}`)
	ask(false, "/set_bootstrap_daemon", `{"address":""}`)
	for _, body := range []string{`{}`, `{"command":"check"}`, `{"command":"bogus"}`, `{"command":5}`} {
		ask(false, "/update", body)
	}

	// What a restricted listener refuses.
	for _, path := range []string{"/get_peer_list", "/get_net_stats", "/set_limit", "/out_peers", "/in_peers", "/set_log_level",
		"/set_log_categories", "/set_log_hash_rate", "/save_bc", "/pop_blocks", "/stop_daemon", "/set_bootstrap_daemon", "/update"} {
		ask(true, path, `{}`)
	}
	for _, method := range []string{"sync_info", "get_bans", "set_bans", "banned", "flush_cache", "prune_blockchain",
		"rpc_access_tracking", "rpc_access_data", "rpc_access_account"} {
		ask(true, "/json_rpc", rpcBody(method, `{}`))
	}
	for _, method := range []string{"rpc_access_info", "rpc_access_submit_nonce", "rpc_access_pay"} {
		ask(true, "/json_rpc", rpcBody(method, `{}`))
	}

	// What was tracked since the clear, durations aside.
	call("rpc_access_tracking", `{}`, "time")

	// pop_blocks: both chains lose the same blocks; the popped blocks'
	// transactions go back to both pools.
	for _, body := range []string{`{"nblocks":3}`, `{"nblocks":"x"}`, `{}`, `{"nblocks":1}`} {
		ask(false, "/pop_blocks", body)
		call("get_last_block_header", `{}`)
		ask(false, "/get_transaction_pool_hashes", `{}`)
		ask(false, "/json_rpc", rpcBody("get_info", `{}`), own...)
	}
	ask(false, "/pop_blocks", `{"nblocks":100000}`) // down to the genesis block, which stays
	call("get_last_block_header", `{}`)
	// Known difference, the pool's (txpool): monerod keeps every
	// transaction of the popped blocks even when its ring members went
	// with them (kept_by_block skips the input checks); gonero's pool
	// keeps only those still valid on the chain left.
	ask(false, "/json_rpc", rpcBody("get_info", `{}`), append(own, "tx_pool_size")...)

	// stop_daemon last: both stop.
	ask(true, "/stop_daemon", `{}`)
	ask(false, "/stop_daemon", `{}`)
	select {
	case <-g.stopped:
	case <-time.After(10 * time.Second):
		t.Fatal("gonero's stop callback was not called")
	}
	t.Logf("%d requests asked of both nodes; the answers agree", asked)
}
