package chain

import (
	"errors"
	"fmt"
	"sort"
	"sync"

	"github.com/gonero/gonero/chaindb"
	"github.com/gonero/gonero/cryptonote"
	"github.com/gonero/gonero/params"
	"github.com/gonero/gonero/params/blockhashes"
)

// Sentinels of the checkpoint and block-hash-list rules. A peer that sends
// a block breaking one of them is on a fork the node refuses for good.
var (
	// ErrCheckpoint: a block at a checkpoint height has another id
	// (monerod's "CHECKPOINT VALIDATION FAILED").
	ErrCheckpoint = errors.New("CHECKPOINT VALIDATION FAILED")
	// ErrAltBelowCheckpoint: an alternative block at or below the newest
	// checkpoint the chain has passed, or at height 0 (is_alternative_block_allowed).
	ErrAltBelowCheckpoint = errors.New("alternative block at or below the newest passed checkpoint")
	// ErrBlockHashList: inside the fast-sync area, a block whose id is not
	// the one its peer's chain entry proved against the block-hash list.
	ErrBlockHashList = errors.New("block id differs from the one the block-hash list proved")
)

// checkpointSet is the enforced hard-coded checkpoints (checkpoints.cpp).
type checkpointSet struct {
	ids     map[uint64]cryptonote.Hash
	heights []uint64 // ascending
}

// enforcedCheckpoints is the table cfg asks for: its own when given, else
// the network's on mainnet only. monerod builds the checkpoint object only
// for MAINNET (core::handle_command_line); the testnet and stagenet tables
// of checkpoints.cpp serve the wallet, and a daemon enforcing them would
// refuse a private testnet mined from genesis.
func enforcedCheckpoints(cfg Config) checkpointSet {
	table := cfg.Checkpoints
	if table == nil && cfg.Network == params.Mainnet {
		table = cfg.Network.Checkpoints()
	}
	s := checkpointSet{ids: make(map[uint64]cryptonote.Hash, len(table))}
	for _, cp := range table {
		if _, dup := s.ids[cp.Height]; !dup {
			s.heights = append(s.heights, cp.Height)
		}
		s.ids[cp.Height] = cp.ID
	}
	sort.Slice(s.heights, func(i, j int) bool { return s.heights[i] < s.heights[j] })
	return s
}

// check is check_block: a block at a checkpoint height must carry its id.
func (s checkpointSet) check(height uint64, id cryptonote.Hash) error {
	if want, ok := s.ids[height]; ok && want != id {
		return fmt.Errorf("%w: block %s at height %d, the checkpoint is %s", ErrCheckpoint, id, height, want)
	}
	return nil
}

// altAllowed is is_alternative_block_allowed: never at height 0; otherwise
// only above the newest checkpoint at or below chainHeight (the number of
// blocks, so a checkpoint at the very next height already counts).
func (s checkpointSet) altAllowed(chainHeight, blockHeight uint64) error {
	if blockHeight == 0 {
		return fmt.Errorf("%w: height 0", ErrAltBelowCheckpoint)
	}
	i := sort.Search(len(s.heights), func(i int) bool { return s.heights[i] > chainHeight })
	if i == 0 {
		return nil
	}
	if cp := s.heights[i-1]; blockHeight <= cp {
		return fmt.Errorf("%w: block height %d, checkpoint %d, chain height %d", ErrAltBelowCheckpoint, blockHeight, cp, chainHeight)
	}
	return nil
}

// fastSync is what the block-hash list has proved: per height, the id (and
// weight) of a block a peer's chain entry matched group by group
// (m_blocks_hash_check). Only heights at or above the chain's height are
// kept, and each is forgotten once its block is on the main chain, so the
// table holds at most the chain entries in flight, not the list's millions
// of heights.
type fastSync struct {
	list *blockhashes.List // nil: no fast sync

	mu       sync.Mutex
	expected map[uint64]expectedBlock
}

type expectedBlock struct {
	id     cryptonote.Hash
	weight uint64
	// hasWeight: the chain entry carried weights, so the group's weight
	// hash was checked too.
	hasWeight bool
}

// loadBlockHashes installs the list when it reaches past the chain, as
// load_compiled_in_block_hashes does (nblocks > ceil(height / 512)).
func (c *Chain) loadBlockHashes() {
	l := c.cfg.BlockHashes
	if l == nil || len(l.Groups) == 0 {
		return
	}
	if uint64(len(l.Groups)) <= (c.main.height+blockhashes.GroupSize-1)/blockhashes.GroupSize {
		return
	}
	c.fast.list = l
	c.fast.expected = map[uint64]expectedBlock{}
	c.cfg.Logger.Info("block-hash list loaded", "groups", len(l.Groups), "heights", l.Heights())
}

// InBlockHashArea reports whether height is inside the loaded block-hash
// list (is_within_compiled_block_hash_area): while the chain is, the node
// does not call itself synchronized.
func (c *Chain) InBlockHashArea(height uint64) bool {
	return height < c.fast.list.Heights()
}

// PrevalidateBlockHashes is prevalidate_block_hashes: it checks the ids (and
// weights, if the entry carries them; weights is empty or as long as ids) of
// a chain entry starting at height against the block-hash list, in groups
// of 512, and returns how many of ids are usable. Ids already on the main
// chain fill the first partial group; a group whose hash matches records
// its ids as the only ones acceptable at those heights; checking stops at
// the first group that does not match. Ids beyond the list, or in a
// trailing group too short to hash, are usable unchecked. A result of 0,
// or of 512 or more fewer than len(ids), means the entry is mostly false.
func (c *Chain) PrevalidateBlockHashes(height uint64, ids []cryptonote.Hash, weights []uint64) (uint64, error) {
	const step = blockhashes.GroupSize
	n := uint64(len(ids))
	if len(weights) != 0 && len(weights) != len(ids) {
		return 0, fmt.Errorf("%d weights for %d ids", len(weights), len(ids))
	}
	l := c.fast.list
	if l == nil || n == 0 || height >= l.Heights() {
		return n, nil
	}
	first, last := height/step, (height+n-1)/step
	if first == last && n < step && (height+n)%step != 0 {
		return n, nil // not a single group to hash
	}
	var (
		dataIDs     = make([]cryptonote.Hash, 0, n+step)
		dataWeights []uint64
		pop         uint64
	)
	chainHeight := c.Height()
	if height > chainHeight && height%step != 0 {
		// Disconnected from our chain mid-group: the ids up to the next
		// group boundary cannot be checked, and are counted as usable.
		first++
		pop = step - height%step
	} else if fill := first * step; fill < height {
		err := c.store.View(func(r *chaindb.Reader) error {
			for h := fill; h < height; h++ {
				m, err := r.MetaByHeight(h)
				if err != nil {
					return err
				}
				dataIDs = append(dataIDs, m.Hash)
				if len(weights) != 0 {
					dataWeights = append(dataWeights, m.Weight)
				}
			}
			return nil
		})
		if err != nil {
			return 0, fmt.Errorf("reading the chain below height %d: %w", height, err)
		}
	}
	for i := range ids {
		if pop > 0 {
			pop--
			continue
		}
		dataIDs = append(dataIDs, ids[i])
		if len(weights) != 0 {
			dataWeights = append(dataWeights, weights[i])
		}
	}
	usable := int64(first*step) - int64(height)
	var proved []expectedBlock
	var provedFrom uint64
	for g := first; g <= last; g++ {
		if g >= uint64(len(l.Groups)) {
			// Past the list: anything goes.
			usable = min(usable+step, int64(n))
			continue
		}
		off := (g - first) * step
		if uint64(len(dataIDs)) < off+step {
			break // the last group is incomplete: cannot tell
		}
		valid := blockhashes.HashIDs(dataIDs[off:off+step]) == l.Groups[g].IDs
		if valid && len(weights) != 0 {
			valid = blockhashes.HashWeights(dataWeights[off:off+step]) == l.Groups[g].Weights
		}
		if !valid {
			break
		}
		if proved == nil {
			provedFrom = g * step
		}
		for i := off; i < off+step; i++ {
			e := expectedBlock{id: dataIDs[i]}
			if len(weights) != 0 {
				e.weight, e.hasWeight = dataWeights[i], true
			}
			proved = append(proved, e)
		}
		usable += step
	}
	if len(proved) > 0 {
		c.fast.mu.Lock()
		for i, e := range proved {
			if h := provedFrom + uint64(i); h >= chainHeight {
				if old, ok := c.fast.expected[h]; ok && old.hasWeight && !e.hasWeight {
					continue
				}
				c.fast.expected[h] = e
			}
		}
		c.fast.mu.Unlock()
	}
	return uint64(max(usable, 0)), nil
}

// ExpectedWeight is the weight the block-hash list proved for height, for
// a pruned block whose weight cannot be recomputed.
func (c *Chain) ExpectedWeight(height uint64) (uint64, bool) {
	if c.fast.list == nil {
		return 0, false
	}
	c.fast.mu.Lock()
	defer c.fast.mu.Unlock()
	e, ok := c.fast.expected[height]
	return e.weight, ok && e.hasWeight
}

// fastCheck is the fast_check of handle_block_to_main_chain: a block at a
// height whose id the list proved must have that id, and then its proof of
// work and its transactions' inputs and signatures need no checking.
func (c *Chain) fastCheck(height uint64, id cryptonote.Hash) (bool, error) {
	if c.fast.list == nil || height >= c.fast.list.Heights() {
		return false, nil
	}
	c.fast.mu.Lock()
	e, ok := c.fast.expected[height]
	c.fast.mu.Unlock()
	if !ok {
		return false, nil // no proved id here: verified fully
	}
	if e.id != id {
		return false, fmt.Errorf("%w: block %s at height %d, expected %s", ErrBlockHashList, id, height, e.id)
	}
	return true, nil
}

// forgetExpected drops the proved ids of heights now on the main chain.
func (c *Chain) forgetExpected(metas ...chaindb.BlockMeta) {
	if c.fast.list == nil {
		return
	}
	c.fast.mu.Lock()
	for _, m := range metas {
		delete(c.fast.expected, m.Height)
	}
	c.fast.mu.Unlock()
}
