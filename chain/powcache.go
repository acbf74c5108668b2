package chain

import (
	"sync"

	"github.com/gonero/gonero/consensus"
	"github.com/gonero/gonero/cryptonote"
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

// powCache holds PoW hashes computed ahead of AddBlock (PrecomputePoW),
// each used once. It only ever holds hashes this process computed, so a
// hit gives the verdict the writer would compute itself.
type powCache struct {
	mu     sync.Mutex
	hashes map[powKey][32]byte
}

func (p *powCache) put(k powKey, h [32]byte) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.hashes == nil {
		p.hashes = make(map[powKey][32]byte)
	}
	if len(p.hashes) >= powCacheMax {
		// Hashes for spans that never got added (a peer dropped, a fork
		// lost): start again rather than grow.
		clear(p.hashes)
	}
	p.hashes[k] = h
}

func (p *powCache) take(k powKey) ([32]byte, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	h, ok := p.hashes[k]
	if ok {
		delete(p.hashes, k)
	}
	return h, ok
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
	c.pow.put(powKey{id: id, height: height, seed: seed}, h)
	return nil
}
