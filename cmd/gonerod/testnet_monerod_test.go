package main

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/gonero/gonero/address"
	"github.com/gonero/gonero/consensus"
	"github.com/gonero/gonero/cryptonote"
	"github.com/gonero/gonero/internal/monerodlab"
	"github.com/gonero/gonero/internal/u128"
	"github.com/gonero/gonero/levin"
	"github.com/gonero/gonero/params"
	"github.com/gonero/gonero/portable"
)

// privateNetDifficulty is the fixed difficulty of the private chains: high
// enough that a wrong nonce fails CryptoNight v0 with probability 15/16.
const privateNetDifficulty = 16

// The acceptance test (docs/mainnet.md §7.4), a private testnet from
// genesis: monerod mines HF 1 blocks offline (major 1, CryptoNight v0 at
// difficulty 16, v1 coinbase with decomposed outputs), restarts online,
// and gonerod syncs the chain over P2P verifying every block including its
// proof of work; every getblock and getblockheaderbyheight answer and the
// get_info figures must then be the same bytes on both nodes. A peer that
// sends an HF 1 block with a wrong nonce is dropped and banned, the store
// unchanged, while the same block with a right nonce is accepted; and a
// fresh monerod syncs the whole chain back from gonerod alone. Stagenet
// runs the same sync on a shorter chain. About 40 s for testnet and 20 s
// for stagenet on a lightly loaded two-core machine; mining is most of it
// and grows with the load.
func TestPrivateNetworkFromGenesis(t *testing.T) {
	lab := monerodlab.Require(t)
	bin := inProcess
	for _, c := range []struct {
		net    params.Network
		blocks uint64
		full   bool // also the hostile peer and the sync back
	}{
		{params.Testnet, 20, true},
		{params.Stagenet, 5, false},
	} {
		t.Run(c.net.String(), func(t *testing.T) { privateNetwork(t, lab, bin, c.net, c.blocks, c.full) })
	}
}

func privateNetwork(t *testing.T, lab *monerodlab.Lab, bin string, network params.Network, blocks uint64, full bool) {
	began := time.Now()
	step := func(format string, args ...any) {
		t.Helper()
		t.Logf("%6.2fs  %s", time.Since(began).Seconds(), fmt.Sprintf(format, args...))
	}
	name := network.String()
	diff := strconv.Itoa(privateNetDifficulty)
	miner := networkAddress(t, network)

	// 1. monerod mines the chain offline.
	dirA := t.TempDir()
	a := lab.StartMonerodNet(t, name, false, dirA, "--fixed-difficulty", diff)
	var res struct {
		Status string `json:"status"`
	}
	if err := postJSON(a.Post, "/start_mining", map[string]any{"miner_address": miner, "threads_count": 2,
		"do_background_mining": false, "ignore_battery": true}, &res); err != nil || res.Status != "OK" {
		t.Fatalf("start_mining: %v %+v", err, res)
	}
	// 20 blocks take 20 s on an idle two-core machine, 110 s under a load
	// of 15; the bound is for a stuck miner, not a slow one.
	waitFor(t, 300*time.Second, fmt.Sprintf("monerod to mine %d blocks", blocks), func() bool {
		return monerodInfo(t, a).Height > blocks
	})
	if err := postJSON(a.Post, "/stop_mining", map[string]any{}, &res); err != nil || res.Status != "OK" {
		t.Fatalf("stop_mining: %v %+v", err, res)
	}
	// The next block's template, while monerod counts itself synchronized
	// (offline it does; online, with only a lower peer, it answers BUSY).
	var bad, good []byte
	if full {
		bad, good = hostileAndGoodBlock(t, a, miner)
	}
	a.Stop()
	step("monerod mined %s blocks 1..%d offline", name, blocks)

	// 2. monerod online, gonerod dials it (each names the other as its
	// exclusive node, so neither turns to seeds).
	gP2P := freePort(t)
	a = lab.StartMonerodNet(t, name, true, dirA, "--fixed-difficulty", diff, "--add-exclusive-node", "127.0.0.1:"+strconv.Itoa(gP2P))
	g := startGonerodArgs(t, bin, gP2P, "--"+name, "--fixed-difficulty", diff,
		"--add-exclusive-node", "127.0.0.1:"+strconv.Itoa(a.P2PPort))
	ai := monerodInfo(t, a)
	waitFor(t, 60*time.Second, "gonerod to sync monerod's chain", func() bool {
		gi := g.info(t)
		return gi.Height == ai.Height && gi.TopHash == ai.TopHash
	})
	step("gonerod synced %d blocks over P2P", ai.Height)
	sameChain(t, g, a.Post)
	sameInfo(t, g, a.Post, name)
	step("getblock, getblockheaderbyheight and get_info identical on both nodes")
	if !full {
		return
	}

	// 3. A hostile peer's block with a wrong nonce; then the same block
	// with a right one.
	hostilePeer(t, g, network, bad)
	step("a block with a wrong CryptoNight v0 nonce: peer dropped and banned, store unchanged")
	if err := g.call("submit_block", []string{hex.EncodeToString(good)}, nil); err != nil {
		t.Fatalf("the same block with a right nonce: %v", err)
	}
	if gi := g.info(t); gi.Height != ai.Height+1 {
		t.Fatalf("after submit_block of the block with a right nonce gonerod is at height %d, want %d", gi.Height, ai.Height+1)
	}
	// monerod would ignore its relay: having only served its chain it does
	// not count itself synchronized, and an unsynchronized monerod ignores
	// new blocks. The fresh monerod below verifies the block instead.
	step("the same block with a right nonce: accepted by gonerod")
	// The fresh monerod's only peer is gonerod (exclusive); the first one
	// stops meanwhile.
	go a.Stop()

	// 4. A fresh monerod syncs everything from gonerod.
	b := lab.StartMonerodNet(t, name, true, t.TempDir(), "--fixed-difficulty", diff, "--add-exclusive-node", "127.0.0.1:"+strconv.Itoa(gP2P))
	step("a fresh monerod started")
	gi := g.info(t)
	waitFor(t, 60*time.Second, "a fresh monerod to sync from gonerod", func() bool {
		bi := monerodInfo(t, b)
		return bi.Height == gi.Height && bi.TopHash == gi.TopHash
	})
	step("a fresh monerod synced %d blocks from gonerod", gi.Height)
	sameChain(t, g, b.Post)
	sameInfo(t, g, b.Post, name)
}

// networkAddress is alice's address (testdata/regtest) in the
// network's prefixes.
func networkAddress(t *testing.T, network params.Network) string {
	t.Helper()
	addr, err := address.Parse(monerodlab.AliceAddress)
	if err != nil {
		t.Fatal(err)
	}
	addr.Network = network
	return addr.String()
}

// postJSON posts a JSON body to a non-JSON-RPC path and decodes the answer.
func postJSON(post func(string, []byte) ([]byte, error), path string, body, into any) error {
	req, _ := json.Marshal(body)
	resp, err := post(path, req)
	if err != nil {
		return err
	}
	return json.Unmarshal(resp, into)
}

// startGonerodArgs runs the binary with args (no network defaults), its
// P2P listener on 127.0.0.1:p2pPort.
func startGonerodArgs(t *testing.T, bin string, p2pPort int, args ...string) *gonerod {
	t.Helper()
	g := &gonerod{rpcPort: freePort(t), p2pPort: p2pPort, client: &http.Client{Timeout: 30 * time.Second}}
	launchGonerod(t, g, bin, append([]string{"--data-dir", t.TempDir(), "--log-level", "debug", "--rpc-bind-port", strconv.Itoa(g.rpcPort),
		"--p2p-bind-ip", "127.0.0.1", "--p2p-bind-port", strconv.Itoa(p2pPort)}, args...))
	waitFor(t, 30*time.Second, "gonerod's RPC", func() bool {
		_, err := g.post("/get_height", nil)
		return err == nil
	})
	return g
}

// sameChain requires every getblockheaderbyheight and getblock answer (with
// and without fill_pow_hash), and getlastblockheader once monerod is synchronized, to be the same bytes from gonerod and from monerod.
func sameChain(t *testing.T, g *gonerod, monerod func(string, []byte) ([]byte, error)) {
	t.Helper()
	height := g.info(t).Height
	ask := func(method string, params string) {
		t.Helper()
		body := []byte(`{"jsonrpc":"2.0","id":"0","method":"` + method + `","params":` + params + `}`)
		theirs, err := monerod("/json_rpc", body)
		if err != nil {
			t.Fatal(err)
		}
		ours, err := g.post("/json_rpc", body)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(ours, theirs) {
			t.Fatalf("%s %s differs:\n gonerod: %s\n monerod: %s", method, params, ours, theirs)
		}
	}
	for h := uint64(0); h < height; h++ {
		ask("getblockheaderbyheight", fmt.Sprintf(`{"height":%d}`, h))
		ask("getblock", fmt.Sprintf(`{"height":%d}`, h))
		// fill_pow_hash: the CryptoNight hash of each block, computed by both nodes.
		ask("getblockheaderbyheight", fmt.Sprintf(`{"height":%d,"fill_pow_hash":true}`, h))
		ask("getblock", fmt.Sprintf(`{"height":%d,"fill_pow_hash":true}`, h))
	}
	// monerod answers getlastblockheader BUSY until it counts itself
	// synchronized (CHECK_CORE_READY), which a node that only served its
	// chain may not yet do.
	var info struct {
		Synchronized bool `json:"synchronized"`
	}
	if err := postJSON(monerod, "/get_info", map[string]any{}, &info); err != nil {
		t.Fatal(err)
	}
	if info.Synchronized {
		ask("getlastblockheader", `{}`)
	}
}

// sameInfo requires the get_info figures two nodes on one chain share.
func sameInfo(t *testing.T, g *gonerod, monerod func(string, []byte) ([]byte, error), nettype string) {
	t.Helper()
	get := func(post func(string, []byte) ([]byte, error)) map[string]any {
		var m map[string]any
		if err := postJSON(post, "/get_info", map[string]any{}, &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	ours, theirs := get(g.post), get(monerod)
	for _, k := range []string{"height", "top_block_hash", "difficulty", "wide_difficulty", "cumulative_difficulty",
		"wide_cumulative_difficulty", "nettype", "mainnet", "testnet", "stagenet", "target", "block_weight_limit",
		"block_weight_median", "block_size_limit", "block_size_median", "tx_count"} {
		if fmt.Sprint(ours[k]) != fmt.Sprint(theirs[k]) {
			t.Errorf("get_info %s: gonerod %v, monerod %v", k, ours[k], theirs[k])
		}
	}
	if theirs["nettype"] != nettype || fmt.Sprint(theirs["target"]) != "60" || fmt.Sprint(theirs["difficulty"]) != strconv.Itoa(privateNetDifficulty) {
		t.Errorf("monerod reports nettype %v target %v difficulty %v", theirs["nettype"], theirs["target"], theirs["difficulty"])
	}
}

// hostileAndGoodBlock takes monerod's block template for the next height
// and returns it with a nonce whose CryptoNight v0 hash misses the
// difficulty and with one that meets it.
func hostileAndGoodBlock(t *testing.T, m *monerodlab.Monerod, miner string) (bad, good []byte) {
	t.Helper()
	var tpl struct {
		Blob       string `json:"blocktemplate_blob"`
		Difficulty uint64 `json:"difficulty"`
		Height     uint64 `json:"height"`
	}
	if err := m.Call("get_block_template", map[string]any{"wallet_address": miner, "reserve_size": 0}, &tpl); err != nil {
		t.Fatal(err)
	}
	raw, err := hex.DecodeString(tpl.Blob)
	if err != nil {
		t.Fatal(err)
	}
	blk, err := cryptonote.ParseBlock(raw)
	if err != nil {
		t.Fatal(err)
	}
	if h := monerodInfo(t, m).Height; h != tpl.Height {
		t.Fatalf("template for height %d, but monerod's chain is %d blocks high (mining not stopped?)", tpl.Height, h)
	}
	if blk.MajorVersion != 1 || tpl.Difficulty != privateNetDifficulty {
		t.Fatalf("template: major %d difficulty %d; want an HF 1 block at %d", blk.MajorVersion, tpl.Difficulty, privateNetDifficulty)
	}
	var seed [32]byte
	for nonce := uint32(0); bad == nil || good == nil; nonce++ {
		blk.Nonce = nonce
		h, err := consensus.BlockPoWHash(nil, tpl.Height, blk.MajorVersion, seed, blk.HashingBlob())
		if err != nil {
			t.Fatal(err)
		}
		ok := consensus.CheckPoWHash(h, u128.From64(tpl.Difficulty))
		switch {
		case ok && good == nil:
			good = blk.Serialize()
		case !ok && bad == nil:
			bad = blk.Serialize()
		}
		if nonce > 2000 {
			t.Fatal("no nonce found in 2000 tries at difficulty 16")
		}
	}
	return bad, good
}

// hostilePeer connects to gonerod from 127.0.0.2 (so that the ban spares
// the honest nodes on 127.0.0.1), handshakes at gonerod's top and sends
// the bad block; gonerod must hang up, refuse that host afterwards, list
// it in get_bans and keep its chain.
func hostilePeer(t *testing.T, g *gonerod, network params.Network, bad []byte) {
	t.Helper()
	before := g.info(t)
	dial := func() (net.Conn, *levin.Reader) {
		d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 2)}, Timeout: 5 * time.Second}
		nc, err := d.Dial("tcp", "127.0.0.1:"+strconv.Itoa(g.p2pPort))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { nc.Close() })
		return nc, levin.NewReader(bufio.NewReader(nc), levin.MaxPacketSize)
	}
	send := func(nc net.Conn, kind levin.Kind, cmd uint32, p interface{ ToSection() portable.Section }) {
		body, err := portable.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := levin.WriteMessage(nc, levin.Message{Kind: kind, Command: cmd, Body: body}); err != nil {
			t.Fatal(err)
		}
	}
	// closed reads until the connection ends (true) or 10 s pass (false).
	closed := func(nc net.Conn, rd *levin.Reader) bool {
		_ = nc.SetReadDeadline(time.Now().Add(10 * time.Second))
		for {
			if _, err := rd.ReadMessage(); err != nil {
				var ne net.Error
				return !(errors.As(err, &ne) && ne.Timeout())
			}
		}
	}
	top, err := hex.DecodeString(before.TopHash)
	if err != nil {
		t.Fatal(err)
	}
	var b [8]byte
	_, _ = rand.Read(b[:])
	hs := portable.HandshakeRequest{
		NodeData: portable.NodeData{NetworkID: network.NetworkID(), PeerID: binary.LittleEndian.Uint64(b[:]), SupportFlags: 1},
		PayloadData: portable.CoreSyncData{CurrentHeight: before.Height, CumulativeDifficulty: 1 + (before.Height-1)*privateNetDifficulty,
			TopID: [32]byte(top), TopVersion: 1},
	}
	// A block failing proof of work scores its host 10 fails, monerod's
	// P2P_IP_FAILS_BEFORE_BLOCK: a ban once the fails exceed it, so the
	// first such block drops the peer and the second, from the same host,
	// bans it (as add_host_fail does).
	for attempt := 1; attempt <= 2; attempt++ {
		nc, rd := dial()
		send(nc, levin.KindRequest, levin.CommandHandshake, hs)
		_ = nc.SetReadDeadline(time.Now().Add(10 * time.Second))
		for {
			m, err := rd.ReadMessage()
			if err != nil {
				t.Fatalf("attempt %d: waiting for the handshake response: %v", attempt, err)
			}
			if m.Kind == levin.KindResponse && m.Command == levin.CommandHandshake {
				break
			}
		}
		send(nc, levin.KindNotification, levin.NotifyNewFluffyBlock, portable.NewBlock{
			Block: portable.BlockCompleteEntry{Block: bad}, CurrentBlockchainHeight: before.Height + 1})
		if !closed(nc, rd) {
			t.Fatalf("attempt %d: gonerod kept the connection of a peer that sent a block with a wrong proof of work", attempt)
		}
	}
	// Banned: a new connection from that host is closed unanswered.
	nc, rd := dial()
	send(nc, levin.KindRequest, levin.CommandHandshake, hs)
	if !closed(nc, rd) {
		t.Fatal("gonerod answered a host it should have banned")
	}
	var bans struct {
		Bans []struct {
			Host    string `json:"host"`
			Seconds uint64 `json:"seconds"`
		} `json:"bans"`
	}
	if err := g.call("get_bans", map[string]any{}, &bans); err != nil {
		t.Fatal(err)
	}
	if len(bans.Bans) != 1 || bans.Bans[0].Host != "127.0.0.2" || bans.Bans[0].Seconds == 0 {
		t.Errorf("get_bans: %+v; want 127.0.0.2 banned", bans.Bans)
	}
	if after := g.info(t); after.Height != before.Height || after.TopHash != before.TopHash {
		t.Fatalf("the store changed: height %d→%d, top %s→%s", before.Height, after.Height, before.TopHash, after.TopHash)
	}
}
