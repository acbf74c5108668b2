package metrics

import (
	"testing"

	"github.com/gonero/gonero/membudget"
)

// TestMemoryBudget: the budget's use, peak, bound and refusals are
// scraped from a real budget, globally and per part.
func TestMemoryBudget(t *testing.T) {
	b := membudget.New(1 << 20)
	rpc := membudget.NewAccount[string](b, 300_000).WithLimit(600_000)
	send := membudget.NewAccount[int](b, 0).WithLimit(100_000)
	m := New()
	m.Watch(Sources{Memory: func() []MemoryPart {
		return []MemoryPart{{Stats: b.Stats()}, {Part: "rpc", Stats: rpc.Stats()}, {Part: "p2p_send", Stats: send.Stats()},
			{Part: "txpool", Outside: true, Stats: membudget.Stats{Used: 5000, Limit: 648_000_000, Clients: 3}}}
	}})
	send.Acquire(1, 50_000)
	send.Acquire(2, 60_000) // past the part's own limit: refused
	send.Release(1, 50_000)
	rpc.Acquire("a", 200_000)
	rpc.Acquire("b", 300_000)
	rpc.Acquire("c", 200_000) // past the part's limit: refused
	rpc.Release("b", 300_000)
	reg := m.Registry()
	for _, c := range []struct {
		name, part string
		want       float64
	}{
		{"gonero_memory_budget_used_bytes", "total", 200_000},
		{"gonero_memory_budget_used_bytes", "rpc", 200_000},
		{"gonero_memory_budget_peak_bytes", "total", 500_000},
		{"gonero_memory_budget_limit_bytes", "total", 1 << 20},
		{"gonero_memory_budget_limit_bytes", "rpc", 300_000},
		{"gonero_memory_budget_refused_total", "total", 2},
		{"gonero_memory_budget_refused_total", "rpc", 1},
		{"gonero_memory_budget_claims_total", "rpc", 2},
		{"gonero_memory_budget_clients", "rpc", 1},
		{"gonero_memory_budget_part_limit_bytes", "rpc", 600_000},
		{"gonero_memory_budget_part_limit_bytes", "p2p_send", 100_000},
		{"gonero_memory_budget_peak_bytes", "p2p_send", 50_000},
		{"gonero_memory_budget_refused_total", "p2p_send", 1},
		{"gonero_memory_budget_used_bytes", "txpool", 5000},
		{"gonero_memory_budget_part_limit_bytes", "txpool", 648_000_000},
		{"gonero_memory_budget_clients", "txpool", 3},
	} {
		if got := mustValue(t, reg, c.name, "part", c.part); got != c.want {
			t.Errorf("%s{part=%q} = %v, want %v", c.name, c.part, got, c.want)
		}
	}
}
