package metrics

import (
	"context"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/gonero/gonero/chain"
	"github.com/gonero/gonero/chaindb"
	"github.com/gonero/gonero/chainexport"
	"github.com/gonero/gonero/cryptonote"
	"github.com/gonero/gonero/importer"
	"github.com/gonero/gonero/internal/testutil"
	"github.com/gonero/gonero/params"
	"github.com/gonero/gonero/randomx"
	"github.com/gonero/gonero/txpool"
)

// value is the value of the metric name with the given labels (name=value
// pairs) in a gather of reg, and whether there is one.
func value(t *testing.T, reg prometheus.Gatherer, name string, labels ...string) (float64, bool) {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
	metrics:
		for _, m := range f.GetMetric() {
			for i := 0; i+1 < len(labels); i += 2 {
				if labelValue(m, labels[i]) != labels[i+1] {
					continue metrics
				}
			}
			switch {
			case m.Counter != nil:
				return m.Counter.GetValue(), true
			case m.Gauge != nil:
				return m.Gauge.GetValue(), true
			case m.Histogram != nil:
				return float64(m.Histogram.GetSampleCount()), true
			}
		}
	}
	return 0, false
}

func labelValue(m *dto.Metric, name string) string {
	for _, l := range m.GetLabel() {
		if l.GetName() == name {
			return l.GetValue()
		}
	}
	return ""
}

func mustValue(t *testing.T, reg prometheus.Gatherer, name string, labels ...string) float64 {
	t.Helper()
	v, ok := value(t, reg, name, labels...)
	if !ok {
		t.Fatalf("no %s%v in the registry", name, labels)
	}
	return v
}

// records reads the export file's blocks at the given heights.
func records(t *testing.T, path string, heights ...uint64) map[uint64]*chainexport.Record {
	rd, err := chainexport.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	want := map[uint64]bool{}
	last := uint64(0)
	for _, h := range heights {
		want[h], last = true, max(last, h)
	}
	out := map[uint64]*chainexport.Record{}
	for rd.NextHeight() <= last {
		rec, err := rd.Next()
		if err != nil {
			t.Fatal(err)
		}
		if want[rec.Height] {
			out[rec.Height] = rec
		}
	}
	return out
}

// A real chain and pool feed the metrics: the regtest chain imported up
// to height 289, then block 290's transaction sent to the pool, blocks
// that break rules given to the chain, and block 290 itself. Every
// counter, gauge and histogram moves as the node did.
func TestChainAndPoolFeedMetrics(t *testing.T) {
	raw := testutil.Path(t, "testdata", "regtest", "blockchain.raw")
	m := New()
	dir := t.TempDir()
	storePath := filepath.Join(dir, "chain.db")
	db, err := chaindb.Open(storePath, chaindb.Options{Network: params.Regtest.String()})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	pow, err := randomx.New(randomx.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer pow.Close()
	c, err := chain.Open(db, chain.Config{Network: params.Regtest, FixedDifficulty: 1, PoW: pow, Observer: m})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := importer.Import(context.Background(), c, raw, 289, nil); err != nil {
		t.Fatal(err)
	}
	pool := txpool.NewForChain(c, txpool.Options{Observer: m})
	m.Watch(Sources{Chain: c, Pool: pool, StorePath: storePath, Version: "test"})
	reg := m.Registry()

	if got := mustValue(t, reg, "gonero_blocks_verified_total"); got != 290 { // genesis and 289 imported
		t.Fatalf("blocks verified %v, want 290", got)
	}
	if got := mustValue(t, reg, "gonero_block_verification_seconds"); got != 290 {
		t.Fatalf("block verification observations %v, want 290", got)
	}
	if got := mustValue(t, reg, "gonero_chain_height_blocks"); got != 290 {
		t.Fatalf("height %v, want 290", got)
	}
	if got := mustValue(t, reg, "gonero_store_size_bytes"); got <= 0 {
		t.Fatalf("store size %v", got)
	}
	for _, r := range BlockRefusalReasons() {
		if got := mustValue(t, reg, "gonero_blocks_refused_total", "reason", r); got != 0 {
			t.Fatalf("refused %s: %v before any refusal", r, got)
		}
	}

	recs := records(t, raw, 100, 201, 290, 291)
	// The pool: block 290's first transaction enters, then the same again,
	// one already on the chain, and a blob that does not parse.
	b290 := recs[290]
	if _, err := pool.Add(b290.TxBlobs[0], txpool.AddOptions{}); err != nil {
		t.Fatal(err)
	}
	_, _ = pool.Add(b290.TxBlobs[0], txpool.AddOptions{})
	_, _ = pool.Add(recs[201].TxBlobs[0], txpool.AddOptions{})
	_, _ = pool.Add([]byte{1, 2, 3}, txpool.AddOptions{})
	for _, c := range []struct {
		reason string
		want   float64
	}{{"already_in_pool", 1}, {"already_in_chain", 1}, {"verification_failed", 1}, {"double_spend", 0}} {
		if got := mustValue(t, reg, "gonero_transactions_refused_total", "reason", c.reason); got != c.want {
			t.Errorf("transactions refused %s: %v, want %v", c.reason, got, c.want)
		}
	}
	if got := mustValue(t, reg, "gonero_transactions_verified_total"); got != 1 {
		t.Errorf("transactions verified %v, want 1", got)
	}
	if got := mustValue(t, reg, "gonero_txpool_transactions"); got != 1 {
		t.Errorf("pool size %v, want 1", got)
	}
	if got := mustValue(t, reg, "gonero_txpool_bytes"); got != float64(len(b290.TxBlobs[0])) {
		t.Errorf("pool bytes %v, want %d", got, len(b290.TxBlobs[0]))
	}

	// The chain: an orphan (291 before 290), a known block, a block whose
	// miner transaction breaks a rule, then 290 itself.
	add := func(blk *cryptonote.Block, rec *chainexport.Record) {
		_, _ = c.Add(blk, blk.Serialize(), rec.Txs, rec.TxBlobs)
	}
	add(recs[291].Block, recs[291])
	add(recs[100].Block, recs[100])
	bad := *b290.Block
	bad.MinerTx.UnlockTime++
	add(&bad, b290)
	if _, err := c.Add(b290.Block, b290.BlockBlob, b290.Txs, b290.TxBlobs); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		reason string
		want   float64
	}{{"orphan", 1}, {"already_known", 1}, {"bad_miner_tx", 1}, {"insufficient_pow", 0}, {"other", 0}} {
		if got := mustValue(t, reg, "gonero_blocks_refused_total", "reason", c.reason); got != c.want {
			t.Errorf("blocks refused %s: %v, want %v", c.reason, got, c.want)
		}
	}
	if got := mustValue(t, reg, "gonero_blocks_verified_total"); got != 291 {
		t.Errorf("blocks verified %v, want 291", got)
	}
	if got := mustValue(t, reg, "gonero_block_verification_seconds"); got != 294 {
		t.Errorf("block verification observations %v, want 294 (refused blocks included)", got)
	}
	if got := mustValue(t, reg, "gonero_chain_height_blocks"); got != 291 {
		t.Errorf("height %v, want 291", got)
	}
	if got := mustValue(t, reg, "gonero_txpool_transactions"); got != 0 {
		t.Errorf("pool size %v after the block that mined it, want 0", got)
	}
	if got := mustValue(t, reg, "gonero_txpool_bytes"); got != 0 {
		t.Errorf("pool bytes %v after the block that mined it, want 0", got)
	}
}

// RPC series appear at an endpoint's first request, under its name only,
// and count every request after it.
func TestEndpointObserver(t *testing.T) {
	m := New()
	get := m.Endpoint("/get_height")
	other := m.Endpoint("other")
	if _, ok := value(t, m.Registry(), "gonero_rpc_requests_total", "method", "/get_height"); ok {
		t.Fatal("a series before any request")
	}
	for range 3 {
		get(150 * time.Microsecond)
	}
	other(time.Millisecond)
	if got := mustValue(t, m.Registry(), "gonero_rpc_requests_total", "method", "/get_height"); got != 3 {
		t.Fatalf("requests %v, want 3", got)
	}
	if got := mustValue(t, m.Registry(), "gonero_rpc_request_duration_seconds", "method", "/get_height"); got != 3 {
		t.Fatalf("observations %v, want 3", got)
	}
	if got := mustValue(t, m.Registry(), "gonero_rpc_requests_total", "method", "other"); got != 1 {
		t.Fatalf("other %v, want 1", got)
	}
	if raceEnabled {
		t.Log("allocations per observation not counted under the race detector")
	} else if allocs := testing.AllocsPerRun(1000, func() { get(time.Microsecond) }); allocs != 0 {
		t.Fatalf("%.1f allocations per observation", allocs)
	}
}

// The cost of observing one request (both metrics), without the clock.
func BenchmarkEndpointObserve(b *testing.B) {
	obs := New().Endpoint("getlastblockheader")
	b.ReportAllocs()
	for b.Loop() {
		obs(42 * time.Microsecond)
	}
}

// fakePeers stands for the P2P node.
type fakePeers struct{}

func (fakePeers) Counts() (uint64, uint64, uint64, uint64) { return 2, 3, 0, 0 }
func (fakePeers) Synchronized() bool                       { return true }
func (fakePeers) TargetHeight() uint64                     { return 0 }
func (fakePeers) BlocksFromPeers() uint64                  { return 7 }
func (fakePeers) HandlerPanics() uint64                    { return 1 }
func (fakePeers) RefusedConnections() map[string]uint64 {
	return map[string]uint64{"banned": 0, "in_peers": 4, "per_host": 5, "other": 0}
}
func (fakePeers) DroppedPeers() map[string]uint64 {
	return map[string]uint64{"send_queue_full": 6, "message_too_large": 0, "not_levin": 8}
}

// Scraped 2,000 times the listener does not grow the heap, serves
// /metrics only, and hangs up on a client that never finishes its head.
func TestScrapeLoop(t *testing.T) {
	m := New()
	m.Watch(Sources{Peers: fakePeers{}, Version: "test"})
	m.Endpoint("/get_height")(time.Microsecond)
	s, err := Listen("127.0.0.1:0", m, nil)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.Serve() }()
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := s.Shutdown(ctx); err != nil {
			t.Error(err)
		}
		if err := <-done; err != nil {
			t.Error(err)
		}
	}()
	url := "http://" + s.Addr().String()
	client := &http.Client{Timeout: 10 * time.Second}
	scrape := func() string {
		resp, err := client.Get(url + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode != 200 {
			t.Fatalf("HTTP %d", resp.StatusCode)
		}
		return string(b)
	}
	body := scrape()
	for _, want := range []string{`gonero_peers{direction="in"} 2`, `gonero_peers{direction="out"} 3`, "gonero_synchronized 1",
		"gonero_blocks_synced_total 7", "gonero_p2p_panics_total 1", `gonero_p2p_connections_refused_total{reason="in_peers"} 4`,
		`gonero_p2p_connections_refused_total{reason="banned"} 0`, `gonero_p2p_peers_dropped_total{reason="not_levin"} 8`, `gonero_rpc_requests_total{method="/get_height"} 1`, "go_goroutines", "process_resident_memory_bytes",
		`gonero_build_info{version="test"} 1`, "# HELP gonero_chain_height_blocks"} {
		if want == "# HELP gonero_chain_height_blocks" {
			if strings.Contains(body, want) {
				t.Errorf("a chain gauge without a chain source")
			}
			continue
		}
		if !strings.Contains(body, want) {
			t.Errorf("the scrape lacks %q", want)
		}
	}
	heap := func() uint64 {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc
	}
	for range 200 { // warm up pools and buffers
		scrape()
	}
	before := heap()
	for range 2000 {
		scrape()
	}
	after := heap()
	if after > before+2<<20 {
		t.Errorf("heap grew from %d to %d bytes over 2,000 scrapes", before, after)
	}
	t.Logf("heap %d -> %d bytes over 2,000 scrapes", before, after)
	for _, path := range []string{"/", "/metrics/x", "/debug/pprof/"} {
		resp, err := client.Get(url + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 404 {
			t.Errorf("%s: HTTP %d, want 404", path, resp.StatusCode)
		}
	}
	// A client that sends half a head is cut off after readHeaderTimeout.
	conn, err := (&net.Dialer{}).Dial("tcp", s.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.Write([]byte("GET /metrics HTTP/1.1\r\nHost: x\r\n")); err != nil {
		t.Fatal(err)
	}
	began := time.Now()
	_ = conn.SetReadDeadline(time.Now().Add(readHeaderTimeout + 5*time.Second))
	buf := make([]byte, 512)
	for {
		if _, err := conn.Read(buf); err != nil {
			break
		}
	}
	if took := time.Since(began); took > readHeaderTimeout+2*time.Second {
		t.Errorf("a stalled head held the connection %v", took)
	}
}
