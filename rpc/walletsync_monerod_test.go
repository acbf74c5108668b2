package rpc

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math/rand"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/gonero/gonero/chaindb"
	"github.com/gonero/gonero/cryptonote"
	"github.com/gonero/gonero/internal/monerodlab"
	"github.com/gonero/gonero/internal/testutil"
	"github.com/gonero/gonero/params"
	"github.com/gonero/gonero/portable"
	"github.com/gonero/gonero/rpctypes"
)

// wsChain is what the cross-check requests are built from: the fresh
// chain's block ids, a few transactions and its output counts, read from
// gonero's store (the chains are the same; the answers compared are not
// derived from these).
type wsChain struct {
	ids        []cryptonote.Hash
	txs        []cryptonote.Hash // non-miner transactions, chain order
	minerTxs   []cryptonote.Hash
	rctOutputs uint64
	amounts    map[uint64]uint64 // pre-RingCT amount → count
	timestamps []uint64
}

func readWSChain(t *testing.T, node *testNode) *wsChain {
	t.Helper()
	c := &wsChain{amounts: map[uint64]uint64{}}
	err := node.chain.Store().View(func(r *chaindb.Reader) error {
		height, err := r.Height()
		if err != nil {
			return err
		}
		for h := uint64(0); h < height; h++ {
			m, err := r.MetaByHeight(h)
			if err != nil {
				return err
			}
			c.ids = append(c.ids, m.Hash)
			c.minerTxs = append(c.minerTxs, m.MinerTxHash)
			c.timestamps = append(c.timestamps, m.Timestamp)
			ids, err := r.TxHashes(h)
			if err != nil {
				return err
			}
			c.txs = append(c.txs, ids...)
		}
		if c.rctOutputs, err = r.OutputCount(0); err != nil {
			return err
		}
		return r.ForEachOutputAmount(func(amount, count uint64) error {
			if amount != 0 {
				c.amounts[amount] = count
			}
			return nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.txs) == 0 || len(c.amounts) == 0 {
		t.Fatalf("the fresh chain has %d transactions and %d pre-RingCT amounts; the cases need some", len(c.txs), len(c.amounts))
	}
	return c
}

// exchange is one HTTP answer.
type exchange struct {
	status int
	body   []byte
}

func rawPost(t *testing.T, client *http.Client, url string, body []byte) exchange {
	t.Helper()
	resp, err := client.Post(url, "", bytes.NewReader(body))
	if err != nil {
		t.Fatalf("POST %s: %v", url, err)
	}
	defer client.CloseIdleConnections()
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("POST %s: reading the answer (%d bytes of %d): %v", url, len(b), resp.ContentLength, err)
	}
	return exchange{resp.StatusCode, b}
}

// epee builds a .bin request body from name/value pairs.
func epee(t *testing.T, kv ...any) []byte {
	t.Helper()
	var s portable.Section
	for i := 0; i < len(kv); i += 2 {
		s.Set(kv[i].(string), kv[i+1].(portable.Value))
	}
	b, err := portable.Encode(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func idsBlob(ids ...cryptonote.Hash) portable.Value {
	b := make([]byte, 0, 32*len(ids))
	for _, id := range ids {
		b = append(b, id[:]...)
	}
	return portable.NewBlob(b)
}

func u64s(vs ...uint64) portable.Value {
	arr := make([]portable.Value, len(vs))
	for i, v := range vs {
		arr[i] = portable.NewUint64(v)
	}
	return portable.Value{Type: portable.ArrayFlag | portable.TypeUint64, Array: arr}
}

func outsValue(refs []rpctypes.OutputRef) portable.Value {
	secs := make([]portable.Section, len(refs))
	for i, r := range refs {
		secs[i].Set("amount", portable.NewUint64(r.Amount))
		secs[i].Set("index", portable.NewUint64(r.Index))
	}
	return portable.NewObjectArray(secs)
}

// walletRequests are the .bin and JSON bodies real wallets sent to the
// endpoints of this family (testdata/regtest/wallet/*.jsonl).
func walletRequests(t *testing.T) map[string][][]byte {
	t.Helper()
	want := map[string]bool{"/getblocks.bin": true, "/gethashes.bin": true, "/get_outs.bin": true,
		"/get_output_distribution.bin": true, "/getblocks_by_height.bin": true, "/get_o_indexes.bin": true}
	files, _ := filepath.Glob(testutil.Path(t, "testdata", "regtest", "wallet", "*.jsonl"))
	out := map[string][][]byte{}
	for _, f := range files {
		if filepath.Ext(f[:len(f)-len(".jsonl")]) == ".wallet-calls" {
			continue
		}
		fh, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(fh)
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			var line struct {
				Path           string `json:"path"`
				RequestBodyHex string `json:"request_body_hex"`
				RequestBody    string `json:"request_body"`
				Injected       string `json:"injected"`
			}
			if json.Unmarshal(sc.Bytes(), &line) != nil || !want[line.Path] {
				continue
			}
			body := []byte(line.RequestBody)
			if line.RequestBodyHex != "" {
				if body, err = hex.DecodeString(line.RequestBodyHex); err != nil {
					t.Fatal(err)
				}
			}
			out[line.Path] = append(out[line.Path], body)
		}
		fh.Close()
	}
	if len(out["/getblocks.bin"]) == 0 || len(out["/get_outs.bin"]) == 0 || len(out["/get_output_distribution.bin"]) == 0 {
		t.Fatalf("no wallet requests found in the captures: %v", out)
	}
	return out
}

// The wallet-sync endpoints answer like monerod, byte for byte (status,
// body) on the same fresh chain, on a normal and on a restricted
// listener: real wallet requests from the captures, then cases of our own
// for every request field, limit and failure, and malformed bodies.
func TestWalletSyncMatchesMonerod(t *testing.T) {
	lab := monerodlab.Require(t)
	fresh := lab.FreshChain(t)
	node := startNodeWith(t, nodeOptions{net: params.Regtest, fixedDifficulty: 1, exportFile: fresh.RawFile, pool: true})
	rport := monerodlab.FreePort(t)
	// --disable-rpc-ban: monerod bans a host after a few failed getblocks /
	// gethashes (add_host_fail), which the failure cases here are.
	m := lab.StartMonerod(t, fresh.NodeDir, "--rpc-restricted-bind-port", strconv.Itoa(rport), "--disable-rpc-ban")
	c := readWSChain(t, node)
	height := uint64(len(c.ids))
	top := c.ids[height-1]
	genesis := c.ids[0]
	// A new connection for every request (rawPost closes it after the
	// answer): monerod closes a connection after some answers (a 500)
	// without saying so, and a reused one would fail the next request. The
	// requests do not say "Connection: close", though: monerod then closes
	// the socket with its answer still being written, and a reader slower
	// than the socket buffer (under the race detector) gets it cut after
	// 64 KiB.
	client := &http.Client{Timeout: 2 * time.Minute, Transport: &http.Transport{}}
	monerodURL := fmt.Sprintf("http://127.0.0.1:%d", m.RPCPort)
	monerodRURL := fmt.Sprintf("http://127.0.0.1:%d", rport)

	asked := map[string]int{}
	check := func(name, path string, body []byte, restricted bool) exchange {
		t.Helper()
		ours, theirs := node.url, monerodURL
		if restricted {
			ours, theirs = node.rurl, monerodRURL
		}
		g := rawPost(t, client, ours+path, body)
		w := rawPost(t, client, theirs+path, body)
		testutil.SameDaemonTime(t, g.body, w.body)
		if g.status != w.status || !bytes.Equal(g.body, w.body) {
			t.Errorf("%s %s (restricted %v):\n gonero: %d %s\nmonerod: %d %s", path, name, restricted,
				g.status, clip(fmt.Sprintf("%q", g.body)), w.status, clip(fmt.Sprintf("%q", w.body)))
		}
		asked[path]++
		return w
	}
	both := func(name, path string, body []byte) {
		t.Helper()
		check(name, path, body, false)
		check(name, path, body, true)
	}
	rpcCall := func(method string, params string) []byte {
		return []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":"7","method":%q,"params":%s}`, method, params))
	}

	// Real wallet requests.
	for path, bodies := range walletRequests(t) {
		for i, b := range bodies {
			both(fmt.Sprintf("wallet request %d", i), path, b)
		}
	}

	// /getblocks.bin and its alias.
	mid := height / 2
	sparse := []cryptonote.Hash{c.ids[mid], c.ids[mid-1], c.ids[mid-3], c.ids[mid-7], genesis}
	unknown := cryptonote.Hash{0xde, 0xad}
	for _, path := range []string{"/getblocks.bin", "/get_blocks.bin"} {
		for _, prune := range []bool{true, false} {
			for _, noMiner := range []bool{false, true} {
				p := portable.NewBool(prune)
				nm := portable.NewBool(noMiner)
				name := fmt.Sprintf("prune=%v no_miner_tx=%v", prune, noMiner)
				both("from genesis "+name, path, epee(t, "block_ids", idsBlob(genesis), "prune", p, "no_miner_tx", nm))
				both("from the middle "+name, path, epee(t, "block_ids", idsBlob(sparse...), "prune", p, "no_miner_tx", nm))
				both("unknown ids first "+name, path, epee(t, "block_ids", idsBlob(append([]cryptonote.Hash{unknown, {1}}, sparse...)...), "prune", p, "no_miner_tx", nm))
				both("start_height "+name, path, epee(t, "block_ids", idsBlob(genesis), "start_height", portable.NewUint64(height-3), "prune", p, "no_miner_tx", nm))
			}
		}
		both("nothing new", path, epee(t, "block_ids", idsBlob(top, c.ids[height-2], genesis), "prune", portable.NewBool(true)))
		both("nothing new, start_height set", path, epee(t, "block_ids", idsBlob(top), "start_height", portable.NewUint64(5)))
		both("start_height = height", path, epee(t, "block_ids", idsBlob(genesis), "start_height", portable.NewUint64(height)))
		both("start_height huge", path, epee(t, "start_height", portable.NewUint64(1<<63)))
		both("start_height as digits", path, epee(t, "block_ids", idsBlob(genesis), "start_height", portable.NewString("7")))
		both("start_height as uint8", path, epee(t, "block_ids", idsBlob(genesis), "start_height", portable.NewUint8(7)))
		both("bad genesis", path, epee(t, "block_ids", idsBlob(c.ids[3], c.ids[2])))
		both("unknown ids only", path, epee(t, "block_ids", idsBlob(unknown)))
		both("no ids", path, epee(t, "prune", portable.NewBool(true)))
		both("ids of a bad length", path, epee(t, "block_ids", portable.NewBlob(append(genesis[:], 1))))
		both("requested_info 1, the whole pool", path, epee(t, "block_ids", idsBlob(genesis), "prune", portable.NewBool(true),
			"requested_info", portable.NewUint8(1), "pool_info_since", portable.NewUint64(0)))
		both("requested_info 2, pool only", path, epee(t, "block_ids", idsBlob(genesis), "requested_info", portable.NewUint8(2)))
		both("requested_info 3", path, epee(t, "block_ids", idsBlob(genesis), "requested_info", portable.NewUint8(3)))
		both("requested_info as uint64", path, epee(t, "block_ids", idsBlob(genesis), "requested_info", portable.NewUint64(1)))
		for _, n := range []uint64{1, 3, 999, 1000, 1001} {
			both(fmt.Sprintf("max_block_count %d", n), path, epee(t, "block_ids", idsBlob(genesis), "max_block_count", portable.NewUint64(n)))
		}
	}

	// /gethashes.bin and its alias.
	for _, path := range []string{"/gethashes.bin", "/get_hashes.bin"} {
		both("from genesis", path, epee(t, "block_ids", idsBlob(genesis)))
		both("from the middle", path, epee(t, "block_ids", idsBlob(sparse...), "start_height", portable.NewUint64(3)))
		both("from the top", path, epee(t, "block_ids", idsBlob(top, genesis)))
		both("bad genesis", path, epee(t, "block_ids", idsBlob(top), "start_height", portable.NewUint64(42)))
		both("no ids", path, epee(t, "start_height", portable.NewUint64(9)))
	}

	// /getblocks_by_height.bin and its alias.
	for _, path := range []string{"/getblocks_by_height.bin", "/get_blocks_by_height.bin"} {
		both("some heights", path, epee(t, "heights", u64s(0, 1, mid, height-1, mid)))
		both("none", path, epee(t))
		both("beyond the top after two", path, epee(t, "heights", u64s(1, 2, height, 3)))
		many := make([]uint64, restrictedBlockCount+1)
		both("restricted cap + 1", path, epee(t, "heights", u64s(many...)))
		both("restricted cap", path, epee(t, "heights", u64s(many[:restrictedBlockCount]...)))
		both("heights not an array", path, epee(t, "heights", portable.NewUint64(3)))
	}

	// /get_o_indexes.bin.
	for _, id := range []cryptonote.Hash{c.txs[0], c.txs[len(c.txs)-1], c.minerTxs[0], c.minerTxs[height-1], unknown} {
		both("txid "+id.String()[:8], "/get_o_indexes.bin", epee(t, "txid", portable.NewBlob(id[:])))
	}
	both("txid of a bad length", "/get_o_indexes.bin", epee(t, "txid", portable.NewBlob(c.txs[0][:31])))

	// /get_outs.bin and /get_outs.
	rng := rand.New(rand.NewSource(1))
	var refs []rpctypes.OutputRef
	for i := 0; i < 150; i++ {
		refs = append(refs, rpctypes.OutputRef{Amount: 0, Index: uint64(rng.Int63n(int64(c.rctOutputs)))})
	}
	var v1 []rpctypes.OutputRef
	for a, n := range c.amounts {
		v1 = append(v1, rpctypes.OutputRef{Amount: a, Index: n - 1}, rpctypes.OutputRef{Amount: a, Index: 0})
	}
	outsCases := []struct {
		name string
		refs []rpctypes.OutputRef
	}{
		{"150 random RingCT outputs", refs},
		{"the newest RingCT outputs (locked)", []rpctypes.OutputRef{{Amount: 0, Index: c.rctOutputs - 1}, {Amount: 0, Index: c.rctOutputs - 2}, {Amount: 0, Index: 0}}},
		{"pre-RingCT outputs", v1},
		{"an unknown index", append(append([]rpctypes.OutputRef{}, refs[:5]...), rpctypes.OutputRef{Amount: 0, Index: c.rctOutputs})},
		{"an unknown amount", []rpctypes.OutputRef{{Amount: 12345, Index: 0}}},
		{"none", nil},
	}
	for _, oc := range outsCases {
		for _, txid := range []string{"default", "true", "false"} {
			kv := []any{}
			if len(oc.refs) > 0 {
				kv = append(kv, "outputs", outsValue(oc.refs))
			}
			if txid != "default" {
				kv = append(kv, "get_txid", portable.NewBool(txid == "true"))
			}
			both(oc.name+" get_txid "+txid, "/get_outs.bin", epee(t, kv...))
			js, _ := json.Marshal(map[string]any{"outputs": oc.refs, "get_txid": txid == "true"})
			if txid == "default" {
				js, _ = json.Marshal(map[string]any{"outputs": oc.refs})
			}
			js = bytes.ReplaceAll(bytes.ReplaceAll(js, []byte(`"Amount"`), []byte(`"amount"`)), []byte(`"Index"`), []byte(`"index"`))
			both(oc.name+" get_txid "+txid, "/get_outs", js)
		}
	}
	tooMany := make([]rpctypes.OutputRef, restrictedMaxGlobalOuts+1)
	both("restricted cap + 1", "/get_outs.bin", epee(t, "outputs", outsValue(tooMany), "get_txid", portable.NewBool(false)))
	both("outputs not an array of objects", "/get_outs.bin", epee(t, "outputs", u64s(1, 2)))
	both("empty JSON body", "/get_outs", nil)
	both("JSON outputs not objects", "/get_outs", []byte(`{"outputs":[1,2]}`))
	both("JSON not JSON", "/get_outs", []byte(`{"outputs":`))

	// /get_output_distribution.bin and get_output_distribution.
	anyV1 := uint64(0)
	for a := range c.amounts {
		anyV1 = a
		break
	}
	type dreq struct {
		amounts                   []uint64
		from, to                  uint64
		cumulative, compress, bin bool
		setBinary                 bool
	}
	var dcases []dreq
	for _, amounts := range [][]uint64{{0}, {anyV1}, {0, anyV1}, nil} {
		for _, r := range [][2]uint64{{0, 0}, {1, 0}, {5, 20}, {mid, height - 1}, {height - 1, 0}, {20, 5}, {0, height}, {height, 0}} {
			for _, cum := range []bool{false, true} {
				for _, comp := range []bool{false, true} {
					dcases = append(dcases, dreq{amounts: amounts, from: r[0], to: r[1], cumulative: cum, compress: comp, bin: true})
				}
			}
		}
		dcases = append(dcases, dreq{amounts: amounts, bin: false, setBinary: true})
	}
	for _, d := range dcases {
		name := fmt.Sprintf("%+v", d)
		kv := []any{"from_height", portable.NewUint64(d.from), "to_height", portable.NewUint64(d.to),
			"cumulative", portable.NewBool(d.cumulative), "compress", portable.NewBool(d.compress)}
		if len(d.amounts) > 0 {
			kv = append(kv, "amounts", u64s(d.amounts...))
		}
		if d.setBinary {
			kv = append(kv, "binary", portable.NewBool(d.bin))
		}
		both(name, "/get_output_distribution.bin", epee(t, kv...))
		p, _ := json.Marshal(map[string]any{"amounts": d.amounts, "from_height": d.from, "to_height": d.to,
			"cumulative": d.cumulative, "compress": d.compress, "binary": d.bin})
		both(name, "/json_rpc", rpcCall("get_output_distribution", string(p)))
	}
	both("binary as uint8", "/get_output_distribution.bin", epee(t, "amounts", u64s(0), "binary", portable.NewUint8(1)))
	both("amounts as strings of digits", "/get_output_distribution.bin", epee(t, "amounts",
		portable.Value{Type: portable.ArrayFlag | portable.TypeString, Array: []portable.Value{portable.NewString("0")}}))
	both("JSON amounts of the wrong type", "/json_rpc", rpcCall("get_output_distribution", `{"amounts":[true]}`))

	// get_output_histogram.
	cutoff := c.timestamps[mid]
	for _, p := range []string{
		`{}`, `{"amounts":[0]}`, fmt.Sprintf(`{"amounts":[%d,0,0,12345]}`, anyV1),
		`{"min_count":2}`, `{"max_count":3}`, `{"min_count":1,"max_count":1}`,
		`{"unlocked":true}`, fmt.Sprintf(`{"amounts":[0,%d],"unlocked":true}`, anyV1),
		fmt.Sprintf(`{"amounts":[0,%d],"recent_cutoff":%d}`, anyV1, cutoff),
		fmt.Sprintf(`{"amounts":[0],"unlocked":true,"recent_cutoff":%d}`, c.timestamps[height-1]),
		`{"amounts":[0],"recent_cutoff":1000}`, `{"amounts":[12345]}`, `{"amounts":[12345],"min_count":1}`,
		`{"amounts":"x"}`, `{"amounts":[-1]}`, `{"min_count":"x"}`,
	} {
		both(p, "/json_rpc", rpcCall("get_output_histogram", p))
	}

	// Malformed bodies, on every .bin path.
	good := epee(t, "block_ids", idsBlob(genesis))
	for _, path := range []string{"/getblocks.bin", "/gethashes.bin", "/getblocks_by_height.bin", "/get_o_indexes.bin",
		"/get_outs.bin", "/get_output_distribution.bin"} {
		both("empty body", path, nil)
		both("not epee", path, []byte("hello"))
		both("JSON", path, []byte(`{"block_ids":""}`))
		both("header only", path, good[:9])
		both("truncated", path, good[:len(good)-5])
		both("trailing bytes", path, append(append([]byte{}, good...), 1, 2, 3))
		both("client not a string", path, epee(t, "client", portable.NewUint64(1)))
		both("start_height a string", path, epee(t, "start_height", portable.NewString("abc")))
		both("prune an integer", path, epee(t, "prune", portable.NewUint8(1)))
		both("block_ids an integer", path, epee(t, "block_ids", portable.NewUint64(1)))
		both("heights of strings", path, epee(t, "heights", portable.NewBlobArray([][]byte{[]byte("x")})))
		both("amounts of negatives", path, epee(t, "amounts", portable.Value{Type: portable.ArrayFlag | portable.TypeInt64, Array: []portable.Value{portable.NewInt64(-1)}}))
		both("txid an object", path, epee(t, "txid", portable.NewObject(portable.Section{})))
		both("outputs element with a bad index", path, epee(t, "outputs", portable.NewObjectArray([]portable.Section{{Entries: []portable.Entry{{Name: "index", Value: portable.NewString("x")}}}})))
	}
	t.Logf("questions per path (each on both listeners): %v", asked)
}
