package chain

import (
	"github.com/gonero/gonero/consensus"
	"github.com/gonero/gonero/cryptonote"
	"github.com/gonero/gonero/internal/boundedcache"
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
