package p2p

import (
	"testing"
	"time"

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
