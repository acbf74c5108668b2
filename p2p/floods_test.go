package p2p

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/gonero/gonero/internal/testutil"
	"github.com/gonero/gonero/levin"
	"github.com/gonero/gonero/params"
	"github.com/gonero/gonero/portable"
)

// rpcIncoming asks the node's RPC server for get_connections and get_info
// (both read the connection table under the node's lock) and returns the
// incoming connections each reports. The client's timeout only turns a
// deadlock into a failure; it is not a speed target.
func rpcIncoming(client *http.Client, url string) (listed, counted int, err error) {
	post := func(method string, result any) error {
		body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": "0", "method": method})
		resp, err := client.Post(url+"/json_rpc", "application/json", bytes.NewReader(body))
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		var env struct {
			Result json.RawMessage `json:"result"`
		}
		if err := json.NewDecoder(resp.Body).Decode(&env); err != nil {
			return fmt.Errorf("%s: %w", method, err)
		}
		return json.Unmarshal(env.Result, result)
	}
	var conns struct {
		Connections []struct {
			Incoming bool `json:"incoming"`
		} `json:"connections"`
	}
	var info struct {
		Status   string `json:"status"`
		Incoming int    `json:"incoming_connections_count"`
	}
	if err := post("get_connections", &conns); err != nil {
		return 0, 0, err
	}
	if err := post("get_info", &info); err != nil {
		return 0, 0, err
	}
	if info.Status != "OK" {
		return 0, 0, fmt.Errorf("get_info status %q", info.Status)
	}
	for _, c := range conns.Connections {
		if c.Incoming {
			listed++
		}
	}
	return listed, info.Incoming, nil
}

// refusedFrom dials addr from src and requires the node to close the
// connection without a word (refused at accept).
func refusedFrom(src, addr string) error {
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(src)}, Timeout: 10 * time.Second}
	nc, err := d.Dial("tcp", addr)
	if err != nil {
		return err
	}
	defer nc.Close()
	_ = nc.SetReadDeadline(time.Now().Add(10 * time.Second))
	var b [1]byte
	n, err := nc.Read(b[:])
	var ne net.Error
	switch {
	case n > 0:
		return fmt.Errorf("%s: the node sent %d bytes on a connection it should refuse", src, n)
	case errors.As(err, &ne) && ne.Timeout():
		return fmt.Errorf("%s: the node kept a connection over --in-peers open", src)
	}
	return nil
}

// A refusal flood never holds up the RPC handlers that read the
// connection table (get_connections, get_info), and they never hold up
// refusals: with the lock a refusal takes held (the accept loop is then
// stuck inside a refusal), both RPC reads are answered; and while eight
// hosts reconnect as fast as they are refused, every RPC read is answered
// with the one admitted peer, and every refusal is counted under its
// reason (gonero_p2p_connections_refused_total). The reverse, refusals
// with the connection table's lock held, is TestRefuseWithoutConnectionTableLock.
func TestRefusalFloodDoesNotBlockRPC(t *testing.T) {
	tn := startTestNode(t, testutil.Path(t, "testdata", "regtest", "blockchain.raw"), Config{InPeers: 1})
	addr := tn.p2pAddr()
	handshakeFrom(t, "127.0.6.1", addr, 0x6001)
	client := &http.Client{Timeout: 60 * time.Second}

	// The accept loop stuck in a refusal: RPC reads go on.
	accepted := tn.node.accepted.Load()
	tn.node.inbound.mu.Lock()
	stuck := make(chan error, 1)
	go func() { stuck <- refusedFrom("127.0.6.2", addr) }()
	for tn.node.accepted.Load() == accepted {
		time.Sleep(10 * time.Millisecond)
	}
	listed, counted, err := rpcIncoming(client, tn.url)
	tn.node.inbound.mu.Unlock()
	if err != nil || listed != 1 || counted != 1 {
		t.Fatalf("RPC during a stuck refusal: %d listed, %d counted, %v; want 1, 1", listed, counted, err)
	}
	if err := <-stuck; err != nil {
		t.Fatal(err)
	}

	// Eight reconnecting hosts against an RPC reader.
	const hosts, each = 8, 40
	var wg sync.WaitGroup
	errs := make(chan error, hosts*each)
	for h := range hosts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range each {
				if err := refusedFrom(fmt.Sprintf("127.0.6.%d", 10+h), addr); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	floodDone := make(chan struct{})
	go func() { wg.Wait(); close(floodDone) }()
	reads := 0
	for flooding := true; flooding; reads++ {
		select {
		case <-floodDone:
			flooding = false
		default:
		}
		listed, counted, err := rpcIncoming(client, tn.url)
		if err != nil || listed != 1 || counted != 1 {
			t.Fatalf("RPC read %d during the flood: %d listed, %d counted, %v; want 1, 1", reads, listed, counted, err)
		}
	}
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	got := tn.node.RefusedConnections()
	if want := uint64(1 + hosts*each); got["in_peers"] != want || got["banned"] != 0 || got["per_host"] != 0 || got["other"] != 0 {
		t.Fatalf("refusals counted %v; want in_peers %d and nothing else", got, want)
	}
	t.Logf("%d RPC read pairs answered during %d refusals", reads, hosts*each)
}

// Every per-peer buffer has a bound, and a peer passing it is dropped and
// counted (gonero_p2p_peers_dropped_total): bytes that are not levin; a
// message announced over the levin limit before the handshake (256 KiB),
// dropped before its body is read; and a peer that asks for blocks and
// never reads the answers: its requests stop being read once its send
// queue holds sendBacklog, and it is dropped when nothing of that went out
// for the stall timeout (budget.go).
func TestPeersOverMemoryBoundsDropped(t *testing.T) {
	tn := startTestNode(t, testutil.Path(t, "testdata", "regtest", "blockchain.raw"),
		Config{MaxConnectionsPerIP: 100, sendStallTimeout: 2 * time.Second})
	addr := tn.p2pAddr()
	waitDropped := func(reason string, want uint64) {
		t.Helper()
		deadline := time.Now().Add(60 * time.Second)
		for tn.node.DroppedPeers()[reason] != want {
			if time.Now().After(deadline) {
				t.Fatalf("dropped %v; want %s %d", tn.node.DroppedPeers(), reason, want)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}

	p := dialRaw(t, addr)
	_, _ = p.nc.Write([]byte("GET / HTTP/1.1\r\nHost: x\r\n\r\n"))
	p.expectClosed("garbage")
	waitDropped("not_levin", 1)

	p = dialRaw(t, addr)
	h := levin.Header{BodySize: levin.MaxPacketSizeBeforeHandshake + 1, ExpectsResponse: true,
		Command: levin.CommandHandshake, Flags: levin.FlagRequest, ProtocolVersion: levin.ProtocolVersion}
	hb := h.Encode()
	_, _ = p.nc.Write(hb[:])
	p.expectClosed("a 256 KiB + 1 header")
	waitDropped("message_too_large", 1)

	// A peer that asks and never reads.
	h0, top0, _ := storeState(t, tn)
	p = dialRaw(t, addr)
	_ = p.nc.(*net.TCPConn).SetReadBuffer(4096)
	hs := goodHandshake(61)
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
		for i := 0; i < 5000; i++ {
			if _, err := p.nc.Write(msg); err != nil {
				return // dropped
			}
		}
	}()
	waitDropped("send_stalled", 1)
	// The dropped peer's socket is closed (its blocked write cut short),
	// not kept for the two-minute write timeout.
	for {
		_ = p.nc.SetReadDeadline(time.Now().Add(30 * time.Second))
		if _, err := p.nc.Read(make([]byte, 64<<10)); err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				t.Fatal("the dropped peer's connection stayed open")
			}
			break
		}
	}
	if got := tn.node.DroppedPeers(); got["not_levin"] != 1 || got["message_too_large"] != 1 {
		t.Fatalf("dropped %v", got)
	}
}
