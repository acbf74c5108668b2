// Package chain is the chain manager: the one writer of the chain store.
// Every block, whatever its source (an export file, a peer, the miner),
// enters through Add (or its wrapper AddBlock), which checks it against the
// consensus rules in the context of the chain it extends — the main chain or
// an alternative chain — and stores it atomically, switching chains in one
// store transaction when an alternative chain overtakes the main one (alt.go).
// Readers use the store's snapshots (Store().View) and never wait for the
// writer.
package chain

import (
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gonero/gonero/chaindb"
	"github.com/gonero/gonero/consensus"
	"github.com/gonero/gonero/cryptonote"
	"github.com/gonero/gonero/internal/boundedcache"
	"github.com/gonero/gonero/internal/u128"
	"github.com/gonero/gonero/params"
	"github.com/gonero/gonero/params/blockhashes"
)

// Config is what the chain manager needs beyond the store.
type Config struct {
	Network params.Network
	// FixedDifficulty, when not 0, is the difficulty of every block after
	// genesis (monerod's --fixed-difficulty; regtest chains use 1).
	FixedDifficulty uint64
	// PoW hashes blocks of version >= 12 (RandomX). It may be nil only if
	// every block to be added has difficulty 1, which every hash meets.
	PoW consensus.PoWHasher
	// Now is the local clock for the future-timestamp rule; nil means time.Now.
	Now    func() time.Time
	Logger *slog.Logger
	// Observer, if not nil, hears how every Add ended and how long it took
	// (the node's metrics); it is called with the writer's lock held, so
	// it must be quick and must not call back into the chain.
	Observer BlockObserver
	// Checkpoints are the hard-coded checkpoints to enforce (checkpoints.go);
	// nil means the network's own on mainnet and none elsewhere, as monerod.
	Checkpoints []params.Checkpoint
	// BlockHashes is the block-hash list of fast sync (--fast-block-sync 1);
	// nil verifies every block fully.
	BlockHashes *blockhashes.List

	// verifySignatures checks a transaction's signatures over its rings on
	// the signature workers (nil: consensus.VerifyTxSignatures); tests
	// inject a panicking one.
	verifySignatures func(*cryptonote.Transaction, [][]consensus.RingOutput) error
}

// BlockObserver hears the outcome of every block given to Add: err is nil
// for a block stored (main chain or alternative), else the *BlockError.
type BlockObserver interface {
	BlockChecked(err error, took time.Duration)
}

// Chain is the chain manager. Its methods are safe for concurrent use;
// AddBlock calls are serialised.
type Chain struct {
	cfg   Config
	store chaindb.Store

	// state is what readers see: the top, the height and the figures for the
	// next block, replaced after every commit so that readers never wait for
	// the writer (which holds mu through PoW checks and disk syncs).
	state atomic.Pointer[NextBlock]

	// verified remembers transactions whose RingCT semantics and
	// signatures passed, for the pool and the blocks that follow it.
	verified verifiedCache
	// pow holds proof-of-work hashes computed ahead (PrecomputePoW).
	pow *boundedcache.Cache[powKey, [32]byte]

	mu sync.Mutex // held by the writer; guards everything below
	// main is the main chain's view: its top, height and rule windows.
	main *chainView
	// txCount and altCount mirror the store's counters for get_info.
	txCount, altCount uint64
	// listeners follow the main chain (OnMainChainChange).
	listeners []func(MainChainChange)

	// deferred, while AddBatch checks a batch, takes the signatures of
	// the batch's transactions (sigqueue.go); nil otherwise.
	deferred *sigQueue

	checkpoints checkpointSet // read-only after Open
	fast        fastSync      // its list is read-only after Open
}

// Open loads the chain held by store, adding the network's genesis block to
// an empty store.
func Open(store chaindb.Store, cfg Config) (*Chain, error) {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.verifySignatures == nil {
		cfg.verifySignatures = consensus.VerifyTxSignatures
	}
	c := &Chain{cfg: cfg, store: store, checkpoints: enforcedCheckpoints(cfg), pow: newPoWCache(), verified: newVerifiedCache()}
	c.mu.Lock()
	err := c.load()
	if err == nil {
		c.loadBlockHashes()
	}
	c.mu.Unlock()
	if err != nil {
		return nil, err
	}
	if c.main.height == 0 {
		genesis, err := cryptonote.ParseBlock(cfg.Network.GenesisBlock())
		if err != nil {
			return nil, fmt.Errorf("genesis block: %w", err)
		}
		if _, err := c.AddBlock(genesis, cfg.Network.GenesisBlock(), nil, nil); err != nil {
			return nil, fmt.Errorf("adding the genesis block: %w", err)
		}
	} else if got, want := c.HashAt(0), cfg.Network.GenesisID(); got != want {
		return nil, fmt.Errorf("the store's genesis block %s is not %s's (%s)", got, cfg.Network, want)
	} else {
		// The first block submitted or received after a restart is checked
		// with a seed already built, or being built.
		c.mu.Lock()
		c.prepareSeeds()
		c.mu.Unlock()
	}
	return c, nil
}

// load rebuilds the in-memory windows from the store.
func (c *Chain) load() error {
	return c.store.View(func(r *chaindb.Reader) error {
		h, err := r.Height()
		if err != nil {
			return err
		}
		if c.txCount, err = r.TxCount(); err != nil {
			return err
		}
		if c.altCount, err = r.AltBlockCount(); err != nil {
			return err
		}
		if c.main, err = loadView(r, h); err != nil {
			return err
		}
		c.publish()
		return nil
	})
}

// publish computes what readers see for the current top (writer only).
func (c *Chain) publish() {
	v := c.main
	version := c.cfg.Network.VersionAt(v.height)
	n := &NextBlock{
		Height:          v.height,
		Difficulty:      v.nextDifficulty(c.cfg.FixedDifficulty, version),
		EffectiveMedian: consensus.EffectiveMedian(v.shortTermMedian(), v.longTerm.Median(), version),
		// m_long_term_effective_median_block_weight, for the pool's fee.
		LongTermEffectiveMedian: max(consensus.FullRewardZoneV5, v.longTerm.Median()),
		Top:                     v.top,
		TxCount:                 c.txCount,
		AltBlockCount:           c.altCount,
	}
	if v.height >= consensus.TimestampCheckWindow {
		n.MedianTimestamp, n.HasMedianTimestamp = consensus.Median(v.timestamps(consensus.TimestampCheckRange(v.height))), true
	}
	c.state.Store(n)
}

// Height is the number of blocks in the chain.
func (c *Chain) Height() uint64 { return c.state.Load().Height }

// Top is the newest block's metadata.
func (c *Chain) Top() chaindb.BlockMeta { return c.state.Load().Top }

// Network is the chain's network.
func (c *Chain) Network() params.Network { return c.cfg.Network }

// Viewer is the read side of the store: consistent snapshots.
type Viewer interface {
	View(fn func(r *chaindb.Reader) error) error
}

// Store gives readers the store's snapshots; writes go through the chain
// manager only, so that its in-memory state always matches the store.
func (c *Chain) Store() Viewer { return c.store }

// HashAt is the id of the main-chain block at height h, or the zero hash if
// there is none.
func (c *Chain) HashAt(h uint64) cryptonote.Hash {
	var id cryptonote.Hash
	_ = c.store.View(func(r *chaindb.Reader) error {
		m, err := r.MetaByHeight(h)
		id = m.Hash
		return err
	})
	return id
}

// BlockError says which block broke which rule. Err wraps the rule's
// sentinel (from this package or consensus), so errors.Is works on it.
// Switch is set when the block was refused while switching to the
// alternative chain it belongs to (the switch was rolled back).
type BlockError struct {
	Height uint64
	Hash   cryptonote.Hash
	Rule   BlockRule
	Switch bool
	Err    error
}

func (e *BlockError) Error() string {
	sw := ""
	if e.Switch {
		sw = "switch to alternative chain: "
	}
	return fmt.Sprintf("block %d (%s) rejected: %s%s: %v", e.Height, e.Hash, sw, e.Rule, e.Err)
}

func (e *BlockError) Unwrap() error { return e.Err }

// Sentinels for the rules this package checks itself.
var (
	ErrPrevMismatch = errors.New("previous block id is not the chain's top block")
	// ErrAlreadyInChain: the block is already known, on the main chain or
	// as an alternative block (monerod's have_block); IsMainChain tells which.
	ErrAlreadyInChain = errors.New("block is already known (main chain or alternative)")
	// ErrOrphan: the block's parent is neither a main-chain nor an
	// alternative block; the caller should fetch the chain leading to it.
	ErrOrphan           = errors.New("parent block is unknown (orphan block)")
	ErrBadBlockID       = errors.New("block id cannot be computed")
	ErrTxMismatch       = errors.New("transactions do not match the block's tx_hashes")
	ErrTxAlreadyInChain = errors.New("transaction is already in the chain")
	ErrBadMinerTx       = errors.New("malformed miner transaction")
	ErrBadTx            = errors.New("transaction breaks a consensus rule")
	ErrDifficultyZero   = errors.New("difficulty overflowed 128 bits")
	ErrNoPoWHasher      = errors.New("no proof-of-work hasher configured")
)

// NextBlock holds the figures that apply to the block after the top, as
// get_info reports them.
type NextBlock struct {
	Height     uint64
	Difficulty u128.U128
	// EffectiveMedian is the effective median weight (the full reward zone's
	// floor applied); twice it is the weight limit.
	EffectiveMedian uint64
	// LongTermEffectiveMedian is the long-term median weight with the
	// full reward zone's floor; the fee per byte is based on it.
	LongTermEffectiveMedian uint64
	// MedianTimestamp is the median of the last 60 timestamps; while the
	// chain is shorter there is none and adjusted time is the local clock.
	MedianTimestamp    uint64
	HasMedianTimestamp bool
	Top                chaindb.BlockMeta
	// TxCount and AltBlockCount are the store's counters (non-coinbase
	// transactions on the main chain; alternative blocks).
	TxCount, AltBlockCount uint64
}

// AdjustedTime is Blockchain::get_adjusted_time: the local clock while the
// chain is short, else the median of the last 60 timestamps projected to
// the next block, but not past the top block's timestamp plus one target.
func (n *NextBlock) AdjustedTime(now time.Time) uint64 {
	if !n.HasMedianTimestamp {
		return uint64(now.Unix())
	}
	projected := n.MedianTimestamp + (consensus.TimestampCheckWindow+1)*consensus.DifficultyTargetV2/2
	return min(projected, n.Top.Timestamp+consensus.DifficultyTargetV2)
}

// NextBlockFacts returns the figures for the block after the top, computed
// once per top block; it never waits for the writer.
func (c *Chain) NextBlockFacts() NextBlock { return *c.state.Load() }

// PoW is the proof-of-work hasher (nil if none was configured).
func (c *Chain) PoW() consensus.PoWHasher { return c.cfg.PoW }
