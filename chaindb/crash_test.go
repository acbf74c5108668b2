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

	bolt "go.etcd.io/bbolt"
)

// crashChildEnv, when set to a path, turns the test binary into the victim of
// TestKillDuringWrites: it appends and pops on that store until killed.
const crashChildEnv = "CHAINDB_CRASH_CHILD_PATH"

// reorgChildEnv, when set to a path, makes the test binary the victim of
// TestKillDuringReorganizations.
const reorgChildEnv = "CHAINDB_REORG_CHILD_PATH"

// upgradeChildEnv, when set to a path, makes the test binary the victim
// of TestKillDuringUpgrade: it opens (and so upgrades) that store.
const upgradeChildEnv = "CHAINDB_UPGRADE_CHILD_PATH"

const seedCrash = 42

func TestMain(m *testing.M) {
	if path := os.Getenv(crashChildEnv); path != "" {
		runCrashChild(path)
		return
	}
	if path := os.Getenv(reorgChildEnv); path != "" {
		runReorgChild(path)
		return
	}
	if path := os.Getenv(upgradeChildEnv); path != "" {
		runUpgradeChild(path)
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
	seed := uint64(os.Getpid())
	fmt.Fprintln(os.Stderr, "child: write sizes from seed", seed)
	rng := rand.New(rand.NewPCG(seed, 0))
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

// Branch seeds of the reorganisation victim.
const reorgX, reorgY = 1001, 2002

// branchState reads which branch is the main chain and how many blocks each
// branch has: the main one above the fork, the other as alternative blocks.
func branchState(db *DB) (main, alt, nMain, nAlt uint64, err error) {
	err = db.View(func(r *Reader) error {
		h, err := r.Height()
		if err != nil {
			return err
		}
		if nAlt, err = r.AltBlockCount(); err != nil {
			return err
		}
		main, alt = reorgX, reorgY
		if h <= forkAt {
			return nil
		}
		m, err := r.MetaByHeight(forkAt)
		if err != nil {
			return err
		}
		if m.Hash == synthHash(reorgY, forkAt) {
			main, alt = reorgY, reorgX
		}
		nMain = h - forkAt
		return nil
	})
	return
}

// runReorgChild switches between two branches forever, each switch one
// Reorganize that pops the main branch into the alternative blocks and
// appends the other branch one block longer than before.
func runReorgChild(path string) {
	fail := func(err error) {
		fmt.Fprintln(os.Stderr, "child:", err)
		os.Exit(2)
	}
	db, err := Open(path, Options{Network: testNetwork, LockTimeout: 10 * time.Second})
	if err != nil {
		fail(err)
	}
	fmt.Println("open")
	for {
		_, alt, nMain, nAlt, err := branchState(db)
		if err != nil {
			fail(err)
		}
		if nMain == 0 { // a fresh store: the base and the first block of X
			height := uint64(0)
			if err := db.View(func(r *Reader) error { height, err = r.Height(); return err }); err != nil {
				fail(err)
			}
			if err := db.Append(branchBlock(reorgX, height)); err != nil {
				fail(err)
			}
			continue
		}
		_, err = db.Reorganize(Reorg{Pop: nMain, KeepPopped: true,
			DeleteAlts: hashesOf(branchRange(alt, forkAt, forkAt+nAlt)),
			Append:     branchRange(alt, forkAt, forkAt+max(nAlt, nMain)+1)})
		if err != nil {
			fail(err)
		}
	}
}

// kill -9 during repeated reorganisations: after every kill the store holds
// one whole branch as the main chain and the other whole as alternative
// blocks (the state before or after the interrupted switch), with every
// index and counter agreeing, and the next switch carries on from there.
func TestKillDuringReorganizations(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns and kills subprocesses")
	}
	path := filepath.Join(t.TempDir(), "chain.db")
	rng := rand.New(rand.NewPCG(9, 9))
	const rounds = 8
	switches := 0
	var lastMain uint64
	for round := range rounds {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), reorgChildEnv+"="+path)
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
		main, alt, nMain, nAlt, err := branchState(db)
		if err != nil {
			t.Fatal(err)
		}
		// The switches alternate and grow by one: the branch lengths say
		// how many there have been, and they can only differ by one.
		if nAlt != 0 && nMain != nAlt+1 {
			t.Fatalf("round %d: main branch %d blocks, alternative %d", round, nMain, nAlt)
		}
		checkBranches(t, db, main, alt, nMain, nAlt)
		t.Logf("round %d: killed with branch %d main (%d blocks), %d alternative blocks", round, main, nMain, nAlt)
		if nMain > lastMain {
			switches++
		}
		lastMain = nMain
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if switches < 2 {
		t.Fatal("the child hardly switched before being killed; the test proved little")
	}
}

// runUpgradeChild opens a store of an older schema, upgrading it in small
// batches and saying so after each, then says "done".
func runUpgradeChild(path string) {
	db, err := Open(path, Options{Network: testNetwork, LockTimeout: 10 * time.Second, MigrationBatch: 1,
		MigrationProgress: func(done, total uint64) { fmt.Printf("progress %d %d\n", done, total) }})
	if err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		os.Exit(2)
	}
	_ = db.Close()
	fmt.Println("done")
}

// kill -9 during the upgrade of a schema-8 store (tx_index keyed by whole
// hashes, output entries holding keys): every reopen finds either the old
// store, which the next Open upgrades again, or the finished one, and the
// store in the end equals the one this build writes, byte for byte.
func TestKillDuringUpgrade(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns and kills subprocesses")
	}
	db, path := openTemp(t)
	db.bolt.NoSync = true
	appendSynth(t, db, seedCrash, 0, 400)
	want := dump(t, db)
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	indexesToBolt(t, path)
	rawUpdate(t, path, func(tx *bolt.Tx) error {
		if err := wideIndexes(tx); err != nil {
			return err
		}
		return tx.Bucket(bucketInfo).Put(infoSchemaVersion, encodeU32(schemaVersionWideIndexes))
	})
	rng := rand.New(rand.NewPCG(11, 11))
	killed := 0
	for round := 0; round < 6; round++ {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), upgradeChildEnv+"="+path)
		cmd.Stderr = os.Stderr
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		line, err := bufio.NewReader(out).ReadString('\n')
		if err != nil {
			_ = cmd.Process.Kill()
			t.Fatalf("round %d: child said nothing: %v", round, err)
		}
		if line == "done\n" { // the upgrade was finished by an earlier round
			_ = cmd.Wait()
			break
		}
		time.Sleep(time.Duration(rng.IntN(150)) * time.Millisecond)
		if err := cmd.Process.Kill(); err != nil { // SIGKILL
			t.Fatal(err)
		}
		if err := cmd.Wait(); err == nil {
			t.Logf("round %d: the upgrade ended before the kill", round)
		} else {
			killed++
			t.Logf("round %d: killed after %q", round, line)
		}
		var version uint32
		bdb, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true})
		if err != nil {
			t.Fatalf("round %d: open after kill: %v", round, err)
		}
		err = bdb.View(func(tx *bolt.Tx) (err error) {
			version, err = decodeU32(tx.Bucket(bucketInfo).Get(infoSchemaVersion))
			return err
		})
		_ = bdb.Close()
		if err != nil || (version != schemaVersionWideIndexes && version != schemaVersion) {
			t.Fatalf("round %d: schema version %d, %v", round, version, err)
		}
	}
	if killed == 0 {
		t.Fatal("no upgrade was killed; the test proved nothing")
	}
	db, err := Open(path, Options{Network: testNetwork})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if d := diffDumps(dump(t, db), want); d != "" {
		t.Fatalf("the store upgraded across kills differs from one this build wrote:%s", d)
	}
	checkConsistent(t, db)
}
