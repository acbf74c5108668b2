package chainexport

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gonero/gonero/cryptonote"
	"github.com/gonero/gonero/internal/testutil"
)

// readAll returns every record of an export file.
func readAll(t testing.TB, path string) []*Record {
	t.Helper()
	rd, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	var recs []*Record
	for {
		rec, err := rd.Next()
		if err == io.EOF {
			return recs
		}
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, rec)
	}
}

// CheckRecords verifies what the codec derives from an exported chain: each
// block and transaction re-serializes to its exact bytes, the transactions'
// ids are the ones the block lists, and the block weight (sum of tx weights)
// equals the weight monerod stored. It returns the block ids by height.
func CheckRecords(t *testing.T, recs []*Record) []cryptonote.Hash {
	t.Helper()
	ids := make([]cryptonote.Hash, len(recs))
	for i, rec := range recs {
		blk := rec.Block
		if got := blk.Serialize(); string(got) != string(rec.BlockBlob) {
			t.Fatalf("height %d: block re-serialization differs", rec.Height)
		}
		id, err := blk.ID()
		if err != nil {
			t.Fatalf("height %d: %v", rec.Height, err)
		}
		ids[i] = id
		if i > 0 && blk.PrevID != ids[i-1] {
			t.Fatalf("height %d: prev_id %s is not the id of block %d (%s)", rec.Height, blk.PrevID, i-1, ids[i-1])
		}
		mb := blk.MinerTx.Serialize()
		weight := blk.MinerTx.Weight(len(mb))
		for j, tx := range rec.Txs {
			if got := tx.Serialize(); string(got) != string(rec.TxBlobs[j]) {
				t.Fatalf("height %d tx %d: re-serialization differs", rec.Height, j)
			}
			if got := tx.ID(); got != blk.TxHashes[j] {
				t.Fatalf("height %d tx %d: id %s, block lists %s", rec.Height, j, got, blk.TxHashes[j])
			}
			weight += tx.Weight(len(rec.TxBlobs[j]))
		}
		if weight != rec.BlockWeight {
			t.Fatalf("height %d: computed weight %d, monerod stored %d", rec.Height, weight, rec.BlockWeight)
		}
	}
	return ids
}

func TestRegtestExportMatchesMonerod(t *testing.T) {
	dir := testutil.Path(t, "testdata", "regtest")
	recs := readAll(t, filepath.Join(dir, "blockchain.raw"))
	if len(recs) != 300 {
		t.Fatalf("%d records, want 300", len(recs))
	}
	ids := CheckRecords(t, recs)

	// golden/chain.tsv: height, hash, prev_hash, timestamp, num_txes, block_size, reward, miner_tx_hash
	f, err := os.Open(filepath.Join(dir, "golden", "chain.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Scan() // header
	rows := 0
	for sc.Scan() {
		c := strings.Split(sc.Text(), "\t")
		h, _ := strconv.Atoi(c[0])
		rec := recs[h]
		reward, _ := rec.Block.MinerTx.OutputSum()
		got := []string{strconv.Itoa(h), ids[h].String(), rec.Block.PrevID.String(),
			strconv.FormatUint(rec.Block.Timestamp, 10), strconv.Itoa(len(rec.Block.TxHashes)),
			strconv.FormatUint(rec.BlockWeight, 10), strconv.FormatUint(reward, 10), rec.Block.MinerTx.ID().String()}
		if strings.Join(got, "\t") != sc.Text() {
			t.Fatalf("chain.tsv row %d:\n got %v\nwant %v", h, got, c)
		}
		rows++
	}
	if rows != 300 {
		t.Fatalf("%d chain.tsv rows", rows)
	}

	// golden/getblock_by_height.jsonl: monerod's exact getblock body per height.
	g, err := os.Open(filepath.Join(dir, "golden", "getblock_by_height.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	sc = bufio.NewScanner(g)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	n := 0
	for sc.Scan() {
		var line struct {
			Height int    `json:"height"`
			Body   string `json:"body"`
		}
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Fatal(err)
		}
		var body struct {
			Result struct {
				Blob        string `json:"blob"`
				JSON        string `json:"json"`
				MinerTxHash string `json:"miner_tx_hash"`
			} `json:"result"`
		}
		if err := json.Unmarshal([]byte(line.Body), &body); err != nil {
			t.Fatal(err)
		}
		rec := recs[line.Height]
		if got := rec.Block.MonerodJSON(); got != body.Result.JSON {
			t.Fatalf("height %d: json differs\n got %q\nwant %q", line.Height, got, body.Result.JSON)
		}
		if got := rec.Block.MinerTx.ID().String(); got != body.Result.MinerTxHash {
			t.Fatalf("height %d: miner tx hash", line.Height)
		}
		if !strings.EqualFold(body.Result.Blob, hexOf(rec.BlockBlob)) {
			t.Fatalf("height %d: blob differs", line.Height)
		}
		n++
	}
	if n != 300 {
		t.Fatalf("%d golden getblock lines, want 300", n)
	}
}

func hexOf(b []byte) string {
	const digits = "0123456789abcdef"
	out := make([]byte, 2*len(b))
	for i, c := range b {
		out[2*i], out[2*i+1] = digits[c>>4], digits[c&15]
	}
	return string(out)
}

func TestSkipThenNext(t *testing.T) {
	path := testutil.Path(t, "testdata", "regtest", "blockchain.raw")
	all := readAll(t, path)
	rd, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	if err := rd.Skip(201); err != nil {
		t.Fatal(err)
	}
	rec, err := rd.Next()
	if err != nil {
		t.Fatal(err)
	}
	if rec.Height != 201 || string(rec.BlockBlob) != string(all[201].BlockBlob) || len(rec.Txs) != 3 {
		t.Fatalf("after Skip(201) got height %d with %d txs", rec.Height, len(rec.Txs))
	}
	if err := rd.Skip(1000); err == nil {
		t.Fatal("skipping past the end succeeded")
	}
}

// Truncated and corrupted files give a FormatError that names the block,
// never a panic or a silent short read.
func TestCorruptFiles(t *testing.T) {
	orig, err := os.ReadFile(testutil.Path(t, "testdata", "regtest", "blockchain.raw"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	try := func(name string, data []byte) error {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		rd, err := Open(p)
		if err != nil {
			return err
		}
		defer rd.Close()
		for {
			_, err := rd.Next()
			if err == io.EOF {
				return nil
			}
			if err != nil {
				return err
			}
		}
	}
	var fe *FormatError
	// Cut at many points: the header, chunk length fields, inside records.
	for _, cut := range []int{0, 3, 10, 500, 1027, 1030, 1100, len(orig) / 2, len(orig) - 1} {
		err := try("cut", orig[:cut])
		if err == nil || !errors.As(err, &fe) {
			t.Fatalf("cut at %d: want FormatError, got %v", cut, err)
		}
	}
	// Wrong magic.
	bad := append([]byte(nil), orig...)
	bad[0] ^= 0xff
	if err := try("magic", bad); err == nil || !strings.Contains(err.Error(), "not a monero-blockchain-export file") {
		t.Fatalf("bad magic: %v", err)
	}
	// A chunk length over the limit is refused before any allocation.
	bad = append([]byte(nil), orig...)
	binary.LittleEndian.PutUint32(bad[1028:], 0xfffffff0)
	if err := try("huge", bad); err == nil || !strings.Contains(err.Error(), "exceeds") {
		t.Fatalf("huge chunk: %v", err)
	}
	// A flipped byte inside the first block's miner tx (the tx version) is a decode error naming block 0.
	bad = append([]byte(nil), orig...)
	bad[1032+39] = 7 // header is 39 bytes; this is the miner tx version
	err = try("flip", bad)
	if err == nil || !errors.As(err, &fe) || fe.Height != 0 {
		t.Fatalf("flipped byte: %v", err)
	}
}

func FuzzDecodeRecord(f *testing.F) {
	path := testutil.Path(f, "testdata", "regtest", "blockchain.raw")
	rd, err := Open(path)
	if err != nil {
		f.Fatal(err)
	}
	for i := 0; i < 300; i++ {
		p, err := rd.chunk()
		if err != nil {
			break
		}
		if i%50 == 0 || i == 201 || i == 290 {
			f.Add(append([]byte(nil), p...))
		}
	}
	rd.Close()
	f.Fuzz(func(t *testing.T, p []byte) {
		rec, err := decodeRecord(p)
		if err != nil {
			return
		}
		if got := rec.Block.Serialize(); string(got) != string(rec.BlockBlob) {
			t.Fatal("decoded block does not re-serialize to its bytes")
		}
	})
}
