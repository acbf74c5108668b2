package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gonero/gonero/internal/monerodlab"
	"github.com/gonero/gonero/internal/testutil"
)

// The deployment of deploy/: one primary gonerod and three read replicas
// that sync from it over P2P, behind real nginx and real HAProxy, each
// started with the flags of the shipped systemd units and load-balancer
// configurations (only ports and directories are changed). Blocks mined on
// the primary reach every replica through the balancer within seconds; a
// stopped replica is routed around without a failed request; HAProxy's
// check keeps a replica that is not synchronized out.
func TestReplicasBehindLoadBalancer(t *testing.T) {
	monerodlab.Require(t) // root and the loopback-only namespace: the nodes talk P2P
	nginx := lookTool(t, "nginx", "apt-get install nginx")
	haproxy := lookTool(t, "haproxy", "apt-get install haproxy")
	bin := buildGonerod(t)
	deployDir, err := filepath.Abs("../../deploy")
	if err != nil {
		t.Fatal(err)
	}

	// "The network" the primary syncs from, and the primary, both on the
	// 300-block regtest chain. A node counts as synchronized (and mines)
	// once a peer has shown it is not behind, so the primary needs one.
	raw := testutil.Path(t, "testdata", "regtest", "blockchain.raw")
	dataN, dataP := t.TempDir(), t.TempDir()
	for _, d := range []string{dataN, dataP} {
		importInto(t, bin, d, raw)
	}
	p2pN := freePort(t)
	startNode(t, bin, "the network", []string{"--regtest", "--fixed-difficulty", "1", "--data-dir", dataN,
		"--p2p-bind-ip", "127.0.0.1", "--p2p-bind-port", strconv.Itoa(p2pN), "--rpc-bind-port", strconv.Itoa(freePort(t))})
	p2pP, rpcP := freePort(t), freePort(t)
	primaryArgs := unitArgs(t, filepath.Join(deployDir, "systemd", "gonerod.service"), map[string]string{
		"/var/lib/gonero/primary": dataP, "18080": strconv.Itoa(p2pP), "18081": strconv.Itoa(rpcP),
	})
	startNode(t, bin, "primary", append(primaryArgs, "--regtest", "--fixed-difficulty", "1", "--p2p-bind-ip", "127.0.0.1",
		"--add-exclusive-node", "127.0.0.1:"+strconv.Itoa(p2pN)))

	// Three replicas, as gonerod-replica@N.service starts them.
	type replica struct {
		rpc  int
		node *exec.Cmd
	}
	var replicas []*replica
	for i := 1; i <= 3; i++ {
		r := &replica{rpc: freePort(t)}
		args := unitArgs(t, filepath.Join(deployDir, "systemd", "gonerod-replica@.service"), map[string]string{
			"/var/lib/gonero/replica-%i": t.TempDir(), "127.0.0.1:18080": "127.0.0.1:" + strconv.Itoa(p2pP),
			"1819%i": strconv.Itoa(freePort(t)), "1809%i": strconv.Itoa(r.rpc),
		})
		r.node = startNode(t, bin, fmt.Sprintf("replica %d", i), append(args, "--regtest", "--fixed-difficulty", "1"))
		replicas = append(replicas, r)
	}
	tip := func() string { return nodeTop(t, rpcP) }
	waitFor(t, 30*time.Second, "the primary to be synchronized with the network", func() bool {
		resp, err := http.Post("http://127.0.0.1:"+strconv.Itoa(rpcP)+"/json_rpc", "application/json", strings.NewReader(getInfoBody))
		if err != nil {
			return false
		}
		defer resp.Body.Close()
		var r struct {
			Result struct {
				Synchronized bool `json:"synchronized"`
			} `json:"result"`
		}
		return json.NewDecoder(resp.Body).Decode(&r) == nil && r.Result.Synchronized
	})
	waitFor(t, 60*time.Second, "every replica to sync the primary's 300 blocks", func() bool {
		for _, r := range replicas {
			if top, ok := tryTop(r.rpc); !ok || top != tip() {
				return false
			}
		}
		return true
	})

	// nginx with deploy/nginx/gonero.conf.
	lbPort := freePort(t)
	upstream := map[string]string{"listen 18089": "listen 127.0.0.1:" + strconv.Itoa(lbPort)}
	for i, r := range replicas {
		upstream[fmt.Sprintf("127.0.0.1:1809%d", i+1)] = "127.0.0.1:" + strconv.Itoa(r.rpc)
	}
	startNginx(t, nginx, filepath.Join(deployDir, "nginx", "gonero.conf"), upstream, lbPort)
	lb := "http://127.0.0.1:" + strconv.Itoa(lbPort)

	// Blocks mined on the primary are served by every replica through nginx.
	generate(t, rpcP, 3)
	want := tip()
	start := time.Now()
	seen := map[string]bool{}
	waitFor(t, 30*time.Second, "every replica to serve the new tip through nginx", func() bool {
		top, by, err := balancedTop(lb)
		if err == nil && top == want {
			seen[by] = true
		}
		return len(seen) == len(replicas)
	})
	t.Logf("nginx: all %d replicas served the new tip %.2f s after it was mined (seen through %v)", len(replicas), time.Since(start).Seconds(), keys(seen))

	// A stopped replica is routed around: no request fails.
	stopped := replicas[1]
	stopNode(t, stopped.node)
	stoppedAddr := "127.0.0.1:" + strconv.Itoa(stopped.rpc)
	generate(t, rpcP, 2)
	want = tip()
	waitFor(t, 30*time.Second, "the two running replicas to reach the new tip", func() bool {
		for _, r := range []*replica{replicas[0], replicas[2]} {
			if top, ok := tryTop(r.rpc); !ok || top != want {
				return false
			}
		}
		return true
	})
	for i := 0; i < 30; i++ {
		top, by, err := balancedTop(lb)
		if err != nil {
			t.Fatalf("nginx request %d with replica 2 stopped: %v", i, err)
		}
		if top != want || lastAddr(by) == stoppedAddr {
			t.Fatalf("nginx request %d: top %s from %q, want %s from a running replica", i, top, by, want)
		}
	}

	// HAProxy with deploy/haproxy/gonero.cfg, plus a fourth replica whose
	// only peer is down: it answers RPC but is never synchronized, and the
	// check must keep it out, as it keeps the stopped one out.
	lonely := freePort(t)
	startNode(t, bin, "unsynchronized replica", []string{"--regtest", "--fixed-difficulty", "1", "--data-dir", t.TempDir(),
		"--add-exclusive-node", "127.0.0.1:" + strconv.Itoa(freePort(t)), "--p2p-bind-ip", "127.0.0.1",
		"--p2p-bind-port", strconv.Itoa(freePort(t)), "--rpc-bind-port", strconv.Itoa(lonely), "--restricted-rpc"})
	hpPort := freePort(t)
	servers := map[string]string{"bind 127.0.0.1:18089": "bind 127.0.0.1:" + strconv.Itoa(hpPort)}
	for i, r := range replicas {
		servers[fmt.Sprintf("127.0.0.1:1809%d check", i+1)] = fmt.Sprintf("127.0.0.1:%d check", r.rpc)
	}
	startHAProxy(t, haproxy, filepath.Join(deployDir, "haproxy", "gonero.cfg"), servers,
		fmt.Sprintf("    server unsynchronized 127.0.0.1:%d check\n", lonely), hpPort)
	hp := "http://127.0.0.1:" + strconv.Itoa(hpPort)
	counts := map[string]int{}
	for i := 0; i < 40; i++ {
		top, by, err := balancedTop(hp)
		if err != nil {
			t.Fatalf("HAProxy request %d: %v", i, err)
		}
		if top != want {
			t.Fatalf("HAProxy request %d: top %s from %q, want %s", i, top, by, want)
		}
		counts[by]++
	}
	if len(counts) != 2 || counts["replica1"] == 0 || counts["replica3"] == 0 {
		t.Fatalf("HAProxy spread the requests as %v; want only the running, synchronized replica1 and replica3", counts)
	}
	t.Logf("HAProxy: %v", counts)
}

func lookTool(t *testing.T, name, hint string) string {
	t.Helper()
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	if p := "/usr/sbin/" + name; fileExists(p) {
		return p
	}
	return testutil.RequireTool(t, name, hint)
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }

// unitArgs reads the gonerod arguments of a systemd unit's ExecStart and
// replaces whole arguments, or the parts of them, named in subst.
func unitArgs(t *testing.T, unit string, subst map[string]string) []string {
	t.Helper()
	b, err := os.ReadFile(unit)
	if err != nil {
		t.Fatal(err)
	}
	text := strings.ReplaceAll(string(b), "\\\n", " ")
	m := regexp.MustCompile(`(?m)^ExecStart=(\S+)(.*)$`).FindStringSubmatch(text)
	if m == nil || filepath.Base(m[1]) != "gonerod" {
		t.Fatalf("%s: no ExecStart running gonerod", unit)
	}
	args := strings.Fields(m[2])
	for i, a := range args {
		for from, to := range subst {
			a = strings.ReplaceAll(a, from, to)
		}
		if strings.Contains(a, "%i") {
			t.Fatalf("%s: argument %q still has the instance name", unit, args[i])
		}
		args[i] = a
	}
	return args
}

// startNode runs gonerod with args until the test ends, and waits for its
// RPC.
func startNode(t *testing.T, bin, name string, args []string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(bin, withZMQRPCPort(t, args)...)
	var logs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_, _ = cmd.Process.Wait()
		if t.Failed() {
			t.Logf("%s (gonerod %s):\n%s", name, strings.Join(args, " "), logs.String())
		}
	})
	port := ""
	for i, a := range args {
		if a == "--rpc-bind-port" && i+1 < len(args) {
			port = args[i+1]
		}
	}
	waitFor(t, 30*time.Second, name+"'s RPC", func() bool {
		resp, err := http.Get("http://127.0.0.1:" + port + "/get_height")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return true
	})
	return cmd
}

func stopNode(t *testing.T, cmd *exec.Cmd) {
	t.Helper()
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { _, _ = cmd.Process.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(15 * time.Second):
		t.Fatal("a replica did not stop within 15 s of SIGTERM")
	}
}

var getInfoBody = `{"jsonrpc":"2.0","id":"0","method":"get_info"}`

// tryTop is a node's top block id from get_info.
func tryTop(port int) (string, bool) {
	top, _, err := balancedTop("http://127.0.0.1:" + strconv.Itoa(port))
	return top, err == nil && top != ""
}

func nodeTop(t *testing.T, port int) string {
	t.Helper()
	top, ok := tryTop(port)
	if !ok {
		t.Fatalf("no get_info from 127.0.0.1:%d", port)
	}
	return top
}

// balancedTop asks get_info at base and says which upstream answered (the
// X-Gonero-Upstream header the shipped configurations add).
func balancedTop(base string) (top, by string, err error) {
	c := http.Client{Timeout: 10 * time.Second}
	resp, err := c.Post(base+"/json_rpc", "application/json", strings.NewReader(getInfoBody))
	if err != nil {
		return "", "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return "", "", err
	}
	if resp.StatusCode != 200 {
		return "", "", fmt.Errorf("HTTP %d: %s", resp.StatusCode, body)
	}
	var r struct {
		Result struct {
			Status string `json:"status"`
			Top    string `json:"top_block_hash"`
		} `json:"result"`
	}
	if err := json.Unmarshal(body, &r); err != nil || r.Result.Status != "OK" {
		return "", "", fmt.Errorf("get_info answer %s (%v)", body, err)
	}
	return r.Result.Top, resp.Header.Get("X-Gonero-Upstream"), nil
}

// lastAddr is the upstream that finally answered, from nginx's
// $upstream_addr ("a, b" when a failed first).
func lastAddr(upstreams string) string {
	parts := strings.Split(upstreams, ",")
	return strings.TrimSpace(parts[len(parts)-1])
}

func generate(t *testing.T, rpcPort, n int) {
	t.Helper()
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":"0","method":"generateblocks","params":{"amount_of_blocks":%d,"wallet_address":"%s"}}`, n, alice)
	resp, err := http.Post("http://127.0.0.1:"+strconv.Itoa(rpcPort)+"/json_rpc", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if !bytes.Contains(b, []byte(`"status": "OK"`)) {
		t.Fatalf("generateblocks on the primary: %s", b)
	}
}

func keys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// rewrite reads a shipped configuration and replaces what subst names,
// failing if a replacement finds nothing (the file changed under the
// test).
func rewrite(t *testing.T, path string, subst map[string]string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	for from, to := range subst {
		if !strings.Contains(s, from) {
			t.Fatalf("%s no longer has %q", path, from)
		}
		s = strings.ReplaceAll(s, from, to)
	}
	return s
}

func waitListening(t *testing.T, what string, port int) {
	t.Helper()
	waitFor(t, 20*time.Second, what, func() bool {
		c, err := net.Dial("tcp", "127.0.0.1:"+strconv.Itoa(port))
		if err != nil {
			return false
		}
		c.Close()
		return true
	})
}

// startNginx runs nginx in the foreground with the shipped site
// configuration included in a minimal main configuration of its own.
func startNginx(t *testing.T, nginx, site string, subst map[string]string, port int) {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "gonero.conf"), []byte(rewrite(t, site, subst)), 0o644); err != nil {
		t.Fatal(err)
	}
	user := ""
	if os.Geteuid() == 0 {
		user = "user root;\n" // the workers read and write this test's temporary directory
	}
	main := fmt.Sprintf(`%sworker_processes 1;
daemon off;
pid %[2]s/nginx.pid;
error_log %[2]s/error.log;
events { worker_connections 256; }
http {
    access_log off;
    client_body_temp_path %[2]s/body;
    proxy_temp_path %[2]s/proxy;
    include %[2]s/gonero.conf;
}
`, user, dir)
	if err := os.WriteFile(filepath.Join(dir, "nginx.conf"), []byte(main), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(nginx, "-p", dir, "-c", filepath.Join(dir, "nginx.conf"))
	var logs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGQUIT)
		done := make(chan struct{})
		go func() { _, _ = cmd.Process.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
		}
		if t.Failed() {
			errLog, _ := os.ReadFile(filepath.Join(dir, "error.log"))
			t.Logf("nginx: %s\n%s", logs.String(), errLog)
		}
	})
	waitListening(t, "nginx", port)
}

// startHAProxy runs HAProxy in the foreground with the shipped
// configuration, extra appended to its backend.
func startHAProxy(t *testing.T, haproxy, cfg string, subst map[string]string, extra string, port int) {
	t.Helper()
	dir := t.TempDir()
	conf := rewrite(t, cfg, subst) + extra
	path := filepath.Join(dir, "haproxy.cfg")
	if err := os.WriteFile(path, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(haproxy, "-c", "-f", path).CombinedOutput(); err != nil {
		t.Fatalf("haproxy -c: %v\n%s", err, out)
	}
	cmd := exec.Command(haproxy, "-db", "-f", path)
	var logs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_, _ = cmd.Process.Wait()
		if t.Failed() {
			t.Logf("haproxy:\n%s", logs.String())
		}
	})
	waitListening(t, "HAProxy", port)
	// Checks run every second and need two in a row to bring a server up
	// (rise 2) or down (fall 2); servers start up.
	time.Sleep(3 * time.Second)
}
