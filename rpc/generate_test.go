package rpc

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gonero/gonero/internal/monerodlab"
	"github.com/gonero/gonero/internal/u128"
	"github.com/gonero/gonero/params"
)

// startEmptyNode serves a new chain (genesis only) with the given fixed
// difficulty (0: the real algorithm); minerClock, if not nil, is the clock
// of generateblocks' block timestamps.
func startEmptyNode(t testing.TB, net params.Network, fixedDifficulty uint64, minerClock func() time.Time) *testNode {
	t.Helper()
	return startNodeWith(t, nodeOptions{net: net, fixedDifficulty: fixedDifficulty, minerClock: minerClock})
}

func rpcBody(method, params string) []byte {
	return fmt.Appendf(nil, `{"jsonrpc":"2.0","id":"0","method":%q,"params":%s}`, method, params)
}

// call posts a JSON-RPC request to a gonero node and decodes its result.
func (n *testNode) call(t testing.TB, method, params string, result any) {
	t.Helper()
	_, body := post(t, n.url, "/json_rpc", rpcBody(method, params))
	var env struct {
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(body, &env); err != nil || env.Error != nil {
		t.Fatalf("%s %s: %s", method, params, body)
	}
	if err := json.Unmarshal(env.Result, result); err != nil {
		t.Fatal(err)
	}
}

type generated struct {
	Blocks []string `json:"blocks"`
	Height uint64   `json:"height"`
	Status string   `json:"status"`
}

func generate(t testing.TB, n *testNode, count int, addr string) generated {
	t.Helper()
	var g generated
	n.call(t, "generateblocks", fmt.Sprintf(`{"amount_of_blocks":%d,"wallet_address":%q}`, count, addr), &g)
	if len(g.Blocks) != count || g.Status != "OK" {
		t.Fatalf("generateblocks %d: %+v", count, g)
	}
	return g
}

// submitAll gives monerod every block of the gonero chain above its own
// top through submitblock, in order; monerod checks each fully.
func submitAll(t testing.TB, n *testNode, m *monerodlab.Monerod) {
	t.Helper()
	var info struct {
		Height uint64 `json:"height"`
	}
	if err := m.Call("get_info", nil, &info); err != nil {
		t.Fatal(err)
	}
	for h := info.Height; h < n.chain.Height(); h++ {
		var blk struct {
			Blob string `json:"blob"`
		}
		n.call(t, "getblock", fmt.Sprintf(`{"height":%d}`, h), &blk)
		var res struct {
			Status string `json:"status"`
		}
		if err := m.Call("submitblock", []string{blk.Blob}, &res); err != nil || res.Status != "OK" {
			t.Fatalf("monerod refused gonero's block %d: %v %+v", h, err, res)
		}
	}
}

// compareChains asks both nodes for every header and block and the last
// header: the answers must be identical.
func compareChains(t testing.TB, n *testNode, m *monerodlab.Monerod) {
	t.Helper()
	height := n.chain.Height()
	ask := func(body []byte) {
		t.Helper()
		theirs, err := m.Post("/json_rpc", body)
		if err != nil {
			t.Fatal(err)
		}
		_, ours := post(t, n.url, "/json_rpc", body)
		if g, w := canonical(t, ours), canonical(t, theirs); g != w {
			t.Fatalf("%s\n gonero: %s\nmonerod: %s", body, clip(g), clip(w))
		}
	}
	for h := uint64(0); h < height; h++ {
		ask(rpcBody("getblockheaderbyheight", fmt.Sprintf(`{"height":%d}`, h)))
		ask(rpcBody("getblock", fmt.Sprintf(`{"height":%d}`, h)))
	}
	ask(rpcBody("getlastblockheader", `{}`))
	ask(rpcBody("get_block_count", `{}`))
}

// The acceptance test: gonero mines 100 blocks with generateblocks,
// 60 to alice's main address and 40 to her subaddress 0/1; a fresh monerod
// accepts every one through submitblock (it checks everything: version,
// timestamp, proof of work, miner transaction, exact reward) and then
// reports every header exactly as gonero does; and monero-wallet-rpc,
// restoring alice from her seed against that monerod, finds exactly the
// mined rewards, on the right subaddress (proof that the one-time keys,
// view tags and tx public keys are right).
func TestGenerateBlocksAcceptedByMonerodAndWallet(t *testing.T) {
	lab := monerodlab.Require(t)
	node := startEmptyNode(t, params.Regtest, 1, nil)
	m := lab.StartMonerod(t, "")

	start := time.Now()
	main := generate(t, node, 60, monerodlab.AliceAddress)
	sub := generate(t, node, 40, monerodlab.AliceSubaddress)
	elapsed := time.Since(start)
	t.Logf("gonero mined 100 blocks in %v (%.0f blocks/s)", elapsed, 100/elapsed.Seconds())
	if main.Height != 60 || sub.Height != 100 || node.chain.Height() != 101 {
		t.Fatalf("heights: %d, %d, chain %d", main.Height, sub.Height, node.chain.Height())
	}
	submitAll(t, node, m)
	compareChains(t, node, m)

	// The rewards, per address, as monerod reports them.
	var toMain, toSub uint64
	for h := uint64(1); h <= 100; h++ {
		var hdr struct {
			BlockHeader struct {
				Reward uint64 `json:"reward"`
			} `json:"block_header"`
		}
		if err := m.Call("getblockheaderbyheight", map[string]any{"height": h}, &hdr); err != nil {
			t.Fatal(err)
		}
		if h <= 60 {
			toMain += hdr.BlockHeader.Reward
		} else {
			toSub += hdr.BlockHeader.Reward
		}
	}

	w := lab.StartWalletRPC(t, m.RPCPort)
	if err := w.Call("restore_deterministic_wallet", map[string]any{"filename": "alice", "seed": monerodlab.AliceSeed,
		"password": "", "restore_height": 0, "language": "English"}, nil); err != nil {
		t.Fatal(err)
	}
	if err := w.Call("refresh", map[string]any{"start_height": 0}, nil); err != nil {
		t.Fatal(err)
	}
	var bal struct {
		Balance    uint64 `json:"balance"`
		PerSubaddr []struct {
			AddressIndex uint32 `json:"address_index"`
			Address      string `json:"address"`
			Balance      uint64 `json:"balance"`
			NumUnspent   uint64 `json:"num_unspent_outputs"`
		} `json:"per_subaddress"`
	}
	if err := w.Call("get_balance", map[string]any{"account_index": 0, "all_accounts": false}, &bal); err != nil {
		t.Fatal(err)
	}
	if bal.Balance != toMain+toSub {
		t.Fatalf("wallet balance %d, mined %d (%d + %d)", bal.Balance, toMain+toSub, toMain, toSub)
	}
	got := map[string]uint64{}
	for _, s := range bal.PerSubaddr {
		got[s.Address] = s.Balance
	}
	if got[monerodlab.AliceAddress] != toMain || got[monerodlab.AliceSubaddress] != toSub {
		t.Fatalf("per address: %+v; mined %d to the main address, %d to the subaddress", bal.PerSubaddr, toMain, toSub)
	}
	t.Logf("wallet sees %d atomic units: %d on the main address (60 blocks), %d on subaddress 0/1 (40 blocks)", bal.Balance, toMain, toSub)
}

// With difficulty above 1 the nonce search runs RandomX for real: blocks
// mined at fixed difficulty 50 are accepted by a monerod that checks their
// proof of work at that difficulty, and every header agrees.
func TestGenerateBlocksProofOfWorkAcceptedByMonerod(t *testing.T) {
	lab := monerodlab.Require(t)
	node := startEmptyNode(t, params.Regtest, 50, nil)
	m := lab.StartMonerodDirect(t, "--fixed-difficulty", "50")
	hashesBefore := node.srv.miner.Hashes()
	start := time.Now()
	generate(t, node, 8, monerodlab.AliceAddress)
	elapsed := time.Since(start)
	hashes := node.srv.miner.Hashes() - hashesBefore
	t.Logf("8 blocks at difficulty 50: %d RandomX hashes in %v (%.0f H/s)", hashes, elapsed, float64(hashes)/elapsed.Seconds())
	if hashes < 8 {
		t.Fatalf("only %d hashes for 8 blocks at difficulty 50", hashes)
	}
	submitAll(t, node, m)
	compareChains(t, node, m)
}

// With the real difficulty algorithm (no --fixed-difficulty) the
// difficulty climbs block by block when blocks come a minute apart (half the
// 2-minute target); gonero mines against it with RandomX and a monerod
// running the same algorithm accepts every block and reports the same
// difficulties and cumulative difficulties.
func TestGenerateBlocksRealDifficultyAcceptedByMonerod(t *testing.T) {
	lab := monerodlab.Require(t)
	var minutes atomic.Int64
	base := time.Now()
	clock := func() time.Time { return base.Add(time.Duration(minutes.Load()) * time.Minute) }
	node := startEmptyNode(t, params.Regtest, 0, clock)
	m := lab.StartMonerodDirect(t)
	const blocks = 12
	for range blocks {
		minutes.Add(1)
		generate(t, node, 1, monerodlab.AliceAddress)
	}
	top := node.chain.Top()
	if top.Difficulty.Cmp(u128.From64(10)) < 0 {
		t.Fatalf("difficulty %s at height %d: the real algorithm did not climb", top.Difficulty, top.Height)
	}
	t.Logf("difficulty %s at height %d; %d RandomX hashes", top.Difficulty, top.Height, node.srv.miner.Hashes())
	submitAll(t, node, m)
	compareChains(t, node, m)
}

// generateblocks' answers — results and errors — are monerod's, for every
// outcome both nodes can reach the same way.
func TestGenerateBlocksAnswersMatchMonerod(t *testing.T) {
	lab := monerodlab.Require(t)
	node := startEmptyNode(t, params.Regtest, 1, nil)
	m := lab.StartMonerod(t, "")
	mr := lab.StartMonerod(t, "", "--restricted")
	alice := monerodlab.AliceAddress
	testnet := "9svHk1wHPo3ULf2AZykghzcye6sitaRE4MaDjPC6uanTHCynHjJHZaiAb922PojE1GexhhRt1LVf5DC43feyrRZMLXQr3mk"
	typo := alice[:50] + "x" + alice[51:]
	cases := []string{
		fmt.Sprintf(`{"amount_of_blocks":0,"wallet_address":%q}`, alice),
		`{"amount_of_blocks":0}`, // nothing is checked when nothing is mined
		`{"amount_of_blocks":1}`,
		fmt.Sprintf(`{"amount_of_blocks":1,"wallet_address":%q}`, testnet),
		fmt.Sprintf(`{"amount_of_blocks":1,"wallet_address":%q}`, typo),
		`{"amount_of_blocks":1,"wallet_address":"hello"}`,
		fmt.Sprintf(`{"amount_of_blocks":1,"wallet_address":%q,"prev_block":"zz"}`, alice),
		fmt.Sprintf(`{"amount_of_blocks":1,"wallet_address":%q,"prev_block":%q}`, alice, strings.Repeat("0", 64)),
		fmt.Sprintf(`{"amount_of_blocks":1,"wallet_address":%q,"starting_nonce":4294967296}`, alice),
		fmt.Sprintf(`{"amount_of_blocks":1,"wallet_address":%q,"starting_nonce":-1}`, alice),
		fmt.Sprintf(`{"amount_of_blocks":-1,"wallet_address":%q}`, alice),
		`{"amount_of_blocks":1,"wallet_address":7}`,
	}
	for _, params := range cases {
		body := rpcBody("generateblocks", params)
		theirs, err := m.Post("/json_rpc", body)
		if err != nil {
			t.Fatal(err)
		}
		_, ours := post(t, node.url, "/json_rpc", body)
		if g, w := canonical(t, ours), canonical(t, theirs); g != w {
			t.Errorf("%s\n gonero: %s\nmonerod: %s", params, g, w)
		}
	}
	// Restricted RPC refuses the method outright.
	body := rpcBody("generateblocks", fmt.Sprintf(`{"amount_of_blocks":1,"wallet_address":%q}`, alice))
	theirs, err := mr.Post("/json_rpc", body)
	if err != nil {
		t.Fatal(err)
	}
	_, ours := post(t, node.rurl, "/json_rpc", body)
	if g, w := canonical(t, ours), canonical(t, theirs); g != w {
		t.Errorf("restricted:\n gonero: %s\nmonerod: %s", g, w)
	}
	if node.chain.Height() != 1 {
		t.Fatalf("a refused request mined: height %d", node.chain.Height())
	}

	// Mining answers: the ids of the new blocks and the height of the last
	// one; prev_block naming the top is accepted; starting_nonce is the
	// nonce (difficulty 1 takes the first). The same requests to monerod
	// give answers of the same shape.
	for _, nd := range []struct {
		name string
		call func(params string) generated
		top  func() string
	}{
		{"gonero", func(p string) (g generated) { node.call(t, "generateblocks", p, &g); return g },
			func() string { return node.chain.Top().Hash.String() }},
		{"monerod", func(p string) (g generated) {
			if err := m.Call("generateblocks", json.RawMessage(p), &g); err != nil {
				t.Fatal(err)
			}
			return g
		}, func() string {
			var h struct {
				BlockHeader struct {
					Hash string `json:"hash"`
				} `json:"block_header"`
			}
			if err := m.Call("getlastblockheader", nil, &h); err != nil {
				t.Fatal(err)
			}
			return h.BlockHeader.Hash
		}},
	} {
		g := nd.call(fmt.Sprintf(`{"amount_of_blocks":3,"wallet_address":%q,"starting_nonce":77}`, alice))
		if len(g.Blocks) != 3 || g.Height != 3 || g.Status != "OK" {
			t.Errorf("%s: %+v", nd.name, g)
		}
		g = nd.call(fmt.Sprintf(`{"amount_of_blocks":2,"wallet_address":%q,"prev_block":%q}`, alice, nd.top()))
		if len(g.Blocks) != 2 || g.Height != 5 || g.Blocks[1] != nd.top() {
			t.Errorf("%s with prev_block: %+v", nd.name, g)
		}
	}
	var hdr struct {
		BlockHeader struct {
			Nonce uint32 `json:"nonce"`
		} `json:"block_header"`
	}
	node.call(t, "getblockheaderbyheight", `{"height":2}`, &hdr)
	if hdr.BlockHeader.Nonce != 77 {
		t.Errorf("starting_nonce 77 gave nonce %d", hdr.BlockHeader.Nonce)
	}
}

// generateblocks is regtest only.
func TestGenerateBlocksRegtestOnly(t *testing.T) {
	node := startEmptyNode(t, params.Stagenet, 0, nil)
	_, body := post(t, node.url, "/json_rpc", rpcBody("generateblocks", `{"amount_of_blocks":1,"wallet_address":"53teqCAESLxeJ1REzGMAat1ZeHvuajvDiXqboEocPaDRRmqWoVPzy46GLo866qRFjbNhfkNckyhST3WEvBviDwpUDd7DSzB"}`))
	if !strings.Contains(string(body), `"code": -13`) || !strings.Contains(string(body), "Regtest required when generating blocks") {
		t.Fatalf("stagenet generateblocks: %s", body)
	}
}

// notSynchronized is a node online that has not met a peer at its height.
type notSynchronized struct{ NoPeers }

func (notSynchronized) Offline() bool      { return false }
func (notSynchronized) Synchronized() bool { return false }

// Until a node counts itself synchronized, monerod answers generateblocks
// and getlastblockheader with status BUSY; gonero answers alike.
func TestBusyUntilSynchronizedMatchesMonerod(t *testing.T) {
	lab := monerodlab.Require(t)
	fresh := lab.FreshChain(t)
	node := startNode(t, fresh.RawFile, notSynchronized{})
	m := lab.StartMonerod(t, fresh.NodeDir, "--online") // no peers: never synchronized
	for _, q := range []struct{ method, params string }{
		{"generateblocks", fmt.Sprintf(`{"amount_of_blocks":2,"wallet_address":%q}`, monerodlab.AliceAddress)},
		{"getlastblockheader", `{}`},
	} {
		body := rpcBody(q.method, q.params)
		theirs, err := m.Post("/json_rpc", body)
		if err != nil {
			t.Fatal(err)
		}
		_, ours := post(t, node.url, "/json_rpc", body)
		if g, w := canonical(t, ours), canonical(t, theirs); g != w {
			t.Fatalf("%s\n gonero: %s\nmonerod: %s", body, g, w)
		}
		if !strings.Contains(string(ours), `"BUSY"`) {
			t.Fatalf("%s: not BUSY: %s", q.method, ours)
		}
	}
	if h := node.chain.Height(); h != 300 {
		t.Fatalf("a BUSY generateblocks mined: height %d", h)
	}
}
