package main

import (
	"fmt"
	"log/slog"
	"math"
	"os"
	"runtime/debug"
)

// memoryLimitPerBudget: --memory-limit's default is this many times
// --memory-budget. The budget bounds what outsiders make the node hold;
// the rest of the heap (the chain's caches, the pool, connection buffers,
// parse garbage) and the collector's headroom come on top. Without a
// limit the collector lets the heap grow to twice what is live (GOGC=100):
// every flood at once held some 350 MB live and the heap grew to 750 MB,
// the process to 1 GB (docs/public-node.md, all-at-once). A soft limit of
// three budgets (768 MiB by default) makes the collector run sooner as the
// heap nears it and return freed pages to the system, so that the
// process stays under the 1 GB issue 33 asks for; a single flood (live
// heap well under the limit) never reaches it and collects as before.
const memoryLimitPerBudget = 3

// memoryLimitAuto is --memory-limit's default value: memoryLimitPerBudget
// times --memory-budget.
const memoryLimitAuto = -1

// memoryLimit is the Go soft memory limit gonerod sets for the flags, and
// where it comes from, for the start-up log. GOMEMLIMIT in the environment
// wins over the flag (the runtime has applied it already: an operator who
// sets it knows the machine); limit 0 means none is set.
func memoryLimit(flag, budget int64, getenv func(string) string) (limit int64, from string) {
	if v := getenv("GOMEMLIMIT"); v != "" {
		return 0, "GOMEMLIMIT=" + v
	}
	switch {
	case flag > 0:
		return flag, "--memory-limit"
	case flag == 0:
		return 0, "--memory-limit 0"
	case budget <= 0:
		return 0, "--memory-budget 0"
	case budget > math.MaxInt64/memoryLimitPerBudget:
		return 0, "--memory-budget too large"
	}
	return memoryLimitPerBudget * budget, fmt.Sprintf("%d x --memory-budget", memoryLimitPerBudget)
}

// applyMemoryLimit sets the soft memory limit of the flags (debug.SetMemoryLimit)
// and logs it. The collector's CPU near the limit is capped by the runtime
// at about half the processors, so a live heap that outgrows the limit
// slows the node rather than stopping it; memory then grows past the limit.
func applyMemoryLimit(flag, budget int64, log *slog.Logger) error {
	if flag < memoryLimitAuto {
		return fmt.Errorf("--memory-limit %d: want bytes, 0 (none) or -1 (%d x --memory-budget)", flag, memoryLimitPerBudget)
	}
	limit, from := memoryLimit(flag, budget, os.Getenv)
	if limit > 0 {
		debug.SetMemoryLimit(limit)
	}
	// SetMemoryLimit(-1) reads the limit without changing it.
	now := debug.SetMemoryLimit(-1)
	if now == math.MaxInt64 {
		log.Info("Go memory limit: none", "from", from)
		return nil
	}
	log.Info("Go memory limit", "bytes", now, "MiB", now>>20, "from", from)
	return nil
}
