package p2p

import (
	"net/netip"
	"sync"
	"time"

	"github.com/gonero/gonero/peerinfo"
)

// peerStore is the node's part that knows peers apart from its
// connections: the public zone's white, grey and anchor lists and the
// addresses that failed (peerList; an anonymity zone's lists are its
// zone's, which the public zone's shares too: zone.peers), the bans and
// the fail scores that earn them (banList), and the state of the ban-list
// file and of the DNS blocklist (banLists, banlistfile.go and
// dnsblocklist.go). Each of these has its own lock and takes no other
// while holding it (lock order: Node's comment). Applying a ban to the
// open connections is Node's (operator.go), which owns them.
type peerStore struct {
	peers *peerList
	bans  *banList
	// banLists: the ban-list file and the DNS blocklist (banlistfile.go).
	banLists
}

// banList counts fails per host and bans a host whose fails exceed
// failsBeforeBan (docs/p2p-levin.md §6.2): for banDuration it is neither accepted nor
// dialled. As monerod's add_host_fail (net_node.inl), a ban leaves the
// host failsBeforeBan/2 fails, so that it is banned again sooner. Fails
// older than failForget are forgotten (monerod keeps them for good; the
// fails a ban leaves count from its end), and both maps stay bounded
// however many addresses misbehave.
type banList struct {
	mu    sync.Mutex // L9, a leaf (Node's lock order)
	fails map[netip.Prefix]failCount
	until map[netip.Prefix]time.Time
	// subnets are the IPv4 subnets an operator banned (set_bans).
	subnets map[netip.Prefix]time.Time
	// listed are the bans the ban-list file put in place (banlistfile.go),
	// so that a reload lifts those its new version leaves out.
	listed map[netip.Prefix]bool
}

type failCount struct {
	n    int
	last time.Time
}

const (
	failForget  = time.Hour
	banListSize = 10_000
)

func newBanList() *banList {
	return &banList{fails: map[netip.Prefix]failCount{}, until: map[netip.Prefix]time.Time{}, subnets: map[netip.Prefix]time.Time{},
		listed: map[netip.Prefix]bool{}}
}

// active are the host and subnet bans in force at now.
func (b *banList) active(now time.Time) (hosts, subnets []peerinfo.Ban) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for p, until := range b.until {
		if now.Before(until) {
			hosts = append(hosts, peerinfo.Ban{Prefix: p, Until: until})
		}
	}
	for p, until := range b.subnets {
		if now.Before(until) {
			subnets = append(subnets, peerinfo.Ban{Prefix: p, Until: until})
		}
	}
	return hosts, subnets
}

// set bans p (a host's banKey, or a subnet) until then.
func (b *banList) set(p netip.Prefix, until time.Time) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if p.IsSingleIP() {
		b.until[p] = until
	} else {
		b.subnets[p] = until
	}
}

// lift ends p's ban; a host's fails go with it.
func (b *banList) lift(p netip.Prefix) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if p.IsSingleIP() {
		k := banKey(p.Addr())
		delete(b.until, k)
		delete(b.fails, k)
		return
	}
	delete(b.subnets, p)
}

// hostUntil is a host ban's end, if there is one.
func (b *banList) hostUntil(p netip.Prefix) (time.Time, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	t, ok := b.until[p]
	return t, ok
}

// banKey is what a host's fails and ban are kept under: the address
// itself, IPv6 too (monerod keys both by host_str; only the connection
// limits group an IPv6 /64).
func banKey(ip netip.Addr) netip.Prefix {
	ip = ip.Unmap()
	return netip.PrefixFrom(ip, ip.BitLen())
}

// fail adds score fails to ip and reports whether that banned it.
func (b *banList) fail(ip netip.Addr, score int, now time.Time) bool {
	if score <= 0 {
		return false
	}
	k := banKey(ip)
	b.mu.Lock()
	defer b.mu.Unlock()
	f := b.fails[k]
	if now.Sub(f.last) > failForget {
		f.n = 0
	}
	f.n, f.last = f.n+score, now
	// monerod bans once fails > P2P_IP_FAILS_BEFORE_BLOCK: the eleventh
	// fail, not the tenth.
	banned := f.n > failsBeforeBan
	if banned {
		// The host keeps half the fails (monerod's
		// P2P_IP_FAILS_BEFORE_BLOCK/2), counted from the ban's end so
		// that failForget does not wipe them while it is banned.
		until := now.Add(banDuration)
		f = failCount{n: failsBeforeBan / 2, last: until}
		b.until[k] = until
		if len(b.until) > banListSize {
			for key, t := range b.until {
				if now.After(t) {
					delete(b.until, key)
				}
			}
		}
	}
	b.fails[k] = f
	if len(b.fails) > banListSize {
		for key, old := range b.fails {
			// Sweep down to three quarters, so sweeps are rare.
			if now.Sub(old.last) > failForget || len(b.fails) > banListSize*3/4 {
				delete(b.fails, key)
			}
		}
	}
	return banned
}

func (b *banList) banned(ip netip.Addr, now time.Time) bool {
	_, ok := b.bannedUntil(ip, now)
	return ok
}

// bannedUntil says whether ip is banned at now, as a host or inside a
// subnet, and until when; expired bans it meets are forgotten.
func (b *banList) bannedUntil(ip netip.Addr, now time.Time) (time.Time, bool) {
	ip = ip.Unmap()
	k := banKey(ip)
	b.mu.Lock()
	defer b.mu.Unlock()
	if until, ok := b.until[k]; ok {
		if now.Before(until) {
			return until, true
		}
		delete(b.until, k)
	}
	for p, until := range b.subnets {
		if !now.Before(until) {
			delete(b.subnets, p)
			continue
		}
		if p.Contains(ip) {
			return until, true
		}
	}
	return time.Time{}, false
}
