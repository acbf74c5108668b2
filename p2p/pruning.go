package p2p

// The serving side of pruning (docs/mainnet.md §4.4, docs/p2p-levin.md §8.2): what a
// pruned node announces, how it answers chain and object requests.

import (
	"github.com/gonero/gonero/chaindb"
	"github.com/gonero/gonero/cryptonote"
	"github.com/gonero/gonero/portable"
	"github.com/gonero/gonero/pruning"
)

// pruningSeed is the store's pruning seed, announced in CORE_SYNC_DATA
// (0, omitted on the wire, while unpruned).
func (n *Node) pruningSeed() uint32 {
	var seed uint32
	err := n.chain.Store().View(func(r *chaindb.Reader) (err error) {
		seed, err = r.PruningSeed()
		return err
	})
	if err != nil {
		n.log.Error("reading the pruning seed", "err", err)
		return 0
	}
	return seed
}

// clipChain is find_blockchain_supplement's clip_pruned (on for a requester
// that does not sync pruned, i.e. whose request lacks prune): a pruned node
// answers only if it holds the common ancestor unpruned, and only up to its
// next pruned height, so the requester never asks it for full blocks it
// lacks. It returns where the id list stops and whether to answer at all.
func clipChain(r *chaindb.Reader, start, height uint64, requesterPrunes bool) (uint64, bool) {
	if requesterPrunes {
		return height, true
	}
	seed, err := r.PruningSeed()
	if err != nil || seed == 0 {
		return height, err == nil
	}
	if start < pruning.NextUnprunedHeight(start, height, seed) {
		return 0, false // "We only have a pruned version of the common ancestor"
	}
	return pruning.NextPrunedHeight(start, height, seed), true
}

// blockEntryPruned is handle_get_objects for a request with prune: every
// tx as its pruned blob with its prunable hash (v1 txs whole, with a zero
// hash), the entry marked pruned and carrying the block's stored weight.
// The pruned form exists for every block, pruned away or not.
func blockEntryPruned(r *chaindb.Reader, h uint64, e portable.BlockCompleteEntry, hashes []cryptonote.Hash) (portable.BlockCompleteEntry, bool, error) {
	meta, err := r.MetaByHeight(h)
	if err != nil {
		return e, false, err
	}
	e.Pruned, e.BlockWeight = true, meta.Weight
	for _, th := range hashes {
		p, err := r.TxParts(th)
		if err != nil {
			return e, false, err
		}
		te := portable.TxBlobEntry{Blob: p.Pruned, PrunableHash: p.PrunableHash}
		if p.Version1 {
			te = portable.TxBlobEntry{Blob: append(p.Pruned, p.Prunable...)}
		}
		e.Txs = append(e.Txs, te)
	}
	return e, true, nil
}

// errPrunedAsked is monerod's answer to a request for the full data of a
// block it holds pruned: handle_get_objects fails and the requester is
// dropped (drop_connection without a fail: it asked in good faith from a
// stale view of our seed).
func errPrunedAsked(h uint64) error {
	return misbehaved(0, "peer asked for the full txs of block %d, which this node holds pruned", h)
}

// peerHoldsSpan is the peer-choice hook of the download loop: full blocks
// (gonero never asks for pruned ones, see --sync-pruned-blocks in gonerod)
// are asked only of a peer whose seed keeps both ends of the span unpruned,
// as monerod's has_unpruned_block checks before it requests a span. A
// pruned monerod already clips its chain answers at its next pruned height
// for a requester that does not sync pruned, so this only fires against a
// peer that lists blocks it cannot serve.
func peerHoldsSpan(seed uint32, remoteHeight, first, n uint64) bool {
	if seed == 0 || n == 0 {
		return true
	}
	return pruning.HasUnprunedBlock(first, remoteHeight, seed) &&
		pruning.HasUnprunedBlock(first+n-1, remoteHeight, seed)
}
