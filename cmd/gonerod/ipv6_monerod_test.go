package main

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gonero/gonero/internal/monerodlab"
)

// v6Call makes a JSON-RPC call to [::1]:port and decodes its result.
func v6Call(t *testing.T, port int, method string, result any) {
	t.Helper()
	c := &http.Client{Timeout: 30 * time.Second}
	resp, err := c.Post("http://[::1]:"+strconv.Itoa(port)+"/json_rpc", "application/json",
		bytes.NewReader([]byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":0,"method":%q}`, method))))
	if err != nil {
		t.Fatalf("%s over IPv6 RPC: %v", method, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if err := monerodlab.DecodeResult("node", method, body, result); err != nil {
		t.Fatal(err)
	}
}

// v6Conn is the part of a get_connections entry that describes the peer's
// address.
type v6Conn struct {
	Address     string `json:"address"`
	AddressType uint64 `json:"address_type"`
	Host        string `json:"host"`
	IP          string `json:"ip"`
	Port        string `json:"port"`
	Incoming    bool   `json:"incoming"`
	Localhost   bool   `json:"localhost"`
	LocalIP     bool   `json:"local_ip"`
	Height      uint64 `json:"height"`
}

// v6Connections asks get_connections over IPv6 RPC.
func v6Connections(t *testing.T, rpcPort int) []v6Conn {
	t.Helper()
	var out struct {
		Connections []v6Conn `json:"connections"`
	}
	v6Call(t, rpcPort, "get_connections", &out)
	return out.Connections
}

// sameV6Peer requires each node to list its one connection as the other
// over ::1, with monerod's field formats, and ports that match the other
// side's socket where it is the listening one.
func sameV6Peer(t *testing.T, gonerodRPC, monerodRPC int) {
	t.Helper()
	g, m := v6Connections(t, gonerodRPC), v6Connections(t, monerodRPC)
	if len(g) != 1 || len(m) != 1 {
		t.Fatalf("connections: gonerod %+v, monerod %+v; want one each", g, m)
	}
	gc, mc := g[0], m[0]
	t.Logf("gonerod lists %+v\nmonerod lists %+v", gc, mc)
	if gc.Incoming == mc.Incoming {
		t.Fatalf("both connections are incoming=%v: gonerod %+v, monerod %+v", gc.Incoming, gc, mc)
	}
	if gc.Address != "[::1]:"+gc.Port || mc.Address != "[::1]:"+mc.Port {
		t.Errorf("addresses: gonerod %q, monerod %q; want [::1]:port", gc.Address, mc.Address)
	}
	// Apart from the port and the direction, each lists the peer alike.
	gc.Address, mc.Address, gc.Port, mc.Port, gc.Incoming, mc.Incoming, gc.Height, mc.Height = "", "", "", "", false, false, 0, 0
	if gc != mc {
		t.Errorf("the ::1 peer listed differently\n gonerod: %+v\nmonerod: %+v", gc, mc)
	}
	if gc.AddressType != 2 || gc.Host != "::1" {
		t.Errorf("the peer is not an IPv6 ::1 one: %+v", gc)
	}
}

// getFrom asks rpcAddr's /get_height from the loopback address src; an
// error means the connection was refused.
func getFrom(src, rpcAddr string) error {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(src)}, Timeout: 5 * time.Second}
	c := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{DialContext: d.DialContext, DisableKeepAlives: true}}
	resp, err := c.Get("http://" + rpcAddr + "/get_height")
	if err != nil {
		return err
	}
	resp.Body.Close()
	return nil
}

// syncInfoPeer is sync_info's one peer's connection info.
func syncInfoPeer(t *testing.T, rpcPort int) v6Conn {
	t.Helper()
	var out struct {
		Peers []struct {
			Info v6Conn `json:"info"`
		} `json:"peers"`
	}
	v6Call(t, rpcPort, "sync_info", &out)
	if len(out.Peers) != 1 {
		t.Fatalf("sync_info peers: %+v", out.Peers)
	}
	return out.Peers[0].Info
}

// gonerod syncs monerod's chain over ::1 (P2P), answers and is asked over
// IPv6 RPC, and both list the ::1 connection alike (get_connections,
// sync_info). Both read the same --ban-list, and refuse its host's RPC
// connections (gonerod's filter as wired by the command).
func TestIPv6SyncFromMonerod(t *testing.T) {
	lab := monerodlab.Require(t)
	fresh := lab.FreshChain(t)
	bin := inProcess
	mP6, gP6, mR, gR := freePort(t), freePort(t), freePort(t), freePort(t)
	bans := filepath.Join(t.TempDir(), "bans.txt")
	if err := os.WriteFile(bans, []byte("127.0.0.5 # refused on RPC\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	m := lab.StartMonerod(t, fresh.NodeDir, "--online", "--p2p-use-ipv6", "--p2p-bind-ipv6-address", "::1",
		"--p2p-bind-port-ipv6", strconv.Itoa(mP6), "--rpc-use-ipv6", "--add-exclusive-node", "127.0.0.1:"+strconv.Itoa(freePort(t)),
		"--ban-list", bans, "--rpc-restricted-bind-port", strconv.Itoa(mR))
	want := monerodInfo(t, m)
	g := startGonerod(t, bin, t.TempDir(), "--p2p-use-ipv6", "--p2p-bind-ipv6-address", "::1",
		"--p2p-bind-port-ipv6", strconv.Itoa(gP6), "--rpc-use-ipv6", "--add-exclusive-node", "[::1]:"+strconv.Itoa(mP6),
		"--ban-list", bans, "--rpc-restricted-bind-port", strconv.Itoa(gR))
	for who, port := range map[string]int{"gonerod": g.rpcPort, "monerod": m.RPCPort} {
		addr := "127.0.0.1:" + strconv.Itoa(port)
		if err := getFrom("127.0.0.5", addr); err == nil {
			t.Errorf("%s answered a host its --ban-list bans", who)
		}
		if err := getFrom("127.0.0.6", addr); err != nil {
			t.Errorf("%s refused a host not banned: %v", who, err)
		}
	}
	waitFor(t, 60*time.Second, "gonerod to sync monerod's chain over ::1", func() bool {
		var info nodeInfo
		v6Call(t, g.rpcPort, "get_info", &info)
		return info.Height == want.Height && info.TopHash == want.TopHash
	})
	var mv6 nodeInfo
	v6Call(t, m.RPCPort, "get_info", &mv6) // monerod's IPv6 RPC, the reference of the form
	if mv6.TopHash != want.TopHash {
		t.Fatalf("monerod over IPv6 RPC: %+v", mv6)
	}
	// The restricted listeners answer on [::1] too (--rpc-restricted-bind-ipv6-address ::1).
	for who, port := range map[string]int{"gonerod": gR, "monerod": mR} {
		var info nodeInfo
		v6Call(t, port, "get_info", &info)
		if info.TopHash != want.TopHash {
			t.Errorf("%s's restricted listener over IPv6: %+v", who, info)
		}
	}
	sameV6Peer(t, g.rpcPort, m.RPCPort)
	gs, ms := syncInfoPeer(t, g.rpcPort), syncInfoPeer(t, m.RPCPort)
	gs.Port, ms.Port, gs.Incoming, ms.Incoming, gs.Height, ms.Height = "", "", false, false, 0, 0
	gs.Address, ms.Address = strings.Split(gs.Address, "]:")[0], strings.Split(ms.Address, "]:")[0]
	if gs != ms {
		t.Errorf("sync_info lists the ::1 peer differently\n gonerod: %+v\nmonerod: %+v", gs, ms)
	}
}

// monerod syncs gonerod's chain over ::1; gonerod runs on IPv6 alone (its
// IPv4 P2P address cannot be bound: --p2p-ignore-ipv4).
func TestMonerodSyncsFromGonerodOverIPv6(t *testing.T) {
	lab := monerodlab.Require(t)
	fresh := lab.FreshChain(t)
	bin := inProcess
	data := importChain(t, bin, fresh)
	gP6, mP6 := freePort(t), freePort(t)
	// 192.0.2.1 (TEST-NET-1) is on no interface of the namespace: the IPv4
	// bind fails and --p2p-ignore-ipv4 lets gonerod go on with IPv6.
	g := startGonerod(t, bin, data, "--p2p-bind-ip", "192.0.2.1", "--p2p-ignore-ipv4", "--p2p-use-ipv6",
		"--p2p-bind-ipv6-address", "::1", "--p2p-bind-port-ipv6", strconv.Itoa(gP6), "--rpc-use-ipv6")
	m := lab.StartMonerod(t, "", "--online", "--p2p-use-ipv6", "--p2p-bind-ipv6-address", "::1",
		"--p2p-bind-port-ipv6", strconv.Itoa(mP6), "--rpc-use-ipv6", "--add-exclusive-node", "[::1]:"+strconv.Itoa(gP6))
	// monerod takes ~20 blocks per 2 s here (its own pace, the same over
	// IPv4: TestMonerodSyncsFromGonero in p2p syncs the whole chain), so
	// the test waits for the first 40 blocks past genesis and
	// compares the last one's id: they came over ::1.
	const synced = 41
	start := time.Now()
	waitFor(t, 80*time.Second, "monerod to sync 40 blocks from gonerod over ::1", func() bool {
		return monerodInfo(t, m).Height >= synced
	})
	t.Logf("monerod synced %d blocks in %v", synced, time.Since(start))
	type header struct {
		BlockHeader struct {
			Hash string `json:"hash"`
		} `json:"block_header"`
	}
	var mh, gh header
	if err := m.Call("getblockheaderbyheight", map[string]any{"height": synced - 1}, &mh); err != nil {
		t.Fatal(err)
	}
	if err := g.call("getblockheaderbyheight", map[string]any{"height": synced - 1}, &gh); err != nil {
		t.Fatal(err)
	}
	if mh.BlockHeader.Hash == "" || mh.BlockHeader.Hash != gh.BlockHeader.Hash {
		t.Fatalf("block %d: monerod %q, gonerod %q", synced-1, mh.BlockHeader.Hash, gh.BlockHeader.Hash)
	}
	sameV6Peer(t, g.rpcPort, m.RPCPort)
	if log, _ := os.ReadFile(g.logPath); !strings.Contains(string(log), "failed to bind IPv4") {
		t.Errorf("gonerod did not say its IPv4 bind failed")
	}
}
