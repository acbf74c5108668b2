// Package importer fills a chain from a file written by
// monero-blockchain-export. Every block goes through the chain manager's
// single door (chain.AddBlock), so an imported block is checked exactly like
// one from a peer. An import can be interrupted at any moment (SIGINT or
// kill -9) and resumed: it continues after the last block the store holds.
package importer

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sync"
	"time"

	"github.com/gonero/gonero/chain"
	"github.com/gonero/gonero/chainexport"
)

// Progress receives the importer's progress; the command line shows a bar on
// a terminal and log lines otherwise.
type Progress interface {
	Begin(from, total uint64) // first height to add, number of blocks in the file
	Added(height uint64)
	End()
}

// Result summarises an import.
type Result struct {
	From, To uint64 // heights added: From..To-1
	Skipped  uint64 // records already in the store
	Txs      uint64 // non-coinbase transactions in the blocks added
	Elapsed  time.Duration
}

// Added is the number of blocks this run added.
func (r Result) Added() uint64 { return r.To - r.From }

// lookahead is how many blocks the reader may hold, checked ahead, beyond
// the batch being gathered. With the one it is checking that is lookahead +
// 1 blocks, fewer than consensus.TxSpendableAge: without batching their ring
// members are in the store by then. (A larger value would only let some
// checks miss; a miss is checked again when the block is added.)
const lookahead = 4

// preverifiers is how many blocks Preverify checks at once: one a core.
func preverifiers() int { return max(runtime.GOMAXPROCS(0), 1) }

// readItem is the reader's next block, or io.EOF, or why it stopped.
type readItem struct {
	rec *chainexport.Record
	err error
}

// readNext reads the next record. A file cut exactly between two records
// ends cleanly (io.EOF); the header says how far it should go.
func readNext(rd *chainexport.Reader, path string) readItem {
	rec, err := rd.Next()
	if err == io.EOF {
		if last := rd.Info.LastHeight; last != 0 && rd.NextHeight() <= last {
			return readItem{err: fmt.Errorf("%s ends after block %d but its header says the export runs to block %d: the file is truncated",
				path, rd.NextHeight()-1, last)}
		}
		return readItem{err: io.EOF}
	}
	if err != nil {
		return readItem{err: err}
	}
	return readItem{rec: rec}
}

// ErrDifferentChain means the file's blocks are not the ones the store holds.
var ErrDifferentChain = errors.New("the file holds a different chain than the store")

// Batch bounds how many blocks the importer commits in one store
// transaction. A file import acknowledges no block to anyone until it ends,
// so it need not make each block durable on its own: committing many at
// once (chain.AddBatch, atomic, fsynced once) writes each page the blocks
// share (the trees' upper levels, the free list, the hash-keyed indexes'
// leaves) once per batch instead of once per block. A kill -9 leaves the
// store at the end of the last committed batch, and the import resumes
// from there.
type Batch struct {
	Blocks int // at most this many blocks; ≤ 1 commits every block on its own
	Bytes  int // and at most about this many bytes of block and tx blobs (0: no bound)
}

// DefaultBatch is what Import uses. The byte bound keeps the memory a batch
// holds (the decoded blocks, bbolt's dirty pages) small on a mainnet-sized
// chain; the block bound keeps an interrupted import's lost work, and the
// time the chain's lock is held, short.
var DefaultBatch = Batch{Blocks: 500, Bytes: 32 << 20}

// Import adds the blocks of the export file at path that the chain does not
// have yet, stopping at the first invalid block (the error names its height
// and the rule it breaks; everything before it stays added), at the end of
// the file, or when ctx is cancelled (returning ctx.Err() after the blocks
// read so far are committed). maxBlocks > 0 stops after that many added
// blocks. Blocks are committed in batches of DefaultBatch.
func Import(ctx context.Context, c *chain.Chain, path string, maxBlocks uint64, progress Progress) (Result, error) {
	return ImportBatched(ctx, c, path, maxBlocks, progress, DefaultBatch)
}

// ImportBatched is Import committing batches of at most batch.
func ImportBatched(ctx context.Context, c *chain.Chain, path string, maxBlocks uint64, progress Progress, batch Batch) (Result, error) {
	start := time.Now()
	rd, err := chainexport.Open(path)
	if err != nil {
		return Result{}, err
	}
	defer rd.Close()
	if rd.Info.FirstHeight != 0 {
		return Result{}, fmt.Errorf("%s starts at height %d; only files exported from genesis can be imported", path, rd.Info.FirstHeight)
	}
	height := c.Height()
	res := Result{From: height, To: height}
	total := rd.Info.LastHeight + 1

	// The genesis block is the network's own; make sure the file's matches,
	// and that the last block we hold is the file's block at that height, so
	// that resuming with another chain's file fails clearly.
	check := []uint64{0}
	if height > 1 {
		check = append(check, height-1)
	}
	for _, h := range check {
		if err := rd.Skip(h - rd.NextHeight()); err != nil {
			return res, err
		}
		rec, err := rd.Next()
		if err == io.EOF {
			return res, fmt.Errorf("%w: the file ends before height %d", ErrDifferentChain, h)
		}
		if err != nil {
			return res, err
		}
		id, err := rec.Block.ID()
		if err != nil {
			return res, err
		}
		if want := c.HashAt(h); id != want {
			return res, fmt.Errorf("%w: block %d is %s in the file, %s in the store", ErrDifferentChain, h, id, want)
		}
	}
	if err := rd.Skip(height - rd.NextHeight()); err != nil {
		return res, err
	}
	res.Skipped = height
	if progress != nil {
		progress.Begin(height, total)
		defer progress.End()
	}
	// A second goroutine reads the blocks ahead and runs their
	// transactions' own checks (chain.Preverify) while this one adds the
	// block before; at most lookahead blocks wait, so their rings (at least
	// TxSpendableAge blocks old) are in the store when they are verified.
	// Preverify runs on preverifiers blocks at once (each one's range
	// proofs are one batch on one core): the result goes out in file
	// order.
	type ahead struct {
		it    readItem
		ready chan struct{} // closed when it is preverified
	}
	items := make(chan *ahead, lookahead)
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(items)
		slots := make(chan struct{}, preverifiers())
		for {
			a := &ahead{it: readNext(rd, path), ready: make(chan struct{})}
			if rec := a.it.rec; rec != nil {
				select {
				case slots <- struct{}{}:
				case <-done:
					return
				}
				wg.Add(1)
				go func() {
					defer wg.Done()
					c.Preverify(rec.Block, rec.Txs, rec.TxBlobs)
					<-slots
					close(a.ready)
				}()
			} else {
				close(a.ready)
			}
			select {
			case items <- a:
			case <-done:
				return
			}
			if a.it.rec == nil {
				return
			}
		}
	}()
	defer wg.Wait()
	defer close(done)
	// A block read ahead is preverified against the committed store only:
	// ring members in the batch not yet committed are not found there, and
	// the block's own check (inside AddBatch, signatures on a worker pool)
	// verifies those transactions instead. The range proofs, most of the
	// work, need no store and are always done ahead.
	var (
		pending []chain.BatchBlock
		heights []uint64
		bytes   int
	)
	// flush commits pending, as one batch where the blocks extend the main
	// chain (all of them, in a file read in order), the others one by one.
	flush := func() error {
		todo := pending
		pending, bytes = nil, 0
		for len(todo) > 0 {
			k, err := c.AddBatch(todo)
			for i := 0; i < k; i++ {
				res.To = heights[0] + 1
				res.Txs += uint64(len(todo[i].Txs))
				if progress != nil {
					progress.Added(heights[0])
				}
				heights = heights[1:]
			}
			todo = todo[k:]
			if err != nil {
				heights = nil
				return err
			}
			if len(todo) == 0 {
				break
			}
			b := todo[0]
			if _, err := c.AddBlock(b.Block, b.Blob, b.Txs, b.TxBlobs); err != nil {
				heights = nil
				return err
			}
			res.To = heights[0] + 1
			res.Txs += uint64(len(b.Txs))
			if progress != nil {
				progress.Added(heights[0])
			}
			heights = heights[1:]
			todo = todo[1:]
		}
		return nil
	}
	// finish commits what is pending and ends the import with err (io.EOF:
	// the file's end), unless the commit refuses a block: that block comes
	// before whatever stopped the reading, so its error is the one to tell.
	finish := func(err error) (Result, error) {
		if ferr := flush(); ferr != nil {
			err = ferr
		} else if errors.Is(err, io.EOF) {
			err = nil
		}
		res.Elapsed = time.Since(start)
		return res, err
	}
	for maxBlocks == 0 || res.Added()+uint64(len(pending)) < maxBlocks {
		if err := ctx.Err(); err != nil {
			return finish(err)
		}
		// The reader is awaited even with blocks pending: committing them
		// early would acknowledge nothing to anyone, and the reader (which
		// runs the range proofs) is usually the slower side.
		a := <-items
		<-a.ready
		it := a.it
		if it.err != nil {
			return finish(it.err)
		}
		rec := it.rec
		pending = append(pending, chain.BatchBlock{Block: rec.Block, Blob: rec.BlockBlob, Txs: rec.Txs, TxBlobs: rec.TxBlobs})
		heights = append(heights, rec.Height)
		bytes += len(rec.BlockBlob)
		for _, b := range rec.TxBlobs {
			bytes += len(b)
		}
		if len(pending) >= batch.Blocks || batch.Bytes > 0 && bytes >= batch.Bytes {
			if err := flush(); err != nil {
				return finish(err)
			}
		}
	}
	return finish(nil)
}
