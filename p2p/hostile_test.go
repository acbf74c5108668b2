package p2p

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"testing"
	"time"

	"github.com/gonero/gonero/chaindb"
	"github.com/gonero/gonero/cryptonote"
	"github.com/gonero/gonero/internal/testutil"
	"github.com/gonero/gonero/levin"
	"github.com/gonero/gonero/params"
	"github.com/gonero/gonero/portable"
)

// rawPeer is a hand-driven P2P client for hostile-peer tests.
type rawPeer struct {
	t  *testing.T
	nc net.Conn
	rd *levin.Reader
}

func dialRaw(t *testing.T, addr string) *rawPeer {
	t.Helper()
	nc, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	return &rawPeer{t: t, nc: nc, rd: levin.NewReader(bufio.NewReader(nc), levin.MaxPacketSize)}
}

func (p *rawPeer) send(kind levin.Kind, command uint32, body []byte) {
	p.t.Helper()
	if err := levin.WriteMessage(p.nc, levin.Message{Kind: kind, Command: command, Body: body}); err != nil {
		p.t.Fatal(err)
	}
}

func (p *rawPeer) sendPayload(kind levin.Kind, command uint32, payload interface{ ToSection() portable.Section }) {
	p.t.Helper()
	body, err := portable.Marshal(payload)
	if err != nil {
		p.t.Fatal(err)
	}
	p.send(kind, command, body)
}

// next reads the next message, failing the test after 5 s.
func (p *rawPeer) next() (levin.Message, error) {
	_ = p.nc.SetReadDeadline(time.Now().Add(5 * time.Second))
	return p.rd.ReadMessage()
}

// expectClosed requires the node to close the connection (skipping
// whatever it still sends) within 5 s.
func (p *rawPeer) expectClosed(why string) {
	p.t.Helper()
	for {
		_, err := p.next()
		if err == nil {
			continue
		}
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			p.t.Fatalf("%s: the node kept the connection open", why)
		}
		return // EOF, reset or a broken stream: closed
	}
}

// expectResponse reads messages until the response to command.
func (p *rawPeer) expectResponse(command uint32) levin.Message {
	p.t.Helper()
	for {
		m, err := p.next()
		if err != nil {
			p.t.Fatalf("waiting for the response to %d: %v", command, err)
		}
		if m.Kind == levin.KindResponse && m.Command == command {
			return m
		}
	}
}

// expectNotification reads messages until a notification of command and
// decodes it into into.
func (p *rawPeer) expectNotification(command uint32, into interface{ FromSection(portable.Section) error }) {
	p.t.Helper()
	for {
		m, err := p.next()
		if err != nil {
			p.t.Fatalf("waiting for notification %d: %v", command, err)
		}
		if m.Kind == levin.KindNotification && m.Command == command {
			if err := portable.Unmarshal(m.Body, into); err != nil {
				p.t.Fatalf("notification %d: %v", command, err)
			}
			return
		}
	}
}

// handshake performs a valid handshake as a peer at genesis.
func (p *rawPeer) handshake(peerID uint64) portable.HandshakeResponse {
	p.t.Helper()
	p.sendPayload(levin.KindRequest, levin.CommandHandshake, goodHandshake(peerID))
	m := p.expectResponse(levin.CommandHandshake)
	if m.ReturnCode != levin.ReturnSuccess {
		p.t.Fatalf("handshake answered with return code %d", m.ReturnCode)
	}
	var resp portable.HandshakeResponse
	if err := portable.Unmarshal(m.Body, &resp); err != nil {
		p.t.Fatal(err)
	}
	return resp
}

func goodHandshake(peerID uint64) portable.HandshakeRequest {
	net := params.Regtest
	return portable.HandshakeRequest{
		NodeData: portable.NodeData{NetworkID: net.NetworkID(), PeerID: peerID, SupportFlags: 1},
		PayloadData: portable.CoreSyncData{CurrentHeight: 1, CumulativeDifficulty: 1, TopID: net.GenesisID(),
			TopVersion: net.VersionAt(0)},
	}
}

// hostileNode is a node serving the regtest chain of testdata, with no peers.
// Every case of these tests connects from 127.0.0.1, so the per-IP limit
// is raised.
func hostileNode(t *testing.T) *testNode {
	t.Helper()
	return startTestNode(t, testutil.Path(t, "testdata", "regtest", "blockchain.raw"), Config{MaxConnectionsPerIP: 100})
}

// storeState is what must not change when a hostile peer is dropped.
func storeState(t *testing.T, tn *testNode) (uint64, cryptonote.Hash, uint64) {
	t.Helper()
	var alt uint64
	if err := tn.chain.Store().View(func(r *chaindb.Reader) error {
		var err error
		alt, err = r.AltBlockCount()
		return err
	}); err != nil {
		t.Fatal(err)
	}
	return tn.chain.Height(), tn.chain.Top().Hash, alt
}

// Hostile peers are dropped; the node keeps serving and its chain does not
// change. Each case uses its own connection.
func TestHostilePeers(t *testing.T) {
	tn := hostileNode(t)
	h0, top0, alt0 := storeState(t, tn)
	addr := tn.p2pAddr()
	// Every case below scores at most one fail; nine stay under the ban.

	t.Run("garbage", func(t *testing.T) {
		p := dialRaw(t, addr)
		_, _ = p.nc.Write([]byte("GET / HTTP/1.1\r\nHost: x\r\n\r\n"))
		p.expectClosed("garbage")
	})
	t.Run("oversized bucket before the handshake", func(t *testing.T) {
		p := dialRaw(t, addr)
		h := levin.Header{BodySize: levin.MaxPacketSizeBeforeHandshake + 1, ExpectsResponse: true,
			Command: levin.CommandHandshake, Flags: levin.FlagRequest, ProtocolVersion: levin.ProtocolVersion}
		hb := h.Encode()
		_, _ = p.nc.Write(hb[:])
		p.expectClosed("a 256 KiB + 1 header")
	})
	t.Run("bad portable storage in a handshake", func(t *testing.T) {
		p := dialRaw(t, addr)
		p.send(levin.KindRequest, levin.CommandHandshake, []byte{1, 0x11, 1, 1, 1, 1, 2, 1, 1, 0xff, 0xff})
		if m := p.expectResponse(levin.CommandHandshake); m.ReturnCode != levin.ReturnErrConnection || len(m.Body) != 0 {
			t.Errorf("answer to an unparsable handshake: code %d, %d body bytes; want -1 and none, as monerod", m.ReturnCode, len(m.Body))
		}
		p.expectClosed("unparsable handshake")
	})
	t.Run("wrong network id", func(t *testing.T) {
		p := dialRaw(t, addr)
		hs := goodHandshake(7)
		hs.NodeData.NetworkID = params.Testnet.NetworkID()
		p.sendPayload(levin.KindRequest, levin.CommandHandshake, hs)
		if m, err := p.next(); err == nil {
			t.Errorf("a handshake from testnet was answered (command %d, code %d)", m.Command, m.ReturnCode)
		}
		p.expectClosed("testnet handshake")
	})
	t.Run("second handshake", func(t *testing.T) {
		p := dialRaw(t, addr)
		p.handshake(8)
		p.sendPayload(levin.KindRequest, levin.CommandHandshake, goodHandshake(8))
		p.expectClosed("a second handshake")
	})
	t.Run("wrong top version", func(t *testing.T) {
		p := dialRaw(t, addr)
		hs := goodHandshake(9)
		hs.PayloadData.CurrentHeight, hs.PayloadData.TopVersion, hs.PayloadData.TopID = 100, 7, [32]byte{1}
		p.sendPayload(levin.KindRequest, levin.CommandHandshake, hs)
		p.expectClosed("a peer claiming version 7 at height 100 of a v16 chain")
	})
	t.Run("objects before the handshake", func(t *testing.T) {
		p := dialRaw(t, addr)
		p.sendPayload(levin.KindNotification, levin.NotifyRequestGetObjects, portable.RequestGetObjects{Blocks: [][32]byte{top0}})
		p.expectClosed("2003 before the handshake")
	})
	t.Run("too many objects", func(t *testing.T) {
		p := dialRaw(t, addr)
		p.handshake(10)
		p.sendPayload(levin.KindNotification, levin.NotifyRequestGetObjects, portable.RequestGetObjects{Blocks: make([][32]byte, 101)})
		p.expectClosed("a request for 101 blocks")
	})
	t.Run("invalid block", func(t *testing.T) {
		p := dialRaw(t, addr)
		// A peer at the node's own top: the node counts itself synchronized
		// and so handles new blocks (it ignores them before, as monerod).
		hs := goodHandshake(11)
		hs.PayloadData.CurrentHeight, hs.PayloadData.TopID, hs.PayloadData.TopVersion = h0, top0, params.Regtest.VersionAt(h0-1)
		p.sendPayload(levin.KindRequest, levin.CommandHandshake, hs)
		p.expectResponse(levin.CommandHandshake)
		if !tn.node.Synchronized() {
			t.Fatal("a handshake showing the node's own top did not make it synchronized")
		}
		// The top block again, on top of itself: its miner tx claims the
		// top's height, not the next one.
		var blob []byte
		if err := tn.chain.Store().View(func(r *chaindb.Reader) error {
			var err error
			blob, err = r.BlockBlob(h0 - 1)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		blk, err := cryptonote.ParseBlock(blob)
		if err != nil {
			t.Fatal(err)
		}
		blk.PrevID = top0
		blk.Timestamp++
		p.sendPayload(levin.KindNotification, levin.NotifyNewFluffyBlock, portable.NewBlock{
			Block: portable.BlockCompleteEntry{Block: blk.Serialize()}, CurrentBlockchainHeight: h0 + 1})
		p.expectClosed("an invalid block")
	})
	// Still serving, nothing changed.
	p := dialRaw(t, addr)
	resp := p.handshake(12)
	if resp.PayloadData.CurrentHeight != h0 || resp.PayloadData.TopID != top0 {
		t.Fatalf("after the hostile peers the node reports height %d top %x; want %d %s", resp.PayloadData.CurrentHeight, resp.PayloadData.TopID, h0, top0)
	}
	if h, top, alt := storeState(t, tn); h != h0 || top != top0 || alt != alt0 {
		t.Fatalf("the chain changed: height %d→%d, top %s→%s, alt blocks %d→%d", h0, h, top0, top, alt0, alt)
	}
}

// What a well-behaved peer gets: ping and support flags before the
// handshake, -6 for an unknown invoke (monerod's answers), the chain and
// its blocks on request.
func TestServesPeers(t *testing.T) {
	tn := hostileNode(t)
	p := dialRaw(t, tn.p2pAddr())
	p.sendPayload(levin.KindRequest, levin.CommandPing, portable.PingRequest{})
	var ping portable.PingResponse
	if err := portable.Unmarshal(p.expectResponse(levin.CommandPing).Body, &ping); err != nil {
		t.Fatal(err)
	}
	if ping.Status != "OK" || ping.PeerID != tn.node.PeerID() {
		t.Fatalf("ping: %+v, want OK and peer id %x", ping, tn.node.PeerID())
	}
	p.send(levin.KindRequest, 1005, []byte{1, 0x11, 1, 1, 1, 1, 2, 1, 1, 0})
	if m := p.expectResponse(1005); m.ReturnCode != levin.ReturnErrHandlerNotDefined {
		t.Fatalf("unknown invoke answered with code %d, want -6", m.ReturnCode)
	}
	resp := p.handshake(21)
	if resp.NodeData.NetworkID != params.Regtest.NetworkID() || resp.NodeData.PeerID != tn.node.PeerID() ||
		resp.NodeData.SupportFlags != 1 {
		t.Fatalf("handshake node data %+v", resp.NodeData)
	}
	top := tn.chain.Top()
	if resp.PayloadData.CurrentHeight != tn.chain.Height() || resp.PayloadData.TopID != top.Hash ||
		resp.PayloadData.CumulativeDifficulty != top.CumulativeDifficulty.Lo || resp.PayloadData.TopVersion != 16 {
		t.Fatalf("handshake sync data %+v, top %+v", resp.PayloadData, top)
	}
	// Our top is genesis, the node's is not: a sparse history of genesis
	// alone gets ids from height 0.
	p.sendPayload(levin.KindNotification, levin.NotifyRequestChain, portable.RequestChain{BlockIDs: [][32]byte{params.Regtest.GenesisID()}})
	var entry portable.ResponseChainEntry
	p.expectNotification(levin.NotifyResponseChainEntry, &entry)
	if entry.StartHeight != 0 || entry.TotalHeight != tn.chain.Height() || uint64(len(entry.BlockIDs)) != tn.chain.Height() ||
		len(entry.BlockWeights) != len(entry.BlockIDs) || entry.BlockIDs[len(entry.BlockIDs)-1] != top.Hash {
		t.Fatalf("chain entry: start %d total %d, %d ids, %d weights", entry.StartHeight, entry.TotalHeight, len(entry.BlockIDs), len(entry.BlockWeights))
	}
	// The blocks with transactions come back with them, in order.
	ids := entry.BlockIDs[195:215]
	p.sendPayload(levin.KindNotification, levin.NotifyRequestGetObjects, portable.RequestGetObjects{Blocks: ids})
	var objs portable.ResponseGetObjects
	p.expectNotification(levin.NotifyResponseGetObjects, &objs)
	if len(objs.Blocks) != len(ids) || len(objs.MissedIDs) != 0 {
		t.Fatalf("%d blocks and %d missed for %d asked", len(objs.Blocks), len(objs.MissedIDs), len(ids))
	}
	txs := 0
	for i, e := range objs.Blocks {
		blk, err := cryptonote.ParseBlock(e.Block)
		if err != nil {
			t.Fatal(err)
		}
		if id, _ := blk.ID(); id != ids[i] || len(e.Txs) != len(blk.TxHashes) {
			t.Fatalf("block %d: id %s (asked %x), %d txs for %d listed", i, id, ids[i], len(e.Txs), len(blk.TxHashes))
		}
		for j, te := range e.Txs {
			tx, err := cryptonote.ParseTransaction(te.Blob)
			if err != nil || tx.ID() != blk.TxHashes[j] {
				t.Fatalf("block %d tx %d: %v", i, j, err)
			}
			txs++
		}
	}
	if txs == 0 {
		t.Fatal("heights 195–214 of the regtest chain hold transactions; none came back")
	}
}

// notLevin is a stream that is not levin at all (a bad signature).
var notLevin = []byte("not levin at all")

// hugeLevin is a levin header announcing a 100 MB handshake request (above
// any packet size a node takes), followed by 1000 bytes of it.
func hugeLevin() []byte {
	b := make([]byte, 33, 33+1000)
	binary.LittleEndian.PutUint64(b[0:], 0x0101010101012101) // LEVIN_SIGNATURE
	binary.LittleEndian.PutUint64(b[8:], 100_000_000)        // m_cb
	b[16] = 1                                                // m_have_to_return_data
	binary.LittleEndian.PutUint32(b[17:], 1001)              // m_command: handshake
	binary.LittleEndian.PutUint32(b[21:], 0)                 // m_return_code
	binary.LittleEndian.PutUint32(b[25:], 1)                 // m_flags: request
	binary.LittleEndian.PutUint32(b[29:], 1)                 // m_protocol_version
	return append(b, bytes.Repeat([]byte{0x55}, 1000)...)
}

// wrongNetworkHandshake is a valid handshake but for its network id.
func wrongNetworkHandshake(peerID uint64) portable.HandshakeRequest {
	req := goodHandshake(peerID)
	req.NodeData.NetworkID[0] ^= 0xff
	return req
}

// A host that keeps misbehaving in a way monerod scores is banned: after
// eleven handshakes from another network (one fail each in monerod's
// handle_handshake; a ban once the fails exceed ten) even a valid handshake
// from it is refused. Streams that are not levin, or levin too large, only
// close their connection, however many (monerod's levin handler counts no
// fail for them).
func TestBanAfterElevenFails(t *testing.T) {
	tn := hostileNode(t)
	for i := 0; i < 2*failsBeforeBan; i++ {
		p := dialRaw(t, tn.p2pAddr())
		_, _ = p.nc.Write(notLevin)
		p.expectClosed("garbage")
		p = dialRaw(t, tn.p2pAddr())
		_, _ = p.nc.Write(hugeLevin())
		p.expectClosed("a 100 MB levin header")
	}
	if bans := tn.node.Bans(time.Now()); len(bans) != 0 {
		t.Fatalf("garbage banned its host: %v", bans)
	}
	dialRaw(t, tn.p2pAddr()).handshake(1)
	var kept *rawPeer // a peer of the host, handshaken before the ban
	for i := 0; i <= failsBeforeBan; i++ {
		if i == failsBeforeBan {
			// Ten fails: not banned yet.
			kept = dialRaw(t, tn.p2pAddr())
			kept.handshake(2)
		}
		p := dialRaw(t, tn.p2pAddr())
		p.sendPayload(levin.KindRequest, levin.CommandHandshake, wrongNetworkHandshake(3))
		p.expectClosed("a handshake from another network")
	}
	// The ban closes the host's other connections too (monerod's
	// block_host): the peer handshaken before it is cut off.
	kept.expectClosed("a connection of a host banned since")
	p := dialRaw(t, tn.p2pAddr())
	p.sendPayload(levin.KindRequest, levin.CommandHandshake, goodHandshake(4))
	m, err := p.next()
	if err == nil {
		t.Fatalf("a banned host was answered (command %d)", m.Command)
	}
	if !errors.Is(err, io.EOF) {
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			t.Fatal("a banned host's connection was kept open")
		}
	}
}

// The sparse chain history has monerod's offsets: 1…11 from the top, then
// doubling gaps, then genesis (docs/p2p-levin.md §8.1).
func TestShortChainHistory(t *testing.T) {
	tn := hostileNode(t)
	height := tn.chain.Height()
	var ids [][32]byte
	if err := tn.chain.Store().View(func(r *chaindb.Reader) error {
		var err error
		ids, err = shortChainHistory(r, height)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	offsets := []uint64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 17, 25, 41, 73, 137, 265}
	for i, off := range offsets {
		if off >= height {
			offsets = offsets[:i]
			break
		}
	}
	if len(ids) != len(offsets)+1 {
		t.Fatalf("%d ids for height %d, want %d", len(ids), height, len(offsets)+1)
	}
	for i, off := range offsets {
		if want := tn.chain.HashAt(height - off); ids[i] != want {
			t.Fatalf("id %d is not the block %d below the top", i, off)
		}
	}
	if ids[len(ids)-1] != params.Regtest.GenesisID() {
		t.Fatal("the history does not end with genesis")
	}
}

// monerod sends its chain request right behind its handshake response
// (docs/p2p-levin.md §6.1). Arriving in one TCP segment, the request must be
// handled after the response, not refused as coming before the handshake.
func TestChainRequestRightAfterHandshakeResponse(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	tn := startTestNode(t, testutil.Path(t, "testdata", "regtest", "blockchain.raw"),
		Config{ExclusiveNodes: []string{ln.Addr().String()}, ConnectInterval: 100 * time.Millisecond})
	_ = ln.(*net.TCPListener).SetDeadline(time.Now().Add(10 * time.Second))
	nc, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	p := &rawPeer{t: t, nc: nc, rd: levin.NewReader(bufio.NewReader(nc), levin.MaxPacketSize)}
	m, err := p.next()
	if err != nil || m.Command != levin.CommandHandshake || m.Kind != levin.KindRequest {
		t.Fatalf("expected a handshake, got %+v, %v", m, err)
	}
	net := params.Regtest
	resp, _ := portable.Marshal(portable.HandshakeResponse{
		NodeData:    portable.NodeData{NetworkID: net.NetworkID(), PeerID: 77, SupportFlags: 1},
		PayloadData: portable.CoreSyncData{CurrentHeight: 1, CumulativeDifficulty: 1, TopID: net.GenesisID(), TopVersion: 1},
	})
	req, _ := portable.Marshal(portable.RequestChain{BlockIDs: [][32]byte{net.GenesisID()}})
	both, _ := levin.AppendMessage(nil, levin.Message{Kind: levin.KindResponse, Command: levin.CommandHandshake, ReturnCode: levin.ReturnSuccess, Body: resp})
	both, _ = levin.AppendMessage(both, levin.Message{Kind: levin.KindNotification, Command: levin.NotifyRequestChain, Body: req})
	if _, err := nc.Write(both); err != nil {
		t.Fatal(err)
	}
	for {
		m, err := p.next()
		if err != nil {
			t.Fatalf("gonero closed the connection instead of answering the chain request: %v", err)
		}
		if m.Command == levin.NotifyResponseChainEntry {
			var entry portable.ResponseChainEntry
			if err := portable.Unmarshal(m.Body, &entry); err != nil || entry.TotalHeight != tn.chain.Height() {
				t.Fatalf("chain entry %+v, %v", entry, err)
			}
			return
		}
	}
}

// A peer claiming a huge height holds the sync target only while it is
// connected: once it leaves, a peer at the node's own top makes it
// synchronized (monerod recomputes the target when a connection closes).
func TestTargetFollowsLivePeers(t *testing.T) {
	tn := hostileNode(t)
	h0, top0, _ := storeState(t, tn)
	p := dialRaw(t, tn.p2pAddr())
	hs := goodHandshake(31)
	const liar = 400_000_000
	hs.PayloadData.CurrentHeight, hs.PayloadData.TopID, hs.PayloadData.TopVersion = liar, [32]byte{9, 9}, params.Regtest.VersionAt(liar-1)
	p.sendPayload(levin.KindRequest, levin.CommandHandshake, hs)
	p.expectResponse(levin.CommandHandshake)
	if got := tn.node.TargetHeight(); got != liar {
		t.Fatalf("target height %d while the liar is connected, want %d", got, liar)
	}
	p.nc.Close()
	eventually(t, 5*time.Second, "the liar's connection to end", func() bool { return len(tn.node.connections()) == 0 })
	q := dialRaw(t, tn.p2pAddr())
	hs = goodHandshake(32)
	hs.PayloadData.CurrentHeight, hs.PayloadData.TopID, hs.PayloadData.TopVersion = h0, top0, params.Regtest.VersionAt(h0-1)
	q.sendPayload(levin.KindRequest, levin.CommandHandshake, hs)
	q.expectResponse(levin.CommandHandshake)
	if !tn.node.Synchronized() {
		t.Fatalf("not synchronized after the liar left; target height %d, our height %d", tn.node.TargetHeight(), h0)
	}
	// A height beyond CRYPTONOTE_MAX_BLOCK_NUMBER is refused outright.
	r := dialRaw(t, tn.p2pAddr())
	hs = goodHandshake(33)
	hs.PayloadData.CurrentHeight, hs.PayloadData.TopVersion = maxBlockNumber, 16
	r.sendPayload(levin.KindRequest, levin.CommandHandshake, hs)
	r.expectClosed("a height of 500,000,000")
}

// A peer that stops reading while asking for lots of blocks holds nobody
// up: relaying a block returns at once, and the peer is dropped when its
// send queue overflows.
func TestNonReadingPeerStallsNothing(t *testing.T) {
	tn := hostileNode(t)
	h0, top0, _ := storeState(t, tn)
	p := dialRaw(t, tn.p2pAddr())
	_ = p.nc.(*net.TCPConn).SetReadBuffer(4096)
	hs := goodHandshake(41)
	hs.PayloadData.CurrentHeight, hs.PayloadData.TopID, hs.PayloadData.TopVersion = h0, top0, params.Regtest.VersionAt(h0-1)
	p.sendPayload(levin.KindRequest, levin.CommandHandshake, hs)
	p.expectResponse(levin.CommandHandshake)
	var ids [][32]byte
	for h := uint64(100); h < 200; h++ {
		ids = append(ids, tn.chain.HashAt(h))
	}
	body, _ := portable.Marshal(portable.RequestGetObjects{Blocks: ids})
	msg, _ := levin.AppendMessage(nil, levin.Message{Kind: levin.KindNotification, Command: levin.NotifyRequestGetObjects, Body: body})
	go func() {
		for i := 0; i < 2000; i++ {
			if _, err := p.nc.Write(msg); err != nil {
				return
			}
		}
	}()
	// The node's writer is stuck on this peer once answers pile up unsent
	// in its send queue (a writer that keeps up never holds a hundred), or
	// once the queue overflowed and the peer was dropped for it.
	local := p.nc.LocalAddr().String()
	eventually(t, 30*time.Second, "answers to pile up unsent", func() bool {
		for _, c := range tn.node.connections() {
			if c.addr.String() == local {
				return len(c.sendq) >= 100
			}
		}
		return tn.node.DroppedPeers()["send_queue_full"] > 0
	})
	done := make(chan struct{})
	go func() { tn.node.RelayBlock([]byte{1, 2, 3}); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("relaying a block waited for a peer that does not read")
	}
	// Another peer is served meanwhile.
	q := dialRaw(t, tn.p2pAddr())
	if resp := q.handshake(42); resp.PayloadData.CurrentHeight != h0 {
		t.Fatalf("handshake answered with height %d", resp.PayloadData.CurrentHeight)
	}
}

// A transaction from a peer goes through full verification: an invalid one
// (a real transaction altered so that its key images are spent on the
// chain) drops the peer, as monerod drops it, and is neither pooled nor
// passed on; a valid one (the transfer alice's wallet made on this chain) is
// pooled, relayed at once to the other peers, and served in a pool
// complement.
func TestPeerTxVerifiedAndRelayed(t *testing.T) {
	tn := hostileNode(t)
	h0, top0, _ := storeState(t, tn)
	var blob []byte
	_ = tn.chain.Store().View(func(r *chaindb.Reader) error {
		hs, _ := r.TxHashes(201)
		blob, _ = r.TxBlob(hs[0])
		return nil
	})
	tx, err := cryptonote.ParseTransaction(blob)
	if err != nil {
		t.Fatal(err)
	}
	tx.Extra = append(tx.Extra, 0xde, 0xad)
	atTop := func(id uint64) portable.HandshakeRequest {
		hs := goodHandshake(id)
		hs.PayloadData.CurrentHeight, hs.PayloadData.TopID, hs.PayloadData.TopVersion = h0, top0, params.Regtest.VersionAt(h0-1)
		return hs
	}
	bad := dialRaw(t, tn.p2pAddr())
	bad.sendPayload(levin.KindRequest, levin.CommandHandshake, atTop(51))
	bad.expectResponse(levin.CommandHandshake)
	bad.sendPayload(levin.KindNotification, levin.NotifyNewTransactions, portable.NewTransactions{Txs: [][]byte{tx.Serialize()}})
	bad.expectClosed("a peer relaying an invalid transaction")
	if n := tn.node.TxPoolSize(); n != 0 {
		t.Fatalf("pool holds %d transactions after an invalid one", n)
	}

	watcher := dialRaw(t, tn.p2pAddr())
	watcher.sendPayload(levin.KindRequest, levin.CommandHandshake, atTop(52))
	watcher.expectResponse(levin.CommandHandshake)
	good := testutil.WalletTx(t, "2-transfer.jsonl", 14)
	sender := dialRaw(t, tn.p2pAddr())
	sender.sendPayload(levin.KindRequest, levin.CommandHandshake, atTop(53))
	sender.expectResponse(levin.CommandHandshake)
	sender.sendPayload(levin.KindNotification, levin.NotifyNewTransactions, portable.NewTransactions{Txs: [][]byte{good}})
	var relayed portable.NewTransactions
	watcher.expectNotification(levin.NotifyNewTransactions, &relayed)
	if len(relayed.Txs) != 1 || !bytes.Equal(relayed.Txs[0], good) || relayed.Stem {
		t.Fatalf("relayed %d transactions (stem %v), want the valid one fluffed", len(relayed.Txs), relayed.Stem)
	}
	if n := tn.node.TxPoolSize(); n != 1 {
		t.Fatalf("pool holds %d transactions, want 1", n)
	}
	q := dialRaw(t, tn.p2pAddr())
	q.sendPayload(levin.KindRequest, levin.CommandHandshake, atTop(54))
	q.expectResponse(levin.CommandHandshake)
	q.sendPayload(levin.KindNotification, levin.NotifyGetTxpoolComplement, portable.GetTxpoolComplement{})
	var nt portable.NewTransactions
	q.expectNotification(levin.NotifyNewTransactions, &nt)
	if len(nt.Txs) != 1 || !bytes.Equal(nt.Txs[0], good) {
		t.Fatalf("complement holds %d transactions, want the pooled one", len(nt.Txs))
	}
	parsed, err := cryptonote.ParseTransaction(good)
	if err != nil {
		t.Fatal(err)
	}
	q.sendPayload(levin.KindNotification, levin.NotifyGetTxpoolComplement, portable.GetTxpoolComplement{Hashes: [][32]byte{parsed.ID()}})
	q.expectNotification(levin.NotifyNewTransactions, &nt)
	if len(nt.Txs) != 0 {
		t.Fatalf("complement of a peer that has the transaction holds %d", len(nt.Txs))
	}
}
