// Package miner builds and mines blocks on top of the chain: block
// templates (monerod's create_block_template for a block of the miner
// transaction alone), the miner transaction paying an address, the nonce
// search against the chain's difficulty with RandomX, and a loop that mines
// continuously (gonerod --start-mining). Blocks enter the chain through
// chain.AddBlock like any other.
package miner

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gonero/gonero/address"
	"github.com/gonero/gonero/chain"
	"github.com/gonero/gonero/chaindb"
	"github.com/gonero/gonero/consensus"
	"github.com/gonero/gonero/cryptonote"
	"github.com/gonero/gonero/internal/u128"
	"github.com/gonero/gonero/txpool"
)

// Options configures a Miner; the zero value is ready to use.
type Options struct {
	// Workers is the number of goroutines searching nonces (default: one
	// per CPU). Each RandomX hash takes a VM from the hasher's pool.
	Workers int
	// ExtraNonce is the miner transaction's extra-nonce field. monerod's
	// generateblocks reserves one zero byte (reserve_size 1); nil adds none.
	ExtraNonce []byte
	// Now is the clock for block timestamps (default time.Now); Rand the
	// source of transaction keys (default crypto/rand).
	Now    func() time.Time
	Rand   io.Reader
	Logger *slog.Logger
	// Mined, when set, is told every block the miner added to the main
	// chain (the node relays it to its peers).
	Mined func(blob []byte)
	// Synchronized, when set, gates Run: like monerod's miner, it mines
	// only once the node counts itself synchronized (at once with
	// --offline).
	Synchronized func() bool
	// Pool, when set, supplies transactions for the blocks: verified
	// against the chain, best fee per weight first.
	Pool TxSource
	// Interval is the pause between blocks of the loop Start runs (see Run).
	Interval time.Duration
}

// TxSource is the transaction pool as the miner sees it.
type TxSource interface {
	// Select returns verified, mutually compatible transactions, best fee
	// per weight first, weighing at most maxWeight together.
	Select(maxWeight uint64) []*txpool.Entry
	// Get finds one transaction (submit_block takes a block's
	// transactions from the pool).
	Get(id cryptonote.Hash) (*txpool.Entry, bool)
}

// Miner mines blocks onto a chain. Its methods are safe for concurrent use:
// blocks are mined one at a time.
type Miner struct {
	chain *chain.Chain
	opts  Options
	mu    sync.Mutex // one block at a time

	hashes  atomic.Uint64 // RandomX hashes computed, for the hash rate
	running atomic.Int32  // Run loops in progress (continuous mining)

	ctl control // the mining loop started by Start
}

// New returns a miner for c.
func New(c *chain.Chain, opts Options) *Miner {
	if opts.Workers <= 0 {
		opts.Workers = runtime.NumCPU()
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	return &Miner{chain: c, opts: opts}
}

// Hashes is the number of proof-of-work hashes computed so far.
func (m *Miner) Hashes() uint64 { return m.hashes.Load() }

// Running says whether the miner mines continuously (Run is in progress),
// as monerod's miner::is_mining.
func (m *Miner) Running() bool { return m.running.Load() > 0 }

// Template is a block ready for the nonce search.
type Template struct {
	Block      cryptonote.Block
	Height     uint64
	Difficulty u128.U128
	Seed       cryptonote.Hash // id of the RandomX seed block
	Reward     uint64          // the miner transaction's amount: reward plus fees
	Fees       uint64
	// Txs are the pool transactions the block includes, in its order.
	Txs []*txpool.Entry
}

// NewTemplate builds a block on the chain's top paying to (Blockchain::
// create_block_template with an empty pool): major version the chain's at
// the height, minor version the newest it knows (its vote), timestamp the
// clock but not below the median of the last 60 blocks, difficulty and
// reward from the chain's figures for the next block.
func (m *Miner) NewTemplate(to address.Address) (*Template, error) {
	return m.BlockTemplate(to, m.opts.ExtraNonce)
}

// BlockTemplate is NewTemplate with the miner transaction's extra nonce
// given (get_block_template's reserve_size zero bytes or extra_nonce; empty
// adds no nonce field).
func (m *Miner) BlockTemplate(to address.Address, extraNonce []byte) (*Template, error) {
	net := m.chain.Network()
	next := m.chain.NextBlockFacts()
	height := next.Height
	version := net.VersionAt(height)
	if version < minMiningVersion {
		return nil, fmt.Errorf("height %d (version %d): %w", height, version, ErrVersionTooOld)
	}
	timestamp := uint64(m.opts.Now().Unix())
	if next.HasMedianTimestamp && timestamp < next.MedianTimestamp {
		timestamp = next.MedianTimestamp
	}
	key, err := newTxKey(m.opts.Rand)
	if err != nil {
		return nil, err
	}
	// From version 12 the reward penalty uses the effective median
	// (consensus.RewardMedian), the figure NextBlockFacts reports.
	picked, txsWeight, fees := m.fill(version, next.EffectiveMedian, next.Top.GeneratedCoins)
	tx, reward, err := rewardedMinerTx(height, to, version, next.EffectiveMedian, next.Top.GeneratedCoins, txsWeight, fees, key, extraNonce)
	if err != nil {
		return nil, err
	}
	var ids []cryptonote.Hash
	for _, e := range picked {
		ids = append(ids, e.ID)
	}
	t := &Template{
		Block: cryptonote.Block{
			BlockHeader: cryptonote.BlockHeader{
				MajorVersion: version,
				MinorVersion: net.NewestVersion(),
				Timestamp:    timestamp,
				PrevID:       next.Top.Hash,
			},
			MinerTx:  tx,
			TxHashes: ids,
		},
		Height:     height,
		Difficulty: next.Difficulty,
		Seed:       m.chain.HashAt(consensus.SeedHeight(height)),
		Reward:     reward,
		Fees:       fees,
		Txs:        picked,
	}
	return t, nil
}

// fill is tx_memory_pool::fill_block_template: pool transactions, best fee
// per weight first, while the block stays under 2 × median − 600 (130% of
// the median before version 5) and, from version 5, while each one raises
// what the miner earns (the reward after the weight penalty plus fees).
func (m *Miner) fill(version uint8, median, generated uint64) (picked []*txpool.Entry, weight, fees uint64) {
	if m.opts.Pool == nil {
		return nil, 0, 0
	}
	median = max(median, consensus.FullRewardZone(version))
	limit := 2*median - consensus.CoinbaseBlobReservedSize
	if version < 5 {
		limit = 130*median/100 - consensus.CoinbaseBlobReservedSize
	}
	best, err := consensus.BlockReward(median, 0, generated, version)
	if err != nil {
		return nil, 0, 0
	}
	for _, e := range m.opts.Pool.Select(limit) {
		if weight+e.Weight > limit {
			continue
		}
		if version >= 5 {
			r, err := consensus.BlockReward(median, weight+e.Weight, generated, version)
			if err != nil || r+fees+e.Fee < best {
				continue
			}
			best = r + fees + e.Fee
		} else if weight > median {
			break
		}
		picked = append(picked, e)
		weight += e.Weight
		fees += e.Fee
	}
	return picked, weight, fees
}

// ErrNonceSpaceExhausted: no nonce from the starting one up meets the
// difficulty (a new template, with a new key and timestamp, would).
var ErrNonceSpaceExhausted = errors.New("no nonce satisfies the difficulty")

// Solve searches nonces from start upwards (miner::find_nonce_for_given_block)
// and sets the block's nonce to one whose proof-of-work hash meets the
// template's difficulty. At difficulty 1 every hash does, so the start
// nonce is taken without hashing, as monerod's search ends at its first try.
func (m *Miner) Solve(ctx context.Context, t *Template, start uint32) error {
	return m.solve(ctx, t, start, m.opts.Workers)
}

func (m *Miner) solve(ctx context.Context, t *Template, start uint32, workers int) error {
	t.Block.Nonce = start
	if t.Difficulty.Cmp(u128.From64(1)) <= 0 {
		return nil
	}
	pow := m.chain.PoW()
	if pow == nil {
		return chain.ErrNoPoWHasher
	}
	blob := t.Block.HashingBlob()
	// The nonce is the header's last 4 bytes; the rest of the hashing blob
	// (the miner tx's tree root, the tx count) does not change with it.
	offset := len(cryptonote.AppendBlockHeader(nil, &t.Block.BlockHeader)) - 4
	parent := ctx
	ctx, cancel := context.WithCancel(parent)
	defer cancel()
	var (
		found   atomic.Bool
		nonce   uint32
		failure error
		once    sync.Once
		wg      sync.WaitGroup
	)
	finish := func(n uint32, err error) {
		once.Do(func() { nonce, failure = n, err; found.Store(err == nil); cancel() })
	}
	for w := range uint64(workers) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			buf := append([]byte(nil), blob...)
			for n := uint64(start) + w; n <= 0xffffffff; n += uint64(workers) {
				if ctx.Err() != nil {
					return
				}
				binary.LittleEndian.PutUint32(buf[offset:], uint32(n))
				h, err := consensus.BlockPoWHash(pow, t.Height, t.Block.MajorVersion, t.Seed, buf)
				m.hashes.Add(1)
				if err != nil {
					finish(0, err)
					return
				}
				if consensus.CheckPoWHash(h, t.Difficulty) {
					finish(uint32(n), nil)
					return
				}
			}
		}()
	}
	wg.Wait()
	switch {
	case found.Load():
		t.Block.Nonce = nonce
		return nil
	case failure != nil:
		return failure
	case parent.Err() != nil:
		return parent.Err()
	}
	return ErrNonceSpaceExhausted
}

// MineBlock builds a template paying to, solves it from nonce start, and
// adds the block to the chain. Should another writer extend the chain
// meanwhile, it starts over on the new top.
func (m *Miner) MineBlock(ctx context.Context, to address.Address, start uint32) (chaindb.BlockMeta, error) {
	return m.mineBlock(ctx, to, start, m.opts.Workers, nil)
}

// mineBlock is MineBlock with workers nonce searchers; onTemplate, if not
// nil, is told each template before its nonce search.
func (m *Miner) mineBlock(ctx context.Context, to address.Address, start uint32, workers int, onTemplate func(*Template)) (chaindb.BlockMeta, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for attempt := 0; ; attempt++ {
		t, err := m.NewTemplate(to)
		if err != nil {
			return chaindb.BlockMeta{}, err
		}
		if onTemplate != nil {
			onTemplate(t)
		}
		if err := m.solve(ctx, t, start, workers); err != nil {
			return chaindb.BlockMeta{}, err
		}
		// The chain stores the blob it is given; parse it back so that the
		// block checked is exactly the one the blob holds.
		blob := t.Block.Serialize()
		blk, err := cryptonote.ParseBlock(blob)
		if err != nil {
			return chaindb.BlockMeta{}, fmt.Errorf("mined block does not parse: %w", err)
		}
		txs := make([]*cryptonote.Transaction, len(t.Txs))
		txBlobs := make([][]byte, len(t.Txs))
		for i, e := range t.Txs {
			txs[i], txBlobs[i] = e.Tx, e.Blob
		}
		res, err := m.chain.Add(blk, blob, txs, txBlobs)
		if err == nil && !res.MainChain && attempt < 3 {
			// A peer's block extended the chain meanwhile: ours became an
			// alternative block. Mine on the new top.
			continue
		}
		if err == nil && res.MainChain && m.opts.Mined != nil {
			m.opts.Mined(blob)
		}
		return res.Meta, err
	}
}

// Run mines blocks paying to until ctx ends, waiting interval between
// blocks (fixed-difficulty regtest blocks are found at once; the pause
// keeps the chain from growing by thousands of blocks a second). A block
// that fails is logged and retried after the interval. It returns nil when
// ctx ends.
func (m *Miner) Run(ctx context.Context, to address.Address, interval time.Duration) error {
	return m.run(ctx, to, interval, m.opts.Workers, nil)
}

func (m *Miner) run(ctx context.Context, to address.Address, interval time.Duration, workers int, onTemplate func(*Template)) error {
	log := m.opts.Logger
	m.running.Add(1)
	defer m.running.Add(-1)
	log.Info("mining started", "address", to.String(), "interval", interval)
	waiting := false
	for {
		if ready := m.opts.Synchronized; ready != nil && !ready() {
			if !waiting {
				log.Info("mining waits until the node is synchronized with its peers (run with --offline to mine alone)")
				waiting = true
			}
			select {
			case <-ctx.Done():
				log.Info("mining stopped")
				return nil
			case <-time.After(time.Second):
			}
			continue
		}
		waiting = false
		meta, err := m.mineBlock(ctx, to, 0, workers, onTemplate)
		// A block that joined the chain is logged even when ctx ended just
		// after it was added: the log is how an operator (and a test) counts
		// what the loop mined.
		switch {
		case err == nil:
			log.Info("mined block", "height", meta.Height, "hash", meta.Hash, "reward", meta.Reward, "difficulty", meta.Difficulty.String())
		case ctx.Err() == nil:
			log.Error("mining a block failed", "err", err)
		}
		if ctx.Err() != nil {
			log.Info("mining stopped")
			return nil
		}
		if interval > 0 {
			select {
			case <-ctx.Done():
				log.Info("mining stopped")
				return nil
			case <-time.After(interval):
			}
		}
	}
}
