package main

import (
	"bytes"
	"log/slog"
	"math"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/gonero/gonero/node"
)

// TestMemoryLimitFromBudget: gonerod sets Go's soft memory limit to
// memoryLimitPerBudget times --memory-budget unless told otherwise;
// --memory-limit overrides it, 0 sets none, and GOMEMLIMIT in the
// environment wins over both (the runtime applied it at start).
func TestMemoryLimitFromBudget(t *testing.T) {
	prev := debug.SetMemoryLimit(-1)
	t.Cleanup(func() { debug.SetMemoryLimit(prev) })
	t.Setenv("GOMEMLIMIT", "")

	apply := func(flag, budget int64) (int64, string) {
		t.Helper()
		debug.SetMemoryLimit(math.MaxInt64)
		var log bytes.Buffer
		if err := applyMemoryLimit(flag, budget, slog.New(slog.NewTextHandler(&log, nil))); err != nil {
			t.Fatal(err)
		}
		return debug.SetMemoryLimit(-1), log.String()
	}

	// The flags' defaults: the default budget, the flag at auto.
	o := &options{}
	cmd := newRootCommandFor(o)
	if err := cmd.ParseFlags(nil); err != nil {
		t.Fatal(err)
	}
	if o.memoryLimit != memoryLimitAuto || o.cfg.MemoryBudget != node.DefaultMemoryBudget {
		t.Fatalf("defaults: --memory-limit %d, --memory-budget %d", o.memoryLimit, o.cfg.MemoryBudget)
	}
	got, log := apply(o.memoryLimit, o.cfg.MemoryBudget)
	if want := int64(memoryLimitPerBudget) * node.DefaultMemoryBudget; got != want {
		t.Errorf("default limit %d, want %d (%d x the default budget)", got, want, memoryLimitPerBudget)
	}
	if !strings.Contains(log, "MiB=768") {
		t.Errorf("start-up log does not say the limit: %q", log)
	}

	// The limit follows --memory-budget.
	if got, _ := apply(memoryLimitAuto, 100<<20); got != 300<<20 {
		t.Errorf("--memory-budget 100 MiB: limit %d, want 300 MiB", got)
	}
	// --memory-limit wins over the budget.
	if got, _ := apply(1<<30, 100<<20); got != 1<<30 {
		t.Errorf("--memory-limit 1 GiB: limit %d", got)
	}
	// 0, or no budget to derive it from: none.
	if got, log := apply(0, 100<<20); got != math.MaxInt64 || !strings.Contains(log, "none") {
		t.Errorf("--memory-limit 0: limit %d, log %q", got, log)
	}
	if got, _ := apply(memoryLimitAuto, 0); got != math.MaxInt64 {
		t.Errorf("--memory-budget 0: limit %d, want none", got)
	}
	// Nonsense is refused.
	if err := applyMemoryLimit(-2, 100<<20, slog.New(slog.DiscardHandler)); err == nil {
		t.Error("--memory-limit -2 accepted")
	}

	// GOMEMLIMIT wins: the limit the runtime has is left as it is, and
	// the log says where it came from.
	t.Setenv("GOMEMLIMIT", "2GiB")
	debug.SetMemoryLimit(2 << 30) // what the runtime set at start from it
	var buf bytes.Buffer
	if err := applyMemoryLimit(1<<30, 100<<20, slog.New(slog.NewTextHandler(&buf, nil))); err != nil {
		t.Fatal(err)
	}
	if got := debug.SetMemoryLimit(-1); got != 2<<30 {
		t.Errorf("with GOMEMLIMIT=2GiB the limit is %d", got)
	}
	if !strings.Contains(buf.String(), "GOMEMLIMIT=2GiB") {
		t.Errorf("log %q does not name GOMEMLIMIT", buf.String())
	}
	if l, from := memoryLimit(memoryLimitAuto, 256<<20, func(string) string { return "" }); l != 768<<20 || from == "" {
		t.Errorf("memoryLimit: %d %q", l, from)
	}
}
