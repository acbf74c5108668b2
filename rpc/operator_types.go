package rpc

import (
	"bytes"
	"math"
	"net/netip"
	"strings"

	"github.com/gonero/gonero/epeejson"
	"github.com/gonero/gonero/httpd"
	"github.com/gonero/gonero/peerinfo"
)

// Request decoding and answer writing of the operator and explorer
// endpoints (core_rpc_server_commands_defs.h, v0.18.0.0). Members are
// written in the order monerod prints them: epee sections are std::map,
// so sorted by name.

// pathParams reads the JSON body of a plain-path request: none (or only
// white space) is the all-default request; a body that does not parse is
// monerod's 400.
func pathParams(req *httpd.Request) (requestParams, bool) {
	if len(bytes.TrimSpace(req.Body)) == 0 {
		return requestParams{}, true
	}
	v, err := epeejson.Parse(req.Body)
	if err != nil {
		return requestParams{}, false
	}
	return newParams(v, true), true
}

// setBan is one entry of set_bans' request (COMMAND_RPC_SETBANS::ban).
type setBan struct {
	host    string
	ip      uint32
	ban     bool
	seconds uint32
}

func readSetBans(p requestParams) ([]setBan, *Error) {
	var out []setBan
	for _, b := range p.Objects("bans") {
		var e setBan
		var err *Error
		if e.host, err = b.String("host"); err != nil {
			return nil, err
		}
		ip, err := b.Unsigned("ip", 0, math.MaxUint32)
		if err != nil {
			return nil, err
		}
		if e.ban, err = b.Bool("ban"); err != nil {
			return nil, err
		}
		secs, err := b.Unsigned("seconds", 0, math.MaxUint32)
		if err != nil {
			return nil, err
		}
		e.ip, e.seconds = uint32(ip), uint32(secs)
		out = append(out, e)
	}
	return out, nil
}

// ipv4FromEpee is an IPv4 address as epee holds it: a uint32 in network
// byte order, stored little-endian (1.2.3.4 is 0x04030201).
func ipv4FromEpee(ip uint32) netip.Addr {
	return netip.AddrFrom4([4]byte{byte(ip), byte(ip >> 8), byte(ip >> 16), byte(ip >> 24)})
}

func ipv4ToEpee(a netip.Addr) uint32 {
	b := a.Unmap().As4()
	return uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24
}

// parseSubnet is net::get_ipv4_subnet_address without an implicit /32:
// "a.b.c.d/n" with n at most 32. monerod reads the address with inet_addr,
// which also takes shortened and hexadecimal forms; gonero takes the
// dotted quad only.
func parseSubnet(s string) (netip.Prefix, bool) { return peerinfo.ParseIPv4Subnet(s) }

// parseHost is peerinfo.ParseHost: net::get_network_address(host, 0) for
// the address kinds a ban applies to.
func parseHost(s string) (netip.Addr, bool) { return peerinfo.ParseHost(s) }

// writePeer writes one get_peer_list entry (struct peer): rpc_port,
// rpc_credits_per_hash and pruning_seed are KV_SERIALIZE_OPT, which epee
// leaves out when they hold their default (0).
func writePeer(w *epeejson.Writer, e *peerinfo.PeerEntry) {
	a := e.Addr.Addr().Unmap()
	var ip uint64
	host, port := a.String(), uint64(e.Addr.Port())
	if a.Is4() {
		ip = uint64(ipv4ToEpee(a))
	}
	if e.Host != "" { // Tor, I2P: monerod's str() as host, no ip or port
		host, port = e.Host, 0
	}
	w.BeginObject()
	w.KeyString("host", host)
	w.KeyUint("id", e.ID)
	w.KeyUint("ip", ip)
	w.KeyUint("last_seen", uint64(e.LastSeen))
	w.KeyUint("port", port)
	for _, opt := range []struct {
		name string
		v    uint64
	}{{"pruning_seed", uint64(e.PruningSeed)}, {"rpc_credits_per_hash", uint64(e.RPCCreditsPerHash)}, {"rpc_port", uint64(e.RPCPort)}} {
		if opt.v != 0 {
			w.KeyUint(opt.name, opt.v)
		}
	}
	w.EndObject()
}

// writePublicNode writes one get_public_nodes entry (struct public_node).
func writePublicNode(w *epeejson.Writer, e *peerinfo.PeerEntry) {
	w.BeginObject()
	w.KeyString("host", e.Addr.Addr().Unmap().String())
	w.KeyUint("last_seen", uint64(e.LastSeen))
	w.KeyUint("rpc_credits_per_hash", uint64(e.RPCCreditsPerHash))
	w.KeyUint("rpc_port", uint64(e.RPCPort))
	w.EndObject()
}

// writeList writes a non-empty array under name (epee omits empty ones).
func writeList[T any](w *epeejson.Writer, name string, list []T, write func(*epeejson.Writer, *T)) {
	if len(list) == 0 {
		return
	}
	w.Key(name)
	w.BeginArray()
	for i := range list {
		write(w, &list[i])
	}
	w.EndArray()
}

// Log categories (contrib/epee/src/mlog.cpp): what a numeric log level
// stands for.
var logLevelCategories = [...]string{
	"*:WARNING,net:FATAL,net.http:FATAL,net.ssl:FATAL,net.p2p:FATAL,net.cn:FATAL,daemon.rpc:FATAL,global:INFO,verify:FATAL,serialization:FATAL,daemon.rpc.payment:ERROR,stacktrace:INFO,logging:INFO,msgwriter:INFO",
	"*:INFO,global:INFO,stacktrace:INFO,logging:INFO,msgwriter:INFO,perf.*:DEBUG",
	"*:DEBUG",
	"*:TRACE,*.dump:DEBUG",
	"*:TRACE",
}

// nextCategories is mlog_set_categories: "+x" appends x, "-x,y" removes
// the first occurrence of each of x and y (as text, so "-DEBUG" can cut a
// level off a category: monerod's own behaviour), anything else replaces.
func nextCategories(current, s string) string {
	switch {
	case s == "":
		return ""
	case s[0] == '+':
		s = s[1:]
		if s != "" {
			if current != "" {
				current += ","
			}
			current += s
		}
		return current
	case s[0] == '-':
		for _, one := range strings.Split(s[1:], ",") {
			if i := strings.Index(current, one); i >= 0 {
				current = current[:i] + current[i+len(one):]
			}
		}
		return current
	}
	return s
}

// setLogSpec is mlog_set_log: "" clears the categories; a number alone
// (0-4) is a log level; a number and a comma ("2,foo:ERROR") is a level's
// categories plus more; anything else is a category list. level is the
// numeric level it set, or -1.
func setLogSpec(current, s string) (categories string, level int) {
	if s == "" {
		return nextCategories(current, s), -1
	}
	n, rest, ok := strtol(s)
	switch {
	case rest != "" && rest[0] == ',':
		base := ""
		if ok && n >= 0 && n < int64(len(logLevelCategories)) {
			base = logLevelCategories[n]
		}
		return nextCategories(current, base+rest), -1
	case rest != "":
		return nextCategories(current, s), -1
	case n >= 0 && n < int64(len(logLevelCategories)):
		return nextCategories(current, logLevelCategories[n]), int(n)
	}
	return current, -1 // "Invalid numerical log level": nothing changes
}

// strtol parses a leading base-10 number as C's strtol does (white space,
// a sign, digits) and returns the rest; without digits nothing is consumed.
func strtol(s string) (n int64, rest string, ok bool) {
	i := 0
	for i < len(s) && (s[i] == ' ' || (s[i] >= '\t' && s[i] <= '\r')) {
		i++
	}
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	start := i
	var v uint64
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		if v < 1<<63 {
			v = v*10 + uint64(s[i]-'0')
		}
		i++
	}
	if i == start {
		return 0, s, false
	}
	switch {
	case neg && v > 1<<63:
		n = math.MinInt64
	case neg:
		n = -int64(v)
	case v > math.MaxInt64:
		n = math.MaxInt64
	default:
		n = int64(v)
	}
	return n, s[i:], true
}

// Default P2P rate limits in kB/s (P2P_DEFAULT_LIMIT_RATE_UP/DOWN; 0.18.0's
// were 2048 and 8192).
const (
	defaultLimitUp   = 8192
	defaultLimitDown = 32768
)

// Pruning constants (cryptonote_config.h), for next_needed_pruning_seed.
const (
	pruningStripeSize = 4096
	pruningLogStripes = 3
	pruningTipBlocks  = 5500
	maxBlockNumber    = 500000000
)

// pruningStripe is tools::get_pruning_stripe(height, chainHeight, 3).
func pruningStripe(height, chainHeight uint64) uint32 {
	if height+pruningTipBlocks >= chainHeight {
		return 0
	}
	return uint32((height/pruningStripeSize)&(1<<pruningLogStripes-1)) + 1
}

// seedStripe is tools::get_pruning_stripe(seed): 0 for an unpruned peer.
func seedStripe(seed uint32) uint32 {
	if seed == 0 {
		return 0
	}
	return 1 + seed&0x7f
}
