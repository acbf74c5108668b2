package zmqrpc

import (
	"bufio"
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-zeromq/zmq4"
	"github.com/go-zeromq/zmq4/security/null"

	"github.com/gonero/gonero/chain"
	"github.com/gonero/gonero/chaindb"
	"github.com/gonero/gonero/cryptonote"
	"github.com/gonero/gonero/importer"
	"github.com/gonero/gonero/internal/monerodlab"
	"github.com/gonero/gonero/params"
	"github.com/gonero/gonero/randomx"
	"github.com/gonero/gonero/txpool"
	"github.com/gonero/gonero/zmqpub"
)

// client is a ZMQ REQ peer speaking raw frames, so tests can also send
// what a REQ socket never would.
type client struct {
	c net.Conn
	r *bufio.Reader
	w *bufio.Writer
}

func dial(t testing.TB, addr string) *client {
	t.Helper()
	var c net.Conn
	var err error
	for i := 0; i < 100; i++ { // monerod binds its ZMQ port after its RPC port answers
		if c, err = net.DialTimeout("tcp", addr, 5*time.Second); err == nil {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	_ = c.SetDeadline(time.Now().Add(60 * time.Second))
	if _, err := zmq4.Open(c, null.Security(), zmq4.Dealer, zmq4.SocketIdentity(nil), false, nil); err != nil {
		t.Fatal(err)
	}
	return &client{c: c, r: bufio.NewReader(c), w: bufio.NewWriter(c)}
}

// send writes one message of frames.
func (cl *client) send(t testing.TB, frames ...[]byte) {
	t.Helper()
	for i, f := range frames {
		writeFrame(cl.w, f, i < len(frames)-1)
	}
	if err := cl.w.Flush(); err != nil {
		t.Fatal(err)
	}
}

// recv reads one message's frames.
func (cl *client) recv(t testing.TB) [][]byte {
	t.Helper()
	var out [][]byte
	for {
		flags, size, err := frameHeader(cl.r)
		if err != nil {
			t.Fatal(err)
		}
		b := make([]byte, size)
		if _, err := ioReadFull(cl.r, b); err != nil {
			t.Fatal(err)
		}
		if flags&4 != 0 {
			continue
		}
		out = append(out, b)
		if flags&1 == 0 {
			return out
		}
	}
}

// call sends a request as REQ does and returns the answer's body.
func (cl *client) call(t testing.TB, body string) string {
	t.Helper()
	cl.send(t, nil, []byte(body))
	m := cl.recv(t)
	if len(m) != 2 || len(m[0]) != 0 {
		t.Fatalf("answer to %q: %d frames %q", body, len(m), m)
	}
	return string(m[1])
}

// openChain imports raw's first maxBlocks blocks (0: all) into a new store.
func openChain(t testing.TB, raw string, maxBlocks uint64) (*chain.Chain, *txpool.Pool) {
	t.Helper()
	dir := t.TempDir()
	db, err := chaindb.Open(filepath.Join(dir, "chain.db"), chaindb.Options{Network: params.Regtest.String()})
	if err != nil {
		t.Fatal(err)
	}
	pow, err := randomx.New(randomx.Options{})
	if err != nil {
		t.Fatal(err)
	}
	c, err := chain.Open(db, chain.Config{Network: params.Regtest, FixedDifficulty: 1, PoW: pow})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := importer.Import(context.Background(), c, raw, maxBlocks, nil); err != nil {
		t.Fatal(err)
	}
	pool := txpool.NewForChain(c, txpool.Options{})
	t.Cleanup(func() { pow.Close(); db.Close() })
	return c, pool
}

// requests are asked of both servers: every method built, and errors.
func requests(t testing.TB, c *chain.Chain) []string {
	height := c.Height()
	var hashes, txs []string
	_ = c.Store().View(func(r *chaindb.Reader) error {
		for h := uint64(0); h < height; h++ {
			m, err := r.MetaByHeight(h)
			if err != nil {
				return err
			}
			hashes = append(hashes, m.Hash.String())
			if h%7 == 0 {
				txs = append(txs, m.MinerTxHash.String())
			}
			ids, _ := r.TxHashes(h)
			for _, id := range ids {
				txs = append(txs, id.String())
			}
		}
		return nil
	})
	req := func(id, method, params string) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":%q,"params":%s}`, id, method, params)
	}
	var out []string
	for _, m := range []string{"get_height", "get_rpc_version", "get_last_block_header"} {
		out = append(out, req("1", m, "{}"))
	}
	for h := uint64(0); h < height; h += 5 {
		out = append(out, req(strconv.FormatUint(h, 10), "get_block_header_by_height", fmt.Sprintf(`{"height":%d}`, h)),
			req(`"x"`, "get_block_header_by_hash", fmt.Sprintf(`{"hash":%q}`, hashes[h])))
	}
	var hs []string
	for h := uint64(0); h < height; h += 3 {
		hs = append(hs, strconv.FormatUint(h, 10))
	}
	out = append(out, req("2", "get_block_headers_by_height", `{"heights":[`+strings.Join(hs, ",")+`]}`))
	for _, tx := range txs {
		out = append(out, req("3", "get_tx_global_output_indices", fmt.Sprintf(`{"tx_hash":%q}`, tx)))
	}
	zero := strings.Repeat("0", 64)
	gen := hashes[0]
	for _, known := range []string{`["` + gen + `"]`, `["` + hashes[150] + `","` + gen + `"]`, `["` + zero + `","` + hashes[height-1] + `","` + gen + `"]`,
		`["` + hashes[5] + `"]`, `[]`} {
		out = append(out, req("8", "get_hashes_fast", `{"known_hashes":`+known+`,"start_height":0}`))
		for _, prune := range []string{"true", "false"} {
			for _, start := range []uint64{0, 1, 290, height - 1, height} {
				out = append(out, req("8", "get_blocks_fast", fmt.Sprintf(`{"block_ids":%s,"start_height":%d,"prune":%s}`, known, start, prune)))
			}
		}
	}
	for i := 0; i < len(txs); i += 40 {
		chunk := txs[i:min(len(txs), i+40)]
		out = append(out, req("9", "get_transactions", `{"tx_hashes":["`+strings.Join(chunk, `","`)+`","`+zero+`"]}`))
	}
	out = append(out, req("9", "get_transactions", `{"tx_hashes":[]}`), req("9", "get_transactions", `{"tx_hashes":[1]}`),
		req("9", "get_transactions", `{"tx_hashes":["`+txs[0]+`","`+txs[0]+`"]}`))
	var many []string
	for i := 0; i < 101; i++ {
		many = append(many, `"`+zero+`"`)
	}
	out = append(out, req("9", "get_transactions", `{"tx_hashes":[`+strings.Join(many, ",")+`]}`))
	var outs []string
	for i := 0; i < 600; i += 7 {
		outs = append(outs, fmt.Sprintf(`{"amount":0,"index":%d}`, i))
	}
	out = append(out, req("10", "get_output_keys", `{"outputs":[`+strings.Join(outs, ",")+`]}`),
		req("10", "get_output_keys", `{"outputs":[{"amount":0,"index":0},{"amount":0,"index":99999999}]}`),
		req("10", "get_output_keys", `{"outputs":[{"amount":5,"index":0}]}`),
		req("10", "get_output_keys", `{"outputs":[{"amount":0}]}`),
		req("10", "get_output_keys", `{"outputs":[1]}`))
	for _, p := range []string{`{"amounts":[0],"from_height":0,"to_height":0,"cumulative":false}`,
		`{"amounts":[0],"from_height":0,"to_height":0,"cumulative":true}`,
		`{"amounts":[0],"from_height":10,"to_height":100,"cumulative":false}`,
		`{"amounts":[0],"from_height":10,"to_height":100,"cumulative":true}`,
		fmt.Sprintf(`{"amounts":[0],"from_height":0,"to_height":%d,"cumulative":true}`, height),
		fmt.Sprintf(`{"amounts":[0],"from_height":%d,"to_height":0,"cumulative":true}`, height),
		`{"amounts":[0],"from_height":50,"to_height":20,"cumulative":true}`,
		`{"amounts":[0,1000],"from_height":0,"to_height":0,"cumulative":true}`,
		`{"amounts":[1000],"from_height":5,"to_height":0,"cumulative":false}`,
		`{"amounts":[],"from_height":0,"to_height":0,"cumulative":false}`,
		`{"amounts":[0],"from_height":0,"to_height":0}`} {
		out = append(out, req("11", "get_output_distribution", p))
	}
	out = append(out, req("12", "get_info", "{}"), req("12", "get_info", "[]"), req("12", "get_transaction_pool", "{}"))
	for _, h := range []string{"0", "1", strconv.FormatUint(height-1, 10), strconv.FormatUint(height, 10), "-1", `"1"`} {
		out = append(out, req("15", "get_block_hash", `{"height":`+h+`}`))
	}
	var txBlob string
	_ = c.Store().View(func(r *chaindb.Reader) error {
		for h := height - 1; h > 0 && txBlob == ""; h-- {
			ids, _ := r.TxHashes(h)
			if len(ids) > 0 {
				b, err := r.TxBlob(ids[0])
				if err != nil {
					return err
				}
				txBlob = hex.EncodeToString(b)
			}
		}
		return nil
	})
	for _, p := range []string{`{"tx_as_hex":"zz","relay":true}`, `{"tx_as_hex":"abc","relay":true}`,
		`{"tx_as_hex":"0102","relay":true}`, `{"tx_as_hex":"` + txBlob + `","relay":true}`,
		`{"tx_as_hex":"` + txBlob + `","relay":false}`, `{"tx_as_hex":"` + txBlob + `"}`, `{"relay":true}`,
		`{"tx_as_hex":1,"relay":true}`} {
		out = append(out, req("16", "send_raw_tx_hex", p))
	}
	const addr = "44AFFq5kSiGBoZ4NMDwYtN18obc8AemS33DBLWs3H7otXft3XjrpDtQGv7SqSsaBYBb98uNbr2VBBEt7f2wfn3RVGQBEP3A"
	for _, p := range []string{`{"miner_address":"x","threads_count":1,"do_background_mining":false,"ignore_battery":false}`,
		`{"miner_address":"` + addr + `","threads_count":100000,"do_background_mining":false,"ignore_battery":false}`,
		`{"miner_address":"` + addr + `","threads_count":1}`, `{}`} {
		out = append(out, req("17", "start_mining", p))
	}
	out = append(out, req("17", "mining_status", "{}"), req("17", "stop_mining", "{}"), req("17", "mining_status", "{}"),
		req("17", "save_bc", "{}"))
	for _, l := range []string{"0", "4", "5", "-1", "1.5", `"1"`, "4294967296"} {
		out = append(out, req("18", "set_log_level", `{"level":`+l+`}`))
	}
	out = append(out, req("18", "set_log_level", `{"level":0}`))
	recent := strconv.FormatInt(time.Now().Unix()-3600, 10)
	for _, p := range []string{`{"amounts":[0],"min_count":0,"max_count":0,"unlocked":false,"recent_cutoff":0}`,
		`{"amounts":[0],"min_count":0,"max_count":0,"unlocked":true,"recent_cutoff":0}`,
		`{"amounts":[0,0,5],"min_count":0,"max_count":0,"unlocked":true,"recent_cutoff":` + recent + `}`,
		`{"amounts":[],"min_count":0,"max_count":0,"unlocked":true,"recent_cutoff":` + recent + `}`,
		`{"amounts":[0],"min_count":100000,"max_count":0,"unlocked":false,"recent_cutoff":` + recent + `}`,
		`{"amounts":[0],"min_count":1,"max_count":5,"unlocked":false,"recent_cutoff":` + recent + `}`,
		`{"amounts":[0],"min_count":0,"max_count":0,"unlocked":false}`} {
		out = append(out, req("19", "get_output_histogram", p))
	}
	for _, p := range []string{`{"version":0}`, `{"version":1}`, `{"version":16}`, `{"version":17}`, `{"version":255}`,
		`{"version":256}`, `{"version":-1}`, `{"version":4294967296}`, `{}`, `{"version":"1"}`} {
		out = append(out, req("13", "hard_fork_info", p))
	}
	for _, p := range []string{`{"num_grace_blocks":0}`, `{"num_grace_blocks":10}`, `{"num_grace_blocks":99}`,
		`{"num_grace_blocks":100}`, `{"num_grace_blocks":101}`, `{}`, `{"grace_blocks":1}`} {
		out = append(out, req("14", "get_dynamic_fee_estimate", p))
	}
	out = append(out, req("8", "get_blocks_fast", `{"block_ids":["`+gen+`"],"start_height":0}`),
		req("8", "get_blocks_fast", `{"block_ids":["`+gen+`"],"start_height":0,"prune":1}`),
		req("8", "get_blocks_fast", `{"start_height":0,"prune":true}`),
		req("8", "get_hashes_fast", `{"known_hashes":["`+gen+`"]}`),
		req("8", "get_hashes_fast", `{"known_hashes":"`+gen+`","start_height":0}`))
	out = append(out,
		req("4", "key_images_spent", `{"key_images":["`+zero+`","`+strings.Repeat("ab", 32)+`"]}`),
		// Failures and malformed parameters.
		req("5", "get_block_header_by_height", fmt.Sprintf(`{"height":%d}`, height)),
		req("5", "get_block_header_by_hash", `{"hash":"`+zero+`"}`),
		req("5", "get_block_header_by_hash", `{"hash":"xyz"}`),
		req("5", "get_block_header_by_hash", `{"hash":12}`),
		req("5", "get_block_header_by_hash", `[]`),
		req("5", "get_block_header_by_height", `{"height":-1}`),
		req("5", "get_block_header_by_height", `{"height":1.0}`),
		req("5", "get_block_header_by_height", `{}`),
		req("5", "get_block_headers_by_height", fmt.Sprintf(`{"heights":[1,%d]}`, height)),
		req("5", "get_block_headers_by_height", `{"heights":{}}`),
		req("5", "get_tx_global_output_indices", `{"tx_hash":"`+zero+`"}`),
		req("5", "key_images_spent", `{"key_images":[1]}`),
		// Ids: echoed as monerod's writer writes them.
		req(`"a\u0001\/\"é"`, "get_height", "{}"),
		req(`null`, "get_height", "{}"),
		req(`-0`, "get_height", "{}"),
		req(`1e2`, "get_height", "{}"),
		req(`1.25`, "get_height", "{}"),
		req(`18446744073709551615`, "get_height", "{}"),
		req(`-12345678901234567890`, "get_height", "{}"),
		req(`0.1`, "get_height", "{}"), req(`1e21`, "get_height", "{}"), req(`1e22`, "get_height", "{}"),
		req(`5e-324`, "get_height", "{}"), req(`1.7976931348623157e308`, "get_height", "{}"),
		req(`123456.789e3`, "get_height", "{}"), req(`2.5e-5`, "get_height", "{}"), req(`0.30000000000000004`, "get_height", "{}"),
		req(`3.141592653589793238462643383279`, "get_height", "{}"), req(`1e-320`, "get_height", "{}"),
		req(`9007199254740993.5`, "get_height", "{}"), req(`123456789012345678901234567890e-10`, "get_height", "{}"),
		req(`1e-7`, "get_height", "{}"),
		req(`[]`, "get_height", "{}"),
		req(`true`, "get_height", "{}"),
		// Envelope errors.
		`{"jsonrpc":"2.0","method":"get_height","params":{}}`,
		`{"jsonrpc":"2.0","id":1,"method":"get_height"}`,
		`{"id":1,"method":"get_height","params":{}}`,
		`{"jsonrpc":"2.0","id":1,"params":{}}`,
		`{"jsonrpc":"2.0","id":1,"method":7,"params":{}}`,
		`{"jsonrpc":"2.0","id":1,"method":"get_height","params":{}`,
		`{"jsonrpc":"2.0","id":1,"method":"get_height","params":{}} x`,
		`{"jsonrpc":"2.0","id":1,"method":"get_height","params":{}}`+"\x00garbage",
		`{"jsonrpc":"2.0","id":1,"method":"get_height\u0000x","params":{}}`,
		`{"jsonrpc":"2.0","id":1,"method":"get_height","method":"nope","params":{}}`,
		`[1,2]`, ``, `{}`, `"x"`, `{"a":1e999}`, `{"a":"`+"\x01"+`"}`, `{"a":"\ud800"}`,
		req("6", "no_such_method", "{}"),
		req("6", "get_fee_estimate", "{}"),
		req("6", "relay_tx", "{}"),
		req("6", "flush_txpool", "{}"),
		req("6", "get_peer_list", "{}"),
	)
	return out
}

func TestAgainstMonerod(t *testing.T) {
	lab := monerodlab.Require(t)
	fresh := lab.FreshChain(t)
	c, pool := openChain(t, fresh.RawFile, 0)
	reqs := requests(t, c)
	for _, restricted := range []bool{false, true} {
		t.Run(fmt.Sprintf("restricted=%v", restricted), func(t *testing.T) {
			pubPort := monerodlab.FreePort(t)
			extra := []string{fmt.Sprintf("--zmq-pub=tcp://127.0.0.1:%d", pubPort)}
			if restricted {
				extra = append(extra, "--restricted-zmq-rpc")
			}
			m := lab.StartMonerod(t, fresh.NodeDir, extra...)
			theirs := dial(t, fmt.Sprintf("127.0.0.1:%d", m.RPCPort+1000))

			s, err := New(Config{Addr: "127.0.0.1:0", Restricted: restricted, Version: "0.18.5.3"},
				Backend{Chain: NewChainSource(c), Pool: NewPoolSource(pool), Submit: pool})
			if err != nil {
				t.Fatal(err)
			}
			if err := s.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s.Close() })
			ours := dial(t, s.Addr().String())

			list := reqs
			if restricted {
				list = append(list, `{"jsonrpc":"2.0","id":7,"method":"start_mining","params":{}}`,
					`{"jsonrpc":"2.0","id":7,"method":"stop_mining","params":{}}`,
					`{"jsonrpc":"2.0","id":7,"method":"mining_status","params":{}}`,
					`{"jsonrpc":"2.0","id":7,"method":"save_bc","params":{}}`,
					`{"jsonrpc":"2.0","method":"save_bc","params":{}}`)
			}
			for _, q := range list {
				w, g := theirs.call(t, q), ours.call(t, q)
				if strings.Contains(q, `"get_info"`) && !restricted {
					// The start time is each node's own.
					g = regexp.MustCompile(`"start_time":\d+`).ReplaceAllString(g, `"start_time":0`)
					w = regexp.MustCompile(`"start_time":\d+`).ReplaceAllString(w, `"start_time":0`)
				}
				if strings.Contains(q, `"get_transactions"`) {
					// An unordered_map in monerod: compared as JSON values.
					g, w = canonical(t, g), canonical(t, w)
				}
				if g != w {
					t.Errorf("%s\n%s", clip(q), firstDiff(g, w))
				}
			}
			t.Logf("%d requests answered alike", len(list))
			// Multipart: body frames are concatenated.
			for _, frames := range [][][]byte{
				{nil, []byte(`{"jsonrpc":"2.0","id":1,`), []byte(`"method":"get_height","params":{}}`)},
				{[]byte("route"), nil, []byte(`{"jsonrpc":"2.0","id":1,"method":"get_height","params":{}}`)},
			} {
				theirs.send(t, frames...)
				ours.send(t, frames...)
				w, g := theirs.recv(t), ours.recv(t)
				if fmt.Sprintf("%q", g) != fmt.Sprintf("%q", w) {
					t.Errorf("frames %q\n gonero: %q\nmonerod: %q", frames, g, w)
				}
			}
			// A message without delimiter is dropped; the next is answered.
			for _, cl := range []*client{theirs, ours} {
				cl.send(t, []byte(`{"jsonrpc":"2.0","id":1,"method":"get_height","params":{}}`))
			}
			q := `{"jsonrpc":"2.0","id":9,"method":"get_rpc_version","params":{}}`
			if w, g := theirs.call(t, q), ours.call(t, q); g != w {
				t.Errorf("after a message without delimiter\n gonero: %s\nmonerod: %s", g, w)
			}
			// Too large in all, each frame under the limit.
			big := make([]byte, 6<<20)
			for _, cl := range []*client{theirs, ours} {
				cl.send(t, nil, big, big)
			}
			if w, g := theirs.recv(t), ours.recv(t); fmt.Sprintf("%q", g) != fmt.Sprintf("%q", w) {
				t.Errorf("oversized request\n gonero: %q\nmonerod: %q", g, w)
			}
		})
	}
}

// canonical re-encodes a JSON text with sorted object keys.
func canonical(t testing.TB, s string) string {
	var v any
	d := json.NewDecoder(strings.NewReader(s))
	d.UseNumber()
	if err := d.Decode(&v); err != nil {
		t.Fatalf("%v: %s", err, clip(s))
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// firstDiff shows both answers around their first difference.
func firstDiff(g, w string) string {
	i := 0
	for i < len(g) && i < len(w) && g[i] == w[i] {
		i++
	}
	lo := max(0, i-150)
	return fmt.Sprintf("at byte %d:\n gonero: …%s\nmonerod: …%s", i, clip(g[lo:min(len(g), i+150)]), clip(w[lo:min(len(w), i+150)]))
}

func clip(s string) string {
	if len(s) > 600 {
		return s[:600] + "..."
	}
	return s
}

func ioReadFull(r *bufio.Reader, b []byte) (int, error) { return io.ReadFull(r, b) }

// TestPoolAgainstMonerod: both nodes stop below the chain's last block
// with transactions (gonero imports fewer blocks, monerod pops them and
// flushes its pool); that block's transactions are then sent to both over
// ZMQ, and the pool and the methods that look into it must answer alike.
func TestPoolAgainstMonerod(t *testing.T) {
	lab := monerodlab.Require(t)
	fresh := lab.FreshChain(t)
	full, _ := openChain(t, fresh.RawFile, 0)
	height := full.Height()
	var top uint64
	var blobs, jsons []string
	var ids []string
	var kis []string
	// chainTx and minerTx: a transaction of an earlier block and that
	// block's miner transaction, as JSON (send_raw_tx: already in the chain,
	// its key images spent there; a coinbase, changed so that it is not in
	// the chain).
	var chainTx, minerTx string
	_ = full.Store().View(func(r *chaindb.Reader) error {
		for h := uint64(1); h < height && chainTx == ""; h++ {
			hs, _ := r.TxHashes(h)
			if len(hs) == 0 {
				continue
			}
			b, err := r.TxBlob(hs[0])
			if err != nil {
				return err
			}
			chainTx = string(zmqpub.AppendTxJSON(nil, mustParseTx(t, b), false))
			bb, err := r.BlockBlob(h)
			if err != nil {
				return err
			}
			blk, err := cryptonote.ParseBlock(bb)
			if err != nil {
				return err
			}
			minerTx = string(zmqpub.AppendTxJSON(nil, &blk.MinerTx, false))
		}
		for h := height - 1; h > 0; h-- {
			hs, _ := r.TxHashes(h)
			if len(hs) == 0 {
				continue
			}
			top = h
			for _, id := range hs {
				b, err := r.TxBlob(id)
				if err != nil {
					return err
				}
				blobs = append(blobs, hex.EncodeToString(b))
				ids = append(ids, id.String())
				tx, err := cryptonote.ParseTransaction(b)
				if err != nil {
					return err
				}
				jsons = append(jsons, string(zmqpub.AppendTxJSON(nil, tx, false)))
				for _, in := range tx.Inputs {
					if k, ok := in.(cryptonote.TxInToKey); ok {
						kis = append(kis, k.KeyImage.String())
					}
				}
			}
			return nil
		}
		return nil
	})
	if len(blobs) == 0 {
		t.Fatal("the chain has no transactions")
	}
	for _, restricted := range []bool{false, true} {
		t.Run(fmt.Sprintf("restricted=%v", restricted), func(t *testing.T) {
			c, pool := openChain(t, fresh.RawFile, top-1) // genesis, then top-1 blocks
			if c.Height() != top {
				t.Fatalf("imported %d blocks, want %d", c.Height(), top)
			}
			extra := []string{fmt.Sprintf("--zmq-pub=tcp://127.0.0.1:%d", monerodlab.FreePort(t))}
			if restricted {
				extra = append(extra, "--restricted-zmq-rpc")
			}
			m := lab.StartMonerod(t, fresh.NodeDir, extra...)
			if _, err := m.Post("/pop_blocks", []byte(fmt.Sprintf(`{"nblocks":%d}`, height-top))); err != nil {
				t.Fatal(err)
			}
			if err := m.Call("flush_txpool", map[string]any{}, nil); err != nil {
				t.Fatal(err)
			}
			theirs := dial(t, fmt.Sprintf("127.0.0.1:%d", m.RPCPort+1000))
			s, err := New(Config{Addr: "127.0.0.1:0", Restricted: restricted, Version: "0.18.5.3"},
				Backend{Chain: NewChainSource(c), Pool: NewPoolSource(pool), Submit: pool})
			if err != nil {
				t.Fatal(err)
			}
			if err := s.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s.Close() })
			ours := dial(t, s.Addr().String())
			times := regexp.MustCompile(`"(receive_time|last_relayed_time|start_time)":\d+`) // each node's own clock
			answers := func(q string, asJSON bool) (g, w string) {
				t.Helper()
				w, g = theirs.call(t, q), ours.call(t, q)
				w, g = times.ReplaceAllString(w, `"$1":0`), times.ReplaceAllString(g, `"$1":0`)
				if asJSON {
					g, w = canonical(t, g), canonical(t, w)
				}
				return g, w
			}
			ask := func(q string, asJSON bool) {
				t.Helper()
				if g, w := answers(q, asJSON); g != w {
					t.Errorf("%s\n%s", clip(q), firstDiff(g, w))
				}
			}
			// settled asks until both answer alike, for at most 30 s:
			// monerod makes a transaction sent to be relayed public when
			// its relay thread gets to it (an offline node has no one to
			// relay to), which on a loaded machine can come after the
			// answer to send_raw_tx; gonero at once.
			settled := func(q string, asJSON bool) {
				t.Helper()
				g, w := answers(q, asJSON)
				for deadline := time.Now().Add(30 * time.Second); g != w && time.Now().Before(deadline); {
					time.Sleep(100 * time.Millisecond)
					g, w = answers(q, asJSON)
				}
				if g != w {
					t.Errorf("%s\n%s", clip(q), firstDiff(g, w))
				}
			}
			req := func(method, params string) string {
				return fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":%q,"params":%s}`, method, params)
			}
			ask(req("get_height", "{}"), false)
			sendJSON := func(tx, relay string) { ask(req("send_raw_tx", `{"tx":`+tx+`,"relay":`+relay+`}`), false) }
			// send_raw_tx refusing what fromJsonValue or the serialisation
			// refuses, before any of the block's transactions is in the pool.
			for _, m := range txJSONMutations(jsons[0]) {
				sendJSON(m, "true")
			}
			for _, p := range []string{`{"relay":true}`, `{"tx":1,"relay":true}`, `{"tx":` + jsons[0] + `}`,
				`{"tx":` + jsons[0] + `,"relay":1}`, `[]`} {
				ask(req("send_raw_tx", p), false)
			}
			sendJSON(chainTx, "true") // already in the chain
			sendJSON(minerTx, "true") // a miner transaction of the chain: already there too
			sendJSON(strings.Replace(minerTx, `"extra":"`, `"extra":"00`, 1), "true")
			// A transaction of the chain with another extra: its key images
			// are spent in the chain.
			sendJSON(strings.Replace(chainTx, `"extra":"`, `"extra":"00`, 1), "true")
			for i, b := range blobs {
				relay := "true"
				if i%2 == 1 {
					relay = "false"
				}
				if i%3 == 0 {
					sendJSON(jsons[i], relay)
				} else {
					ask(req("send_raw_tx_hex", `{"tx_as_hex":"`+b+`","relay":`+relay+`}`), false)
				}
			}
			ask(req("send_raw_tx_hex", `{"tx_as_hex":"`+blobs[0]+`","relay":true}`), false)
			sendJSON(jsons[0], "true")                                                 // already in the pool
			sendJSON(strings.Replace(jsons[0], `"extra":"`, `"extra":"00`, 1), "true") // its key images spent in the pool
			settled(req("get_transaction_pool", "{}"), true)
			ask(req("get_transactions", `{"tx_hashes":["`+strings.Join(ids, `","`)+`"]}`), true)
			ask(req("key_images_spent", `{"key_images":["`+strings.Join(kis, `","`)+`"]}`), false)
			ask(req("get_info", "{}"), false)
		})
	}
}

// txJSONMutations are variants of a transaction's JSON (a RingCT one with
// bulletproofs) that monerod's send_raw_tx refuses, each in its own way:
// while reading the JSON (a missing member, a wrong type, bad hex, an
// input or output object of the wrong size, numbers out of range), while
// serialising it (counts that disagree, an unknown RingCT type, a pruned
// transaction, versions 0 and 3), or when verifying what it read (an
// unknown input kind left as monerod's default variant, version 1 without
// signatures); and one that is the same transaction in capital hex
// digits. (An unknown output kind is left out: monerod's parser refuses
// the blob, expand_transaction_1, where gonero's checks answer "invalid
// output", for send_raw_tx_hex alike; docs/zmq.md.)
func txJSONMutations(j string) []string {
	one := func(old, new string) string {
		if !strings.Contains(j, old) {
			panic("the transaction's JSON has no " + old)
		}
		return strings.Replace(j, old, new, 1)
	}
	drop := func(re string) string {
		r := regexp.MustCompile(re)
		if !r.MatchString(j) {
			panic("the transaction's JSON has no " + re)
		}
		return r.ReplaceAllString(j, "")
	}
	upper := regexp.MustCompile(`"extra":"[0-9a-f]*"`).ReplaceAllStringFunc(j, strings.ToUpper)
	return []string{
		one(`"version":2`, `"version":3`), one(`"version":2`, `"version":0`), one(`"version":2`, `"version":1`),
		one(`"version":2`, `"version":-1`), one(`"version":2`, `"version":"2"`), one(`"version":2`, `"version":2.0`),
		drop(`"unlock_time":0,`), one(`"inputs":[`, `"inputs":{`) + "", one(`"extra":"`, `"extra":"0`),
		one(`"extra":"`, `"extra":"zz`), one(`"extra":"`, `"extra":1,"x":"`),
		one(`{"to_key":{`, `{"x":1,"to_key":{`), one(`{"to_key":{`, `{"to_kex":{`), one(`"key_offsets":[`, `"key_offsets":[-1,`),
		one(`"key_image":"`, `"key_image":"0`), one(`"key_image":"`, `"key_image":"0"`+`,"y":"`),
		one(`{"amount":0,"to_tagged_key"`, `{"amount":0,"amount":0,"to_tagged_key"`),
		one(`"view_tag":"`, `"view_tag":"0`),
		one(`"type":6`, `"type":256`), one(`"type":6`, `"type":7`), one(`"type":6`, `"type":4294967296`),
		one(`"type":6`, `"type":0`), one(`"type":6`, `"type":5`), one(`"commitments":["`, `"commitments":["00`),
		drop(`,"prunable":\{.*\}\}$`) + "}}", drop(`"signatures":\[\],`), regexp.MustCompile(`"clsags":\[\{[^}]*\},?`).ReplaceAllString(j, `"clsags":[`),
		one(`"fee":`, `"fee":-`), one(`"encrypted":[{`, `"encrypted":[1,{`), one(`"bulletproofs_plus":[{`, `"bulletproofs_plus":[{"x":1},{`),
		one(`"clsags":[`, `"clsags":[1,`), one(`"pseudo_outs":["`, `"pseudo_outs":[1,"`), drop(`"mask":"[0-9a-f]*",`),
		// Last: accepted, it puts the transaction's key images in the pool.
		strings.Replace(upper, `"EXTRA"`, `"extra"`, 1),
	}
}

// TestAltBlockHeaderAgainstMonerod: both nodes get the same alternative
// block (a block of the chain without transactions, mined again with
// another nonce on the same parent); get_block_header_by_hash finds it in
// both (its own fields, the main chain's difficulty at its height), and
// get_info counts it.
func TestAltBlockHeaderAgainstMonerod(t *testing.T) {
	lab := monerodlab.Require(t)
	fresh := lab.FreshChain(t)
	c, pool := openChain(t, fresh.RawFile, 0)
	m := lab.StartMonerod(t, fresh.NodeDir, fmt.Sprintf("--zmq-pub=tcp://127.0.0.1:%d", monerodlab.FreePort(t)))
	theirs := dial(t, fmt.Sprintf("127.0.0.1:%d", m.RPCPort+1000))
	s, err := New(Config{Addr: "127.0.0.1:0", Version: "0.18.5.3"},
		Backend{Chain: NewChainSource(c), Pool: NewPoolSource(pool), Submit: pool})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	ours := dial(t, s.Addr().String())

	// Alternative blocks at the top's height and below it.
	var alts []cryptonote.Hash
	top := c.Height() - 1
	for _, h := range []uint64{top, top - 1, top / 2} {
		var blk *cryptonote.Block
		_ = c.Store().View(func(r *chaindb.Reader) error {
			for ; h > 0; h-- {
				hs, err := r.TxHashes(h)
				if err != nil {
					return err
				}
				if len(hs) > 0 {
					continue
				}
				b, err := r.BlockBlob(h)
				if err != nil {
					return err
				}
				blk, err = cryptonote.ParseBlock(b)
				return err
			}
			return nil
		})
		if blk == nil {
			t.Fatalf("no block without transactions at or below %d", h)
		}
		blk.Nonce ^= 0x5a5a5a5a
		blob := blk.Serialize()
		if _, err := c.Add(blk, blob, nil, nil); err != nil {
			t.Fatalf("gonero refuses the alternative block at %d: %v", h, err)
		}
		// monerod's submit_block answers "Block not accepted" for a block
		// that does not extend the main chain, and keeps it.
		_ = m.Call("submit_block", []string{hex.EncodeToString(blob)}, nil)
		id, err := blk.ID()
		if err != nil {
			t.Fatal(err)
		}
		alts = append(alts, id)
	}
	req := func(method, params string) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":%q,"params":%s}`, method, params)
	}
	qs := []string{req("get_info", "{}"), req("get_block_header_by_height", fmt.Sprintf(`{"height":%d}`, top))}
	for _, id := range alts {
		qs = append(qs, req("get_block_header_by_hash", `{"hash":"`+id.String()+`"}`))
	}
	for _, q := range qs {
		w, g := theirs.call(t, q), ours.call(t, q)
		g = regexp.MustCompile(`"start_time":\d+`).ReplaceAllString(g, `"start_time":0`)
		w = regexp.MustCompile(`"start_time":\d+`).ReplaceAllString(w, `"start_time":0`)
		if g != w {
			t.Errorf("%s\n%s", clip(q), firstDiff(g, w))
		}
		if strings.Contains(q, "by_hash") && strings.Contains(g, `"error"`) {
			t.Errorf("%s: %s", clip(q), g)
		}
	}
}

// TestGenesisOnlyAgainstMonerod: both nodes with nothing but the genesis
// block, where monerod's current hard fork is still version 1, below the
// per-byte fee: get_dynamic_fee_estimate's per-kB answer, and the other
// methods on the smallest chain.
func TestGenesisOnlyAgainstMonerod(t *testing.T) {
	lab := monerodlab.Require(t)
	db, err := chaindb.Open(filepath.Join(t.TempDir(), "chain.db"), chaindb.Options{Network: params.Regtest.String()})
	if err != nil {
		t.Fatal(err)
	}
	pow, err := randomx.New(randomx.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pow.Close(); db.Close() })
	c, err := chain.Open(db, chain.Config{Network: params.Regtest, FixedDifficulty: 1, PoW: pow})
	if err != nil {
		t.Fatal(err)
	}
	pool := txpool.NewForChain(c, txpool.Options{})
	m := lab.StartMonerod(t, "", fmt.Sprintf("--zmq-pub=tcp://127.0.0.1:%d", monerodlab.FreePort(t)))
	theirs := dial(t, fmt.Sprintf("127.0.0.1:%d", m.RPCPort+1000))
	s, err := New(Config{Addr: "127.0.0.1:0", Version: "0.18.5.3"},
		Backend{Chain: NewChainSource(c), Pool: NewPoolSource(pool), Submit: pool})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	ours := dial(t, s.Addr().String())
	req := func(method, params string) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":%q,"params":%s}`, method, params)
	}
	qs := []string{req("get_info", "{}"), req("get_last_block_header", "{}"), req("hard_fork_info", `{"version":0}`),
		req("hard_fork_info", `{"version":1}`), req("get_output_distribution", `{"amounts":[0],"from_height":0,"to_height":0,"cumulative":true}`)}
	for _, g := range []int{0, 1, 10, 99, 100, 101} {
		qs = append(qs, req("get_dynamic_fee_estimate", fmt.Sprintf(`{"num_grace_blocks":%d}`, g)))
	}
	for _, q := range qs {
		w, g := theirs.call(t, q), ours.call(t, q)
		g = regexp.MustCompile(`"start_time":\d+`).ReplaceAllString(g, `"start_time":0`)
		w = regexp.MustCompile(`"start_time":\d+`).ReplaceAllString(w, `"start_time":0`)
		if g != w {
			t.Errorf("%s\n%s", clip(q), firstDiff(g, w))
		}
	}
}
