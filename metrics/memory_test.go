package metrics

import (
	"testing"

	"github.com/gonero/gonero/membudget"
)

// TestMemoryBudget: the budget's use, peak, bound and refusals are
// scraped from a real budget, globally and per part.
func TestMemoryBudget(t *testing.T) {
	b := membudget.New(1 << 20)
	rpc := membudget.NewAccount[string](b, 300_000)
	m := New()
	m.Watch(Sources{Memory: func() []MemoryPart {
		return []MemoryPart{{Stats: b.Stats()}, {Part: "rpc", Stats: rpc.Stats()}}
	}})
	rpc.Acquire("a", 200_000)
	rpc.Acquire("b", 700_000)
	rpc.Acquire("c", 200_000) // past the total: refused
	rpc.Release("b", 700_000)
	reg := m.Registry()
	for _, c := range []struct {
		name, part string
		want       float64
	}{
		{"gonero_memory_budget_used_bytes", "total", 200_000},
		{"gonero_memory_budget_used_bytes", "rpc", 200_000},
		{"gonero_memory_budget_peak_bytes", "total", 900_000},
		{"gonero_memory_budget_limit_bytes", "total", 1 << 20},
		{"gonero_memory_budget_limit_bytes", "rpc", 300_000},
		{"gonero_memory_budget_refused_total", "total", 1},
		{"gonero_memory_budget_refused_total", "rpc", 1},
		{"gonero_memory_budget_claims_total", "rpc", 2},
		{"gonero_memory_budget_clients", "rpc", 1},
	} {
		if got := mustValue(t, reg, c.name, "part", c.part); got != c.want {
			t.Errorf("%s{part=%q} = %v, want %v", c.name, c.part, got, c.want)
		}
	}
}
