package txpool

import "slices"

// CapTemplateBacklog is the limit monerod 0.18.4+ puts on the backlog a
// miner is told of (tx_memory_pool::get_block_template_backlog, behind
// get_miner_data and ZMQ's miner_data): at most 112.5 % of the median block
// weight, which is enough for a full block at the best reward. When the
// transactions weigh more than that, they are taken best fee per byte
// first: a stable sort of the pool table's order, comparing the products
// fee × weight as monerod does in 64-bit arithmetic. They are taken in
// order until the weight taken passes the limit, the one that passes it
// included.
//
// entries (in the pool table's order) may be reordered in place; the
// result shares its array. weightFee gives an entry's weight and fee.
//
// Difference: monerod also skips, there, a transaction that is no longer
// ready to go (an input spent in the chain) and one spending a key image an
// earlier one spends. gonero's pool holds neither: it drops a transaction
// whose key image a block spends, and refuses a second spender.
func CapTemplateBacklog[T any](entries []T, median uint64, weightFee func(T) (weight, fee uint64)) []T {
	limit := median + median/8
	var total uint64
	for _, e := range entries {
		w, _ := weightFee(e)
		total += w
	}
	if total > limit {
		slices.SortStableFunc(entries, func(a, b T) int {
			wa, fa := weightFee(a)
			wb, fb := weightFee(b)
			switch x, y := fa*wb, fb*wa; {
			case x > y:
				return -1
			case x < y:
				return 1
			}
			return 0
		})
	}
	var taken uint64
	for i, e := range entries {
		w, _ := weightFee(e)
		taken += w
		if taken > limit {
			return entries[:i+1]
		}
	}
	return entries
}
