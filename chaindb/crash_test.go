package chaindb

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// crashChildEnv, when set to a path, turns the test binary into the victim of
// TestKillDuringWrites: it appends and pops on that store until killed.
const crashChildEnv = "CHAINDB_CRASH_CHILD_PATH"

const seedCrash = 42

func TestMain(m *testing.M) {
	if path := os.Getenv(crashChildEnv); path != "" {
		runCrashChild(path)
		return
	}
	os.Exit(m.Run())
}

// runCrashChild writes forever: mostly appends of the synthetic chain, now
// and then a pop, so that a kill can land inside either kind of transaction.
func runCrashChild(path string) {
	db, err := Open(path, Options{Network: testNetwork, LockTimeout: 10 * time.Second})
	if err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		os.Exit(2)
	}
	fmt.Println("open")
	rng := rand.New(rand.NewPCG(uint64(os.Getpid()), 0))
	for {
		var height uint64
		if err := db.View(func(r *Reader) error { height, err = r.Height(); return err }); err != nil {
			fmt.Fprintln(os.Stderr, "child:", err)
			os.Exit(2)
		}
		if height > 0 && rng.IntN(5) == 0 {
			_, err = db.PopTop()
		} else {
			err = db.Append(synthBlock(seedCrash, height))
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "child:", err)
			os.Exit(2)
		}
	}
}

func TestKillDuringWrites(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns and kills subprocesses")
	}
	path := filepath.Join(t.TempDir(), "chain.db")
	rng := rand.New(rand.NewPCG(7, 7))
	const rounds = 10
	var grew int
	var last uint64
	for round := range rounds {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), crashChildEnv+"="+path)
		cmd.Stderr = os.Stderr
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		line, err := bufio.NewReader(out).ReadString('\n')
		if err != nil || line != "open\n" {
			_ = cmd.Process.Kill()
			t.Fatalf("round %d: child did not open the store: %q, %v", round, line, err)
		}
		time.Sleep(time.Duration(100+rng.IntN(400)) * time.Millisecond)
		if err := cmd.Process.Kill(); err != nil { // SIGKILL
			t.Fatal(err)
		}
		if err := cmd.Wait(); err == nil {
			t.Fatalf("round %d: child exited cleanly before the kill", round)
		}

		db, err := Open(path, Options{Network: testNetwork})
		if err != nil {
			t.Fatalf("round %d: open after kill: %v", round, err)
		}
		n := checkConsistent(t, db)
		checkSynthContent(t, db, seedCrash, n)
		t.Logf("round %d: killed at height %d", round, n)
		if n > last {
			grew++
		}
		// Appending continues where the killed writer stopped.
		appendSynth(t, db, seedCrash, n, n+2)
		last = checkConsistent(t, db)
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if grew == 0 {
		t.Fatal("the child never got a block in before being killed; the test proved nothing")
	}
}
