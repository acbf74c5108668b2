package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Each flood runs in a process of its own (this binary again,
// -child-attack) by default, the legitimate client staying in this one: on
// the Internet neither the attacker's CPU nor the client's is the node's,
// and a client whose goroutines wait behind the attackers' in one Go
// scheduler (and one collector, which the attackers' megabytes of answers
// keep busy) is slowed by the measurement, not by the node. The floods
// still share the machine's cores with the node. -attacker-process=false
// (bench/abuse.sh --attacker-same-process) puts them back in the client's
// process, the mode of the runs before 2026-12-06; -attacker-nice N runs
// the floods' process at nice N, the client, the nodes and this process
// staying at their own priority. The mode applies identically to every
// node and is named in the table's heading.
var (
	attackerProcess = flag.Bool("attacker-process", true, "run each flood in a process of its own, the legitimate client staying in this one (false: one process for both)")
	attackerNice    = flag.Int("attacker-nice", 0, "run the flood's process at this nice value (1-19; implies -attacker-process)")
	childAttack     = flag.String("child-attack", "", "internal: run this attack in this process, as -attacker-process's child")
	childSpec       = flag.String("child-spec", "", "internal: the node and chain facts of -child-attack, JSON")
)

// separateAttacker says whether floods run in a process of their own.
func separateAttacker() bool { return *attackerProcess || *attackerNice > 0 }

// attackerMode describes where the floods ran, for the table's heading.
func attackerMode() string {
	switch {
	case *attackerNice > 0:
		return fmt.Sprintf("the floods in a process of their own at nice %d, the legitimate client and the nodes at nice 0", *attackerNice)
	case *attackerProcess:
		return "the floods in a process of their own (the default), the legitimate client in another, all at the same priority"
	}
	return "the floods and the legitimate client in one process (--attacker-same-process), sharing the cores with the node"
}

// spec is what a child attacker needs of its node and chain.
type spec struct {
	Name          string
	RPC, P2P, ZMQ int
	Net           int
	Height        uint64
	Genesis       []byte
	Top           [32]byte
	CumDiff       uint64
	Outputs       uint64
	Txs           []string
}

// inProcess are the attacks that always run in this process: the baseline
// (no flood) and the syncs (they start a syncing gonerod, which must not
// run at the attacker's priority).
func inProcess(a attack) bool {
	return a.name == "none (baseline)" || strings.HasPrefix(a.name, "sync-")
}

// runAttack runs a against n until ctx ends and returns its note; started
// is closed once the flood runs (at once in this process; a child once it
// has read what it sends from the node).
func runAttack(ctx context.Context, a attack, n *node, f *facts, started chan<- struct{}) string {
	if !separateAttacker() || inProcess(a) {
		close(started)
		return a.run(ctx, n, f)
	}
	net, ok := ctx.Value(netKey{}).(int)
	if !ok {
		net = 1
	}
	sp, _ := json.Marshal(spec{Name: n.name, RPC: n.rpc, P2P: n.p2p, ZMQ: n.zmq, Net: net, Height: f.height,
		Genesis: f.genesis, Top: f.top, CumDiff: f.cumDiff, Outputs: f.outputs, Txs: f.txs})
	self, err := os.Executable()
	if err != nil {
		close(started)
		return "attacker process: " + err.Error()
	}
	args := []string{"-child-attack", a.name, "-child-spec", string(sp), "-all-skip", *allSkip}
	// nice(1) sets the priority before the binary starts, so every
	// thread of the Go runtime inherits it (a process that reniced itself
	// would leave the threads it already had at nice 0).
	cmd := exec.Command(self, args...)
	if *attackerNice > 0 {
		cmd = exec.Command("nice", append([]string{"-n", strconv.Itoa(*attackerNice), self}, args...)...)
	}
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		close(started)
		return "attacker process: " + err.Error()
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		close(started)
		return "attacker process: " + err.Error()
	}
	if err := cmd.Start(); err != nil {
		close(started)
		return "attacker process: " + err.Error()
	}
	lines := make(chan string, 2)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<16), 16<<20)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	note := ""
	select {
	case l, ok := <-lines:
		if !ok || l != "ready" {
			note = "attacker process did not start: " + l
		}
	case <-time.After(2 * time.Minute):
		note = "attacker process not ready within 2 minutes"
	case <-ctx.Done():
	}
	close(started)
	if note == "" {
		<-ctx.Done()
	}
	// Closing its stdin ends the child's flood; it prints its note.
	stdin.Close()
	done := make(chan error, 1)
	go func() {
		for l := range lines {
			if s, ok := strings.CutPrefix(l, "note\t"); ok {
				note += s
			}
		}
		done <- cmd.Wait()
	}()
	select {
	case err := <-done:
		if err != nil {
			note += fmt.Sprintf(" (attacker process: %v)", err)
		}
	case <-time.After(60 * time.Second):
		_ = cmd.Process.Kill()
		<-done
		note += " (attacker process killed: it did not stop within 60 s)"
	}
	return note
}

// childMain runs -child-attack until its stdin closes (or SIGTERM), then
// writes its note: the other end of runAttack.
func childMain() error {
	var sp spec
	if err := json.Unmarshal([]byte(*childSpec), &sp); err != nil {
		return fmt.Errorf("-child-spec: %w", err)
	}
	all := attacks()
	i := slices.IndexFunc(all, func(a attack) bool { return a.name == *childAttack })
	if i < 0 {
		return fmt.Errorf("unknown attack %q", *childAttack)
	}
	n := &node{name: sp.Name, rpc: sp.RPC, p2p: sp.P2P, zmq: sp.ZMQ}
	f := &facts{height: sp.Height, genesis: sp.Genesis, top: sp.Top, cumDiff: sp.CumDiff, outputs: sp.Outputs, txs: sp.Txs}
	// As the parent does before any flood (run).
	if err := prepare(n, f); err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx, cancel := context.WithCancel(withNet(ctx, sp.Net))
	go func() {
		_, _ = io.Copy(io.Discard, os.Stdin)
		cancel()
	}()
	fmt.Println("ready")
	note := all[i].run(ctx, n, f)
	fmt.Println("note\t" + strings.ReplaceAll(note, "\n", " "))
	if errors.Is(ctx.Err(), context.Canceled) {
		return nil
	}
	return ctx.Err()
}
