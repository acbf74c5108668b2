package main

import (
	"bytes"
	"io"
	"net/http"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gonero/gonero/internal/testutil"
)

// /stop_daemon stops a real gonerod: it answers OK (monerod's answer, see
// rpc's TestOperatorEndpointsMatchMonerod), then shuts down as on SIGTERM
// and exits 0; a restricted listener does not know the path.
func TestStopDaemonOverRPC(t *testing.T) {
	bin := buildGonerod(t)
	data := t.TempDir()
	raw := testutil.Path(t, "testdata", "regtest", "blockchain.raw")
	importInto(t, bin, data, raw)
	port, rport := freePort(t), freePort(t)
	node := exec.Command(bin, "--regtest", "--fixed-difficulty", "1", "--data-dir", data, "--offline",
		"--rpc-bind-port", strconv.Itoa(port), "--rpc-restricted-bind-port", strconv.Itoa(rport),
		"--zmq-rpc-bind-port", strconv.Itoa(freePort(t)))
	var logs bytes.Buffer
	node.Stdout, node.Stderr = &logs, &logs
	if err := node.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- node.Wait() }()
	defer node.Process.Kill()
	post := func(port int, path string) (int, string) {
		resp, err := http.Post("http://127.0.0.1:"+strconv.Itoa(port)+path, "application/json", strings.NewReader(`{}`))
		if err != nil {
			return 0, err.Error()
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		if status, _ := post(port, "/get_height"); status == 200 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("RPC never came up:\n%s", logs.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	if status, _ := post(rport, "/stop_daemon"); status != 404 {
		t.Fatalf("restricted /stop_daemon: HTTP %d, want 404", status)
	}
	select {
	case err := <-exited:
		t.Fatalf("gonerod exited after a refused /stop_daemon: %v", err)
	case <-time.After(500 * time.Millisecond):
	}
	status, body := post(port, "/stop_daemon")
	if status != 200 || !strings.Contains(body, `"status": "OK"`) {
		t.Fatalf("/stop_daemon: HTTP %d %s", status, body)
	}
	select {
	case err := <-exited:
		if err != nil {
			t.Fatalf("gonerod exited with %v after /stop_daemon:\n%s", err, logs.String())
		}
	case <-time.After(15 * time.Second):
		t.Fatalf("gonerod did not stop within 15 s of /stop_daemon:\n%s", logs.String())
	}
	if !strings.Contains(logs.String(), "stop requested over RPC") {
		t.Fatalf("the log does not say why gonerod stopped:\n%s", logs.String())
	}
}
