package txpool

import "time"

// Relaying pool transactions again, as monerod's tx_memory_pool does
// (tx_pool.cpp: MIN_RELAY_TIME, MAX_RELAY_TIME, max_relayable_check).
const (
	// MinRelayTime is the wait before a transaction is first relayed
	// again, and the step by which the wait grows.
	MinRelayTime = 5 * time.Minute
	// MaxRelayTime is the longest wait between two relays.
	MaxRelayTime = 4 * time.Hour
	// RelayCheckInterval is how often monerod looks for transactions to
	// relay again (its relay pass runs at most this often).
	RelayCheckInterval = 2 * time.Minute
)

// relayDelay is monerod's get_relay_delay: how long after its last relay a
// transaction waits before it is relayed again. It grows by MinRelayTime
// with the time the transaction had spent in the pool when it was last
// relayed (5 minutes for one relayed on arrival, then 10, 15, ...), up to
// MaxRelayTime. In whole seconds, as monerod's time_t.
func relayDelay(lastRelayed, received time.Time) time.Duration {
	const step, limit = int64(MinRelayTime / time.Second), int64(MaxRelayTime / time.Second)
	d := (lastRelayed.Unix() - received.Unix() + step) / step * step
	return time.Duration(min(d, limit)) * time.Second
}

// relayDue reports whether the relay pass at now sends e again, and
// whether as the node's own, privately (monerod's
// get_relayable_transactions). Never: one paying no fee, kept back
// (do_not_relay), in its Dandelion++ stem phase (the embargo or the
// forward delay relays it), or a peer's not yet handed on (its handler is
// about to). Otherwise one that is the node's own and not yet public
// (relay_method::local), or public (fluff; block when it came back from a
// popped block) is due when more than relayDelay has passed since its
// last relay (never relayed: only one reloaded after a restart); but not once it has been in
// the pool more than half its lifetime (so that nodes about to drop it do
// not take it back from one another).
func (e *Entry) relayDue(now time.Time) (due, local bool) {
	if e.Fee == 0 || e.DoNotRelay || e.Stem {
		return false, false
	}
	local = e.Source == SourceRPC && !e.Broadcasted
	if !local && !e.Broadcasted {
		return false, false
	}
	switch {
	case e.LastRelayed.IsZero():
		// Never relayed: monerod keeps last_relayed_time at its maximum
		// until set_relayed, and its unsigned arithmetic then never finds
		// the transaction due (a popped block's, one kept back and
		// released by nothing). gonero does not store the time of the
		// last relay, though, where monerod does: a transaction loaded
		// from the store after a restart was relayed before it, by all
		// gonero knows long enough ago, and is due.
		if !e.reloaded {
			return false, false
		}
	case now.Unix()-e.LastRelayed.Unix() <= int64(relayDelay(e.LastRelayed, e.Received)/time.Second):
		return false, false
	}
	live := Livetime
	if e.KeptByBlock {
		live = FromBlockLive
	}
	if now.Unix()-e.Received.Unix() > int64(live/2/time.Second) {
		return false, false
	}
	return true, local
}

// RelayDue is the pool's part of monerod's relay pass
// (core::relay_txpool_transactions, which runs at most every
// RelayCheckInterval): it returns the entries due to be relayed again at
// the pool's now (relayDue), best fee per weight first, split into the
// node's own not yet public (local: to send privately again, as a local
// transaction is sent) and the public ones (to fluff again), and records
// them relayed now, so that each is due again only after its back-off.
func (p *Pool) RelayDue() (local, public []*Entry) {
	p.mu.Lock()
	defer p.unlock()
	now := p.now()
	for _, e := range p.sorted() {
		due, own := e.relayDue(now)
		if !due {
			continue
		}
		e.LastRelayed = now
		if own {
			local = append(local, e)
		} else {
			public = append(public, e)
		}
	}
	return local, public
}
