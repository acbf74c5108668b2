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

// writeConnection writes c as get_connections and sync_info show it.
func writeConnection(w *epeejson.Writer, c *peerinfo.Connection) {
	w.BeginObject()
	w.KeyString("address", c.Address)
	w.KeyUint("address_type", c.AddressType)
	w.KeyUint("avg_download", c.AvgDownload)
	w.KeyUint("avg_upload", c.AvgUpload)
	w.KeyString("connection_id", c.ConnectionID)
	w.KeyUint("current_download", c.CurrentDownload)
	w.KeyUint("current_upload", c.CurrentUpload)
	w.KeyUint("height", c.Height)
	w.KeyString("host", c.Host)
	w.KeyBool("incoming", c.Incoming)
	w.KeyString("ip", c.IP)
	w.KeyUint("live_time", c.LiveTime)
	w.KeyBool("local_ip", c.LocalIP)
	w.KeyBool("localhost", c.Localhost)
	w.KeyString("peer_id", c.PeerID)
	w.KeyString("port", c.Port)
	w.KeyUint("pruning_seed", c.PruningSeed)
	w.KeyUint("recv_count", c.RecvCount)
	w.KeyUint("recv_idle_time", c.RecvIdleTime)
	w.KeyUint("rpc_credits_per_hash", c.RPCCreditsPerHash)
	w.KeyUint("rpc_port", c.RPCPort)
	w.KeyUint("send_count", c.SendCount)
	w.KeyUint("send_idle_time", c.SendIdleTime)
	w.KeyString("state", c.State)
	w.KeyUint("support_flags", c.SupportFlags)
	w.EndObject()
}

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

// infoFields is get_info's result, gathered before anything is written.
type infoFields struct {
	adjustedTime, altBlocks, weightMedian, txCount, dbSize, freeSpace uint64
	height                                                            uint64
	top                                                               chaindb.BlockMeta
	next                                                              struct {
		lo, hi uint64
		wide   string
	}
	target uint64
}

func getInfo(c *call) (func(*epeejson.Writer), *Error) {
	s := c.server
	now := time.Now()
	var f infoFields
	next := s.chain.NextBlockFacts()
	f.height, f.top = next.Height, next.Top
	f.adjustedTime = next.AdjustedTime(now)
	f.txCount, f.altBlocks = next.TxCount, next.AltBlockCount
	f.freeSpace, f.dbSize = s.disk.get(s, now)
	f.weightMedian = next.EffectiveMedian
	f.next.lo, f.next.hi, f.next.wide = next.Difficulty.Lo, next.Difficulty.Hi, next.Difficulty.Hex()
	f.target = consensus.DifficultyTarget(s.network.VersionAt(f.height))
	in, out, white, grey := s.peers.Counts()
	rpcConns := uint64(s.openConnections(c.restricted))
	startTime := uint64(s.started.Unix())
	heightWithoutBootstrap := f.height
	version := s.version
	if c.restricted {
		// What monerod hides from a restricted listener (core_rpc_server.cpp on_get_info).
		in, out, white, grey, rpcConns, startTime, heightWithoutBootstrap = 0, 0, 0, 0, 0, 0, 0
		f.altBlocks, version, f.freeSpace = 0, "", ^uint64(0)
		f.dbSize = (f.dbSize + restrictedDatabaseSizeStep - 1) / restrictedDatabaseSizeStep * restrictedDatabaseSizeStep
	}
	peers := s.peers
	net := s.network
	// get_pool_transactions_count(!restricted): a restricted listener does
	// not count transactions kept back from relaying or in their stem phase.
	poolSize := peers.TxPoolSize()
	if s.pool != nil {
		poolSize = 0
		for _, e := range s.pool.Entries() {
			if !c.restricted || !(e.DoNotRelay || e.Stem) {
				poolSize++
			}
		}
	}
	return func(w *epeejson.Writer) {
		w.BeginObject()
		w.KeyUint("adjusted_time", f.adjustedTime)
		w.KeyUint("alt_blocks_count", f.altBlocks)
		if f.weightMedian != 0 {
			w.KeyUint("block_size_limit", consensus.BlockWeightLimit(f.weightMedian))
			w.KeyUint("block_size_median", f.weightMedian)
			w.KeyUint("block_weight_limit", consensus.BlockWeightLimit(f.weightMedian))
			w.KeyUint("block_weight_median", f.weightMedian)
		}
		w.KeyString("bootstrap_daemon_address", "")
		w.KeyBool("busy_syncing", peers.BusySyncing())
		w.KeyUint("credits", 0)
		w.KeyUint("cumulative_difficulty", f.top.CumulativeDifficulty.Lo)
		w.KeyUint("cumulative_difficulty_top64", f.top.CumulativeDifficulty.Hi)
		w.KeyUint("database_size", f.dbSize)
		w.KeyUint("difficulty", f.next.lo)
		w.KeyUint("difficulty_top64", f.next.hi)
		w.KeyUint("free_space", f.freeSpace)
		w.KeyUint("grey_peerlist_size", grey)
		w.KeyUint("height", f.height)
		w.KeyUint("height_without_bootstrap", heightWithoutBootstrap)
		w.KeyUint("incoming_connections_count", in)
		w.KeyBool("mainnet", net == params.Mainnet)
		w.KeyString("nettype", net.String())
		w.KeyBool("offline", peers.Offline())
		w.KeyUint("outgoing_connections_count", out)
		w.KeyBool("restricted", c.restricted)
		w.KeyUint("rpc_connections_count", rpcConns)
		w.KeyBool("stagenet", net == params.Stagenet)
		w.KeyUint("start_time", startTime)
		w.KeyString("status", "OK")
		w.KeyBool("synchronized", peers.Synchronized())
		w.KeyUint("target", f.target)
		w.KeyUint("target_height", peers.TargetHeight())
		w.KeyBool("testnet", net == params.Testnet)
		w.KeyString("top_block_hash", f.top.Hash.String())
		w.KeyString("top_hash", "")
		w.KeyUint("tx_count", f.txCount)
		w.KeyUint("tx_pool_size", poolSize)
		w.KeyBool("untrusted", false)
		w.KeyBool("update_available", false)
		w.KeyString("version", version)
		w.KeyBool("was_bootstrap_ever_used", false)
		w.KeyUint("white_peerlist_size", white)
		w.KeyString("wide_cumulative_difficulty", f.top.CumulativeDifficulty.Hex())
		w.KeyString("wide_difficulty", f.next.wide)
		w.EndObject()
	}, nil
}
