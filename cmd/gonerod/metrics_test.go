package main

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gonero/gonero/chainexport"
	"github.com/gonero/gonero/internal/testutil"
)

// scrape reads a text exposition: every sample by its name and labels as
// printed (`name{a="b"}`), and every family's type by name.
type scrape struct {
	samples map[string]float64
	types   map[string]string
}

func scrapeMetrics(t *testing.T, url string) scrape {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("GET %s: HTTP %d", url, resp.StatusCode)
	}
	s := scrape{samples: map[string]float64{}, types: map[string]string{}}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if f := strings.Fields(line); len(f) == 4 && f[0] == "#" && f[1] == "TYPE" {
			s.types[f[2]] = f[3]
			continue
		}
		if line == "" || line[0] == '#' {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		v, err := strconv.ParseFloat(line[i+1:], 64)
		if err != nil {
			t.Fatalf("sample %q: %v", line, err)
		}
		s.samples[line[:i]] = v
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return s
}

func (s scrape) get(t *testing.T, key string) float64 {
	t.Helper()
	v, ok := s.samples[key]
	if !ok {
		t.Fatalf("the scrape has no %s", key)
	}
	return v
}

// has says whether a family, or a histogram's _bucket/_count/_sum series,
// is exposed under name.
func (s scrape) has(name string) bool {
	if _, ok := s.types[name]; ok {
		return true
	}
	for _, suffix := range []string{"_bucket", "_count", "_sum"} {
		if base, ok := strings.CutSuffix(name, suffix); ok && (s.types[base] == "histogram" || s.types[base] == "summary") {
			return true
		}
	}
	return false
}

// A real gonerod (regtest, offline) with --metrics-bind-port: its
// /metrics moves as it works. The chain is imported up to height 289;
// block 290's first transaction is sent over RPC (the pool grows), a
// block out of order is submitted (refused: orphan), two blocks are mined
// with generateblocks (height, block counters, verification histogram;
// the pool empties), and each RPC endpoint used is counted under its name.
// Every metric the Grafana dashboard queries is in the node's output.
func TestMetricsEndpointMoves(t *testing.T) {
	bin := buildGonerod(t)
	data := t.TempDir()
	raw := testutil.Path(t, "testdata", "regtest", "blockchain.raw")
	importInto(t, bin, data, raw, "--count", "289")
	rd, err := chainexport.Open(raw)
	if err != nil {
		t.Fatal(err)
	}
	if err := rd.Skip(290); err != nil {
		t.Fatal(err)
	}
	b290, err := rd.Next()
	if err != nil {
		t.Fatal(err)
	}
	b291, err := rd.Next()
	rd.Close()
	if err != nil {
		t.Fatal(err)
	}

	// A metrics port equal to the RPC port is refused before anything opens.
	port, mport := freePort(t), freePort(t)
	if out, err := exec.Command(bin, "--regtest", "--data-dir", data, "--offline", "--no-zmq", "--rpc-bind-port", strconv.Itoa(port),
		"--metrics-bind-port", strconv.Itoa(port)).CombinedOutput(); err == nil || !strings.Contains(string(out), "--metrics-bind-port") {
		t.Fatalf("metrics port = RPC port: %v\n%s", err, out)
	}
	// So is a public address without --confirm-external-bind.
	if out, err := exec.Command(bin, "--regtest", "--data-dir", data, "--offline", "--no-zmq", "--rpc-bind-port", strconv.Itoa(port),
		"--metrics-bind-ip", "0.0.0.0", "--metrics-bind-port", strconv.Itoa(mport)).CombinedOutput(); err == nil || !strings.Contains(string(out), "--metrics-bind-ip") {
		t.Fatalf("public metrics address: %v\n%s", err, out)
	}

	node := exec.Command(bin, "--regtest", "--fixed-difficulty", "1", "--data-dir", data, "--offline", "--no-zmq",
		"--rpc-bind-port", strconv.Itoa(port), "--metrics-bind-port", strconv.Itoa(mport))
	var logs bytes.Buffer
	node.Stdout, node.Stderr = &logs, &logs
	if err := node.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = node.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { _ = node.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(15 * time.Second):
			_ = node.Process.Kill()
		}
		if t.Failed() {
			t.Logf("gonerod's log:\n%s", logs.String())
		}
	}()
	rpcURL := "http://127.0.0.1:" + strconv.Itoa(port)
	metricsURL := "http://127.0.0.1:" + strconv.Itoa(mport) + "/metrics"
	deadline := time.Now().Add(20 * time.Second)
	for {
		resp, err := http.Get(metricsURL)
		if err == nil {
			resp.Body.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("metrics never came up:\n%s", logs.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	call := func(path, body string) []byte {
		t.Helper()
		resp, err := http.Post(rpcURL+path, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}

	before := scrapeMetrics(t, metricsURL)
	if got := before.get(t, "gonero_chain_height_blocks"); got != 290 {
		t.Fatalf("height %v, want 290", got)
	}
	for _, key := range []string{"gonero_txpool_transactions", "gonero_txpool_bytes", `gonero_peers{direction="in"}`, `gonero_peers{direction="out"}`} {
		if got := before.get(t, key); got != 0 {
			t.Fatalf("%s %v, want 0", key, got)
		}
	}
	if got := before.get(t, "gonero_synchronized"); got != 1 { // offline counts as synchronized
		t.Fatalf("synchronized %v, want 1", got)
	}
	if got := before.get(t, "gonero_store_size_bytes"); got <= 0 {
		t.Fatalf("store size %v", got)
	}

	call("/get_height", "")
	if b := call("/sendrawtransaction", fmt.Sprintf(`{"tx_as_hex":%q}`, hex.EncodeToString(b290.TxBlobs[0]))); !bytes.Contains(b, []byte(`"status": "OK"`)) {
		t.Fatalf("sendrawtransaction: %s", b)
	}
	inPool := scrapeMetrics(t, metricsURL)
	if got := inPool.get(t, "gonero_txpool_transactions"); got != 1 {
		t.Fatalf("pool size %v after a transaction, want 1", got)
	}
	if got := inPool.get(t, "gonero_txpool_bytes"); got != float64(len(b290.TxBlobs[0])) {
		t.Fatalf("pool bytes %v, want %d", got, len(b290.TxBlobs[0]))
	}
	if got := inPool.get(t, "gonero_transactions_verified_total"); got != before.get(t, "gonero_transactions_verified_total")+1 {
		t.Fatalf("transactions verified %v", got)
	}
	call("/json_rpc", fmt.Sprintf(`{"jsonrpc":"2.0","id":"0","method":"submitblock","params":[%q]}`, hex.EncodeToString(b291.BlockBlob)))
	call("/json_rpc", fmt.Sprintf(`{"jsonrpc":"2.0","id":"0","method":"generateblocks","params":{"amount_of_blocks":2,"wallet_address":%q}}`, alice))
	after := scrapeMetrics(t, metricsURL)

	if got := after.get(t, "gonero_chain_height_blocks"); got != 292 {
		t.Errorf("height %v after generateblocks 2, want 292", got)
	}
	moved := func(key string, want float64) {
		t.Helper()
		if d := after.get(t, key) - before.samples[key]; d != want {
			t.Errorf("%s moved by %v, want %v", key, d, want)
		}
	}
	moved("gonero_blocks_verified_total", 2)
	moved(`gonero_blocks_refused_total{reason="orphan"}`, 1)
	moved("gonero_block_verification_seconds_count", 3)
	moved(`gonero_block_verification_seconds_bucket{le="+Inf"}`, 3)
	moved(`gonero_rpc_requests_total{method="/get_height"}`, 1)
	moved(`gonero_rpc_requests_total{method="/sendrawtransaction"}`, 1)
	moved(`gonero_rpc_requests_total{method="submitblock"}`, 1)
	moved(`gonero_rpc_requests_total{method="generateblocks"}`, 1)
	moved(`gonero_rpc_request_duration_seconds_count{method="generateblocks"}`, 1)
	moved("gonero_blocks_synced_total", 0) // offline: none from peers
	// The RPC defences (docs/public-node.md) are exported, untouched here.
	moved(`gonero_rpc_connections_refused_total{reason="rate"}`, 0)
	moved(`gonero_rpc_connections_evicted_total{reason="idle"}`, 0)
	moved(`gonero_rpc_requests_metered_total{outcome="busy"}`, 0)
	if !after.has("gonero_rpc_connections_open") {
		t.Error("no gonero_rpc_connections_open")
	}
	// --no-zmq: no ZMQ RPC, so none of its series.
	if _, ok := after.samples[`gonero_memory_budget_used_bytes{part="zmq_rpc_answers"}`]; ok || after.has("gonero_zmq_rpc_connections_open") {
		t.Error("ZMQ RPC series without a ZMQ RPC")
	}
	if got := after.get(t, "gonero_txpool_transactions"); got != 0 {
		t.Errorf("pool size %v after its transaction was mined, want 0", got)
	}
	if after.get(t, "process_resident_memory_bytes") <= 0 || after.get(t, "go_goroutines") <= 0 {
		t.Errorf("no process or Go runtime metrics")
	}

	// The dashboard queries only what the node exposes.
	names := dashboardMetrics(t, "../../deploy/grafana/gonero.json")
	if len(names) < 15 {
		t.Fatalf("the dashboard queries only %v", names)
	}
	for _, n := range names {
		if !after.has(n) {
			t.Errorf("the dashboard queries %s, which gonerod does not expose", n)
		}
	}
}

// metricNameRE finds metric names in PromQL: every identifier of the
// node's families (gonero_, go_, process_).
var metricNameRE = regexp.MustCompile(`\b(?:gonero|go|process)_[a-zA-Z0-9_]+\b`)

// dashboardMetrics checks that path is a Grafana dashboard on a
// Prometheus datasource variable and returns the metric names its panels
// and variables query.
func dashboardMetrics(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	type datasource struct {
		Type string `json:"type"`
		UID  string `json:"uid"`
	}
	var d struct {
		Title         string `json:"title"`
		UID           string `json:"uid"`
		SchemaVersion int    `json:"schemaVersion"`
		Panels        []struct {
			ID         int                      `json:"id"`
			Type       string                   `json:"type"`
			Title      string                   `json:"title"`
			Datasource *datasource              `json:"datasource"`
			GridPos    struct{ H, W, X, Y int } `json:"gridPos"`
			Targets    []struct {
				Expr  string `json:"expr"`
				RefID string `json:"refId"`
			} `json:"targets"`
		} `json:"panels"`
		Templating struct {
			List []struct {
				Name       string          `json:"name"`
				Type       string          `json:"type"`
				Query      json.RawMessage `json:"query"`
				Definition string          `json:"definition"`
			} `json:"list"`
		} `json:"templating"`
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&d); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if d.Title == "" || d.UID == "" || d.SchemaVersion < 36 || len(d.Panels) == 0 {
		t.Fatalf("%s: title %q, uid %q, schemaVersion %d, %d panels", path, d.Title, d.UID, d.SchemaVersion, len(d.Panels))
	}
	dsVar := ""
	seen := map[string]bool{}
	for _, v := range d.Templating.List {
		if v.Type == "datasource" && string(v.Query) == `"prometheus"` {
			dsVar = v.Name
		}
		for _, n := range metricNameRE.FindAllString(v.Definition, -1) {
			seen[n] = true
		}
	}
	if dsVar == "" {
		t.Fatalf("%s: no Prometheus datasource variable", path)
	}
	ids := map[int]bool{}
	for _, p := range d.Panels {
		if ids[p.ID] {
			t.Errorf("panel id %d twice", p.ID)
		}
		ids[p.ID] = true
		if p.GridPos.W <= 0 || p.GridPos.H <= 0 || p.GridPos.X+p.GridPos.W > 24 {
			t.Errorf("panel %q: gridPos %+v", p.Title, p.GridPos)
		}
		if p.Type == "row" {
			continue
		}
		if p.Datasource == nil || p.Datasource.Type != "prometheus" || p.Datasource.UID != "${"+dsVar+"}" {
			t.Errorf("panel %q: datasource %+v, want the variable %s", p.Title, p.Datasource, dsVar)
		}
		if len(p.Targets) == 0 {
			t.Errorf("panel %q has no query", p.Title)
		}
		for _, q := range p.Targets {
			found := metricNameRE.FindAllString(q.Expr, -1)
			if len(found) == 0 || q.RefID == "" {
				t.Errorf("panel %q: query %q (refId %q) names no metric", p.Title, q.Expr, q.RefID)
			}
			for _, n := range found {
				seen[n] = true
			}
		}
	}
	var names []string
	for n := range seen {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
