package main

import (
	"bytes"
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
			p2pConfigHook = watch.hook
			defer func() { p2pConfigHook = nil }()
			taken, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			defer taken.Close()
			takenPort := taken.Addr().(*net.TCPAddr).Port
			ports := map[string]int{"--p2p-bind-port": freePort(t), "--rpc-bind-port": freePort(t),
				"--rpc-restricted-bind-port": freePort(t), "--metrics-bind-port": freePort(t), "zmq": freePort(t)}
			ports[occupied] = takenPort
			data := t.TempDir()
			args := []string{"--regtest", "--fixed-difficulty", "1", "--data-dir", data, "--log-level", "error",
				"--p2p-bind-ip", "127.0.0.1", "--add-exclusive-node", "127.0.0.1:" + strconv.Itoa(freePort(t)),
				"--zmq-pub", "tcp://127.0.0.1:" + strconv.Itoa(ports["zmq"])}
			for _, flag := range []string{"--p2p-bind-port", "--rpc-bind-port", "--rpc-restricted-bind-port", "--metrics-bind-port"} {
				args = append(args, flag, strconv.Itoa(ports[flag]))
			}
			// os/signal's own goroutine starts with the first Notify and
			// stays: start it before counting.
			_, stopSignals := signalContext()
			stopSignals()
			before := runtime.NumGoroutine()
			root := newRootCommand()
			root.SetArgs(args)
			err = root.Execute()
			if err == nil || !strings.Contains(err.Error(), strconv.Itoa(takenPort)) {
				t.Fatalf("gonerod with port %d taken for %s: %v, want an error naming it", takenPort, occupied, err)
			}
			for name, port := range ports {
				if port == takenPort {
					continue
				}
				l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port))
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
