package rpc

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gonero/gonero/cryptonote"
	"github.com/gonero/gonero/internal/monerodlab"
	"github.com/gonero/gonero/internal/testutil"
	"github.com/gonero/gonero/params"
	"github.com/gonero/gonero/portable"
)

// What monerod 0.18.5.3 answers differently from the 0.18.0 the captures
// hold, asked of both nodes on the same fresh chain (main and restricted
// listeners): the captures that changed, request values of the wrong type
// (no string is converted to an integer any more, in JSON or epee binary),
// missing or odd params, get_version's new members, add_aux_pow's limits on
// a restricted listener, and the stricter HTTP header parser. The other
// changes are asked where their endpoint is tested: on_getblockhash above
// the top, submit_block's block_id, extra nonces of 128 bytes and more and
// blobs cut before their last varint (TestMiningMatchesMonerod), the
// restricted /get_transaction_pool and /get_alt_blocks_hashes
// (TestTransactionsMatchMonerod, TestMiningMatchesMonerod), malformed
// /is_key_image_spent and get_version (TestTransactionsMatchMonerod),
// set_bans without ip or host, bare IPv6 hosts, flush_cache's bad_txs and
// the P2P rate-limit defaults (TestOperatorEndpointsMatchMonerod).
func TestChangedSince0180MatchesMonerod(t *testing.T) {
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
	both := func(path, body string) {
		p.t.Helper()
		for _, restricted := range []bool{false, true} {
			p.same(path, body, restricted)
		}
	}

	run("captures that changed", func(t *testing.T) {
		for key := range changedSince0180 {
			_, target, body := capturedRequest(t, testutil.Path(t, "testdata", "regtest", "responses", key+".request"))
			both(target, string(body))
		}
	})

	run("value types", func(t *testing.T) {
		values := []string{`"0"`, `"7"`, `""`, `"abc"`, `"18446744073709551615"`, `"2017-05-06T16:27:06Z"`, `0`, `-0`, `7`,
			`-1`, `0.0`, `1e0`, `true`, `false`, `[0]`, `{}`, `null`}
		for _, v := range values {
			both("/json_rpc", jsonRPC("get_block_header_by_height", `{"height":`+v+`}`))
			both("/json_rpc", jsonRPC("getblock", `{"height":`+v+`}`))
			both("/json_rpc", jsonRPC("hard_fork_info", `{"version":`+v+`}`))
			both("/json_rpc", jsonRPC("get_last_block_header", `{"fill_pow_hash":`+v+`}`))
			both("/json_rpc", jsonRPC("get_block", `{"hash":`+v+`}`))
			both("/json_rpc", jsonRPC("get_block_headers_range", `{"start_height":`+v+`,"end_height":1}`))
			both("/json_rpc", jsonRPC("get_output_histogram", `{"amounts":[`+v+`]}`))
			both("/json_rpc", jsonRPC("get_fee_estimate", `{"grace_blocks":`+v+`}`))
			both("/json_rpc", jsonRPC("on_get_block_hash", `[`+v+`]`))
			both("/json_rpc", jsonRPC("get_block_count", `{"client":`+v+`}`))
			both("/get_outs", `{"outputs":[{"amount":`+v+`,"index":0}]}`)
			both("/get_transactions", `{"txs_hashes":[],"decode_as_json":`+v+`}`)
		}
	})

	run("epee binary value types", func(t *testing.T) {
		genesis := node.chain.HashAt(0)
		for _, v := range []portable.Value{portable.NewUint64(0), {Type: portable.TypeString, Bytes: []byte("0")},
			{Type: portable.TypeString, Bytes: []byte("x")}, {Type: portable.TypeUint8, Uint: 1}, {Type: portable.TypeInt8, Int: 1}} {
			_, _, os, ts := p.both("/get_hashes.bin", string(epee(t, "block_ids", idsBlob(genesis), "start_height", v)), false)
			if os != ts {
				t.Fatalf("/get_hashes.bin start_height %+v: HTTP %d, monerod %d", v, os, ts)
			}
			_, _, os, ts = p.both("/getblocks_by_height.bin", string(epee(t, "heights", portable.Value{Type: portable.ArrayFlag | v.Type, Array: []portable.Value{v}})), false)
			if os != ts {
				t.Fatalf("/getblocks_by_height.bin heights [%+v]: HTTP %d, monerod %d", v, os, ts)
			}
		}
	})

	run("params absent or odd", func(t *testing.T) {
		for _, method := range []string{"get_block_header_by_height", "get_block_count", "on_getblockhash", "hard_fork_info",
			"get_version", "get_fee_estimate", "get_last_block_header", "get_block", "get_block_header_by_hash",
			"get_output_histogram", "get_txpool_backlog", "get_alternate_chains"} {
			for _, tail := range []string{``, `,"params":null`, `,"params":5`, `,"params":"x"`, `,"params":[]`, `,"params":[1]`,
				`,"params":{}`, `,"params":true`} {
				p.same("/json_rpc", `{"jsonrpc":"2.0","id":3,"method":"`+method+`"`+tail+`}`, false, "result.block_header.pow_hash")
			}
		}
	})

	run("get_version", func(t *testing.T) {
		for _, params := range []string{`{}`, `[]`, `{"client":5}`} {
			both("/json_rpc", jsonRPC("get_version", params))
		}
	})

	run("add_aux_pow on a restricted listener", func(t *testing.T) {
		var tmpl templateAnswer
		result(t, p.same("/json_rpc", jsonRPC("get_block_template", `{"wallet_address":"`+monerodlab.AliceAddress+`","reserve_size":8}`),
			false, templateFieldsDiffering...), &tmpl)
		aux := func(ids []cryptonote.Hash) string {
			var parts []string
			for i, id := range ids {
				parts = append(parts, fmt.Sprintf(`{"id":"%s","hash":"%064x"}`, id, i+1))
			}
			return fmt.Sprintf(`{"blocktemplate_blob":%q,"aux_pow":[%s]}`, tmpl.BlocktemplateBlob, strings.Join(parts, ","))
		}
		ids := func(n int, seed int) []cryptonote.Hash {
			out := make([]cryptonote.Hash, n)
			for i := range out {
				out[i][0], out[i][1], out[i][2] = byte(seed), byte(seed>>8), byte(i)
			}
			return out
		}
		// Ten chains whose first nonce with a slot each lies between the
		// restricted listener's last nonce and the main one's: found on
		// the main listener, not on the restricted one.
		var late []cryptonote.Hash
		for seed := 0; seed < 1<<16 && late == nil; seed++ {
			c := ids(restrictedAuxPowCount, seed)
			if n, ok := auxNonce(c, maxAuxNonce); ok && n > restrictedMaxAuxNonce {
				late = c
			}
		}
		if late == nil {
			t.Fatal("no set of ten chains needs a nonce above the restricted limit")
		}
		for _, c := range [][]cryptonote.Hash{ids(1, 1), ids(restrictedAuxPowCount, 1), ids(restrictedAuxPowCount+1, 1), late} {
			for _, restricted := range []bool{false, true} {
				p.same("/json_rpc", jsonRPC("add_aux_pow", aux(c)), restricted, templateFieldsDiffering...)
			}
		}
	})

	run("HTTP header lines", func(t *testing.T) {
		ourAddr := strings.TrimPrefix(node.url, "http://")
		theirAddr := fmt.Sprintf("127.0.0.1:%d", m.RPCPort)
		for _, c := range []struct {
			head string
			ok   bool // monerod answers (else it closes without a word, and gonero answers 400)
		}{
			{"Host: x\r\n", true},
			{"Host:x\r\nX-A:\t y \t\r\n", true},
			{"Host: x\r\nX-Y:\r\n", true},
			{"Host: x\r\n folded\r\n", false},
			{"Host: x\r\n\tfolded\r\n", false},
			{"Host x\r\n", false},
			{"Host: x\r\n: x\r\n", false},
			{"Host: x\r\nBad Name: x\r\n", false},
			{"Host: x\r\nBad(Name): x\r\n", false},
			{"Host: x\r\nX-Y : a\r\n", false},
			{"Host: x\r\nX\x01Y: z\r\n", false},
		} {
			req := "GET /get_height HTTP/1.1\r\n" + c.head + "\r\n"
			theirs := rawExchange(t, theirAddr, req)
			ours := rawExchange(t, ourAddr, req)
			switch {
			case c.ok && (!strings.HasPrefix(theirs, "HTTP/1.1 200") || !strings.HasPrefix(ours, "HTTP/1.1 200")):
				t.Errorf("%q: monerod %q, gonero %q; want both 200", c.head, clip(theirs), clip(ours))
			case !c.ok && (theirs != "" || !strings.HasPrefix(ours, "HTTP/1.1 400")):
				t.Errorf("%q: monerod %q, gonero %q; want monerod silent, gonero 400", c.head, clip(theirs), clip(ours))
			}
		}
	})
	t.Logf("%d questions asked", p.asked)
}

// rawExchange sends one raw request and returns what came back before the
// server closed the connection or went quiet for a second.
func rawExchange(t *testing.T, addr, req string) string {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := io.WriteString(c, req); err != nil {
		t.Fatal(err)
	}
	_ = c.SetReadDeadline(time.Now().Add(time.Second))
	var out strings.Builder
	_, _ = io.Copy(&out, bufio.NewReader(c))
	return out.String()
}
