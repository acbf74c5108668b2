package p2p

import (
	"bytes"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/netip"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gonero/gonero/internal/testutil"
	"github.com/gonero/gonero/levin"
	"github.com/gonero/gonero/membudget"
	"github.com/gonero/gonero/params"
	"github.com/gonero/gonero/portable"
)

// limitedNode serves the regtest chain of testdata with cfg's limits; every
// peer of these tests connects from 127.0.0.1.
func limitedNode(t *testing.T, cfg Config) *testNode {
	t.Helper()
	cfg.MaxConnectionsPerIP = 100
	return startTestNode(t, testutil.Path(t, "testdata", "regtest", "blockchain.raw"), cfg)
}

// syncedPeer connects and handshakes as a peer at the node's height, so
// that neither side starts a sync.
func syncedPeer(t *testing.T, tn *testNode, peerID uint64) *rawPeer {
	t.Helper()
	h0, top0, _ := storeState(t, tn)
	p := dialRaw(t, tn.p2pAddr())
	hs := goodHandshake(peerID)
	hs.PayloadData.CurrentHeight, hs.PayloadData.TopID, hs.PayloadData.TopVersion = h0, top0, params.Regtest.VersionAt(h0-1)
	p.sendPayload(levin.KindRequest, levin.CommandHandshake, hs)
	p.expectResponse(levin.CommandHandshake)
	return p
}

// blocksRequest is a NOTIFY_REQUEST_GET_OBJECTS of 100 main-chain blocks,
// framed.
func blocksRequest(t *testing.T, tn *testNode) []byte {
	t.Helper()
	var ids [][32]byte
	for h := uint64(100); h < 200; h++ {
		ids = append(ids, tn.chain.HashAt(h))
	}
	body, err := portable.Marshal(portable.RequestGetObjects{Blocks: ids})
	if err != nil {
		t.Fatal(err)
	}
	msg, err := levin.AppendMessage(nil, levin.Message{Kind: levin.KindNotification, Command: levin.NotifyRequestGetObjects, Body: body})
	if err != nil {
		t.Fatal(err)
	}
	return msg
}

// getInfo asks the node's RPC for get_info and says whether it answered OK.
func getInfo(client *http.Client, url string) bool {
	resp, err := client.Post(url+"/json_rpc", "application/json",
		bytes.NewReader([]byte(`{"jsonrpc":"2.0","id":"0","method":"get_info"}`)))
	if err != nil {
		return false
	}
	defer resp.Body.Close()
	var env struct {
		Result struct {
			Status string `json:"status"`
		} `json:"result"`
	}
	return json.NewDecoder(resp.Body).Decode(&env) == nil && env.Result.Status == "OK"
}

// Peers asking for blocks as fast as they are answered get no more than
// --limit-rate-up together, in turns, and an RPC client is served
// meanwhile: the bytes the node wrote stay within the rate over the time
// the node ran plus one burst, and each of two flooding peers gets a fair
// part of them. The bound holds however slow the machine: nothing here
// needs a flood to reach a speed.
func TestUploadRateLimitCapsServing(t *testing.T) {
	const kbps = 96
	started := time.Now()
	tn := limitedNode(t, Config{LimitRateUp: kbps})
	msg := blocksRequest(t, tn)
	peers := []*rawPeer{syncedPeer(t, tn, 71), syncedPeer(t, tn, 72)}
	var got [2]atomic.Int64 // bytes of block answers each peer read
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for i, p := range peers {
		wg.Add(2)
		go func() { // asks as fast as the node reads
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				_ = p.nc.SetWriteDeadline(time.Now().Add(time.Second))
				if _, err := p.nc.Write(msg); err != nil {
					if ne, ok := err.(net.Error); ok && ne.Timeout() {
						continue
					}
					return
				}
			}
		}()
		go func() { // and reads everything it is sent
			defer wg.Done()
			for {
				_ = p.nc.SetReadDeadline(time.Now().Add(10 * time.Second))
				m, err := p.rd.ReadMessage()
				if err != nil {
					return
				}
				if m.Command == levin.NotifyResponseGetObjects {
					got[i].Add(int64(levin.HeaderSize + len(m.Body)))
				}
			}
		}()
	}
	// The RPC is served while the peers flood.
	client := &http.Client{Timeout: 30 * time.Second}
	served, failed := 0, 0
	for deadline := time.Now().Add(3 * time.Second); time.Now().Before(deadline); {
		if getInfo(client, tn.url) {
			served++
		} else {
			failed++
		}
	}
	_, _, _, out := tn.node.Traffic()
	elapsed := time.Since(started)
	close(stop)
	for _, p := range peers {
		p.nc.Close()
	}
	wg.Wait()

	rate := float64(kbps * 1024)
	burst := max(rate/4, rateChunk)
	if bound := burst + rate*elapsed.Seconds(); float64(out) > bound {
		t.Errorf("the node wrote %d bytes in %v; the limit allows %.0f", out, elapsed, bound)
	}
	a, b := got[0].Load(), got[1].Load()
	if a == 0 || b == 0 {
		t.Fatalf("a flooding peer was never served: %d and %d bytes", a, b)
	}
	if 4*a < a+b || 4*b < a+b {
		t.Errorf("the peers got %d and %d bytes: not in turn", a, b)
	}
	if failed != 0 || served == 0 {
		t.Errorf("get_info during the flood: %d served, %d failed", served, failed)
	}
	if st := tn.node.LimitStats(); st.RateUp != kbps*1024 || st.BytesUp == 0 || st.WaitUp == 0 {
		t.Errorf("limit stats: %+v", st)
	}
	t.Logf("%d bytes written in %v at %d kB/s; peers read %d and %d; get_info served %d times", out, elapsed, kbps, a, b, served)
}

// A peer that asks for blocks and never reads holds at most sendBacklog
// and one answer in its send queue, whatever it keeps asking, and is
// dropped once nothing of it went out for the stall timeout.
func TestNeverReadingPeerQueueBounded(t *testing.T) {
	tn := limitedNode(t, Config{sendStallTimeout: 3 * time.Second, LimitRateUp: -1})
	msg := blocksRequest(t, tn)
	// One answer's size, from a peer that reads.
	q := syncedPeer(t, tn, 81)
	if _, err := q.nc.Write(msg); err != nil {
		t.Fatal(err)
	}
	var answer portable.ResponseGetObjects
	q.expectNotification(levin.NotifyResponseGetObjects, &answer)
	body, _ := portable.Marshal(answer)
	answerSize := int64(levin.HeaderSize + len(body))
	q.nc.Close()

	p := syncedPeer(t, tn, 82)
	_ = p.nc.(*net.TCPConn).SetReadBuffer(4096)
	go func() {
		for i := 0; i < 100_000; i++ {
			if _, err := p.nc.Write(msg); err != nil {
				return
			}
		}
	}()
	local := p.nc.LocalAddr().String()
	var peak int64
	eventually(t, 60*time.Second, "the peer that does not read to be dropped", func() bool {
		for _, c := range tn.node.connections() {
			if c.addr.String() == local {
				peak = max(peak, c.queued.Load())
			}
		}
		return tn.node.DroppedPeers()["send_stalled"] == 1
	})
	if bound := sendBacklog + answerSize; peak > bound {
		t.Fatalf("the send queue of a peer that does not read reached %d bytes; the bound is %d", peak, bound)
	}
	if peak < sendBacklog/2 {
		t.Fatalf("the send queue peaked at %d bytes: the flood never filled it, the bound was not tested", peak)
	}
	eventually(t, 10*time.Second, "the dropped peer's queue to be uncounted", func() bool { return tn.node.mem.send.Used() == 0 })
	t.Logf("answers of %d bytes; the queue peaked at %d (bound %d)", answerSize, peak, sendBacklog+answerSize)
}

// sendHeader writes a lone header announcing a body of size bytes.
func (p *rawPeer) sendHeader(kind levin.Kind, command uint32, size uint64) {
	p.t.Helper()
	h := levin.Header{BodySize: size, Command: command, ProtocolVersion: levin.ProtocolVersion, Flags: levin.FlagRequest}
	if kind == levin.KindRequest {
		h.ExpectsResponse = true
	}
	hb := h.Encode()
	if _, err := p.nc.Write(hb[:]); err != nil {
		p.t.Fatal(err)
	}
}

// failsOf is the fails the node holds against ip.
func failsOf(tn *testNode, ip string) int {
	b := tn.node.bans
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.fails[banKey(netip.MustParseAddr(ip))].n
}

// Messages are refused by their declared size before their body is read:
// a header alone, with no body behind it, gets its peer dropped. A small
// command announcing 90 MB (within monerod's 100 MB packet limit, far over
// the command's own); a chain request of more ids than a history has; a block answer nobody asked for (with monerod's fail);
// and a NOTIFY_NEW_TRANSACTIONS within every levin limit that would take the
// node's levin-in budget past its bound, while an older claimant holding
// most of the budget keeps its connection (the newest claimant is refused).
func TestMessagesRefusedUnread(t *testing.T) {
	const budget = 4 << 20
	tn := limitedNode(t, Config{LevinInBudget: budget})
	waitDropped := func(reason string, want uint64) {
		t.Helper()
		eventually(t, 10*time.Second, reason+" drops", func() bool { return tn.node.DroppedPeers()[reason] == want })
	}

	p := syncedPeer(t, tn, 91)
	p.sendHeader(levin.KindNotification, levin.NotifyRequestChain, 90_000_000)
	p.expectClosed("90 MB announced for a chain request")
	waitDropped("message_too_large", 1)
	// A chain request under monerod's 512 KiB but of more ids than any
	// short history has.
	p = syncedPeer(t, tn, 95)
	p.sendHeader(levin.KindNotification, levin.NotifyRequestChain, chainRequestLimit+1)
	p.expectClosed("a chain request of more than 2,000 ids")
	waitDropped("message_too_large", 2)

	p = syncedPeer(t, tn, 92)
	p.sendHeader(levin.KindNotification, levin.NotifyResponseGetObjects, 10_000_000)
	p.expectClosed("a block answer nobody asked for")
	waitDropped("message_too_large", 3)
	if n := failsOf(tn, "127.0.0.1"); n != 1 {
		t.Fatalf("an unasked block answer left %d fails; monerod counts 1", n)
	}

	// An older claimant: 3 MiB announced, 1 MiB of it sent.
	old := syncedPeer(t, tn, 93)
	old.sendHeader(levin.KindNotification, levin.NotifyNewTransactions, 3<<20)
	if _, err := old.nc.Write(make([]byte, 1<<20)); err != nil {
		t.Fatal(err)
	}
	eventually(t, 10*time.Second, "the first claim to be counted", func() bool { return tn.node.mem.in.Used() >= 3<<20 })
	p = syncedPeer(t, tn, 94)
	p.sendHeader(levin.KindNotification, levin.NotifyNewTransactions, 2<<20)
	p.expectClosed("2 MiB announced past the levin-in budget")
	waitDropped("levin_in_budget", 1)
	// The older claimant is still connected: its timed-sync request is
	// still answered once its message is complete (garbage transactions:
	// dropped for those, which frees its claim).
	local := old.nc.LocalAddr().String()
	found := false
	for _, c := range tn.node.connections() {
		found = found || c.addr.String() == local
	}
	if !found {
		t.Fatal("the older claimant was dropped instead of the newest")
	}
	if _, err := old.nc.Write(make([]byte, 2<<20)); err != nil {
		t.Fatal(err)
	}
	old.expectClosed("garbage transactions")
	eventually(t, 10*time.Second, "the levin-in budget to be given back", func() bool { return tn.node.mem.in.Used() == 0 })
	if st := tn.node.LimitStats(); st.LevinInRefused != 1 || st.LevinInBudget != budget {
		t.Fatalf("limit stats: %+v", st)
	}
}

// Past half the node's send budget, the peers holding it wait and the
// others go on: two peers that ask for blocks and never read hold no more
// than the budget together (a hard bound: a message past it drops its
// peer), and a third peer is still handshaken and served.
func TestSendBudgetHoldsHoarders(t *testing.T) {
	const budget = 256 << 10
	tn := limitedNode(t, Config{SendBudget: budget, LimitRateUp: -1, sendStallTimeout: time.Minute})
	msg := blocksRequest(t, tn)
	var answerSize int64
	served := func(peerID uint64) {
		t.Helper()
		q := syncedPeer(t, tn, peerID)
		defer q.nc.Close()
		if _, err := q.nc.Write(msg); err != nil {
			t.Fatal(err)
		}
		var answer portable.ResponseGetObjects
		q.expectNotification(levin.NotifyResponseGetObjects, &answer)
		if len(answer.Blocks) != 100 {
			t.Fatalf("served %d blocks of 100", len(answer.Blocks))
		}
		body, _ := portable.Marshal(answer)
		answerSize = int64(levin.HeaderSize + len(body))
	}
	served(101)
	for id := uint64(102); id <= 103; id++ {
		p := syncedPeer(t, tn, id)
		_ = p.nc.(*net.TCPConn).SetReadBuffer(4096)
		go func() {
			for i := 0; i < 100_000; i++ {
				if _, err := p.nc.Write(msg); err != nil {
					return
				}
			}
		}()
	}
	var peak int64
	eventually(t, 30*time.Second, "the hoarders to fill half the send budget", func() bool {
		peak = max(peak, tn.node.mem.send.Used())
		return tn.node.mem.send.Used() > budget/2
	})
	served(104)
	for range 200 {
		peak = max(peak, tn.node.mem.send.Used())
		time.Sleep(5 * time.Millisecond)
	}
	if st := tn.node.mem.send.Stats(); peak > budget || st.Peak > budget {
		t.Fatalf("the send queues reached %d bytes (peak %d); the budget is %d", peak, st.Peak, budget)
	}
	if tn.node.LimitStats().SendWaits == 0 {
		t.Fatal("no reader waited for the send budget")
	}
	t.Logf("answers of %d bytes; the send queues peaked at %d (budget %d)", answerSize, peak, budget)
}

// duplicateBlob finds equal blobs as monerod's duplicate hash check does,
// and only those.
func TestDuplicateBlob(t *testing.T) {
	a, b, c := []byte("tx a"), []byte("tx b"), []byte("tx a")
	for _, tc := range []struct {
		txs  [][]byte
		want bool
	}{
		{nil, false}, {[][]byte{a}, false}, {[][]byte{a, b}, false}, {[][]byte{a, b, c}, true},
		{[][]byte{{}, {}}, true}, {[][]byte{b, {}, b[:3]}, false},
	} {
		if got := duplicateBlob(tc.txs); got != tc.want {
			t.Errorf("%q: %v, want %v", tc.txs, got, tc.want)
		}
	}
}

// The levin-in budget refuses the newest large claimant, but never an
// answer to the node's own request, and gives back what it counted.
func TestLevinInBudgetClaims(t *testing.T) {
	n := &Node{cfg: Config{LevinInBudget: 4 << 20}}
	n.mem = newMemParts(&n.cfg)
	old, c := &conn{node: n}, &conn{node: n}
	if err := old.claimIn(levin.NotifyNewTransactions, 3<<20); err != nil {
		t.Fatalf("a first claim of 3 MiB: %v", err)
	}
	if err := c.claimIn(levin.NotifyNewTransactions, 2<<20); !errors.Is(err, errLevinInBudget) {
		t.Fatalf("a 2 MiB claim past the budget: %v", err)
	}
	if err := c.claimIn(levin.NotifyNewTransactions, levinInExempt); err != nil {
		t.Fatalf("a claim of %d bytes: %v", levinInExempt, err)
	}
	if err := c.claimIn(levin.NotifyResponseGetObjects, 8<<20); err != nil {
		t.Fatalf("an asked-for block answer past the budget: %v", err)
	}
	if got := n.mem.in.Used(); got != 3<<20+8<<20 {
		t.Fatalf("the budget holds %d bytes", got)
	}
	old.releaseIn()
	c.releaseIn()
	if got := n.mem.in.Used(); got != 0 || n.levinInRefused.Load() != 1 {
		t.Fatalf("after release the budget holds %d bytes, %d refused", got, n.levinInRefused.Load())
	}
}

// The node's one memory budget refuses the newest claimant across its
// parts: while another part (the RPC, here its stand-in account on the
// same budget) holds most of the total, a peer announcing a message that
// would pass it is dropped unread, with a small message of another peer
// still read; once the RPC gives its bytes back, the same announce is
// read (and its garbage refused by the parser, not the budget).
func TestGlobalBudgetRefusesNewestAcrossParts(t *testing.T) {
	const total = 32 << 20
	room := int64(total - total/8) // what large claims may fill
	budget := membudget.New(total)
	rpc := membudget.NewAccount[string](budget, 0)
	tn := limitedNode(t, Config{Memory: budget})
	if tn.node.MemoryBudget() != budget {
		t.Fatal("the P2P parts do not draw on the node's budget")
	}
	if !rpc.Acquire("wallet", room-(2<<20)) {
		t.Fatal("the RPC's claim was refused on an idle node")
	}
	p := syncedPeer(t, tn, 121)
	p.sendHeader(levin.KindNotification, levin.NotifyNewTransactions, 3<<20)
	p.expectClosed("3 MiB announced past the node's total")
	eventually(t, 10*time.Second, "the levin_in_budget drop", func() bool { return tn.node.DroppedPeers()["levin_in_budget"] == 1 })
	if rpc.Held("wallet") != room-(2<<20) {
		t.Fatal("the older claimant lost its bytes")
	}
	// A small message (a ping) is still read and answered: it is
	// counted, never refused.
	q := syncedPeer(t, tn, 122)
	q.sendPayload(levin.KindRequest, levin.CommandPing, portable.PingRequest{})
	q.expectResponse(levin.CommandPing)

	rpc.Release("wallet", room-(2<<20))
	p = syncedPeer(t, tn, 123)
	p.sendHeader(levin.KindNotification, levin.NotifyNewTransactions, 3<<20)
	if _, err := p.nc.Write(make([]byte, 3<<20)); err != nil {
		t.Fatal(err)
	}
	p.expectClosed("garbage transactions")
	if got := tn.node.DroppedPeers()["levin_in_budget"]; got != 1 {
		t.Fatalf("%d budget drops; the announce after the release was refused too", got)
	}
	eventually(t, 10*time.Second, "the levin-in part to be given back", func() bool { return tn.node.mem.in.Used() == 0 })
	if st := budget.Stats(); st.Refused != 1 {
		t.Fatalf("budget stats %+v, want one refusal", st)
	}
}

// A peer that asks for blocks and never reads is dropped when a message
// queued for it would take its send queue past its budget
// (SendPeerBudget), by bytes and not by time (the stall timeout is far
// away): the node never holds more than that budget and one answer for
// it, and gives everything back.
func TestNonReadingPeerDroppedAtBudget(t *testing.T) {
	tn := limitedNode(t, Config{SendPeerBudget: 256 << 10, LimitRateUp: -1, sendStallTimeout: time.Hour})
	msg := blocksRequest(t, tn)
	q := syncedPeer(t, tn, 131)
	if _, err := q.nc.Write(msg); err != nil {
		t.Fatal(err)
	}
	var answer portable.ResponseGetObjects
	q.expectNotification(levin.NotifyResponseGetObjects, &answer)
	body, _ := portable.Marshal(answer)
	answerSize := int64(levin.HeaderSize + len(body))
	q.nc.Close()
	eventually(t, 10*time.Second, "the reading peer's queue to be uncounted", func() bool { return tn.node.mem.send.Used() == 0 })

	p := syncedPeer(t, tn, 132)
	_ = p.nc.(*net.TCPConn).SetReadBuffer(4096)
	go func() {
		for i := 0; i < 100_000; i++ {
			if _, err := p.nc.Write(msg); err != nil {
				return
			}
		}
	}()
	eventually(t, 60*time.Second, "the peer that does not read to be dropped at its budget", func() bool {
		return tn.node.DroppedPeers()["send_budget"] == 1
	})
	if n := tn.node.DroppedPeers()["send_stalled"]; n != 0 {
		t.Fatalf("%d peers dropped for a stall: the budget did not drop it", n)
	}
	st := tn.node.mem.send.Stats()
	if bound := 256<<10 + answerSize; st.Peak > bound {
		t.Fatalf("the send queue reached %d bytes; the budget allows %d", st.Peak, bound)
	}
	eventually(t, 10*time.Second, "the dropped peer's queue to be uncounted", func() bool { return tn.node.mem.send.Used() == 0 })
	t.Logf("answers of %d bytes; the queue peaked at %d (budget %d)", answerSize, st.Peak, 256<<10)
}

// Small messages pass the levin-in part's bound but not the node's total:
// with the total spent by another part, a handshake-sized claim is
// refused, while the answer to the node's own block request is counted
// all the same.
func TestSmallClaimsWithinTotal(t *testing.T) {
	const total = 8 << 20
	budget := membudget.New(total)
	n := &Node{cfg: Config{LevinInBudget: 1 << 20, Memory: budget}}
	n.mem = newMemParts(&n.cfg)
	big, small := &conn{node: n}, &conn{node: n}
	if err := big.claimIn(levin.NotifyNewTransactions, levinInExempt); err != nil {
		t.Fatalf("a claim of the whole part: %v", err)
	}
	if err := small.claimIn(levin.CommandHandshake, 4096); err != nil {
		t.Fatalf("a small claim past the part's bound, within the total: %v", err)
	}
	small.releaseIn()
	rpc := membudget.NewAccount[string](budget, 0)
	for rpc.Acquire("x", 4096) {
	}
	if err := small.claimIn(levin.CommandHandshake, 4096); !errors.Is(err, errLevinInBudget) {
		t.Fatalf("a small claim with the total spent: %v", err)
	}
	if err := small.claimIn(levin.NotifyResponseGetObjects, 2<<20); err != nil {
		t.Fatalf("an asked-for answer with the total spent: %v", err)
	}
	if got := budget.Stats().Used; got <= total {
		t.Fatalf("the asked-for answer was not counted: %d used", got)
	}
}
