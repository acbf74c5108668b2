package node

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/netip"
	"slices"
	"sync"
	"testing"
	"time"
)

// netWatch records what the P2P node dials and resolves. It lets loopback
// dials through and refuses everything else, so a test that fails still
// sends nothing off the machine.
type netWatch struct {
	mu      sync.Mutex
	dials   []string
	lookups []string
}

// watch makes cfg's P2P dial and resolve through w.
func (w *netWatch) watch(cfg *P2PConfig) {
	cfg.Dial = func(ctx context.Context, addr string) (net.Conn, error) {
		w.mu.Lock()
		w.dials = append(w.dials, addr)
		w.mu.Unlock()
		if ap, err := netip.ParseAddrPort(addr); err != nil || !ap.Addr().IsLoopback() {
			return nil, errors.New("refused by the test: not loopback")
		}
		var d net.Dialer
		return d.DialContext(ctx, "tcp", addr)
	}
	cfg.LookupHost = func(_ context.Context, host string) ([]string, error) {
		w.mu.Lock()
		w.lookups = append(w.lookups, host)
		w.mu.Unlock()
		return nil, errors.New("refused by the test")
	}
	// Retry every 100 ms instead of every second, so a few seconds show
	// many rounds of the connection loop.
	cfg.ConnectInterval = 100 * time.Millisecond
}

func (w *netWatch) seen() (dials, lookups []string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.dials), slices.Clone(w.lookups)
}

// runMainnet runs a mainnet node with the defaults, edited by edit, its
// P2P passing through watch, until done says so (or, when done is nil, for
// about 2 s: the window in which nothing may happen); then stops it over
// RPC as an operator would.
func runMainnet(t *testing.T, watch *netWatch, done func() bool, edit func(*Config)) {
	t.Helper()
	cfg := DefaultConfig()
	cfg.DataDir = t.TempDir()
	cfg.RPC.BindPort, cfg.ZMQRPC.BindPort = freePort(t), freePort(t)
	cfg.Logger = testLogger(t, slog.LevelWarn)
	watch.watch(&cfg.P2P)
	edit(&cfg)
	g := startNode(t, cfg)
	waitFor(t, 30*time.Second, "the node's RPC", func() bool {
		_, err := g.post("/get_height", nil)
		return err == nil
	})
	if done != nil {
		waitFor(t, 30*time.Second, "the P2P node's dials", done)
	} else {
		// Nothing to wait for: the node must stay quiet for this long.
		time.Sleep(2 * time.Second)
	}
	if _, err := g.post("/stop_daemon", []byte(`{}`)); err != nil {
		t.Fatal(err)
	}
	select {
	case <-g.Done():
	case <-time.After(30 * time.Second):
		t.Fatal("/stop_daemon did not end the node")
	}
	if err := g.Err(); err != nil {
		t.Fatal(err)
	}
}

// gonerod with mainnet parameters and default flags but
// --add-exclusive-node dials that node alone, over and over while it does
// not answer, and resolves no name: no DNS seeds, no IP seeds, as monerod.
func TestExclusiveNodeDialsOnlyIt(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	only := ln.Addr().String()
	ln.Close() // nothing answers there: the node retries it every round
	t.Parallel()
	w := &netWatch{}
	runMainnet(t, w, func() bool { dials, _ := w.seen(); return len(dials) >= 3 }, func(c *Config) {
		c.P2P.BindIP, c.P2P.BindPort, c.P2P.ExclusiveNodes = "127.0.0.1", freePort(t), []string{only}
	})
	dials, lookups := w.seen()
	if len(dials) < 3 {
		t.Errorf("dialled %v; want repeated attempts on %s", dials, only)
	}
	for _, d := range dials {
		if d != only {
			t.Errorf("dialled %s besides the exclusive node %s", d, only)
		}
	}
	if len(lookups) != 0 {
		t.Errorf("resolved %v", lookups)
	}
}

// The same node without the flag does use the built-in mainnet seeds: the
// hook sees it resolve the four DNS seeds and then dial the IP fallback
// (every dial refused by the test). This is the counterpart that shows the
// recorder would have seen seeds in the test above.
func TestDefaultFlagsUseBuiltinSeeds(t *testing.T) {
	t.Parallel()
	w := &netWatch{}
	seeds := []string{"seeds.moneroseeds.ae.org", "seeds.moneroseeds.ch", "seeds.moneroseeds.li", "seeds.moneroseeds.se"}
	runMainnet(t, w, func() bool {
		dials, lookups := w.seen()
		slices.Sort(lookups)
		return slices.Equal(slices.Compact(lookups), seeds) &&
			slices.Contains(dials, "176.9.0.187:18080") && slices.Contains(dials, "88.198.163.90:18080")
	}, func(c *Config) { c.P2P.BindIP, c.P2P.BindPort = "127.0.0.1", freePort(t) })
	dials, lookups := w.seen()
	slices.Sort(lookups)
	if want := seeds; !slices.Equal(slices.Compact(lookups), want) {
		t.Errorf("resolved %v, want the DNS seeds %v", lookups, want)
	}
	if !slices.Contains(dials, "176.9.0.187:18080") || !slices.Contains(dials, "88.198.163.90:18080") {
		t.Errorf("dialled %v; want the mainnet IP seeds among them", dials)
	}
}

// With Offline the node dials nothing and resolves nothing (through the
// watch); cmd/gonerod's TestOfflineListensOnlyOnRPC checks the binary's
// sockets.
func TestOfflineTouchesNoNetwork(t *testing.T) {
	t.Parallel()
	w := &netWatch{}
	runMainnet(t, w, nil, func(c *Config) { c.P2P.Offline = true })
	if dials, lookups := w.seen(); len(dials) != 0 || len(lookups) != 0 {
		t.Errorf("offline node dialled %v and resolved %v", dials, lookups)
	}
}
