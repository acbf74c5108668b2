package monerodlab

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// NodeConfig is how a reference monerod is started: always bound to
// 127.0.0.1, with no UPnP, DNS checkpoints, update checks or console, and
// its log in DataDir/monerod.log (its console output in
// DataDir/monerod.stdout, its process id in DataDir/monerod.pid).
type NodeConfig struct {
	DataDir          string
	RPCPort, P2PPort int
	// Network is "regtest" (also when empty), "testnet", "stagenet" or
	// "mainnet".
	Network string
	// FixedDifficulty is passed as --fixed-difficulty; 0 means 1 on regtest
	// and none elsewhere.
	FixedDifficulty uint64
	// Online drops --offline: monerod then dials what Extra names
	// (--add-exclusive-node) or its seeds, which the loopback-only namespace
	// makes unreachable.
	Online bool
	// Restricted adds --restricted-rpc.
	Restricted bool
	// Fresh lets monerod wipe a regtest store at start (no --keep-fakechain).
	Fresh bool
	// ZMQPub, when set, turns ZMQ on (no --no-zmq) and publishes there; the
	// ZMQ RPC listens on 127.0.0.1:ZMQRPCPort (0: RPCPort+1000).
	ZMQPub     string
	ZMQRPCPort int
	LogLevel   int
	// Extra are further monerod arguments, last.
	Extra []string
	// ProbeTLS, when set, is how StartNode's readiness probe speaks TLS
	// to an RPC port that Extra's --rpc-ssl flags made TLS-only.
	ProbeTLS *tls.Config
}

// Args is monerod's command line for c.
func (c NodeConfig) Args() ([]string, error) {
	if c.DataDir == "" {
		return nil, errors.New("monerod: no data directory")
	}
	if c.RPCPort <= 0 || c.P2PPort <= 0 || c.RPCPort == c.P2PPort {
		return nil, fmt.Errorf("monerod: ports rpc %d and p2p %d must be set and differ", c.RPCPort, c.P2PPort)
	}
	args := []string{"--no-igd", "--disable-dns-checkpoints", "--check-updates", "disabled",
		"--p2p-bind-ip", "127.0.0.1", "--rpc-bind-ip", "127.0.0.1", "--non-interactive",
		"--log-level", strconv.Itoa(c.LogLevel),
		"--data-dir", c.DataDir, "--log-file", filepath.Join(c.DataDir, "monerod.log"),
		"--p2p-bind-port", strconv.Itoa(c.P2PPort), "--rpc-bind-port", strconv.Itoa(c.RPCPort)}
	switch c.Network {
	case "", "regtest":
		diff := c.FixedDifficulty
		if diff == 0 {
			diff = 1
		}
		args = append(args, "--regtest", "--fixed-difficulty", strconv.FormatUint(diff, 10))
		if !c.Fresh {
			args = append(args, "--keep-fakechain")
		}
	case "testnet", "stagenet":
		args = append(args, "--"+c.Network)
	case "mainnet":
	default:
		return nil, fmt.Errorf("monerod: network %q is not regtest, testnet, stagenet or mainnet", c.Network)
	}
	if c.Network != "" && c.Network != "regtest" && c.FixedDifficulty != 0 {
		args = append(args, "--fixed-difficulty", strconv.FormatUint(c.FixedDifficulty, 10))
	}
	if c.ZMQPub != "" {
		zport := c.ZMQRPCPort
		if zport == 0 {
			zport = c.RPCPort + 1000
		}
		args = append(args, "--zmq-pub", c.ZMQPub, "--zmq-rpc-bind-ip", "127.0.0.1", "--zmq-rpc-bind-port", strconv.Itoa(zport))
	} else {
		args = append(args, "--no-zmq")
	}
	if !c.Online {
		args = append(args, "--offline")
	}
	if c.Restricted {
		args = append(args, "--restricted-rpc")
	}
	return append(args, c.Extra...), nil
}

// Process is a reference tool (monerod, monero-wallet-rpc) this process
// started.
type Process struct {
	Name string
	PID  int
	log  string
	done chan struct{} // closed when the process has exited (not when detached)
}

// StartProcess starts bin with args, its output in dir/logName, and
// waits until ready reports true; it fails if the process exits first or
// is not ready within readyTimeout (and then stops it). A detached process
// runs in a session of its own and outlives this one (nobody waits for it:
// stop it with StopPID).
//
// The caller must run inside the loopback-only namespace (Require and the
// monerodlab command check it): the process inherits it.
func StartProcess(dir, logName, bin string, args []string, detach bool, readyTimeout time.Duration, ready func() bool) (*Process, error) {
	p := &Process{Name: filepath.Base(bin), log: filepath.Join(dir, logName)}
	out, err := os.Create(p.log)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = out, out
	if detach {
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	}
	if err := cmd.Start(); err != nil {
		out.Close()
		return nil, err
	}
	p.PID = cmd.Process.Pid
	if !detach {
		p.done = make(chan struct{})
		go func() { _ = cmd.Wait(); out.Close(); close(p.done) }()
	} else {
		out.Close()
		_ = cmd.Process.Release()
	}
	deadline := time.Now().Add(readyTimeout)
	for !ready() {
		if !p.alive() {
			return nil, fmt.Errorf("%s exited before it answered:\n%s", p.Name, tail(p.log, 30))
		}
		if time.Now().After(deadline) {
			p.Stop(10 * time.Second)
			return nil, fmt.Errorf("%s did not answer within %v:\n%s", p.Name, readyTimeout, tail(p.log, 30))
		}
		time.Sleep(200 * time.Millisecond)
	}
	return p, nil
}

func (p *Process) alive() bool {
	if p.done != nil {
		select {
		case <-p.done:
			return false
		default:
			return true
		}
	}
	return pidAlive(p.PID)
}

// Stop sends SIGTERM and, if the process is still there after grace,
// SIGKILL; it returns once the process has gone.
func (p *Process) Stop(grace time.Duration) {
	if p.done == nil {
		_ = StopPID(p.PID, grace)
		return
	}
	_ = syscall.Kill(p.PID, syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(grace):
		_ = syscall.Kill(p.PID, syscall.SIGKILL)
		<-p.done
	}
}

// pidAlive reports whether pid is a live process (a zombie counts as gone).
func pidAlive(pid int) bool {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	// pid (comm) state ...: the state follows the last ')'.
	i := bytes.LastIndexByte(stat, ')')
	return i >= 0 && i+2 < len(stat) && stat[i+2] != 'Z'
}

// StopPID stops a process this package started detached: SIGTERM, then
// SIGKILL after grace. A process already gone is no error.
func StopPID(pid int, grace time.Duration) error {
	if !pidAlive(pid) {
		return nil
	}
	if err := syscall.Kill(pid, syscall.SIGTERM); err != nil {
		return err
	}
	for end := time.Now().Add(grace); time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
		if !pidAlive(pid) {
			return nil
		}
	}
	_ = syscall.Kill(pid, syscall.SIGKILL)
	for end := time.Now().Add(5 * time.Second); time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
		if !pidAlive(pid) {
			return nil
		}
	}
	return fmt.Errorf("process %d survived SIGKILL", pid)
}

// tail is the last n lines of the file at path.
func tail(path string, n int) string {
	b, _ := os.ReadFile(path)
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// StartNode starts monerod as c says and waits (up to readyTimeout) until
// its RPC answers /get_height; it writes the process id to
// DataDir/monerod.pid. See StartProcess for detach and the namespace.
func StartNode(c NodeConfig, detach bool, readyTimeout time.Duration) (*Process, error) {
	if err := os.MkdirAll(c.DataDir, 0o755); err != nil {
		return nil, err
	}
	abs, err := filepath.Abs(c.DataDir)
	if err != nil {
		return nil, err
	}
	c.DataDir = abs
	args, err := c.Args()
	if err != nil {
		return nil, err
	}
	for _, port := range []int{c.RPCPort, c.P2PPort} {
		if l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port)); err != nil {
			return nil, fmt.Errorf("monerod: port %d: %v", port, err)
		} else {
			l.Close()
		}
	}
	pidFile := filepath.Join(c.DataDir, "monerod.pid")
	os.Remove(pidFile)
	client := &http.Client{Timeout: 3 * time.Second}
	url := fmt.Sprintf("http://127.0.0.1:%d/get_height", c.RPCPort)
	if c.ProbeTLS != nil {
		client.Transport = &http.Transport{TLSClientConfig: c.ProbeTLS}
		url = fmt.Sprintf("https://127.0.0.1:%d/get_height", c.RPCPort)
	}
	p, err := StartProcess(c.DataDir, "monerod.stdout", "monerod", args, detach, readyTimeout, func() bool {
		resp, err := client.Post(url, "application/json", nil)
		if err != nil {
			return false
		}
		defer resp.Body.Close()
		var body bytes.Buffer
		_, _ = body.ReadFrom(resp.Body)
		return bytes.Contains(body.Bytes(), []byte(`"OK"`))
	})
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(pidFile, []byte(strconv.Itoa(p.PID)+"\n"), 0o644); err != nil {
		p.Stop(30 * time.Second)
		return nil, err
	}
	return p, nil
}

// InsideNetNS reports whether this process runs in the network namespace
// called name (ip netns add name).
func InsideNetNS(name string) bool {
	var self, ns syscall.Stat_t
	if name == "" || syscall.Stat("/proc/self/ns/net", &self) != nil || syscall.Stat("/var/run/netns/"+name, &ns) != nil {
		return false
	}
	return self.Ino == ns.Ino && self.Dev == ns.Dev
}

// runTool runs a reference tool to its end in dir (where tools such as
// monero-blockchain-export drop their log), returning its output.
func runTool(ctx context.Context, dir, bin string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("%s: %v\n%s", bin, err, out)
	}
	return string(out), nil
}

// NetNSExists reports whether the network namespace name exists (ip netns
// add name).
func NetNSExists(name string) bool {
	_, err := os.Stat("/var/run/netns/" + name)
	return name != "" && !strings.Contains(name, "/") && err == nil
}
