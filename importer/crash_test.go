package importer

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/gonero/gonero/chaindb"
	"github.com/gonero/gonero/internal/testutil"
)

// TestImportChild is not a test on its own: the crash test re-executes the
// test binary with GONERO_IMPORT_CHILD=dir to run an import it then kills.
func TestImportChild(t *testing.T) {
	dir := os.Getenv("GONERO_IMPORT_CHILD")
	if dir == "" {
		t.Skip("helper process for TestKillDuringImportThenResume")
	}
	batch, err := strconv.Atoi(os.Getenv("GONERO_IMPORT_BATCH"))
	if err != nil {
		t.Fatal(err)
	}
	c, db := openChain(t, dir, 1)
	defer db.Close()
	if _, err := ImportBatched(context.Background(), c, os.Getenv("GONERO_IMPORT_FILE"), 0, announceProgress{}, Batch{Blocks: batch}); err != nil {
		t.Fatal(err)
	}
}

// announceProgress tells the parent (on stdout) when the import starts and
// each height it adds, so the parent kills it at a chosen point of the
// import rather than after a guessed time (a guess missed the import on a
// machine faster or slower than when it was measured).
type announceProgress struct{}

func (announceProgress) Begin(from, total uint64) { fmt.Println("begin") }
func (announceProgress) Added(h uint64)           { fmt.Printf("added %d\n", h) }
func (announceProgress) End()                     {}

// storeDigest hashes everything a store answers: every block's metadata,
// blob, tx hashes and tx blobs and locations, and the counters.
func storeDigest(t *testing.T, db *chaindb.DB) (uint64, [32]byte) {
	t.Helper()
	h := sha256.New()
	var height uint64
	err := db.View(func(r *chaindb.Reader) error {
		var err error
		if height, err = r.Height(); err != nil {
			return err
		}
		for i := uint64(0); i < height; i++ {
			m, err := r.MetaByHeight(i)
			if err != nil {
				return err
			}
			fmt.Fprintf(h, "%+v", m)
			blob, err := r.BlockBlob(i)
			if err != nil {
				return err
			}
			h.Write(blob)
			hashes, err := r.TxHashes(i)
			if err != nil {
				return err
			}
			for _, th := range hashes {
				tb, err := r.TxBlob(th)
				if err != nil {
					return err
				}
				loc, err := r.TxLocation(th)
				if err != nil {
					return err
				}
				h.Write(th[:])
				h.Write(tb)
				fmt.Fprintf(h, "%+v", loc)
			}
		}
		n, err := r.TxCount()
		if err != nil {
			return err
		}
		alt, err := r.AltBlockCount()
		if err != nil {
			return err
		}
		h.Write(binary.LittleEndian.AppendUint64(nil, n))
		h.Write(binary.LittleEndian.AppendUint64(nil, alt))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var sum [32]byte
	copy(sum[:], h.Sum(nil))
	return height, sum
}

// An import killed with SIGKILL at random moments, then resumed, ends with a
// store identical to an uninterrupted import. Each run commits batches of a
// random size (1 is a commit per block): the store the kill leaves ends at
// a batch's end, never inside one.
func TestKillDuringImportThenResume(t *testing.T) {
	file := testutil.Path(t, "testdata", "regtest", "blockchain.raw")
	refDir := t.TempDir()
	ref, refDB := openChain(t, refDir, 1)
	_, err := Import(context.Background(), ref, file, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	refHeight, refSum := storeDigest(t, refDB)
	refDB.Close()

	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	seed := uint64(time.Now().UnixNano())
	t.Logf("kill times from seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 7))
	const runs = 8
	midImport := 0
	for run := 0; run < runs; run++ {
		dir := t.TempDir()
		cmd := exec.Command(exe, "-test.run", "^TestImportChild$")
		batch := 1 + rng.IntN(40)
		cmd.Env = append(os.Environ(), "GONERO_IMPORT_CHILD="+dir, "GONERO_IMPORT_FILE="+file,
			"GONERO_IMPORT_BATCH="+strconv.Itoa(batch))
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Wait for the import to reach a random height in its first three
		// quarters, then kill it up to a millisecond later, so kills land
		// at any point of a block's commit.
		target := 2 + rng.Uint64N(refHeight*3/4)
		r := bufio.NewReader(stdout)
		line, _ := r.ReadString('\n')
		if line != "begin\n" {
			t.Fatalf("run %d: child said %q", run, line)
		}
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				break // the child ended before the target: the digest check below still holds
			}
			var h uint64
			if _, err := fmt.Sscanf(line, "added %d", &h); err == nil && h >= target {
				break
			}
		}
		time.Sleep(time.Duration(rng.Int64N(int64(time.Millisecond))))
		_ = cmd.Process.Signal(syscall.SIGKILL)
		_, _ = cmd.Process.Wait()
		db, err := chaindb.Open(filepath.Join(dir, "chain.db"), chaindb.Options{Network: "fakechain"})
		if err == nil {
			h, _ := storeDigest(t, db) // walks every index: fails on any inconsistency
			db.Close()
			if h > 1 && h < refHeight {
				midImport++
			}
			// chain.Open commits the genesis block alone; the batches follow it.
			if h > 1 && h < refHeight && (h-1)%uint64(batch) != 0 {
				t.Fatalf("run %d: killed with %d blocks stored, inside a batch of %d (batches end at 1 + k×%d)", run, h, batch, batch)
			}
			t.Logf("run %d: batches of %d, killed with %d blocks stored", run, batch, h)
		} else {
			t.Logf("run %d: killed before the store was created (%v)", run, err)
		}
		c, db := openChain(t, dir, 1)
		if _, err := Import(context.Background(), c, file, 0, nil); err != nil {
			t.Fatalf("run %d: resume: %v", run, err)
		}
		h, sum := storeDigest(t, db)
		db.Close()
		if h != refHeight || sum != refSum {
			t.Fatalf("run %d: after kill and resume %d blocks, digest %x; uninterrupted %d blocks, %x", run, h, sum, refHeight, refSum)
		}
	}
	if midImport < 3 {
		t.Fatalf("only %d of %d kills landed in the middle of the import: the test did not exercise crashes", midImport, runs)
	}
}
