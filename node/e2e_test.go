package node

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-zeromq/zmq4"

	"github.com/gonero/gonero/httpd"
	"github.com/gonero/gonero/importer"
	"github.com/gonero/gonero/internal/testutil"
)

// alice is the regtest wallet of testdata/regtest.
const alice = "43HBKxZWFcNgr7c5wiJdRoRb8cqWwS1h4gE5P5MSd27CJDHpVogKad5jJnyYk9m1u11bLAwbNfAawGYbkGEKN1tdVGKR9MS"

// noProgress is an importer.Progress that shows nothing.
type noProgress struct{}

func (noProgress) Begin(uint64, uint64) {}
func (noProgress) Added(uint64)         {}
func (noProgress) End()                 {}

// importRegtest imports testdata/regtest's chain (300 blocks) into cfg's
// store, as gonerod import does.
func importRegtest(t *testing.T, cfg Config) {
	t.Helper()
	s, err := OpenStore(&cfg, slog.New(slog.DiscardHandler), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	raw := testutil.Path(t, "testdata", "regtest", "blockchain.raw")
	if _, err := importer.Import(context.Background(), s.Chain(), raw, 0, noProgress{}); err != nil {
		t.Fatal(err)
	}
}

type nodeInfo struct {
	Height   uint64 `json:"height"`
	Top      string `json:"top_block_hash"`
	Outgoing uint64 `json:"outgoing_connections_count"`
}

func (g *testNode) info() nodeInfo {
	var i nodeInfo
	_ = g.call("get_info", struct{}{}, &i)
	return i
}

// Two nodes: one serves an imported chain on its P2P port, the other is
// given it as an exclusive node, syncs the whole chain, reports the
// connection, and keeps its peer lists file when it stops.
func TestTwoNodesSync(t *testing.T) {
	t.Parallel()
	cfgA := regtestConfig(t, t.TempDir())
	importRegtest(t, cfgA)
	a := startNode(t, cfgA)
	dataB := t.TempDir()
	cfgB := regtestConfig(t, dataB)
	cfgB.P2P.ExclusiveNodes = []string{a.P2PAddr().String()}
	b := startNode(t, cfgB)
	waitFor(t, 60*time.Second, "node B to sync from node A", func() bool {
		ib, ia := b.info(), a.info()
		return ib.Height == 300 && ib.Top == ia.Top && ib.Outgoing == 1
	})
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dataB, "fake", "p2pstate.json")); err != nil {
		t.Fatalf("the peer lists were not saved at shutdown: %v", err)
	}
}

// --rpc-login (digest auth, checked with curl --digest) and a second,
// restricted listener.
func TestLoginAndRestrictedListener(t *testing.T) {
	t.Parallel()
	curl := testutil.RequireTool(t, "curl", "apt-get install curl")
	cfg := regtestConfig(t, t.TempDir())
	cfg.FixedDifficulty = 0
	cfg.RPC.RestrictedBindPort = freePort(t)
	cfg.RPC.Login = &httpd.Login{User: "alice", Password: "s3cret"}
	cfg.P2P.Offline = true
	g := startNode(t, cfg)
	body := `{"jsonrpc":"2.0","id":"0","method":"get_connections"}`
	ask := func(addr string, auth ...string) string {
		args := append([]string{"-s", "-o", "/dev/null", "-w", "%{http_code}", "--data", body}, auth...)
		out, _ := exec.Command(curl, append(args, "http://"+addr+"/json_rpc")...).Output()
		return string(out)
	}
	if got := ask(g.RPCAddr()); got != "401" {
		t.Errorf("without credentials: HTTP %s, want 401", got)
	}
	if got := ask(g.RPCAddr(), "--digest", "-u", "alice:wrong"); got != "401" {
		t.Errorf("wrong password: HTTP %s, want 401", got)
	}
	if got := ask(g.RPCAddr(), "--digest", "-u", "alice:s3cret"); got != "200" {
		t.Errorf("right password: HTTP %s, want 200", got)
	}
	out, _ := exec.Command(curl, "-s", "--digest", "-u", "alice:s3cret", "--data", body, "http://"+g.RestrictedRPCAddr()+"/json_rpc").Output()
	if !strings.Contains(string(out), "-32601") {
		t.Errorf("get_connections on the restricted listener: %s", out)
	}
}

// lockedBuffer is a log that a test reads while the node writes it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// The README's quick start: a regtest node with StartMining mines to the
// address on its own, answers generateblocks at the same time, stops
// cleanly, and keeps what it mined for the next start.
func TestStartMining(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	cfg := regtestConfig(t, data)
	cfg.P2P.Offline = true
	var logs lockedBuffer
	cfg.Logger = slog.New(slog.NewTextHandler(&logs, nil))
	cfg.StartMining, cfg.MiningInterval = alice, 200*time.Millisecond
	n, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := n.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = n.Close() })
	g := &testNode{Node: n, client: &http.Client{Timeout: 30 * time.Second}}
	count := func() uint64 {
		var r struct {
			Count uint64 `json:"count"`
		}
		_ = g.call("get_block_count", struct{}{}, &r)
		return r.Count
	}
	waitFor(t, 30*time.Second, "the miner's blocks", func() bool { return count() >= 6 })
	var gen struct {
		Blocks []string `json:"blocks"`
	}
	if err := g.call("generateblocks", map[string]any{"amount_of_blocks": 20, "wallet_address": alice}, &gen); err != nil || len(gen.Blocks) != 20 {
		t.Fatalf("generateblocks while mining: %v %+v", err, gen)
	}
	if err := n.Close(); err != nil {
		t.Fatalf("closing: %v\n%s", err, logs.String())
	}
	mined := strings.Count(logs.String(), "mined block")
	if mined < 5 || !strings.Contains(logs.String(), "mining stopped") {
		t.Fatalf("%d blocks logged:\n%s", mined, logs.String())
	}
	// 1 genesis + the loop's blocks + generateblocks' 20.
	want := uint64(1 + mined + 20)

	cfg.StartMining = ""
	cfg.Logger = testLogger(t, slog.LevelInfo)
	g = startNode(t, cfg)
	if h := count(); h != want {
		t.Fatalf("after restart: height %d, want %d (%d mined by the loop)", h, want, mined)
	}
}

// The node publishes over ZMQ (here on an ipc:// endpoint): a subscriber
// to json-minimal-chain_main gets each mined block's height and id as
// getblockheaderbyheight reports them. monerod's bytes are compared in
// cmd/gonerod's TestZMQMatchesMonerod.
func TestZMQPublishes(t *testing.T) {
	t.Parallel()
	endpoint := "ipc://" + filepath.Join(t.TempDir(), "zmq.sock")
	cfg := regtestConfig(t, t.TempDir())
	cfg.P2P.Offline = true
	cfg.ZMQPub = []string{endpoint}
	g := startNode(t, cfg)
	if len(g.ZMQAddrs()) != 1 {
		t.Fatalf("ZMQ publisher on %v, want %s", g.ZMQAddrs(), endpoint)
	}
	ctx, cancel := context.WithCancel(context.Background())
	sub := zmq4.NewSub(ctx)
	t.Cleanup(func() { cancel(); _ = sub.Close() })
	if err := sub.Dial(endpoint); err != nil {
		t.Fatal(err)
	}
	if err := sub.SetOption(zmq4.OptionSubscribe, "json-minimal-chain_main"); err != nil {
		t.Fatal(err)
	}
	msgs := make(chan string, 100)
	go func() {
		for {
			m, err := sub.Recv()
			if err != nil {
				return
			}
			msgs <- string(bytes.Join(m.Frames, []byte("|")))
		}
	}()
	generate := func(n int) []string {
		var gen struct {
			Blocks []string `json:"blocks"`
		}
		if err := g.call("generateblocks", map[string]any{"amount_of_blocks": n, "wallet_address": alice}, &gen); err != nil || len(gen.Blocks) != n {
			t.Fatalf("generateblocks: %v %+v", err, gen)
		}
		return gen.Blocks
	}
	next := func(within time.Duration) (string, bool) {
		select {
		case m := <-msgs:
			return m, true
		case <-time.After(within):
			return "", false
		}
	}
	// The subscription reaches the publisher asynchronously: mine a probe
	// block until one is published to us, then read up to the last probe's
	// message (they come in order).
	var probe string
	for tries := 0; ; tries++ {
		if tries == 50 {
			t.Fatal("no probe block was published to the subscriber")
		}
		probe = generate(1)[0]
		if m, ok := next(200 * time.Millisecond); ok {
			for !strings.Contains(m, probe) {
				if m, ok = next(10 * time.Second); !ok {
					t.Fatalf("the last probe block %s was not published", probe)
				}
			}
			break
		}
	}
	blocks := generate(2)
	for i, id := range blocks {
		msg, ok := next(10 * time.Second)
		if !ok {
			t.Fatalf("block %d (%s) was not published", i, id)
		}
		var hdr struct {
			Header struct {
				Height   uint64 `json:"height"`
				PrevHash string `json:"prev_hash"`
			} `json:"block_header"`
		}
		if err := g.call("getblockheaderbyhash", map[string]any{"hash": id}, &hdr); err != nil {
			t.Fatal(err)
		}
		want := fmt.Sprintf(`json-minimal-chain_main:{"first_height":%d,"first_prev_id":"%s","ids":["%s"]}`, hdr.Header.Height, hdr.Header.PrevHash, id)
		if msg != want {
			t.Errorf("message %d: %s, want %s", i, msg, want)
		}
	}
}
