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

// lookahead is how many blocks the reader may hold, checked ahead, before
// the one being added. With the one it is checking that is lookahead + 1
// blocks, fewer than consensus.TxSpendableAge: their ring members are in
// the store by then. (A larger value would only let some checks miss.)
const lookahead = 4

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

// Import adds the blocks of the export file at path that the chain does not
// have yet, stopping at the first invalid block (the error names its height
// and the rule it breaks; everything before it stays added), at the end of
// the file, or when ctx is cancelled (returning ctx.Err() after the block in
// progress is committed). maxBlocks > 0 stops after that many added blocks.
func Import(ctx context.Context, c *chain.Chain, path string, maxBlocks uint64, progress Progress) (Result, error) {
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
	items := make(chan readItem, lookahead)
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(items)
		for {
			it := readNext(rd, path)
			if it.rec != nil {
				c.Preverify(it.rec.Block, it.rec.Txs, it.rec.TxBlobs)
			}
			select {
			case items <- it:
			case <-done:
				return
			}
			if it.rec == nil {
				return
			}
		}
	}()
	defer wg.Wait()
	defer close(done)
	for maxBlocks == 0 || res.Added() < maxBlocks {
		if err := ctx.Err(); err != nil {
			res.Elapsed = time.Since(start)
			return res, err
		}
		it := <-items
		if it.err == io.EOF {
			break
		}
		if it.err != nil {
			res.Elapsed = time.Since(start)
			return res, it.err
		}
		rec := it.rec
		if _, err := c.AddBlock(rec.Block, rec.BlockBlob, rec.Txs, rec.TxBlobs); err != nil {
			res.Elapsed = time.Since(start)
			return res, err
		}
		res.To = rec.Height + 1
		res.Txs += uint64(len(rec.Txs))
		if progress != nil {
			progress.Added(rec.Height)
		}
	}
	res.Elapsed = time.Since(start)
	return res, nil
}
