package p2p

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gonero/gonero/chain"
	"github.com/gonero/gonero/chaindb"
	"github.com/gonero/gonero/consensus"
	"github.com/gonero/gonero/cryptonote"
	"github.com/gonero/gonero/levin"
	"github.com/gonero/gonero/params"
	"github.com/gonero/gonero/params/blockhashes"
	"github.com/gonero/gonero/portable"
)

// blockSync is the node's part that downloads the chain: the block queue
// shared by the syncing connections, the verifying workers' feed, the
// lock that lets one connection at a time add blocks, and monerod's sync
// figures (synchronized, the core target height). The connections' own
// sync state is theirs (syncState).
type blockSync struct {
	chain *chain.Chain
	// syncMu lets one connection at a time add downloaded blocks, as
	// monerod's sync lock does. L2 (Node's lock order).
	syncMu sync.Mutex
	// queue is the block queue shared by the syncing connections (queue.go).
	queue *blockQueue
	// prep feeds downloaded blocks to the verifying workers.
	prep chan prepJob

	synchronized atomic.Bool
	// coreTarget is monerod's core target height (see CoreTargetHeight).
	coreTargetMu sync.Mutex // L9, a leaf
	coreTarget   uint64
	// adding counts goroutines adding synced blocks (get_info busy_syncing).
	adding atomic.Int32
	// blocksFromPeers counts the blocks peers gave that the chain stored
	// (BlocksFromPeers).
	blocksFromPeers atomic.Uint64
}

func newBlockSync(ch *chain.Chain) *blockSync {
	return &blockSync{chain: ch, queue: newBlockQueue(), prep: make(chan prepJob, prepQueueLen)}
}

// Synchronized implements rpc.Peers: monerod's sticky flag (docs/p2p-levin.md §8.5).
func (s *blockSync) Synchronized() bool { return s.synchronized.Load() }

// CoreTargetHeight is monerod's core::get_target_blockchain_height, which
// sync_info's next needed pruning seed is computed from: 0 until a peer
// announces a chain this node does not have, higher than this node's
// (or than the target already); raised by such announcements and by
// chain entries and blocks claiming more; lowered, when a connection
// closes, to the highest height the other connections reported (0 with
// none). Unlike TargetHeight it is not 0 once synchronized, and a peer
// at or below this node's height never raises it.
func (s *blockSync) CoreTargetHeight() uint64 {
	s.coreTargetMu.Lock()
	defer s.coreTargetMu.Unlock()
	return s.coreTarget
}

// raiseCoreTarget is set_target_blockchain_height(h) where monerod calls
// it when h exceeds the target; with orHeight, a target of 0 counts as
// this node's height (process_payload_sync_data).
func (s *blockSync) raiseCoreTarget(h uint64, orHeight bool) {
	s.coreTargetMu.Lock()
	defer s.coreTargetMu.Unlock()
	t := s.coreTarget
	if t == 0 && orHeight {
		t = s.chain.Height()
	}
	if h > t {
		s.coreTarget = h
	}
}

// capCoreTarget lowers the core target to t if it is higher
// (Node.lowerCoreTarget).
func (s *blockSync) capCoreTarget(t uint64) {
	s.coreTargetMu.Lock()
	s.coreTarget = min(s.coreTarget, t)
	s.coreTargetMu.Unlock()
}

// BlocksFromPeers is how many blocks received from peers (while syncing
// or announced) the chain has stored since the start: the metrics' sync
// rate.
func (s *blockSync) BlocksFromPeers() uint64 { return s.blocksFromPeers.Load() }

// BusySyncing implements rpc.Peers.
func (s *blockSync) BusySyncing() bool { return s.adding.Load() > 0 }

// syncState is a connection's part in chain synchronisation (docs/p2p-levin.md §8.6).
type syncState struct {
	wantChain   bool // the peer's top is unknown: request its chain after the handshake
	inTimedSync bool

	expectChain       bool   // a 2006 is outstanding
	expectChainHeight uint64 // our height when the history was built; 0 = any start accepted
	requested         []cryptonote.Hash
	requestedAt       time.Time

	requestedStart uint64 // height of requested[0]

	needed             []cryptonote.Hash // block ids still to download, in chain order
	neededStart        uint64            // height of needed[0]
	entryStart         uint64            // height of entryIDs[0]
	entryIDs           []cryptonote.Hash // the peer's last chain entry (spans it can serve)
	lastGapRequest     time.Time         // last chain request made to fill a gap in the queue
	idleEntries        int               // chain entries in a row that brought nothing (maxIdleChainEntries)
	lastResponseHeight uint64
	lastKnownHash      cryptonote.Hash
	hasLastKnown       bool
}

// spanSize is get_block_sync_size: blocks per 2003 request.
func (n *Node) spanSize() int {
	if n.cfg.BlockSyncSize > 0 {
		return min(n.cfg.BlockSyncSize, maxBlockSyncSize)
	}
	h := n.chain.Height()
	switch net := n.chain.Network(); {
	case net == params.Mainnet && h < 1_220_516, net == params.Testnet && h < 801_219:
		return 100
	}
	return 20
}

// shortChainHistory is Blockchain::get_short_chain_history (docs/p2p-levin.md §8.1): the 11
// newest main-chain ids, then ids at doubling distances, then genesis.
func shortChainHistory(r *chaindb.Reader, height uint64) ([][32]byte, error) {
	var ids [][32]byte
	if height == 0 {
		return ids, nil
	}
	offset, step := uint64(1), uint64(1)
	genesis := false
	for i := 0; offset < height; i++ {
		m, err := r.MetaByHeight(height - offset)
		if err != nil {
			return nil, err
		}
		ids = append(ids, m.Hash)
		if height-offset == 0 {
			genesis = true
		}
		if i < 10 {
			offset++
		} else {
			step *= 2
			offset += step
		}
	}
	if !genesis {
		m, err := r.MetaByHeight(0)
		if err != nil {
			return nil, err
		}
		ids = append(ids, m.Hash)
	}
	return ids, nil
}

// requestChain sends NOTIFY_REQUEST_CHAIN with our sparse history.
func (n *Node) requestChain(c *conn) error {
	var ids [][32]byte
	height := n.chain.Height()
	if err := n.chain.Store().View(func(r *chaindb.Reader) error {
		var err error
		ids, err = shortChainHistory(r, height)
		return err
	}); err != nil {
		return err
	}
	c.mu.Lock()
	if c.sync.expectChain {
		// One chain request at a time: a second answer would look
		// unsolicited (a timed sync and an orphan block can both ask).
		c.mu.Unlock()
		return nil
	}
	c.sync.expectChain = true
	c.sync.expectChainHeight = height
	if c.sync.hasLastKnown && (len(ids) == 0 || ids[0] != c.sync.lastKnownHash) {
		ids = append([][32]byte{c.sync.lastKnownHash}, ids...)
		c.sync.expectChainHeight = 0
	}
	c.sync.requestedAt = n.now()
	c.mu.Unlock()
	c.setState(stateSynchronizing)
	return c.notify(levin.NotifyRequestChain, portable.RequestChain{BlockIDs: ids})
}

// handleChainEntry checks a NOTIFY_RESPONSE_CHAIN_ENTRY (docs/p2p-levin.md §8.3) and starts
// downloading what we lack.
func (n *Node) handleChainEntry(c *conn, resp portable.ResponseChainEntry) error {
	c.mu.Lock()
	expected, expectHeight := c.sync.expectChain, c.sync.expectChainHeight
	c.sync.expectChain = false
	c.mu.Unlock()
	// Scored as monerod's handle_response_chain_entry: one fail for an
	// entry out of the blue, above the height asked, empty or
	// inconsistent; none for one too large; five for duplicate ids, an
	// unknown first id, or a known id after an unknown one.
	switch count := uint64(len(resp.BlockIDs)); {
	case !expected:
		return misbehaved(1, "chain entry out of the blue")
	case count == 0:
		return misbehaved(1, "chain entry without block ids")
	case resp.TotalHeight < count || resp.StartHeight > resp.TotalHeight-count:
		return misbehaved(1, "chain entry start %d + %d ids beyond its total height %d", resp.StartHeight, count, resp.TotalHeight)
	case len(resp.BlockWeights) != 0 && len(resp.BlockWeights) != len(resp.BlockIDs):
		return misbehaved(1, "chain entry with %d weights for %d ids", len(resp.BlockWeights), count)
	case resp.TotalHeight >= maxBlockNumber || count > maxChainIDsInResponse:
		return misbehaved(0, "chain entry too large (total height %d, %d ids)", resp.TotalHeight, count)
	case expectHeight != 0 && resp.StartHeight+1 > expectHeight:
		return misbehaved(1, "chain entry starts at %d, above our height %d", resp.StartHeight, expectHeight)
	}
	// prevalidate_block_hashes: inside the block-hash list, whole groups of
	// 512 ids are checked before anything is downloaded; an entry with no
	// usable id, or with a whole group's worth unusable, is a false chain.
	// monerod drops such a peer with one fail; gonero bans it (a fork of the
	// list's history), like a block failing a checkpoint (blockFault).
	entryIDs := make([]cryptonote.Hash, len(resp.BlockIDs))
	for i, id := range resp.BlockIDs {
		entryIDs[i] = id
	}
	usable, err := n.chain.PrevalidateBlockHashes(resp.StartHeight, entryIDs, resp.BlockWeights)
	if err != nil {
		return err // our store's failure, not the peer's
	}
	if count := uint64(len(resp.BlockIDs)); usable == 0 || usable+blockhashes.GroupSize <= count {
		return &peerError{score: banAtOnce, err: fmt.Errorf("%w: chain entry from %d: %d of %d ids usable",
			chain.ErrBlockHashList, resp.StartHeight, usable, count)}
	}
	resp.BlockIDs = resp.BlockIDs[:min(usable, uint64(len(resp.BlockIDs)))]
	seen := make(map[cryptonote.Hash]bool, len(resp.BlockIDs))
	for _, id := range resp.BlockIDs {
		if seen[id] {
			return misbehaved(5, "chain entry lists block %s twice", cryptonote.Hash(id))
		}
		seen[id] = true
	}
	// The first id may also be one still in the block queue (monerod:
	// "already queued at start_height"): the peer continues from the
	// last block it listed.
	if !n.chain.HasBlock(resp.BlockIDs[0]) {
		if h, ok := n.queue.heightOf(resp.BlockIDs[0]); !ok || h != resp.StartHeight {
			return misbehaved(5, "chain entry starts at an unknown block %s", cryptonote.Hash(resp.BlockIDs[0]))
		}
	}
	var needed []cryptonote.Hash
	neededStart := resp.StartHeight + 1
	for _, id := range resp.BlockIDs[1:] {
		if n.chain.HasBlock(id) {
			if len(needed) > 0 {
				return misbehaved(5, "chain entry lists known block %s after an unknown one", cryptonote.Hash(id))
			}
			neededStart++
			continue
		}
		needed = append(needed, id)
	}
	entry := entryIDs[:len(resp.BlockIDs)]
	last := resp.BlockIDs[len(resp.BlockIDs)-1]
	lastHeight := resp.StartHeight + uint64(len(resp.BlockIDs)) - 1
	n.raiseCoreTarget(resp.TotalHeight, false)
	c.mu.Lock()
	c.remoteHeight = max(c.remoteHeight, resp.TotalHeight)
	// A peer whose chain entries bring nothing new and get no further
	// while it claims more would keep this node asking forever (an
	// endless chain): after a few such answers it is dropped.
	if len(needed) == 0 && lastHeight <= c.sync.lastResponseHeight && lastHeight+1 < c.remoteHeight {
		c.sync.idleEntries++
	} else {
		c.sync.idleEntries = 0
	}
	idle := c.sync.idleEntries
	c.sync.needed, c.sync.neededStart = needed, neededStart
	c.sync.entryStart, c.sync.entryIDs = resp.StartHeight, entry
	c.sync.lastResponseHeight = lastHeight
	c.sync.lastKnownHash, c.sync.hasLastKnown = last, true
	c.mu.Unlock()
	if idle >= maxIdleChainEntries {
		// gonero's own rule: monerod has none to score it by.
		return misbehaved(0, "%d chain entries in a row without a new block, claiming height %d", idle, resp.TotalHeight)
	}
	return n.requestMissing(c)
}

// requestMissing is request_missing_objects (docs/p2p-levin.md §8.6) over the shared block
// queue: pause while the queue is full; else reserve the next span of the
// peer's needed blocks no other connection holds, or take over a stalled
// span, or ask for more of the peer's chain, or end syncing with c.
func (n *Node) requestMissing(c *conn) error {
	now := n.now()
	height := n.chain.Height()
	c.mu.Lock()
	if c.sync.expectChain || len(c.sync.requested) > 0 {
		c.mu.Unlock()
		return nil // one request at a time; its answer calls again
	}
	needed, start := c.sync.needed, c.sync.neededStart
	seed, remoteHeight := c.pruningSeed, c.remoteHeight
	c.mu.Unlock()
	n.queue.release(height, n.chain.IsMainChain)

	// Full blocks are asked only of a peer that holds them unpruned
	// (pruning.go): a pruned peer off its stripe has nothing to give here.
	if len(needed) > 0 && !peerHoldsSpan(seed, remoteHeight, start, uint64(min(len(needed), n.spanSize(), maxObjectRequest))) {
		c.mu.Lock()
		c.sync.needed = nil
		c.mu.Unlock()
		c.setState(stateNormal)
		return nil
	}

	if len(needed) > 0 && start > height+urgentDistance && n.queue.full(n.cfg.BlockDownloadMaxSize) {
		c.setState(stateStandby)
		return nil
	}
	s, skip := n.queue.reserve(c, start, needed, min(n.spanSize(), maxObjectRequest), now)
	c.mu.Lock()
	if s != nil {
		skip = int(s.start-start) + len(s.ids)
	}
	c.sync.needed = c.sync.needed[min(skip, len(c.sync.needed)):]
	c.sync.neededStart += uint64(skip)
	c.mu.Unlock()
	if s == nil {
		s = n.queue.takeStalled(c, now, n.cfg.SpanTimeout, func(s *span) bool {
			return c.canServe(s) && peerHoldsSpan(seed, remoteHeight, s.start, uint64(len(s.ids)))
		})
		if s != nil {
			n.log.Debug("re-requesting a stalled span", "conn", c, "start", s.start, "blocks", len(s.ids))
		}
	}
	if s != nil {
		return n.requestSpan(c, s)
	}

	c.mu.Lock()
	more := c.sync.lastResponseHeight+1 < c.remoteHeight
	// A gap at the height (a span dropped with its bad peer, or released)
	// that no queued span covers: ask this peer's chain again from our
	// own top, at most once a second.
	gap := !more && c.remoteHeight > height && !n.queue.covers(height) && now.Sub(c.sync.lastGapRequest) > time.Second
	if gap {
		c.sync.hasLastKnown = false
		c.sync.lastGapRequest = now
	}
	c.mu.Unlock()
	if more || gap {
		return n.requestChain(c)
	}
	if !n.queue.empty() {
		// Other connections still download: wait, ready to take over a
		// span that stalls.
		c.setState(stateStandby)
		return nil
	}
	c.mu.Lock()
	c.sync.hasLastKnown = false
	c.mu.Unlock()
	c.setState(stateNormal)
	if height := n.chain.Height(); height >= n.target() {
		n.setSynchronized()
	}
	return nil
}

// canServe says whether c's last chain entry lists the span's blocks.
func (c *conn) canServe(s *span) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if s.start < c.sync.entryStart {
		return false
	}
	i := s.start - c.sync.entryStart
	last := i + uint64(len(s.ids)) - 1
	return last < uint64(len(c.sync.entryIDs)) && c.sync.entryIDs[i] == s.ids[0] && c.sync.entryIDs[last] == s.ids[len(s.ids)-1]
}

// requestSpan sends NOTIFY_REQUEST_GET_OBJECTS for a reserved span.
func (n *Node) requestSpan(c *conn, s *span) error {
	c.mu.Lock()
	c.sync.requested = append([]cryptonote.Hash(nil), s.ids...)
	c.sync.requestedStart = s.start
	c.sync.requestedAt = n.now()
	c.mu.Unlock()
	c.setState(stateSynchronizing)
	ids := make([][32]byte, len(s.ids))
	for i := range s.ids {
		ids[i] = s.ids[i]
	}
	return c.notify(levin.NotifyRequestGetObjects, portable.RequestGetObjects{Blocks: ids})
}

// handleObjects checks a NOTIFY_RESPONSE_GET_OBJECTS (docs/p2p-levin.md §8.4) against the
// span asked for and queues its blocks; the writer adds them in height
// order once verified (writeLoop).
func (n *Node) handleObjects(c *conn, resp portable.ResponseGetObjects) error {
	c.mu.Lock()
	requested, start := c.sync.requested, c.sync.requestedStart
	entryStart, entryIDs := c.sync.entryStart, c.sync.entryIDs
	c.sync.requested = nil
	c.mu.Unlock()
	if len(requested) == 0 {
		return misbehaved(1, "objects out of the blue")
	}
	// announced is the id the peer's last chain entry lists at height h
	// (monerod's get_expected_hash).
	announced := func(h uint64) (cryptonote.Hash, bool) {
		if h < entryStart || h-entryStart >= uint64(len(entryIDs)) {
			return cryptonote.Hash{}, false
		}
		return entryIDs[h-entryStart], true
	}
	// Scored as monerod's handle_response_get_objects: one fail for an
	// answer out of the blue or without blocks, none for anything else
	// wrong in it (drop_connection(context, false, false)).
	var previous cryptonote.Hash
	if len(resp.Blocks) == 0 {
		return misbehaved(1, "no blocks returned for %d requested", len(requested))
	}
	if len(resp.Blocks) != len(requested) {
		return misbehaved(0, "%d blocks returned for %d requested", len(resp.Blocks), len(requested))
	}
	blocks := make([]syncBlock, len(resp.Blocks))
	size := 0
	for i, e := range resp.Blocks {
		if e.Pruned || e.BlockWeight != 0 {
			return misbehaved(0, "pruned block sent without being asked for")
		}
		blk, err := cryptonote.ParseBlock(e.Block)
		if err != nil {
			return misbehaved(0, "block %d of the response: %w", i, err)
		}
		id, err := blk.ID()
		if err != nil {
			return misbehaved(0, "block %d of the response: %w", i, err)
		}
		// The blocks must be the chain the peer announced (monero
		// ed70c1622): each at the height its coinbase names, where the
		// peer's chain entry lists it, the first linking to the entry's
		// block below it and each next to the one before.
		gen, ok := coinbaseGen(blk)
		if !ok {
			return misbehaved(0, "block %s: its miner tx has not exactly one gen input", id)
		}
		if a, ok := announced(gen.Height); !ok || a != id {
			return misbehaved(0, "sent invalid chain: block %s at height %d is not the chain entry's block there", id, gen.Height)
		}
		if i == 0 {
			if a, ok := announced(gen.Height - 1); gen.Height == 0 || !ok || a != blk.PrevID {
				return misbehaved(0, "sent invalid chain: block %s at height %d does not follow the chain entry's block below it", id, gen.Height)
			}
		} else if blk.PrevID != previous {
			return misbehaved(0, "sent invalid chain: block %s does not follow block %s", id, previous)
		}
		previous = id
		if gen.Height != start+uint64(i) {
			return misbehaved(0, "sent invalid chain: block %d of a span from height %d is at height %d", i, start, gen.Height)
		}
		if id != requested[i] {
			return misbehaved(0, "block %s returned where %s was requested", id, requested[i])
		}
		if len(e.Txs) != len(blk.TxHashes) {
			return misbehaved(0, "block %s comes with %d txs, it lists %d", id, len(e.Txs), len(blk.TxHashes))
		}
		p := syncBlock{blk: blk, blob: e.Block}
		size += len(e.Block)
		for j, te := range e.Txs {
			if te.PrunableHash != ([32]byte{}) {
				return misbehaved(0, "pruned tx sent without being asked for")
			}
			tx, err := cryptonote.ParseTransaction(te.Blob)
			if err != nil {
				// monerod parses a span's txs when it adds the span,
				// and drops the host's connections (drop_connections)
				// when one fails.
				return &peerError{host: true, err: fmt.Errorf("tx %d of block %s: %w", j, id, err)}
			}
			p.txs = append(p.txs, tx)
			p.txBlobs = append(p.txBlobs, te.Blob)
			size += len(te.Blob)
		}
		blocks[i] = p
	}
	n.raiseCoreTarget(resp.CurrentBlockchainHeight, false)
	c.mu.Lock()
	c.remoteHeight = max(c.remoteHeight, resp.CurrentBlockchainHeight)
	c.mu.Unlock()
	if s := n.queue.fill(c, start, requested, blocks, size, n.now()); s != nil {
		n.prepare(s)
	}
	return n.requestMissing(c)
}

// coinbaseGen is the gen input of a block whose miner tx has exactly one
// input, of that type.
func coinbaseGen(blk *cryptonote.Block) (cryptonote.TxInGen, bool) {
	if len(blk.MinerTx.Inputs) != 1 {
		return cryptonote.TxInGen{}, false
	}
	g, ok := blk.MinerTx.Inputs[0].(cryptonote.TxInGen)
	return g, ok
}

// blockFault turns a rejected block into the peer's fault, scored as
// monerod scores it (bvc.m_bad_pow ? P2P_IP_FAILS_BEFORE_BLOCK : 1): a
// block failing proof of work scores failsBeforeBan, which bans a host
// with any fail before it.
func blockFault(err error) error {
	var be *chain.BlockError
	if errors.As(err, &be) && be.Rule == chain.RuleStore {
		return err // our disk's failure, not the peer's
	}
	// A block failing a checkpoint or the block-hash list is from a fork
	// below the node's fixed history: banned at once (monerod scores these
	// 1; the issue asks for a ban, and such a peer cannot ever be useful).
	if errors.Is(err, chain.ErrCheckpoint) || errors.Is(err, chain.ErrAltBelowCheckpoint) || errors.Is(err, chain.ErrBlockHashList) {
		return &peerError{score: banAtOnce, err: err}
	}
	if errors.Is(err, consensus.ErrInsufficientPoW) {
		return &peerError{score: failsBeforeBan, err: err}
	}
	return &peerError{score: 1, err: err}
}

// syncWatchdog drops syncing peers that stopped answering (docs/p2p-levin.md §8.7): no reply
// to a 2006 or 2003 within SyncTimeout. The connection maker redials
// exclusive and priority nodes.
func (n *Node) syncWatchdog() {
	defer n.wg.Done()
	// The rest of the download machinery lives as long as the watchdog.
	n.wg.Add(2 + n.cfg.PrepBlocksThreads)
	go n.writeLoop()
	go n.standbyLoop()
	for range n.cfg.PrepBlocksThreads {
		go n.prepWorker()
	}
	n.every(max(n.cfg.SyncTimeout/4, 100*time.Millisecond), n.dropSilentSyncPeers)
}

// dropSilentSyncPeers is one round of syncWatchdog.
func (n *Node) dropSilentSyncPeers() {
	now := n.now()
	for _, c := range n.connections() {
		c.mu.Lock()
		waiting := (c.sync.expectChain || len(c.sync.requested) > 0) && now.Sub(c.sync.requestedAt) > n.cfg.SyncTimeout
		c.mu.Unlock()
		if waiting {
			n.dropConn(c, errSyncTimeout)
		}
	}
}

var errSyncTimeout = errors.New("p2p: peer did not answer a sync request in time")
