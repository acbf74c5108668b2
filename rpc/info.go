package rpc

import (
	"net/netip"
	"sync"
	"syscall"
	"time"

	"github.com/gonero/gonero/chaindb"
	"github.com/gonero/gonero/consensus"
	"github.com/gonero/gonero/epeejson"
	"github.com/gonero/gonero/params"
	"github.com/gonero/gonero/peerinfo"
	"github.com/gonero/gonero/rpctypes"
)

// Peers is what the RPC asks the P2P layer: small, so the RPC knows nothing
// of P2P internals. NoPeers serves a node without P2P.
type Peers interface {
	Connections() []peerinfo.Connection
	// Counts: incoming and outgoing connections, white and grey peer-list sizes.
	Counts() (incoming, outgoing, white, grey uint64)
	Offline() bool
	// Synchronized is monerod's sticky "has synchronized" flag.
	Synchronized() bool
	TargetHeight() uint64
	BusySyncing() bool
	TxPoolSize() uint64

	// The operator's controls (monerod's node_server): the peer lists,
	// the ban list, the connection limits and the traffic counters.
	PeerLists() (white, grey []peerinfo.PeerEntry)
	// Bans lists the bans in force at now: hosts, then IPv4 subnets.
	Bans(now time.Time) []peerinfo.Ban
	// Ban bans a host (a single-address prefix) or an IPv4 subnet until
	// until, dropping its connections and its peer-list entries; Unban
	// lifts such a ban.
	Ban(p netip.Prefix, until time.Time)
	Unban(p netip.Prefix)
	// BannedUntil says whether ip is banned at now (as a host or inside a
	// subnet), and until when.
	BannedUntil(ip netip.Addr, now time.Time) (time.Time, bool)
	// MaxPeers are the outgoing and incoming connection limits (-1:
	// unlimited incoming); SetMaxPeers changes them (a negative value
	// leaves one unchanged) and drops the connections above a new limit.
	MaxPeers() (out, in int64)
	SetMaxPeers(out, in int64)
	// Traffic counts the reads and writes on every P2P connection since
	// the start, and their bytes.
	Traffic() (packetsIn, bytesIn, packetsOut, bytesOut uint64)
}

// RateLimits is a Peers that applies monerod's P2P rate limits (p2p.Node):
// /get_limit reads them and /set_limit changes them, in kB/s (SetRateLimits
// takes monerod's forms: positive sets, 0 leaves, -1 restores the
// default). Peers without it only have the limits kept and reported.
type RateLimits interface {
	RateLimits() (up, down int64)
	SetRateLimits(up, down int64)
}

// NoPeers is the truth for a node that runs no P2P: it is offline, so (like
// monerod --offline) it counts as synchronized, with no peers and no pool.
type NoPeers struct{}

func (NoPeers) Connections() []peerinfo.Connection               { return nil }
func (NoPeers) Counts() (incoming, outgoing, white, grey uint64) { return 0, 0, 0, 0 }
func (NoPeers) Offline() bool                                    { return true }
func (NoPeers) Synchronized() bool                               { return true }
func (NoPeers) TargetHeight() uint64                             { return 0 }
func (NoPeers) BusySyncing() bool                                { return false }
func (NoPeers) TxPoolSize() uint64                               { return 0 }
func (NoPeers) PeerLists() (white, grey []peerinfo.PeerEntry)    { return nil, nil }
func (NoPeers) Bans(time.Time) []peerinfo.Ban                    { return nil }
func (NoPeers) Ban(netip.Prefix, time.Time)                      {}
func (NoPeers) Unban(netip.Prefix)                               {}
func (NoPeers) BannedUntil(netip.Addr, time.Time) (time.Time, bool) {
	return time.Time{}, false
}
func (NoPeers) MaxPeers() (out, in int64)                                  { return 0, 0 }
func (NoPeers) SetMaxPeers(out, in int64)                                  {}
func (NoPeers) Traffic() (packetsIn, bytesIn, packetsOut, bytesOut uint64) { return 0, 0, 0, 0 }

// restrictedDatabaseSizeStep: a restricted get_info rounds database_size up
// to a multiple of 5 GiB so as not to reveal the node's exact state.
const restrictedDatabaseSizeStep = 5 << 30

// diskFacts caches get_info's disk figures for a second: the free space on
// the data directory's filesystem and the store's size. get_info is the
// most frequently polled call and these need no more precision.
type diskFacts struct {
	dir    string
	mu     sync.Mutex
	at     time.Time
	free   uint64
	dbSize uint64
}

func (d *diskFacts) get(s *Server, now time.Time) (free, dbSize uint64) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if now.Sub(d.at) < time.Second {
		return d.free, d.dbSize
	}
	var st syscall.Statfs_t
	if err := syscall.Statfs(d.dir, &st); err == nil {
		d.free = st.Bavail * uint64(st.Bsize)
	}
	_ = s.store.View(func(r *chaindb.Reader) error {
		d.dbSize = uint64(r.Size())
		return nil
	})
	d.at = now
	return d.free, d.dbSize
}

// getInfo is get_info. What a restricted listener is not told
// (core_rpc_server.cpp on_get_info) is zeroed.
func getInfo(c *call) (func(*epeejson.Writer), *Error) {
	s := c.server
	now := time.Now()
	next := s.chain.NextBlockFacts()
	net := s.network
	peers := s.peers
	in, out, white, grey := peers.Counts()
	res := &rpctypes.GetInfoResponse{
		AdjustedTime: next.AdjustedTime(now), AltBlocksCount: next.AltBlockCount,
		BusySyncing:          peers.BusySyncing(),
		CumulativeDifficulty: next.Top.CumulativeDifficulty.Lo, CumulativeDifficultyTop64: next.Top.CumulativeDifficulty.Hi,
		Difficulty: next.Difficulty.Lo, DifficultyTop64: next.Difficulty.Hi,
		GreyPeerlistSize: grey, Height: next.Height, HeightWithoutBootstrap: next.Height, IncomingConnectionsCount: in,
		Mainnet: net == params.Mainnet, Nettype: net.String(), Offline: peers.Offline(), OutgoingConnectionsCount: out,
		Restricted: c.restricted, RPCConnectionsCount: uint64(s.openConnections(c.restricted)),
		Stagenet: net == params.Stagenet, StartTime: uint64(s.started.Unix()), Synchronized: peers.Synchronized(),
		Target: consensus.DifficultyTarget(net.VersionAt(next.Height)), TargetHeight: peers.TargetHeight(),
		Testnet: net == params.Testnet, TopBlockHash: next.Top.Hash.String(), TxCount: next.TxCount,
		Version: s.version, WhitePeerlistSize: white,
		WideCumulativeDifficulty: next.Top.CumulativeDifficulty.Hex(), WideDifficulty: next.Difficulty.Hex(),
	}
	if m := next.EffectiveMedian; m != 0 {
		limit := consensus.BlockWeightLimit(m)
		res.BlockSizeLimit, res.BlockSizeMedian, res.BlockWeightLimit, res.BlockWeightMedian = limit, m, limit, m
	}
	res.FreeSpace, res.DatabaseSize = s.disk.get(s, now)
	if c.restricted {
		// What monerod hides from a restricted listener (core_rpc_server.cpp on_get_info).
		res.IncomingConnectionsCount, res.OutgoingConnectionsCount, res.WhitePeerlistSize, res.GreyPeerlistSize = 0, 0, 0, 0
		res.RPCConnectionsCount, res.StartTime, res.HeightWithoutBootstrap = 0, 0, 0
		res.AltBlocksCount, res.Version, res.FreeSpace = 0, "", ^uint64(0)
		res.DatabaseSize = (res.DatabaseSize + restrictedDatabaseSizeStep - 1) / restrictedDatabaseSizeStep * restrictedDatabaseSizeStep
	}
	// get_pool_transactions_count(!restricted): a restricted listener does
	// not count transactions kept back from relaying or in their stem phase.
	res.TxPoolSize = peers.TxPoolSize()
	if s.pool != nil {
		res.TxPoolSize = 0
		for _, e := range s.pool.Entries() {
			if !c.restricted || !(e.DoNotRelay || e.Stem) {
				res.TxPoolSize++
			}
		}
	}
	return res.Write, nil
}
