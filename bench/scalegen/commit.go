package main

import (
	"cmp"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/gonero/gonero/chaindb"
)

// batchStat is one batch commit as chain.AddBatch makes it (gonerod import
// and P2P sync): one chaindb.Update whose function appends the batch's
// blocks with Writer.Append, then bbolt's commit.
type batchStat struct {
	total  time.Duration // the whole Update: what the chain's lock is held for, less the chain's checks
	append time.Duration // the Append calls (B+tree inserts, page faults on pages not in memory)
	spill  time.Duration // commit: nodes to pages, page allocation, memory-map growth
	write  time.Duration // commit: page writes and the two fdatasyncs
	pages  int64         // page runs written
	bytes  int           // block and tx blobs in the batch
	grew   int64         // bytes the file grew by (bbolt grows it by 16 MB and more, a truncate and an fsync)
	remap  bool          // the file crossed a 1 GiB step of bbolt's memory map: the map was rebuilt
	height uint64        // the batch's first height
	// wait is the time the committing thread spent runnable but waiting
	// for a CPU during the batch (/proc/thread-self/schedstat): on a
	// shared machine, and at nice 19, much of a batch's time. total-wait
	// is what the batch would take with a CPU to itself, the store's own
	// latency (its fsyncs, page faults and computing).
	wait time.Duration
	// majflt counts the committing thread's major page faults: pages read
	// from the disk because the page cache no longer held them.
	majflt int64
}

// commitBatch appends recs in one store transaction and times it.
func commitBatch(db *chaindb.DB, path string, recs []chaindb.BlockRecord) (batchStat, error) {
	s := batchStat{height: recs[0].Meta.Height}
	before := fileSize(path)
	for i := range recs {
		s.bytes += len(recs[i].Blob)
		for _, tx := range recs[i].Txs {
			s.bytes += len(tx.Blob)
		}
	}
	c0 := db.CommitTimes()
	w0 := runWait()
	f0 := majorFaults()
	t0 := time.Now()
	var t1 time.Time
	err := db.Update(func(w *chaindb.Writer) error {
		for i := range recs {
			if err := w.Append(recs[i]); err != nil {
				return err
			}
		}
		t1 = time.Now()
		return nil
	})
	s.total = time.Since(t0)
	s.append = t1.Sub(t0)
	s.wait = min(max(runWait()-w0, 0), s.total)
	s.majflt = majorFaults() - f0
	c1 := db.CommitTimes()
	s.spill, s.write, s.pages = c1.Spill-c0.Spill, c1.Write-c0.Write, c1.Pages-c0.Pages
	after := fileSize(path)
	s.grew = after - before
	const step = 1 << 30 // bbolt's mmap step above 1 GiB (and chaindb's default initial map)
	s.remap = after > step && (after-1)/step > (before-1)/step
	return s, err
}

// runWait is the run-queue wait of the calling thread: main locks the main
// goroutine, which commits every batch, to its thread (init below), so it
// is the batches' own wait for a CPU, not the runtime's other threads'.
func runWait() time.Duration {
	b, err := os.ReadFile("/proc/thread-self/schedstat")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) < 2 {
		return 0
	}
	ns, err := strconv.ParseInt(f[1], 10, 64)
	if err != nil {
		return 0
	}
	return time.Duration(ns)
}

func init() { runtime.LockOSThread() }

// majorFaults is the calling thread's count of major page faults.
func majorFaults() int64 {
	var ru syscall.Rusage
	const rusageThread = 1 // RUSAGE_THREAD (Linux)
	if err := syscall.Getrusage(rusageThread, &ru); err != nil {
		return 0
	}
	return ru.Majflt
}

func fileSize(path string) int64 {
	fi, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return fi.Size()
}

// slowest lists the n slowest batches with their parts, to tell a stall's
// cause: the appends (pages faulted in), the spill (a remap), the writes
// and fdatasyncs, or the rest (a file growth: truncate and fsync).
func slowest(st []batchStat, n int) string {
	idx := make([]int, len(st))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int { return cmp.Compare(st[b].total, st[a].total) })
	var parts []string
	for _, i := range idx[:min(n, len(idx))] {
		s := st[i]
		p := fmt.Sprintf("h%d %.0fms (append %.0f spill %.0f write %.0f other %.0f; cpu wait %.0f", s.height, ms(s.total), ms(s.append),
			ms(s.spill), ms(s.write), ms(s.total-s.append-s.spill-s.write), ms(s.wait))
		if s.grew > 0 {
			p += fmt.Sprintf(" grew %dMB", s.grew>>20)
		}
		if s.remap {
			p += " remap"
		}
		parts = append(parts, p+")")
	}
	grows, remaps := 0, 0
	for _, s := range st {
		if s.grew > 0 {
			grows++
		}
		if s.remap {
			remaps++
		}
	}
	return fmt.Sprintf("%d of %d batches grew the file, %d remapped; slowest: %s", grows, len(st), remaps, strings.Join(parts, ", "))
}

// latency summarises batch commits: p50/p99/max of the whole Update, and
// the shares of its time spent appending, spilling, writing and syncing,
// and in the rest of the commit (the free list, growing the file: a
// truncate and an fsync every 16 MB).
type latency struct {
	n                         int
	p50, p99, max             float64 // ms, the whole Update
	cp50, cp99, cmax          float64 // ms, the commit alone (Update less the appends)
	appendP, spillP, writeP   float64 // % of the summed Update time
	otherP                    float64
	mbPerBatch, pagesPerBatch float64
	waitP                     float64 // % of the summed Update time spent waiting for a CPU
	majflt                    float64 // major page faults a batch
	own50, own99, ownMax      float64 // ms, the Update less that wait
}

func summarise(st []batchStat) latency {
	if len(st) == 0 {
		return latency{}
	}
	tot := make([]float64, len(st))
	com := make([]float64, len(st))
	own := make([]float64, len(st))
	var wait time.Duration
	var majflt int64
	var sum, app, sp, wr time.Duration
	var pages int64
	var bytes int
	for i, s := range st {
		tot[i] = ms(s.total)
		com[i] = ms(s.total - s.append)
		own[i] = ms(s.total - s.wait)
		wait += s.wait
		majflt += s.majflt
		sum += s.total
		app += s.append
		sp += s.spill
		wr += s.write
		pages += s.pages
		bytes += s.bytes
	}
	slices.Sort(tot)
	slices.Sort(com)
	slices.Sort(own)
	share := func(d time.Duration) float64 { return 100 * float64(d) / float64(max(sum, 1)) }
	n := float64(len(st))
	return latency{
		n: len(st), p50: pctNearest(tot, 50), p99: pctNearest(tot, 99), max: tot[len(tot)-1],
		cp50: pctNearest(com, 50), cp99: pctNearest(com, 99), cmax: com[len(com)-1],
		appendP: share(app), spillP: share(sp), writeP: share(wr), otherP: share(sum - app - sp - wr),
		mbPerBatch: float64(bytes) / 1e6 / n, pagesPerBatch: float64(pages) / n,
		waitP: share(wait), majflt: float64(majflt) / n, own50: pctNearest(own, 50), own99: pctNearest(own, 99), ownMax: own[len(own)-1],
	}
}

// pctNearest is the nearest-rank percentile (the p99 of 100 batches is the
// 99th, of fewer than 100 the largest).
func pctNearest(sorted []float64, p float64) float64 {
	i := int(p/100*float64(len(sorted))+0.999999) - 1
	return sorted[max(0, min(i, len(sorted)-1))]
}

// String is the summary line bench/scale.sh reads (keep its fields in order).
func (l latency) String() string {
	return fmt.Sprintf("batches %d update_ms p50 %.1f p99 %.1f max %.1f commit_ms p50 %.1f p99 %.1f max %.1f"+
		" share%% append %.0f spill %.0f write+fdatasync %.0f other %.0f MB/batch %.2f pages/batch %.0f"+
		" cpu_wait%% %.0f own_ms p50 %.1f p99 %.1f max %.1f majflt/batch %.1f",
		l.n, l.p50, l.p99, l.max, l.cp50, l.cp99, l.cmax, l.appendP, l.spillP, l.writeP, l.otherP, l.mbPerBatch, l.pagesPerBatch,
		l.waitP, l.own50, l.own99, l.ownMax, l.majflt)
}

// traceBatch appends one batch's line to the CSV file at path ("": none).
func traceBatch(path string, blocks int, s batchStat) error {
	if path == "" {
		return nil
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(f, "%d,%d,%.2f,%.2f,%.2f,%.2f,%.2f,%d,%t,%d,%d,%.2f,%d\n", s.height, blocks, ms(s.total), ms(s.append),
		ms(s.spill), ms(s.write), ms(s.total-s.append-s.spill-s.write), s.grew, s.remap, s.pages, s.bytes, ms(s.wait), s.majflt)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
