// Package peerinfo holds the values a P2P node reports of its peers to
// the operator: its connections, peer lists, bans and block-queue spans.
// They are plain values so that the P2P layer (which fills them) and the
// RPC layer (which serves them) share them without depending on each
// other; the package depends on neither.
package peerinfo

import (
	"net/netip"
	"time"
)

// PeerEntry is one peer-list entry as /get_peer_list reports it.
type PeerEntry struct {
	ID                uint64
	Addr              netip.AddrPort
	LastSeen          int64 // unix seconds; 0: never (grey entries)
	PruningSeed       uint32
	RPCPort           uint16
	RPCCreditsPerHash uint32
	// Host is a Tor or I2P entry's address as monerod prints it
	// (host.onion:port, host.b32.i2p); Addr is then the zero value.
	Host string
}

// Ban is one ban of the P2P ban list: a host (a prefix of its full
// length, or an IPv6 /64) or an IPv4 subnet, until a whole second.
type Ban struct {
	Prefix netip.Prefix
	Until  time.Time
}

// Connection is one peer connection as get_connections reports it.
type Connection struct {
	Address           string
	AddressType       uint64
	AvgDownload       uint64
	AvgUpload         uint64
	ConnectionID      string
	CurrentDownload   uint64
	CurrentUpload     uint64
	Height            uint64
	Host              string
	Incoming          bool
	IP                string
	LiveTime          uint64
	LocalIP           bool
	Localhost         bool
	PeerID            string
	Port              string // monerod prints the port as a string
	PruningSeed       uint64
	RecvCount         uint64
	RecvIdleTime      uint64
	RPCCreditsPerHash uint64
	RPCPort           uint64
	SendCount         uint64
	SendIdleTime      uint64
	State             string
	SupportFlags      uint64
}

// SyncSpan is one span of the block queue (sync_info's spans): blocks
// start_block_height and on, reserved for or received from a connection;
// rate in bytes/s, speed in percent of the fastest connection's, size the
// received bytes (0 while requested).
type SyncSpan struct {
	StartBlockHeight, NBlocks, Size uint64
	ConnectionID, RemoteAddress     string
	Rate, Speed                     uint32
}

// BanStats are the P2P node's ban figures (metrics): bans in force, and
// the ban-list file's and DNS blocklist's work.
type BanStats struct {
	Hosts, Subnets int // bans in force now
	// The --ban-list file: entries now, reloads after a change, changed
	// versions refused (unreadable, a bad line), connections a reload
	// dropped.
	ListEntries                                int
	ListReloads, ListReloadErrors, ListDropped uint64
	// The DNS blocklist: updates applied, updates without an agreeing
	// majority.
	DNSUpdates, DNSFailures uint64
}
