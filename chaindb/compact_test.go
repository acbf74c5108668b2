package chaindb

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
)

// compactChildEnv, when set to a store path, turns the test binary into the
// victim of TestKillDuringCompaction: it compacts that store, and with
// compactStopEnv set to a point of compactHook it stops there until killed.
const (
	compactChildEnv = "CHAINDB_COMPACT_CHILD_PATH"
	compactStopEnv  = "CHAINDB_COMPACT_CHILD_STOP"
)

// compactChildTxBytes makes the victim's copy many small transactions, so
// that a kill lands inside the copy.
const compactChildTxBytes = 4 << 10

const seedCompact = 77

// TestCompactVictim is the victim's body, run by TestKillDuringCompaction
// in a child process (a test of its own rather than a branch of TestMain).
func TestCompactVictim(t *testing.T) {
	path := os.Getenv(compactChildEnv)
	if path == "" {
		t.Skip("the victim of TestKillDuringCompaction, run only in its child process")
	}
	runCompactChild(path)
}

func runCompactChild(path string) {
	stop := os.Getenv(compactStopEnv)
	said := false
	compactHook = func(point string) {
		if point == "committed" && !said {
			said = true
			fmt.Println("copying")
		}
		if point == stop {
			fmt.Println(point)
			for { // until killed (a timer, so that the runtime sees no deadlock)
				time.Sleep(time.Hour)
			}
		}
	}
	_, err := Compact(context.Background(), path, CompactOptions{Network: testNetwork, LockTimeout: 10 * time.Second,
		TxBytes: compactChildTxBytes})
	if err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		os.Exit(2)
	}
	fmt.Println("done")
}

// buildFreeStore writes a store of the synthetic chain seedCompact up to
// height, prunes it if asked, pops pops blocks, and returns its path and
// every key and value in it. Pruning shortens the blobs and the pops empty
// the top pages: both leave free pages.
func buildFreeStore(t testing.TB, height uint64, prune bool, pops int) (string, map[string]string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "chain.db")
	db, err := Open(path, Options{Network: testNetwork})
	if err != nil {
		t.Fatal(err)
	}
	db.bolt.NoSync = true
	for from := uint64(0); from < height; from += 500 {
		err := db.Update(func(w *Writer) error {
			for h := from; h < min(height, from+500); h++ {
				if err := w.Append(synthBlock(seedCompact, h)); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if prune {
		if res, err := db.Prune(PruneAll, 1); err != nil || res.PrunedTxs == 0 {
			t.Fatalf("prune: %+v %v", res, err)
		}
	}
	for range pops {
		if _, err := db.PopTop(); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.bolt.Sync(); err != nil {
		t.Fatal(err)
	}
	want := dump(t, db)
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	return path, want
}

// rawDump is dump of the file at path opened with bbolt alone (no upgrade,
// no removal of a compaction's copy, nothing written; read-write only because
// bbolt reads the free list only then). It also returns the bytes of the
// file's free pages.
func rawDump(t testing.TB, path string) (map[string]string, int64) {
	t.Helper()
	bdb, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: time.Second, FreelistType: bolt.FreelistMapType})
	if err != nil {
		t.Fatalf("open %s: %v", path, err)
	}
	defer bdb.Close()
	lsm, err := openLSM(path, false)
	if err != nil {
		t.Fatal(err)
	}
	defer lsm.Close()
	db := &DB{bolt: bdb, lsm: lsmStore{db: lsm}, path: path}
	s := bdb.Stats()
	return dump(t, db), int64(s.FreePageN+s.PendingPageN) * int64(bdb.Info().PageSize)
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// A pruned store with popped blocks: the compacted file holds every key and
// value of the old one and almost no free pages, is smaller, and works on
// as a store (its chain reads back, blocks append to it).
func TestCompactGivesSpaceBack(t *testing.T) {
	const pops = 300
	path, want := buildFreeStore(t, pruneChainHeight, true, pops)
	_, freeBefore := rawDump(t, path)
	fi, _ := os.Stat(path)
	var calls int
	var lastDone, lastTotal uint64
	res, err := Compact(context.Background(), path, CompactOptions{Network: testNetwork, TxBytes: 1 << 20,
		Progress: func(done, total uint64) { calls, lastDone, lastTotal = calls+1, done, total }})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%+v", res)
	if res.SizeBefore != fi.Size() || res.FreeBefore != freeBefore || res.Resumed {
		t.Fatalf("result %+v: want size before %d, free before %d, not resumed", res, fi.Size(), freeBefore)
	}
	got, freeAfter := rawDump(t, path)
	if d := diffDumps(got, want); d != "" {
		t.Fatalf("the compacted store differs:%s", d)
	}
	if freeBefore < 1<<20 {
		t.Fatalf("the source had only %d bytes of free pages: the test proves little", freeBefore)
	}
	// The copy's last commits free the pages they rewrite: a few pages.
	if freeAfter != res.FreeAfter || freeAfter > 64<<10 {
		t.Fatalf("free pages after: %d bytes (result says %d)", freeAfter, res.FreeAfter)
	}
	if res.SizeAfter > res.SizeBefore-freeBefore/2 {
		t.Fatalf("file %d -> %d bytes with %d bytes free before", res.SizeBefore, res.SizeAfter, freeBefore)
	}
	if calls < 2 || lastDone != res.Copied || lastTotal < lastDone || lastTotal > uint64(res.SizeBefore-res.FreeBefore) {
		t.Fatalf("progress: %d calls, last %d of %d; copied %d", calls, lastDone, lastTotal, res.Copied)
	}
	if exists(path + compactTempSuffix) {
		t.Fatal("the copy is still there")
	}
	db, err := Open(path, Options{Network: testNetwork})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	// The chain reads back (the top blocks are inside the pruning tip, so
	// whole), the popped blocks append again and the pruning carries on.
	topIs := func(want uint64) {
		t.Helper()
		err := db.View(func(r *Reader) error {
			if h, err := r.Height(); err != nil || h != want {
				return fmt.Errorf("height %d, %v; want %d", h, err, want)
			}
			rec, err := readRecord(r, want-1)
			if err != nil {
				return err
			}
			if d := sameRecord(rec, synthBlock(seedCompact, want-1)); d != "" {
				return fmt.Errorf("top block: %s", d)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	topIs(pruneChainHeight - pops)
	appendSynth(t, db, seedCompact, pruneChainHeight-pops, pruneChainHeight+10)
	topIs(pruneChainHeight + 10)
	if _, err := db.Prune(PruneUpdate, 0); err != nil {
		t.Fatal(err)
	}
}

// An upgrade of a schema-6 store (the regtest chain's, real blocks) leaves
// free pages; Compact upgrades it first, then gives them back, and the
// result is the store this build writes.
func TestCompactAfterUpgrade(t *testing.T) {
	c := regtest(t)
	db, path := openTemp(t)
	db.bolt.NoSync = true
	appendAll(t, db, c.recs)
	want := dump(t, db)
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	indexesToBolt(t, path)
	rawUpdate(t, path, func(tx *bolt.Tx) error {
		if err := fixedWidthIndexes(tx); err != nil {
			return err
		}
		return tx.Bucket(bucketInfo).Put(infoSchemaVersion, encodeU32(schemaVersionFixedIndexes))
	})
	upgraded := false
	res, err := Compact(context.Background(), path, CompactOptions{Network: testNetwork,
		MigrationProgress: func(done, total uint64) { upgraded = upgraded || done == total }})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("upgraded and compacted: %+v", res)
	if !upgraded || res.FreeBefore == 0 || res.SizeAfter >= res.SizeBefore {
		t.Fatalf("upgraded %v, result %+v", upgraded, res)
	}
	got, _ := rawDump(t, path)
	if d := diffDumps(got, want); d != "" {
		t.Fatalf("the compacted store differs from one this build wrote:%s", d)
	}
	db, err = Open(path, Options{Network: testNetwork})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	checkMatchesFresh(t, db)
}

// interruptCompact runs Compact and cancels it after commits transactions:
// it must return the context's error and leave its copy.
func interruptCompact(t *testing.T, path string, commits int) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	n := 0
	compactHook = func(point string) {
		if point == "committed" {
			if n++; n == commits {
				cancel()
			}
		}
	}
	defer func() { compactHook = nil }()
	_, err := Compact(ctx, path, CompactOptions{Network: testNetwork, TxBytes: 16 << 10})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted compaction: %v", err)
	}
	if !exists(path + compactTempSuffix) {
		t.Fatal("the interrupted compaction left no copy")
	}
}

// An interrupted compaction leaves the store as it was, and the next one
// resumes the copy where it stopped.
func TestCompactResumes(t *testing.T) {
	path, want := buildFreeStore(t, 800, false, 200)
	interruptCompact(t, path, 5)
	got, _ := rawDump(t, path)
	if d := diffDumps(got, want); d != "" {
		t.Fatalf("the store changed:%s", d)
	}
	cp, _ := rawDump(t, path+compactTempSuffix)
	s, err := decodeCompactState([]byte(cp[string(bucketCompactProgress)+"/"+string(compactStateKey)]))
	if err != nil || s.copied == 0 {
		t.Fatalf("the copy's state: %+v, %v", s, err)
	}
	res, err := Compact(context.Background(), path, CompactOptions{Network: testNetwork, TxBytes: 16 << 10})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Resumed || res.CopiedBefore != s.copied || res.Copied <= s.copied {
		t.Fatalf("result %+v after an interruption at %d bytes", res, s.copied)
	}
	got, free := rawDump(t, path)
	if d := diffDumps(got, want); d != "" {
		t.Fatalf("the compacted store differs:%s", d)
	}
	if free > 64<<10 || free >= res.FreeBefore {
		t.Fatalf("free pages %d after, %d before", free, res.FreeBefore)
	}
	var total uint64
	for k, v := range want {
		name, key, _ := bytes.Cut([]byte(k), []byte("/"))
		if isLSMBucket(name) {
			continue // not in the bbolt file that Compact copies
		}
		total += uint64(len(key) + len(v))
	}
	if res.Copied != total {
		t.Fatalf("copied %d key and value bytes, the store has %d", res.Copied, total)
	}
}

// A copy is never resumed once the store has been written since: Open
// removes it, and Compact discards one of another state of the store.
func TestCompactDropsStaleCopy(t *testing.T) {
	path, _ := buildFreeStore(t, 600, false, 100)
	interruptCompact(t, path, 3)
	db, err := Open(path, Options{Network: testNetwork})
	if err != nil {
		t.Fatal(err)
	}
	if exists(path + compactTempSuffix) {
		t.Fatal("Open left the copy of an unfinished compaction")
	}
	appendSynth(t, db, seedCompact, 500, 510)
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	// Written behind Open's back: the copy's txid is not the store's.
	interruptCompact(t, path, 3)
	rawUpdate(t, path, func(tx *bolt.Tx) error {
		return tx.Bucket(bucketTxPool).Put(make([]byte, 32), []byte("changed"))
	})
	want, _ := rawDump(t, path)
	res, err := Compact(context.Background(), path, CompactOptions{Network: testNetwork})
	if err != nil {
		t.Fatal(err)
	}
	if res.Resumed {
		t.Fatalf("resumed a copy of another state of the store: %+v", res)
	}
	got, _ := rawDump(t, path)
	if d := diffDumps(got, want); d != "" {
		t.Fatalf("the compacted store differs:%s", d)
	}
}

// A store that a running node holds is refused, and left alone.
func TestCompactRefusesAStoreInUse(t *testing.T) {
	db, path := openTemp(t)
	appendSynth(t, db, seedCompact, 0, 5)
	_, err := Compact(context.Background(), path, CompactOptions{Network: testNetwork, LockTimeout: 50 * time.Millisecond})
	if !errors.Is(err, ErrInUse) {
		t.Fatalf("compacting an open store: %v", err)
	}
	if exists(path + compactTempSuffix) {
		t.Fatal("a refused compaction left a copy")
	}
	_, err = Compact(context.Background(), filepath.Join(t.TempDir(), "none.db"), CompactOptions{Network: testNetwork})
	if !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("compacting no store: %v", err)
	}
}

// kill -9 of a compaction during the copy, between the copy's end and the
// rename, and after the rename: the store's path always opens as the whole
// store (old or new), and the next compaction resumes or finishes the work,
// or the next Open drops the copy.
func TestKillDuringCompaction(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns and kills subprocesses")
	}
	rng := rand.New(rand.NewPCG(11, 11))
	const height, pops = 1500, 400
	// after: what follows the kill. "" the next round's victim carries on,
	// "compact" an in-process Compact finishes, "open" a node opens the store.
	rounds := []struct {
		fresh       bool
		stop, after string
	}{
		{true, "copy", ""}, {false, "copy", ""}, {false, "copy", "compact"},
		{true, "complete", "compact"},
		{true, "copy", "open"},
		{false, "copy", ""}, {false, "renamed", "open"},
	}
	var path string
	var want map[string]string
	var freeOld int64
	var midCopy, resumed int
	var lastCopied uint64 // the copy's state after the last kill, while it is carried on
	for round, r := range rounds {
		if r.fresh || rounds[max(round, 1)-1].after != "" {
			lastCopied = 0
		}
		if r.fresh {
			path, want = buildFreeStore(t, height, false, pops)
			_, freeOld = rawDump(t, path)
		}
		cmd := exec.Command(os.Args[0], "-test.run=^TestCompactVictim$")
		cmd.Env = append(os.Environ(), compactChildEnv+"="+path, compactStopEnv+"="+r.stop)
		cmd.Stderr = os.Stderr
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		lines := bufio.NewReader(out)
		var line string
		for line != r.stop+"\n" && (r.stop != "copy" || line != "copying\n") {
			if line, err = lines.ReadString('\n'); err != nil {
				_ = cmd.Process.Kill()
				_ = cmd.Wait()
				t.Fatalf("round %d: the victim ended before %s: %v", round, r.stop, err)
			}
		}
		if r.stop == "copy" {
			// Where in the copy the kill lands is left to chance.
			time.Sleep(time.Duration(rng.IntN(30)) * time.Millisecond)
		}
		if err := cmd.Process.Kill(); err != nil { // SIGKILL
			t.Fatal(err)
		}
		rest, _ := lines.ReadString(0)
		finished := cmd.Wait() == nil
		if finished && r.stop != "copy" {
			t.Fatalf("round %d: the victim finished before the kill", round)
		}

		got, free := rawDump(t, path)
		if d := diffDumps(got, want); d != "" {
			t.Fatalf("round %d (%s): the store differs after the kill:%s", round, r.stop, d)
		}
		state := "no copy"
		if exists(path + compactTempSuffix) {
			cp, _ := rawDump(t, path+compactTempSuffix)
			state = "a complete copy"
			if v, ok := cp[string(bucketCompactProgress)+"/"+string(compactStateKey)]; ok {
				s, err := decodeCompactState([]byte(v))
				if err != nil {
					t.Fatal(err)
				}
				state = fmt.Sprintf("a copy at %d bytes", s.copied)
				midCopy++
				// A victim that found a copy resumed it: it only got further.
				if s.copied < lastCopied {
					t.Fatalf("round %d: the copy went back from %d to %d bytes", round, lastCopied, s.copied)
				}
				lastCopied = s.copied
			}
		}
		t.Logf("round %d: killed at %s (finished %v, %q), %d bytes free, %s", round, r.stop, finished, rest, free, state)
		switch r.stop {
		case "complete":
			if state != "a complete copy" || free != freeOld {
				t.Fatalf("round %d: killed before the rename: %s, %d bytes free", round, state, free)
			}
		case "renamed":
			if state != "no copy" || free > 64<<10 {
				t.Fatalf("round %d: killed after the rename: %s, %d bytes free", round, state, free)
			}
		}
		switch r.after {
		case "compact":
			res, err := Compact(context.Background(), path, CompactOptions{Network: testNetwork})
			if err != nil {
				t.Fatalf("round %d: %v", round, err)
			}
			if res.Resumed {
				resumed++
			}
			got, free := rawDump(t, path)
			if d := diffDumps(got, want); d != "" || free > 64<<10 {
				t.Fatalf("round %d: after the resumed compaction (%d bytes free):%s", round, free, d)
			}
			t.Logf("round %d: compacted in-process: %+v", round, res)
		case "open":
			db, err := Open(path, Options{Network: testNetwork})
			if err != nil {
				t.Fatal(err)
			}
			if n := checkConsistent(t, db); n != height-pops {
				t.Fatalf("round %d: height %d", round, n)
			}
			if err := db.Close(); err != nil {
				t.Fatal(err)
			}
			if exists(path + compactTempSuffix) {
				t.Fatalf("round %d: Open left the copy", round)
			}
		}
	}
	if midCopy == 0 || resumed < 2 {
		t.Fatalf("%d kills inside the copy, %d compactions resumed: the test proved little", midCopy, resumed)
	}
}

// The hash-keyed buckets are copied 80 % full, not full: a full copy is
// smaller at first, but the first few percent of new blocks split its pages
// in halves (compactFillRandom's comment has the figures).
func TestCompactFillOfRandomBuckets(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and grows two stores")
	}
	randomPages := func(db *DB) int {
		st, err := db.BucketStats()
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, b := range st {
			if !slices.ContainsFunc(appendOrderedBuckets, func(a []byte) bool { return string(a) == b.Name }) {
				n += b.Allocated
			}
		}
		return n
	}
	const height = 2000
	var after, grown [2]int
	for i, fill := range []float64{1.0, compactFillRandom} {
		path, _ := buildFreeStore(t, height, false, 0)
		if _, err := Compact(context.Background(), path, CompactOptions{Network: testNetwork, randomFill: fill}); err != nil {
			t.Fatal(err)
		}
		db, err := Open(path, Options{Network: testNetwork})
		if err != nil {
			t.Fatal(err)
		}
		db.bolt.NoSync = true
		after[i] = randomPages(db)
		appendSynth(t, db, seedCompact, height, height*103/100) // a transaction a block, as a node adds them
		grown[i] = randomPages(db)
		_ = db.Close()
		t.Logf("hash-keyed buckets copied %.0f %% full: %d bytes of pages, %d after 3 %% more blocks", 100*fill, after[i], grown[i])
	}
	if after[0] >= after[1] || grown[0] <= grown[1] {
		t.Fatalf("pages of the hash-keyed buckets, full against %.0f %%: %v after the copy, %v after 3 %% more blocks",
			100*compactFillRandom, after, grown)
	}
}

func FuzzDecodeCompactState(f *testing.F) {
	for _, s := range []compactState{
		{sourceTxID: 7},
		{sourceTxID: 1 << 40, copied: 12345, bucket: bucketOutputs},
		{sourceTxID: 3, copied: 1, bucket: bucketBlockMeta, lastKey: heightKey(99)},
	} {
		v := encodeCompactState(&s)
		f.Add(v)
		f.Add(v[:len(v)-1])
	}
	f.Add([]byte{})
	f.Add(append([]byte{compactStateLayout1}, make([]byte, 16)...))
	f.Add(append(append([]byte{compactStateLayout1}, make([]byte, 16)...), 0x80, 0x00))
	f.Fuzz(func(t *testing.T, v []byte) {
		s, err := decodeCompactState(v)
		if err != nil {
			return
		}
		// Whatever decodes must be exactly what encodes back.
		if again := encodeCompactState(&s); !bytes.Equal(again, v) {
			t.Fatalf("decode then encode changed the value:\n%x\n%x", v, again)
		}
	})
}

// TestCompactMeasure measures Compact on a copy of a real store (the heavy
// chain's import, docs/storage.md "Giving space back"):
//
//	GONERO_COMPACT_STORE=DATA/fake/gonero.db go test -count=1 -run TestCompactMeasure -v ./chaindb/
//
// (-run TestCompactMeasure/as_imported for one of them) three ways: as it is, after an upgrade from schema 6 (its indexes turned
// back into schema 6's layout, then upgraded by Open), and with half its
// blocks popped. Each compacted store must hold what the store held.
func TestCompactMeasure(t *testing.T) {
	src := os.Getenv("GONERO_COMPACT_STORE")
	if src == "" {
		t.Skip("GONERO_COMPACT_STORE names no store to measure")
	}
	orig, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	network := os.Getenv("GONERO_COMPACT_NETWORK")
	if network == "" {
		network = "fakechain"
	}
	for _, how := range []string{"as imported", "upgraded from schema 6", "half its blocks popped"} {
		t.Run(strings.ReplaceAll(how, " ", "_"), func(t *testing.T) { measureCompact(t, how, orig, network) })
	}
}

func measureCompact(t *testing.T, how string, orig []byte, network string) {
	pages := func(path string) (alloc, end int64) {
		db, err := Open(path, Options{Network: network})
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		st, err := db.BucketStats()
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range st {
			alloc += int64(b.Allocated)
		}
		_ = db.View(func(r *Reader) error { end = r.Size(); return nil })
		return alloc, end
	}
	mb := func(n int64) string { return fmt.Sprintf("%.2f MB", float64(n)/1e6) }
	path := filepath.Join(t.TempDir(), "gonero.db")
	if err := os.WriteFile(path, orig, 0o600); err != nil {
		t.Fatal(err)
	}
	switch how {
	case "upgraded from schema 6":
		indexesToBolt(t, path)
		rawUpdate(t, path, func(tx *bolt.Tx) error {
			if err := fixedWidthIndexes(tx); err != nil {
				return err
			}
			return tx.Bucket(bucketInfo).Put(infoSchemaVersion, encodeU32(schemaVersionFixedIndexes))
		})
		start := time.Now()
		db, err := Open(path, Options{Network: network})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: the upgrade took %s", how, time.Since(start).Round(time.Millisecond))
		_ = db.Close()
	case "half its blocks popped":
		db, err := Open(path, Options{Network: network})
		if err != nil {
			t.Fatal(err)
		}
		h, _ := func() (h uint64, err error) {
			err = db.View(func(r *Reader) error { h, err = r.Height(); return err })
			return
		}()
		if err := db.Update(func(w *Writer) error {
			for range h / 2 {
				if _, err := w.PopTop(); err != nil {
					return err
				}
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		_ = db.Close()
	}
	want, _ := rawDump(t, path)
	allocBefore, endBefore := pages(path)
	res, err := Compact(context.Background(), path, CompactOptions{Network: network})
	if err != nil {
		t.Fatal(err)
	}
	got, _ := rawDump(t, path)
	if d := diffDumps(got, want); d != "" {
		t.Fatalf("%s: the compacted store differs:%s", how, d)
	}
	allocAfter, endAfter := pages(path)
	t.Logf("%s: file %s -> %s; up to the last page %s -> %s; free pages %s -> %s; bucket pages %s -> %s; compaction %s",
		how, mb(res.SizeBefore), mb(res.SizeAfter), mb(endBefore), mb(endAfter), mb(res.FreeBefore), mb(res.FreeAfter),
		mb(allocBefore), mb(allocAfter), res.Elapsed.Round(time.Millisecond))
}

// A complete copy whose rename a kill prevented is not swapped in once the
// store has changed behind Open's back: it is made again.
func TestCompactDropsStaleCompleteCopy(t *testing.T) {
	path, _ := buildFreeStore(t, 300, false, 100)
	func() {
		defer func() {
			if r := recover(); r != "killed" {
				t.Fatalf("recovered %v", r)
			}
		}()
		compactHook = func(point string) {
			if point == "complete" {
				panic("killed") // as a kill between the copy's end and the rename
			}
		}
		defer func() { compactHook = nil }()
		_, _ = Compact(context.Background(), path, CompactOptions{Network: testNetwork})
	}()
	if cp, _ := rawDump(t, path+compactTempSuffix); len(cp) == 0 {
		t.Fatal("no complete copy left")
	}
	rawUpdate(t, path, func(tx *bolt.Tx) error {
		return tx.Bucket(bucketTxPool).Put(make([]byte, 32), []byte("changed"))
	})
	want, _ := rawDump(t, path)
	if _, err := Compact(context.Background(), path, CompactOptions{Network: testNetwork}); err != nil {
		t.Fatal(err)
	}
	if got, _ := rawDump(t, path); diffDumps(got, want) != "" {
		t.Fatalf("a stale copy was swapped in:%s", diffDumps(got, want))
	}
}

// A node's Open that opened the store's file and then waited for its lock
// while Compact renamed the copy over it ends up on the new file, not on
// the old one, which is no longer in the directory.
func TestOpenAfterTheSwapUnderItsLockWait(t *testing.T) {
	if _, err := os.ReadDir("/proc/self/fd"); err != nil {
		t.Skip("no /proc/self/fd to see the second Open's descriptor:", err)
	}
	dir := t.TempDir()
	path, other := filepath.Join(dir, "chain.db"), filepath.Join(dir, "new.db")
	for i, p := range []string{path, other} {
		db, err := Open(p, Options{Network: testNetwork})
		if err != nil {
			t.Fatal(err)
		}
		appendSynth(t, db, seedCompact, 0, uint64(3+i))
		_ = db.Close()
	}
	// The LSM stays beside path when its file is swapped: it must hold the
	// new file's entries (the 3-block chain's are among the 4-block one's).
	if err := os.RemoveAll(lsmPath(path)); err != nil {
		t.Fatal(err)
	}
	if err := os.CopyFS(lsmPath(path), os.DirFS(lsmPath(other))); err != nil {
		t.Fatal(err)
	}
	holder, err := Open(path, Options{Network: testNetwork})
	if err != nil {
		t.Fatal(err)
	}
	opened := make(chan *DB, 1)
	go func() {
		db, err := Open(path, Options{Network: testNetwork, LockTimeout: time.Minute})
		if err != nil {
			t.Error(err)
		}
		opened <- db
	}()
	// Wait until the second Open has the old file open: two descriptors
	// of this process then point at it.
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(time.Minute); ; {
		n := 0
		fds, _ := os.ReadDir("/proc/self/fd")
		for _, fd := range fds {
			if ffi, err := os.Stat(filepath.Join("/proc/self/fd", fd.Name())); err == nil && os.SameFile(fi, ffi) {
				n++
			}
		}
		if n >= 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the second Open never opened the file")
		}
		time.Sleep(time.Millisecond) // polling /proc, not a guess at timing
	}
	if err := os.Rename(other, path); err != nil {
		t.Fatal(err)
	}
	_ = holder.Close()
	db := <-opened
	if db == nil {
		t.FailNow()
	}
	defer db.Close()
	if n := checkConsistent(t, db); n != 4 {
		t.Fatalf("the waiting Open got a chain of %d blocks: the old file's, not the new one's 4", n)
	}
}
