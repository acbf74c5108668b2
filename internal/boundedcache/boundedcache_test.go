package boundedcache

import (
	"sync"
	"testing"
)

func TestBoundByCost(t *testing.T) {
	c := New[int, []byte](100, 40, func(b []byte) int { return len(b) })
	c.Put(1, make([]byte, 41)) // above the per-entry bound: not kept
	if _, ok := c.Get(1); ok {
		t.Fatal("a value above maxEntry was kept")
	}
	for k := range 10 {
		c.Put(k, make([]byte, 30))
		if c.Cost() > 100 {
			t.Fatalf("cost %d above the bound after putting %d", c.Cost(), k)
		}
		if _, ok := c.Get(k); !ok {
			t.Fatalf("the value just put for %d is not kept", k)
		}
	}
	if c.Len() != 3 || c.Cost() != 90 {
		t.Fatalf("%d entries costing %d, want 3 costing 90", c.Len(), c.Cost())
	}
	// A key already kept keeps its value.
	var kept int
	for k := range 10 {
		if _, ok := c.Get(k); ok {
			kept = k
		}
	}
	c.Put(kept, make([]byte, 1))
	if v, _ := c.Get(kept); len(v) != 30 || c.Cost() != 90 {
		t.Fatalf("re-putting a kept key changed it: %d bytes, cost %d", len(v), c.Cost())
	}
	c.Clear()
	if c.Len() != 0 || c.Cost() != 0 {
		t.Fatalf("%d entries costing %d after Clear", c.Len(), c.Cost())
	}
}

func TestBoundByCount(t *testing.T) {
	c := New[int, int](4, 0, nil)
	for k := range 100 {
		c.Put(k, k*k)
		if v, ok := c.Get(k); !ok || v != k*k {
			t.Fatalf("Get(%d) = %d, %v", k, v, ok)
		}
		if c.Len() > 4 {
			t.Fatalf("%d entries, bound 4", c.Len())
		}
	}
}

func TestTake(t *testing.T) {
	c := New[string, int](10, 0, func(v int) int { return v })
	c.Put("a", 3)
	c.Put("b", 4)
	if v, ok := c.Take("a"); !ok || v != 3 || c.Cost() != 4 || c.Len() != 1 {
		t.Fatalf("Take: %d %v, then %d entries costing %d", v, ok, c.Len(), c.Cost())
	}
	if _, ok := c.Take("a"); ok {
		t.Fatal("a value taken twice")
	}
}

func TestConcurrent(t *testing.T) {
	c := New[int, int](64, 0, nil)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 1000 {
				c.Put(g*1000+i, i)
				c.Get(i)
			}
		}()
	}
	wg.Wait()
	if c.Len() > 64 || c.Cost() != c.Len() {
		t.Fatalf("%d entries costing %d, bound 64", c.Len(), c.Cost())
	}
}
