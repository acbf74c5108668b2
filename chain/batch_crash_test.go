package chain

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/gonero/gonero/chaindb"
	"github.com/gonero/gonero/cryptonote"
)

// batchChildEnv, when set to a store path, makes the test binary the
// victim of TestKillDuringBatches.
const batchChildEnv = "GONERO_CHAIN_BATCH_CHILD"

// crashBatch is the number of blocks per AddBatch in the victim.
const crashBatch = 20

func init() {
	if path := os.Getenv(batchChildEnv); path != "" {
		runBatchChild(path)
		os.Exit(0)
	}
}

// runBatchChild adds batches of crashBatch blocks to the store forever. It
// makes each batch on a scratch chain first (to get the miner rewards
// right), replaying the store's blocks into it at the start.
func runBatchChild(path string) {
	fail := func(err error) {
		fmt.Fprintln(os.Stderr, "child:", err)
		os.Exit(2)
	}
	db, err := chaindb.Open(path, chaindb.Options{Network: crashCfg.Network.String(), LockTimeout: 10 * time.Second})
	if err != nil {
		fail(err)
	}
	c, err := Open(db, crashCfg)
	if err != nil {
		fail(err)
	}
	// The scratch store lives beside the victim's, in the parent test's
	// temporary directory: the child dies by kill -9, so it cannot clean up.
	dir, err := os.MkdirTemp(filepath.Dir(path), "batch-scratch-")
	if err != nil {
		fail(err)
	}
	sdb, err := chaindb.Open(filepath.Join(dir, "s.db"), chaindb.Options{Network: crashCfg.Network.String()})
	if err != nil {
		fail(err)
	}
	scratch, err := Open(sdb, crashCfg)
	if err != nil {
		fail(err)
	}
	for h := uint64(1); h < c.Height(); h++ {
		var blob []byte
		if err := c.Store().View(func(r *chaindb.Reader) (err error) { blob, err = r.BlockBlob(h); return }); err != nil {
			fail(err)
		}
		blk, err := cryptonote.ParseBlock(blob)
		if err != nil {
			fail(err)
		}
		if _, err := scratch.AddBlock(blk, blob, nil, nil); err != nil {
			fail(err)
		}
	}
	fmt.Println("open")
	for {
		batch := make([]BatchBlock, 0, crashBatch)
		for range crashBatch {
			top := scratch.Top()
			_, blk, err := addOn(scratch, top.Hash, top.Height+1, top.Timestamp+120, 1)
			if err != nil {
				fail(err)
			}
			batch = append(batch, BatchBlock{Block: blk, Blob: blk.Serialize()})
		}
		if n, err := c.AddBatch(batch); n != crashBatch || err != nil {
			fail(fmt.Errorf("batch: %d added, %v", n, err))
		}
	}
}

// kill -9 while the chain manager commits batches of blocks: after every
// kill the store holds whole batches only (its height is 1 + a multiple of
// the batch size), the chain links, and the next run carries on.
func TestKillDuringBatches(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns and kills subprocesses")
	}
	path := filepath.Join(t.TempDir(), "chain.db")
	rng := rand.New(rand.NewPCG(4, 4))
	var last uint64
	grew := 0
	for round := range 5 {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), batchChildEnv+"="+path)
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
			t.Fatalf("round %d: child did not open the chain: %q, %v", round, line, err)
		}
		time.Sleep(time.Duration(300+rng.IntN(500)) * time.Millisecond)
		if err := cmd.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		if err := cmd.Wait(); err == nil {
			t.Fatalf("round %d: child exited cleanly before the kill", round)
		}
		db, err := chaindb.Open(path, chaindb.Options{Network: crashCfg.Network.String()})
		if err != nil {
			t.Fatalf("round %d: open after kill: %v", round, err)
		}
		c, err := Open(db, crashCfg)
		if err != nil {
			t.Fatalf("round %d: chain open after kill: %v", round, err)
		}
		metas := mainMetas(t, c)
		if h := uint64(len(metas)); c.Height() != h || (h-1)%crashBatch != 0 {
			t.Fatalf("round %d: height %d (store %d): not whole batches of %d after genesis", round, c.Height(), h, crashBatch)
		}
		for h, m := range metas {
			if h > 0 && (m.PrevHash != metas[h-1].Hash || m.CumulativeDifficulty.Lo != uint64(h)+1) {
				t.Fatalf("round %d: block %d does not link", round, h)
			}
		}
		if c.Height() > last {
			grew++
		}
		last = c.Height()
		t.Logf("round %d: height %d", round, last)
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if grew < 3 {
		t.Fatalf("the chain grew in only %d of 5 rounds", grew)
	}
}
