package chain

import (
	"github.com/gonero/gonero/chaindb"
	"github.com/gonero/gonero/consensus"
	"github.com/gonero/gonero/cryptonote"
	"github.com/gonero/gonero/internal/u128"
)

// chainView is one chain as the rules see it when they check the block after
// its top: the main chain, or an alternative chain (the main chain up to the
// split plus alternative blocks). It holds the figures every rule reads, so
// that one check function serves both, and a switch to an alternative chain
// ends with its view, already built block by block, as the new main view.
type chainView struct {
	// height is the number of blocks; top the newest block.
	height uint64
	top    chaindb.BlockMeta
	// recent holds the newest blocks' figures the rules read at every block:
	// difficulty (735), timestamps (60), short-term weights (100).
	recent []recentBlock
	// longTerm is the rolling median of the last 100000 long-term weights.
	longTerm *consensus.RollingMedian
	// split: heights below it are main-chain blocks in the store, heights
	// from it on are the blocks of alt (for the main view, split == height
	// and alt is empty).
	split uint64
	alt   []chaindb.BlockRecord
	// altTxs are the transactions of alt, which a later block of this chain
	// must not include again.
	altTxs map[cryptonote.Hash]bool
}

type recentBlock struct {
	timestamp  uint64
	cumulative u128.U128
	weight     uint64
}

// recentWindow is how many blocks recent keeps: the largest window a rule reads.
const recentWindow = consensus.DifficultyBlocksCount

// loadView builds the view of the main chain cut at split (heights
// [0, split)) from the store: the windows need the last 100000 metas.
func loadView(r *chaindb.Reader, split uint64) (*chainView, error) {
	v := &chainView{
		height:   split,
		split:    split,
		longTerm: consensus.NewRollingMedian(consensus.LongTermBlockWeightWindow),
		altTxs:   map[cryptonote.Hash]bool{},
	}
	if split == 0 {
		return v, nil
	}
	first := uint64(0)
	if split > consensus.LongTermBlockWeightWindow {
		first = split - consensus.LongTermBlockWeightWindow
	}
	metas, err := r.MetasInRange(first, split)
	if err != nil {
		return nil, err
	}
	for _, m := range metas {
		v.longTerm.Push(m.LongTermWeight)
	}
	v.top = metas[len(metas)-1]
	if len(metas) > recentWindow {
		metas = metas[len(metas)-recentWindow:]
	}
	v.recent = make([]recentBlock, 0, recentWindow)
	for _, m := range metas {
		v.recent = append(v.recent, recentBlock{m.Timestamp, m.CumulativeDifficulty, m.Weight})
	}
	return v, nil
}

// push makes meta the view's new top. rec, if not nil, is an alternative
// block the view now holds above its split.
func (v *chainView) push(meta chaindb.BlockMeta, rec *chaindb.BlockRecord) {
	v.top = meta
	v.height++
	if len(v.recent) == recentWindow {
		copy(v.recent, v.recent[1:])
		v.recent = v.recent[:recentWindow-1]
	}
	v.recent = append(v.recent, recentBlock{meta.Timestamp, meta.CumulativeDifficulty, meta.Weight})
	v.longTerm.Push(meta.LongTermWeight)
	if rec != nil {
		v.alt = append(v.alt, *rec)
		for _, tx := range rec.Txs {
			v.altTxs[tx.Hash] = true
		}
	} else {
		v.split = v.height
	}
}

// asMain turns a view whose alternative blocks have just become the main
// chain into the main view.
func (v *chainView) asMain() {
	v.split, v.alt = v.height, nil
	v.altTxs = map[cryptonote.Hash]bool{}
}

// timestamps extracts the timestamps of heights [first, end).
func (v *chainView) timestamps(first, end uint64) []uint64 {
	return v.recentSlice(first, end, func(b recentBlock) uint64 { return b.timestamp })
}

func (v *chainView) shortTermMedian() uint64 {
	first := uint64(0)
	if v.height > consensus.RewardBlocksWindow {
		first = v.height - consensus.RewardBlocksWindow
	}
	return consensus.Median(v.recentSlice(first, v.height, func(b recentBlock) uint64 { return b.weight }))
}

// recentSlice extracts a field for heights [first, end) from recent, which
// holds the heights [height-len(recent), height).
func (v *chainView) recentSlice(first, end uint64, field func(recentBlock) uint64) []uint64 {
	base := v.height - uint64(len(v.recent))
	out := make([]uint64, 0, end-first)
	for h := first; h < end; h++ {
		out = append(out, field(v.recent[h-base]))
	}
	return out
}

// nextDifficulty is the difficulty of the block after the top (fixed when
// configured); an alternative chain reads its own timestamps and cumulative
// difficulties (get_next_difficulty_for_alternative_chain).
func (v *chainView) nextDifficulty(fixed uint64, version uint8) u128.U128 {
	if fixed != 0 {
		return consensus.FixedDifficulty(v.height, fixed)
	}
	first, end := consensus.DifficultyInputRange(v.height)
	base := v.height - uint64(len(v.recent))
	ts := make([]uint64, 0, end-first)
	cds := make([]u128.U128, 0, end-first)
	for h := first; h < end; h++ {
		b := v.recent[h-base]
		ts = append(ts, b.timestamp)
		cds = append(cds, b.cumulative)
	}
	return consensus.NextDifficulty(ts, cds, consensus.DifficultyTarget(version))
}

// hashAt is the id of this chain's block at height h (< v.height).
func (v *chainView) hashAt(r *chaindb.Reader, h uint64) (cryptonote.Hash, error) {
	if h >= v.split {
		return v.alt[h-v.split].Meta.Hash, nil
	}
	m, err := r.MetaByHeight(h)
	return m.Hash, err
}

// hasTx reports whether a transaction is already on this chain: on the main
// chain below the split, or in one of the alternative blocks.
func (v *chainView) hasTx(r *chaindb.Reader, id cryptonote.Hash) (bool, error) {
	if v.altTxs[id] {
		return true, nil
	}
	loc, err := r.TxLocation(id)
	if err != nil {
		if isNotFound(err) {
			return false, nil
		}
		return false, err
	}
	return loc.Height < v.split, nil
}
