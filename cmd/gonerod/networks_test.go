package main

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gonero/gonero/internal/monerodlab"
	"github.com/gonero/gonero/p2p"
)

// netWatch records what the P2P node dials and resolves. It lets loopback
// dials through and refuses everything else, so a test that fails still
// sends nothing off the machine.
type netWatch struct {
	mu      sync.Mutex
	dials   []string
	lookups []string
}

func (w *netWatch) hook(cfg *p2p.Config) {
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

// runInProcess runs gonerod's root command with args (mainnet unless they
// say otherwise) in this process, the P2P configuration passing through
// watch, for about d; then stops it over RPC as an operator would.
func runInProcess(t *testing.T, watch *netWatch, d time.Duration, args ...string) {
	t.Helper()
	p2pConfigHook = watch.hook
	t.Cleanup(func() { p2pConfigHook = nil })
	rpcPort := freePort(t)
	args = append([]string{"--data-dir", t.TempDir(), "--rpc-bind-port", strconv.Itoa(rpcPort), "--log-level", "warn"}, args...)
	root := newRootCommand()
	root.SetArgs(args)
	done := make(chan error, 1)
	go func() { done <- root.Execute() }()
	g := &gonerod{rpcPort: rpcPort, client: &http.Client{Timeout: 30 * time.Second}}
	waitFor(t, 30*time.Second, "gonerod's RPC", func() bool {
		select {
		case err := <-done:
			t.Fatalf("gonerod %v ended early: %v", args, err)
		default:
		}
		_, err := g.post("/get_height", nil)
		return err == nil
	})
	time.Sleep(d)
	if _, err := g.post("/stop_daemon", []byte(`{}`)); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("gonerod %v: %v", args, err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("gonerod did not stop")
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
	w := &netWatch{}
	runInProcess(t, w, 2*time.Second, "--p2p-bind-ip", "127.0.0.1", "--p2p-bind-port", strconv.Itoa(freePort(t)),
		"--add-exclusive-node", only)
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
	w := &netWatch{}
	runInProcess(t, w, 2*time.Second, "--p2p-bind-ip", "127.0.0.1", "--p2p-bind-port", strconv.Itoa(freePort(t)))
	dials, lookups := w.seen()
	slices.Sort(lookups)
	if want := []string{"seeds.moneroseeds.ae.org", "seeds.moneroseeds.ch", "seeds.moneroseeds.li", "seeds.moneroseeds.se"}; !slices.Equal(slices.Compact(lookups), want) {
		t.Errorf("resolved %v, want the DNS seeds %v", lookups, want)
	}
	if !slices.Contains(dials, "176.9.0.187:18080") || !slices.Contains(dials, "88.198.163.90:18080") {
		t.Errorf("dialled %v; want the mainnet IP seeds among them", dials)
	}
}

// With --offline gonerod dials nothing, resolves nothing (in process,
// through the hook) and listens on nothing but its RPC port (the real
// binary, its sockets read from /proc).
func TestOfflineTouchesNoNetwork(t *testing.T) {
	w := &netWatch{}
	runInProcess(t, w, 2*time.Second, "--offline")
	if dials, lookups := w.seen(); len(dials) != 0 || len(lookups) != 0 {
		t.Errorf("offline gonerod dialled %v and resolved %v", dials, lookups)
	}

	// The binary: mainnet, default P2P flags (it would listen on
	// 0.0.0.0:18080), so it runs only inside the loopback-only namespace.
	monerodlab.Require(t)
	bin := buildGonerod(t)
	rpcPort := freePort(t)
	cmd := exec.Command(bin, "--offline", "--data-dir", t.TempDir(), "--rpc-bind-port", strconv.Itoa(rpcPort))
	logPath := filepath.Join(t.TempDir(), "gonerod.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait(); logFile.Close() })
	g := &gonerod{rpcPort: rpcPort, client: &http.Client{Timeout: 30 * time.Second}}
	waitFor(t, 30*time.Second, "gonerod's RPC", func() bool { _, err := g.post("/get_height", nil); return err == nil })
	time.Sleep(time.Second)
	listening, connected := processSockets(t, cmd.Process.Pid, rpcPort)
	if !slices.Equal(listening, []int{rpcPort}) {
		t.Errorf("offline gonerod listens on ports %v; want only its RPC port %d", listening, rpcPort)
	}
	if len(connected) != 0 {
		t.Errorf("offline gonerod has connections %v besides RPC clients", connected)
	}
}

// processSockets lists the TCP ports pid listens on and the remote ends of
// its other TCP sockets but those accepted on port except, matching its socket file descriptors with the
// namespace's /proc/net/tcp{,6} by inode.
func processSockets(t *testing.T, pid, except int) (listening []int, remote []string) {
	t.Helper()
	fds, err := os.ReadDir("/proc/" + strconv.Itoa(pid) + "/fd")
	if err != nil {
		t.Fatal(err)
	}
	inodes := map[string]bool{}
	for _, fd := range fds {
		target, err := os.Readlink("/proc/" + strconv.Itoa(pid) + "/fd/" + fd.Name())
		if err == nil && strings.HasPrefix(target, "socket:[") {
			inodes[strings.TrimSuffix(strings.TrimPrefix(target, "socket:["), "]")] = true
		}
	}
	for _, file := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(b), "\n")[1:] {
			f := strings.Fields(line)
			if len(f) < 10 || !inodes[f[9]] {
				continue
			}
			local, rem, state := f[1], f[2], f[3]
			port, _ := strconv.ParseInt(local[strings.LastIndex(local, ":")+1:], 16, 32)
			switch {
			case state == "0A": // TCP_LISTEN
				listening = append(listening, int(port))
			case int(port) != except:
				remote = append(remote, rem)
			}
		}
	}
	slices.Sort(listening)
	return listening, remote
}
