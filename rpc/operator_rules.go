package rpc

// The operator endpoints' rules that are not wire types: log categories,
// default rate limits, the pruning stripes of next_needed_pruning_seed, and
// the ban parsers.

import (
	"math"
	"net/netip"
	"strings"

	"github.com/gonero/gonero/peerinfo"
)

// parseSubnet is net::get_ipv4_subnet_address without an implicit /32:
// "a.b.c.d/n" with n at most 32. monerod reads the address with inet_addr,
// which also takes shortened and hexadecimal forms; gonero takes the
// dotted quad only.
func parseSubnet(s string) (netip.Prefix, bool) { return peerinfo.ParseIPv4Subnet(s) }

// parseHost is peerinfo.ParseHost: net::get_network_address(host, 0) for
// the address kinds a ban applies to.
func parseHost(s string) (netip.Addr, bool) { return peerinfo.ParseHost(s) }

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
