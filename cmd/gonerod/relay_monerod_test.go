package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gonero/gonero/consensus"
	"github.com/gonero/gonero/internal/monerodlab"
)

// The full node's "done when", through the real binary and its wiring
// (pool, P2P, RPC and miner as cmd/gonerod connects them): on a fresh regtest
// chain, a wallet's transaction sent to gonerod's /sendrawtransaction
// reaches monerod's pool, gonerod mines it (reward = base reward + fee) and
// monerod accepts that block; a transaction sent to monerod reaches
// gonerod's pool, monerod mines it and gonerod accepts the block. Along the
// way /sendrawtransaction answers are compared with monerod's, field by
// field: a new transaction, the same one again, and do_not_relay.
func TestRelayAndMineWithMonerod(t *testing.T) {
	lab := monerodlab.Require(t)
	fresh := lab.FreshChain(t)
	began := time.Now()
	step := func(format string, args ...any) {
		t.Helper()
		t.Logf("%6.2fs  %s", time.Since(began).Seconds(), fmt.Sprintf(format, args...))
	}

	// gonerod on the fresh chain, imported through the binary.
	bin := inProcess
	data := importChain(t, bin, fresh)
	g := startGonerod(t, bin, data)
	step("gonerod running (p2p %d, rpc %d)", g.p2pPort, g.rpcPort)

	// monerod dials gonerod: for monerod an outgoing connection is a
	// Dandelion++ stem candidate, so what it relays reaches gonerod in the
	// stem phase (or fluffed, in a fluff epoch).
	m := lab.StartMonerod(t, fresh.NodeDir, "--online", "--add-exclusive-node", "127.0.0.1:"+strconv.Itoa(g.p2pPort))
	waitFor(t, 60*time.Second, "both nodes synchronized at the same top", func() bool {
		gi, mi := g.info(t), monerodInfo(t, m)
		return gi.Synchronized && mi.Synchronized && gi.Height == mi.Height && gi.TopHash == mi.TopHash &&
			gi.Incoming == 1 && mi.Outgoing == 1
	})
	step("synchronized at height %d", g.info(t).Height)

	w := lab.OpenWallet(t, fresh, "alice", m.RPCPort)
	var addr struct {
		Address string `json:"address"`
	}
	if err := w.Call("get_address", map[string]any{"account_index": 0}, &addr); err != nil {
		t.Fatal(err)
	}
	// makeTx has the wallet build and sign a transfer without relaying it.
	makeTx := func(subaddr uint32) walletTx {
		t.Helper()
		if err := w.Call("refresh", struct{}{}, nil); err != nil {
			t.Fatal(err)
		}
		var tx walletTx
		if err := w.Call("transfer", map[string]any{"destinations": []map[string]any{{"amount": 1_000_000_000_000, "address": addr.Address}},
			"account_index": 0, "subaddr_indices": []uint32{subaddr}, "priority": 0, "do_not_relay": true, "get_tx_hex": true}, &tx); err != nil {
			t.Fatal(err)
		}
		return tx
	}

	var gen struct {
		Blocks []string `json:"blocks"`
		Height uint64   `json:"height"`
	}

	// 1. A transaction sent to monerod reaches gonerod's pool. This comes
	// first, while monerod still counts gonerod at its own height (it learns
	// a peer's height from handshakes and timed syncs only, and stems only
	// to outgoing peers at least as high as itself): so monerod relays it in
	// the Dandelion++ stem phase, unless its epoch is a fluff one (20%).
	b := makeTx(0)
	step("wallet made tx B %s (fee %d)", b.Hash, b.Fee)
	sent := time.Now()
	answerB := monerodSendRawTx(t, m, b.Hex, false)
	if answerB["status"] != "OK" || answerB["not_relayed"] != false {
		t.Fatalf("monerod's sendrawtransaction of B: %v", answerB)
	}
	waitFor(t, 90*time.Second, "B in gonerod's pool", func() bool { return slices.Contains(poolHashes(t, g.post), b.Hash) })
	step("B: monerod answered OK; in gonerod's pool after %v, received %s", time.Since(sent).Round(time.Millisecond), g.receivedAs(t))
	// gonerod has B from a peer: sending it again relays nothing.
	if again := g.sendRawTx(t, b.Hex, false); again["status"] != "OK" || again["not_relayed"] != true || again["reason"] != "Not relayed" {
		t.Fatalf("gonerod's answer to B sent again: %v", again)
	}

	// 2. monerod mines B; gonerod accepts the block, verified.
	before := g.info(t)
	if err := m.Call("generateblocks", map[string]any{"amount_of_blocks": 1, "wallet_address": addr.Address}, &gen); err != nil {
		t.Fatal(err)
	}
	mined := time.Now()
	waitFor(t, 10*time.Second, "gonerod to accept monerod's block", func() bool {
		gi := g.info(t)
		return gi.Height == before.Height+1 && gi.TopHash == gen.Blocks[0]
	})
	step("monerod mined block %d; gonerod's top after %v", before.Height, time.Since(mined).Round(time.Millisecond))
	if blk := g.block(t, before.Height); !slices.Equal(blk.TxHashes, []string{b.Hash}) {
		t.Fatalf("monerod's block has txs %v, want B %s", blk.TxHashes, b.Hash)
	}
	waitFor(t, 10*time.Second, "both pools to empty", func() bool {
		return len(poolHashes(t, m.Post)) == 0 && len(poolHashes(t, g.post)) == 0
	})
	if mi, gi := monerodInfo(t, m), g.info(t); mi.TxCount != gi.TxCount || gi.TxCount != before.TxCount+1 {
		t.Fatalf("tx_count: monerod %d, gonerod %d, want %d", mi.TxCount, gi.TxCount, before.TxCount+1)
	}

	// 3. A transaction sent to gonerod reaches monerod's pool.
	a := makeTx(0)
	step("wallet made tx A %s (fee %d)", a.Hash, a.Fee)
	sent = time.Now()
	answerA := g.sendRawTx(t, a.Hex, false)
	compareAnswers(t, "a new transaction (B to monerod, A to gonerod)", answerA, answerB)
	waitFor(t, 10*time.Second, "A in monerod's pool", func() bool { return slices.Contains(poolHashes(t, m.Post), a.Hash) })
	step("A: gonerod answered OK; in monerod's pool after %v", time.Since(sent).Round(time.Millisecond))
	if got := poolHashes(t, g.post); !slices.Equal(got, []string{a.Hash}) {
		t.Fatalf("gonerod's pool: %v, want A", got)
	}
	// The same transaction again: both nodes have it, relayed (gonerod
	// sent it to monerod, which received it fluffed).
	compareAnswers(t, "A sent again", g.sendRawTx(t, a.Hex, false), monerodSendRawTx(t, m, a.Hex, false))

	// 4. gonerod mines A; monerod accepts the block.
	before = g.info(t)
	if err := g.call("generateblocks", map[string]any{"amount_of_blocks": 1, "wallet_address": addr.Address}, &gen); err != nil {
		t.Fatal(err)
	}
	mined = time.Now()
	waitFor(t, 10*time.Second, "monerod to accept gonerod's block", func() bool {
		mi := monerodInfo(t, m)
		return mi.Height == before.Height+1 && mi.TopHash == gen.Blocks[0]
	})
	step("gonerod mined block %d; monerod's top after %v", before.Height, time.Since(mined).Round(time.Millisecond))
	blk := g.block(t, before.Height)
	if !slices.Equal(blk.TxHashes, []string{a.Hash}) {
		t.Fatalf("gonerod's block %s has txs %v, want A %s", gen.Blocks, blk.TxHashes, a.Hash)
	}
	// The base reward follows from the coins monerod counts as generated
	// before this block.
	var sum struct {
		Emission uint64 `json:"emission_amount"`
		Top64    uint64 `json:"emission_amount_top64"`
	}
	if err := m.Call("get_coinbase_tx_sum", map[string]any{"height": 0, "count": before.Height}, &sum); err != nil || sum.Top64 != 0 {
		t.Fatalf("get_coinbase_tx_sum: %v %+v", err, sum)
	}
	base := consensus.BaseReward(sum.Emission, blk.Header.MajorVersion)
	if blk.Header.Reward != base+a.Fee {
		t.Fatalf("reward %d, want base %d + fee %d = %d", blk.Header.Reward, base, a.Fee, base+a.Fee)
	}
	step("block %d: reward %d = base %d + fee %d", before.Height, blk.Header.Reward, base, a.Fee)
	waitFor(t, 10*time.Second, "both pools to empty", func() bool {
		return len(poolHashes(t, m.Post)) == 0 && len(poolHashes(t, g.post)) == 0
	})
	if mi, gi := monerodInfo(t, m), g.info(t); mi.TxCount != gi.TxCount || gi.TxCount != before.TxCount+1 {
		t.Fatalf("tx_count: monerod %d, gonerod %d, want %d", mi.TxCount, gi.TxCount, before.TxCount+1)
	}

	// 5. do_not_relay: C goes to both nodes so; D only to gonerod, and
	// then normally to monerod, which must not have had it (gonerod's
	// relay would have been queued before its answer). C and D spend from
	// different subaddresses, so they cannot share an input.
	c, d := makeTx(0), makeTx(1)
	compareAnswers(t, "do_not_relay", g.sendRawTx(t, c.Hex, true), monerodSendRawTx(t, m, c.Hex, true))
	if got := g.sendRawTx(t, d.Hex, true); got["not_relayed"] != true {
		t.Fatalf("gonerod's answer to D with do_not_relay: %v", got)
	}
	compareAnswers(t, "D: do_not_relay kept it from monerod", answerA, monerodSendRawTx(t, m, d.Hex, false))
	waitFor(t, 10*time.Second, "both pools to hold C and D", func() bool {
		want := []string{c.Hash, d.Hash}
		slices.Sort(want)
		gp, mp := poolHashes(t, g.post), poolHashes(t, m.Post)
		slices.Sort(gp)
		slices.Sort(mp)
		return slices.Equal(gp, want) && slices.Equal(mp, want)
	})
	step("do_not_relay answers agree; C and D in both pools")
}

// walletTx is monero-wallet-rpc's transfer answer.
type walletTx struct {
	Hash string `json:"tx_hash"`
	Hex  string `json:"tx_blob"`
	Fee  uint64 `json:"fee"`
}

// nodeInfo is the part of get_info the test reads (both nodes).
type nodeInfo struct {
	Height       uint64 `json:"height"`
	TopHash      string `json:"top_block_hash"`
	Synchronized bool   `json:"synchronized"`
	Incoming     uint64 `json:"incoming_connections_count"`
	Outgoing     uint64 `json:"outgoing_connections_count"`
	TxCount      uint64 `json:"tx_count"`
}

func monerodInfo(t *testing.T, m *monerodlab.Monerod) nodeInfo {
	t.Helper()
	var info nodeInfo
	if err := m.Call("get_info", struct{}{}, &info); err != nil {
		t.Fatal(err)
	}
	return info
}

// gonerod is the binary running as a child of the test.
type gonerod struct {
	rpcPort, p2pPort int
	logPath          string
	client           *http.Client
}

func startGonerod(t *testing.T, bin, data string, extra ...string) *gonerod {
	t.Helper()
	return startGonerodClient(t, &http.Client{Timeout: 30 * time.Second}, bin, data, extra...)
}

// rpcClientFrom is an RPC client whose connections come from src, a
// loopback address other than the peers' 127.0.0.1: a node that bans a
// peer refuses its host's RPC connections too, as monerod does.
func rpcClientFrom(src string) *http.Client {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(src)}, Timeout: 5 * time.Second}
	return &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{DialContext: d.DialContext}}
}

// startGonerodClient is startGonerod with the test's RPC client given.
func startGonerodClient(t *testing.T, client *http.Client, bin, data string, extra ...string) *gonerod {
	t.Helper()
	g := &gonerod{rpcPort: freePort(t), p2pPort: freePort(t), client: client}
	launchGonerod(t, g, bin, append([]string{"--regtest", "--fixed-difficulty", "1", "--data-dir", data, "--log-level", "debug",
		"--rpc-bind-port", strconv.Itoa(g.rpcPort), "--p2p-bind-ip", "127.0.0.1", "--p2p-bind-port", strconv.Itoa(g.p2pPort)}, extra...))
	waitFor(t, 30*time.Second, "gonerod's RPC", func() bool {
		_, err := g.post("/get_height", nil)
		return err == nil
	})
	return g
}

// receivedAs says from gonerod's log how the last transactions a peer
// sent it came: in the Dandelion++ stem phase or fluffed.
func (g *gonerod) receivedAs(t *testing.T) string {
	t.Helper()
	log, err := os.ReadFile(g.logPath)
	if err != nil {
		t.Fatal(err)
	}
	last := ""
	for _, line := range strings.Split(string(log), "\n") {
		if strings.Contains(line, `msg="new transactions from peer"`) {
			last = line
		}
	}
	switch {
	case last == "":
		return "(not logged)"
	case strings.Contains(last, "stem=true"):
		return "in the Dandelion++ stem phase"
	default:
		return "fluffed"
	}
}

func (g *gonerod) post(path string, body []byte) ([]byte, error) {
	resp, err := g.client.Post("http://127.0.0.1:"+strconv.Itoa(g.rpcPort)+path, "application/json", bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	return io.ReadAll(resp.Body)
}

func (g *gonerod) call(method string, params, result any) error {
	req, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": "0", "method": method, "params": params})
	body, err := g.post("/json_rpc", req)
	if err != nil {
		return err
	}
	return monerodlab.DecodeResult("gonerod", method, body, result)
}

func (g *gonerod) info(t *testing.T) nodeInfo {
	t.Helper()
	var info nodeInfo
	if err := g.call("get_info", struct{}{}, &info); err != nil {
		t.Fatal(err)
	}
	return info
}

// minedBlock is the part of getblock the test reads.
type minedBlock struct {
	Header struct {
		Hash         string `json:"hash"`
		MajorVersion uint8  `json:"major_version"`
		Reward       uint64 `json:"reward"`
	} `json:"block_header"`
	TxHashes []string `json:"tx_hashes"`
}

func (g *gonerod) block(t *testing.T, height uint64) minedBlock {
	t.Helper()
	var b minedBlock
	if err := g.call("getblock", map[string]any{"height": height}, &b); err != nil {
		t.Fatal(err)
	}
	return b
}

func (g *gonerod) sendRawTx(t *testing.T, hex string, doNotRelay bool) map[string]any {
	t.Helper()
	return sendRawTx(t, g.post, hex, doNotRelay)
}

func monerodSendRawTx(t *testing.T, m *monerodlab.Monerod, hex string, doNotRelay bool) map[string]any {
	t.Helper()
	return sendRawTx(t, m.Post, hex, doNotRelay)
}

func sendRawTx(t *testing.T, post func(string, []byte) ([]byte, error), hex string, doNotRelay bool) map[string]any {
	t.Helper()
	req, _ := json.Marshal(map[string]any{"tx_as_hex": hex, "do_not_relay": doNotRelay})
	body, err := post("/sendrawtransaction", req)
	if err != nil {
		t.Fatal(err)
	}
	var answer map[string]any
	if err := json.Unmarshal(body, &answer); err != nil {
		t.Fatalf("sendrawtransaction: %q: %v", body, err)
	}
	return answer
}

// compareAnswers requires the same members with the same values.
func compareAnswers(t *testing.T, what string, ours, theirs map[string]any) {
	t.Helper()
	var diffs []string
	for k, v := range theirs {
		if w, ok := ours[k]; !ok {
			diffs = append(diffs, fmt.Sprintf("%s: gonerod has none, monerod %v", k, v))
		} else if fmt.Sprint(w) != fmt.Sprint(v) {
			diffs = append(diffs, fmt.Sprintf("%s: gonerod %v, monerod %v", k, w, v))
		}
	}
	for k, v := range ours {
		if _, ok := theirs[k]; !ok {
			diffs = append(diffs, fmt.Sprintf("%s: gonerod %v, monerod has none", k, v))
		}
	}
	if len(diffs) > 0 {
		slices.Sort(diffs)
		t.Fatalf("sendrawtransaction, %s: answers differ:\n  %s", what, strings.Join(diffs, "\n  "))
	}
	t.Logf("sendrawtransaction, %s: same answer (status %v, reason %q, not_relayed %v)", what, ours["status"], ours["reason"], ours["not_relayed"])
}

// poolHashes lists a node's pool through /get_transaction_pool_hashes.
func poolHashes(t *testing.T, post func(string, []byte) ([]byte, error)) []string {
	t.Helper()
	body, err := post("/get_transaction_pool_hashes", []byte(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	var r struct {
		Status string   `json:"status"`
		Hashes []string `json:"tx_hashes"`
	}
	if err := json.Unmarshal(body, &r); err != nil || r.Status != "OK" {
		t.Fatalf("get_transaction_pool_hashes: %q: %v", body, err)
	}
	return r.Hashes
}

// waitFor polls cond until it holds or the timeout passes.
func waitFor(t *testing.T, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", timeout, what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
