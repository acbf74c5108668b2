//go:build race

package httpd

// raceEnabled: the race detector slows everything ~10x; load tests scale
// their attack and expectations down. Allocation counts are not the
// program's under it either (sync.Pool drops items at random): zero
// allocations are checked in plain runs only.
const raceEnabled = true
