package rpc

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gonero/gonero/address"
	"github.com/gonero/gonero/cryptonote"
	"github.com/gonero/gonero/internal/monerodlab"
	"github.com/gonero/gonero/params"
)

// miningPair is one gonero node and one monerod on the same chain, each
// with a main and a restricted listener.
type miningPair struct {
	t                     *testing.T
	node                  *testNode
	m                     *monerodlab.Monerod
	monerodURL, monerodRU string
	asked                 int
}

func httpPost(t *testing.T, url, path, body string) (int, []byte) {
	t.Helper()
	resp, err := http.Post(url+path, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, b
}

// both sends one request to both nodes (restricted listeners if asked).
func (p *miningPair) both(path, body string, restricted bool) (ours, theirs []byte, ourStatus, theirStatus int) {
	p.t.Helper()
	gu, mu := p.node.url, p.monerodURL
	if restricted {
		gu, mu = p.node.rurl, p.monerodRU
	}
	theirStatus, theirs = httpPost(p.t, mu, path, body)
	ourStatus, ours = httpPost(p.t, gu, path, body)
	return
}

// same asks both and requires equal answers (HTTP status, and the JSON
// value with the listed members dropped).
func (p *miningPair) same(path, body string, restricted bool, drop ...string) []byte {
	p.t.Helper()
	ours, theirs, os, ts := p.both(path, body, restricted)
	if os != ts {
		p.t.Fatalf("%s %s (restricted %v): HTTP %d, monerod %d\n gonero: %s\nmonerod: %s", path, body, restricted, os, ts, clip(string(ours)), clip(string(theirs)))
	}
	if ts == 200 && len(theirs) > 0 {
		if g, w := canonical(p.t, ours, drop...), canonical(p.t, theirs, drop...); g != w {
			p.t.Fatalf("%s %s (restricted %v)\n gonero: %s\nmonerod: %s", path, clip(body), restricted, clip(g), clip(w))
		}
	} else if !bytes.Equal(ours, theirs) {
		p.t.Fatalf("%s %s: HTTP %d bodies differ\n gonero: %q\nmonerod: %q", path, body, ts, ours, theirs)
	}
	p.asked++
	return ours
}

func jsonRPC(method, params string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":7,"method":%q,"params":%s}`, method, params)
}

// result decodes a JSON-RPC answer's result.
func result(t *testing.T, body []byte, into any) {
	t.Helper()
	if err := monerodlab.DecodeResult("node", "", body, into); err != nil {
		t.Fatal(err)
	}
}

type templateAnswer struct {
	BlockhashingBlob  string `json:"blockhashing_blob"`
	BlocktemplateBlob string `json:"blocktemplate_blob"`
	Difficulty        uint64 `json:"difficulty"`
	ExpectedReward    uint64 `json:"expected_reward"`
	Height            uint64 `json:"height"`
	PrevHash          string `json:"prev_hash"`
	ReservedOffset    uint64 `json:"reserved_offset"`
	SeedHash          string `json:"seed_hash"`
}

// templateFieldsDiffering: a template's miner transaction has a random key
// (its public key in extra, the one-time output key and view tag derived
// from it) and the clock's timestamp; everything else must be equal.
var templateFieldsDiffering = []string{"result.blockhashing_blob", "result.blocktemplate_blob"}

// sameTemplateBlob requires two template blobs to be equal byte for byte
// once monerod's random parts (tx key, output key, view tag) and
// timestamp are replaced by gonero's; the timestamps must be close.
func sameTemplateBlob(t *testing.T, ours, theirs templateAnswer) *cryptonote.Block {
	t.Helper()
	ob, _ := hex.DecodeString(ours.BlocktemplateBlob)
	tb, _ := hex.DecodeString(theirs.BlocktemplateBlob)
	o, err := cryptonote.ParseBlock(ob)
	if err != nil {
		t.Fatalf("gonero's template does not parse: %v", err)
	}
	m, err := cryptonote.ParseBlock(tb)
	if err != nil {
		t.Fatalf("monerod's template does not parse: %v", err)
	}
	if d := int64(o.Timestamp) - int64(m.Timestamp); d < -10 || d > 10 {
		t.Fatalf("timestamps %d (gonero) and %d (monerod)", o.Timestamp, m.Timestamp)
	}
	if len(m.MinerTx.Extra) < 33 || len(o.MinerTx.Extra) < 33 || len(m.MinerTx.Outputs) != 1 || len(o.MinerTx.Outputs) != 1 {
		t.Fatalf("miner transactions of unexpected shape:\n gonero %x\nmonerod %x", ob, tb)
	}
	m.Timestamp = o.Timestamp
	copy(m.MinerTx.Extra[1:33], o.MinerTx.Extra[1:33])
	m.MinerTx.Outputs[0].Target = o.MinerTx.Outputs[0].Target
	if norm := m.Serialize(); !bytes.Equal(norm, ob) {
		t.Fatalf("templates differ beyond the tx key and timestamp:\n gonero %x\nmonerod %x", ob, norm)
	}
	if hb := hex.EncodeToString(o.HashingBlob()); hb != ours.BlockhashingBlob {
		t.Fatalf("gonero's blockhashing_blob %s is not its template's %s", ours.BlockhashingBlob, hb)
	}
	return o
}

// Every mining endpoint, asked of gonero and of monerod on the same fresh
// chain — valid requests, hostile ones, and on the restricted listeners —
// answers alike; blocks built from either node's template and submitted to
// both land alike (main chain, alternative chain, refusals), with and
// without a pool transaction; the node's own miner starts, reports and
// stops alike.
func TestMiningMatchesMonerod(t *testing.T) {
	lab := monerodlab.Require(t)
	fresh := lab.FreshChain(t)
	node := startNodeWith(t, nodeOptions{net: params.Regtest, fixedDifficulty: 1, exportFile: fresh.RawFile, pool: true})
	rport := monerodlab.FreePort(t)
	m := lab.StartMonerod(t, fresh.NodeDir, "--rpc-restricted-bind-port", strconv.Itoa(rport))
	p := &miningPair{t: t, node: node, m: m, monerodURL: fmt.Sprintf("http://127.0.0.1:%d", m.RPCPort),
		monerodRU: fmt.Sprintf("http://127.0.0.1:%d", rport)}
	run := func(name string, f func(t *testing.T)) {
		t.Run(name, func(st *testing.T) {
			p.t = st
			defer func() { p.t = t }()
			f(st)
		})
	}
	rpc := func(method, params string, drop ...string) []byte {
		t.Helper()
		return p.same("/json_rpc", jsonRPC(method, params), false, drop...)
	}
	alice, err := address.Parse(monerodlab.AliceAddress)
	if err != nil {
		t.Fatal(err)
	}
	sub, integrated, testnet := alice, alice, alice
	sub.Kind = address.Subaddress
	integrated.Kind, integrated.PaymentID = address.Integrated, [8]byte{1, 2, 3, 4, 5, 6, 7, 8}
	testnet.Network = params.Testnet
	addr := func(a address.Address) string { return a.String() }
	height := node.chain.Height()

	run("block hashes", func(t *testing.T) {
		for _, params := range []string{"[0]", "[5]", fmt.Sprintf("[%d]", height-1), fmt.Sprintf("[%d]", height),
			"[18446744073709551615]", `["7"]`, "[-1]", "[1.5]", "[true]", "5", "{}", "[1,2]", "[]", `{"height":3}`, `[[1]]`} {
			rpc("on_get_block_hash", params)
			rpc("on_getblockhash", params)
		}
	})
	run("coinbase sums", func(t *testing.T) {
		for _, q := range []string{`{"height":0,"count":%d}`, `{"height":%d,"count":1}`, `{"height":0,"count":%d1}`} {
			for _, h := range []uint64{height - 1, height, height + 1} {
				rpc("get_coinbase_tx_sum", fmt.Sprintf(q, h))
			}
		}
		for _, q := range []string{`{}`, `{"height":100,"count":1}`, `{"height":250,"count":50}`, `{"height":5,"count":0}`,
			`{"height":-1}`, `{"count":"x"}`, `{"height":18446744073709551615,"count":18446744073709551615}`} {
			rpc("get_coinbase_tx_sum", q)
		}
	})
	run("miner data and alternative blocks (none yet)", func(t *testing.T) {
		rpc("get_miner_data", `{}`)
		rpc("get_alternate_chains", `{}`)
		p.same("/get_alt_blocks_hashes", `{}`, false)
		p.same("/get_alt_blocks_hashes", ``, false)
		p.same("/get_alt_blocks_hashes", `{"client":5}`, false)
		p.same("/mining_status", ``, false)
		p.same("/stop_mining", `{}`, false)
	})
	a := addr(alice)
	run("template errors", func(t *testing.T) {
		hexOf := func(n int) string { return strings.Repeat("ab", n) }
		for _, q := range []string{
			`{"wallet_address":%q,"reserve_size":256}`, `{"wallet_address":%q,"reserve_size":2,"extra_nonce":"aa"}`,
			`{"wallet_address":%q,"extra_nonce":"abc"}`, `{"wallet_address":%q,"extra_nonce":"zz"}`,
			`{"wallet_address":%q,"extra_nonce":"` + hexOf(256) + `"}`, `{"wallet_address":%q,"reserve_size":-1}`,
			`{"wallet_address":%q,"prev_block":"zz"}`, `{"wallet_address":%q,"prev_block":"` + strings.Repeat("0", 64) + `"}`,
			`{"wallet_address":%q,"prev_block":"` + strings.Repeat("0", 62) + `"}`, `{"wallet_address":%q,"reserve_size":"x"}`,
			`{"wallet_address":%q,"prev_block":5}`,
		} {
			rpc("get_block_template", fmt.Sprintf(q, a))
		}
		for _, w := range []string{"", "x", addr(sub), addr(testnet), a + "x"} {
			rpc("getblocktemplate", fmt.Sprintf(`{"wallet_address":%q,"reserve_size":8}`, w))
		}
		rpc("get_block_template", `{}`)
		rpc("get_block_template", `{"wallet_address":5}`)
	})
	var lastTemplate templateAnswer
	run("templates", func(t *testing.T) {
		top := node.chain.Top().Hash.String()
		for _, q := range []string{`{"wallet_address":%q}`, `{"wallet_address":%q,"reserve_size":8}`, `{"wallet_address":%q,"reserve_size":127}`,
			`{"wallet_address":%q,"extra_nonce":"00ff00ff"}`, `{"wallet_address":%q,"extra_nonce":"` + strings.Repeat("AB", 127) + `"}`,
			// From 128 bytes the nonce's length takes two varint bytes
			// (0.18.0 wrote one and failed the template).
			`{"wallet_address":%q,"extra_nonce":"` + strings.Repeat("ab", 128) + `"}`, `{"wallet_address":%q,"reserve_size":128}`,
			`{"wallet_address":%q,"reserve_size":255}`,
			`{"wallet_address":%q,"reserve_size":60,"prev_block":"` + top + `"}`} {
			for _, w := range []string{a, addr(integrated)} {
				body := jsonRPC("get_block_template", fmt.Sprintf(q, w))
				ours := p.same("/json_rpc", body, false, templateFieldsDiffering...)
				_, theirs, _, _ := p.both("/json_rpc", body, false)
				var o, th templateAnswer
				result(t, ours, &o)
				result(t, theirs, &th)
				sameTemplateBlob(t, o, th)
				lastTemplate = o
			}
		}
	})
	tmplBlob := lastTemplate.BlocktemplateBlob
	hashing := lastTemplate.BlockhashingBlob
	run("calc_pow", func(t *testing.T) {
		seed := lastTemplate.SeedHash
		for _, q := range []string{
			`{"major_version":16,"height":%d,"block_blob":%q}`, `{"major_version":16,"height":%d,"block_blob":%q,"seed_hash":"` + seed + `"}`,
			`{"major_version":16,"height":%d,"block_blob":%q,"seed_hash":"` + strings.Repeat("11", 32) + `"}`,
			`{"major_version":16,"height":%d,"block_blob":%q,"seed_hash":"11"}`, `{"major_version":300,"height":%d,"block_blob":%q}`,
			`{"major_version":16,"height":%d,"block_blob":"zz","x":%q}`, `{"major_version":16,"height":%d,"block_blob":"","x":%q}`,
			`{"major_version":16,"height":%d,"x":%q}`, `{"major_version":16,"height":%d,"block_blob":"abc","x":%q}`,
		} {
			for _, h := range []uint64{height, 5000, 202612} {
				rpc("calc_pow", fmt.Sprintf(q, h, hashing))
			}
		}
	})
	run("add_aux_pow", func(t *testing.T) {
		h := func(b byte) string { return strings.Repeat(fmt.Sprintf("%02x", b), 32) }
		one := `[{"id":"` + h(1) + `","hash":"` + h(2) + `"}]`
		three := `[{"id":"` + h(1) + `","hash":"` + h(2) + `"},{"id":"` + h(2) + `","hash":"` + h(3) + `"},{"id":"` + h(3) + `","hash":"` + h(4) + `"}]`
		var five []string
		for i := byte(0); i < 5; i++ {
			five = append(five, `{"id":"`+h(0x40+i)+`","hash":"`+h(0x50+i)+`"}`)
		}
		dup := `[{"id":"` + h(1) + `","hash":"` + h(2) + `"},{"id":"` + h(1) + `","hash":"` + h(3) + `"}]`
		for _, aux := range []string{one, three, "[" + strings.Join(five, ",") + "]", dup, `[]`, `{"id":"` + h(1) + `","hash":"` + h(2) + `"}`,
			`[1,2]`, `"x"`, `[{"id":"zz","hash":"` + h(2) + `"}]`, `[{"id":"` + h(1) + `"}]`, `[{"id":5,"hash":"` + h(2) + `"}]`,
			`[{"id":"` + h(1) + `","hash":"` + h(2) + `","extra":true}]`} {
			rpc("add_aux_pow", fmt.Sprintf(`{"blocktemplate_blob":%q,"aux_pow":%s}`, tmplBlob, aux))
		}
		for _, blob := range []string{"zz", "0011", "", tmplBlob + "00", tmplBlob[:len(tmplBlob)-2]} {
			rpc("add_aux_pow", fmt.Sprintf(`{"blocktemplate_blob":%q,"aux_pow":%s}`, blob, one))
		}
		// Templates whose miner transaction's extra holds other fields:
		// padding, additional keys, a nonce whose length is not
		// canonical (the rewrite fails), a minergate field.
		raw, _ := hex.DecodeString(tmplBlob)
		blk, err := cryptonote.ParseBlock(raw)
		if err != nil {
			t.Fatal(err)
		}
		pub := blk.MinerTx.Extra[:33]
		for _, extra := range [][]byte{
			append(append([]byte{}, pub...), 0, 0, 0),
			append(append(append([]byte{}, pub...), 4, 1), pub[1:]...),
			append(append([]byte{}, pub...), 2, 0x81, 0, 7),
			append(append([]byte{}, pub...), 0xde, 2, 5, 5),
			append(append([]byte{}, pub...), 2, 3, 1, 2),
		} {
			b := *blk
			b.MinerTx.Extra = extra
			rpc("add_aux_pow", fmt.Sprintf(`{"blocktemplate_blob":%q,"aux_pow":%s}`, hex.EncodeToString(b.Serialize()), one))
		}
		// Again on a template that already has a merge-mining tag: it is replaced.
		var first struct {
			Blob string `json:"blocktemplate_blob"`
		}
		result(t, rpc("add_aux_pow", fmt.Sprintf(`{"blocktemplate_blob":%q,"aux_pow":%s}`, tmplBlob, three)), &first)
		rpc("add_aux_pow", fmt.Sprintf(`{"blocktemplate_blob":%q,"aux_pow":%s}`, first.Blob, one))
	})
	run("submit errors", func(t *testing.T) {
		for _, params := range []string{`["zz"]`, `["00"]`, `[]`, `"ab"`, `[1]`, `["1010","1010"]`, `{}`, `[""]`,
			`["` + tmplBlob[:len(tmplBlob)-2] + `"]`, `["` + tmplBlob + `00"]`} {
			rpc("submit_block", params)
			rpc("submitblock", params)
		}
	})
	run("restricted listener", func(t *testing.T) {
		for _, q := range []struct{ method, params string }{
			{"get_block_template", fmt.Sprintf(`{"wallet_address":%q,"reserve_size":8}`, a)},
			{"get_miner_data", `{}`}, {"calc_pow", fmt.Sprintf(`{"major_version":16,"height":1,"block_blob":%q}`, hashing)},
			{"add_aux_pow", fmt.Sprintf(`{"blocktemplate_blob":%q,"aux_pow":[]}`, tmplBlob)}, {"submit_block", `["zz"]`},
			{"on_get_block_hash", `[3]`}, {"get_coinbase_tx_sum", `{"height":1,"count":2}`}, {"get_alternate_chains", `{}`},
		} {
			p.same("/json_rpc", jsonRPC(q.method, q.params), true, templateFieldsDiffering...)
		}
		for _, path := range []string{"/start_mining", "/stop_mining", "/mining_status", "/get_alt_blocks_hashes"} {
			p.same(path, `{}`, true)
		}
	})

	// Blocks: one from gonero's template and one from monerod's, each
	// submitted to both nodes; then a block on the old top (an
	// alternative block), a known block, an orphan, and broken blocks.
	template := func(url string) (templateAnswer, *cryptonote.Block) {
		t.Helper()
		_, body := httpPost(t, url, "/json_rpc", jsonRPC("get_block_template", fmt.Sprintf(`{"wallet_address":%q,"reserve_size":8}`, a)))
		var ta templateAnswer
		result(t, body, &ta)
		raw, _ := hex.DecodeString(ta.BlocktemplateBlob)
		blk, err := cryptonote.ParseBlock(raw)
		if err != nil {
			t.Fatal(err)
		}
		return ta, blk
	}
	submit := func(blk *cryptonote.Block) {
		t.Helper()
		rpc("submit_block", fmt.Sprintf(`[%q]`, hex.EncodeToString(blk.Serialize())))
	}
	sameTop := func() {
		t.Helper()
		rpc("get_last_block_header", `{}`)
		rpc("get_info", `{}`, "result.database_size", "result.free_space", "result.start_time", "result.version", "result.rpc_connections_count")
	}
	run("submitted blocks", func(t *testing.T) {
		_, stale := template(node.url)
		_, ours := template(node.url)
		ours.Nonce = 12345 // difficulty 1: any nonce
		submit(ours)
		sameTop()
		_, theirs := template(p.monerodURL)
		theirs.Nonce = 777
		submit(theirs)
		sameTop()
		submit(theirs) // known
		stale.Nonce = 1
		submit(stale) // on a block below the top: an alternative block
		sameTop()
		rpc("get_alternate_chains", `{}`)
		p.same("/get_alt_blocks_hashes", `{}`, false)
		_, next := template(node.url)
		orphan := *next
		orphan.PrevID = cryptonote.Hash{9}
		submit(&orphan)
		greedy := *next
		greedy.MinerTx.Outputs = append([]cryptonote.TxOut(nil), next.MinerTx.Outputs...)
		greedy.MinerTx.Outputs[0].Amount++
		submit(&greedy)
		withTx := *next
		withTx.TxHashes = []cryptonote.Hash{{1}}
		submit(&withTx)
		badVersion := *next
		badVersion.MajorVersion = 15
		submit(&badVersion)
		sameTop()
		rpc("get_miner_data", `{}`)
		rpc("get_coinbase_tx_sum", fmt.Sprintf(`{"height":0,"count":%d}`, node.chain.Height()))
	})
	run("a pool transaction", func(t *testing.T) {
		w := lab.OpenWallet(t, fresh, "alice", m.RPCPort)
		if err := w.Call("refresh", struct{}{}, nil); err != nil {
			t.Fatal(err)
		}
		var made struct {
			TxBlob string `json:"tx_blob"`
			TxHash string `json:"tx_hash"`
		}
		if err := w.Call("transfer", map[string]any{"destinations": []map[string]any{{"amount": 1_000_000_000_000, "address": a}},
			"priority": 0, "do_not_relay": true, "get_tx_hex": true}, &made); err != nil {
			t.Fatal(err)
		}
		p.same("/sendrawtransaction", fmt.Sprintf(`{"tx_as_hex":%q}`, made.TxBlob), false)
		// get_miner_data's backlog lists broadcast transactions only. An
		// offline monerod marks one sent over RPC broadcast a moment later
		// (gonero's offline node at once): wait for that before comparing.
		deadline := time.Now().Add(60 * time.Second)
		for {
			_, pool, _, _ := p.both("/get_transaction_pool", `{}`, false)
			if bytes.Contains(pool, []byte(`"relayed": true`)) {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("monerod did not mark the transaction relayed in 60 s: %s", pool)
			}
			time.Sleep(200 * time.Millisecond)
		}
		rpc("get_miner_data", `{}`)
		body := jsonRPC("get_block_template", fmt.Sprintf(`{"wallet_address":%q,"reserve_size":8}`, a))
		ours := p.same("/json_rpc", body, false, templateFieldsDiffering...)
		_, theirs, _, _ := p.both("/json_rpc", body, false)
		var o, th templateAnswer
		result(t, ours, &o)
		result(t, theirs, &th)
		blk := sameTemplateBlob(t, o, th)
		if len(blk.TxHashes) != 1 || blk.TxHashes[0].String() != made.TxHash {
			t.Fatalf("template's transactions %v, want %s", blk.TxHashes, made.TxHash)
		}
		submit(blk)
		sameTop()
		rpc("get_miner_data", `{}`)
		rpc("get_coinbase_tx_sum", fmt.Sprintf(`{"height":%d,"count":1}`, node.chain.Height()-1))
	})
	run("own miner", func(t *testing.T) {
		began := time.Now()
		sm := func(body string) {
			p.same("/start_mining", body, false)
			t.Logf("%.2fs start_mining %s", time.Since(began).Seconds(), body)
		}
		for _, q := range []string{`{"miner_address":"x"}`, `{"miner_address":%q,"threads_count":100000}`, `zz`,
			`{"miner_address":%q,"threads_count":"x"}`, `{"miner_address":%q,"threads_count":-1}`} {
			if strings.Contains(q, "%q") {
				q = fmt.Sprintf(q, a)
			}
			sm(q)
		}
		sm(fmt.Sprintf(`{"miner_address":%q}`, addr(sub)))
		sm(fmt.Sprintf(`{"miner_address":%q,"threads_count":1,"do_background_mining":true,"ignore_battery":true}`, addr(integrated)))
		mined := node.chain.Height()
		sm(fmt.Sprintf(`{"miner_address":%q,"threads_count":1}`, a))
		// Wait for gonero's miner to add two blocks (monerod's starts
		// alike; its figures are not compared).
		for deadline := time.Now().Add(2 * time.Minute); node.chain.Height() < mined+2; time.Sleep(50 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("gonero's miner added %d blocks in 2 minutes", node.chain.Height()-mined)
			}
		}
		// Both chains now grow on their own: the figures that follow the
		// chain and the hash rate are the nodes' own.
		p.same("/mining_status", ``, false, "speed", "block_reward", "difficulty", "wide_difficulty")
		t.Logf("%.2fs status", time.Since(began).Seconds())
		p.same("/stop_mining", `{}`, false)
		t.Logf("%.2fs stopped, gonero at %d", time.Since(began).Seconds(), node.chain.Height())
		p.same("/mining_status", ``, false)
		// A second start would be compared too, but monerod's second miner
		// start waits for its RandomX dataset (minutes on a busy machine).
		p.same("/stop_mining", `{}`, false)
	})
	t.Logf("%d questions asked; gonero and monerod agree on all", p.asked)
}
