package p2p

import (
	"bytes"
	"fmt"
	"log/slog"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gonero/gonero/chain"

	"github.com/gonero/gonero/internal/testutil"
	"github.com/gonero/gonero/levin"
	"github.com/gonero/gonero/metrics"
	"github.com/gonero/gonero/params"
	"github.com/gonero/gonero/portable"
)

// A panic while handling one peer's message drops that peer, is counted
// (gonero_p2p_panics_total) and leaves the node serving the others.
func TestHandlerPanicDropsOnlyThePeer(t *testing.T) {
	tn := startTestNode(t, testutil.Path(t, "testdata", "regtest", "blockchain.raw"), Config{MaxConnectionsPerIP: 100,
		beforeHandle: func(m levin.Message) {
			if m.Command == levin.NotifyRequestChain {
				panic("injected handler panic")
			}
		}})
	m := metrics.New()
	m.Watch(metrics.Sources{Peers: tn.node})

	bad := dialRaw(t, tn.p2pAddr())
	bad.handshake(31)
	good := dialRaw(t, tn.p2pAddr())
	good.handshake(32)
	if in, _, _, _ := tn.node.Counts(); in != 2 {
		t.Fatalf("%d incoming connections, want 2", in)
	}
	bad.sendPayload(levin.KindNotification, levin.NotifyRequestChain, portable.RequestChain{BlockIDs: [][32]byte{params.Regtest.GenesisID()}})
	bad.expectClosed("a peer whose message panicked its handler")

	if got := tn.node.HandlerPanics(); got != 1 {
		t.Fatalf("HandlerPanics %d, want 1", got)
	}
	if got := panicsMetric(t, m); got != 1 {
		t.Fatalf("gonero_p2p_panics_total %v, want 1", got)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		in, _, _, _ := tn.node.Counts()
		if in == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d incoming connections after the panic, want 1", in)
		}
		time.Sleep(10 * time.Millisecond)
	}
	// The other peer is still served, and new peers are accepted.
	good.sendPayload(levin.KindRequest, levin.CommandPing, portable.PingRequest{})
	good.expectResponse(levin.CommandPing)
	dialRaw(t, tn.p2pAddr()).handshake(33)
	// The fault is the node's: the host is not scored towards a ban.
	tn.node.bans.mu.Lock()
	fails := len(tn.node.bans.fails)
	tn.node.bans.mu.Unlock()
	if fails != 0 {
		t.Fatalf("%d hosts scored a fail, want none", fails)
	}
}

func panicsMetric(t *testing.T, m *metrics.Metrics) float64 {
	t.Helper()
	mfs, err := m.Registry().Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() == "gonero_p2p_panics_total" {
			return mf.GetMetric()[0].GetCounter().GetValue()
		}
	}
	t.Fatal("no gonero_p2p_panics_total")
	return 0
}

// logBuffer is a log sink the node's goroutines may write while a test
// reads it.
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// A prep worker that panics while verifying a downloaded block refuses
// that block as invalid: the blocks before it are added, the peer is
// dropped and scored as for a block the chain refuses (5 for its host,
// 1 for the connection and 1 for the block), the stack is logged once and
// the panic counted, and the node goes on: it syncs the whole chain from
// the same peer once the worker behaves.
func TestPrepWorkerPanicRefusesTheBlock(t *testing.T) {
	src := sourceNode(t)
	const bad = 5
	var panicked atomic.Bool
	var logs logBuffer
	syncer := startTestNode(t, "", Config{ExclusiveNodes: []string{src.p2pAddr()}, ConnectInterval: 50 * time.Millisecond,
		BlockSyncSize: 10, Logger: slog.New(slog.NewTextHandler(&logs, nil)),
		beforePrep: func(height uint64) {
			if height == bad && panicked.CompareAndSwap(false, true) {
				panic("injected prep panic")
			}
		}})
	eventually(t, 60*time.Second, "the syncer to reach the source's height", func() bool {
		return syncer.chain.Height() == src.chain.Height()
	})
	if syncer.chain.Top().Hash != src.chain.Top().Hash {
		t.Fatal("the syncer's top differs from the source's")
	}
	if !panicked.Load() {
		t.Fatal("no prep worker ever saw the block")
	}
	if got := syncer.node.HandlerPanics(); got != 1 {
		t.Errorf("HandlerPanics %d, want 1", got)
	}
	out := logs.String()
	if n := strings.Count(out, "a prep worker panicked"); n != 1 || !strings.Contains(out, "injected prep panic") || !strings.Contains(out, "stack=") {
		t.Errorf("the panic was logged %d times, want once with its value and stack", n)
	}
	if !strings.Contains(out, fmt.Sprintf("block %d (", bad)) || !strings.Contains(out, chain.RuleVerifierPanic.String()) {
		t.Errorf("no refusal of block %d for the panic in the log", bad)
	}
	syncer.node.bans.mu.Lock()
	fails := syncer.node.bans.fails[banKey(netip.MustParseAddr("127.0.0.1"))].n
	syncer.node.bans.mu.Unlock()
	if fails != 7 {
		t.Errorf("the peer's host has %d fails, want 7 (a refused block's)", fails)
	}
}
