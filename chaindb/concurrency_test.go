package chaindb

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestReadersDuringWrites runs readers that walk the whole chain while one
// writer appends and pops. Every snapshot must be a whole chain: linked, with
// a tx counter that matches its blocks, and unchanged for as long as it is open.
func TestReadersDuringWrites(t *testing.T) {
	db, _ := openTemp(t)
	const target = 150
	want := make([]BlockMeta, target)
	for h := range want {
		want[h] = synthBlock(seedMain, uint64(h)).Meta
	}
	var done atomic.Bool
	var wg sync.WaitGroup
	errs := make(chan error, 8)

	wg.Add(1)
	go func() {
		defer wg.Done()
		defer done.Store(true)
		for i, h := 0, uint64(0); h < target; i++ {
			if i%7 == 6 {
				if _, err := db.PopTop(); err != nil {
					errs <- err
					return
				}
				h--
				continue
			}
			if err := db.Append(synthBlock(seedMain, h)); err != nil {
				errs <- err
				return
			}
			h++
		}
	}()

	var snapshots, partial atomic.Int64
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !done.Load() {
				var height uint64
				err := db.View(func(r *Reader) (err error) {
					height, err = checkSnapshot(r, want)
					return err
				})
				if err != nil {
					errs <- err
					return
				}
				snapshots.Add(1)
				if height > 0 && height < target {
					partial.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if partial.Load() == 0 {
		t.Fatal("no reader saw the chain while it was being written; the test proved nothing")
	}
	t.Logf("%d snapshots checked, %d of a chain being written", snapshots.Load(), partial.Load())
	if n := checkConsistent(t, db); n != target {
		t.Fatalf("height = %d, want %d", n, target)
	}
}

// checkSnapshot walks one snapshot twice, a little apart, and wants the same
// consistent chain both times. It returns the snapshot's height.
func checkSnapshot(r *Reader, want []BlockMeta) (uint64, error) {
	walk := func() (height, txs uint64, err error) {
		if height, err = r.Height(); err != nil {
			return
		}
		metas, err := r.MetasInRange(0, height)
		if err != nil {
			return
		}
		for i, m := range metas {
			if m != want[i] {
				return 0, 0, fmt.Errorf("height %d of a %d-block snapshot is not the expected block", i, height)
			}
			txs += m.NumTxes
		}
		count, err := r.TxCount()
		if err != nil {
			return
		}
		if count != txs {
			return 0, 0, fmt.Errorf("snapshot of %d blocks: tx counter %d, blocks hold %d", height, count, txs)
		}
		if height > 0 {
			top, err := r.Top()
			if err != nil || top != metas[height-1] {
				return 0, 0, fmt.Errorf("snapshot of %d blocks: Top = %v, %v", height, top.Height, err)
			}
		}
		return height, txs, nil
	}
	h1, t1, err := walk()
	if err != nil {
		return 0, err
	}
	time.Sleep(time.Millisecond)
	h2, t2, err := walk()
	if err != nil {
		return 0, err
	}
	if h1 != h2 || t1 != t2 {
		return 0, fmt.Errorf("snapshot changed while open: %d blocks/%d txs, then %d/%d", h1, t1, h2, t2)
	}
	return h1, nil
}

// TestOpenReaderDoesNotBlockWriter holds a read view open while the writer
// appends and pops; the writer must finish without waiting for it, and the
// view must keep seeing the chain as it was.
func TestOpenReaderDoesNotBlockWriter(t *testing.T) {
	db, _ := openTemp(t)
	appendSynth(t, db, seedMain, 0, 10)
	inView := make(chan struct{})
	writerDone := make(chan error, 1)
	readerErr := make(chan error, 1)
	go func() {
		readerErr <- db.View(func(r *Reader) error {
			close(inView)
			select {
			case err := <-writerDone:
				if err != nil {
					return err
				}
			case <-time.After(30 * time.Second):
				return fmt.Errorf("writer blocked behind an open reader")
			}
			if h, err := r.Height(); err != nil || h != 10 {
				return fmt.Errorf("open view sees height %d, %v after the writer moved on; want 10", h, err)
			}
			return nil
		})
	}()
	<-inView
	go func() {
		for h := uint64(10); h < 40; h++ {
			if err := db.Append(synthBlock(seedMain, h)); err != nil {
				writerDone <- err
				return
			}
		}
		_, err := db.PopTop()
		writerDone <- err
	}()
	if err := <-readerErr; err != nil {
		t.Fatal(err)
	}
	if n := checkConsistent(t, db); n != 39 {
		t.Fatalf("height = %d, want 39", n)
	}
}
