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
	"github.com/gonero/gonero/params"
)

// reorgChildEnv, when set to a store path, makes the test binary the victim
// of TestKillDuringChainReorgs.
const reorgChildEnv = "GONERO_CHAIN_REORG_CHILD"

func TestMain(m *testing.M) {
	if path := os.Getenv(reorgChildEnv); path != "" {
		runReorgChild(path)
		return
	}
	os.Exit(m.Run())
}

// The two branches fork above block crashFork; their blocks carry nonce 1
// (X) or 2 (Y).
const crashFork = 10

var crashCfg = Config{Network: params.Regtest, FixedDifficulty: 1, Now: func() time.Time { return time.Unix(1<<40, 0) }}

// branchTips reads which branch is main (by the nonce of its first block),
// and the other branch's tip among the alternative blocks.
func branchTips(c *Chain) (mainNonce uint32, other chaindb.BlockMeta, err error) {
	err = c.Store().View(func(r *chaindb.Reader) error {
		m, err := r.MetaByHeight(crashFork + 1)
		if err != nil {
			return err
		}
		mainNonce = m.Nonce
		alts, err := r.AltBlockMetas()
		if err != nil {
			return err
		}
		for _, a := range alts {
			if a.Height > other.Height {
				other = a
			}
		}
		return nil
	})
	return
}

// runReorgChild makes the branches overtake each other forever, one block at
// a time: each block of the shorter branch is stored as an alternative until
// the one that gives it more work switches the chain.
func runReorgChild(path string) {
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
	fmt.Println("open")
	for c.Height() <= crashFork+1 { // the base and X's first block
		top := c.Top()
		if _, _, err := addOn(c, top.Hash, top.Height+1, top.Timestamp+120, 1); err != nil {
			fail(err)
		}
	}
	for {
		mainNonce, other, err := branchTips(c)
		if err != nil {
			fail(err)
		}
		parent, nonce := other, 3-mainNonce
		if other.Height == 0 { // Y has no block yet: it starts at the fork
			if err := c.Store().View(func(r *chaindb.Reader) error {
				parent, err = r.MetaByHeight(crashFork)
				return err
			}); err != nil {
				fail(err)
			}
		}
		if _, _, err := addOn(c, parent.Hash, parent.Height+1, parent.Timestamp+121, nonce); err != nil {
			fail(err)
		}
	}
}

// kill -9 while the chain manager stores alternative blocks and switches
// between two branches: after every kill the reopened chain agrees with its
// store (height, top, alt_blocks_count), the main chain links with the
// cumulative difficulty of fixed difficulty 1, every alternative block
// hangs off a known parent at the next height, the branches are whole, and
// the next run carries on switching.
func TestKillDuringChainReorgs(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns and kills subprocesses")
	}
	path := filepath.Join(t.TempDir(), "chain.db")
	rng := rand.New(rand.NewPCG(3, 3))
	const rounds = 6
	seen := map[uint32]bool{}
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
			t.Fatalf("round %d: child did not open the chain: %q, %v", round, line, err)
		}
		time.Sleep(time.Duration(200+rng.IntN(400)) * time.Millisecond)
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
		alts := altMetas(t, c)
		facts := c.NextBlockFacts()
		if facts.Height != uint64(len(metas)) || facts.Top != metas[len(metas)-1] || facts.AltBlockCount != uint64(len(alts)) {
			t.Fatalf("round %d: chain says height %d, %d alternatives; store %d, %d", round, facts.Height, facts.AltBlockCount, len(metas), len(alts))
		}
		for h, m := range metas {
			if h > 0 && (m.PrevHash != metas[h-1].Hash || m.CumulativeDifficulty.Lo != uint64(h)+1) {
				t.Fatalf("round %d: main block %d does not link (cumulative %v)", round, h, m.CumulativeDifficulty)
			}
		}
		onMain := map[cryptonote.Hash]uint64{}
		for _, m := range metas {
			onMain[m.Hash] = m.Height
		}
		var otherNonce uint32
		for _, a := range alts {
			ph, ok := onMain[a.PrevHash]
			if p, alt := alts[a.PrevHash]; alt {
				ph, ok = p.Height, true
			}
			if !ok || a.Height != ph+1 || a.Height <= crashFork {
				t.Fatalf("round %d: alternative block %s at %d hangs off nothing known", round, a.Hash, a.Height)
			}
			if otherNonce != 0 && a.Nonce != otherNonce {
				t.Fatalf("round %d: alternative blocks of both branches", round)
			}
			otherNonce = a.Nonce
		}
		nMain := uint64(len(metas)) - crashFork - 1
		if uint64(len(alts)) > nMain {
			t.Fatalf("round %d: the alternative branch (%d) is longer than the main one (%d)", round, len(alts), nMain)
		}
		if len(metas) > crashFork+1 {
			seen[metas[crashFork+1].Nonce] = true
		}
		t.Logf("round %d: main branch %d with %d blocks, %d alternative blocks", round, metas[len(metas)-1].Nonce, nMain, len(alts))
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if !seen[1] || !seen[2] {
		t.Fatal("a kill never found the second branch on the main chain: the child hardly switched")
	}
}
