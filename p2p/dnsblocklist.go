package p2p

import (
	"context"
	"net/netip"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/gonero/gonero/peerinfo"
)

// The DNS blocklist (docs/ipv6-and-bans.md §4; --enable-dns-blocklist; monerod's
// node_server::update_dns_blocklist and dns_utils'
// load_txt_records_from_dns): every 7000 s the TXT records of seven
// blocklist names are fetched; each name's answer counts only when its
// resolver vouched for it (DNSSEC), at least two must count, and the set of
// records most of them agree on, if held by a majority of the seven (4), is
// applied: each record is a ';'-separated list of hosts and IPv4 subnets,
// banned for 8 days (a host banned longer stays so).

// TXTLookup asks for name's TXT records and says whether the answer is
// DNSSEC-authenticated.
type TXTLookup func(ctx context.Context, name string) (txt []string, authenticated bool, err error)

// DNSBlocklistNames are monerod 0.18.5.3's blocklist names.
var DNSBlocklistNames = []string{
	"blocklist.moneropulse.se",
	"blocklist.moneropulse.org",
	"blocklist.moneropulse.net",
	"blocklist.moneropulse.co",
	"blocklist.moneropulse.fr",
	"blocklist.moneropulse.de",
	"blocklist.moneropulse.ch",
}

const (
	dnsBlocklistInterval = 7000 * time.Second // m_dns_blocklist_interval
	dnsBlocklistLifetime = 8 * 24 * time.Hour // DNS_BLOCKLIST_LIFETIME
	dnsBlocklistTimeout  = 20 * time.Second
)

type dnsBlockStats struct {
	updates, failures, bad atomic.Uint64
	applied                atomic.Int64
}

// DNSBlocklistStats are the DNS blocklist's figures: updates that applied
// a list, updates that found no agreeing majority (or failed), entries that
// did not parse, and the entries the last applied list held.
func (n *Node) DNSBlocklistStats() (updates, failures, bad uint64, entries int64) {
	s := &n.dnsBlock
	return s.updates.Load(), s.failures.Load(), s.bad.Load(), s.applied.Load()
}

func (n *Node) dnsBlocklistLoop() {
	defer n.wg.Done()
	t := time.NewTicker(dnsBlocklistInterval)
	defer t.Stop()
	for {
		n.updateDNSBlocklist()
		select {
		case <-n.ctx.Done():
			return
		case <-t.C:
		}
	}
}

// updateDNSBlocklist fetches, agrees and applies the blocklist once.
func (n *Node) updateDNSBlocklist() {
	ctx, cancel := context.WithTimeout(n.ctx, dnsBlocklistTimeout)
	defer cancel()
	records, ok := agreedTXT(ctx, n.cfg.TXT, DNSBlocklistNames)
	if !ok {
		n.dnsBlock.failures.Add(1)
		n.log.Warn("DNS blocklist: no majority of authenticated TXT answers agreed; nothing applied")
		return
	}
	now := n.now()
	good, bad := 0, 0
	for _, rec := range records {
		for _, entry := range strings.Split(rec, ";") {
			if entry == "" {
				continue
			}
			p, ok := peerinfo.ParseBanEntry(entry)
			if !ok {
				bad++
				n.log.Warn("invalid IP address or subnet from DNS blocklist", "entry", entry)
				continue
			}
			good++
			until := now.Add(dnsBlocklistLifetime)
			if p.IsSingleIP() {
				// block_host's add_only: a longer ban stays.
				if cur, banned := n.hostBanUntil(p); banned && !cur.Before(until) {
					continue
				}
			}
			n.ban(p, until)
		}
	}
	n.dnsBlock.updates.Add(1)
	n.dnsBlock.bad.Add(uint64(bad))
	n.dnsBlock.applied.Store(int64(good))
	if good > 0 {
		n.log.Info("addresses added to the blocklist", "count", good)
	}
}

// hostBanUntil is a host ban's end, if there is one.
func (n *Node) hostBanUntil(p netip.Prefix) (time.Time, bool) { return n.bans.hostUntil(p) }

// agreedTXT is load_txt_records_from_dns: every name is asked at once; an
// answer counts when it was authenticated and not empty; at least two
// must count, and the set of records the most names gave must be held by
// more than half of the names.
func agreedTXT(ctx context.Context, lookup TXTLookup, names []string) ([]string, bool) {
	sets := make([][]string, len(names))
	done := make(chan struct{}, len(names))
	for i, name := range names {
		go func() {
			defer func() { done <- struct{}{} }()
			txt, authenticated, err := lookup(ctx, name)
			if err != nil || !authenticated {
				return
			}
			slices.Sort(txt)
			sets[i] = slices.Compact(txt)
		}()
	}
	for range names {
		<-done
	}
	counts := map[string]int{}
	valid := 0
	best, bestKey := 0, ""
	for _, s := range sets {
		if len(s) == 0 {
			continue
		}
		valid++
		// A key no record can hold: records are joined by a NUL.
		k := strings.Join(s, "\x00")
		counts[k]++
		if c := counts[k]; c > best || c == best && k < bestKey {
			best, bestKey = c, k
		}
	}
	if valid < 2 || best < len(names)/2+1 {
		return nil, false
	}
	return strings.Split(bestKey, "\x00"), true
}
