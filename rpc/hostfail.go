package rpc

import (
	"net/netip"
	"sync"
	"time"

	"github.com/gonero/gonero/httpd"
)

// RPC fail scores (docs/ipv6-and-bans.md §5; core_rpc_server::add_host_fail): a failed
// /getblocks.bin or /gethashes.bin (a chain the node cannot place) adds 1
// to its client's score; past rpcFailsBeforeBan (RPC_IP_FAILS_BEFORE_BLOCK)
// the host is banned as a P2P misbehaver is, for 24 hours
// (P2P_IP_BLOCKTIME), which also refuses its RPC connections, and its
// score falls to half the threshold. --disable-rpc-ban turns this off.
// Every IPv4 and IPv6 client counts, loopback included, as in monerod
// (is_blockable); scores are kept per address and never expire there,
// here the table is bounded.
const (
	rpcFailsBeforeBan = 3
	rpcBanDuration    = 24 * time.Hour
	maxRPCFailHosts   = 10_000
)

type hostFails struct {
	disabled bool
	mu       sync.Mutex
	score    map[netip.Addr]uint64
}

// rpcHostFail counts one fail against req's client.
func (s *Server) rpcHostFail(req *httpd.Request) {
	f := &s.hostFails
	if f.disabled {
		return
	}
	ap, err := netip.ParseAddrPort(req.RemoteAddr)
	if err != nil {
		return
	}
	ip := ap.Addr().Unmap()
	f.mu.Lock()
	if f.score == nil || len(f.score) >= maxRPCFailHosts {
		f.score = map[netip.Addr]uint64{}
	}
	f.score[ip]++
	fails := f.score[ip]
	ban := fails > rpcFailsBeforeBan
	if ban {
		f.score[ip] = rpcFailsBeforeBan / 2
	}
	f.mu.Unlock()
	s.log.Debug("RPC host fail", "host", ip, "score", fails)
	if ban {
		s.log.Info("host banned for failed RPC requests", "host", ip, "for", rpcBanDuration)
		s.peers.Ban(netip.PrefixFrom(ip, ip.BitLen()), time.Now().Add(rpcBanDuration))
	}
}
