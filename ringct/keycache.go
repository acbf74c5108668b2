package ringct

import (
	"github.com/gonero/gonero/internal/boundedcache"
	"github.com/gonero/gonero/ringct/internal/msm"
)

// keyPoints is what a CLSAG needs of a ring member besides its bytes: the
// decoded output key P, Hp(P) and the decoded commitment C. All are
// functions of the member's 64 bytes alone, so a cache keyed by those bytes
// cannot go stale. The points are shared: nobody may modify them.
type keyPoints struct {
	p, hp, c *msm.Point
}

// keyCacheSize bounds the cache: this many ring members (about 600 bytes
// each).
const keyCacheSize = 1 << 15

// ringKeys remembers keyPoints of the ring members seen last: an output is
// a decoy in many rings (wallets pick recent outputs more often), so a
// block's rings, and those of the blocks around it, share many keys. Its
// arbitrary eviction keeps a little fewer of the hot ones than the two
// generations it replaced, which kept a key hit once per generation: 65.0 %
// hits against 66.8 % on BenchmarkRingKeyCache's stream, a miss costing a
// decode and Hp (some 1 % of a CLSAG's time at that rate); a full cache
// is always full, where the generations held half to all of it.
var ringKeys = boundedcache.New[RingMember, keyPoints](keyCacheSize, 0, nil)
