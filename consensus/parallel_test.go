package consensus

import (
	"fmt"
	"runtime"
	"slices"
	"sync/atomic"
	"testing"
	"time"
)

// parallel runs every index once, at most GOMAXPROCS at a time, and
// returns the lowest failing index's error, whatever the number of
// workers.
func TestParallelBoundedAndOrdered(t *testing.T) {
	for _, procs := range []int{1, 2, 4} {
		t.Run(fmt.Sprint("GOMAXPROCS=", procs), func(t *testing.T) {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
			for _, n := range []int{0, 1, 3, 500} {
				var active, peak atomic.Int32
				runs := make([]atomic.Int32, n)
				err := parallel(n, func(i int) error {
					a := active.Add(1)
					for p := peak.Load(); a > p && !peak.CompareAndSwap(p, a); p = peak.Load() {
					}
					runs[i].Add(1)
					time.Sleep(50 * time.Microsecond)
					active.Add(-1)
					return nil
				})
				if err != nil {
					t.Fatalf("n=%d: %v", n, err)
				}
				for i := range runs {
					if r := runs[i].Load(); r != 1 {
						t.Fatalf("n=%d: index %d ran %d times", n, i, r)
					}
				}
				if p := peak.Load(); int(p) > procs {
					t.Fatalf("n=%d: %d running at once, GOMAXPROCS %d", n, p, procs)
				}
			}
			// Several indices fail: the lowest one's error comes back.
			for _, failing := range [][]int{{0}, {7}, {3, 9, 200}, {499}, {250, 100}} {
				fail := map[int]bool{}
				for _, i := range failing {
					fail[i] = true
				}
				err := parallel(500, func(i int) error {
					if fail[i] {
						return fmt.Errorf("input %d", i)
					}
					return nil
				})
				want := fmt.Sprintf("input %d", slices.Min(failing))
				if err == nil || err.Error() != want {
					t.Fatalf("failing %v: got %v, want %s", failing, err, want)
				}
			}
		})
	}
}
