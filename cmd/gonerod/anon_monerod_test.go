package main

import (
	"crypto/ed25519"
	"encoding/json"
	"fmt"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gonero/gonero/anonaddr"
	"github.com/gonero/gonero/internal/monerodlab"
	"github.com/gonero/gonero/internal/sockstest"
)

// zoneConn is the part of a get_connections entry that says where a
// connection goes, compared between gonerod and monerod.
type zoneConn struct {
	Address     string `json:"address"`
	AddressType uint64 `json:"address_type"`
	Host        string `json:"host"`
	IP          string `json:"ip"`
	Port        string `json:"port"`
	Incoming    bool   `json:"incoming"`
	PeerID      string `json:"peer_id"`
	Localhost   bool   `json:"localhost"`
	LocalIP     bool   `json:"local_ip"`
	RPCPort     uint64 `json:"rpc_port"`
	State       string `json:"state"`
}

func torConns(t *testing.T, call func(string, any, any) error) []zoneConn {
	t.Helper()
	var r struct {
		Connections []zoneConn `json:"connections"`
	}
	if err := call("get_connections", struct{}{}, &r); err != nil {
		t.Fatal(err)
	}
	var out []zoneConn
	for _, c := range r.Connections {
		if c.AddressType == 4 {
			out = append(out, c)
		}
	}
	// Incoming first: the one through the node's own hidden service.
	slices.SortStableFunc(out, func(a, b zoneConn) int {
		if a.Incoming == b.Incoming {
			return 0
		}
		if a.Incoming {
			return -1
		}
		return 1
	})
	return out
}

// zonePeer is a get_peer_list entry.
type zonePeer struct {
	Host     string `json:"host"`
	IP       uint64 `json:"ip"`
	Port     uint64 `json:"port"`
	ID       uint64 `json:"id"`
	LastSeen uint64 `json:"last_seen"`
}

func torPeers(t *testing.T, post func(string, []byte) ([]byte, error), publicOnly bool) []zonePeer {
	t.Helper()
	body, err := post("/get_peer_list", []byte(`{"public_only":`+strconv.FormatBool(publicOnly)+`}`))
	if err != nil {
		t.Fatal(err)
	}
	var r struct {
		White []zonePeer `json:"white_list"`
	}
	if err := json.Unmarshal(body, &r); err != nil {
		t.Fatalf("get_peer_list: %q: %v", body, err)
	}
	var out []zonePeer
	for _, p := range r.White {
		if strings.Contains(p.Host, ".onion") {
			out = append(out, p)
		}
	}
	return out
}

func hasTx(t *testing.T, post func(string, []byte) ([]byte, error), hash string) bool {
	return slices.Contains(poolHashes(t, post), hash)
}

// The Tor zone against monerod 0.18.5.3, both ways, every hop on loopback
// through a test SOCKS proxy that maps two .onion names to local ports:
// gonerod (--tx-proxy, --anonymous-inbound) and monerod A (the same flags)
// each dial the other's hidden service; monerod B is gonerod's clearnet
// peer. A transaction sent to gonerod reaches A over Tor and not B; one
// sent to A reaches gonerod over Tor, which relays it to B; B then has the
// first only once gonerod mines both. Both nodes show their Tor
// connections and peers as monerod does.
func TestTorZoneWithMonerod(t *testing.T) {
	lab := monerodlab.Require(t)
	fresh := lab.FreshChain(t)
	began := time.Now()
	step := func(format string, args ...any) {
		t.Helper()
		t.Logf("%6.2fs  %s", time.Since(began).Seconds(), fmt.Sprintf(format, args...))
	}
	proxy, err := sockstest.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(proxy.Close)
	onion := func() string {
		pub, _, err := ed25519.GenerateKey(nil)
		if err != nil {
			t.Fatal(err)
		}
		return anonaddr.OnionHost(pub)
	}
	onionA, onionG := onion(), onion()
	portA, portG := freePort(t), freePort(t)
	proxy.Route(onionA, "127.0.0.1:"+strconv.Itoa(portA))
	proxy.Route(onionG, "127.0.0.1:"+strconv.Itoa(portG))
	txProxy := "tor," + proxy.Addr() + ",disable_noise"

	bin := buildGonerod(t)
	data := t.TempDir()
	if out, err := exec.Command(bin, "import", "--regtest", "--fixed-difficulty", "1", "--data-dir", data,
		"--input-file", fresh.RawFile).CombinedOutput(); err != nil {
		t.Fatalf("import: %v\n%s", err, out)
	}
	g := startGonerod(t, bin, data, "--tx-proxy", txProxy, "--add-priority-node", onionA+":18083",
		"--anonymous-inbound", onionG+":18083,127.0.0.1:"+strconv.Itoa(portG))
	a := lab.StartMonerod(t, fresh.NodeDir, "--online", "--tx-proxy", txProxy, "--add-priority-node", onionG+":18083",
		"--anonymous-inbound", onionA+":18083,127.0.0.1:"+strconv.Itoa(portA))
	b := lab.StartMonerod(t, fresh.NodeDir, "--online", "--add-exclusive-node", "127.0.0.1:"+strconv.Itoa(g.p2pPort))
	waitFor(t, 60*time.Second, "gonerod and monerod A connected both ways over Tor, B on clearnet", func() bool {
		gc, ac := torConns(t, g.call), torConns(t, a.Call)
		return len(gc) == 2 && len(ac) == 2 && gc[0].State == "normal" && gc[1].State == "normal" &&
			ac[0].State == "normal" && ac[1].State == "normal" && g.info(t).Synchronized && monerodInfo(t, b).Outgoing == 1
	})
	step("Tor connections up both ways; B connected on clearnet")

	// get_connections: the same fields on both sides (the onion aside).
	gc, ac := torConns(t, g.call), torConns(t, a.Call)
	for i := range gc { // incoming ("<unknown tor host>") first
		gw, aw := gc[i], ac[i]
		if !gw.Incoming {
			if gw.Address != onionA+":18083" || aw.Address != onionG+":18083" {
				t.Fatalf("outgoing Tor connections: gonerod %s, monerod %s", gw.Address, aw.Address)
			}
			gw.Address, gw.Host = aw.Address, aw.Host
		}
		if gw != aw {
			t.Errorf("get_connections over Tor: gonerod %+v, monerod %+v", gc[i], ac[i])
		}
	}
	step("get_connections agree: %+v", ac)
	// get_peer_list: each lists the other's hidden service, in the zone's
	// white list (public_only false), and nothing of Tor by default.
	gp, ap := torPeers(t, g.post, false), torPeers(t, a.Post, false)
	if len(gp) != 1 || len(ap) != 1 || gp[0].Host != onionA+":18083" || ap[0].Host != onionG+":18083" ||
		gp[0].IP != 0 || gp[0].Port != 0 || ap[0].IP != 0 || ap[0].Port != 0 || gp[0].ID != ap[0].ID || gp[0].LastSeen == 0 {
		t.Fatalf("Tor white lists: gonerod %+v, monerod %+v", gp, ap)
	}
	if len(torPeers(t, g.post, true)) != 0 || len(torPeers(t, a.Post, true)) != 0 {
		t.Fatal("public_only peer lists show Tor peers")
	}
	step("get_peer_list agree: %+v", ap)

	w := lab.OpenWallet(t, fresh, "alice", b.RPCPort)
	var addr struct {
		Address string `json:"address"`
	}
	if err := w.Call("get_address", map[string]any{"account_index": 0}, &addr); err != nil {
		t.Fatal(err)
	}
	makeTx := func(subaddr uint32) walletTx {
		t.Helper()
		var tx walletTx
		if err := w.Call("transfer", map[string]any{"destinations": []map[string]any{{"amount": 1_000_000_000_000, "address": addr.Address}},
			"account_index": 0, "subaddr_indices": []uint32{subaddr}, "priority": 0, "do_not_relay": true, "get_tx_hex": true}, &tx); err != nil {
			t.Fatal(err)
		}
		return tx
	}
	if err := w.Call("refresh", struct{}{}, nil); err != nil {
		t.Fatal(err)
	}
	t1, t2 := makeTx(0), makeTx(1)
	step("wallet made T1 %s and T2 %s", t1.Hash, t2.Hash)

	// T1 to gonerod: over Tor to A, not to B.
	if r := g.sendRawTx(t, t1.Hex, false); r["status"] != "OK" || r["not_relayed"] != false {
		t.Fatalf("gonerod's sendrawtransaction of T1: %v", r)
	}
	waitFor(t, 30*time.Second, "T1 in monerod A's pool, over Tor", func() bool { return hasTx(t, a.Post, t1.Hash) })
	step("T1 reached A over Tor")
	// T2 to A: over Tor to gonerod, which gets it fluffed and relays it to
	// B at once. B's connection carries gonerod's relays in order, so
	// with T2 in B's pool, B would have T1 had gonerod sent it there.
	if r := monerodSendRawTx(t, a, t2.Hex, false); r["status"] != "OK" {
		t.Fatalf("monerod A's sendrawtransaction of T2: %v", r)
	}
	waitFor(t, 30*time.Second, "T2 in gonerod's pool, over Tor", func() bool { return hasTx(t, g.post, t2.Hash) })
	step("T2 reached gonerod over Tor (%s)", g.receivedAs(t))
	waitFor(t, 30*time.Second, "T2 in monerod B's pool, from gonerod", func() bool { return hasTx(t, b.Post, t2.Hash) })
	if hasTx(t, b.Post, t1.Hash) {
		t.Fatal("gonerod's own transaction T1 reached its clearnet peer B")
	}
	step("T2 relayed to B on clearnet; B has not got T1")

	// gonerod mines both; B accepts the block, and T1 with it.
	before := g.info(t)
	var gen struct {
		Blocks []string `json:"blocks"`
	}
	if err := g.call("generateblocks", map[string]any{"amount_of_blocks": 1, "wallet_address": addr.Address}, &gen); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 10*time.Second, "B to accept gonerod's block", func() bool {
		bi := monerodInfo(t, b)
		return bi.Height == before.Height+1 && bi.TopHash == gen.Blocks[0]
	})
	blk := g.block(t, before.Height)
	got := slices.Clone(blk.TxHashes)
	want := []string{t1.Hash, t2.Hash}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("gonerod's block has %v, want T1 and T2", blk.TxHashes)
	}
	waitFor(t, 10*time.Second, "gonerod's and B's pools to empty", func() bool {
		return len(poolHashes(t, g.post)) == 0 && len(poolHashes(t, b.Post)) == 0
	})
	step("gonerod mined T1 and T2; B accepted the block")
}
