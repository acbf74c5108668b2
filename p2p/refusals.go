package p2p

import (
	"errors"
	"sync/atomic"

	"github.com/gonero/gonero/levin"
)

// ConnectionRefusalReasons label the incoming connections refused at
// accept (RefusedConnections), in admitIncoming's order: a banned host,
// --in-peers reached, --max-connections-per-ip reached for the host (or
// its /64), and any other reason.
var ConnectionRefusalReasons = []string{"banned", "in_peers", "per_host", "other"}

// PeerDropReasons label the connections dropped for a memory bound
// (DroppedPeers): the peer let its send queue pass monerod's limits
// (1000 messages or 100 MiB unread), it announced a message over the
// levin limit for its state (256 KiB before the handshake, 100 MB
// after, lower per command), it sent bytes that are not levin, its reader
// waited for its send queue to drain and nothing of it went out
// (budget.go), its message would have taken the node's levin-in budget
// past its bound, or a message queued for it would have taken its send
// queue past its own, the send part's or the node's memory budget.
var PeerDropReasons = []string{"send_queue_full", "message_too_large", "not_levin", "send_stalled", "levin_in_budget", "send_budget"}

// refusal is why admitIncoming refused an incoming connection (0: it did
// not). Its String is the reason the log gives; it is counted by code,
// under ConnectionRefusalReasons' label of the same position.
type refusal uint8

const (
	admitted refusal = iota
	refusedBanned
	refusedInPeers
	refusedPerHost
	refusedOther // no reason of admitIncoming's yet
)

func (r refusal) String() string {
	switch r {
	case admitted:
		return ""
	case refusedBanned:
		return "banned"
	case refusedInPeers:
		return "--in-peers reached"
	case refusedPerHost:
		return "--max-connections-per-ip reached"
	}
	return "refused"
}

// refusalCounts counts refusals and drops by reason: lock-free, since
// the accept loop counts a refusal flood at the rate it arrives.
type refusalCounts struct {
	refused [4]atomic.Uint64 // by ConnectionRefusalReasons
	dropped [6]atomic.Uint64 // by PeerDropReasons
}

// refuse counts a refusal under its reason (any reason beyond the known
// ones as "other").
func (r *refusalCounts) refuse(why refusal) {
	i := min(int(why), int(refusedOther)) - 1
	if i < 0 {
		return // admitted: not a refusal
	}
	r.refused[i].Add(1)
}

// drop counts a connection closed for err, if err is a memory bound or
// garbage.
func (r *refusalCounts) drop(err error) {
	switch {
	case errors.Is(err, errSendQueueFull):
		r.dropped[0].Add(1)
	case errors.Is(err, levin.ErrTooLarge):
		r.dropped[1].Add(1)
	case errors.Is(err, levin.ErrBadSignature), errors.Is(err, levin.ErrBadHeader),
		errors.Is(err, levin.ErrBadProtocolVersion), errors.Is(err, levin.ErrBadFragment):
		r.dropped[2].Add(1)
	case errors.Is(err, errSendStalled):
		r.dropped[3].Add(1)
	case errors.Is(err, errLevinInBudget):
		r.dropped[4].Add(1)
	case errors.Is(err, errSendBudget):
		r.dropped[5].Add(1)
	}
}

// RefusedConnections counts the incoming connections refused at accept,
// by reason (every ConnectionRefusalReasons key is present).
func (n *Node) RefusedConnections() map[string]uint64 {
	out := make(map[string]uint64, len(ConnectionRefusalReasons))
	for i, r := range ConnectionRefusalReasons {
		out[r] = n.refusals.refused[i].Load()
	}
	return out
}

// DroppedPeers counts the connections dropped for a memory bound or for
// garbage, by reason (every PeerDropReasons key is present).
func (n *Node) DroppedPeers() map[string]uint64 {
	out := make(map[string]uint64, len(PeerDropReasons))
	for i, r := range PeerDropReasons {
		out[r] = n.refusals.dropped[i].Load()
	}
	return out
}
