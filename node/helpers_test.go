package node

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/gonero/gonero/internal/monerodlab"
	"github.com/gonero/gonero/params"
)

// freePort is monerodlab.FreePort: a port below the ephemeral range,
// never the same twice in this test binary.
func freePort(t *testing.T) uint16 {
	t.Helper()
	return uint16(monerodlab.FreePort(t))
}

// regtestConfig is a regtest node at fixed difficulty 1 (monerod-lab's
// chains) on data, RPC, ZMQ RPC and P2P on free loopback ports, logging to a file
// of the test's (shown when the test fails).
func regtestConfig(t *testing.T, data string) Config {
	t.Helper()
	cfg := DefaultConfig()
	cfg.Network, cfg.FixedDifficulty, cfg.DataDir = params.Regtest, 1, data
	cfg.RPC.BindPort = freePort(t)
	cfg.ZMQRPC.BindPort = freePort(t)
	cfg.P2P.BindIP, cfg.P2P.BindPort = "127.0.0.1", freePort(t)
	cfg.Logger = testLogger(t, slog.LevelDebug)
	return cfg
}

// testLogger logs to a file shown when the test fails.
func testLogger(t *testing.T, level slog.Level) *slog.Logger {
	t.Helper()
	path := filepath.Join(t.TempDir(), "node.log")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		f.Close()
		if t.Failed() {
			b, _ := os.ReadFile(path)
			if len(b) > 20000 {
				b = b[len(b)-20000:]
			}
			t.Logf("the node's log:\n%s", b)
		}
	})
	return slog.New(slog.NewTextHandler(f, &slog.HandlerOptions{Level: level}))
}

// testNode is a started node and an RPC client for it.
type testNode struct {
	*Node
	client *http.Client
}

// startNode starts a node with cfg; the test's end closes it.
func startNode(t *testing.T, cfg Config) *testNode {
	t.Helper()
	n, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := n.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := n.Close(); err != nil {
			t.Errorf("closing the node: %v", err)
		}
	})
	return &testNode{Node: n, client: &http.Client{Timeout: 30 * time.Second}}
}

func (g *testNode) post(path string, body []byte) ([]byte, error) {
	resp, err := g.client.Post("http://"+g.RPCAddr()+path, "application/json", bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	return io.ReadAll(resp.Body)
}

func (g *testNode) call(method string, params, result any) error {
	req, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": "0", "method": method, "params": params})
	body, err := g.post("/json_rpc", req)
	if err != nil {
		return err
	}
	return monerodlab.DecodeResult("gonerod", method, body, result)
}

// waitFor polls cond until it holds, failing the test after timeout.
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
