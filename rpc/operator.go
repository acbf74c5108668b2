package rpc

import (
	"log/slog"
	"math"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gonero/gonero/epeejson"
	"github.com/gonero/gonero/httpd"
	"github.com/gonero/gonero/peerinfo"
	"github.com/gonero/gonero/rpctypes"
)

// The operator and explorer endpoints: peers, bans, limits, logging, the
// chain's maintenance (pop_blocks, save_bc, prune_blockchain), stopping the
// node, and the RPC-payment methods, answered as monerod v0.18.0.0 answers
// them without RPC payments, without a bootstrap daemon and without
// network access for updates (core_rpc_server.cpp).

// operatorEndpoints are the operator methods and paths (endpoints.go).
func operatorEndpoints() []endpoint {
	return []endpoint{
		{names: []string{"sync_info"}, access: accessRefused, method: syncInfo},
		{names: []string{"get_bans"}, access: accessRefused, method: getBans, noClient: true},
		{names: []string{"set_bans"}, access: accessRefused, method: setBans, noClient: true, deepParams: true},
		{names: []string{"banned"}, access: accessRefused, method: banned, noClient: true},
		{names: []string{"flush_cache"}, access: accessRefused, method: flushCache, noClient: true},
		{names: []string{"prune_blockchain"}, access: accessRefused, method: pruneBlockchain, noClient: true},
		{names: []string{"rpc_access_info"}, access: accessPublic, method: rpcAccessInfo},
		{names: []string{"rpc_access_submit_nonce"}, access: accessPublic, method: rpcAccessSubmitNonce},
		{names: []string{"rpc_access_pay"}, access: accessPublic, method: rpcAccessPay},
		{names: []string{"rpc_access_tracking"}, access: accessRefused, method: rpcAccessTracking, noClient: true},
		{names: []string{"rpc_access_data"}, access: accessRefused, method: rpcAccessData, noClient: true},
		{names: []string{"rpc_access_account"}, access: accessRefused, method: rpcAccessAccount},

		{names: []string{"/get_peer_list"}, access: accessRefused, path: (*Server).serveGetPeerList},
		{names: []string{"/get_public_nodes"}, access: accessPublic, path: (*Server).serveGetPublicNodes},
		{names: []string{"/get_net_stats"}, access: accessRefused, path: (*Server).serveGetNetStats},
		{names: []string{"/get_limit"}, access: accessPublic, path: (*Server).serveGetLimit},
		{names: []string{"/set_limit"}, access: accessRefused, path: (*Server).serveSetLimit},
		{names: []string{"/out_peers"}, access: accessRefused, path: (*Server).serveOutPeers},
		{names: []string{"/in_peers"}, access: accessRefused, path: (*Server).serveInPeers},
		{names: []string{"/set_log_level"}, access: accessRefused, path: (*Server).serveSetLogLevel},
		{names: []string{"/set_log_categories"}, access: accessRefused, path: (*Server).serveSetLogCategories},
		{names: []string{"/set_log_hash_rate"}, access: accessRefused, path: (*Server).serveSetLogHashRate},
		{names: []string{"/save_bc"}, access: accessRefused, path: (*Server).serveSaveBC},
		{names: []string{"/pop_blocks"}, access: accessRefused, path: (*Server).servePopBlocks},
		{names: []string{"/stop_daemon"}, access: accessRefused, path: (*Server).serveStopDaemon},
		{names: []string{"/set_bootstrap_daemon"}, access: accessRefused, path: (*Server).serveSetBootstrapDaemon},
		{names: []string{"/update"}, access: accessRefused, path: (*Server).serveUpdate},
	}
}

// operatorState is what the operator endpoints keep in the server.
type operatorState struct {
	// stop asks the node to shut down (Config.Stop); stopOnce calls it once.
	stop     func()
	stopOnce sync.Once
	// logLevel is the node's log level (Config.LogLevel; nil: not adjustable).
	logLevel *slog.LevelVar
	// pruner is Config.Pruner (nil: the store cannot be pruned).
	pruner Pruner
	// The P2P rate limits in kB/s, kept here only when the Peers do not
	// apply them (RateLimits): a node without P2P reports them as monerod
	// does.
	limitUp, limitDown atomic.Int64

	mu         sync.Mutex
	categories string // monerod's log categories, as last set
	tracker    map[string]*trackEntry
}

type trackEntry struct{ count, nanos, credits uint64 }

func (o *operatorState) init(cfg *Config) {
	o.stop, o.logLevel = cfg.Stop, cfg.LogLevel
	o.pruner = cfg.Pruner
	o.limitUp.Store(defaultLimitUp)
	o.limitDown.Store(defaultLimitDown)
	o.tracker = map[string]*trackEntry{}
}

// track records one call of an endpoint under monerod's RPC_TRACKER name
// (rpc_access_tracking), with the credits monerod's payment check charges
// for it even when payments are off.
func (s *Server) track(endpoint string, began time.Time) {
	name, ok := trackerNames[endpoint]
	if !ok {
		return
	}
	o := &s.ops
	o.mu.Lock()
	defer o.mu.Unlock()
	e := o.tracker[name]
	if e == nil {
		e = &trackEntry{}
		o.tracker[name] = e
	}
	e.count++
	e.nanos += uint64(time.Since(began))
	e.credits += trackerCosts[name]
	if name == "get_public_nodes" {
		// on_get_public_nodes calls on_get_peer_list, which tracks itself.
		s.ops.addTrack("get_peer_list")
	}
}

func (o *operatorState) addTrack(name string) {
	e := o.tracker[name]
	if e == nil {
		e = &trackEntry{}
		o.tracker[name] = e
	}
	e.count++
}

// trackerNames maps every path and method to monerod's tracker name;
// endpoints monerod does not track (/get_alt_blocks_hashes,
// /set_bootstrap_daemon, banned, get_miner_data) are absent, and the
// JSON-RPC get_info is tracked by the on_get_info it calls.
var trackerNames = map[string]string{
	"/get_height": "get_height", "/getheight": "get_height",
	"/get_blocks.bin": "get_blocks", "/getblocks.bin": "get_blocks",
	"/get_blocks_by_height.bin": "get_blocks_by_height", "/getblocks_by_height.bin": "get_blocks_by_height",
	"/get_hashes.bin": "get_hashes", "/gethashes.bin": "get_hashes",
	"/get_o_indexes.bin": "get_indexes", "/get_outs.bin": "get_outs_bin",
	"/get_transactions": "get_transactions", "/gettransactions": "get_transactions",
	"/is_key_image_spent":   "is_key_image_spent",
	"/send_raw_transaction": "send_raw_tx", "/sendrawtransaction": "send_raw_tx",
	"/start_mining": "start_mining", "/stop_mining": "stop_mining", "/mining_status": "mining_status",
	"/save_bc": "save_bc", "/get_peer_list": "get_peer_list", "/get_public_nodes": "get_public_nodes",
	"/set_log_hash_rate": "set_log_hash_rate", "/set_log_level": "set_log_level",
	"/set_log_categories": "set_log_categories", "/get_transaction_pool": "get_transaction_pool",
	"/get_transaction_pool_hashes.bin": "get_transaction_pool_hashes",
	"/get_transaction_pool_hashes":     "get_transaction_pool_hashes",
	"/get_transaction_pool_stats":      "get_transaction_pool_stats",
	"/stop_daemon":                     "stop_daemon", "/get_info": "get_info", "/getinfo": "get_info",
	"/get_net_stats": "get_net_stats", "/get_limit": "get_limit", "/set_limit": "set_limit",
	"/out_peers": "out_peers", "/in_peers": "in_peers", "/get_outs": "get_outs", "/update": "update",
	"/get_output_distribution.bin": "get_output_distribution_bin", "/pop_blocks": "pop_blocks",
	"get_block_count": "getblockcount", "getblockcount": "getblockcount",
	"on_get_block_hash": "getblockhash", "on_getblockhash": "getblockhash",
	"get_block_template": "getblocktemplate", "getblocktemplate": "getblocktemplate",
	"calc_pow": "calcpow", "add_aux_pow": "add_aux_pow", "submit_block": "submitblock", "submitblock": "submitblock",
	"generateblocks":        "generateblocks",
	"get_last_block_header": "get_last_block_header", "getlastblockheader": "get_last_block_header",
	"get_block_header_by_hash": "get_block_header_by_hash", "getblockheaderbyhash": "get_block_header_by_hash",
	"get_block_header_by_height": "get_block_header_by_height", "getblockheaderbyheight": "get_block_header_by_height",
	"get_block_headers_range": "get_block_headers_range", "getblockheadersrange": "get_block_headers_range",
	"get_block": "get_block", "getblock": "get_block", "get_connections": "get_connections",
	"get_info": "get_info", "hard_fork_info": "hard_fork_info", "set_bans": "set_bans", "get_bans": "get_bans",
	"flush_txpool": "flush_txpool", "get_output_histogram": "get_output_histogram", "get_version": "get_version",
	"get_coinbase_tx_sum": "get_coinbase_tx_sum", "get_fee_estimate": "get_base_fee_estimate",
	"get_alternate_chains": "get_alternate_chains", "relay_tx": "relay_tx", "sync_info": "sync_info",
	"get_txpool_backlog": "get_txpool_backlog", "get_output_distribution": "get_output_distribution",
	"prune_blockchain": "prune_blockchain", "flush_cache": "flush_cache", "rpc_access_info": "rpc_access_info",
	"rpc_access_submit_nonce": "rpc_access_submit_nonce", "rpc_access_pay": "rpc_access_pay",
	"rpc_access_tracking": "rpc_access_tracking", "rpc_access_data": "rpc_access_data",
	"rpc_access_account": "rpc_access_account",
}

// trackerCosts are the credits monerod's CHECK_PAYMENT macros charge a
// call whose cost does not depend on the request (rpc_payment_costs.h;
// the MIN1 variants charge at least 1, and a fractional cost is cut to an
// integer first). Calls whose cost depends on the request (blocks, outputs,
// transactions by count) are counted with no credits.
var trackerCosts = map[string]uint64{
	"get_info": 1, "sync_info": 2, "hard_fork_info": 1, "get_base_fee_estimate": 1,
	"get_last_block_header": 1, "get_block_header_by_hash": 1, "get_block_header_by_height": 1,
	"get_block": 1, "get_indexes": 1, "send_raw_tx": 100, "get_transaction_pool_stats": 1,
}

// okAnswer writes the members of an rpc_response_base answer around more.
func okAnswer(status string, more func(w *epeejson.Writer)) func(*epeejson.Writer) {
	return func(w *epeejson.Writer) {
		w.BeginObject()
		if more != nil {
			more(w)
		}
		w.KeyString("status", status)
		writeUntrusted(w)
		w.EndObject()
	}
}

// plainAnswer serves a plain-path answer written by write.
func plainAnswer(write func(*epeejson.Writer)) httpd.Response {
	w := epeejson.NewWriter(make([]byte, 0, 256))
	write(w)
	return jsonResponse(w)
}

// --- JSON-RPC methods ---

func syncInfo(c *call) (func(*epeejson.Writer), *Error) {
	s := c.server
	height := s.chain.Height()
	peers := s.peers.Connections()
	target := s.peers.TargetHeight()
	seed := s.nextNeededPruningSeed(height, peers)
	// A node without a block queue shows monerod's answer for an empty one.
	var spans []peerinfo.SyncSpan
	overview := "[]"
	if q, ok := s.peers.(SyncQueue); ok {
		spans, overview = q.SyncSpans(height)
	}
	res := &rpctypes.SyncInfoResponse{Height: height, NextNeededPruningSeed: seed, Overview: overview, TargetHeight: target}
	for _, info := range connectionInfos(peers) {
		res.Peers = append(res.Peers, rpctypes.SyncPeer{Info: info})
	}
	for _, sp := range spans {
		res.Spans = append(res.Spans, rpctypes.SyncSpan{ConnectionID: sp.ConnectionID, NBlocks: sp.NBlocks, Rate: sp.Rate,
			RemoteAddress: sp.RemoteAddress, Size: sp.Size, Speed: sp.Speed, StartBlockHeight: sp.StartBlockHeight})
	}
	return res.Write, nil
}

// SyncQueue is what a P2P node with a block queue adds to Peers: the
// queue's spans and overview (block_queue::get_overview) for a chain of
// height blocks.
type SyncQueue interface {
	SyncSpans(height uint64) ([]peerinfo.SyncSpan, string)
}

// coreTargeter is what a P2P node adds to Peers for the pruning seed:
// monerod's core target height (0: unknown), which stays 0 while no peer
// announced a chain above this node's.
type coreTargeter interface {
	CoreTargetHeight() uint64
}

// nextNeededPruningSeed is cryptonote_protocol_handler's
// get_next_needed_pruning_stripe().second: the stripe of the next block
// the node wants (none near the tip of the core target, the chain taken as
// endless while the target is 0: with no peer, and with peers none of
// which was ever ahead), or the one after it when enough synchronizing
// peers already serve that stripe and few the next. A node without
// coreTargeter takes its peers' highest height as the target.
func (s *Server) nextNeededPruningSeed(height uint64, conns []peerinfo.Connection) uint32 {
	target := uint64(0)
	if ct, ok := s.peers.(coreTargeter); ok {
		target = ct.CoreTargetHeight()
	} else {
		for i := range conns {
			target = max(target, conns[i].Height)
		}
	}
	if target == 0 {
		target = maxBlockNumber
	}
	next := pruningStripe(height, target)
	if next == 0 {
		return 0
	}
	subsequent := 1 + next%(1<<pruningLogStripes)
	var nNext, nSubsequent uint64
	for i := range conns {
		if conns[i].State == "before_handshake" {
			continue
		}
		switch st := seedStripe(uint32(conns[i].PruningSeed)); {
		case st == 0 || st == next:
			nNext++
		case st == subsequent:
			nSubsequent++
		}
	}
	maxOut, _ := s.peers.MaxPeers()
	if (nNext > uint64(maxOut)/2 && nSubsequent <= 1) || (nNext > 2 && nSubsequent == 0) {
		return subsequent
	}
	return next
}

func getBans(c *call) (func(*epeejson.Writer), *Error) {
	now := time.Now()
	bans := c.server.peers.Bans(now)
	res := &rpctypes.GetBansResponse{}
	for _, b := range bans {
		var host string
		var ip uint32
		if b.Prefix.IsSingleIP() {
			host = b.Prefix.Addr().String()
			if b.Prefix.Addr().Is4() {
				ip = rpctypes.IPv4ToEpee(b.Prefix.Addr())
			}
		} else {
			host = b.Prefix.String()
		}
		res.Bans = append(res.Bans, rpctypes.BanInfo{Host: host, IP: ip, Seconds: uint32(b.Until.Unix() - now.Unix())})
	}
	return res.Write, nil
}

// banUntil is now plus seconds, in whole seconds as monerod's time_t.
func banUntil(now time.Time, seconds uint32) time.Time {
	return time.Unix(now.Unix()+int64(seconds), 0)
}

func setBans(c *call) (func(*epeejson.Writer), *Error) {
	req, e := rpctypes.ParseSetBansRequest(c.params)
	if e != nil {
		return nil, e
	}
	peers := c.server.peers
	now := time.Now()
	// Entries are applied in order, and an entry monerod cannot read stops
	// the loop with the earlier ones applied, as monerod's does.
	for _, b := range req.Bans {
		var p netip.Prefix
		switch subnet, isSubnet := parseSubnet(b.Host); {
		case b.Host != "" && isSubnet:
			p = subnet
		case b.Host != "":
			a, ok := parseHost(b.Host)
			if !ok {
				return nil, &Error{Code: codeWrongParam, Message: "Unsupported host/subnet type"}
			}
			p = netip.PrefixFrom(a, a.BitLen())
		case b.IP == 0:
			// Since 0.18.4: an entry with neither host nor ip no longer
			// bans 0.0.0.0.
			return nil, &Error{Code: codeWrongParam, Message: "No ip/host supplied"}
		default:
			p = netip.PrefixFrom(rpctypes.IPv4FromEpee(b.IP), 32)
		}
		if b.Ban {
			peers.Ban(p, banUntil(now, b.Seconds))
		} else {
			peers.Unban(p)
		}
	}
	return okAnswer(statusOK, nil), nil
}

func banned(c *call) (func(*epeejson.Writer), *Error) {
	address, e := c.params.String("address")
	if e != nil {
		return nil, e
	}
	a, ok := parseHost(address)
	if !ok {
		return nil, &Error{Code: codeWrongParam, Message: "Unsupported host type"}
	}
	now := time.Now()
	until, isBanned := c.server.peers.BannedUntil(a, now)
	var seconds uint64
	if isBanned {
		seconds = uint64(uint32(until.Unix() - now.Unix()))
	}
	// COMMAND_RPC_BANNED's answer is not an rpc_response_base: no untrusted.
	return func(w *epeejson.Writer) {
		w.BeginObject()
		w.KeyBool("banned", isBanned)
		w.KeyUint("seconds", seconds)
		w.KeyString("status", statusOK)
		w.EndObject()
	}, nil
}

// flushCache: gonero keeps no cache of invalid blocks (monerod's), so
// there is nothing to flush; the request is still read as monerod reads it:
// since 0.18.4 it has bad_blocks alone (bad_txs, of any type, is ignored).
func flushCache(c *call) (func(*epeejson.Writer), *Error) {
	if _, e := c.params.Bool("bad_blocks"); e != nil {
		return nil, e
	}
	return okAnswer(statusOK, nil), nil
}

// pruneBlockchain is on_prune_blockchain: prune (or with check only check)
// the store, then report its seed. monerod's check logs what it finds wrong
// and still succeeds; so does this one. Without a Pruner, check answers for
// an unpruned chain and a prune fails with monerod's failed-prune error.
func pruneBlockchain(c *call) (func(*epeejson.Writer), *Error) {
	check, e := c.params.Bool("check")
	if e != nil {
		return nil, e
	}
	p := c.server.ops.pruner
	var seed uint32
	switch {
	case p == nil && !check:
		return nil, &Error{Code: codeInternalError, Message: "Failed to prune blockchain"}
	case p == nil:
	case check:
		var err error
		if seed, err = p.CheckPruning(); err != nil {
			c.server.log.Error("blockchain pruning check", "err", err)
		}
	default:
		var err error
		seed, err = p.Prune()
		c.server.forgetCachedAnswers()
		if err != nil {
			c.server.log.Error("prune_blockchain", "err", err)
			return nil, &Error{Code: codeInternalError, Message: "Failed to prune blockchain"}
		}
	}
	return okAnswer(statusOK, func(w *epeejson.Writer) {
		w.KeyBool("pruned", seed != 0)
		w.KeyUint("pruning_seed", uint64(seed))
	}), nil
}

func rpcAccessInfo(c *call) (func(*epeejson.Writer), *Error) {
	// Without RPC payments every figure is 0 and nothing is checked.
	return func(w *epeejson.Writer) {
		w.BeginObject()
		w.KeyUint("cookie", 0)
		writeCredits(w)
		w.KeyUint("credits_per_hash_found", 0)
		w.KeyUint("diff", 0)
		w.KeyString("hashing_blob", "")
		w.KeyUint("height", 0)
		w.KeyString("next_seed_hash", "")
		w.KeyString("seed_hash", "")
		w.KeyUint("seed_height", 0)
		writeStatusTail(w, statusOK)
		writeUntrusted(w)
		w.EndObject()
	}, nil
}

// paymentNotNecessary is the answer of rpc_access_submit_nonce and
// rpc_access_pay on a node without RPC payments.
func paymentNotNecessary(w *epeejson.Writer) {
	w.BeginObject()
	writeCredits(w)
	writeStatusTail(w, "Payment not necessary")
	writeUntrusted(w)
	w.EndObject()
}

func rpcAccessSubmitNonce(c *call) (func(*epeejson.Writer), *Error) {
	for _, name := range []string{"nonce", "cookie"} {
		if _, e := c.params.Unsigned(name, 0, math.MaxUint32); e != nil {
			return nil, e
		}
	}
	return paymentNotNecessary, nil
}

func rpcAccessPay(c *call) (func(*epeejson.Writer), *Error) {
	if _, e := c.params.String("paying_for"); e != nil {
		return nil, e
	}
	if _, e := c.params.Uint64("payment"); e != nil {
		return nil, e
	}
	return paymentNotNecessary, nil
}

func rpcAccessTracking(c *call) (func(*epeejson.Writer), *Error) {
	wipe, e := c.params.Bool("clear")
	if e != nil {
		return nil, e
	}
	o := &c.server.ops
	if wipe {
		o.mu.Lock()
		clear(o.tracker)
		o.mu.Unlock()
		return okAnswer(statusOK, nil), nil
	}
	type row struct {
		rpc string
		trackEntry
	}
	o.mu.Lock()
	rows := make([]row, 0, len(o.tracker))
	for name, e := range o.tracker {
		rows = append(rows, row{name, *e})
	}
	o.mu.Unlock()
	// monerod lists its unordered_map in hash order; gonero by name.
	slices.SortFunc(rows, func(a, b row) int { return strings.Compare(a.rpc, b.rpc) })
	return okAnswer(statusOK, func(w *epeejson.Writer) {
		rpctypes.WriteList(w, "data", rows, func(r *row, w *epeejson.Writer) {
			w.BeginObject()
			w.KeyUint("count", r.count)
			w.KeyUint("credits", r.credits)
			w.KeyString("rpc", r.rpc)
			// monerod counts CPU time-stamp ticks; gonero nanoseconds.
			w.KeyUint("time", r.nanos)
			w.EndObject()
		})
	}), nil
}

var errPaymentsNotEnabled = &Error{Code: -21, Message: "Payments not enabled"} // CORE_RPC_ERROR_CODE_PAYMENTS_NOT_ENABLED

func rpcAccessData(c *call) (func(*epeejson.Writer), *Error) {
	return nil, errPaymentsNotEnabled
}

func rpcAccessAccount(c *call) (func(*epeejson.Writer), *Error) {
	if _, e := c.params.Signed("delta_balance", 0, math.MinInt64, math.MaxInt64); e != nil {
		return nil, e
	}
	return nil, errPaymentsNotEnabled
}

// --- plain paths ---

// servePeerLists reads the peer lists /get_peer_list reports: without
// include_blocked, entries of banned hosts are left out; with publicOnly
// (public_only, true unless given) the Tor and I2P zones' entries too.
func (s *Server) peerLists(includeBlocked, publicOnly bool) (white, grey []peerinfo.PeerEntry) {
	white, grey = s.peers.PeerLists()
	now := time.Now()
	keep := func(list []peerinfo.PeerEntry) []peerinfo.PeerEntry {
		return slices.DeleteFunc(list, func(e peerinfo.PeerEntry) bool {
			if e.Host != "" {
				return publicOnly
			}
			if includeBlocked {
				return false
			}
			_, b := s.peers.BannedUntil(e.Addr.Addr(), now)
			return b
		})
	}
	return keep(white), keep(grey)
}

func (s *Server) serveGetPeerList(req *httpd.Request) httpd.Response {
	p, ok := rpctypes.PathParams(req.Body)
	if !ok {
		return badRequest()
	}
	publicOnly, e := p.BoolOr("public_only", true)
	if e != nil {
		return badRequest()
	}
	includeBlocked, e := p.Bool("include_blocked")
	if e != nil {
		return badRequest()
	}
	white, grey := s.peerLists(includeBlocked, publicOnly)
	return plainAnswer(func(w *epeejson.Writer) {
		w.BeginObject()
		rpctypes.WriteList(w, "gray_list", grey, rpctypes.WritePeer)
		w.KeyString("status", statusOK)
		writeUntrusted(w)
		rpctypes.WriteList(w, "white_list", white, rpctypes.WritePeer)
		w.EndObject()
	})
}

func (s *Server) serveGetPublicNodes(req *httpd.Request) httpd.Response {
	p, ok := rpctypes.PathParams(req.Body)
	if !ok {
		return badRequest()
	}
	gray, e := p.Bool("gray")
	if e != nil {
		return badRequest()
	}
	white, e := p.BoolOr("white", true)
	if e != nil {
		return badRequest()
	}
	includeBlocked, e := p.Bool("include_blocked")
	if e != nil {
		return badRequest()
	}
	// The lists are bounded by P2P's peer store (some thousands of
	// entries): claimed from its sizes before they are copied.
	_, _, nWhite, nGrey := s.peers.Counts()
	if claim := (answerClaim{req: req}); !claim.addItems(nWhite+nGrey, publicNodeBytes) {
		return s.busyAnswer(req)
	}
	wl, gl := s.peerLists(includeBlocked, true)
	public := func(list []peerinfo.PeerEntry, want bool) []peerinfo.PeerEntry {
		if !want {
			return nil
		}
		return slices.DeleteFunc(list, func(e peerinfo.PeerEntry) bool { return e.RPCPort == 0 })
	}
	wl, gl = public(wl, white), public(gl, gray)
	return plainAnswer(func(w *epeejson.Writer) {
		w.BeginObject()
		rpctypes.WriteList(w, "gray", gl, rpctypes.WritePublicNode)
		w.KeyString("status", statusOK)
		writeUntrusted(w)
		rpctypes.WriteList(w, "white", wl, rpctypes.WritePublicNode)
		w.EndObject()
	})
}

func (s *Server) serveGetNetStats(req *httpd.Request) httpd.Response {
	if _, ok := rpctypes.PathParams(req.Body); !ok {
		return badRequest()
	}
	pin, bin, pout, bout := s.peers.Traffic()
	res := &rpctypes.GetNetStatsResponse{StartTime: uint64(s.started.Unix()), TotalBytesIn: bin, TotalBytesOut: bout,
		TotalPacketsIn: pin, TotalPacketsOut: pout}
	return plainAnswer(res.Write)
}

func (s *Server) serveGetLimit(req *httpd.Request) httpd.Response {
	if _, ok := rpctypes.PathParams(req.Body); !ok {
		return badRequest()
	}
	down, up := s.ops.limitDown.Load(), s.ops.limitUp.Load()
	if rl, ok := s.peers.(RateLimits); ok {
		up, down = rl.RateLimits()
	}
	res := &rpctypes.GetLimitResponse{LimitDown: down, LimitUp: up, Status: statusOK}
	return plainAnswer(res.Write)
}

// serveSetLimit: a positive limit is set, 0 leaves it, -1 restores the
// default; another negative value stops with "Invalid parameter" (and
// limits of 0 in the answer) after the download limit may already have
// been applied, as in monerod.
func (s *Server) serveSetLimit(req *httpd.Request) httpd.Response {
	p, ok := rpctypes.PathParams(req.Body)
	if !ok {
		return badRequest()
	}
	down, e := p.Signed("limit_down", 0, math.MinInt64, math.MaxInt64)
	if e != nil {
		return badRequest()
	}
	up, e := p.Signed("limit_up", 0, math.MinInt64, math.MaxInt64)
	if e != nil {
		return badRequest()
	}
	rl, live := s.peers.(RateLimits)
	apply := func(v int64, limit *atomic.Int64, def int64, set func(int64)) bool {
		switch {
		case v > 0:
			limit.Store(v)
		case v == -1:
			limit.Store(def)
		case v < 0:
			return false
		default:
			return true
		}
		if live {
			set(v)
		}
		return true
	}
	setDown := func(v int64) { rl.SetRateLimits(0, v) }
	setUp := func(v int64) { rl.SetRateLimits(v, 0) }
	if !apply(down, &s.ops.limitDown, defaultLimitDown, setDown) || !apply(up, &s.ops.limitUp, defaultLimitUp, setUp) {
		res := &rpctypes.GetLimitResponse{Status: "Invalid parameter"}
		return plainAnswer(res.Write)
	}
	return s.serveGetLimit(&httpd.Request{})
}

// servePeerLimit is /out_peers and /in_peers: with set (the default) the
// limit becomes the request's (0 if absent), and connections above it are
// closed; the answer is the limit as monerod's uint32_t holds it (an
// unlimited -1 reads 4294967295).
func (s *Server) servePeerLimit(req *httpd.Request, name string, out bool) httpd.Response {
	p, ok := rpctypes.PathParams(req.Body)
	if !ok {
		return badRequest()
	}
	set, e := p.BoolOr("set", true)
	if e != nil {
		return badRequest()
	}
	n, e := p.Unsigned(name, 0, math.MaxUint32)
	if e != nil {
		return badRequest()
	}
	if set {
		if out {
			s.peers.SetMaxPeers(int64(n), -1)
		} else {
			s.peers.SetMaxPeers(-1, int64(n))
		}
	}
	maxOut, maxIn := s.peers.MaxPeers()
	v := maxIn
	if out {
		v = maxOut
	}
	return plainAnswer(func(w *epeejson.Writer) {
		w.BeginObject()
		w.KeyUint(name, uint64(uint32(v)))
		w.KeyString("status", statusOK)
		writeUntrusted(w)
		w.EndObject()
	})
}

func (s *Server) serveOutPeers(req *httpd.Request) httpd.Response {
	return s.servePeerLimit(req, "out_peers", true)
}

func (s *Server) serveInPeers(req *httpd.Request) httpd.Response {
	return s.servePeerLimit(req, "in_peers", false)
}

// slogLevels maps monerod's log levels 0-4 to the node's: 0 warnings and
// errors, 1 information, 2 debugging, 3 and 4 (monerod's trace levels)
// below debugging.
var slogLevels = [...]slog.Level{slog.LevelWarn, slog.LevelInfo, slog.LevelDebug, slog.LevelDebug - 4, slog.LevelDebug - 8}

// setLogLevel applies a numeric monerod log level to the node's logger.
func (s *Server) setLogLevel(level int) {
	if s.ops.logLevel != nil && level >= 0 && level < len(slogLevels) {
		s.ops.logLevel.Set(slogLevels[level])
	}
}

func (s *Server) serveSetLogLevel(req *httpd.Request) httpd.Response {
	p, ok := rpctypes.PathParams(req.Body)
	if !ok {
		return badRequest()
	}
	level, e := p.Signed("level", 0, math.MinInt8, math.MaxInt8)
	if e != nil {
		return badRequest()
	}
	if level < 0 || level > 4 {
		return plainAnswer(okAnswer("Error: log level not valid", nil))
	}
	s.ops.mu.Lock()
	s.ops.categories = nextCategories(s.ops.categories, logLevelCategories[level])
	s.ops.mu.Unlock()
	s.setLogLevel(int(level))
	return plainAnswer(okAnswer(statusOK, nil))
}

// serveSetLogCategories keeps monerod's category string (gonero's logger
// has one level, which a numeric level in the string sets; the categories
// themselves select nothing).
func (s *Server) serveSetLogCategories(req *httpd.Request) httpd.Response {
	p, ok := rpctypes.PathParams(req.Body)
	if !ok {
		return badRequest()
	}
	spec, e := p.String("categories")
	if e != nil {
		return badRequest()
	}
	s.ops.mu.Lock()
	cats, level := setLogSpec(s.ops.categories, spec)
	s.ops.categories = cats
	s.ops.mu.Unlock()
	s.setLogLevel(level)
	return plainAnswer(okAnswer(statusOK, func(w *epeejson.Writer) { w.KeyString("categories", cats) }))
}

// serveSetLogHashRate: gonero's miner logs no periodic hash rate, so while
// it mines the flag is accepted and changes nothing.
func (s *Server) serveSetLogHashRate(req *httpd.Request) httpd.Response {
	p, ok := rpctypes.PathParams(req.Body)
	if !ok {
		return badRequest()
	}
	if _, e := p.Bool("visible"); e != nil {
		return badRequest()
	}
	status := "NOT MINING"
	if s.miner != nil && s.miner.Running() {
		status = statusOK
	}
	return plainAnswer(okAnswer(status, nil))
}

// serveSaveBC: every bbolt commit is already synced to disk.
func (s *Server) serveSaveBC(req *httpd.Request) httpd.Response {
	if _, ok := rpctypes.PathParams(req.Body); !ok {
		return badRequest()
	}
	return plainAnswer(okAnswer(statusOK, nil))
}

func (s *Server) servePopBlocks(req *httpd.Request) httpd.Response {
	p, ok := rpctypes.PathParams(req.Body)
	if !ok {
		return badRequest()
	}
	n, e := p.Uint64("nblocks")
	if e != nil {
		return badRequest()
	}
	if _, err := s.chain.PopBlocks(n); err != nil {
		// monerod logs the failure and still answers OK with the height.
		s.log.Error("pop_blocks", "err", err)
	}
	height := s.chain.Height()
	return plainAnswer(okAnswer(statusOK, func(w *epeejson.Writer) { w.KeyUint("height", height) }))
}

// serveStopDaemon asks the node to stop, once the answer is on its way.
func (s *Server) serveStopDaemon(req *httpd.Request) httpd.Response {
	if _, ok := rpctypes.PathParams(req.Body); !ok {
		return badRequest()
	}
	if s.ops.stop == nil {
		return plainAnswer(okAnswer("Error: this server has no node to stop", nil))
	}
	s.ops.stopOnce.Do(func() { go s.ops.stop() })
	return plainAnswer(okAnswer(statusOK, nil))
}

// serveSetBootstrapDaemon: gonero has no bootstrap daemon. Clearing it
// (an empty address) is what monerod does and succeeds; setting one fails
// with monerod's status for a bootstrap daemon it could not set.
func (s *Server) serveSetBootstrapDaemon(req *httpd.Request) httpd.Response {
	p, ok := rpctypes.PathParams(req.Body)
	if !ok {
		return badRequest()
	}
	var address string
	for _, name := range []string{"address", "username", "password", "proxy"} {
		v, e := p.String(name)
		if e != nil {
			return badRequest()
		}
		if name == "address" {
			address = v
		}
	}
	status := statusOK
	if address != "" {
		status = "Failed to set bootstrap daemon"
	}
	// COMMAND_RPC_SET_BOOTSTRAP_DAEMON's answer holds the status alone.
	return plainAnswer(func(w *epeejson.Writer) {
		w.BeginObject()
		w.KeyString("status", status)
		w.EndObject()
	})
}

// serveUpdate: gonerod never phones home. Offline it answers as monerod
// does; online, a known command gets monerod's answer for an update check
// that could not reach the network.
func (s *Server) serveUpdate(req *httpd.Request) httpd.Response {
	p, ok := rpctypes.PathParams(req.Body)
	if !ok {
		return badRequest()
	}
	command, e := p.String("command")
	if e != nil {
		return badRequest()
	}
	if _, e := p.String("path"); e != nil {
		return badRequest()
	}
	status := "Error checking for updates"
	switch {
	case s.peers.Offline():
		status = "Daemon is running offline"
	case command != "check" && command != "download" && command != "update":
		status = "unknown command: '" + command + "'"
	}
	return plainAnswer(func(w *epeejson.Writer) {
		w.BeginObject()
		w.KeyString("auto_uri", "")
		w.KeyString("hash", "")
		w.KeyString("path", "")
		w.KeyString("status", status)
		writeUntrusted(w)
		w.KeyBool("update", false)
		w.KeyString("user_uri", "")
		w.KeyString("version", "")
		w.EndObject()
	})
}
