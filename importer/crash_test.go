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
	c, db := openChain(t, dir, 1)
	defer db.Close()
	if _, err := Import(context.Background(), c, os.Getenv("GONERO_IMPORT_FILE"), 0, announceBegin{}); err != nil {
		t.Fatal(err)
	}
}

// announceBegin tells the parent (on stdout) the moment the import starts.
type announceBegin struct{}

func (announceBegin) Begin(from, total uint64) { fmt.Println("begin") }
func (announceBegin) Added(uint64)             {}
func (announceBegin) End()                     {}

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
// store identical to an uninterrupted import.
func TestKillDuringImportThenResume(t *testing.T) {
	file := testutil.Path(t, "testdata", "regtest", "blockchain.raw")
	refDir := t.TempDir()
	ref, refDB := openChain(t, refDir, 1)
	refRes, err := Import(context.Background(), ref, file, 0, nil)
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
		cmd.Env = append(os.Environ(), "GONERO_IMPORT_CHILD="+dir, "GONERO_IMPORT_FILE="+file)
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Wait for the import to begin, then kill it at a random moment
		// within four fifths of the time a whole import took (a child may
		// run a little faster than the reference did).
		line, _ := bufio.NewReader(stdout).ReadString('\n')
		if line != "begin\n" {
			t.Fatalf("run %d: child said %q", run, line)
		}
		time.Sleep(time.Duration(rng.Int64N(int64(refRes.Elapsed) * 4 / 5)))
		_ = cmd.Process.Signal(syscall.SIGKILL)
		_, _ = cmd.Process.Wait()
		db, err := chaindb.Open(filepath.Join(dir, "chain.db"), chaindb.Options{Network: "fakechain"})
		if err == nil {
			h, _ := storeDigest(t, db) // walks every index: fails on any inconsistency
			db.Close()
			if h > 1 && h < refHeight {
				midImport++
			}
			t.Logf("run %d: killed with %d blocks stored", run, h)
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
