package p2p

import (
	"errors"
	"fmt"
	"time"

	"github.com/gonero/gonero/chain"
	"github.com/gonero/gonero/chaindb"
	"github.com/gonero/gonero/consensus"
	"github.com/gonero/gonero/cryptonote"
	"github.com/gonero/gonero/levin"
	"github.com/gonero/gonero/params"
	"github.com/gonero/gonero/params/blockhashes"
	"github.com/gonero/gonero/portable"
	"github.com/gonero/gonero/txpool"
)

// Limits of the CryptoNote protocol (docs/p2p-levin.md §7, §8, §11).
const (
	maxObjectRequest      = 100         // CURRENCY_PROTOCOL_MAX_OBJECT_REQUEST_COUNT
	chainIDsPerResponse   = 10_000      // BLOCKS_IDS_SYNCHRONIZING_DEFAULT_COUNT
	maxChainIDsInResponse = 25_000      // BLOCKS_IDS_SYNCHRONIZING_MAX_COUNT
	maxBlockNumber        = 500_000_000 // CRYPTONOTE_MAX_BLOCK_NUMBER
	maxBlockSyncSize      = 2048        // BLOCKS_SYNCHRONIZING_MAX_COUNT, --block-sync-size's cap
	maxIdleChainEntries   = 3           // chain entries without progress before the peer is dropped (gonero's)
)

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

// handleNotification handles the CryptoNote protocol (docs/p2p-levin.md §7).
func (c *conn) handleNotification(m levin.Message) error {
	n := c.node
	c.mu.Lock()
	handshaked := c.handshaked
	c.mu.Unlock()
	if !handshaked {
		// monerod drops these before a handshake and ignores the rest.
		switch m.Command {
		case levin.NotifyRequestGetObjects, levin.NotifyRequestChain, levin.NotifyRequestFluffyMissingTx:
			return misbehaved(1, "command %d before the handshake", m.Command)
		}
		return nil
	}
	switch m.Command {
	case levin.NotifyRequestChain:
		var req portable.RequestChain
		if err := portable.Unmarshal(m.Body, &req); err != nil {
			return misbehaved(1, "request chain: %w", err)
		}
		return n.serveChain(c, req)
	case levin.NotifyResponseChainEntry:
		var resp portable.ResponseChainEntry
		if err := portable.Unmarshal(m.Body, &resp); err != nil {
			return misbehaved(1, "chain entry: %w", err)
		}
		return n.handleChainEntry(c, resp)
	case levin.NotifyRequestGetObjects:
		var req portable.RequestGetObjects
		if err := portable.Unmarshal(m.Body, &req); err != nil {
			return misbehaved(1, "request objects: %w", err)
		}
		return n.serveObjects(c, req)
	case levin.NotifyResponseGetObjects:
		var resp portable.ResponseGetObjects
		if err := portable.Unmarshal(m.Body, &resp); err != nil {
			return misbehaved(1, "objects: %w", err)
		}
		return n.handleObjects(c, resp)
	case levin.NotifyNewBlock, levin.NotifyNewFluffyBlock:
		var nb portable.NewBlock
		if err := portable.Unmarshal(m.Body, &nb); err != nil {
			return misbehaved(1, "new block: %w", err)
		}
		return n.handleNewBlock(c, nb)
	case levin.NotifyRequestFluffyMissingTx:
		var req portable.RequestFluffyMissingTx
		if err := portable.Unmarshal(m.Body, &req); err != nil {
			return misbehaved(1, "request missing txs: %w", err)
		}
		return n.serveMissingTxs(c, req)
	case levin.NotifyNewTransactions:
		var nt portable.NewTransactions
		if err := portable.Unmarshal(m.Body, &nt); err != nil {
			return misbehaved(1, "new transactions: %w", err)
		}
		return n.handleNewTxs(c, nt)
	case levin.NotifyGetTxpoolComplement:
		var req portable.GetTxpoolComplement
		if err := portable.Unmarshal(m.Body, &req); err != nil {
			return misbehaved(1, "txpool complement: %w", err)
		}
		if c.getState() != stateNormal {
			return nil
		}
		return n.serveComplement(c, req)
	}
	// Unknown notifications are ignored, as released v0.18 does.
	return nil
}

// serveChain answers NOTIFY_REQUEST_CHAIN (find_blockchain_supplement, docs/p2p-levin.md §8.2).
func (n *Node) serveChain(c *conn, req portable.RequestChain) error {
	genesis := n.chain.Network().GenesisID()
	if len(req.BlockIDs) == 0 || req.BlockIDs[len(req.BlockIDs)-1] != genesis {
		n.log.Debug("chain request without our genesis; not answered", "conn", c)
		return nil
	}
	var resp portable.ResponseChainEntry
	err := n.chain.Store().View(func(r *chaindb.Reader) error {
		height, err := r.Height()
		if err != nil {
			return err
		}
		start, found := uint64(0), false
		for _, id := range req.BlockIDs {
			if h, err := r.HeightByHash(id); err == nil {
				start, found = h, true
				break
			}
		}
		if !found {
			return nil
		}
		stop, ok := clipChain(r, start, height, req.Prune)
		if !ok {
			return nil
		}
		stop = min(stop, start+chainIDsPerResponse)
		metas, err := r.MetasInRange(start, stop)
		if err != nil {
			return err
		}
		top, err := r.Top()
		if err != nil {
			return err
		}
		resp = portable.ResponseChainEntry{StartHeight: start, TotalHeight: height,
			CumulativeDifficulty: top.CumulativeDifficulty.Lo, CumulativeDifficultyTop64: top.CumulativeDifficulty.Hi}
		for _, m := range metas {
			resp.BlockIDs = append(resp.BlockIDs, m.Hash)
			resp.BlockWeights = append(resp.BlockWeights, m.Weight)
		}
		if len(metas) >= 2 {
			if resp.FirstBlock, err = r.BlockBlob(start + 1); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	if len(resp.BlockIDs) == 0 {
		return nil
	}
	return c.notify(levin.NotifyResponseChainEntry, resp)
}

// serveObjects answers NOTIFY_REQUEST_GET_OBJECTS with main-chain blocks
// and their transactions (docs/p2p-levin.md §7.4, §7.5).
func (n *Node) serveObjects(c *conn, req portable.RequestGetObjects) error {
	if len(req.Blocks) > maxObjectRequest {
		return misbehaved(1, "request for %d blocks (at most %d)", len(req.Blocks), maxObjectRequest)
	}
	n.log.Debug("serving objects", "conn", c, "blocks", len(req.Blocks), "prune", req.Prune)
	resp := portable.ResponseGetObjects{}
	err := n.chain.Store().View(func(r *chaindb.Reader) error {
		var err error
		if resp.CurrentBlockchainHeight, err = r.Height(); err != nil {
			return err
		}
		for _, id := range req.Blocks {
			e, ok, err := blockEntry(r, id, req.Prune)
			if err != nil {
				return err
			}
			if !ok {
				resp.MissedIDs = append(resp.MissedIDs, id)
				continue
			}
			resp.Blocks = append(resp.Blocks, e)
		}
		return nil
	})
	if err != nil {
		return err
	}
	return c.notify(levin.NotifyResponseGetObjects, resp)
}

// blockEntry reads a main-chain block with its transactions, pruned if
// asked (blockEntryPruned, pruning.go).
func blockEntry(r *chaindb.Reader, id cryptonote.Hash, prune bool) (portable.BlockCompleteEntry, bool, error) {
	h, err := r.HeightByHash(id)
	if errors.Is(err, chaindb.ErrNotFound) {
		return portable.BlockCompleteEntry{}, false, nil
	} else if err != nil {
		return portable.BlockCompleteEntry{}, false, err
	}
	var e portable.BlockCompleteEntry
	if e.Block, err = r.BlockBlob(h); err != nil {
		return e, false, err
	}
	hashes, err := r.TxHashes(h)
	if err != nil {
		return e, false, err
	}
	if prune {
		return blockEntryPruned(r, h, e, hashes)
	}
	for _, th := range hashes {
		blob, err := r.TxBlob(th)
		if errors.Is(err, chaindb.ErrPruned) {
			return e, false, errPrunedAsked(h)
		}
		if err != nil {
			return e, false, err
		}
		e.Txs = append(e.Txs, portable.TxBlobEntry{Blob: blob})
	}
	return e, true, nil
}

// handleChainEntry checks a NOTIFY_RESPONSE_CHAIN_ENTRY (docs/p2p-levin.md §8.3) and starts
// downloading what we lack.
func (n *Node) handleChainEntry(c *conn, resp portable.ResponseChainEntry) error {
	c.mu.Lock()
	expected, expectHeight := c.sync.expectChain, c.sync.expectChainHeight
	c.sync.expectChain = false
	c.mu.Unlock()
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
		return misbehaved(1, "chain entry too large (total height %d, %d ids)", resp.TotalHeight, count)
	case expectHeight != 0 && resp.StartHeight+1 > expectHeight:
		return misbehaved(1, "chain entry starts at %d, above our height %d", resp.StartHeight, expectHeight)
	}
	// prevalidate_block_hashes: inside the block-hash list, whole groups of
	// 512 ids are checked before anything is downloaded; an entry with no
	// usable id, or with a whole group's worth unusable, is a false chain.
	// monerod drops such a peer with one fail; gonero bans it (a fork of the
	// list's history), like a block failing a checkpoint.
	entryIDs := make([]cryptonote.Hash, len(resp.BlockIDs))
	for i, id := range resp.BlockIDs {
		entryIDs[i] = id
	}
	usable, err := n.chain.PrevalidateBlockHashes(resp.StartHeight, entryIDs, resp.BlockWeights)
	if err != nil {
		return err // our store's failure, not the peer's
	}
	if count := uint64(len(resp.BlockIDs)); usable == 0 || usable+blockhashes.GroupSize <= count {
		return &peerError{score: failsBeforeBan, err: fmt.Errorf("%w: chain entry from %d: %d of %d ids usable",
			chain.ErrBlockHashList, resp.StartHeight, usable, count)}
	}
	resp.BlockIDs = resp.BlockIDs[:min(usable, uint64(len(resp.BlockIDs)))]
	seen := make(map[cryptonote.Hash]bool, len(resp.BlockIDs))
	for _, id := range resp.BlockIDs {
		if seen[id] {
			return misbehaved(1, "chain entry lists block %s twice", cryptonote.Hash(id))
		}
		seen[id] = true
	}
	// The first id may also be one still in the block queue (monerod:
	// "already queued at start_height"): the peer continues from the
	// last block it listed.
	if !n.chain.HasBlock(resp.BlockIDs[0]) {
		if h, ok := n.queue.heightOf(resp.BlockIDs[0]); !ok || h != resp.StartHeight {
			return misbehaved(1, "chain entry starts at an unknown block %s", cryptonote.Hash(resp.BlockIDs[0]))
		}
	}
	var needed []cryptonote.Hash
	neededStart := resp.StartHeight + 1
	for _, id := range resp.BlockIDs[1:] {
		if n.chain.HasBlock(id) {
			if len(needed) > 0 {
				return misbehaved(1, "chain entry lists known block %s after an unknown one", cryptonote.Hash(id))
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
		return misbehaved(1, "%d chain entries in a row without a new block, claiming height %d", idle, resp.TotalHeight)
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
	var previous cryptonote.Hash
	if len(resp.Blocks) != len(requested) {
		return misbehaved(1, "%d blocks returned for %d requested", len(resp.Blocks), len(requested))
	}
	blocks := make([]syncBlock, len(resp.Blocks))
	size := 0
	for i, e := range resp.Blocks {
		if e.Pruned || e.BlockWeight != 0 {
			return misbehaved(1, "pruned block sent without being asked for")
		}
		blk, err := cryptonote.ParseBlock(e.Block)
		if err != nil {
			return misbehaved(1, "block %d of the response: %w", i, err)
		}
		id, err := blk.ID()
		if err != nil {
			return misbehaved(1, "block %d of the response: %w", i, err)
		}
		// The blocks must be the chain the peer announced (monero
		// ed70c1622): each at the height its coinbase names, where the
		// peer's chain entry lists it, the first linking to the entry's
		// block below it and each next to the one before. (monerod drops
		// such a peer without counting a fail; here, like every other
		// bad span, it counts one.)
		gen, ok := coinbaseGen(blk)
		if !ok {
			return misbehaved(1, "block %s: its miner tx has not exactly one gen input", id)
		}
		if a, ok := announced(gen.Height); !ok || a != id {
			return misbehaved(1, "sent invalid chain: block %s at height %d is not the chain entry's block there", id, gen.Height)
		}
		if i == 0 {
			if a, ok := announced(gen.Height - 1); gen.Height == 0 || !ok || a != blk.PrevID {
				return misbehaved(1, "sent invalid chain: block %s at height %d does not follow the chain entry's block below it", id, gen.Height)
			}
		} else if blk.PrevID != previous {
			return misbehaved(1, "sent invalid chain: block %s does not follow block %s", id, previous)
		}
		previous = id
		if gen.Height != start+uint64(i) {
			return misbehaved(1, "sent invalid chain: block %d of a span from height %d is at height %d", i, start, gen.Height)
		}
		if id != requested[i] {
			return misbehaved(1, "block %s returned where %s was requested", id, requested[i])
		}
		if len(e.Txs) != len(blk.TxHashes) {
			return misbehaved(1, "block %s comes with %d txs, it lists %d", id, len(e.Txs), len(blk.TxHashes))
		}
		p := syncBlock{blk: blk, blob: e.Block}
		size += len(e.Block)
		for j, te := range e.Txs {
			if te.PrunableHash != ([32]byte{}) {
				return misbehaved(1, "pruned tx sent without being asked for")
			}
			tx, err := cryptonote.ParseTransaction(te.Blob)
			if err != nil {
				return misbehaved(1, "tx %d of block %s: %w", j, id, err)
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
// monerod scores it: a block failing proof of work bans at once.
func blockFault(err error) error {
	var be *chain.BlockError
	if errors.As(err, &be) && be.Rule == "store" {
		return err // our disk's failure, not the peer's
	}
	// A block failing a checkpoint or the block-hash list is from a fork
	// below the node's fixed history: banned at once (monerod scores these
	// 1; the issue asks for a ban, and such a peer cannot ever be useful).
	if errors.Is(err, consensus.ErrInsufficientPoW) || errors.Is(err, chain.ErrCheckpoint) ||
		errors.Is(err, chain.ErrAltBelowCheckpoint) || errors.Is(err, chain.ErrBlockHashList) {
		return &peerError{score: failsBeforeBan, err: err}
	}
	return &peerError{score: 1, err: err}
}

// handleNewBlock handles NOTIFY_NEW_FLUFFY_BLOCK (and NOTIFY_NEW_BLOCK,
// which v0.18.4 treats the same way) (docs/p2p-levin.md §7.8).
func (n *Node) handleNewBlock(c *conn, nb portable.NewBlock) error {
	if c.getState() != stateNormal || !n.synchronized.Load() {
		return nil
	}
	if nb.Block.Pruned {
		return misbehaved(1, "pruned new block")
	}
	blk, err := cryptonote.ParseBlock(nb.Block.Block)
	if err != nil {
		return misbehaved(1, "new block: %w", err)
	}
	id, err := blk.ID()
	if err != nil {
		return misbehaved(1, "new block: %w", err)
	}
	c.mu.Lock()
	c.remoteHeight = max(c.remoteHeight, nb.CurrentBlockchainHeight)
	c.mu.Unlock()
	if n.chain.HasBlock(id) {
		return nil
	}
	if !n.chain.HasBlock(blk.PrevID) {
		// An orphan: fetch the peer's chain to find where it joins ours.
		return n.requestChain(c)
	}
	listed := make(map[cryptonote.Hash]int, len(blk.TxHashes))
	for i, h := range blk.TxHashes {
		if _, dup := listed[h]; dup {
			return misbehaved(1, "new block %s lists tx %s twice", id, h)
		}
		listed[h] = i
	}
	txs := make([]*cryptonote.Transaction, len(blk.TxHashes))
	blobs := make([][]byte, len(blk.TxHashes))
	for _, te := range nb.Block.Txs {
		tx, err := cryptonote.ParseTransaction(te.Blob)
		if err != nil {
			return misbehaved(1, "tx of new block %s: %w", id, err)
		}
		i, ok := listed[tx.ID()]
		if !ok {
			return misbehaved(1, "new block %s comes with tx %s it does not list", id, tx.ID())
		}
		txs[i], blobs[i] = tx, te.Blob
	}
	var missing []uint64
	for i, h := range blk.TxHashes {
		if txs[i] != nil {
			continue
		}
		// As monerod, only transactions every peer may know this node has
		// (none in a stem phase or kept from relaying) complete a block.
		if e, ok := n.pool.Public(h); ok {
			txs[i], blobs[i] = e.Tx, e.Blob
			continue
		}
		missing = append(missing, uint64(i))
	}
	if len(missing) > 0 {
		return c.notify(levin.NotifyRequestFluffyMissingTx, portable.RequestFluffyMissingTx{
			BlockHash: id, CurrentBlockchainHeight: n.chain.Height(), MissingTxIndices: missing})
	}
	n.syncMu.Lock()
	res, err := n.chain.Add(blk, nb.Block.Block, txs, blobs)
	n.syncMu.Unlock()
	switch {
	case errors.Is(err, chain.ErrAlreadyInChain):
		return nil
	case errors.Is(err, chain.ErrOrphan):
		// The parent vanished in between (a switch): find the join again.
		return n.requestChain(c)
	case err != nil:
		return blockFault(err)
	}
	n.blocksFromPeers.Add(1)
	if !res.MainChain {
		n.log.Info("alternative block from peer", "height", res.Meta.Height, "id", id, "conn", c)
		return nil
	}
	if res.Reorganized {
		n.log.Info("switched to a heavier chain", "conn", c, "height", res.Meta.Height, "top", id, "blocks_replaced", res.Popped)
	} else {
		n.log.Info("new block from peer", "height", res.Meta.Height, "id", id, "conn", c)
	}
	// Like monerod, relay only what joined the main chain.
	n.relayBlock(nb.Block.Block, c)
	return nil
}

// serveMissingTxs answers NOTIFY_REQUEST_FLUFFY_MISSING_TX (docs/p2p-levin.md §7.9).
func (n *Node) serveMissingTxs(c *conn, req portable.RequestFluffyMissingTx) error {
	var e portable.BlockCompleteEntry
	var found bool
	err := n.chain.Store().View(func(r *chaindb.Reader) error {
		var err error
		e, found, err = blockEntry(r, req.BlockHash, false)
		return err
	})
	if err != nil {
		return err
	}
	if !found {
		return misbehaved(1, "missing txs requested for unknown block %s", cryptonote.Hash(req.BlockHash))
	}
	seen := map[uint64]bool{}
	txs := make([]portable.TxBlobEntry, 0, len(req.MissingTxIndices))
	for _, i := range req.MissingTxIndices {
		if i >= uint64(len(e.Txs)) || seen[i] {
			return misbehaved(1, "bad missing tx index %d for block %s", i, cryptonote.Hash(req.BlockHash))
		}
		seen[i] = true
		txs = append(txs, e.Txs[i])
	}
	e.Txs = txs
	// monerod echoes the requester's height in this answer.
	return c.notify(levin.NotifyNewFluffyBlock, portable.NewBlock{Block: e, CurrentBlockchainHeight: req.CurrentBlockchainHeight})
}

// handleNewTxs is handle_notify_new_transactions: every transaction goes
// through the pool's full verification; one that fails drops the peer (as
// monerod drops it, without a fail towards a ban), unless its refusal is no
// offence of the peer (consensus.IsNoDropOffense: a fee too low, a pool-only
// rule, a key image another pool transaction spends; monerod 0.18.2.2 on),
// which only leaves that transaction out. The new ones go on as
// they came: fluffed ones to every other peer, stem ones through
// Dandelion++ (relayStem). A transaction the pool holds in its stem phase
// counts as new when it comes fluffed, and when it comes on a stem again
// (a loop: monerod fluffs it then), so it is fluffed.
func (n *Node) handleNewTxs(c *conn, nt portable.NewTransactions) error {
	seen := make(map[cryptonote.Hash]bool, len(nt.Txs))
	for _, b := range nt.Txs {
		h := cryptonote.Keccak256(b)
		if seen[h] {
			// monerod 0.18.3.0 on (commit 1924c170d) drops the peer,
			// without a fail towards a ban.
			return misbehaved(0, "the same transaction twice in one message")
		}
		seen[h] = true
	}
	if c.getState() != stateNormal || !n.synchronized.Load() {
		return nil
	}
	n.log.Debug("new transactions from peer", "conn", c, "txs", len(nt.Txs), "stem", nt.Stem)
	var stem, fluff []*txpool.Entry
	for _, b := range nt.Txs {
		e, err := n.pool.Add(b, txpool.AddOptions{Source: txpool.SourceP2P, Stem: nt.Stem})
		switch {
		case errors.Is(err, txpool.ErrAlreadyInPool):
			if _, inStem := n.pool.StemPhase(e.ID); inStem {
				fluff = append(fluff, e)
			}
			continue
		case errors.Is(err, txpool.ErrAlreadyInChain):
			continue
		case consensus.IsNoDropOffense(err):
			n.log.Debug("transaction from peer refused", "conn", c, "err", err)
			continue
		case err != nil:
			return misbehaved(0, "transaction verification failed: %w", err)
		}
		if nt.Stem {
			stem = append(stem, e)
		} else {
			fluff = append(fluff, e)
		}
	}
	if len(stem) > 0 {
		n.relayStem(stem, c, false)
	}
	if len(fluff) > 0 {
		n.relayFluff(fluff, c)
	}
	return nil
}

// relayStem is dandelionpp_notify: the transactions go to the source's
// stem peer with dandelionpp_fluff false, their embargo set; without a stem
// peer, or in a fluff epoch unless they are this node's own (local), they
// are fluffed instead.
func (n *Node) relayStem(entries []*txpool.Entry, source *conn, local bool) {
	if peer := n.dandelion.stem(n.now(), source, local, n.stemCandidates); peer != nil {
		msg := portable.NewTransactions{Stem: true}
		for _, e := range entries {
			msg.Txs = append(msg.Txs, e.Blob)
			// Marked before the send: the stem peer may hand it straight
			// back (a loop), and must then find it in its stem phase.
			n.pool.MarkStem(e.ID, n.now().Add(n.dandelion.embargo()))
		}
		if err := peer.notify(levin.NotifyNewTransactions, msg); err == nil {
			n.log.Debug("transactions sent on a Dandelion++ stem", "txs", len(entries), "to", peer)
			return
		}
		n.dropConn(peer, errors.New("p2p: could not queue transactions for a stem peer"))
	}
	n.relayFluff(entries, source)
}

// stemCandidates are the outgoing connections whose peer is at least as
// high as this node (levin_notify.cpp get_out_connections).
func (n *Node) stemCandidates() []*conn {
	height := n.chain.Height()
	var outs []*conn
	for _, c := range n.connections() {
		c.mu.Lock()
		ok := !c.inbound && !c.ping && c.handshaked && c.remoteHeight >= height
		c.mu.Unlock()
		if ok {
			outs = append(outs, c)
		}
	}
	return outs
}

// relayFluff marks the transactions fluffed and hands them to every
// synchronised peer but the source, dandelionpp_fluff set.
func (n *Node) relayFluff(entries []*txpool.Entry, except *conn) {
	msg := portable.NewTransactions{}
	for _, e := range entries {
		n.pool.MarkRelayed(e.ID)
		msg.Txs = append(msg.Txs, e.Blob)
	}
	for _, c := range n.connections() {
		if c == except || c.getState() != stateNormal {
			continue
		}
		if err := c.notify(levin.NotifyNewTransactions, msg); err != nil {
			n.dropConn(c, err)
		}
	}
}

// relayLocal relays a transaction sendrawtransaction added (unless asked
// not to) through Dandelion++, as monerod relays its relay_method::local
// transactions: always on a stem while there is a stem peer, even in a
// fluff epoch. Registered with the pool.
func (n *Node) relayLocal(e *txpool.Entry) {
	if e.Source != txpool.SourceRPC || e.DoNotRelay {
		return
	}
	n.relayStem([]*txpool.Entry{e}, nil, true)
}

// relayAgain relays a pool transaction relay_tx asked for: fluffed when it
// was already public (relay_method::fluff), else as a local transaction,
// through Dandelion++ (relay_method::local).
func (n *Node) relayAgain(e *txpool.Entry, fluff bool) {
	if fluff {
		n.relayFluff([]*txpool.Entry{e}, nil)
		return
	}
	n.relayStem([]*txpool.Entry{e}, nil, true)
}

// embargoLoop fluffs the stem-phase transactions whose embargo ran out
// (core::relay_txpool_transactions, run from monerod's idle loop).
func (n *Node) embargoLoop() {
	defer n.wg.Done()
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-n.ctx.Done():
			return
		case <-t.C:
		}
		if expired := n.pool.EmbargoExpired(); len(expired) > 0 {
			n.log.Debug("Dandelion++ embargo over: fluffing", "txs", len(expired))
			n.relayFluff(expired, nil)
		}
	}
}

// serveComplement is handle_notify_get_txpool_complement: the pool's
// relayable transactions the peer does not list, in one
// NOTIFY_NEW_TRANSACTIONS (sent even when empty).
func (n *Node) serveComplement(c *conn, req portable.GetTxpoolComplement) error {
	has := make(map[cryptonote.Hash]bool, len(req.Hashes))
	for _, h := range req.Hashes {
		has[h] = true
	}
	var txs [][]byte
	for _, e := range n.pool.PublicEntries() {
		if !has[e.ID] {
			txs = append(txs, e.Blob)
		}
	}
	return c.notify(levin.NotifyNewTransactions, portable.NewTransactions{Txs: txs})
}

// RelayBlock announces a block just added to the main chain (by the miner
// or a peer) to every synchronised peer, as a fluffy block without
// transactions: peers ask for the ones they lack.
func (n *Node) RelayBlock(blob []byte) { n.relayBlock(blob, nil) }

func (n *Node) relayBlock(blob []byte, except *conn) {
	msg := portable.NewBlock{Block: portable.BlockCompleteEntry{Block: blob}, CurrentBlockchainHeight: n.chain.Height()}
	for _, c := range n.connections() {
		if c == except || c.getState() != stateNormal {
			continue
		}
		if err := c.notify(levin.NotifyNewFluffyBlock, msg); err != nil {
			n.dropConn(c, err)
		}
	}
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
	t := time.NewTicker(max(n.cfg.SyncTimeout/4, 100*time.Millisecond))
	defer t.Stop()
	for {
		select {
		case <-n.ctx.Done():
			return
		case <-t.C:
		}
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
}

var errSyncTimeout = errors.New("p2p: peer did not answer a sync request in time")
