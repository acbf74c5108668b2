package main

import (
	"bufio"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// goMem is where gonerod's memory went during an attack, from the Go
// runtime's figures on its metrics listener (the peak RSS alone does not
// tell the heap from the stacks or the collector's headroom): the peak of
// each, sampled every half second.
type goMem struct {
	heapInuse, nextGC, stack, sys, released, goroutines float64
	limit                                               float64
	samples                                             int
}

// goMemMetrics are the metrics read, and where each peak goes.
var goMemMetrics = map[string]func(m *goMem) *float64{
	"go_memstats_heap_inuse_bytes":    func(m *goMem) *float64 { return &m.heapInuse },
	"go_memstats_next_gc_bytes":       func(m *goMem) *float64 { return &m.nextGC },
	"go_memstats_stack_inuse_bytes":   func(m *goMem) *float64 { return &m.stack },
	"go_memstats_sys_bytes":           func(m *goMem) *float64 { return &m.sys },
	"go_memstats_heap_released_bytes": func(m *goMem) *float64 { return &m.released },
	"go_goroutines":                   func(m *goMem) *float64 { return &m.goroutines },
	"go_gc_gomemlimit_bytes":          func(m *goMem) *float64 { return &m.limit },
}

var metricsClient = &http.Client{Timeout: 2 * time.Second}

// sample reads gonerod's metrics once and keeps each figure's peak (only
// this goroutine writes m until the sampling ends).
func (m *goMem) sample(port int) {
	resp, err := metricsClient.Get("http://127.0.0.1:" + strconv.Itoa(port) + "/metrics")
	if err != nil {
		return
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		name, val, ok := strings.Cut(sc.Text(), " ")
		if !ok {
			continue
		}
		if f, ok := goMemMetrics[name]; ok {
			if v, err := strconv.ParseFloat(val, 64); err == nil && v > *f(m) {
				*f(m) = v
			}
		}
	}
	m.samples++
}

func (m *goMem) String() string {
	if m.samples == 0 {
		return ""
	}
	mb := func(v float64) float64 { return v / (1 << 20) }
	lim := "none"
	if m.limit > 0 && m.limit < 1<<62 {
		lim = fmt.Sprintf("%.0f MB", mb(m.limit))
	}
	return fmt.Sprintf("gonerod's Go runtime at its peaks: heap in use %.0f MB, next GC at %.0f MB, stacks %.0f MB, %.0f goroutines, from the system %.0f MB (%.0f MB given back at most), memory limit %s",
		mb(m.heapInuse), mb(m.nextGC), mb(m.stack), m.goroutines, mb(m.sys), mb(m.released), lim)
}
