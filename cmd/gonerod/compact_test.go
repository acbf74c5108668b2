package main

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/gonero/gonero/chaindb"
	"github.com/gonero/gonero/internal/testutil"
	"github.com/gonero/gonero/node"
	"github.com/gonero/gonero/params"
)

// chainAnswers opens the store as the node does and reads through the
// chain manager what the RPC serves from it: the top, and for every block
// its meta, blob, transaction hashes and blobs, output indexes and spent key
// images, hashed.
func chainAnswers(t *testing.T, data string) (string, uint64) {
	t.Helper()
	cfg := node.DefaultConfig()
	cfg.DataDir, cfg.Network, cfg.FixedDifficulty = data, params.Regtest, 1
	s, err := node.OpenStore(&cfg, slog.New(slog.NewTextHandler(io.Discard, nil)), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	c := s.Chain()
	h := sha256.New()
	fmt.Fprintf(h, "top %d %s\n", c.Height(), c.Top().Hash)
	err = c.Store().View(func(r *chaindb.Reader) error {
		height, err := r.Height()
		if err != nil {
			return err
		}
		for i := range height {
			m, err := r.MetaByHeight(i)
			if err != nil {
				return err
			}
			blob, err := r.BlockBlob(i)
			if err != nil {
				return err
			}
			fmt.Fprintf(h, "%+v %x\n", m, blob)
			ids, err := r.TxHashes(i)
			if err != nil {
				return err
			}
			for _, id := range append(ids, m.MinerTxHash) {
				idx, err := r.TxOutputIndexes(id)
				if err != nil {
					return err
				}
				fmt.Fprintf(h, "%s %v\n", id, idx)
				if id == m.MinerTxHash {
					continue
				}
				b, err := r.TxBlob(id)
				if err != nil {
					return err
				}
				fmt.Fprintf(h, "%x\n", b)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(h.Sum(nil)), c.Height()
}

// freeBytes is the bytes of the store's free pages.
func freeBytes(t *testing.T, path string) int64 {
	t.Helper()
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	s := db.Stats()
	return int64(s.FreePageN+s.PendingPageN) * int64(db.Info().PageSize)
}

// `gonerod compact` on an imported store with popped blocks: the chain gives
// the same answers, the file shrinks and its free pages are gone; it is
// refused, with a clear message, while the store is open elsewhere.
func TestCompactCommand(t *testing.T) {
	bin := buildGonerod(t)
	data := t.TempDir()
	importInto(t, bin, data, testutil.Path(t, "testdata", "regtest", "blockchain.raw"))
	cfg := node.DefaultConfig()
	cfg.DataDir, cfg.Network = data, params.Regtest
	path := cfg.StorePath()

	// Popped blocks leave free pages.
	s, err := node.OpenStore(&cfg, slog.New(slog.NewTextHandler(io.Discard, nil)), nil)
	if err != nil {
		t.Fatal(err)
	}
	if n, err := s.Chain().PopBlocks(150); err != nil || n != 150 {
		t.Fatalf("pop: %d, %v", n, err)
	}
	s.Close()
	want, height := chainAnswers(t, data)
	freeBefore := freeBytes(t, path)
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}

	held, err := chaindb.Open(path, chaindb.Options{Network: params.Regtest.String()})
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(bin, "compact", "--regtest", "--data-dir", data).CombinedOutput()
	held.Close()
	if err == nil || !strings.Contains(string(out), "is in use: stop the gonerod that has it open") {
		t.Fatalf("compact of a store in use: %v\n%s", err, out)
	}

	out, err = exec.Command(bin, "compact", "--regtest", "--data-dir", data).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "compaction finished") {
		t.Fatalf("compact: %v\n%s", err, out)
	}
	t.Logf("%s", out)
	got, gotHeight := chainAnswers(t, data)
	if got != want || gotHeight != height {
		t.Fatalf("the chain answers differently after compaction (height %d, was %d)", gotHeight, height)
	}
	fa, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	freeAfter := freeBytes(t, path)
	t.Logf("store %d -> %d bytes, free pages %d -> %d bytes", fi.Size(), fa.Size(), freeBefore, freeAfter)
	if freeBefore < 100<<10 || freeAfter > 64<<10 || fa.Size() >= fi.Size() {
		t.Fatalf("store %d -> %d bytes, free pages %d -> %d bytes", fi.Size(), fa.Size(), freeBefore, freeAfter)
	}

	// The chain goes on: the popped blocks import again.
	out, err = exec.Command(bin, "import", "--regtest", "--fixed-difficulty", "1", "--data-dir", data,
		"--input-file", testutil.Path(t, "testdata", "regtest", "blockchain.raw")).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "150 blocks added") {
		t.Fatalf("import after compaction: %v\n%s", err, out)
	}

	out, err = exec.Command(bin, "compact", "--regtest", "--data-dir", t.TempDir()).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "no chain store at") {
		t.Fatalf("compact without a store: %v\n%s", err, out)
	}
}

// kill -9 of `gonerod compact` during its copy: the store still gives the
// same answers, and running the command again resumes the copy and ends
// with the compacted store.
func TestCompactCommandKilled(t *testing.T) {
	bin := buildGonerod(t)
	data := t.TempDir()
	importInto(t, bin, data, testutil.Path(t, "testdata", "regtest", "blockchain.raw"))
	cfg := node.DefaultConfig()
	cfg.DataDir, cfg.Network = data, params.Regtest
	path := cfg.StorePath()
	s, err := node.OpenStore(&cfg, slog.New(slog.NewTextHandler(io.Discard, nil)), nil)
	if err != nil {
		t.Fatal(err)
	}
	if n, err := s.Chain().PopBlocks(100); err != nil || n != 100 {
		t.Fatalf("pop: %d, %v", n, err)
	}
	s.Close()
	want, _ := chainAnswers(t, data)

	cmd := exec.Command(bin, "compact", "--regtest", "--data-dir", data, "--tx-bytes", "2048")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// The first progress line comes after the copy's first commit.
	lines := bufio.NewScanner(stderr)
	for lines.Scan() && !strings.Contains(lines.Text(), "msg=compacting") {
	}
	if err := cmd.Process.Kill(); err != nil { // SIGKILL
		t.Fatal(err)
	}
	for lines.Scan() {
	}
	finished := cmd.Wait() == nil
	_, copyLeft := os.Stat(path + ".compact")
	t.Logf("killed: finished %v, copy left %v", finished, copyLeft == nil)
	if got, _ := chainAnswers(t, data); got != want {
		t.Fatal("the killed compaction changed the chain's answers")
	}
	// chainAnswers opened the store as a node does, which drops the copy:
	// kill again, then resume without opening in between.
	cmd = exec.Command(bin, "compact", "--regtest", "--data-dir", data, "--tx-bytes", "2048")
	stderr, _ = cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines = bufio.NewScanner(stderr)
	for lines.Scan() && !strings.Contains(lines.Text(), "msg=compacting") {
	}
	_ = cmd.Process.Kill()
	for lines.Scan() {
	}
	finished = cmd.Wait() == nil
	_, err = os.Stat(path + ".compact")
	copyLeft = err
	out, err := exec.Command(bin, "compact", "--regtest", "--data-dir", data).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "compaction finished") {
		t.Fatalf("compact after the kill: %v\n%s", err, out)
	}
	if copyLeft == nil && !strings.Contains(string(out), "resumed=true") {
		t.Fatalf("a copy was left, but the next run did not resume it:\n%s", out)
	}
	t.Logf("killed: finished %v, copy left %v; then:\n%s", finished, copyLeft == nil, out)
	if got, _ := chainAnswers(t, data); got != want {
		t.Fatal("the chain answers differently after the resumed compaction")
	}
	if free := freeBytes(t, path); free > 64<<10 {
		t.Fatalf("%d bytes of free pages after the resumed compaction", free)
	}
}
