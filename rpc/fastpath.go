package rpc

import (
	"bytes"
	"encoding/binary"
	"sync"
	"time"

	"github.com/gonero/gonero/cryptonote"
	"github.com/gonero/gonero/epeejson"
	"github.com/gonero/gonero/httpd"
)

// Answers kept per request body. The block and header methods answer from
// the chain alone: for the same request body, on the same kind of
// listener, while the chain (its top, its height, its alternative blocks)
// and the node's synchronized flag stay the same, the answer is the same
// bytes. Explorers, pools and wallets ask the same questions over and over
// (the last block header, the recent blocks, with the same id), so such
// an answer is kept and served again without parsing, store reads or
// rendering, until the chain changes. A new block or a reorganisation
// changes the version and empties the store at the next put.
//
// Only cachedMethods are kept: get_info, get_connections, generateblocks
// and the pool's methods depend on more than the chain. Batches are not
// kept. /getblocks.bin is kept too (its answer in RPC 3.12 has no pool
// fields): every idle wallet asks the same "anything after my top?"
// question each refresh, and answers up to maxCachedAnswer bytes, which
// holds that question's answer, are kept. So is
// /get_output_distribution.bin, which every wallet asks before each
// transfer with the same body. Memory is bounded by answerCacheBytes (and by the request bodies
// that may be kept: at most maxCachedRequest bytes each); a full store is
// emptied, which costs a hostile client's flood of distinct requests only
// its own misses.
const (
	answerCacheBytes = 16 << 20
	maxCachedRequest = 1024
	maxCachedAnswer  = 256 << 10
)

// cachedMethods are the JSON-RPC methods whose answer depends only on the
// request and the answer version (see answerVersion).
var cachedMethods = map[string]bool{
	"getblockheaderbyheight": true, "get_block_header_by_height": true,
	"getblockheaderbyhash": true, "get_block_header_by_hash": true,
	"getblock": true, "get_block": true,
	"getlastblockheader": true, "get_last_block_header": true,
	"get_block_count": true, "getblockcount": true,
}

// answerVersion is what the cached answers depend on besides the request.
type answerVersion struct {
	top       cryptonote.Hash
	height    uint64
	altBlocks uint64
	synced    bool // getlastblockheader answers BUSY until synchronized
}

func (s *Server) answerVersion() answerVersion {
	next := s.chain.NextBlockFacts()
	return answerVersion{top: next.Top.Hash, height: next.Height, altBlocks: next.AltBlockCount, synced: s.peers.Synchronized()}
}

// cachedRoute says which endpoint a kept answer belongs to: the same body
// posted to another path asks something else.
type cachedRoute int

const (
	routeJSONRPC cachedRoute = iota
	routeGetBlocks
	routeDistribution
	numCachedRoutes
)

type answerCache struct {
	mu      sync.RWMutex
	version answerVersion
	bytes   int
	// by listener kind (restricted listeners answer some requests
	// differently), then by route
	m [2][numCachedRoutes]map[string]keptAnswer
}

// keptAnswer is a kept answer and, for a JSON-RPC one, the duration
// observer of its method (Config.Instrument), so that a request answered
// from here is still counted under its method without being parsed.
type keptAnswer struct {
	answer  []byte
	observe func(time.Duration)
	// timeAt, when not 0, is where the answer holds daemon_time (a
	// /getblocks.bin answer): the rest depends on the chain alone, that
	// field on the clock.
	timeAt int
}

// stampTime returns the answer with its daemon_time, if it has one, set
// to now (a copy: the kept answer is shared).
func (k keptAnswer) stampTime(now time.Time) []byte {
	if k.timeAt == 0 {
		return k.answer
	}
	out := bytes.Clone(k.answer)
	binary.LittleEndian.PutUint64(out[k.timeAt:], uint64(now.Unix()))
	return out
}

func restrictedIndex(restricted bool) int {
	if restricted {
		return 1
	}
	return 0
}

// get returns the kept answer to req's body, if any, for the current
// version. No allocation.
func (c *answerCache) get(v answerVersion, route cachedRoute, req *httpd.Request) ([]byte, bool) {
	kept, ok := c.getKept(v, route, req)
	return kept.answer, ok
}

// getKept is get with the answer's observer. No allocation.
func (c *answerCache) getKept(v answerVersion, route cachedRoute, req *httpd.Request) (keptAnswer, bool) {
	if len(req.Body) > maxCachedRequest {
		return keptAnswer{}, false
	}
	c.mu.RLock()
	defer c.mu.RUnlock()
	if c.version != v {
		return keptAnswer{}, false
	}
	kept, ok := c.m[restrictedIndex(req.Restricted)][route][string(req.Body)]
	return kept, ok
}

// putJSONRPC keeps a /json_rpc answer if the request was one of
// cachedMethods, with its method's observer.
func (c *answerCache) putJSONRPC(before, after answerVersion, req *httpd.Request, parsed epeejson.Value, answer []byte, observe func(time.Duration)) {
	mv, ok := parsed.Get("method")
	if !ok || mv.Kind != epeejson.KindString || !cachedMethods[mv.Str] {
		return
	}
	c.putKept(before, after, routeJSONRPC, req, keptAnswer{answer: answer, observe: observe})
}

// put keeps answer for req's body on route if the version did not change
// while it was answered.
func (c *answerCache) put(before, after answerVersion, route cachedRoute, req *httpd.Request, answer []byte) {
	c.putKept(before, after, route, req, keptAnswer{answer: answer})
}

func (c *answerCache) putKept(before, after answerVersion, route cachedRoute, req *httpd.Request, kept keptAnswer) {
	answer := kept.answer
	if before != after || len(req.Body) > maxCachedRequest || len(answer) > maxCachedAnswer {
		return
	}
	size := len(req.Body) + len(answer) + 64
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.version != after || c.bytes+size > answerCacheBytes || c.m[0][0] == nil {
		c.version, c.bytes = after, 0
		for i := range c.m {
			for j := range c.m[i] {
				c.m[i][j] = make(map[string]keptAnswer)
			}
		}
	}
	m := c.m[restrictedIndex(req.Restricted)][route]
	if _, dup := m[string(req.Body)]; dup {
		return
	}
	m[string(req.Body)] = kept
	c.bytes += size
}
