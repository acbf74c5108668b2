package main

import (
	"bytes"
	"encoding/json"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gonero/gonero/internal/testutil"
)

// buildGonerod compiles the command once per test binary run.
func buildGonerod(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "gonerod")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

func freePort(t *testing.T) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// The README's path: import an exported chain, run the node, ask it over
// RPC, stop it with SIGTERM.
func TestImportServeAndStop(t *testing.T) {
	bin := buildGonerod(t)
	data := t.TempDir()
	raw := testutil.Path(t, "testdata", "regtest", "blockchain.raw")
	out, err := exec.Command(bin, "import", "--regtest", "--fixed-difficulty", "1", "--data-dir", data, "--input-file", raw).CombinedOutput()
	if err != nil {
		t.Fatalf("import: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "299 blocks added") {
		t.Fatalf("import output: %s", out)
	}
	// Importing again adds nothing and succeeds.
	out, err = exec.Command(bin, "import", "--regtest", "--fixed-difficulty", "1", "--data-dir", data, "--input-file", raw).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "0 blocks added") {
		t.Fatalf("second import: %v\n%s", err, out)
	}

	port := freePort(t)
	node := exec.Command(bin, "--regtest", "--fixed-difficulty", "1", "--data-dir", data, "--rpc-bind-port", strconv.Itoa(port))
	var logs bytes.Buffer
	node.Stdout, node.Stderr = &logs, &logs
	if err := node.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- node.Wait() }()
	defer node.Process.Kill()
	url := "http://127.0.0.1:" + strconv.Itoa(port)
	deadline := time.Now().Add(20 * time.Second)
	for {
		resp, err := http.Get(url + "/get_height")
		if err == nil {
			resp.Body.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("RPC never came up:\n%s", logs.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	resp, err := http.Post(url+"/json_rpc", "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":"0","method":"get_info"}`))
	if err != nil {
		t.Fatal(err)
	}
	var info struct {
		Result struct {
			Height       uint64 `json:"height"`
			Nettype      string `json:"nettype"`
			TopBlockHash string `json:"top_block_hash"`
			TxCount      uint64 `json:"tx_count"`
		} `json:"result"`
	}
	err = json.NewDecoder(resp.Body).Decode(&info)
	resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	r := info.Result
	if r.Height != 300 || r.Nettype != "fakechain" || r.TxCount != 10 ||
		r.TopBlockHash != "5b21854194fee15949b8c4057da0e1d3395c62a29530f1b30e7a622502f80db3" {
		t.Fatalf("get_info: %+v", r)
	}
	if err := node.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-exited:
		if err != nil {
			t.Fatalf("node exited with %v after SIGTERM:\n%s", err, logs.String())
		}
	case <-time.After(15 * time.Second):
		t.Fatalf("node did not stop within 15 s of SIGTERM:\n%s", logs.String())
	}
}

// Mistakes get a clear message and exit status 1.
func TestCommandLineErrors(t *testing.T) {
	bin := buildGonerod(t)
	data := t.TempDir()
	corrupt := filepath.Join(data, "corrupt.raw")
	if err := os.WriteFile(corrupt, []byte("not an export file at all"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--regtest", "--testnet"}, "at most one of"},
		{[]string{"--fixed-difficulty", "5"}, "only allowed with --regtest"},
		{[]string{"--regtest", "--rpc-bind-ip", "0.0.0.0"}, "--confirm-external-bind"},
		{[]string{"--regtest", "--rpc-login", "user"}, "needs user:password"},
		{[]string{"import", "--regtest"}, "--input-file is required"},
		{[]string{"import", "--regtest", "--input-file", filepath.Join(data, "missing.raw")}, "no such file"},
		{[]string{"import", "--regtest", "--input-file", corrupt}, "not a monero-blockchain-export file"},
		{[]string{"--no-such-flag"}, "unknown flag"},
	}
	for _, c := range cases {
		cmd := exec.Command(bin, append(c.args, "--data-dir", data)...)
		cmd.Env = append(os.Environ(), "RPC_PASSWORD=")
		out, err := cmd.CombinedOutput()
		ee, ok := err.(*exec.ExitError)
		if !ok || ee.ExitCode() != 1 || !strings.Contains(string(out), c.want) {
			t.Errorf("gonerod %v: exit %v, output %q; want status 1 and %q", c.args, err, out, c.want)
		}
	}
}

// --rpc-login (digest auth, checked with curl --digest) and a second,
// restricted listener, through the real binary.
func TestLoginAndRestrictedListener(t *testing.T) {
	curl := testutil.RequireTool(t, "curl", "apt-get install curl")
	bin := buildGonerod(t)
	data := t.TempDir()
	port, rport := freePort(t), freePort(t)
	node := exec.Command(bin, "--regtest", "--data-dir", data, "--rpc-bind-port", strconv.Itoa(port),
		"--rpc-restricted-bind-port", strconv.Itoa(rport), "--rpc-login", "alice:s3cret")
	var logs bytes.Buffer
	node.Stdout, node.Stderr = &logs, &logs
	if err := node.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { node.Process.Signal(syscall.SIGTERM); node.Wait() }()
	body := `{"jsonrpc":"2.0","id":"0","method":"get_connections"}`
	ask := func(p int, auth ...string) string {
		args := append([]string{"-s", "-o", "/dev/null", "-w", "%{http_code}", "--data", body}, auth...)
		out, _ := exec.Command(curl, append(args, "http://127.0.0.1:"+strconv.Itoa(p)+"/json_rpc")...).Output()
		return string(out)
	}
	deadline := time.Now().Add(20 * time.Second)
	for ask(port) == "000" {
		if time.Now().After(deadline) {
			t.Fatalf("RPC never came up:\n%s", logs.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	if got := ask(port); got != "401" {
		t.Errorf("without credentials: HTTP %s, want 401", got)
	}
	if got := ask(port, "--digest", "-u", "alice:wrong"); got != "401" {
		t.Errorf("wrong password: HTTP %s, want 401", got)
	}
	if got := ask(port, "--digest", "-u", "alice:s3cret"); got != "200" {
		t.Errorf("right password: HTTP %s, want 200", got)
	}
	out, _ := exec.Command(curl, "-s", "--digest", "-u", "alice:s3cret", "--data", body, "http://127.0.0.1:"+strconv.Itoa(rport)+"/json_rpc").Output()
	if !strings.Contains(string(out), "-32601") {
		t.Errorf("get_connections on the restricted listener: %s", out)
	}
}
