package p2p

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/gonero/gonero/internal/monerodlab"
	"github.com/gonero/gonero/levin"
)

// syncInfoAnswer is sync_info as both nodes answer it, each object kept
// as raw keys for comparing shapes.
type syncInfoAnswer struct {
	Height                uint64                       `json:"height"`
	TargetHeight          uint64                       `json:"target_height"`
	NextNeededPruningSeed uint32                       `json:"next_needed_pruning_seed"`
	Overview              string                       `json:"overview"`
	Spans                 []map[string]json.RawMessage `json:"spans"`
	Peers                 []struct {
		Info map[string]json.RawMessage `json:"info"`
	} `json:"peers"`
	raw map[string]json.RawMessage
}

func decodeSyncInfo(t *testing.T, who string, body []byte) syncInfoAnswer {
	t.Helper()
	var a syncInfoAnswer
	if err := monerodlab.DecodeResult(who, "sync_info", body, &a); err != nil {
		t.Fatal(err)
	}
	if err := monerodlab.DecodeResult(who, "sync_info", body, &a.raw); err != nil {
		t.Fatal(err)
	}
	return a
}

func keysOf(m map[string]json.RawMessage) string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return fmt.Sprint(ks)
}

// gonero syncs one chain from three monerods at once (copies of the fresh
// regtest chain, 300 blocks: 15 spans; monerod mines too slowly here for a
// longer one, bench/sync.sh --peers 3 syncs longer chains): the spans are spread over all three, the blocks are added
// in height order and the chain ends equal to monerod's. A fresh monerod
// syncing the same chain from the same three peers is the reference for
// sync_info: the spans and peers it lists have the same fields as
// gonero's, and once both are synchronized the figures agree.
func TestSyncFromThreeMonerods(t *testing.T) {
	lab := monerodlab.Require(t)
	fresh := lab.FreshChain(t)
	var peers []string
	var ms []*monerodlab.Monerod
	for range 3 {
		// monerod takes one incoming connection per IP unless told otherwise;
		// gonero and the reference monerod both connect from 127.0.0.1.
		m := lab.StartMonerod(t, fresh.NodeDir, "--online", "--max-connections-per-ip", "4")
		ms = append(ms, m)
		peers = append(peers, "127.0.0.1:"+strconv.Itoa(m.P2PPort))
	}
	// gonero reaches each monerod through a proxy that holds its first
	// block request until gonero has asked all three (on a loaded machine
	// one handshake can lag so much that two peers serve the whole chain
	// before the third starts). Meanwhile sync_info shows the three spans
	// in flight.
	var mu sync.Mutex
	asked := map[*tamperProxy]bool{}
	firstAsks := make(chan struct{}, len(peers))
	release := make(chan struct{})
	var goneroPeers []string
	for _, addr := range peers {
		p := newTamperProxy(t, addr)
		p.toSource = func(m *levin.Message) bool {
			if m.Kind == levin.KindNotification && m.Command == levin.NotifyRequestGetObjects {
				mu.Lock()
				first := !asked[p]
				asked[p] = true
				mu.Unlock()
				if first {
					firstAsks <- struct{}{}
				}
				select {
				case <-release:
				case <-time.After(60 * time.Second):
				}
			}
			return true
		}
		p.start()
		goneroPeers = append(goneroPeers, p.addr())
	}
	want := monerodGetInfo(t, ms[0])
	if want.Height < 200 {
		t.Fatalf("the chain has %d blocks", want.Height)
	}

	servedBy := map[string]int{}
	// Spans of 5 blocks (--block-sync-size 5): 60 spans, enough that all
	// three peers get some whichever answers first.
	cfg := Config{ExclusiveNodes: goneroPeers, ConnectInterval: 100 * time.Millisecond, BlockSyncSize: 5,
		Progress: func(p SyncProgress) {
			mu.Lock()
			servedBy[p.From]++
			mu.Unlock()
		}}
	// Both nodes start syncing together; sync_info is sampled on both while
	// they download.
	ref := lab.StartMonerod(t, "", append([]string{"--fresh", "--online"}, func() []string {
		var a []string
		for _, p := range peers {
			a = append(a, "--add-exclusive-node", p)
		}
		return a
	}()...)...)
	tn := startTestNode(t, "", cfg)
	order := addedInOrder(t, tn.chain)

	start := time.Now()
	for range peers {
		select {
		case <-firstAsks:
		case <-time.After(60 * time.Second):
			t.Fatal("gonero did not ask all three peers for a span")
		}
	}
	held := decodeSyncInfo(t, "gonero", call(t, tn.url, "sync_info", `{}`))
	close(release)
	// Three different spans, one per peer, each requested (size 0); the
	// overview has one '.' per requested span, with no gap between them.
	var ourSpan, theirSpan map[string]json.RawMessage
	var ourPeer map[string]json.RawMessage
	if len(held.Spans) != 3 || held.Overview != "[...]" {
		t.Fatalf("sync_info while three spans are asked for: overview %q, spans %v", held.Overview, held.Spans)
	}
	ourSpan = held.Spans[0]
	starts, owners := map[string]bool{}, map[string]bool{}
	for _, sp := range held.Spans {
		starts[string(sp["start_block_height"])] = true
		owners[string(sp["remote_address"])] = true
		if string(sp["size"]) != "0" || string(sp["nblocks"]) != "5" {
			t.Errorf("requested span %v: want size 0, 5 blocks", sp)
		}
	}
	if len(starts) != 3 || len(owners) != 3 {
		t.Errorf("the three spans in flight: %d different starts, %d different peers", len(starts), len(owners))
	}
	deadline := start.Add(90 * time.Second)
	for time.Now().Before(deadline) {
		ours := decodeSyncInfo(t, "gonero", call(t, tn.url, "sync_info", `{}`))
		if len(ours.Peers) > 0 && ourPeer == nil {
			ourPeer = ours.Peers[0].Info
		}
		if theirSpan == nil {
			body, err := ref.Post("/json_rpc", []byte(`{"jsonrpc":"2.0","id":0,"method":"sync_info"}`))
			if err == nil {
				if a := decodeSyncInfo(t, "monerod", body); len(a.Spans) > 0 {
					theirSpan = a.Spans[0]
				}
			}
		}
		if tn.chain.Height() == want.Height && monerodGetInfo(t, ref).Height == want.Height {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if info := monerodGetInfo(t, ref); info.Height != want.Height {
		body, _ := ref.Post("/json_rpc", []byte(`{"jsonrpc":"2.0","id":0,"method":"sync_info"}`))
		t.Logf("reference monerod at height %d of %d: %s", info.Height, want.Height, body)
	}
	if tn.chain.Height() != want.Height {
		t.Fatalf("gonero reached height %d of %d in %v", tn.chain.Height(), want.Height, time.Since(start))
	}
	t.Logf("gonero and the reference monerod synced %d blocks from 3 monerods in %v", want.Height, time.Since(start))
	if tn.chain.Top().Hash.String() != want.TopHash {
		t.Fatalf("gonero's top %s, monerod's %s", tn.chain.Top().Hash, want.TopHash)
	}
	sameChain(t, tn, ms[0], want.Height-20)
	if n, ok := order(); !ok || uint64(n) != want.Height-1 {
		t.Fatalf("%d blocks added, in order: %v; want %d in order", n, ok, want.Height-1)
	}
	mu.Lock()
	for _, p := range goneroPeers {
		if servedBy[p] == 0 {
			t.Errorf("peer %s served no span (spans by peer: %v)", p, servedBy)
		}
	}
	t.Logf("spans added by peer: %v", servedBy)
	mu.Unlock()

	// sync_info's shape while syncing.
	if theirSpan == nil {
		t.Fatal("monerod's sync_info never listed a span while syncing")
	}
	if g, w := keysOf(ourSpan), keysOf(theirSpan); g != w {
		t.Errorf("span fields: gonero %s, monerod %s", g, w)
	}
	var addr string
	_ = json.Unmarshal(ourSpan["remote_address"], &addr)
	if addr != goneroPeers[0] && addr != goneroPeers[1] && addr != goneroPeers[2] {
		t.Errorf("span remote_address %q is none of the peers %v", addr, goneroPeers)
	}
	// Once synchronized the two agree on the figures (peers' info is the
	// get_connections entry, compared field by field elsewhere).
	eventually(t, 20*time.Second, "both to count themselves synchronized", func() bool {
		return tn.node.Synchronized() && monerodGetInfo(t, ref).Synchronized
	})
	ours := decodeSyncInfo(t, "gonero", call(t, tn.url, "sync_info", `{}`))
	body, err := ref.Post("/json_rpc", []byte(`{"jsonrpc":"2.0","id":0,"method":"sync_info"}`))
	if err != nil {
		t.Fatal(err)
	}
	theirs := decodeSyncInfo(t, "monerod", body)
	if ours.Height != theirs.Height || ours.TargetHeight != theirs.TargetHeight ||
		ours.NextNeededPruningSeed != theirs.NextNeededPruningSeed || ours.Overview != theirs.Overview {
		t.Errorf("synchronized sync_info: gonero height %d target %d seed %d overview %q; monerod %d %d %d %q",
			ours.Height, ours.TargetHeight, ours.NextNeededPruningSeed, ours.Overview,
			theirs.Height, theirs.TargetHeight, theirs.NextNeededPruningSeed, theirs.Overview)
	}
	if g, w := keysOf(ours.raw), keysOf(theirs.raw); g != w {
		t.Errorf("sync_info fields: gonero %s, monerod %s", g, w)
	}
	if len(ours.Peers) != len(theirs.Peers) || len(ours.Peers) == 0 {
		t.Fatalf("peers listed: gonero %d, monerod %d", len(ours.Peers), len(theirs.Peers))
	}
	if g, w := keysOf(ourPeer), keysOf(theirs.Peers[0].Info); g != w {
		t.Errorf("peer info fields: gonero %s, monerod %s", g, w)
	}
}
