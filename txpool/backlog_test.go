package txpool

import (
	"slices"
	"testing"
)

type backlogItem struct {
	id          int
	weight, fee uint64
}

func itemWeightFee(e backlogItem) (uint64, uint64) { return e.weight, e.fee }

func itemIDs(es []backlogItem) []int {
	var out []int
	for _, e := range es {
		out = append(out, e.id)
	}
	return out
}

// TestCapTemplateBacklog: within 112.5 % of the median the backlog is the
// table's order, whole; past it the best fee per byte come first (ties
// keep the table's order), up to and including the one that passes the
// limit.
func TestCapTemplateBacklog(t *testing.T) {
	const median = 800 // limit 900
	small := []backlogItem{{1, 300, 10}, {2, 300, 90}, {3, 300, 50}}
	if got := itemIDs(CapTemplateBacklog(slices.Clone(small), median, itemWeightFee)); !slices.Equal(got, []int{1, 2, 3}) {
		t.Fatalf("900 of 900: %v, want the table's order, whole", got)
	}
	big := []backlogItem{
		{1, 300, 10},  // 0.033/byte
		{2, 200, 100}, // 0.5
		{3, 400, 200}, // 0.5, ties with 2: after it
		{4, 100, 10},  // 0.1
		{5, 500, 400}, // 0.8
		{6, 100, 1},   // 0.01
	}
	// 5 (500), 2 (700), 3 (1100 > 900: taken, then stop).
	if got := itemIDs(CapTemplateBacklog(slices.Clone(big), median, itemWeightFee)); !slices.Equal(got, []int{5, 2, 3}) {
		t.Fatalf("1600 of 900: %v, want 5 2 3", got)
	}
	// Products past 64 bits wrap as in monerod: entry 1's fee 2^44 times
	// the others' weights (2^20, 2^30) is 0 in uint64, so it ranks last
	// although its fee per byte is the best by far; 2 then 3 (which passes
	// the limit) are taken.
	wrap := []backlogItem{{1, 1 << 30, 1 << 44}, {2, 1 << 20, 1}, {3, 1 << 30, 1}}
	got := itemIDs(CapTemplateBacklog(slices.Clone(wrap), 1<<20, itemWeightFee))
	if !slices.Equal(got, []int{2, 3}) {
		t.Fatalf("wrapping products: %v, want 2 3", got)
	}
	if got := CapTemplateBacklog[backlogItem](nil, median, itemWeightFee); len(got) != 0 {
		t.Fatalf("empty pool: %v", got)
	}
}
