package chain

import (
	"github.com/gonero/gonero/chaindb"
	"github.com/gonero/gonero/consensus"
	"github.com/gonero/gonero/cryptonote"
	"github.com/gonero/gonero/internal/boundedcache"
	"github.com/gonero/gonero/internal/u128"
)

// powKey names one proof-of-work computation: the block (its id fixes the
// hashing blob and so the major version), the height (CryptoNight-R's
// input, and the RandomX seed's epoch) and the seed block's id.
type powKey struct {
	id     cryptonote.Hash
	height uint64
	seed   cryptonote.Hash
}

// powCacheMax bounds the hashes kept for blocks not yet added: a few
// queues' worth of spans (monerod keeps its prepared hashes per batch).
const powCacheMax = 20_000

// newPoWCache holds PoW hashes computed ahead of AddBlock (PrecomputePoW),
// each taken once. It only ever holds hashes this process computed, so a
// hit gives the verdict the writer would compute itself. Hashes for spans
// that never got added (a peer dropped, a fork lost) are evicted rather
// than grow it.
func newPoWCache() *boundedcache.Cache[powKey, [32]byte] {
	return boundedcache.New[powKey, [32]byte](powCacheMax, 0, nil)
}

// PrecomputePoW computes the proof-of-work hash blk would have at height
// with the seed block seed (the id at consensus.SeedHeight(height) on the
// chain blk will join; ignored before RandomX), as monerod's
// prepare_blocks does in its worker threads, so that adding the block
// later only compares it with the difficulty. It is safe to call
// concurrently with Add and with itself. A wrong guess of height or seed
// costs only time: the writer then finds no hash under its own key and
// computes it.
func (c *Chain) PrecomputePoW(blk *cryptonote.Block, height uint64, seed cryptonote.Hash) error {
	if c.cfg.FixedDifficulty == 1 {
		return nil // every hash meets difficulty 1; checkPoW skips it
	}
	if blk.MajorVersion >= consensus.RandomXVersion && c.cfg.PoW == nil {
		return ErrNoPoWHasher
	}
	id, err := blk.ID()
	if err != nil {
		return err
	}
	if fast, _ := c.fastCheck(height, id); fast {
		return nil // proved by the block-hash list: its PoW is never checked
	}
	if blk.MajorVersion < consensus.RandomXVersion {
		seed = cryptonote.Hash{}
	}
	h, err := consensus.BlockPoWHash(c.cfg.PoW, height, blk.MajorVersion, seed, blk.HashingBlob())
	if err != nil {
		return err
	}
	c.pow.Put(powKey{id: id, height: height, seed: seed}, h)
	return nil
}

// SeedPreparer is a PoW hasher that can build a RandomX seed's memory ahead
// of the first hash under it, in the background (randomx.Hasher). Without
// it, the first block checked under a new seed waits for that build: half
// a second on an idle machine, seconds on a busy one.
type SeedPreparer interface {
	Prepare(seed [32]byte) error
}

// prepareSeeds has the hasher, if it is a SeedPreparer, build the memory of
// the seeds the next main-chain blocks will be checked with, as monerod
// prepares its main seed at start and when the seed changes (rx-slow-hash.c
// rx_set_main_seedhash): the seed of the next height and, in the
// SeedHashEpochLag blocks before a seed change, the coming one too. It does
// nothing when the next block's proof of work will not be hashed: before
// RandomX, at difficulty 1 (which checkPoW skips: fixed-difficulty regtest
// chains), or inside the block-hash list. Called by the writer (c.mu held)
// after each change of the main chain; it never waits for a build.
func (c *Chain) prepareSeeds() {
	p, ok := c.cfg.PoW.(SeedPreparer)
	if !ok {
		return
	}
	next := c.state.Load()
	height := next.Height
	if c.cfg.Network.VersionAt(height) < consensus.RandomXVersion || next.Difficulty.Cmp(u128.From64(1)) <= 0 {
		return
	}
	if c.fast.list != nil && height < c.fast.list.Heights() {
		return
	}
	var seeds []cryptonote.Hash
	err := c.store.View(func(r *chaindb.Reader) error {
		for _, h := range seedHeightsAhead(height) {
			m, err := r.MetaByHeight(h)
			if err != nil {
				return err
			}
			seeds = append(seeds, m.Hash)
		}
		return nil
	})
	if err != nil {
		// Only a head start is lost: the first hash builds the seed itself.
		c.cfg.Logger.Warn("cannot read the RandomX seed blocks to prepare", "height", height, "err", err)
		return
	}
	for _, s := range seeds {
		_ = p.Prepare(s) // fails only once the hasher is closed, when nothing hashes
	}
}

// seedHeightsAhead is the heights of the seed blocks that blocks from height
// on are checked with (rx_seedheights): the coming seed's, in the
// SeedHashEpochLag blocks before the change to it, then the current one's,
// last so that it is the most recently used of the hasher's kept seeds.
// Both are below height.
func seedHeightsAhead(height uint64) []uint64 {
	current, coming := consensus.SeedHeight(height), consensus.NextSeedHeight(height)
	if coming != current {
		return []uint64{coming, current}
	}
	return []uint64{current}
}
