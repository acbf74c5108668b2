package main

import (
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gonero/gonero/internal/monerodlab"
)

// With --offline the gonerod binary listens on nothing but its RPC port
// and its ZMQ RPC port (on by default, as monerod's; a free one here, the
// network's being 18082) and connects nowhere (its sockets read from /proc; node's
// TestOfflineTouchesNoNetwork checks that it dials and resolves nothing).
func TestOfflineListensOnlyOnRPC(t *testing.T) {
	// The binary: mainnet, default P2P flags (it would listen on
	// 0.0.0.0:18080), so it runs only inside the loopback-only namespace.
	monerodlab.Require(t)
	bin := buildGonerod(t)
	rpcPort, zmqPort := freePort(t), freePort(t)
	cmd := exec.Command(bin, "--offline", "--data-dir", t.TempDir(), "--rpc-bind-port", strconv.Itoa(rpcPort),
		"--zmq-rpc-bind-port", strconv.Itoa(zmqPort))
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
	slices.Sort(listening)
	if want := []int{min(rpcPort, zmqPort), max(rpcPort, zmqPort)}; !slices.Equal(listening, want) {
		t.Errorf("offline gonerod listens on ports %v; want only its RPC and ZMQ RPC ports %v", listening, want)
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
