package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
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
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/gonero/gonero/daemonctl"
	"github.com/gonero/gonero/internal/monerodlab"
)

var captureDaemonctl = flag.Bool("capture-daemonctl", false,
	"TestCaptureDaemonctlGolden: record monerod's RPC answers and client output into daemonctl/testdata/golden")

// capCall is one RPC exchange the proxy saw (or, for OwnRequests cases,
// daemonctl's in-process client made through it).
type capCall struct {
	Path       string          `json:"path"`
	Method     string          `json:"method,omitempty"`
	Request    json.RawMessage `json:"request,omitempty"`
	HTTPStatus int             `json:"http_status"`
	Answer     json.RawMessage `json:"answer,omitempty"`
	AnswerText *string         `json:"answer_text,omitempty"`
	at         time.Time
}

// capCase is one file of daemonctl/testdata/golden (see its README).
type capCase struct {
	Args         []string  `json:"args"`
	Color        bool      `json:"color"`
	Now          string    `json:"now"`
	Addr         string    `json:"addr"`
	Unreachable  bool      `json:"unreachable,omitempty"`
	Calls        []capCall `json:"calls"`
	MonerodCalls []capCall `json:"monerod_calls,omitempty"`
	Stderr       string    `json:"stderr"`
	Code         int       `json:"code"`
}

// recProxy stands between a client and monerod's RPC and records each
// exchange. An answer due in the last quarter of a second is held until
// just after the next second starts, so that the client's clock reading
// after the answer falls in the second the answer was sent in.
type recProxy struct {
	target string
	addr   string
	mu     sync.Mutex
	calls  []capCall
}

func startRecProxy(t *testing.T, target int) *recProxy {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &recProxy{target: "http://127.0.0.1:" + strconv.Itoa(target), addr: l.Addr().String()}
	client := &http.Client{Timeout: 2 * time.Minute}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		resp, err := client.Post(p.target+r.URL.Path, "application/json", bytes.NewReader(body))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		answer, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		c := capCall{Path: r.URL.Path, HTTPStatus: resp.StatusCode}
		if json.Valid(body) {
			c.Request = compactJSON(body)
		}
		if r.URL.Path == "/json_rpc" {
			var env struct {
				Method string          `json:"method"`
				Params json.RawMessage `json:"params"`
			}
			_ = json.Unmarshal(body, &env)
			c.Method, c.Request = env.Method, env.Params
		}
		if json.Valid(answer) {
			c.Answer = compactJSON(answer)
		} else {
			s := string(answer)
			c.AnswerText = &s
		}
		if now := time.Now(); now.Nanosecond() > 750e6 {
			time.Sleep(time.Second - time.Duration(now.Nanosecond()) + 50*time.Millisecond)
		}
		c.at = time.Now()
		p.mu.Lock()
		p.calls = append(p.calls, c)
		p.mu.Unlock()
		for k, v := range resp.Header {
			if k == "Content-Type" {
				w.Header()[k] = v
			}
		}
		w.WriteHeader(resp.StatusCode)
		_, _ = w.Write(answer)
	})}
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(func() { srv.Close() })
	return p
}

func compactJSON(b []byte) json.RawMessage {
	var out bytes.Buffer
	if err := json.Compact(&out, b); err != nil {
		return nil
	}
	return out.Bytes()
}

func (p *recProxy) take() []capCall {
	p.mu.Lock()
	defer p.mu.Unlock()
	c := p.calls
	p.calls = nil
	return c
}

// openPTY opens a pseudo-terminal whose slave does no output processing
// (no "\n" to "\r\n"), so that monerod's client writes its terminal output
// (colours) byte for byte as to a pipe.
func openPTY() (master, slave *os.File, err error) {
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		return nil, nil, err
	}
	fd := int(m.Fd())
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		m.Close()
		return nil, nil, err
	}
	n, err := unix.IoctlGetInt(fd, unix.TIOCGPTN)
	if err != nil {
		m.Close()
		return nil, nil, err
	}
	s, err := os.OpenFile("/dev/pts/"+strconv.Itoa(n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		m.Close()
		return nil, nil, err
	}
	tio, err := unix.IoctlGetTermios(int(s.Fd()), unix.TCGETS)
	if err == nil {
		tio.Oflag &^= unix.OPOST
		err = unix.IoctlSetTermios(int(s.Fd()), unix.TCSETS, tio)
	}
	if err != nil {
		m.Close()
		s.Close()
		return nil, nil, err
	}
	return m, s, nil
}

// runMonerodClient runs monerod's client mode with stdout on a pipe or,
// for color, on a terminal.
func runMonerodClient(t *testing.T, color bool, args []string) (stdout, stderr string, code int) {
	t.Helper()
	// stop_mining waits for monerod's miner threads, which may be
	// initialising RandomX's dataset: minutes on a busy machine.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "monerod", args...)
	var out, errOut bytes.Buffer
	cmd.Stderr = &errOut
	var done chan struct{}
	if color {
		m, s, err := openPTY()
		if err != nil {
			t.Fatal(err)
		}
		defer m.Close()
		cmd.Stdout = s
		done = make(chan struct{})
		go func() { _, _ = io.Copy(&out, m); close(done) }()
		err = cmd.Start()
		s.Close()
		if err != nil {
			t.Fatal(err)
		}
	} else {
		cmd.Stdout = &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
	}
	err := cmd.Wait()
	if done != nil {
		<-done // the master reads EIO once the client's end is closed
	}
	if ctx.Err() != nil {
		t.Fatalf("monerod %v did not finish within 5 min", args)
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), errOut.String(), code
}

var capLogTime = regexp.MustCompile(`\x1b\[0;3\dm(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3})\t[EWD] `)

// TestCaptureDaemonctlGolden records, for each operator command
// daemonctl implements, the RPC exchanges monerod 0.18.5.3's client mode
// makes with monerod on the regtest chain of the cross-checks, and what
// that client printed, into daemonctl/testdata/golden, which the golden
// tests of daemonctl replay through a fake client (no root, no network).
// Run only with -capture-daemonctl (see daemonctl/testdata/golden/README.md).
func TestCaptureDaemonctlGolden(t *testing.T) {
	if !*captureDaemonctl {
		t.Skip("only with -capture-daemonctl")
	}
	lab := monerodlab.Require(t)
	fresh := lab.FreshChain(t)
	outDir, err := filepath.Abs("../../daemonctl/testdata/golden")
	if err != nil {
		t.Fatal(err)
	}
	old, _ := filepath.Glob(filepath.Join(outDir, "*.json"))
	olds, _ := filepath.Glob(filepath.Join(outDir, "*.monerod"))
	for _, f := range append(old, olds...) {
		os.Remove(f)
	}
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		t.Fatal(err)
	}
	m := lab.StartMonerod(t, fresh.NodeDir)
	restricted := lab.StartMonerod(t, fresh.NodeDir, "--restricted")
	mainProxy, resProxy := startRecProxy(t, m.RPCPort), startRecProxy(t, restricted.RPCPort)
	clientData := t.TempDir()
	downPort := freePort(t)
	seq := 0
	// capture runs one case; readOnly cases are run again when their
	// answers straddle a second (the clock reading would be ambiguous);
	// ownRequests cases replay daemonctl's own requests, which differ
	// from monerod's client's (print_tx +json asks for decode_as_json).
	capture := func(p *recProxy, color, readOnly, ownRequests bool, args ...string) string {
		t.Helper()
		port := strconv.Itoa(downPort)
		addr := "127.0.0.1:" + port
		if p != nil {
			addr = p.addr
			_, port, _ = net.SplitHostPort(p.addr)
		}
		var c capCase
		var stdout string
		for attempt := 0; ; attempt++ {
			if p != nil {
				p.take()
			}
			var stderr string
			var code int
			stdout, stderr, code = runMonerodClient(t, color, append([]string{"--regtest", "--data-dir", clientData, "--rpc-bind-port", port}, args...))
			c = capCase{Args: args, Color: color, Addr: addr, Unreachable: p == nil, Stderr: stderr, Code: code, Calls: []capCall{}}
			if p != nil {
				c.Calls = p.take()
			}
			var now time.Time
			if len(c.Calls) > 0 {
				now = c.Calls[len(c.Calls)-1].at.Truncate(time.Second)
				if !c.Calls[0].at.Truncate(time.Second).Equal(now) && readOnly && attempt < 5 {
					continue
				}
			} else if lt := capLogTime.FindStringSubmatch(stdout); lt != nil {
				// The command's log line (the banner is at level I).
				if now, err = time.ParseInLocation("2006-01-02 15:04:05.000", lt[1], time.UTC); err != nil {
					t.Fatal(err)
				}
			} else {
				now = time.Now().Truncate(time.Second)
			}
			c.Now = now.UTC().Format(time.RFC3339Nano)
			break
		}
		if ownRequests {
			c.MonerodCalls = c.Calls
			ctl := &daemonctl.Ctl{C: &daemonctl.HTTPClient{Host: "127.0.0.1", Port: port}, Out: io.Discard}
			ctl.Run(args, io.Discard)
			c.Calls = p.take()
		}
		seq++
		name := fmt.Sprintf("%03d_%s", seq, caseName(args, color, p, resProxy))
		js, err := json.MarshalIndent(c, "", "\t")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(outDir, name+".json"), append(js, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(outDir, name+".monerod"), []byte(stdout), 0o644); err != nil {
			t.Fatal(err)
		}
		return stdout
	}

	var b5 struct {
		Header struct {
			Hash        string `json:"hash"`
			MinerTxHash string `json:"miner_tx_hash"`
		} `json:"block_header"`
	}
	if err := m.Call("get_block", map[string]any{"height": 5}, &b5); err != nil {
		t.Fatal(err)
	}
	zero := strings.Repeat("0", 64)
	readOnly := [][]string{
		{"status"}, {"sync_info"}, {"print_cn"}, {"print_height"}, {"diff"}, {"mining_status"},
		{"print_net_stats"}, {"hard_fork_info"}, {"hard_fork_info", "16"}, {"hard_fork_info", "1"},
		{"print_pool"}, {"print_pool_stats"}, {"bans"},
		{"print_block", "5"}, {"print_block", b5.Header.Hash}, {"print_block", "5", "+hex"},
		{"print_tx", b5.Header.MinerTxHash}, {"print_tx", b5.Header.MinerTxHash, "+hex"},
		{"print_tx", b5.Header.MinerTxHash, "+meta"},
		{"print_block", "99999"}, {"print_block", "zz"}, {"print_block"}, {"print_block", "5", "+json"},
		{"print_tx", zero}, {"print_tx", "zz"}, {"print_tx"}, {"print_tx", zero, "+x"},
		{"hard_fork_info", "300"}, {"hard_fork_info", "0"}, {"hard_fork_info", "x"}, {"hard_fork_info", "1", "2"},
		{"print_height", "3"}, {"status", "x"}, {"bans", "x"}, {"sync_info", "x"}, {"print_cn", "x"},
		{"diff", "x"}, {"print_net_stats", "x"}, {"print_pool", "x"}, {"print_pool_stats", "x"},
		{"mining_status", "x"}, {"flush_txpool", "zz"}, {"flush_txpool", "a", "b"},
		{"ban"}, {"ban", "10.1.2.3", "0"}, {"ban", "10.1.2.3", "x"}, {"ban", "a", "b", "c"}, {"unban"},
		{"pop_blocks"}, {"pop_blocks", "0"}, {"pop_blocks", "x"}, {"stop_mining", "x"}, {"start_mining"},
		{"start_mining", "notanaddress"}, {"start_mining", monerodlab.AliceAddress, "1", "maybe"},
		{"start_mining", monerodlab.AliceAddress, "1", "false", "maybe"},
		{"start_mining", monerodlab.AliceAddress, "1", "false", "false", "x"},
		{"exit", "now"},
	}
	for _, args := range readOnly {
		capture(mainProxy, false, true, false, args...)
	}
	capture(mainProxy, false, true, true, "print_tx", b5.Header.MinerTxHash, "+hex", "+json")
	for _, args := range [][]string{
		{"status"}, {"print_height"}, {"diff"}, {"sync_info"}, {"hard_fork_info"}, {"bans"}, {"mining_status"},
		{"print_block", "5"}, {"print_block", "99999"}, {"print_block", "zz"}, {"print_tx", zero}, {"print_tx", b5.Header.MinerTxHash, "+meta"},
		{"print_pool"}, {"print_net_stats"}, {"print_height", "3"},
	} {
		capture(mainProxy, true, true, false, args...)
	}
	// A restricted RPC refuses some calls (those that change the state
	// last, stop_daemon the very last in case it is not refused).
	for _, args := range [][]string{
		{"status"}, {"mining_status"}, {"bans"}, {"print_cn"}, {"sync_info"}, {"print_net_stats"}, {"print_pool"},
		{"print_pool_stats"}, {"print_height"},
	} {
		capture(resProxy, false, true, false, args...)
	}
	capture(resProxy, true, true, false, "status")
	capture(resProxy, true, true, false, "mining_status")
	for _, args := range [][]string{
		{"pop_blocks", "1"}, {"flush_txpool"}, {"ban", "10.1.2.3"}, {"unban", "10.1.2.3"},
		{"start_mining", monerodlab.AliceAddress}, {"stop_mining"}, {"stop_daemon", "now"}, {"stop_daemon"},
	} {
		capture(resProxy, false, false, false, args...)
	}
	// Nothing listening.
	for _, args := range [][]string{
		{"status"}, {"print_height"}, {"bans"}, {"print_tx", zero}, {"print_block", "5"}, {"print_pool"},
		{"print_pool_stats"}, {"print_net_stats"}, {"mining_status"}, {"sync_info"}, {"print_cn"}, {"diff"},
		{"hard_fork_info"}, {"ban", "10.1.2.3"}, {"unban", "10.1.2.3"}, {"flush_txpool"}, {"pop_blocks", "1"},
		{"start_mining", monerodlab.AliceAddress}, {"stop_mining"}, {"stop_daemon"},
	} {
		capture(nil, false, true, false, args...)
	}
	capture(nil, true, true, false, "print_height")
	capture(nil, true, true, false, "mining_status")
	// The help listing (an unknown command).
	capture(mainProxy, false, true, false, "no_such_command")

	// Commands that change the state, in the cross-check's order.
	for _, args := range [][]string{
		{"ban", "10.1.2.3", "3600"}, {"ban", "10.9.8.7"}, {"bans"}, {"unban", "10.9.8.7"}, {"bans"},
		{"unban", "10.1.2.3"}, {"bans"}, {"pop_blocks", "10"}, {"print_height"}, {"status"},
	} {
		capture(mainProxy, false, false, false, args...)
	}
	pool := capture(mainProxy, false, true, false, "print_pool")
	capture(mainProxy, true, true, false, "print_pool")
	capture(mainProxy, false, true, false, "print_pool_stats")
	capture(mainProxy, true, true, false, "print_pool_stats")
	txids := regexp.MustCompile(`(?m)^id: ([0-9a-f]{64})$`).FindAllStringSubmatch(pool, -1)
	if len(txids) == 0 {
		t.Fatalf("no transactions in the pool after pop_blocks:\n%s", pool)
	}
	capture(mainProxy, false, true, true, "print_tx", txids[0][1], "+hex", "+json")
	capture(mainProxy, false, true, false, "print_tx", txids[0][1])
	capture(mainProxy, false, true, false, "print_tx", txids[0][1], "+meta")
	capture(mainProxy, false, false, false, "flush_txpool", txids[0][1])
	capture(mainProxy, false, true, false, "print_pool_stats")
	capture(mainProxy, false, false, false, "flush_txpool")
	capture(mainProxy, false, true, false, "print_pool")
	capture(mainProxy, false, false, false, "start_mining", monerodlab.AliceAddress, "1")
	// Mining grows the chain at difficulty 1 and slows monerod down: as
	// short as the cross-check's.
	capture(mainProxy, false, false, false, "mining_status")
	capture(mainProxy, false, false, false, "stop_mining")
	capture(mainProxy, false, true, false, "mining_status")
	capture(mainProxy, false, false, false, "exit")
}

// caseName is a file name for a case: the command and its arguments,
// hashes and addresses shortened.
func caseName(args []string, color bool, p, restricted *recProxy) string {
	var parts []string
	for _, a := range args {
		if len(a) > 16 {
			a = a[:8]
		}
		a = strings.NewReplacer("+", "plus_", ".", "_", "@", "at_").Replace(a)
		parts = append(parts, a)
	}
	name := strings.Join(parts, "_")
	if name == "" {
		name = "empty"
	}
	switch {
	case p == nil:
		name += "_unreachable"
	case p == restricted:
		name += "_restricted"
	}
	if color {
		name += "_color"
	}
	return name
}
