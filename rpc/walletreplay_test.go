package rpc

import (
	"bufio"
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/gonero/gonero/epeejson"
	"github.com/gonero/gonero/importer"
	"github.com/gonero/gonero/internal/testutil"
	"github.com/gonero/gonero/params"
	"github.com/gonero/gonero/portable"
)

// walletExchange is one line of a capture in testdata/regtest/wallet:
// a request monero-wallet-rpc sent to monerod and monerod's answer.
type walletExchange struct {
	Seq                 int    `json:"seq"`
	Wallet              string `json:"wallet"`
	Event               string `json:"event"`
	Injected            string `json:"injected"`
	Path                string `json:"path"`
	RequestContentType  string `json:"request_content_type"`
	RequestBody         string `json:"request_body"`
	RequestBodyHex      string `json:"request_body_hex"`
	Status              int    `json:"status"`
	ResponseContentType string `json:"response_content_type"`
	ResponseBody        string `json:"response_body"`
	ResponseBodyHex     string `json:"response_body_hex"`
}

func (e *walletExchange) request(t *testing.T) []byte {
	if e.RequestBodyHex != "" {
		b, err := hex.DecodeString(e.RequestBodyHex)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	return []byte(e.RequestBody)
}

func (e *walletExchange) response(t *testing.T) []byte {
	if e.ResponseBodyHex != "" {
		b, err := hex.DecodeString(e.ResponseBodyHex)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	return []byte(e.ResponseBody)
}

// walletScenario says how to replay one capture: the chain the daemon had
// at its start, the chain each miner line produced (imported in its place:
// a recorded block cannot be mined again), and whether the daemon was not
// synchronized.
type walletScenario struct {
	file      string
	start     string
	mined     map[int]string // seq of a miner line → the chain it produced
	notSynced bool
	// from, to: replay only these lines (0: all); another scenario part
	// starts on another chain.
	from, to int
}

var walletScenarios = []walletScenario{
	{file: "0-setup", start: "../blockchain.raw"},
	{file: "1-restore-refresh", start: "../blockchain.raw"},
	{file: "1u-untrusted", start: "../blockchain.raw"},
	{file: "1h-restore-height", start: "../blockchain.raw"},
	{file: "2-transfer", start: "../blockchain.raw", mined: map[int]string{19: "blockchain-after-transfer.raw"}},
	{file: "3-open-idle", start: "blockchain-after-transfer.raw"},
	{file: "4a-busy-injected", start: "blockchain-after-transfer.raw"},
	{file: "4b-not-synced", start: "blockchain-after-transfer.raw", notSynced: true},
	{file: "4c-daemon-behind", start: "../blockchain.raw"},
	{file: "4d-fork", start: "blockchain-fork.raw", to: 3},
	{file: "4d-fork", start: "blockchain-after-transfer.raw", from: 4},
	{file: "5-do-not-relay", start: "blockchain-after-transfer.raw", mined: map[int]string{8: "blockchain-after-relay.raw"}},
	{file: "6-sweep-all", start: "blockchain-after-relay.raw",
		mined: map[int]string{1: "blockchain-before-sweep.raw", 16: "blockchain-after-sweep.raw"}},
	{file: "7-extras", start: "blockchain-after-sweep.raw"},
	{file: "8-idle-close", start: "blockchain-after-sweep.raw"},
}

// volatileFields are the answer members that differ from run to run on the
// same chain (the captures' README): the daemon's own clock and disk.
var volatileFields = map[string]bool{
	"start_time": true, "database_size": true, "free_space": true, "rpc_connections_count": true,
	"received_timestamp": true,
}

// Every request monero-wallet-rpc sent monerod in the captured scenarios
// (restore, restore height, untrusted, transfer, sweep, do-not-relay,
// daemon not synchronized, daemon behind, fork, idle, proofs), replayed
// against gonerod on the same chains: each answer has monerod's HTTP
// status, content type and values.
func TestWalletCapturesReplay(t *testing.T) {
	dir := testutil.Path(t, "testdata", "regtest", "wallet")
	for _, sc := range walletScenarios {
		name := sc.file
		if sc.from > 0 || sc.to > 0 {
			name = fmt.Sprintf("%s/%d-%d", sc.file, sc.from, sc.to)
		}
		t.Run(name, func(t *testing.T) {
			var peers Peers
			if sc.notSynced {
				peers = notSynchronized{}
			}
			node := startNodeWith(t, nodeOptions{net: params.Regtest, fixedDifficulty: 1, peers: peers, pool: true,
				exportFile: dir + "/" + sc.start})
			node.relayOffline() // monerod ran --offline
			replayed := 0
			for _, e := range readWalletCapture(t, dir+"/"+sc.file+".jsonl") {
				switch {
				case sc.from > 0 && e.Seq < sc.from, sc.to > 0 && e.Seq > sc.to:
					continue
				case e.Event != "" || e.Injected != "":
					continue // not an exchange with monerod
				case e.Wallet == "miner":
					chainFile, ok := sc.mined[e.Seq]
					if !ok {
						t.Fatalf("line %d mines, and the scenario names no chain for it", e.Seq)
					}
					if _, err := importer.Import(context.Background(), node.chain, dir+"/"+chainFile, 0, nil); err != nil {
						t.Fatalf("line %d: importing %s: %v", e.Seq, chainFile, err)
					}
					continue
				}
				replayed++
				status, ctype, body := postAs(t, node.url+e.Path, e.RequestContentType, e.request(t))
				if status != e.Status || ctype != e.ResponseContentType {
					t.Fatalf("line %d %s: HTTP %d %q, monerod %d %q\n%s", e.Seq, e.Path, status, ctype, e.Status, e.ResponseContentType, body)
				}
				compareCaptured(t, fmt.Sprintf("line %d %s", e.Seq, e.Path), ctype, body, e.response(t))
			}
			t.Logf("%d exchanges replayed, every answer equal to monerod's", replayed)
		})
	}
}

func readWalletCapture(t *testing.T, path string) []walletExchange {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []walletExchange
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 1<<20), 64<<20)
	for sc.Scan() {
		var e walletExchange
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out = append(out, e)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// postAs posts body with the wallet's content type (none for epee bodies).
func postAs(t *testing.T, url, contentType string, body []byte) (int, string, []byte) {
	t.Helper()
	req, err := http.NewRequest("POST", url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header.Get("Content-Type"), b
}

// compareCaptured compares an answer with monerod's by value (epee or
// JSON), the volatile members aside, and lists the differences.
func compareCaptured(t *testing.T, what, ctype string, ours, theirs []byte) {
	t.Helper()
	var o, m any
	if ctype == "application/octet-stream" {
		so, err := portable.Decode(ours)
		if err != nil {
			t.Fatalf("%s: gonerod's epee answer does not decode: %v", what, err)
		}
		sm, err := portable.Decode(theirs)
		if err != nil {
			t.Fatalf("%s: monerod's epee answer does not decode: %v", what, err)
		}
		o, m = portableValue(portable.Value{Type: portable.TypeObject, Object: so}), portableValue(portable.Value{Type: portable.TypeObject, Object: sm})
	} else {
		vo, err := epeejson.Parse(ours)
		if err != nil {
			t.Fatalf("%s: gonerod's answer does not parse: %v\n%s", what, err, ours)
		}
		vm, err := epeejson.Parse(theirs)
		if err != nil {
			t.Fatalf("%s: monerod's answer does not parse: %v", what, err)
		}
		o, m = jsonValue(vo), jsonValue(vm)
	}
	since0180(o, m)
	if reflect.DeepEqual(o, m) {
		return
	}
	diffs := testutil.Diff("", o, m)
	if len(diffs) > 30 {
		diffs = append(diffs[:30], fmt.Sprintf("... and %d more", len(diffs)-30))
	}
	t.Fatalf("%s: gonerod's answer differs from monerod's:\n  %s", what, strings.Join(diffs, "\n  "))
}

// since0180 leaves out of both answers what monerod 0.18.5.3, the
// reference now, answers differently from the 0.18.0 the captures are of:
// send_raw_transaction's new flags (tx_extra_too_big, nonzero_unlock_time)
// get_version's RPC version and new members (current_height,
// target_height, hard_forks) and /getblocks.bin's pool data. TestSendRawTransactionMatchesMonerod and
// TestChangedSince0180MatchesMonerod compare them with 0.18.5.3 live.
func since0180(ours, theirs any) {
	o, ok1 := ours.(map[string]any)
	m, ok2 := theirs.(map[string]any)
	if !ok1 || !ok2 {
		return
	}
	if _, ok := o["tx_extra_too_big"]; ok {
		delete(o, "tx_extra_too_big")
		delete(o, "nonzero_unlock_time")
	}
	// /getblocks.bin's pool data (RPC 3.13): 0.18.0 ignored the wallet's
	// requested_info; TestWalletSyncMatchesMonerod and
	// TestTransactionsMatchMonerod compare these with 0.18.5.3 live.
	if _, ok := o["daemon_time"]; ok {
		for _, k := range []string{"daemon_time", "pool_info_extent", "added_pool_txs", "remaining_added_pool_txids", "removed_pool_txids"} {
			delete(o, k)
		}
	}
	or, _ := o["result"].(map[string]any)
	mr, isObject := m["result"].(map[string]any)
	if _, ok := or["hard_forks"]; ok && isObject {
		for _, k := range []string{"current_height", "target_height", "hard_forks", "version"} {
			delete(or, k)
			delete(mr, k)
		}
	}
}

// portableValue and jsonValue turn answers into plain comparable values
// (maps, slices, numbers, strings), leaving out the volatile members.
func portableValue(v portable.Value) any {
	switch {
	case v.Type&portable.ArrayFlag != 0:
		l := make([]any, len(v.Array))
		for i := range v.Array {
			l[i] = portableValue(v.Array[i])
		}
		return l
	case v.Type == portable.TypeObject:
		m := map[string]any{}
		for _, e := range v.Object.Entries {
			if !volatileFields[e.Name] {
				m[e.Name] = portableValue(e.Value)
			}
		}
		return m
	case v.Type == portable.TypeString:
		return "0x" + hex.EncodeToString(v.Bytes)
	case v.Type == portable.TypeBool:
		return v.Bool
	case v.Type == portable.TypeDouble:
		return v.Double
	case v.Type == portable.TypeInt64 || v.Type == portable.TypeInt32 || v.Type == portable.TypeInt16 || v.Type == portable.TypeInt8:
		return fmt.Sprintf("%d (type %d)", v.Int, v.Type)
	default:
		return fmt.Sprintf("%d (type %d)", v.Uint, v.Type)
	}
}

func jsonValue(v epeejson.Value) any {
	switch v.Kind {
	case epeejson.KindObject:
		m := map[string]any{}
		for _, mem := range v.Obj {
			// get_info's version names the software (gonerod's own, a
			// deliberate difference); get_version's is the RPC version
			// number, compared.
			if mem.Name == "version" && mem.Value.Kind == epeejson.KindString {
				continue
			}
			if !volatileFields[mem.Name] {
				m[mem.Name] = jsonValue(mem.Value)
			}
		}
		return m
	case epeejson.KindArray:
		l := make([]any, len(v.Arr))
		for i := range v.Arr {
			l[i] = jsonValue(v.Arr[i])
		}
		return l
	case epeejson.KindString:
		return v.Str
	case epeejson.KindBool:
		return v.Bool
	case epeejson.KindUint:
		return v.Uint
	case epeejson.KindInt:
		return v.Int
	default:
		return v.Double
	}
}
