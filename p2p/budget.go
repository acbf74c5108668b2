package p2p

import (
	"errors"
	"math"
	"time"

	"github.com/gonero/gonero/levin"
	"github.com/gonero/gonero/membudget"
)

// The P2P memory budgets (docs/p2p.md, "Limits"; docs/public-node.md,
// "Memory budget"): what a peer can make the node hold, in both
// directions, per peer and for the whole node. The rate limits
// (ratelimit.go) bound how fast; these bound how much. They are parts of
// the node's one memory budget (Config.Memory, --memory-budget, shared with
// the RPC), each with a sub-limit of its own: levin_in (--p2p-levin-in-budget),
// p2p_send (--p2p-send-budget, and per peer SendPeerBudget) and sync_blocks
// (the block queue's received spans, --block-download-max-size). A claim
// is refused when it would pass the global total, its part's sub-limit or
// its peer's limit: the newest claimant is refused, what is held stays.
//
// Incoming: a message is refused by its declared size before a byte of
// its body is read, against the levin limits (256 KiB before the
// handshake, then monerod's 100 MB and per-command ceilings, lowered per
// command by commandLimit) and against the node's levin-in budget: the
// bytes of the messages being read or handled, summed over the peers. A
// message over levinInExempt that would take the sum past the budget (or
// the node's total past its bound) drops its peer (the newest claimant);
// smaller ones pass the part's budget, counted, so handshakes, timed syncs
// and requests never wait for a flood of big messages to end (they are
// refused only when the node's whole total is spent), and so do the
// answers to the node's own requests (counted, never refused).
//
// Outgoing: a connection's reader reads the peer's next message only while
// its send queue holds at most sendBacklog bytes, and, while the node's
// send queues together hold more than the send budget, only once its own
// is empty (the peers holding the budget wait, the others go on); the same
// while the node's total has less than sendRoomFloor of room left for large
// claims. A peer asking for blocks as fast as they are answered so gets
// them at the pace its share of the upload limit sends them, and the node
// spends no more CPU on it than that; a peer that asks and never reads
// holds sendBacklog and one answer, and is dropped when nothing of its
// queue went out for sendStallTimeout. Every message queued is claimed:
// one that would take the peer's queue past SendPeerBudget (while it holds
// something), the send part past its sub-limit or the node's total past
// its bound drops the peer at once (monerod drops a peer whose queue is
// over its limits too): a peer that does not read, sent relays and
// answers, is dropped at its budget, whatever the time.
const (
	// DefaultLevinInBudget is the default of Config.LevinInBudget: room for
	// one message at monerod's 100 MB ceiling and some smaller ones.
	DefaultLevinInBudget = 128 << 20
	// DefaultSendBudget is the default of Config.SendBudget: 8 s of
	// upload at the default rate.
	DefaultSendBudget = 64 << 20
	// DefaultSendPeerBudget is the default of Config.SendPeerBudget: what
	// one peer's send queue may hold while it holds anything else; far
	// above sendBacklog and the largest block answer a syncing peer waits
	// for (100 blocks), far below monerod's 100 MB per connection.
	DefaultSendPeerBudget = 32 << 20

	// levinInExempt: messages up to this size pass whatever the levin-in
	// part holds (they are still counted), within the node's total.
	levinInExempt = 1 << 20
	// sendBacklog is how many queued bytes a connection may have and its
	// next message still be read: a little more than the largest answer
	// to a small block request, so that a peer syncing with one request
	// at a time never waits for its own answers.
	sendBacklog = 2 << 20
	// sendStallTimeout: a connection whose reader waits for its send
	// queue to drain is dropped when no byte of it went out this long
	// (monerod terminates a connection whose queue stays over its limits
	// for 5 to 6 s).
	sendStallTimeout = 20 * time.Second
	// sendBudgetPoll is how often a reader waiting for the node's send
	// queues to drain looks again.
	sendBudgetPoll = 50 * time.Millisecond
	// sendRoomFloor: while the node's total has less room than this for
	// large claims, readers with answers queued wait as over the send
	// budget, so that answers are claimed before the total refuses them.
	sendRoomFloor = 4 * sendBacklog
)

// memParts are the P2P parts of the node's memory budget.
type memParts struct {
	in, send, blocks *membudget.Account[*conn]
}

// newMemParts makes the P2P parts on cfg.Memory (nil: a budget of P2P's
// own with no global total; the parts' sub-limits still hold).
func newMemParts(cfg *Config) memParts {
	b := cfg.Memory
	if b == nil {
		b = membudget.New(0)
	}
	return memParts{
		in:     membudget.NewAccount[*conn](b, 0).WithLimit(cfg.LevinInBudget),
		send:   membudget.NewAccount[*conn](b, cfg.SendPeerBudget).WithLimit(cfg.SendBudget),
		blocks: membudget.NewAccount[*conn](b, 0),
	}
}

// MemoryBudget is the budget the P2P parts draw on (Config.Memory, or
// P2P's own).
func (n *Node) MemoryBudget() *membudget.Budget { return n.mem.in.Budget() }

// MemoryParts are the P2P parts' use of the memory budget, by name, for
// the metrics: levin_in, p2p_send, sync_blocks.
func (n *Node) MemoryParts() map[string]membudget.Stats {
	return map[string]membudget.Stats{"levin_in": n.mem.in.Stats(), "p2p_send": n.mem.send.Stats(), "sync_blocks": n.mem.blocks.Stats()}
}

// errLevinInBudget drops a peer whose message would take the node's
// levin-in budget past its bound; errSendStalled one whose reader waited
// sendStallTimeout for a send queue that never drained; errSendBudget one
// whose next queued message would pass its own, the send part's or the
// node's budget.
var (
	errLevinInBudget = errors.New("p2p: the node's incoming message budget is spent")
	errSendStalled   = errors.New("p2p: the peer does not read the answers it asked for")
	errSendBudget    = errors.New("p2p: the peer's send queue would pass its memory budget")
)

// enqueue queues buf for the writer, counting it against the connection's
// and the node's send queues. Callers hold wmu. It never blocks: a queue
// over monerod's limits closes the connection.
func (c *conn) enqueue(buf []byte) error {
	if c.closed() || c.sendClosed {
		return ErrClosed
	}
	size := int64(len(buf))
	if c.node != nil && !c.node.mem.send.Acquire(c, size) {
		c.node.sendRefused.Add(1)
		c.close(errSendBudget)
		return errSendBudget
	}
	before := c.queued.Add(size) - size
	if before > sendQueueBytes || len(c.sendq) > sendQueueMessages {
		c.dequeue(len(buf))
		c.close(errSendQueueFull)
		return errSendQueueFull
	}
	select {
	case c.sendq <- buf:
		return nil
	default:
		c.dequeue(len(buf))
		c.close(errSendQueueFull)
		return errSendQueueFull
	}
}

// dequeue uncounts n bytes that left the send queue (sent, or dropped with
// the connection) and wakes a reader waiting for room.
func (c *conn) dequeue(n int) {
	c.queued.Add(-int64(n))
	if c.node != nil {
		c.node.mem.send.Release(c, int64(n))
	}
	select {
	case c.drained <- struct{}{}:
	default:
	}
}

// closeSendQueue, when the writer ends, uncounts what it will never send;
// nothing is queued afterwards.
func (c *conn) closeSendQueue() {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	c.sendClosed = true
	for {
		select {
		case buf := <-c.sendq:
			c.dequeue(len(buf))
		default:
			return
		}
	}
}

// waitSendRoom holds the reader until the connection's send queue holds at
// most sendBacklog bytes and, while the node's send queues together hold
// more than the send budget, until its own is empty. It returns
// errSendStalled when the connection's queue made no progress for the
// stall timeout, ErrClosed when it closed.
func (c *conn) waitSendRoom() error {
	n := c.node
	budget := n.cfg.SendBudget
	// Over the node's budget, only the peers that have answers queued
	// wait: those that hold the budget, never one whose queue is empty
	// (a peer answering our timed sync, a new one handshaking). The send
	// part waits at half its sub-limit, and while the node's total is
	// nearly spent, so that answers are rarely refused (which drops the
	// peer) by the bound the readers could have waited for.
	over := func() (own, node bool) {
		q := c.queued.Load()
		if q == 0 {
			return false, false
		}
		return q > sendBacklog, (budget > 0 && n.mem.send.Used() > budget/2) || n.mem.send.Budget().Room() < sendRoomFloor
	}
	own, node := over()
	if !own && !node {
		return nil
	}
	n.sendWaits.Add(1)
	stall := n.cfg.sendStallTimeout
	if stall <= 0 {
		stall = sendStallTimeout
	}
	started := time.Now()
	t := time.NewTimer(sendBudgetPoll)
	defer t.Stop()
	for {
		select {
		case <-c.done:
			return ErrClosed
		case <-c.drained:
		case <-t.C:
			t.Reset(sendBudgetPoll)
		}
		if own, node = over(); !own && !node {
			return nil
		}
		if own || node {
			last := time.Unix(0, c.lastSend.Load())
			if started.After(last) {
				last = started
			}
			if time.Since(last) > stall {
				n.sendStalls.Add(1)
				return errSendStalled
			}
		}
	}
}

// claimIn is the connection's levin.Reader.Claim: the message being read
// will hold size bytes. The claim grows the connection's share of the
// node's levin-in budget to size; it fails when that would pass the budget
// and size is over levinInExempt, unless the message answers the node's own
// request (blocks or a chain entry: commandLimit refuses those nobody asked
// for), whose number the node chooses (one span per connection, the block
// queue's bound): a flood of large messages cannot stop the node's sync.
func (c *conn) claimIn(command uint32, size uint64) error {
	n := c.node
	if size <= c.inHeld {
		return nil
	}
	delta := int64(min(size, math.MaxInt64/2) - c.inHeld)
	asked := command == levin.NotifyResponseGetObjects || command == levin.NotifyResponseChainEntry
	var ok bool
	switch {
	case asked:
		n.mem.in.Take(c, delta)
		ok = true
	case size <= levinInExempt:
		// Past the part's own bound (a flood of large messages must not
		// keep handshakes out), never past the node's total.
		ok = n.mem.in.AcquireGlobal(c, delta)
	default:
		ok = n.mem.in.Acquire(c, delta)
	}
	if !ok {
		n.levinInRefused.Add(1)
		return errLevinInBudget
	}
	c.inHeld = size
	return nil
}

// releaseIn gives back the connection's share of the levin-in budget once
// its message was handled (or the connection ended).
func (c *conn) releaseIn() {
	if c.inHeld != 0 {
		c.node.mem.in.Release(c, int64(min(c.inHeld, math.MaxInt64/2)))
		c.inHeld = 0
	}
}

// chainRequestLimit bounds a NOTIFY_REQUEST_CHAIN: 2,000 ids of 32 bytes
// and the storage framing.
const chainRequestLimit = 2000*32 + 1024

// newBlockSlack covers a NOTIFY_NEW_BLOCK's storage framing and the
// miner transaction beside the weight limit.
const newBlockSlack = 64 << 10

// commandLimit is the connection's levin.Reader.CommandLimit: a command's
// body limit below monerod's ceilings, from what the connection knows
// (docs/p2p.md, "Limits"). Answers to requests not made get 0: monerod
// drops a peer for them whatever their size, so none is read.
func (c *conn) commandLimit(command uint32) uint64 {
	switch command {
	case levin.NotifyResponseGetObjects:
		c.mu.Lock()
		asked := len(c.sync.requested) != 0
		c.mu.Unlock()
		if !asked {
			return 0
		}
	case levin.NotifyResponseChainEntry:
		c.mu.Lock()
		asked := c.sync.expectChain
		c.mu.Unlock()
		if !asked {
			return 0
		}
	case levin.NotifyRequestChain:
		// Serving a chain request looks up each id until one is known, so
		// its cost grows with the ids an unknown history lists. monerod
		// accepts up to its 512 KiB ceiling, but only ever sends a short
		// history (get_short_chain_history: 10 ids, then one per doubling,
		// and genesis; about 45 at any height, and the last known id):
		// 2,000 ids leave forty times that.
		return chainRequestLimit
	case levin.NotifyNewBlock:
		// A whole block with its transactions: a transaction's blob is
		// never larger than its weight, and a block's weight is at most
		// twice the effective median (monerod 0.18 announces blocks as
		// fluffy ones, which keep their own 4 MB ceiling). Twice that
		// again for the alternative blocks of a heavier branch.
		median := c.node.chain.NextBlockFacts().EffectiveMedian
		return 4*median + newBlockSlack
	}
	return math.MaxUint64
}

// unaskedAnswer turns the refusal of an answer nobody asked for (limit 0)
// into monerod's verdict: the peer is dropped with a fail, as
// handle_response_get_objects and handle_response_chain_entry drop it.
func unaskedAnswer(err error) error {
	var se *levin.SizeError
	if errors.As(err, &se) && se.Limit == 0 &&
		(se.Command == levin.NotifyResponseGetObjects || se.Command == levin.NotifyResponseChainEntry) {
		return misbehaved(1, "an answer (command %d, %d bytes) to no request: %w", se.Command, se.Size, err)
	}
	return err
}

// RateLimits are the P2P rate limits in kB/s: monerod's get_limit. An
// unlimited direction (Config's negative value, tests only) reads 0.
func (n *Node) RateLimits() (up, down int64) { return n.rateUp.limit(), n.rateDown.limit() }

// SetRateLimits is monerod's set_limit: a positive value sets a direction's
// limit in kB/s, 0 leaves it, -1 restores monerod's default; any other
// value leaves it too (the RPC refuses those first).
func (n *Node) SetRateLimits(up, down int64) {
	now := time.Now()
	set := func(l *rateLimiter, v, def int64) {
		switch {
		case v > 0:
			l.setLimit(v, now)
		case v == -1:
			l.setLimit(def, now)
		}
	}
	set(&n.rateUp, up, DefaultLimitRateUp)
	set(&n.rateDown, down, DefaultLimitRateDown)
}

// LimitStats are the P2P limiters' and budgets' figures for the metrics.
type LimitStats struct {
	// RateUp, RateDown: the limits in bytes per second (0: unlimited).
	RateUp, RateDown uint64
	// BytesUp, BytesDown went through the limiters; WaitUp, WaitDown are
	// the seconds connections were held by them, summed.
	BytesUp, BytesDown uint64
	WaitUp, WaitDown   float64
	// LevinIn is the bytes of incoming messages being read or handled
	// now, LevinInBudget its bound; LevinInRefused counts the messages
	// (and so the peers) refused for it.
	LevinIn, LevinInBudget, LevinInRefused uint64
	// SendQueued is the bytes queued for sending now, SendBudget its
	// bound; SendWaits counts the times a reader waited for room,
	// SendStalls the peers dropped for never draining their queue, and
	// SendRefused those dropped for a message past their budget.
	SendQueued, SendBudget, SendWaits, SendStalls, SendRefused uint64
}

// LimitStats reads the limiters and budgets.
func (n *Node) LimitStats() LimitStats {
	pos := func(v int64) uint64 { return uint64(max(v, 0)) }
	return LimitStats{
		RateUp: pos(n.rateUp.limit()) * 1024, RateDown: pos(n.rateDown.limit()) * 1024,
		BytesUp: n.rateUp.bytes.Load(), BytesDown: n.rateDown.bytes.Load(),
		WaitUp:   time.Duration(n.rateUp.waited.Load()).Seconds(),
		WaitDown: time.Duration(n.rateDown.waited.Load()).Seconds(),
		LevinIn:  pos(n.mem.in.Used()), LevinInBudget: pos(n.cfg.LevinInBudget), LevinInRefused: n.levinInRefused.Load(),
		SendQueued: pos(n.mem.send.Used()), SendBudget: pos(n.cfg.SendBudget),
		SendWaits: n.sendWaits.Load(), SendStalls: n.sendStalls.Load(), SendRefused: n.sendRefused.Load(),
	}
}
