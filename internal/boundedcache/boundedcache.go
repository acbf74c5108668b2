// Package boundedcache is a concurrency-safe map bounded by the total cost
// of its values (bytes, or one per entry). Eviction is arbitrary (Go's map
// order): no bookkeeping per hit, which suits the node's caches of
// immutable values (a rendered block, an encoded block, a proof-of-work
// hash) whose hot set fits the bound; a miss only costs recomputing.
package boundedcache

import "sync"

// Cache maps K to V, the costs of its values adding up to at most its
// bound. The zero value is not usable: see New.
type Cache[K comparable, V any] struct {
	mu       sync.Mutex
	maxCost  int
	maxEntry int
	cost     func(V) int
	total    int
	m        map[K]V
}

// New returns a cache holding values of total cost at most maxCost, each
// costing cost(v) (nil: one per entry). A value costing more than
// maxEntry (0: maxCost) is not kept, so that one value cannot push the
// whole hot set out.
func New[K comparable, V any](maxCost, maxEntry int, cost func(V) int) *Cache[K, V] {
	if cost == nil {
		cost = func(V) int { return 1 }
	}
	if maxEntry <= 0 || maxEntry > maxCost {
		maxEntry = maxCost
	}
	return &Cache[K, V]{maxCost: maxCost, maxEntry: maxEntry, cost: cost, m: make(map[K]V)}
}

// Get returns the value kept for k.
func (c *Cache[K, V]) Get(k K) (V, bool) {
	c.mu.Lock()
	v, ok := c.m[k]
	c.mu.Unlock()
	return v, ok
}

// Take returns the value kept for k and forgets it (a value used once).
func (c *Cache[K, V]) Take(k K) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.m[k]
	if ok {
		delete(c.m, k)
		c.total -= c.cost(v)
	}
	return v, ok
}

// Put keeps v for k, evicting arbitrary entries to make room. A key
// already kept keeps its value: the cached values are immutable for their
// key, so the two are the same.
func (c *Cache[K, V]) Put(k K, v V) {
	cost := c.cost(v)
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.m[k]; ok || cost > c.maxEntry {
		return
	}
	for old, ov := range c.m {
		if c.total+cost <= c.maxCost {
			break
		}
		delete(c.m, old)
		c.total -= c.cost(ov)
	}
	c.m[k] = v
	c.total += cost
}

// Clear forgets every entry.
func (c *Cache[K, V]) Clear() {
	c.mu.Lock()
	clear(c.m)
	c.total = 0
	c.mu.Unlock()
}

// Len is the number of entries kept.
func (c *Cache[K, V]) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.m)
}

// Cost is the total cost of the entries kept.
func (c *Cache[K, V]) Cost() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.total
}
