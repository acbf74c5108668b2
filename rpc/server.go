// Package rpc is the node's JSON-RPC server: monerod v0.18's envelope and
// its block, header, connection and status methods, answered from the
// chain store. The HTTP front (routing, limits, auth, CORS) is package
// httpd; the JSON dialect is package epeejson.
package rpc

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/gonero/gonero/chain"
	"github.com/gonero/gonero/consensus"
	"github.com/gonero/gonero/cryptonote"
	"github.com/gonero/gonero/epeejson"
	"github.com/gonero/gonero/httpd"
	"github.com/gonero/gonero/internal/boundedcache"
	"github.com/gonero/gonero/miner"
	"github.com/gonero/gonero/params"
	"github.com/gonero/gonero/rpctypes"
	"github.com/gonero/gonero/txpool"
)

// GenerateBlocksExtraNonce is the extra nonce (miner.Options.ExtraNonce)
// of the miner that mines generateblocks' blocks as monerod does: its
// generateblocks asks for a template with reserve_size 1, one zero byte.
func GenerateBlocksExtraNonce() []byte { return []byte{0} }

// renderedBlockCacheBytes bounds the memory of rendered getblock answers;
// powCacheEntries the proof-of-work hashes kept.
const (
	renderedBlockCacheBytes = 64 << 20
	powCacheEntries         = 4096
)

// Config configures the RPC server.
type Config struct {
	Chain *chain.Chain
	Peers Peers // nil: NoPeers
	// Pool is the transaction pool sendrawtransaction adds to; nil: a node
	// without a pool refuses transactions.
	Pool *txpool.Pool
	// Miner mines generateblocks' blocks and the loop /start_mining starts
	// (with GenerateBlocksExtraNonce, as monerod's). It is required, and
	// its owner stops it: the server only uses it (gonerod shares it with
	// --start-mining, so that blocks are mined one at a time).
	Miner   *miner.Miner
	DataDir string // for get_info free_space
	Version string // get_info version
	// Listeners: the main one and, optionally, a second always-restricted
	// one (monerod --rpc-restricted-bind-port).
	Main       httpd.Config
	Restricted *httpd.Config
	Logger     *slog.Logger
	// LogLevel, if not nil, is the level of Logger, which /set_log_level
	// and /set_log_categories change.
	LogLevel *slog.LevelVar
	// Stop, if not nil, stops the node (/stop_daemon); it is called once,
	// on its own goroutine, after the answer is written.
	Stop func()
	// Instrument, if not nil, is asked once per endpoint at New (every
	// registered path, every JSON-RPC method name, aliases apart, and
	// "other" for what is none of them) for the function that hears each
	// request's duration. Binding the functions up front keeps the request
	// path free of label lookups and allocations; the set of names is
	// fixed, so no client can grow it.
	Instrument func(endpoint string) func(time.Duration)
	// Pruner, if not nil, prunes the node's store for prune_blockchain;
	// nil: a store that cannot be pruned (see pruneBlockchain).
	Pruner Pruner
	// DisableRPCBan is --disable-rpc-ban: failed requests never ban their
	// client (hostfail.go).
	DisableRPCBan bool
}

// Pruner is the node's store as prune_blockchain needs it (chaindb.DB
// through a small adapter in gonerod).
type Pruner interface {
	// Prune is core::prune_blockchain(0): prune with a random stripe if
	// unpruned, else bring the pruning up to date; it returns the seed.
	Prune() (seed uint32, err error)
	// CheckPruning is core::check_blockchain_pruning; it returns the seed.
	CheckPruning() (seed uint32, err error)
}

// Server answers RPC requests on one or two listeners.
type Server struct {
	chain   *chain.Chain
	store   chain.Viewer
	network params.Network
	peers   Peers
	pool    *txpool.Pool
	miner   *miner.Miner
	// miningCtx ends at Shutdown, so that a long generateblocks (a real
	// difficulty) does not hold the shutdown up.
	miningCtx  context.Context
	stopMining context.CancelFunc
	version    string
	started    time.Time
	disk       diskFacts
	log        *slog.Logger

	listeners []*httpd.Server
	mainHTTP  *httpd.Server
	restrHTTP *httpd.Server

	// cache holds rendered blocks by id (a block's blob, json and tx ids
	// depend on its id alone, so entries never go stale), bounded in bytes.
	cache *boundedcache.Cache[cryptonote.Hash, *renderedBlock]
	// pow remembers proof-of-work hashes (RandomX costs ~20 ms per
	// block), keyed by block id and seed id: a block's hash depends on
	// both, and the seed is the main chain's, which a reorganisation can
	// change.
	pow          *boundedcache.Cache[[2]cryptonote.Hash, [32]byte]
	ops          operatorState
	wsync        walletSync  // walletsync.go
	answers      answerCache // fastpath.go
	hostFails    hostFails   // hostfail.go
	heightAnswer atomic.Pointer[heightAnswer]
	timers       *endpointTimers // nil: not instrumented
	// sharedPartsOver is the answer size past which .bin block answers
	// share their block entries instead of copying them
	// (defaultSharedPartsOver; a test sets its own).
	sharedPartsOver int
}

// New builds the server and binds its listeners.
func New(cfg Config) (*Server, error) {
	if errEndpoints != nil {
		// An endpoint table is wrong (endpoints.go): serving it could open
		// an endpoint on a restricted listener.
		return nil, errEndpoints
	}
	if cfg.Peers == nil {
		cfg.Peers = NoPeers{}
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Miner == nil {
		return nil, errors.New("rpc: Config.Miner is required")
	}
	s := &Server{miner: cfg.Miner, pool: cfg.Pool,
		chain: cfg.Chain, store: cfg.Chain.Store(), network: cfg.Chain.Network(), peers: cfg.Peers,
		version: cfg.Version, started: time.Now(), disk: diskFacts{dir: cfg.DataDir}, log: cfg.Logger,
		sharedPartsOver: defaultSharedPartsOver,
	}
	s.hostFails.disabled = cfg.DisableRPCBan
	s.miningCtx, s.stopMining = context.WithCancel(context.Background())
	if cfg.Instrument != nil {
		s.timers = newEndpointTimers(cfg.Instrument)
	}
	s.ops.init(&cfg)
	s.cache = boundedcache.New[cryptonote.Hash](renderedBlockCacheBytes, renderedBlockCacheBytes/4, (*renderedBlock).size)
	s.pow = boundedcache.New[[2]cryptonote.Hash, [32]byte](powCacheEntries, 0, nil)
	routes := s.routes()
	add := func(c httpd.Config) (*httpd.Server, error) {
		if c.Logger == nil {
			c.Logger = cfg.Logger
		}
		if c.Busy == nil {
			c.Busy = s.busyAnswer // defences.go
		}
		h, err := httpd.New(c, routes)
		if err != nil {
			return nil, err
		}
		if err := h.Listen(); err != nil {
			for _, l := range s.listeners {
				_ = l.Shutdown(context.Background())
			}
			return nil, fmt.Errorf("rpc: listener %s: %w", c.Addr, err)
		}
		s.listeners = append(s.listeners, h)
		return h, nil
	}
	var err error
	if s.mainHTTP, err = add(cfg.Main); err != nil {
		return nil, err
	}
	if cfg.Restricted != nil {
		r := *cfg.Restricted
		r.Restricted = true
		if s.restrHTTP, err = add(r); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// Serve serves every listener until Shutdown; it returns the first error.
func (s *Server) Serve() error {
	errs := make(chan error, len(s.listeners))
	for _, l := range s.listeners {
		go func() { errs <- l.Serve() }()
	}
	var first error
	for range s.listeners {
		if err := <-errs; err != nil && first == nil {
			first = err
		}
	}
	return first
}

// Shutdown stops accepting and waits for in-flight requests. A
// generateblocks in progress gives up at its next nonce; a mining loop
// /start_mining began goes on until the miner's owner stops it.
func (s *Server) Shutdown(ctx context.Context) error {
	s.stopMining()
	var errs []error
	for _, l := range s.listeners {
		errs = append(errs, l.Shutdown(ctx))
	}
	return errors.Join(errs...)
}

// MainAddr and RestrictedAddr are the bound addresses (RestrictedAddr "" if none).
func (s *Server) MainAddr() string { return s.mainHTTP.Addr().String() }
func (s *Server) RestrictedAddr() string {
	if s.restrHTTP == nil {
		return ""
	}
	return s.restrHTTP.Addr().String()
}

// openConnections is get_info's rpc_connections_count: the open HTTP
// connections of the listener that serves the call.
func (s *Server) openConnections(restricted bool) int {
	if restricted && s.restrHTTP != nil {
		return s.restrHTTP.OpenConnections()
	}
	return s.mainHTTP.OpenConnections()
}

// servePlainInfo is GET /get_info: get_info's result without the envelope.
// A body, if any, is its request object; one that does not parse (or has a
// mistyped member) is a 400, as for monerod's other JSON endpoints.
func (s *Server) servePlainInfo(req *httpd.Request) httpd.Response {
	c := &call{server: s, restricted: req.Restricted}
	if len(bytes.TrimSpace(req.Body)) > 0 {
		v, err := epeejson.Parse(req.Body)
		if err != nil {
			return httpd.Response{Status: 400, ContentType: "text/plain"}
		}
		c.params = newParams(v, true)
		if _, e := c.params.String("client"); e != nil {
			return httpd.Response{Status: 400, ContentType: "text/plain"}
		}
	}
	res, e := getInfo(c)
	if e != nil {
		return httpd.Response{Status: 500, ContentType: "text/plain", Close: true}
	}
	w := epeejson.NewWriter(make([]byte, 0, 2048))
	res(w)
	return jsonResponse(w)
}

// serveHeight is GET /get_height: the chain height and top hash.
func (s *Server) serveHeight(req *httpd.Request) httpd.Response {
	top := s.chain.Top()
	// The answer changes with the top alone: rendered once per top.
	if a := s.heightAnswer.Load(); a != nil && a.top == top.Hash && a.height == top.Height {
		return httpd.Response{ContentType: "application/json", Body: a.body}
	}
	w := epeejson.NewWriter(make([]byte, 0, 256))
	res := rpctypes.GetHeightResponse{Hash: top.Hash.String(), Height: top.Height + 1}
	res.Write(w)
	s.heightAnswer.Store(&heightAnswer{top: top.Hash, height: top.Height, body: w.Bytes()})
	return jsonResponse(w)
}

// heightAnswer is /get_height's answer for one top block.
type heightAnswer struct {
	top    cryptonote.Hash
	height uint64
	body   []byte
}

// renderedBlock is what getblock serves for a block besides its header:
// immutable for a block id, so it is rendered once and cached.
type renderedBlock struct {
	blobHex  string
	json     string
	txHashes []string
}

func (r *renderedBlock) size() int { return len(r.blobHex) + len(r.json) + 64*len(r.txHashes) + 64 }

func (s *Server) renderBlock(b *blockAt) (*renderedBlock, *Error) {
	if r, ok := s.cache.Get(b.meta.Hash); ok {
		return r, nil
	}
	blk, err := cryptonote.ParseBlock(b.blob)
	if err != nil {
		s.log.Error("stored block does not parse", "hash", b.meta.Hash, "err", err)
		return nil, errInternal("can't produce valid response.")
	}
	if len(blk.MinerTx.Inputs) != 1 {
		return nil, errInternal("coinbase transaction in the block has the wrong type")
	}
	if _, ok := blk.MinerTx.Inputs[0].(cryptonote.TxInGen); !ok {
		return nil, errInternal("coinbase transaction in the block has the wrong type")
	}
	r := &renderedBlock{blobHex: hex.EncodeToString(b.blob), json: blk.MonerodJSON()}
	for _, h := range blk.TxHashes {
		r.txHashes = append(r.txHashes, h.String())
	}
	s.cache.Put(b.meta.Hash, r)
	return r, nil
}

// blockPoWHash computes a block's PoW hash (get_block_longhash).
func (s *Server) blockPoWHash(job *powJob) ([32]byte, error) {
	key := [2]cryptonote.Hash{job.id, job.seed}
	if h, ok := s.pow.Get(key); ok {
		return h, nil
	}
	hasher := s.chain.PoW()
	if hasher == nil {
		return [32]byte{}, errors.New("no proof-of-work hasher configured")
	}
	h, err := consensus.BlockPoWHash(hasher, job.height, job.major, job.seed, job.hashingBlob)
	if err != nil {
		return h, err
	}
	s.pow.Put(key, h)
	return h, nil
}

// infoEndpoints are the plain /get_info and /get_height (endpoints.go).
func infoEndpoints() []endpoint {
	return []endpoint{
		// Capped: private facts hidden (info.go).
		{names: []string{"/get_info", "/getinfo"}, access: accessCapped, path: (*Server).servePlainInfo},
		{names: []string{"/get_height", "/getheight"}, access: accessPublic, path: (*Server).serveHeight},
	}
}
