package p2p

import (
	"bytes"
	"errors"
	"hash/maphash"
	"time"

	"github.com/gonero/gonero/consensus"
	"github.com/gonero/gonero/levin"
	"github.com/gonero/gonero/portable"
	"github.com/gonero/gonero/txpool"
)

// txRelay is the node's part that relays transactions: the verified
// pool, the Dandelion++ epoch, the node's own transactions waiting for an
// anonymity zone (and the record of those sent over one: ownprivate.go),
// and the transactions from a zone waiting for their forward delay
// (zones.go). The loops and sends that use it are Node's, which owns the
// connections.
type txRelay struct {
	pool *txpool.Pool
	// dandelion is the Dandelion++ epoch for relaying transactions.
	dandelion *dandelion
	// unassigned are the node's own transactions waiting for a zone to
	// leave through, forwards those from a zone waiting for their forward
	// delay.
	unassigned ownQueue
	forwards   forwardQueue
}

// TxPoolSize implements rpc.Peers.
func (r *txRelay) TxPoolSize() uint64 { return uint64(r.pool.Len()) }

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
	if duplicateBlob(nt.Txs) {
		// monerod 0.18.3.0 on (commit 1924c170d) drops the peer,
		// without a fail towards a ban.
		return misbehaved(0, "the same transaction twice in one message")
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
			// From a zone, a transaction is never sent on at once
			// (monerod forwards it after a delay, handled below).
			if _, inStem := n.pool.StemPhase(e.ID); inStem && c.anon == nil {
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
	if c.anon != nil {
		stem = n.forwardFromZone(c.anon, stem)
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
		n.padTxs(&msg)
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
	n.padTxs(&msg)
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
	n.relayPrivately([]*txpool.Entry{e})
}

// relayAgain relays a pool transaction relay_tx asked for: fluffed when it
// was already public (relay_method::fluff), else as a local transaction,
// through Dandelion++ (relay_method::local).
func (n *Node) relayAgain(e *txpool.Entry, fluff bool) {
	if fluff {
		n.fluffAgain([]*txpool.Entry{e})
		return
	}
	n.relayPrivately([]*txpool.Entry{e})
}

// relayPrivately sends the node's own transactions as monerod sends its
// relay_method::local ones: over an anonymity zone with a --tx-proxy if
// there is one, else on a Dandelion++ stem (fluffed without a stem peer).
func (n *Node) relayPrivately(entries []*txpool.Entry) {
	var stem []*txpool.Entry
	for _, e := range entries {
		if !n.sendOverZone(e) {
			stem = append(stem, e)
		}
	}
	if len(stem) > 0 {
		n.relayStem(stem, nil, true)
	}
}

// fluffAgain fluffs public pool transactions to every peer, but for the
// node's own sent over a zone before a restart, which are still private
// and go over the zone again.
func (n *Node) fluffAgain(entries []*txpool.Entry) {
	var fluff []*txpool.Entry
	for _, e := range entries {
		if n.ownPrivate(e.ID) && n.sendOverZone(e) {
			continue
		}
		fluff = append(fluff, e)
	}
	if len(fluff) > 0 {
		n.relayFluff(fluff, nil)
	}
}

// embargoLoop fluffs the stem-phase transactions whose embargo ran out
// (core::relay_txpool_transactions, run from monerod's idle loop).
func (n *Node) embargoLoop() {
	defer n.wg.Done()
	n.every(time.Second, func() {
		if expired := n.pool.EmbargoExpired(); len(expired) > 0 {
			n.log.Debug("Dandelion++ embargo over: fluffing", "txs", len(expired))
			n.relayFluff(expired, nil)
		}
	})
}

// every runs fn every d until the node stops: the shape of the node's
// periodic loops (embargo, relay pass, standby, forward delays, sync
// watchdog).
func (n *Node) every(d time.Duration, fn func()) {
	t := time.NewTicker(d)
	defer t.Stop()
	for {
		select {
		case <-n.ctx.Done():
			return
		case <-t.C:
		}
		fn()
	}
}

// relayPassLoop runs monerod's relay pass every RelayPassInterval (2
// minutes, the pool's max_relayable_check): the pool transactions due to
// be relayed again (txpool.RelayDue: relayed longer ago than their
// back-off, 5 minutes to 4 hours; never relayed, only those reloaded at
// start-up) are sent again, the node's
// own not yet public privately, as they were sent first (relayPrivately),
// the public ones fluffed (fluffAgain). The stem-phase ones are
// embargoLoop's and forwardLoop's.
func (n *Node) relayPassLoop() {
	defer n.wg.Done()
	n.every(n.cfg.RelayPassInterval, n.relayPass)
}

// relayPass is one pass of relayPassLoop.
func (n *Node) relayPass() {
	local, public := n.pool.RelayDue()
	if len(local)+len(public) == 0 {
		return
	}
	n.log.Debug("relay pass: relaying pool transactions again", "local", len(local), "public", len(public))
	if len(local) > 0 {
		n.relayPrivately(local)
	}
	if len(public) > 0 {
		n.fluffAgain(public)
	}
}

// duplicateBlob reports two equal blobs among txs. monerod compares their
// hashes; equal blobs are what equal hashes mean, and a seeded maphash,
// confirmed byte by byte, finds them at a fraction of Keccak's cost: a
// peer's tens of MB of garbage transactions are refused for what the
// first one is, not after hashing them all.
func duplicateBlob(txs [][]byte) bool {
	seed := maphash.MakeSeed()
	seen := make(map[uint64][]int, len(txs))
	for i, b := range txs {
		h := maphash.Bytes(seed, b)
		for _, j := range seen[h] {
			if bytes.Equal(txs[j], b) {
				return true
			}
		}
		seen[h] = append(seen[h], i)
	}
	return false
}
