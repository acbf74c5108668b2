package p2p

import (
	"errors"
	"fmt"
	"io"
	"net/netip"
	"os"
	"sync/atomic"
	"time"

	"github.com/gonero/gonero/peerinfo"
)

// The --ban-list file (docs/ipv6-and-bans.md §3; monerod's node_server::handle_command_line): its
// hosts and IPv4 subnets are banned for ever (until time_t's maximum).
// Beyond monerod, the node watches the file: when its modification time or
// size changes it is read again, bans its new version leaves out are
// lifted, new ones put in place, and connections the new bans cover are
// dropped. A version that does not parse is logged and ignored: the bans
// of the last good version stay.

// banForever is monerod's std::numeric_limits<time_t>::max() as a ban's
// end, made representable: it equals the maximum modulo 2^32, so the
// seconds get_bans and banned print (a uint32 of end minus now) are
// monerod's.
var banForever = time.Unix(1<<62-1, 0)

// DefaultBanListPoll is how often the ban-list file is looked at.
const DefaultBanListPoll = 5 * time.Second

// BanListStats are the ban-list file's figures (metrics, logs).
type BanListStats struct {
	Entries       int    // bans the file holds now
	Reloads       uint64 // times the file was applied again after a change
	ReloadErrors  uint64 // changed versions that could not be read or parsed
	DroppedByList uint64 // connections dropped because a reload banned them
}

// banLists is the node's state of the ban-list file and the DNS
// blocklist.
type banLists struct {
	// banStats count the ban-list file's reloads; banListSeen is the file
	// as first read.
	banStats struct {
		entries                        atomic.Int64
		reloads, reloadErrors, dropped atomic.Uint64
	}
	banListSeen os.FileInfo
	// dnsBlock counts the DNS blocklist's updates (dnsblocklist.go).
	dnsBlock dnsBlockStats
}

// loadBanList reads --ban-list at New: an error there stops the node.
func (n *Node) loadBanList() error {
	if n.cfg.BanListFile == "" {
		return nil
	}
	list, fi, err := readBanList(n.cfg.BanListFile)
	if err != nil {
		return err
	}
	n.banListSeen = fi
	n.applyBanList(list)
	n.banStats.entries.Store(int64(len(list)))
	if n.cfg.BanListPoll <= 0 {
		n.cfg.BanListPoll = DefaultBanListPoll
	}
	return nil
}

// startBanLists starts watching the ban-list file (offline too: its bans
// refuse RPC clients) and, online, the DNS blocklist's updates.
func (n *Node) startBanLists(offline bool) {
	if n.cfg.BanListFile != "" {
		n.wg.Add(1)
		go n.watchBanList(n.banListSeen)
	}
	if !offline && n.cfg.DNSBlocklist && n.cfg.TXT != nil {
		n.wg.Add(1)
		go n.dnsBlocklistLoop()
	}
}

// readBanList reads and parses the ban-list file. A missing file is
// monerod's error ("Can't find ban list file").
func readBanList(path string) ([]netip.Prefix, os.FileInfo, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil, fmt.Errorf("p2p: can't find ban list file %s: %w", path, err)
	} else if err != nil {
		return nil, nil, fmt.Errorf("p2p: failed to read ban list file %s: %w", path, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, nil, fmt.Errorf("p2p: failed to read ban list file %s: %w", path, err)
	}
	data, err := io.ReadAll(io.LimitReader(f, peerinfo.MaxBanListBytes+1))
	if err != nil {
		return nil, nil, fmt.Errorf("p2p: failed to read ban list file %s: %w", path, err)
	}
	list, err := peerinfo.ParseBanList(data, path)
	if err != nil {
		return nil, nil, fmt.Errorf("p2p: %w", err)
	}
	return list, fi, nil
}

// applyBanList makes list the file's bans: the earlier file bans it leaves
// out are lifted (unless the operator or the node banned the same host
// since, which set_bans does by overwriting the end), the new ones put in
// place with their connections dropped and peer-list entries evicted. It
// returns how many bans were added and lifted, and connections dropped.
func (n *Node) applyBanList(list []netip.Prefix) (added, lifted, dropped int) {
	want := make(map[netip.Prefix]bool, len(list))
	for _, p := range list {
		want[p] = true
	}
	fresh, lifted := n.bans.applyFile(want)
	for _, p := range fresh {
		dropped += n.ban(p, banForever)
	}
	return len(fresh), lifted, dropped
}

// applyFile puts the ban-list file's entries want in place: the for-ever
// bans of entries it no longer lists are lifted; it returns the entries to
// ban (new ones, and listed ones whose for-ever ban is gone) and how many
// bans were lifted.
func (b *banList) applyFile(want map[netip.Prefix]bool) (fresh []netip.Prefix, lifted int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for p := range b.listed {
		if want[p] {
			continue
		}
		delete(b.listed, p)
		if p.IsSingleIP() {
			if b.until[p] == banForever {
				delete(b.until, p)
				lifted++
			}
		} else if b.subnets[p] == banForever {
			delete(b.subnets, p)
			lifted++
		}
	}
	// New entries, and listed ones whose for-ever ban is gone (set_bans
	// lifted or shortened it since): the file, when it changes, is the
	// truth again.
	for p := range want {
		cur, ok := b.subnets[p]
		if p.IsSingleIP() {
			cur, ok = b.until[p]
		}
		if !b.listed[p] || !ok || cur != banForever {
			b.listed[p] = true
			fresh = append(fresh, p)
		}
	}
	return fresh, lifted
}

// watchBanList polls the ban-list file's modification time and size and
// applies a changed version once it has settled: a change is read only
// when a second look, one poll later, finds the same time and size, so
// that a file an editor is still writing in place (empty or half
// written for a moment) is not applied, which would lift its bans.
func (n *Node) watchBanList(last os.FileInfo) {
	defer n.wg.Done()
	t := time.NewTicker(n.cfg.BanListPoll)
	defer t.Stop()
	path := n.cfg.BanListFile
	same := func(a, b os.FileInfo) bool {
		return a != nil && b != nil && a.ModTime().Equal(b.ModTime()) && a.Size() == b.Size()
	}
	var seen os.FileInfo // the changed version waiting to settle
	for {
		select {
		case <-n.ctx.Done():
			return
		case <-t.C:
		}
		fi, err := os.Stat(path)
		if err == nil && same(fi, last) {
			seen = nil
			continue
		}
		if err == nil && !same(fi, seen) {
			seen = fi
			continue
		}
		seen = nil
		list, fi, err := readBanList(path)
		if err != nil {
			// Said once per version: the next look compares with this one.
			if st, statErr := os.Stat(path); statErr == nil {
				last = st
			} else {
				last = nil
			}
			n.banStats.reloadErrors.Add(1)
			n.log.Warn("ban list not reloaded; the bans of its last good version stay", "err", err)
			if last == nil {
				// Gone: wait for it to come back, without a warning a poll.
				if !n.waitBanListBack(path, t) {
					return
				}
			}
			continue
		}
		last = fi
		added, lifted, dropped := n.applyBanList(list)
		n.banStats.reloads.Add(1)
		n.banStats.dropped.Add(uint64(dropped))
		n.banStats.entries.Store(int64(len(list)))
		n.log.Info("ban list reloaded", "file", path, "entries", len(list), "added", added, "lifted", lifted, "dropped_connections", dropped)
	}
}

// waitBanListBack waits for a removed ban-list file to appear again; false
// when the node stops first.
func (n *Node) waitBanListBack(path string, t *time.Ticker) bool {
	for {
		select {
		case <-n.ctx.Done():
			return false
		case <-t.C:
		}
		if _, err := os.Stat(path); err == nil {
			return true
		}
	}
}

// BanListStats are the ban-list file's figures.
func (n *Node) BanListStats() BanListStats {
	s := &n.banStats
	return BanListStats{Entries: int(s.entries.Load()), Reloads: s.reloads.Load(), ReloadErrors: s.reloadErrors.Load(),
		DroppedByList: s.dropped.Load()}
}

// RemoteHostAllowed is monerod's is_remote_host_allowed, which its RPC
// servers use as their connection filter: false while ip is banned, as a
// host or inside a banned subnet.
func (n *Node) RemoteHostAllowed(ip netip.Addr) bool {
	return !n.bans.banned(ip.Unmap(), n.now())
}

// BanStats are the node's ban figures (the metrics).
func (n *Node) BanStats() peerinfo.BanStats {
	var hosts, subnets int
	for _, b := range n.Bans(n.now()) {
		if b.Prefix.IsSingleIP() {
			hosts++
		} else {
			subnets++
		}
	}
	l := n.BanListStats()
	return peerinfo.BanStats{Hosts: hosts, Subnets: subnets, ListEntries: l.Entries, ListReloads: l.Reloads,
		ListReloadErrors: l.ReloadErrors, ListDropped: l.DroppedByList,
		DNSUpdates: n.dnsBlock.updates.Load(), DNSFailures: n.dnsBlock.failures.Load()}
}
