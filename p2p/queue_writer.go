package p2p

import (
	"errors"
	"sync/atomic"
	"time"

	"github.com/gonero/gonero/chain"
	"github.com/gonero/gonero/consensus"
	"github.com/gonero/gonero/cryptonote"
	"github.com/gonero/gonero/peerinfo"
)

// DefaultPrepBlocksThreads is monerod's --prep-blocks-threads default.
const DefaultPrepBlocksThreads = 4

// prepQueueLen bounds the blocks waiting for a verifying worker; when it
// is full a block skips the work ahead and the writer does it.
const prepQueueLen = 4096

// prepJob is one downloaded block to verify ahead of the writer.
type prepJob struct {
	s    *span
	i    int
	left *atomic.Int32 // blocks of the span still being verified
}

// prepare hands a received span's blocks to the verifying workers
// (monerod's prepare_blocks); the span is marked prepared when the last
// one is done and the writer is woken.
func (n *Node) prepare(s *span) {
	left := new(atomic.Int32)
	left.Store(int32(len(s.blocks)))
	for i := range s.blocks {
		select {
		case n.prep <- prepJob{s: s, i: i, left: left}:
		default:
			n.prepDone(prepJob{s: s, left: left})
		}
	}
}

func (n *Node) prepDone(j prepJob) {
	if j.left.Add(-1) == 0 {
		n.queue.mu.Lock()
		j.s.prepared = true
		n.queue.mu.Unlock()
		n.queue.signal()
	}
}

// prepWorker computes proofs of work and the transactions' own checks
// (chain.Preverify) of downloaded blocks. Nothing it does changes a
// verdict: it only fills the chain's caches, which the writer's checks
// use, unless it panics (prepBlock).
func (n *Node) prepWorker() {
	defer n.wg.Done()
	for {
		select {
		case <-n.ctx.Done():
			return
		case j := <-n.prep:
			n.prepBlock(j)
			n.prepDone(j)
		}
	}
}

// prepBlock verifies one block ahead of the writer. A panic there, on a
// peer's block, is the refusal of that block: it is recorded on the block
// (prepErr, a consensus.PanicError, read by the writer once the span is
// prepared), logged with its stack and counted with the handlers' panics,
// and the worker goes on.
func (n *Node) prepBlock(j prepJob) {
	b := &j.s.blocks[j.i]
	height := j.s.start + uint64(j.i)
	defer func() {
		if r := recover(); r != nil {
			n.handlerPanics.Add(1)
			pe := consensus.PanicOf(consensus.Recovered(r))
			n.log.Error("a prep worker panicked: the block is refused", "conn", j.s.from, "height", height, "panic", r, "stack", string(pe.Stack))
			b.prepErr = pe
		}
	}()
	if h := n.cfg.beforePrep; h != nil {
		h(height)
	}
	if b.blk.MajorVersion >= consensus.RandomXVersion {
		if seed, ok := n.seedFor(height); ok {
			_ = n.chain.PrecomputePoW(b.blk, height, seed)
		}
	} else {
		_ = n.chain.PrecomputePoW(b.blk, height, cryptonote.Hash{})
	}
	if len(b.txs) > 0 {
		n.chain.Preverify(b.blk, b.txs, b.txBlobs)
	}
}

// seedFor is the RandomX seed block id of a block at height: from the
// chain, or from the queue when the seed block is still being downloaded.
// A guess wrong for a competing chain only costs the writer the hash.
func (n *Node) seedFor(height uint64) (cryptonote.Hash, bool) {
	sh := consensus.SeedHeight(height)
	if sh < n.chain.Height() {
		return n.chain.HashAt(sh), true
	}
	return n.queue.idAt(sh)
}

// SyncProgress is what the writer reports after adding a span.
type SyncProgress struct {
	Height, Target uint64
	Added          int    // blocks of the span stored
	Start          uint64 // the span's first height
	From           string // the peer that sent it (host:port)
}

// Bounds of one writer commit (a run of spans, queue.nextRun): as the
// import's batches (importer.DefaultBatch), large enough that a commit's
// fixed cost (the touched branch pages, the free list, the meta page and
// the fsyncs) is shared by many blocks, small enough to bound the memory
// and the time the chain's lock is held.
const (
	writeBatchBlocks = 500
	writeBatchBytes  = 32 << 20
)

// writeLoop is the single writer: it adds the received, verified spans
// strictly in height order (try_add_next_blocks). A block the chain
// refuses drops and bans the peer that sent it; the spans it delivered
// are thrown away and downloaded again from others.
//
// Spans ready one after the other are added in one store commit (addRun):
// a synced block is acknowledged to no one (no peer or client waits on
// it), so nothing needs to be durable before the run's commit, and a
// crash loses at most the run, downloaded again. Blocks that are
// acknowledged (submit_block, a relayed new block) go through chain.Add,
// which commits each before answering.
func (n *Node) writeLoop() {
	defer n.wg.Done()
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-n.ctx.Done():
			return
		case <-n.queue.wake:
		case <-t.C:
		}
		for n.ctx.Err() == nil {
			run := n.queue.nextRun(n.chain.Height(), writeBatchBlocks, writeBatchBytes)
			if run == nil {
				break
			}
			n.addRun(run)
		}
	}
}

// addRun adds the blocks of a run of spans: those that extend the main
// chain in one store transaction (chain.AddBatch: one commit, atomic), the
// others (alternative, known, switching chains) one by one through Add.
// A refused block is the fault of the span that delivered it: the spans
// before it are added, those after it stay queued.
//
// A block whose verification panicked in a prep worker (prepErr) is
// refused as an invalid block (chain.RuleVerifierPanic), after the blocks
// before it are added; the run stops there.
func (n *Node) addRun(run []*span) {
	var batch []chain.BatchBlock
	var owner []int // owner[i]: the run's span that delivered batch[i]
	var prepRefusal error
	prepSpan := -1
collect:
	for j, s := range run {
		for i, b := range s.blocks {
			if b.prepErr != nil {
				var id cryptonote.Hash // the block's id, as the span lists it
				if i < len(s.ids) {
					id = s.ids[i]
				}
				prepRefusal = &chain.BlockError{Height: s.start + uint64(i), Hash: id, Rule: chain.RuleVerifierPanic, Err: b.prepErr}
				prepSpan = j
				break collect
			}
			batch = append(batch, chain.BatchBlock{Block: b.blk, Blob: b.blob, Txs: b.txs, TxBlobs: b.txBlobs})
			owner = append(owner, j)
		}
	}
	added := make([]int, len(run)) // blocks stored, by span
	n.syncMu.Lock()
	n.adding.Add(1)
	var addErr error
	failed := -1 // the span whose block was refused
	pos := 0     // batch[pos] is the next block to add
	for pos < len(batch) {
		k, err := n.chain.AddBatch(batch[pos:])
		for i := pos; i < pos+k; i++ {
			added[owner[i]]++
		}
		n.blocksFromPeers.Add(uint64(k))
		pos += k
		if err != nil {
			addErr, failed = err, owner[min(pos, len(batch)-1)]
			break
		}
		if pos == len(batch) {
			break
		}
		b := batch[pos]
		res, err := n.chain.Add(b.Block, b.Blob, b.Txs, b.TxBlobs)
		if err != nil && !errors.Is(err, chain.ErrAlreadyInChain) {
			addErr, failed = err, owner[pos]
			break
		}
		if err == nil {
			added[owner[pos]]++
			n.blocksFromPeers.Add(1)
		}
		if res.Reorganized {
			n.log.Info("switched to a heavier chain", "conn", run[owner[pos]].from, "height", res.Meta.Height, "top", res.Meta.Hash, "blocks_replaced", res.Popped)
		}
		pos++
	}
	if addErr == nil && prepRefusal != nil {
		addErr, failed = prepRefusal, prepSpan
	}
	n.adding.Add(-1)
	n.syncMu.Unlock()
	done := run
	if failed >= 0 {
		done = run[:failed+1] // the later spans were not tried: they stay
	}
	for _, s := range done {
		n.queue.remove(s)
	}
	if addErr != nil {
		s := run[failed]
		n.log.Info("peer sent a block the chain refuses", "conn", s.from, "err", addErr)
		// Closed first: fill refuses a closed connection's answers, so no
		// span of it can be queued after dropFrom.
		fault := blockFault(addErr)
		var pe *peerError
		if errors.As(fault, &pe) {
			// monerod (try_add_next_blocks) calls drop_connections on
			// the span's host before it drops the span's connection
			// with the block's score.
			pe.host = true
			if s.from.closed() && s.from.anon == nil {
				// Gone before its span came up: its host still
				// answers for it (monerod finds no connection left
				// to score the block on).
				n.dropHost(s.from.addr.IP, s.from, fault)
				pe.host, pe.score = false, 0 // not counted twice
			}
		}
		n.dropConn(s.from, fault)
		n.queue.dropFrom(s.from)
		return
	}
	// The connections waiting for these spans go on at once (or finish the
	// sync) rather than at their next wake-up.
	n.wakeStandby()
	if n.cfg.Progress != nil {
		for j, s := range run {
			n.cfg.Progress(SyncProgress{Height: n.chain.Height(), Target: n.target(), Added: added[j], Start: s.start, From: s.from.addr.String()})
		}
	}
}

// standbyLoop wakes the paused connections every 100 ms (monerod's
// standby callback): the queue may have room again, a span may have
// stalled, or the sync may be over.
func (n *Node) standbyLoop() {
	defer n.wg.Done()
	n.every(standbyWake, n.wakeStandby)
}

// wakeStandby lets every paused connection look again (skipping one busy
// handling a message: its answer looks anyway).
func (n *Node) wakeStandby() {
	for _, c := range n.connections() {
		if c.getState() != stateStandby || c.closed() || !c.handling.TryLock() {
			continue
		}
		err := n.requestMissing(c)
		c.handling.Unlock()
		if err != nil {
			n.dropConn(c, err)
		}
	}
}

// SyncSpans implements rpc.SyncQueue: the block queue's spans and overview
// for sync_info.
func (n *Node) SyncSpans(height uint64) ([]peerinfo.SyncSpan, string) {
	return n.queue.spanInfo(), n.queue.overview(height)
}
