package p2p

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"github.com/gonero/gonero/anonaddr"
	"github.com/gonero/gonero/peerinfo"
	"github.com/gonero/gonero/portable"
)

// Peer-list limits (docs/p2p-levin.md §9.2, §11).
const (
	whiteLimit          = 1000 // P2P_LOCAL_WHITE_PEERLIST_LIMIT
	greyLimit           = 5000 // P2P_LOCAL_GRAY_PEERLIST_LIMIT
	failedAddrForget    = time.Hour
	failsBeforeBan      = 10 // P2P_IP_FAILS_BEFORE_BLOCK: a host is banned once its fails exceed it
	banDuration         = 24 * time.Hour
	stateFileVersion    = 1
	whiteCandidateRange = 20
)

// Fail scores beside monerod's usual 1.
const (
	// banAtOnce is gonero's score for what it bans on the first offence
	// where monerod scores one fail (a block or chain entry below the
	// node's checkpoints or block-hash list, blockFault).
	banAtOnce = failsBeforeBan + 1
	// hostFail is what monerod's drop_connections(address) scores the
	// host (add_host_fail(address, 5)) before it drops each of the
	// host's connections with one fail more.
	hostFail = 5
)

// reachable is the address filter of the peer lists: loopback, private and
// unspecified addresses are never stored or handed out (docs/p2p-levin.md §6.3, §9.2).
func reachable(ip netip.Addr) bool {
	return ip.IsValid() && !ip.IsLoopback() && !ip.IsPrivate() && !ip.IsUnspecified() &&
		!ip.IsLinkLocalUnicast() && !ip.IsMulticast()
}

type peerRecord struct {
	Entry    portable.PeerlistEntry
	LastSeen time.Time
}

// peerList is the public zone's white and grey lists (docs/p2p-levin.md §9.2).
type peerList struct {
	file string
	// zone is the anonymity zone the list is for (zones.go); 0 for the
	// public zone.
	zone anonaddr.Zone

	mu       sync.Mutex // L9, a leaf (Node's lock order)
	white    map[string]*peerRecord
	grey     map[string]*peerRecord
	failedAt map[string]time.Time
	// anchors are the outgoing peers of this run (and, until consumed,
	// of the last one): monerod's anchor list.
	anchors map[string]anchorRecord
	dirty   bool
}

func newPeerList(file string) *peerList {
	return &peerList{file: file, white: map[string]*peerRecord{}, grey: map[string]*peerRecord{}, failedAt: map[string]time.Time{},
		anchors: map[string]anchorRecord{}}
}

// anchorConnections is P2P_DEFAULT_ANCHOR_CONNECTIONS_COUNT: while fewer
// outgoing connections are open (and the white share is not met),
// connections_maker dials anchors before white and grey peers.
const anchorConnections = 2

// anchorLimit bounds the anchor list, which monerod leaves unbounded: it
// holds the outgoing connections, far fewer.
const anchorLimit = whiteLimit

// anchorRecord is monerod's anchor_peerlist_entry: an outgoing peer's
// address and id, and when it was first connected to (kept across
// restarts while it stays an anchor).
type anchorRecord struct {
	Address   portable.NetAddress
	ID        uint64
	FirstSeen time.Time
}

// addAnchor is append_with_peer_anchor, called when an outgoing
// connection completes its handshake: an address already listed keeps its
// entry.
func (p *peerList) addAnchor(a portable.NetAddress, id uint64, firstSeen time.Time) {
	if !p.accepts(a) {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	k := a.String()
	if _, ok := p.anchors[k]; ok || len(p.anchors) >= anchorLimit {
		return
	}
	p.anchors[k] = anchorRecord{Address: a, ID: id, FirstSeen: firstSeen}
	p.dirty = true
}

// removeAnchor is remove_from_peer_anchor: an outgoing connection to a
// closed while the node runs (or its address was banned).
func (p *peerList) removeAnchor(a portable.NetAddress) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, ok := p.anchors[a.String()]; ok {
		delete(p.anchors, a.String())
		p.dirty = true
	}
}

// takeAnchors is get_and_empty_anchor_peerlist: the anchors, oldest
// first_seen first, leaving the list empty.
func (p *peerList) takeAnchors() []anchorRecord {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := p.anchorsLocked()
	if len(out) > 0 {
		clear(p.anchors)
		p.dirty = true
	}
	return out
}

// anchorList is the anchor list, oldest first_seen first.
func (p *peerList) anchorList() []anchorRecord {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.anchorsLocked()
}

func (p *peerList) anchorsLocked() []anchorRecord {
	out := make([]anchorRecord, 0, len(p.anchors))
	for _, r := range p.anchors {
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].FirstSeen.Equal(out[j].FirstSeen) {
			return out[i].FirstSeen.Before(out[j].FirstSeen)
		}
		return out[i].Address.String() < out[j].Address.String()
	})
	return out
}

// recentlyFailed is is_addr_recently_failed: the address's host failed
// a connection within the hour.
func (p *peerList) recentlyFailed(addr string, now time.Time) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	t, ok := p.failedAt[failedKey(addr)]
	return ok && now.Sub(t) < failedAddrForget
}

func (p *peerList) addWhite(e portable.PeerlistEntry, now time.Time) {
	if !p.accepts(e.Address) {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	k := e.Address.String()
	delete(p.grey, k)
	if old, ok := p.white[k]; ok {
		keepKnown(&e, old.Entry)
	}
	p.white[k] = &peerRecord{Entry: e, LastSeen: now}
	evictOldest(p.white, whiteLimit)
	p.dirty = true
}

// keepKnown: a zero pruning seed or RPC port does not overwrite a known one.
func keepKnown(e *portable.PeerlistEntry, old portable.PeerlistEntry) {
	if e.PruningSeed == 0 {
		e.PruningSeed = old.PruningSeed
	}
	if e.RPCPort == 0 {
		e.RPCPort = old.RPCPort
	}
}

func (p *peerList) touchWhite(a portable.NetAddress, now time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if r, ok := p.white[a.String()]; ok {
		r.LastSeen = now
		p.dirty = true
	}
}

func (p *peerList) addGreyLocked(e portable.PeerlistEntry, now time.Time) {
	if !p.accepts(e.Address) {
		return
	}
	k := e.Address.String()
	if _, ok := p.white[k]; ok {
		return
	}
	if old, ok := p.grey[k]; ok {
		keepKnown(&e, old.Entry)
		old.Entry = e
		return
	}
	p.grey[k] = &peerRecord{Entry: e, LastSeen: now}
	evictOldest(p.grey, greyLimit)
	p.dirty = true
}

// merge adds a peer's list to the grey list after monerod's sanitising:
// unreachable addresses, 0.0.0.0, a port equal to the RPC port and invalid
// pruning seeds are dropped, last_seen is not trusted, and addresses that
// failed within the hour are skipped.
func (p *peerList) merge(list []portable.PeerlistEntry, now time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, e := range list {
		if e.Address.Port == e.RPCPort && e.RPCPort != 0 {
			continue
		}
		if e.PruningSeed != 0 && (e.PruningSeed < 0x180 || e.PruningSeed > 0x187) {
			continue
		}
		if t, ok := p.failedAt[failedKey(e.Address.String())]; ok && now.Sub(t) < failedAddrForget {
			continue
		}
		e.LastSeen = 0
		p.addGreyLocked(e, now)
	}
}

// failed records a failed connection: the address leaves the grey list
// (monerod's grey-list housekeeping drops peers it cannot reach), and its
// host, on whatever port, is neither dialled nor re-learned from other
// peers for an hour (monerod's m_conn_fails_cache, keyed by host_str).
func (p *peerList) failed(addr string, now time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, ok := p.grey[addr]; ok {
		delete(p.grey, addr)
		p.dirty = true
	}
	p.failedAt[failedKey(addr)] = now
	if len(p.failedAt) > greyLimit {
		for k, t := range p.failedAt {
			if now.Sub(t) >= failedAddrForget {
				delete(p.failedAt, k)
			}
		}
	}
}

// failedKey is what a failed connection is remembered by: the host of a
// "host:port" address ("[v6]:port" gives v6), as monerod's host_str; an
// address without a port (an I2P one) is its own host.
func failedKey(addr string) string {
	if host, _, err := net.SplitHostPort(addr); err == nil {
		return host
	}
	return addr
}

func evictOldest(m map[string]*peerRecord, limit int) {
	for len(m) > limit {
		var oldest string
		var t time.Time
		for k, r := range m {
			if oldest == "" || r.LastSeen.Before(t) {
				oldest, t = k, r.LastSeen
			}
		}
		delete(m, oldest)
	}
}

func (p *peerList) sizes() (white, grey uint64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return uint64(len(p.white)), uint64(len(p.grey))
}

// randomWhite returns up to n white entries in random order.
func (p *peerList) randomWhite(n int) []portable.PeerlistEntry {
	p.mu.Lock()
	out := make([]portable.PeerlistEntry, 0, len(p.white))
	for _, r := range p.white {
		out = append(out, r.Entry)
	}
	p.mu.Unlock()
	rand.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out[:min(n, len(out))]
}

// candidates picks up to n addresses to dial, as monerod 0.18.5.3's
// connections_maker fills its outgoing slots one
// make_new_connection_from_peerlist call at a time (monero 2879885e3):
// first whiteFirst white peers (whiteShare), then grey ones, then white
// ones again while slots stay free (docs/p2p-levin.md §9.3). Each call
//
//   - takes the list newest first with one entry per host: of several
//     ports of one IP only the most recently seen counts, so that a peer
//     cannot win weight by announcing many ports;
//   - spreads over IPv4 /24s: in a random order it keeps the first entry of
//     every /24 not yet occupied by a connection (subnets, which the picks
//     extend), and puts those back newest first; when that leaves nothing
//     it takes the whole list. IPv6 addresses (other than IPv4-mapped ones)
//     are not grouped;
//   - takes at most 20 of them from the white list (all from the grey),
//     and picks one: from the white list favouring the newest
//     (fixedProbabilityIndex), from the grey uniformly;
//   - makes up to 3 such picks, a pick that is already connected or picked
//     (skip, or this round's picks), or failed within the hour, costing one.
//
// A round ends when a call finds nothing. skip (nil: none) is monerod's
// is_peer_used and is_remote_host_allowed.
func (p *peerList) candidates(n, whiteFirst int, now time.Time, subnets map[netip.Prefix]bool, skip func(portable.PeerlistEntry) bool) []portable.PeerlistEntry {
	if n <= 0 {
		return nil
	}
	p.mu.Lock()
	white := oneEntryPerHost(sortedByLastSeen(p.white))
	grey := oneEntryPerHost(sortedByLastSeen(p.grey))
	failed := map[string]bool{}
	for _, list := range [][]seenEntry{white, grey} {
		for _, e := range list {
			k := e.Address.String()
			if t, ok := p.failedAt[failedKey(k)]; ok && now.Sub(t) < failedAddrForget {
				failed[k] = true
			}
		}
	}
	p.mu.Unlock()

	var out []portable.PeerlistEntry
	picked := map[string]bool{}
	pick := func(list []seenEntry, isWhite bool) bool {
		tried := map[uint64]bool{}
		for range candidatePasses {
			filtered := pickable(list, subnets, tried, isWhite)
			if len(filtered) == 0 {
				return false
			}
			var e portable.PeerlistEntry
			if isWhite {
				e = filtered[fixedProbabilityIndex(len(filtered)-1)]
			} else {
				e = filtered[rand.IntN(len(filtered))]
			}
			tried[e.ID] = true
			k := e.Address.String()
			if picked[k] || failed[k] || skip != nil && skip(e) {
				continue
			}
			picked[k] = true
			if s, ok := ipv4Subnet(e.Address.IP); ok {
				subnets[s] = true
			}
			out = append(out, e)
			return true
		}
		return false
	}
	for len(out) < min(whiteFirst, n) && pick(white, true) {
	}
	for len(out) < n && pick(grey, false) {
	}
	// monerod's next round, with the white share met or the grey list
	// spent, takes grey and then white peers up to the limit.
	for len(out) < n && pick(white, true) {
	}
	return out
}

// whitelistConnectionsPercent is P2P_DEFAULT_WHITELIST_CONNECTIONS_PERCENT:
// the share of the outgoing connection limit connections_maker fills from
// the white list before it turns to the grey.
const whitelistConnectionsPercent = 70

// whiteShare is how many of the next picks come from the white list first:
// while fewer than 70 % of --out-peers (rounded down) are connected,
// monerod dials white peers up to that count, then grey; at or past it,
// grey first.
func whiteShare(maxOut, out int) int {
	return max(0, maxOut*whitelistConnectionsPercent/100-out)
}

// candidatePasses is how many picks one make_new_connection_from_peerlist
// call makes before it gives up.
const candidatePasses = 3

// seenEntry is a peer-list entry with when it was last seen.
type seenEntry struct {
	portable.PeerlistEntry
	seen time.Time
}

// oneEntryPerHost keeps the first entry (in list order) of every IP.
func oneEntryPerHost(list []seenEntry) []seenEntry {
	hosts := map[netip.Addr]bool{}
	out := list[:0]
	for _, e := range list {
		ip := e.Address.IP.Unmap()
		if hosts[ip] {
			continue
		}
		hosts[ip] = true
		out = append(out, e)
	}
	return out
}

// pickable is the list one pick chooses from: one entry per IPv4 /24 not in
// subnets, chosen at random and ordered newest first; the whole list when
// that is empty; never an entry whose id was tried; at most
// whiteCandidateRange entries from the white list.
func pickable(list []seenEntry, subnets map[netip.Prefix]bool, tried map[uint64]bool, isWhite bool) []portable.PeerlistEntry {
	occupied := make(map[netip.Prefix]bool, len(subnets))
	for s := range subnets {
		occupied[s] = true
	}
	var spread []seenEntry
	for _, i := range rand.Perm(len(list)) {
		e := list[i]
		if s, ok := ipv4Subnet(e.Address.IP); ok {
			if occupied[s] {
				continue
			}
			occupied[s] = true
		}
		spread = append(spread, e)
	}
	sort.SliceStable(spread, func(i, j int) bool { return spread[i].seen.After(spread[j].seen) })
	limit := len(list)
	if isWhite {
		limit = whiteCandidateRange
	}
	var out []portable.PeerlistEntry
	take := func(from []seenEntry) {
		for _, e := range from {
			if len(out) >= limit {
				return
			}
			if !tried[e.ID] {
				out = append(out, e.PeerlistEntry)
			}
		}
	}
	take(spread)
	if len(out) == 0 {
		take(list)
	}
	return out
}

// fixedProbabilityIndex is monerod's get_random_index_with_fixed_probability:
// an index in [0, maxIndex] that favours the low ones (x³ of a uniform x).
func fixedProbabilityIndex(maxIndex int) int {
	if maxIndex <= 0 {
		return 0
	}
	m := uint64(maxIndex)
	x := rand.Uint64N(16*m + 1)
	return int(x * x * x / (m * m * 16 * 16 * 16))
}

// ipv4Subnet is the /24 of an IPv4 (or IPv4-mapped) address; IPv6
// addresses have none for peer selection.
func ipv4Subnet(ip netip.Addr) (netip.Prefix, bool) {
	ip = ip.Unmap()
	if !ip.Is4() {
		return netip.Prefix{}, false
	}
	s, _ := ip.Prefix(24)
	return s, true
}

func sortedByLastSeen(m map[string]*peerRecord) []seenEntry {
	out := make([]seenEntry, 0, len(m))
	for _, r := range m {
		out = append(out, seenEntry{r.Entry, r.LastSeen})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].seen.After(out[j].seen) })
	return out
}

// stateFile is the on-disk form of the peer lists (ours, JSON: monerod's
// p2pstate.bin is a boost archive nobody else reads).
type stateFile struct {
	Version int         `json:"version"`
	White   []savedPeer `json:"white"`
	Grey    []savedPeer `json:"grey"`
	// Anchors came after version 1's first files, which load without
	// them (and builds before them skip the field).
	Anchors []savedAnchor `json:"anchors,omitempty"`
}

type savedAnchor struct {
	Address   string `json:"address"`
	ID        uint64 `json:"id"`
	FirstSeen int64  `json:"first_seen"`
}

type savedPeer struct {
	Address     string `json:"address"`
	ID          uint64 `json:"id"`
	LastSeen    int64  `json:"last_seen"`
	PruningSeed uint32 `json:"pruning_seed,omitempty"`
	RPCPort     uint16 `json:"rpc_port,omitempty"`
}

// maxStateFileSize bounds what load reads: the lists' limits need far less.
const maxStateFileSize = 16 << 20

func (p *peerList) load() error {
	if p.file == "" {
		return nil
	}
	f, err := os.Open(p.file)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	} else if err != nil {
		return err
	}
	defer f.Close()
	var st stateFile
	dec := json.NewDecoder(&limitedReader{f: f, left: maxStateFileSize})
	if err := dec.Decode(&st); err != nil {
		return fmt.Errorf("%s: %w", p.file, err)
	}
	if st.Version != stateFileVersion {
		return fmt.Errorf("%s: version %d, this build reads %d", p.file, st.Version, stateFileVersion)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, list := range []struct {
		in  []savedPeer
		out map[string]*peerRecord
		lim int
	}{{st.White, p.white, whiteLimit}, {st.Grey, p.grey, greyLimit}} {
		for _, sp := range list.in {
			a, ok := p.parseSaved(sp.Address)
			if !ok {
				continue
			}
			e := portable.PeerlistEntry{Address: a, ID: sp.ID, PruningSeed: sp.PruningSeed, RPCPort: sp.RPCPort}
			list.out[e.Address.String()] = &peerRecord{Entry: e, LastSeen: time.Unix(sp.LastSeen, 0)}
		}
		evictOldest(list.out, list.lim)
	}
	for k := range p.white {
		delete(p.grey, k)
	}
	for _, sa := range st.Anchors {
		a, ok := p.parseSaved(sa.Address)
		if !ok {
			continue
		}
		p.anchors[a.String()] = anchorRecord{Address: a, ID: sa.ID, FirstSeen: time.Unix(sa.FirstSeen, 0)}
	}
	if len(p.anchors) > anchorLimit {
		for _, r := range p.anchorsLocked()[anchorLimit:] {
			delete(p.anchors, r.Address.String())
		}
	}
	return nil
}

type limitedReader struct {
	f    *os.File
	left int64
}

func (r *limitedReader) Read(b []byte) (int, error) {
	if r.left <= 0 {
		return 0, errors.New("peer state file too large")
	}
	if int64(len(b)) > r.left {
		b = b[:r.left]
	}
	n, err := r.f.Read(b)
	r.left -= int64(n)
	return n, err
}

// entries are the white and grey lists for /get_peer_list, in no
// order, each entry converted by conv; a white entry's last_seen is when
// the node last met the peer.
func (p *peerList) entries(conv func(portable.PeerlistEntry) peerinfo.PeerEntry) (white, grey []peerinfo.PeerEntry) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, r := range p.white {
		e := conv(r.Entry)
		if !r.LastSeen.IsZero() {
			e.LastSeen = r.LastSeen.Unix()
		}
		white = append(white, e)
	}
	for _, r := range p.grey {
		grey = append(grey, conv(r.Entry))
	}
	return white, grey
}

// evict drops the white, grey and anchor entries whose address matches
// (block_host's remove_from_peer_white, _gray, _anchor).
func (p *peerList) evict(match func(portable.NetAddress) bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for k, r := range p.anchors {
		if match(r.Address) {
			delete(p.anchors, k)
			p.dirty = true
		}
	}
	for _, list := range []map[string]*peerRecord{p.white, p.grey} {
		for k, r := range list {
			if match(r.Entry.Address) {
				delete(list, k)
				p.dirty = true
			}
		}
	}
}

// saveIfChanged saves the lists when they changed since the last save.
func (p *peerList) saveIfChanged() error {
	p.mu.Lock()
	dirty := p.dirty
	p.mu.Unlock()
	if !dirty {
		return nil
	}
	return p.save()
}

// save writes the lists atomically (temp file, fsync, rename).
func (p *peerList) save() error {
	if p.file == "" {
		return nil
	}
	p.mu.Lock()
	st := stateFile{Version: stateFileVersion}
	for _, pair := range []struct {
		in  map[string]*peerRecord
		out *[]savedPeer
	}{{p.white, &st.White}, {p.grey, &st.Grey}} {
		for k, r := range pair.in {
			*pair.out = append(*pair.out, savedPeer{Address: k, ID: r.Entry.ID, LastSeen: r.LastSeen.Unix(),
				PruningSeed: r.Entry.PruningSeed, RPCPort: r.Entry.RPCPort})
		}
		sort.Slice(*pair.out, func(i, j int) bool { return (*pair.out)[i].Address < (*pair.out)[j].Address })
	}
	for _, r := range p.anchorsLocked() {
		st.Anchors = append(st.Anchors, savedAnchor{Address: r.Address.String(), ID: r.ID, FirstSeen: r.FirstSeen.Unix()})
	}
	p.dirty = false
	p.mu.Unlock()
	b, err := json.MarshalIndent(st, "", " ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(p.file), ".p2pstate-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), p.file)
}
