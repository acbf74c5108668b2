package ringct

import (
	"sync"

	"github.com/oasisprotocol/curve25519-voi/curve"
)

// keyPoints is what a ring signature needs of a ring member's output key
// besides its bytes: the decoded point P and Hp(P). Both are functions of
// the 32 bytes alone, so a cache keyed by the bytes cannot go stale. The
// points are shared: nobody may modify them.
type keyPoints struct {
	p, hp *curve.EdwardsPoint
}

// keyCacheSize bounds the cache: two generations of half this many keys
// (about 450 bytes each), the older dropped when the newer fills.
const keyCacheSize = 1 << 15

// keyCache remembers keyPoints of the ring members seen last: an output is
// a decoy in many rings (wallets pick recent outputs more often), so a
// block's rings, and those of the blocks around it, share many keys.
type keyCache struct {
	mu       sync.Mutex
	cur, old map[[32]byte]keyPoints
}

var ringKeys keyCache

func (c *keyCache) get(k [32]byte) (keyPoints, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if v, ok := c.cur[k]; ok {
		return v, true
	}
	v, ok := c.old[k]
	if ok {
		c.add(k, v) // still in use: keep it past the next turn
	}
	return v, ok
}

func (c *keyCache) put(k [32]byte, v keyPoints) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.add(k, v)
}

func (c *keyCache) add(k [32]byte, v keyPoints) {
	if c.cur == nil {
		c.cur = make(map[[32]byte]keyPoints)
	}
	if len(c.cur) >= keyCacheSize/2 {
		c.old, c.cur = c.cur, make(map[[32]byte]keyPoints)
	}
	c.cur[k] = v
}
