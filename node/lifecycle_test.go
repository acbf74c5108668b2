package node

import (
	"bytes"
	"log/slog"
	"net"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gonero/gonero/chaindb"
	"github.com/gonero/gonero/params"
)

// A start that fails midway stops every part that had started: the
// listeners of P2P, ZMQ and the RPC are free again, the store is closed
// (another opener gets its lock at once) and no goroutine is left.
func TestFailedStartStopsWhatStarted(t *testing.T) {
	for _, occupied := range []string{"--metrics-bind-port", "--rpc-restricted-bind-port"} {
		t.Run(occupied, func(t *testing.T) {
			watch := &netWatch{}
			taken, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			defer taken.Close()
			takenPort := uint16(taken.Addr().(*net.TCPAddr).Port)
			ports := map[string]uint16{"--p2p-bind-port": freePort(t), "--rpc-bind-port": freePort(t),
				"--rpc-restricted-bind-port": freePort(t), "--metrics-bind-port": freePort(t), "zmq": freePort(t),
				"--zmq-rpc-bind-port": freePort(t)}
			ports[occupied] = takenPort
			data := t.TempDir()
			cfg := regtestConfig(t, data)
			cfg.Logger = testLogger(t, slog.LevelError)
			watch.watch(&cfg.P2P)
			cfg.P2P.ExclusiveNodes = []string{"127.0.0.1:" + strconv.Itoa(int(freePort(t)))}
			cfg.ZMQPub = []string{"tcp://127.0.0.1:" + strconv.Itoa(int(ports["zmq"]))}
			cfg.ZMQRPC.BindPort = ports["--zmq-rpc-bind-port"]
			cfg.P2P.BindPort, cfg.RPC.BindPort = ports["--p2p-bind-port"], ports["--rpc-bind-port"]
			cfg.RPC.RestrictedBindPort, cfg.MetricsBindPort = ports["--rpc-restricted-bind-port"], ports["--metrics-bind-port"]
			before := runtime.NumGoroutine()
			n, err := New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			err = n.Start()
			if err == nil || !strings.Contains(err.Error(), strconv.Itoa(int(takenPort))) {
				t.Fatalf("a node with port %d taken for %s: %v, want an error naming it", takenPort, occupied, err)
			}
			for name, port := range ports {
				if port == takenPort {
					continue
				}
				l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(int(port)))
				if err != nil {
					t.Errorf("%s port %d still taken after the failed start: %v", name, port, err)
					continue
				}
				l.Close()
			}
			db, err := chaindb.Open(filepath.Join(data, params.Regtest.DataSubdir(), "gonero.db"),
				chaindb.Options{Network: params.Regtest.String(), LockTimeout: time.Second})
			if err != nil {
				t.Errorf("the store is still open after the failed start: %v", err)
			} else {
				db.Close()
			}
			deadline := time.Now().Add(5 * time.Second)
			for runtime.NumGoroutine() > before {
				if time.Now().After(deadline) {
					var stacks bytes.Buffer
					_ = pprof.Lookup("goroutine").WriteTo(&stacks, 1)
					t.Fatalf("%d goroutines after the failed start, %d before:\n%s", runtime.NumGoroutine(), before, stacks.String())
				}
				time.Sleep(20 * time.Millisecond)
			}
		})
	}
}

// A node starts once; Close stops it once however often it is called, and
// Done tells its owner it has ended; the accessors give what it bound.
func TestStartOnceCloseTwice(t *testing.T) {
	t.Parallel()
	cfg := regtestConfig(t, t.TempDir())
	cfg.P2P.Offline = true
	cfg.MetricsBindPort = freePort(t)
	n, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if n.RPCAddr() != "" || n.Chain() != nil || n.MetricsAddr() != nil {
		t.Fatalf("a node not started has addresses: %q %v", n.RPCAddr(), n.MetricsAddr())
	}
	if err := n.Start(); err != nil {
		t.Fatal(err)
	}
	if err := n.Start(); err == nil {
		t.Error("a second Start succeeded")
	}
	if want := "127.0.0.1:" + strconv.Itoa(int(cfg.RPC.BindPort)); n.RPCAddr() != want {
		t.Errorf("RPC on %s, want %s", n.RPCAddr(), want)
	}
	if n.MetricsAddr() == nil || n.MetricsAddr().String() != "127.0.0.1:"+strconv.Itoa(int(cfg.MetricsBindPort)) {
		t.Errorf("metrics on %v", n.MetricsAddr())
	}
	if n.Chain() == nil || n.Chain().Height() != 1 {
		t.Errorf("the chain of a new regtest store: %v", n.Chain())
	}
	select {
	case <-n.Done():
		t.Fatal("Done before Close")
	default:
	}
	if err := n.Close(); err != nil {
		t.Fatal(err)
	}
	if err := n.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	<-n.Done()
	if err := n.Err(); err != nil {
		t.Fatalf("Err after Close: %v", err)
	}
}
