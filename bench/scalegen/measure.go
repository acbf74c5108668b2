package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gonero/gonero/chain"
	"github.com/gonero/gonero/chaindb"
	"github.com/gonero/gonero/params"
)

// measure times the store itself, without HTTP: reads at random heights and
// at the tip while a writer goroutine appends synthetic blocks one per
// transaction (each fsynced, as the chain manager commits a block), the
// start-up of the chain manager (chain.Open: its windows of 735 / 100 /
// 100,000 blocks), and the pop and re-append of the top 100 blocks. It
// complements bench/scale.sh's end-to-end figures through gonerod's RPC:
// what is left when HTTP, JSON and the client are taken away is the store.
func measure(path string, g *gen, dur time.Duration, readers int, writeRate float64) error {
	t0 := time.Now()
	db, err := chaindb.Open(path, chaindb.Options{Network: params.Regtest.String()})
	if err != nil {
		return err
	}
	defer db.Close()
	openT := time.Since(t0)
	t0 = time.Now()
	if _, err := chain.Open(db, chain.Config{Network: params.Regtest, FixedDifficulty: 1}); err != nil {
		return err
	}
	chainT := time.Since(t0)
	var top chaindb.BlockMeta
	if err := db.View(func(r *chaindb.Reader) (err error) { top, err = r.Top(); return err }); err != nil {
		return err
	}
	g.prev = top
	h0 := top.Height + 1
	fmt.Printf("# measure at height %d: chaindb.Open %.1f ms, chain.Open (windows) %.1f ms\n", h0,
		ms(openT), ms(chainT))

	// The writer: one block per transaction at writeRate blocks/s.
	stop := make(chan struct{})
	var written atomic.Uint64
	var wg sync.WaitGroup
	var werr error
	if writeRate > 0 {
		wg.Go(func() {
			tick := time.NewTicker(time.Duration(float64(time.Second) / writeRate))
			defer tick.Stop()
			for {
				select {
				case <-stop:
					return
				case <-tick.C:
				}
				rec := g.block(g.prev.Height + 1)
				if err := db.Append(rec); err != nil {
					werr = err
					return
				}
				written.Add(1)
			}
		})
	}
	fmt.Printf("# %-22s %9s %9s %9s %9s %9s %10s %8s\n", "read (writer "+fmt.Sprintf("%g/s", writeRate)+")",
		"reads", "p50_us", "p99_us", "p99.9_us", "max_us", "reads/s", "written")
	for _, kind := range []string{"header", "block"} {
		for _, where := range []string{"random", "tip"} {
			w0 := written.Load()
			lat := readLoad(db, kind, where, h0, dur, readers)
			n := len(lat)
			fmt.Printf("  %-22s %9d %9.0f %9.0f %9.0f %9.0f %10.0f %8d\n", kind+" "+where, n,
				pct(lat, 50), pct(lat, 99), pct(lat, 99.9), pct(lat, 100), float64(n)/dur.Seconds(), written.Load()-w0)
		}
	}
	close(stop)
	wg.Wait()
	if werr != nil {
		return fmt.Errorf("writer: %w", werr)
	}

	// Pop the top 100 blocks one transaction each (chain.PopBlocks pops them
	// in one; both are timed), then append the same records again.
	var popped []chaindb.BlockRecord
	t0 = time.Now()
	for range 100 {
		rec, err := db.PopTop()
		if err != nil {
			return err
		}
		popped = append(popped, rec)
	}
	popT := time.Since(t0)
	t0 = time.Now()
	for i := len(popped) - 1; i >= 0; i-- {
		if err := db.Append(popped[i]); err != nil {
			return err
		}
	}
	addT := time.Since(t0)
	t0 = time.Now()
	err = db.Update(func(w *chaindb.Writer) error {
		for range 100 {
			if _, err := w.PopTop(); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	pop1T := time.Since(t0)
	t0 = time.Now()
	err = db.Update(func(w *chaindb.Writer) error {
		for i := len(popped) - 1; i >= 0; i-- {
			if err := w.Append(popped[i]); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	add1T := time.Since(t0)
	fmt.Printf("# pop 100: %.1f ms one tx per block, %.1f ms in one tx; re-append 100: %.1f ms one tx per block, %.1f ms in one tx\n",
		ms(popT), ms(pop1T), ms(addT), ms(add1T))
	fmt.Printf("# memory: %s\n", procMem())
	return nil
}

func readLoad(db *chaindb.DB, kind, where string, h0 uint64, dur time.Duration, readers int) []float64 {
	var mu sync.Mutex
	var all []float64
	var wg sync.WaitGroup
	deadline := time.Now().Add(dur)
	for i := range readers {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(i), 99))
			lat := make([]float64, 0, 1<<16)
			for time.Now().Before(deadline) {
				var h uint64
				if where == "tip" {
					h = h0 - 1 - rng.Uint64N(min(100, h0-1))
				} else {
					h = 1 + rng.Uint64N(h0-1)
				}
				t := time.Now()
				err := db.View(func(r *chaindb.Reader) error {
					if _, err := r.MetaByHeight(h); err != nil {
						return err
					}
					if kind == "block" {
						if _, err := r.BlockBlob(h); err != nil {
							return err
						}
						if _, err := r.TxHashes(h); err != nil {
							return err
						}
					}
					return nil
				})
				lat = append(lat, float64(time.Since(t).Nanoseconds())/1e3)
				if err != nil {
					panic(err)
				}
			}
			mu.Lock()
			all = append(all, lat...)
			mu.Unlock()
		})
	}
	wg.Wait()
	slices.Sort(all)
	return all
}

func pct(sorted []float64, p float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	i := int(p / 100 * float64(len(sorted)-1))
	return sorted[i]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1e3 }

func procMem() string {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return "?"
	}
	var parts []string
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "VmRSS") || strings.HasPrefix(line, "VmHWM") {
			parts = append(parts, strings.Join(strings.Fields(line), " "))
		}
	}
	return strings.Join(parts, ", ")
}
