package importer

import (
	"bufio"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gonero/gonero/chain"
	"github.com/gonero/gonero/chaindb"
	"github.com/gonero/gonero/internal/testutil"
	"github.com/gonero/gonero/params"
)

// openChain opens (or creates) a regtest chain store in dir.
func openChain(t testing.TB, dir string, fixed uint64) (*chain.Chain, *chaindb.DB) {
	t.Helper()
	db, err := chaindb.Open(filepath.Join(dir, "chain.db"), chaindb.Options{Network: params.Regtest.String()})
	if err != nil {
		t.Fatal(err)
	}
	c, err := chain.Open(db, chain.Config{Network: params.Regtest, FixedDifficulty: fixed})
	if err != nil {
		db.Close()
		t.Fatal(err)
	}
	return c, db
}

// header is the part of monerod's block_header that the store determines.
type header struct {
	BlockSize                uint64 `json:"block_size"`
	BlockWeight              uint64 `json:"block_weight"`
	CumulativeDifficulty     uint64 `json:"cumulative_difficulty"`
	CumulativeDifficultyTop  uint64 `json:"cumulative_difficulty_top64"`
	Difficulty               uint64 `json:"difficulty"`
	DifficultyTop64          uint64 `json:"difficulty_top64"`
	Hash                     string `json:"hash"`
	Height                   uint64 `json:"height"`
	LongTermWeight           uint64 `json:"long_term_weight"`
	MajorVersion             uint8  `json:"major_version"`
	MinerTxHash              string `json:"miner_tx_hash"`
	MinorVersion             uint8  `json:"minor_version"`
	Nonce                    uint32 `json:"nonce"`
	NumTxes                  uint64 `json:"num_txes"`
	PrevHash                 string `json:"prev_hash"`
	Reward                   uint64 `json:"reward"`
	Timestamp                uint64 `json:"timestamp"`
	WideCumulativeDifficulty string `json:"wide_cumulative_difficulty"`
	WideDifficulty           string `json:"wide_difficulty"`
}

// headerOf renders stored metadata the way monerod's block_header reports it.
func headerOf(m chaindb.BlockMeta) header {
	return header{
		BlockSize: m.Weight, BlockWeight: m.Weight,
		CumulativeDifficulty: m.CumulativeDifficulty.Lo, CumulativeDifficultyTop: m.CumulativeDifficulty.Hi,
		Difficulty: m.Difficulty.Lo, DifficultyTop64: m.Difficulty.Hi,
		Hash: m.Hash.String(), Height: m.Height, LongTermWeight: m.LongTermWeight,
		MajorVersion: m.MajorVersion, MinorVersion: m.MinorVersion, MinerTxHash: m.MinerTxHash.String(),
		Nonce: m.Nonce, NumTxes: m.NumTxes, PrevHash: m.PrevHash.String(), Reward: m.Reward,
		Timestamp: m.Timestamp, WideCumulativeDifficulty: m.CumulativeDifficulty.Hex(), WideDifficulty: m.Difficulty.Hex(),
	}
}

// CompareHeaders checks every stored block against monerod's headers.
func CompareHeaders(t *testing.T, db *chaindb.DB, want map[uint64]header) {
	t.Helper()
	err := db.View(func(r *chaindb.Reader) error {
		n, err := r.Height()
		if err != nil {
			return err
		}
		if n != uint64(len(want)) {
			t.Fatalf("store holds %d blocks, monerod %d", n, len(want))
		}
		for h := uint64(0); h < n; h++ {
			m, err := r.MetaByHeight(h)
			if err != nil {
				return err
			}
			if got := headerOf(m); got != want[h] {
				t.Fatalf("height %d:\n got %+v\nwant %+v", h, got, want[h])
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func goldenHeaders(t *testing.T) map[uint64]header {
	f, err := os.Open(testutil.Path(t, "testdata", "regtest", "golden", "getblockheaderbyheight.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[uint64]header{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<22)
	for sc.Scan() {
		var line struct {
			Height uint64 `json:"height"`
			Body   string `json:"body"`
		}
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Fatal(err)
		}
		var body struct {
			Result struct {
				BlockHeader header `json:"block_header"`
			} `json:"result"`
		}
		if err := json.Unmarshal([]byte(line.Body), &body); err != nil {
			t.Fatal(err)
		}
		out[line.Height] = body.Result.BlockHeader
	}
	return out
}

func TestImportRegtestMatchesMonerod(t *testing.T) {
	dir := t.TempDir()
	c, db := openChain(t, dir, 1)
	defer db.Close()
	res, err := Import(context.Background(), c, testutil.Path(t, "testdata", "regtest", "blockchain.raw"), 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.From != 1 || res.To != 300 {
		t.Fatalf("imported %d..%d", res.From, res.To)
	}
	CompareHeaders(t, db, goldenHeaders(t))
	var txCount uint64
	db.View(func(r *chaindb.Reader) error { txCount, _ = r.TxCount(); return nil })
	if txCount != 10 {
		t.Fatalf("tx count %d, want 10", txCount)
	}
}

// A file cut exactly between two records is refused as truncated, after the
// blocks it does hold are added.
func TestFileCutAtARecordBoundary(t *testing.T) {
	orig, err := os.ReadFile(testutil.Path(t, "testdata", "regtest", "blockchain.raw"))
	if err != nil {
		t.Fatal(err)
	}
	// Walk the chunk lengths to the end of record 150.
	off := 1028
	for i := 0; i <= 150; i++ {
		off += 4 + int(binary.LittleEndian.Uint32(orig[off:]))
	}
	dir := t.TempDir()
	cut := filepath.Join(dir, "cut.raw")
	if err := os.WriteFile(cut, orig[:off], 0o644); err != nil {
		t.Fatal(err)
	}
	c, db := openChain(t, dir, 1)
	defer db.Close()
	res, err := Import(context.Background(), c, cut, 0, nil)
	if err == nil || !strings.Contains(err.Error(), "truncated") {
		t.Fatalf("import of a cut file: %v", err)
	}
	if res.To != 151 || c.Height() != 151 {
		t.Fatalf("added up to %d, chain height %d; want the 151 blocks the file holds", res.To, c.Height())
	}
}

// cancelAt cancels the import's context once the block at height at is
// committed.
type cancelAt struct {
	at     uint64
	cancel context.CancelFunc
}

func (p cancelAt) Begin(from, total uint64) {}
func (p cancelAt) Added(h uint64) {
	if h >= p.at {
		p.cancel()
	}
}
func (p cancelAt) End() {}

// A batched import stops after a count that is no multiple of the batch at
// exactly that count, and one interrupted (ctx cancelled) stops at the end of
// a committed batch; resuming both ends with the store an uninterrupted
// import makes.
func TestBatchedImportStopsAndResumes(t *testing.T) {
	file := testutil.Path(t, "testdata", "regtest", "blockchain.raw")
	ref, refDB := openChain(t, t.TempDir(), 1)
	if _, err := Import(context.Background(), ref, file, 0, nil); err != nil {
		t.Fatal(err)
	}
	refHeight, refSum := storeDigest(t, refDB)
	refDB.Close()

	const batch = 16
	c, db := openChain(t, t.TempDir(), 1)
	defer db.Close()
	res, err := ImportBatched(context.Background(), c, file, 45, nil, Batch{Blocks: batch})
	if err != nil || res.Added() != 45 || c.Height() != 46 {
		t.Fatalf("count 45: added %d, height %d, %v", res.Added(), c.Height(), err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	res, err = ImportBatched(ctx, c, file, 0, cancelAt{at: 100, cancel: cancel}, Batch{Blocks: batch})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled import: %v", err)
	}
	// Batches start at height 46; the one holding height 100 ends at 46+4×16-1.
	if res.To != 46+4*batch || c.Height() != res.To {
		t.Fatalf("cancelled import stopped at %d (chain height %d), want %d", res.To, c.Height(), 46+4*batch)
	}
	if _, err := ImportBatched(context.Background(), c, file, 0, nil, Batch{Blocks: batch}); err != nil {
		t.Fatal(err)
	}
	if h, sum := storeDigest(t, db); h != refHeight || sum != refSum {
		t.Fatalf("after count, cancel and resume: %d blocks, digest %x; uninterrupted %d, %x", h, sum, refHeight, refSum)
	}
}
