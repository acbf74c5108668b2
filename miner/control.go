package miner

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/gonero/gonero/address"
	"github.com/gonero/gonero/chain"
	"github.com/gonero/gonero/consensus"
	"github.com/gonero/gonero/cryptonote"
	"github.com/gonero/gonero/internal/u128"
)

// Background-mining settings monerod reports while background mining is
// enabled (miner.h BACKGROUND_MINING_DEFAULT_*): gonero accepts the flag
// and reports these, but does not watch the machine's idleness.
const (
	BackgroundIdleThreshold = 90 // percent
	BackgroundMinIdleSecs   = 10
	BackgroundTarget        = 40 // percent
)

// Errors of Start and Stop, which start_mining and stop_mining turn into
// monerod's status strings.
var (
	ErrAlreadyMining = errors.New("already mining")
	ErrNotMining     = errors.New("mining never started")
)

// Status is the mining loop's state, as mining_status reports it.
type Status struct {
	Active        bool
	Address       address.Address
	Threads       uint32
	Background    bool
	IgnoreBattery bool
	// Speed is the hash rate over the last few seconds (hashes per second).
	Speed uint64
	// BlockReward is the expected reward of the current template.
	BlockReward uint64
}

// control is the state of the loop Start runs.
type control struct {
	mu         sync.Mutex
	active     bool
	cancel     context.CancelFunc
	done       chan struct{}
	to         address.Address
	threads    uint32
	background bool
	ignoreBatt bool
	reward     uint64
	// rate samples: the hash count at the start of the current window and
	// the rate measured over the previous one (miner::merge_hr).
	sampleAt     time.Time
	sampleHashes uint64
	rate         uint64
}

// rateWindow is how long the hash rate is measured over (monerod merges
// its counts every 2 seconds).
const rateWindow = 2 * time.Second

// Start runs the mining loop (Run, pausing Options.Interval between
// blocks) in the background with threads nonce searchers (0: one, as
// monerod starts its autodetection with one thread), paying to. It is
// miner::start: background and ignoreBattery are recorded for Status.
func (m *Miner) Start(to address.Address, threads int, background, ignoreBattery bool) error {
	c := &m.ctl
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.active {
		return ErrAlreadyMining
	}
	if threads <= 0 {
		threads = 1
	}
	ctx, cancel := context.WithCancel(context.Background())
	c.active, c.cancel, c.done = true, cancel, make(chan struct{})
	c.to, c.threads, c.background, c.ignoreBatt, c.reward = to, uint32(threads), background, ignoreBattery, 0
	c.sampleAt, c.sampleHashes, c.rate = time.Now(), m.hashes.Load(), 0
	done := c.done
	go func() {
		defer close(done)
		_ = m.run(ctx, to, m.opts.Interval, threads, func(t *Template) {
			c.mu.Lock()
			c.reward = t.Reward
			c.mu.Unlock()
		})
	}()
	return nil
}

// Stop ends the loop Start began and waits for it (a nonce search in
// progress is abandoned).
func (m *Miner) Stop() error {
	c := &m.ctl
	c.mu.Lock()
	if !c.active {
		c.mu.Unlock()
		return ErrNotMining
	}
	cancel, done := c.cancel, c.done
	c.active, c.background = false, false
	c.mu.Unlock()
	cancel()
	<-done
	return nil
}

// Status reports the loop's state.
func (m *Miner) Status() Status {
	c := &m.ctl
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.active {
		return Status{}
	}
	now := time.Now()
	if d := now.Sub(c.sampleAt); d >= rateWindow {
		h := m.hashes.Load()
		c.rate = (h - c.sampleHashes) * uint64(time.Second) / uint64(d)
		c.sampleAt, c.sampleHashes = now, h
	}
	return Status{Active: true, Address: c.to, Threads: c.threads, Background: c.background,
		IgnoreBattery: c.ignoreBatt, Speed: c.rate, BlockReward: c.reward}
}

// ErrTxNotInPool: a submitted block names a transaction the pool does not
// hold (monerod cannot complete the block either).
var ErrTxNotInPool = errors.New("block transaction not in the pool")

// Submit adds a block a pool (or any external miner) found: its
// transactions are taken from the pool, it goes through chain.Add like any
// block, and a block that joined the main chain is announced to peers
// (Options.Mined), as core::handle_block_found does; the pool follows the
// chain on its own.
func (m *Miner) Submit(blk *cryptonote.Block, blob []byte) (chain.AddBlockResult, error) {
	txs := make([]*cryptonote.Transaction, len(blk.TxHashes))
	txBlobs := make([][]byte, len(blk.TxHashes))
	for i, id := range blk.TxHashes {
		if m.opts.Pool == nil {
			return chain.AddBlockResult{}, fmt.Errorf("%w: %s (no pool)", ErrTxNotInPool, id)
		}
		entry, ok := m.opts.Pool.Get(id)
		if !ok {
			return chain.AddBlockResult{}, fmt.Errorf("%w: %s", ErrTxNotInPool, id)
		}
		txs[i], txBlobs[i] = entry.Tx, entry.Blob
	}
	m.precomputePoW(blk)
	res, err := m.chain.Add(blk, blob, txs, txBlobs)
	if err == nil && res.MainChain && m.opts.Mined != nil {
		m.opts.Mined(blob)
	}
	return res, err
}

// precomputePoW hashes the proof of work of a submitted block on the chain's
// top before chain.Add takes the writer's lock, which checkPoW would
// otherwise hold for the whole hash (tens of milliseconds in light mode,
// far more on a busy machine), keeping out every other block meanwhile;
// submissions racing each other hash in parallel, one VM each. The hash is
// computed once: the chain's check takes it (chain.PrecomputePoW) and still
// compares it with the difficulty. Blocks not on the top (alternative,
// orphan, already known) are left to chain.Add, which hashes only those
// that get as far as the check; so are blocks at difficulty 1, whose hash
// nobody computes.
func (m *Miner) precomputePoW(blk *cryptonote.Block) {
	next := m.chain.NextBlockFacts()
	if blk.PrevID != next.Top.Hash || next.Difficulty.Cmp(u128.From64(1)) <= 0 {
		return
	}
	seed := m.chain.HashAt(consensus.SeedHeight(next.Height))
	// On error nothing is stored, and chain.Add hashes and reports.
	_ = m.chain.PrecomputePoW(blk, next.Height, seed)
}
