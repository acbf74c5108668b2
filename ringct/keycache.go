package ringct

import (
	"sync"

	"github.com/gonero/gonero/ringct/internal/msm"
)

// keyPoints is what a CLSAG needs of a ring member besides its bytes: the
// decoded output key P, Hp(P) and the decoded commitment C. All are
// functions of the member's 64 bytes alone, so a cache keyed by those bytes
// cannot go stale. The points are shared: nobody may modify them.
type keyPoints struct {
	p, hp, c *msm.Point
}

// keyCacheSize bounds the cache: two generations of half this many keys
// (about 600 bytes each), the older dropped when the newer fills.
const keyCacheSize = 1 << 15

// keyCache remembers keyPoints of the ring members seen last: an output is
// a decoy in many rings (wallets pick recent outputs more often), so a
// block's rings, and those of the blocks around it, share many keys.
type keyCache struct {
	mu       sync.Mutex
	cur, old map[RingMember]keyPoints
}

var ringKeys keyCache

func (c *keyCache) get(k RingMember) (keyPoints, bool) {
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

func (c *keyCache) put(k RingMember, v keyPoints) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.add(k, v)
}

func (c *keyCache) add(k RingMember, v keyPoints) {
	if c.cur == nil {
		c.cur = make(map[RingMember]keyPoints)
	}
	if len(c.cur) >= keyCacheSize/2 {
		c.old, c.cur = c.cur, make(map[RingMember]keyPoints)
	}
	c.cur[k] = v
}
