package p2p

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/netip"
	"path/filepath"
	"testing"
	"time"

	"github.com/gonero/gonero/chain"
	"github.com/gonero/gonero/chaindb"
	"github.com/gonero/gonero/epeejson"
	"github.com/gonero/gonero/httpd"
	"github.com/gonero/gonero/importer"
	"github.com/gonero/gonero/miner"
	"github.com/gonero/gonero/params"
	"github.com/gonero/gonero/peerinfo"
	"github.com/gonero/gonero/rpc"
	"github.com/gonero/gonero/txpool"
)

// testNode is a gonero node in this process: a regtest chain (fixed
// difficulty 1, as monerod-lab runs monerod) on a temporary store, a P2P
// node and an RPC server answering from both.
type testNode struct {
	t     testing.TB
	dir   string
	db    *chaindb.DB
	chain *chain.Chain
	node  *Node
	srv   *rpc.Server
	url   string
}

// newTestChain opens a regtest chain in dir, imported from exportFile if
// it is not "".
func newTestChain(t testing.TB, dir, exportFile string) (*chaindb.DB, *chain.Chain) {
	t.Helper()
	db, err := chaindb.Open(filepath.Join(dir, "chain.db"), chaindb.Options{Network: params.Regtest.String()})
	if err != nil {
		t.Fatal(err)
	}
	c, err := chain.Open(db, chain.Config{Network: params.Regtest, FixedDifficulty: 1})
	if err != nil {
		t.Fatal(err)
	}
	if exportFile != "" {
		if _, err := importer.Import(context.Background(), c, exportFile, 0, nil); err != nil {
			t.Fatal(err)
		}
	}
	return db, c
}

// startTestNode starts a node; cfg.Chain is filled in. Its P2P listener is
// on a free loopback port unless cfg.ListenAddr says otherwise.
func startTestNode(t testing.TB, exportFile string, cfg Config) *testNode {
	t.Helper()
	return startTestNodeWithPool(t, exportFile, cfg, nil)
}

// startTestNodeWithPool is startTestNode with the pool newPool makes for
// the chain (nil: the node makes its own).
func startTestNodeWithPool(t testing.TB, exportFile string, cfg Config, newPool func(*chain.Chain) *txpool.Pool) *testNode {
	t.Helper()
	tn := &testNode{t: t, dir: t.TempDir()}
	tn.db, tn.chain = newTestChain(t, tn.dir, exportFile)
	if newPool != nil {
		cfg.Pool = newPool(tn.chain)
	}
	tn.startP2P(cfg)
	// generateblocks' blocks are relayed to peers, as gonerod wires it.
	mnr := miner.New(tn.chain, miner.Options{ExtraNonce: rpc.GenerateBlocksExtraNonce(),
		Mined: func(blob []byte) { tn.node.RelayBlock(blob) }})
	srv, err := rpc.New(rpc.Config{Chain: tn.chain, Peers: tn, DataDir: tn.dir, Version: "test",
		Main: httpd.Config{Addr: "127.0.0.1:0"}, Miner: mnr})
	if err != nil {
		t.Fatal(err)
	}
	tn.srv, tn.url = srv, "http://"+srv.MainAddr()
	done := make(chan error, 1)
	go func() { done <- srv.Serve() }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
		<-done
		_ = mnr.Stop()
		if tn.node != nil {
			_ = tn.node.Close()
		}
		tn.db.Close()
	})
	return tn
}

// startP2P (re)starts the P2P node on the same chain.
func (tn *testNode) startP2P(cfg Config) {
	tn.t.Helper()
	if tn.node != nil {
		if err := tn.node.Close(); err != nil {
			tn.t.Fatal(err)
		}
	}
	cfg.Chain = tn.chain
	if cfg.ListenAddr == "" {
		cfg.ListenAddr = "127.0.0.1:0"
	}
	if cfg.StateFile == "" {
		cfg.StateFile = filepath.Join(tn.dir, "p2pstate.json")
	}
	n, err := New(cfg)
	if err != nil {
		tn.t.Fatal(err)
	}
	if err := n.Start(); err != nil {
		tn.t.Fatal(err)
	}
	tn.node = n
}

// The RPC server asks the current P2P node (which startP2P may replace).
func (tn *testNode) Connections() []peerinfo.Connection { return tn.node.Connections() }
func (tn *testNode) Counts() (uint64, uint64, uint64, uint64) {
	return tn.node.Counts()
}
func (tn *testNode) Offline() bool                                 { return tn.node.Offline() }
func (tn *testNode) Synchronized() bool                            { return tn.node.Synchronized() }
func (tn *testNode) TargetHeight() uint64                          { return tn.node.TargetHeight() }
func (tn *testNode) BusySyncing() bool                             { return tn.node.BusySyncing() }
func (tn *testNode) TxPoolSize() uint64                            { return tn.node.TxPoolSize() }
func (tn *testNode) PeerLists() (white, grey []peerinfo.PeerEntry) { return tn.node.PeerLists() }
func (tn *testNode) Bans(now time.Time) []peerinfo.Ban             { return tn.node.Bans(now) }
func (tn *testNode) Ban(p netip.Prefix, until time.Time)           { tn.node.Ban(p, until) }
func (tn *testNode) Unban(p netip.Prefix)                          { tn.node.Unban(p) }
func (tn *testNode) BannedUntil(ip netip.Addr, now time.Time) (time.Time, bool) {
	return tn.node.BannedUntil(ip, now)
}
func (tn *testNode) MaxPeers() (out, in int64)                 { return tn.node.MaxPeers() }
func (tn *testNode) SetMaxPeers(out, in int64)                 { tn.node.SetMaxPeers(out, in) }
func (tn *testNode) Traffic() (uint64, uint64, uint64, uint64) { return tn.node.Traffic() }
func (tn *testNode) RateLimits() (up, down int64)              { return tn.node.RateLimits() }
func (tn *testNode) SetRateLimits(up, down int64)              { tn.node.SetRateLimits(up, down) }

// p2pAddr is the node's listening address.
func (tn *testNode) p2pAddr() string { return tn.node.Addr().String() }

// call posts a JSON-RPC request to url and returns the body.
func call(t testing.TB, url, method, params string) []byte {
	t.Helper()
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":%q,"params":%s}`, method, params)
	resp, err := http.Post(url+"/json_rpc", "application/json", bytes.NewReader([]byte(body)))
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

// result parses a JSON-RPC answer and returns its result object.
func result(t testing.TB, body []byte) epeejson.Value {
	t.Helper()
	v, err := epeejson.Parse(body)
	if err != nil {
		t.Fatalf("unparsable answer %q: %v", body, err)
	}
	r, ok := v.Get("result")
	if !ok {
		t.Fatalf("no result in %s", body)
	}
	return r
}

// canonical renders v without the named top-level members.
func canonical(v epeejson.Value, drop ...string) string {
	if v.Kind == epeejson.KindObject {
		out := v
		out.Obj = nil
		for _, m := range v.Obj {
			keep := true
			for _, d := range drop {
				keep = keep && m.Name != d
			}
			if keep {
				out.Obj = append(out.Obj, m)
			}
		}
		v = out
	}
	w := epeejson.NewWriter(nil)
	w.Value(v)
	return string(w.Bytes())
}

// eventually polls cond until it holds or the timeout passes.
func eventually(t testing.TB, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", timeout, what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
func (tn *testNode) SyncSpans(h uint64) ([]peerinfo.SyncSpan, string) { return tn.node.SyncSpans(h) }
