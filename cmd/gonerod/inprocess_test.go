package main

import (
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/gonero/gonero/node"
)

// inProcess stands for the gonerod binary in the tests that run the node
// in this process (launchGonerod, importInto): they parse gonerod's flags
// as the binary does and start node.New with the Config, so no binary is
// built for them. The tests of what only the binary has (signals, exit
// codes, client-mode operator commands) build it with buildGonerod.
const inProcess = ""

// launchGonerod runs gonerod with args in this process: the flags parsed
// by gonerod's root command into a node.Config, the node started with
// node.New; its log goes to g.logPath (a new file in the test's
// directory). stop stops it, once however often it is called, and the
// test's end calls it; a failed test shows the end of the log. exited is
// closed once the node has stopped (stopped by stop, by /stop_daemon, or
// failed to start). bin is ignored: see inProcess.
func launchGonerod(t *testing.T, g *gonerod, _ string, args []string) (exited <-chan struct{}, stop func()) {
	t.Helper()
	g.logPath = filepath.Join(t.TempDir(), "gonerod.log")
	logFile, err := os.Create(g.logPath)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	n, err := newInProcessNode(withZMQRPCPort(t, args), logFile)
	if err == nil {
		err = n.Start()
	}
	if err != nil {
		fmt.Fprintln(logFile, "gonerod:", err)
		logFile.Close()
		close(done)
		return done, func() {}
	}
	var once sync.Once
	closeNode := func() {
		once.Do(func() {
			if err := n.Close(); err != nil {
				fmt.Fprintln(logFile, "gonerod:", err)
			}
			logFile.Close()
			close(done)
		})
	}
	// /stop_daemon (or the RPC failing) ends the node as it ends the binary.
	go func() { <-n.Done(); closeNode() }()
	stop = func() {
		closeNode()
		if t.Failed() {
			log, _ := os.ReadFile(g.logPath)
			t.Logf("gonerod's log (%v):\n%s", args, clipText(log, 20000))
		}
	}
	t.Cleanup(stop)
	return done, stop
}

// newInProcessNode is the node gonerod would start with args, logging to
// logFile at --log-level.
func newInProcessNode(args []string, logFile *os.File) (*node.Node, error) {
	o := &options{}
	if err := newRootCommandFor(o).ParseFlags(args); err != nil {
		return nil, err
	}
	cfg, err := o.config()
	if err != nil {
		return nil, err
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(o.logLevel)); err != nil {
		return nil, err
	}
	cfg.LogLevel = new(slog.LevelVar)
	cfg.LogLevel.Set(level)
	cfg.Logger = slog.New(slog.NewTextHandler(logFile, &slog.HandlerOptions{Level: cfg.LogLevel}))
	return node.New(cfg)
}

// importInto imports the chain file raw into gonerod's data directory
// data (regtest, difficulty 1 as monerod-lab's chains), with extra import
// flags, running gonerod's import command in this process.
func importInto(t *testing.T, _, data, raw string, extra ...string) {
	t.Helper()
	args := append([]string{"import", "--regtest", "--fixed-difficulty", "1", "--data-dir", data, "--input-file", raw,
		"--log-level", "warn"}, extra...)
	root := newRootCommand()
	root.SetArgs(args)
	var out strings.Builder
	root.SetOut(&out)
	root.SetErr(&out)
	if err := root.Execute(); err != nil {
		t.Fatalf("import: %v\n%s", err, out.String())
	}
}
