package p2p

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/gonero/gonero/httpd"
	"github.com/gonero/gonero/internal/monerodlab"
	"github.com/gonero/gonero/levin"
	"github.com/gonero/gonero/miner"
	"github.com/gonero/gonero/portable"
	"github.com/gonero/gonero/rpc"
)

// banListText is the --ban-list file both nodes read: hosts (one with a
// port, one IPv6), an IPv4 subnet, comments and blank lines.
const banListText = "# test bans\n\n127.0.6.1\n 127.0.7.0/24   # a subnet\n127.0.6.3:18080\n[2001:db8::7]\n"

// rpcFrom posts body to path at rpcAddr from the loopback address src on
// a new connection; an error means the connection was refused (closed
// without an answer).
func rpcFrom(src, rpcAddr, path string, body []byte) ([]byte, error) {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(src)}, Timeout: 5 * time.Second}
	c := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{DisableKeepAlives: true,
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			return d.DialContext(ctx, network, addr)
		}}}
	resp, err := c.Post("http://"+rpcAddr+path, "application/octet-stream", bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	return io.ReadAll(resp.Body)
}

// banEntry is one get_bans entry.
type banEntry struct {
	Host    string `json:"host"`
	IP      uint64 `json:"ip"`
	Seconds uint64 `json:"seconds"`
}

func getBans(t *testing.T, rpcAddr string) []banEntry {
	t.Helper()
	body, err := rpcFrom("127.0.0.1", rpcAddr, "/json_rpc", []byte(`{"jsonrpc":"2.0","id":0,"method":"get_bans"}`))
	if err != nil {
		t.Fatal(err)
	}
	var out struct {
		Result struct {
			Bans []banEntry `json:"bans"`
		} `json:"result"`
	}
	if err := json.Unmarshal(body, &out); err != nil {
		t.Fatalf("get_bans: %v: %s", err, body)
	}
	return out.Result.Bans
}

// gethashesFailing is a /gethashes.bin request the node cannot place (a
// chain without its genesis): status "Failed", one RPC fail for the client.
func gethashesFailing(t *testing.T) []byte {
	t.Helper()
	body, err := portable.Marshal(sectionOf{portable.Section{Entries: []portable.Entry{
		{Name: "block_ids", Value: portable.NewBlob(bytes.Repeat([]byte{7}, 32))}}}})
	if err != nil {
		t.Fatal(err)
	}
	return body
}

type sectionOf struct{ s portable.Section }

func (s sectionOf) ToSection() portable.Section { return s.s }

// banOutcome is what one node showed of the bans.
type banOutcome struct {
	Bans      []banEntry
	RPC       map[string]bool
	FailBans  int // failed gethashes.bin from 127.0.8.1 after which its next connection was refused
	FailState []string
}

// bansScenario: connections from banned hosts and subnets are closed at
// once on P2P and RPC; others are served; failed /gethashes.bin requests
// ban their client after the fourth (RPC_IP_FAILS_BEFORE_BLOCK 3).
func bansScenario(t *testing.T, p2pAddr, rpcAddr string) banOutcome {
	t.Helper()
	dialFrom(t, "127.0.6.1", p2pAddr).expectClosed("P2P from a banned host")
	dialFrom(t, "127.0.6.3", p2pAddr).expectClosed("P2P from a host banned with a port")
	dialFrom(t, "127.0.7.200", p2pAddr).expectClosed("P2P from a banned subnet")
	handshakeFrom(t, "127.0.6.2", p2pAddr, 0x6002).nc.Close()
	out := banOutcome{RPC: map[string]bool{}}
	for _, src := range []string{"127.0.6.1", "127.0.7.200", "127.0.6.2", "127.0.8.1"} {
		_, err := rpcFrom(src, rpcAddr, "/get_height", nil)
		out.RPC[src] = err == nil
	}
	for i := 1; i <= 6 && out.FailBans == 0; i++ {
		body, err := rpcFrom("127.0.8.1", rpcAddr, "/gethashes.bin", gethashesFailing(t))
		if err != nil {
			out.FailBans = i - 1
			break
		}
		status := "undecodable"
		if sec, err := portable.Decode(body); err == nil {
			status, _ = sec.GetString("status")
		}
		out.FailState = append(out.FailState, status)
	}
	out.Bans = getBans(t, rpcAddr)
	return out
}

// The same --ban-list file bans the same hosts and subnets in gonero and
// monerod 0.18.5.3, on P2P and RPC, and get_bans lists them alike; failed
// RPC requests ban their client after as many fails in both.
func TestBansMatchMonerod(t *testing.T) {
	lab := monerodlab.Require(t)
	path := filepath.Join(t.TempDir(), "bans.txt")
	if err := os.WriteFile(path, []byte(banListText), 0o600); err != nil {
		t.Fatal(err)
	}
	// Online for its P2P listener, dialing nowhere (127.0.0.1:1) rather than its seeds.
	m := lab.StartMonerodNet(t, "regtest", true, t.TempDir(), "--add-exclusive-node", "127.0.0.1:1", "--ban-list", path)
	theirs := bansScenario(t, "127.0.0.1:"+strconv.Itoa(m.P2PPort), "127.0.0.1:"+strconv.Itoa(m.RPCPort))

	tn := startTestNode(t, "", Config{BanListFile: path})
	ours := bansScenario(t, tn.p2pAddr(), startFilteredRPC(t, tn))
	// The seconds left differ by the time between the two runs.
	if len(ours.Bans) == len(theirs.Bans) {
		for i := range ours.Bans {
			if d := int64(ours.Bans[i].Seconds) - int64(theirs.Bans[i].Seconds); d >= -120 && d <= 120 {
				ours.Bans[i].Seconds = theirs.Bans[i].Seconds
			}
		}
	}
	if g, w := fmt.Sprintf("%+v", ours), fmt.Sprintf("%+v", theirs); g != w {
		t.Fatalf("bans differ\n gonero: %s\nmonerod: %s", g, w)
	}
	t.Logf("both: %+v", theirs)
	if theirs.FailBans == 0 || len(theirs.Bans) < 4 {
		t.Fatalf("the scenario banned too little: %+v", theirs)
	}
}

// startFilteredRPC serves tn's RPC with the node's bans as its
// connection filter, as gonerod wires it.
func startFilteredRPC(t *testing.T, tn *testNode) string { return startRPCWith(t, tn, false) }

func startRPCWith(t *testing.T, tn *testNode, disableRPCBan bool) string {
	t.Helper()
	srv, err := rpc.New(rpc.Config{Chain: tn.chain, Peers: tn, DataDir: tn.dir, Version: "test",
		Main: httpd.Config{Addr: "127.0.0.1:0", Allow: tn.node.RemoteHostAllowed}, Miner: miner.New(tn.chain, miner.Options{}),
		DisableRPCBan: disableRPCBan})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve() }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
		<-done
	})
	return srv.MainAddr()
}

// --disable-rpc-ban: failed requests never ban their client.
func TestDisableRPCBan(t *testing.T) {
	tn := startTestNode(t, "", Config{})
	addr := startRPCWith(t, tn, true)
	for i := range 8 {
		if _, err := rpcFrom("127.0.9.1", addr, "/gethashes.bin", gethashesFailing(t)); err != nil {
			t.Fatalf("failed request %d refused: %v", i+1, err)
		}
	}
	if bans := tn.node.Bans(time.Now()); len(bans) != 0 {
		t.Fatalf("bans %v", bans)
	}
}

// scoresScenario sends a node, each from its own loopback address, the
// misbehaviours whose fail scores differ from one to none: streams that
// are not levin (127.0.0.5) and levin headers announcing 100 MB
// (127.0.0.6), twelve connections each; ten handshakes from another
// network (127.0.0.7) and eleven (127.0.0.8); eleven connections sending a
// second handshake (127.0.0.9). It reports whether each host's next valid
// handshake was answered, and the hosts get_bans lists.
func scoresScenario(t *testing.T, p2pAddr, rpcAddr string) (served map[string]bool, banned []string, keptOpen bool) {
	t.Helper()
	// A peer of 127.0.0.8, handshaken before that host earns its ban.
	kept := handshakeFrom(t, "127.0.0.8", p2pAddr, 0x8008)
	for range 12 {
		p := dialFrom(t, "127.0.0.5", p2pAddr)
		_, _ = p.nc.Write(notLevin)
		p.expectClosed("a stream that is not levin")
		p = dialFrom(t, "127.0.0.6", p2pAddr)
		_, _ = p.nc.Write(hugeLevin())
		p.expectClosed("a 100 MB levin header")
	}
	for src, n := range map[string]int{"127.0.0.7": 10, "127.0.0.8": 11} {
		for range n {
			p := dialFrom(t, src, p2pAddr)
			p.sendPayload(levin.KindRequest, levin.CommandHandshake, wrongNetworkHandshake(0x7007))
			p.expectClosed("a handshake from another network")
		}
	}
	for i := range 11 {
		p := handshakeFrom(t, "127.0.0.9", p2pAddr, 0x9000+uint64(i))
		p.sendPayload(levin.KindRequest, levin.CommandHandshake, goodHandshake(0x9000+uint64(i)))
		p.expectClosed("a second handshake")
		p.nc.Close()
	}
	keptOpen = stillConnected(kept)
	kept.nc.Close()
	served = map[string]bool{}
	for i, src := range []string{"127.0.0.5", "127.0.0.6", "127.0.0.7", "127.0.0.8", "127.0.0.9"} {
		p := dialFrom(t, src, p2pAddr)
		p.sendPayload(levin.KindRequest, levin.CommandHandshake, goodHandshake(0x5000+uint64(i)))
		for {
			m, err := p.next()
			if err != nil {
				break
			}
			if m.Kind == levin.KindResponse && m.Command == levin.CommandHandshake {
				served[src] = m.ReturnCode == levin.ReturnSuccess
				break
			}
		}
		p.nc.Close()
	}
	for _, b := range getBans(t, rpcAddr) {
		banned = append(banned, b.Host)
	}
	slices.Sort(banned)
	return served, banned, keptOpen
}

// stillConnected: the node has not closed p's connection (it reads on,
// skipping what the node sends, until the 5 s read deadline).
func stillConnected(p *rawPeer) bool {
	for {
		_, err := p.next()
		if err == nil {
			continue
		}
		var ne net.Error
		return errors.As(err, &ne) && ne.Timeout()
	}
}

// Fail scores towards a P2P ban match monerod 0.18.5.3's: streams that are
// not levin, or levin too large, only close the connection (monerod's
// levin handler adds no fail), a second handshake on a connection is
// dropped without a fail, a handshake from another network scores one,
// and a host is banned once its fails exceed ten (the eleventh).
func TestFailScoresMatchMonerod(t *testing.T) {
	lab := monerodlab.Require(t)
	m := lab.StartMonerodNet(t, "regtest", true, t.TempDir(), "--add-exclusive-node", "127.0.0.1:1",
		"--max-connections-per-ip", "100")
	theirServed, theirBans, theirKept := scoresScenario(t, "127.0.0.1:"+strconv.Itoa(m.P2PPort), "127.0.0.1:"+strconv.Itoa(m.RPCPort))

	tn := startTestNode(t, "", Config{MaxConnectionsPerIP: 100})
	ourServed, ourBans, ourKept := scoresScenario(t, tn.p2pAddr(), startFilteredRPC(t, tn))
	t.Logf("monerod: served %v, banned %v, the banned host's earlier peer kept %v", theirServed, theirBans, theirKept)
	if !maps.Equal(ourServed, theirServed) || !slices.Equal(ourBans, theirBans) {
		t.Fatalf("scores differ\n gonero: served %v, banned %v\nmonerod: served %v, banned %v", ourServed, ourBans, theirServed, theirBans)
	}
	if ourKept != theirKept {
		t.Fatalf("the connection a host had before its ban: kept by gonero %v, by monerod %v", ourKept, theirKept)
	}
	// The scenario must show both sides of the threshold.
	if !slices.Contains(theirBans, "127.0.0.8") || slices.Contains(theirBans, "127.0.0.7") {
		t.Fatalf("monerod banned %v: the scenario no longer straddles its threshold", theirBans)
	}
}
