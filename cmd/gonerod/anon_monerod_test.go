package main

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base32"
	"encoding/json"
	"fmt"
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

// zoneConns lists a node's connections of one address type (3 I2P, 4
// Tor) from get_connections, or from sync_info's peers with fromSyncInfo.
func zoneConns(t *testing.T, call func(string, any, any) error, addrType uint64, fromSyncInfo bool) []zoneConn {
	t.Helper()
	var all []zoneConn
	if fromSyncInfo {
		var r struct {
			Peers []struct {
				Info zoneConn `json:"info"`
			} `json:"peers"`
		}
		if err := call("sync_info", struct{}{}, &r); err != nil {
			t.Fatal(err)
		}
		for _, p := range r.Peers {
			all = append(all, p.Info)
		}
	} else {
		var r struct {
			Connections []zoneConn `json:"connections"`
		}
		if err := call("get_connections", struct{}{}, &r); err != nil {
			t.Fatal(err)
		}
		all = r.Connections
	}
	var out []zoneConn
	for _, c := range all {
		if c.AddressType == addrType {
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

func zonePeers(t *testing.T, post func(string, []byte) ([]byte, error), publicOnly bool) []zonePeer {
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
		if strings.Contains(p.Host, ".onion") || strings.Contains(p.Host, ".i2p") {
			out = append(out, p)
		}
	}
	slices.SortFunc(out, func(a, b zonePeer) int { return strings.Compare(a.Host, b.Host) })
	return out
}

func hasTx(t *testing.T, post func(string, []byte) ([]byte, error), hash string) bool {
	return slices.Contains(poolHashes(t, post), hash)
}

// The Tor and I2P zones against monerod 0.18.5.3, both ways, every hop on
// loopback through a test SOCKS proxy that maps two .onion and two .b32.i2p
// names to local ports:
// gonerod (--tx-proxy, --anonymous-inbound) and monerod A (the same flags)
// each dial the other's hidden service; monerod B is gonerod's clearnet
// peer. A transaction sent to gonerod reaches A over an anonymity zone and
// not B; one sent to A reaches gonerod the same way, which relays it to B;
// B then has the first only once gonerod mines both. Both nodes show their
// zones' connections (get_connections, sync_info) and peers as monerod does.
func TestAnonymityZonesWithMonerod(t *testing.T) {
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
	i2p := func() string {
		var b [32]byte
		_, _ = rand.Read(b[:])
		return strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(b[:])) + ".b32.i2p"
	}
	onionA, onionG, i2pA, i2pG := onion(), onion(), i2p(), i2p()
	portA, portG, i2pPortA, i2pPortG := freePort(t), freePort(t), freePort(t), freePort(t)
	proxy.Route(onionA, "127.0.0.1:"+strconv.Itoa(portA))
	proxy.Route(onionG, "127.0.0.1:"+strconv.Itoa(portG))
	proxy.Route(i2pA, "127.0.0.1:"+strconv.Itoa(i2pPortA))
	proxy.Route(i2pG, "127.0.0.1:"+strconv.Itoa(i2pPortG))
	// gonerod sends with noise (the default) in both zones; monerod A with
	// noise over Tor and without over I2P, which it then picks for its
	// transaction (a noise zone needs both channels connected to be
	// preferred): each side's transaction reaches the other quickly,
	// monerod reads gonerod's covert buckets, and gonerod monerod's noise.
	gonerodProxy := proxy.Addr()

	bin := inProcess
	data := importChain(t, bin, fresh)
	g := startGonerod(t, bin, data, "--tx-proxy", "tor,"+gonerodProxy, "--tx-proxy", "i2p,"+gonerodProxy,
		"--add-priority-node", onionA+":18083", "--add-priority-node", i2pA,
		"--anonymous-inbound", onionG+":18083,127.0.0.1:"+strconv.Itoa(portG),
		"--anonymous-inbound", i2pG+",127.0.0.1:"+strconv.Itoa(i2pPortG))
	a := lab.StartMonerod(t, fresh.NodeDir, "--online", "--tx-proxy", "tor,"+proxy.Addr(), "--tx-proxy", "i2p,"+proxy.Addr()+",disable_noise",
		"--add-priority-node", onionG+":18083", "--add-priority-node", i2pG,
		"--anonymous-inbound", onionA+":18083,127.0.0.1:"+strconv.Itoa(portA),
		"--anonymous-inbound", i2pA+",127.0.0.1:"+strconv.Itoa(i2pPortA))
	b := lab.StartMonerod(t, fresh.NodeDir, "--online", "--add-exclusive-node", "127.0.0.1:"+strconv.Itoa(g.p2pPort))
	up := func(call func(string, any, any) error, addrType uint64) bool {
		cs := zoneConns(t, call, addrType, false)
		return len(cs) == 2 && cs[0].State == "normal" && cs[1].State == "normal"
	}
	waitFor(t, 60*time.Second, "gonerod and monerod A connected both ways over Tor and I2P, B on clearnet", func() bool {
		return up(g.call, 4) && up(a.Call, 4) && up(g.call, 3) && up(a.Call, 3) &&
			g.info(t).Synchronized && monerodInfo(t, b).Outgoing == 1
	})
	step("Tor and I2P connections up both ways; B connected on clearnet")

	// get_connections and sync_info: the same fields on both sides (the
	// other node's address aside).
	for _, z := range []struct {
		addrType   uint64
		toA, toG   string
		hostA      string
		hostG      string
		unknownFor string
	}{{4, onionA + ":18083", onionG + ":18083", onionA, onionG, "<unknown tor host>"},
		{3, i2pA, i2pG, i2pA, i2pG, "<unknown i2p host>"}} {
		gc, ac := zoneConns(t, g.call, z.addrType, false), zoneConns(t, a.Call, z.addrType, false)
		if !slices.Equal(gc, zoneConns(t, g.call, z.addrType, true)) || !slices.Equal(ac, zoneConns(t, a.Call, z.addrType, true)) {
			t.Errorf("type %d: sync_info's peers differ from get_connections", z.addrType)
		}
		if gc[0].Address != z.unknownFor || gc[1].Address != z.toA || gc[1].Host != z.hostA || ac[1].Address != z.toG || ac[1].Host != z.hostG {
			t.Fatalf("type %d connections: gonerod %+v, monerod %+v", z.addrType, gc, ac)
		}
		gc[1].Address, gc[1].Host = ac[1].Address, ac[1].Host
		if !slices.Equal(gc, ac) {
			t.Errorf("get_connections, type %d: gonerod %+v, monerod %+v", z.addrType, gc, ac)
		}
		step("get_connections agree (type %d): %+v", z.addrType, ac)
	}
	// get_peer_list: each lists the other's hidden services, in the zones'
	// white lists (public_only false), and none of them by default.
	gp, ap := zonePeers(t, g.post, false), zonePeers(t, a.Post, false)
	wantG, wantA := []string{onionA + ":18083", i2pA}, []string{onionG + ":18083", i2pG}
	slices.Sort(wantG)
	slices.Sort(wantA)
	if len(gp) != 2 || len(ap) != 2 {
		t.Fatalf("zone white lists: gonerod %+v, monerod %+v", gp, ap)
	}
	for i := range gp {
		if gp[i].Host != wantG[i] || ap[i].Host != wantA[i] || gp[i].LastSeen == 0 || ap[i].LastSeen == 0 {
			t.Fatalf("zone white lists: gonerod %+v, monerod %+v", gp, ap)
		}
		gp[i].Host, gp[i].LastSeen, ap[i].Host, ap[i].LastSeen = "", 0, "", 0
		if gp[i] != ap[i] {
			t.Fatalf("zone white list entries: gonerod %+v, monerod %+v", gp[i], ap[i])
		}
	}
	if len(zonePeers(t, g.post, true)) != 0 || len(zonePeers(t, a.Post, true)) != 0 {
		t.Fatal("public_only peer lists show zone peers")
	}
	step("get_peer_list agree: %+v", zonePeers(t, a.Post, false))

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

	// T1 to gonerod: over a zone to A (in a noise channel's next buckets, 10
	// to 15 s apart), not to B.
	if r := g.sendRawTx(t, t1.Hex, false); r["status"] != "OK" || r["not_relayed"] != false {
		t.Fatalf("gonerod's sendrawtransaction of T1: %v", r)
	}
	waitFor(t, 45*time.Second, "T1 in monerod A's pool, over a zone", func() bool { return hasTx(t, a.Post, t1.Hash) })
	step("T1 reached A over a zone")
	// T2 to A: over a zone to gonerod, which gets it fluffed and relays it to
	// B at once. B's connection carries gonerod's relays in order, so
	// with T2 in B's pool, B would have T1 had gonerod sent it there.
	if r := monerodSendRawTx(t, a, t2.Hex, false); r["status"] != "OK" {
		t.Fatalf("monerod A's sendrawtransaction of T2: %v", r)
	}
	waitFor(t, 30*time.Second, "T2 in gonerod's pool, over a zone", func() bool { return hasTx(t, g.post, t2.Hash) })
	step("T2 reached gonerod over a zone (%s)", g.receivedAs(t))
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

	// monerod A's noise over Tor reached gonerod's hidden service (3072-byte
	// buckets every 10 to 15 s), and the connection is still up.
	waitFor(t, 30*time.Second, "a noise bucket from monerod A over Tor", func() bool {
		var r struct {
			Connections []struct {
				AddressType uint64 `json:"address_type"`
				Incoming    bool   `json:"incoming"`
				RecvCount   uint64 `json:"recv_count"`
			} `json:"connections"`
		}
		if err := g.call("get_connections", struct{}{}, &r); err != nil {
			t.Fatal(err)
		}
		for _, c := range r.Connections {
			if c.AddressType == 4 && c.Incoming && c.RecvCount >= 3072 {
				return true
			}
		}
		return false
	})
	step("monerod's noise over Tor received by gonerod")
}
