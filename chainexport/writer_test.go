package chainexport

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/gonero/gonero/internal/testutil"
)

// writeAll writes recs as an export file of heights first..last.
func writeAll(t testing.TB, w io.Writer, first, last uint64, recs []*Record) {
	t.Helper()
	ew, err := NewWriter(w, first, last)
	if err != nil {
		t.Fatal(err)
	}
	for _, rec := range recs {
		if err := ew.Write(rec); err != nil {
			t.Fatal(err)
		}
	}
	if err := ew.Close(); err != nil {
		t.Fatal(err)
	}
}

// The records monero-blockchain-export wrote, written again, are the same
// bytes: header (with its padding), chunk lengths and records.
func TestWriterRoundTrip(t *testing.T) {
	path := testutil.Path(t, "testdata", "regtest", "blockchain.raw")
	orig, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	recs := readAll(t, path)
	var buf bytes.Buffer
	writeAll(t, &buf, 0, uint64(len(recs)-1), recs)
	if !bytes.Equal(buf.Bytes(), orig) {
		t.Fatalf("rewritten file differs from monero-blockchain-export's (%d bytes, want %d; first difference at byte %d)",
			buf.Len(), len(orig), firstDiff(buf.Bytes(), orig))
	}

	// From the structures alone (blobs dropped), through Create.
	for _, rec := range recs {
		rec.BlockBlob, rec.TxBlobs = nil, nil
	}
	out := filepath.Join(t.TempDir(), "out.raw")
	w, err := Create(out, 0, uint64(len(recs)-1))
	if err != nil {
		t.Fatal(err)
	}
	for _, rec := range recs {
		if err := w.Write(rec); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, orig) {
		t.Fatalf("file written from decoded structures differs (first difference at byte %d)", firstDiff(got, orig))
	}
}

// A prefix of the chain is a file of its own, and writing more records than
// the header declares is refused.
func TestWriterPrefixAndRange(t *testing.T) {
	recs := readAll(t, testutil.Path(t, "testdata", "regtest", "blockchain.raw"))
	var buf bytes.Buffer
	writeAll(t, &buf, 0, 201, recs[:202])
	rd, err := NewReader(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if rd.Info.FirstHeight != 0 || rd.Info.LastHeight != 201 || rd.Info.HeaderSize != HeaderSize {
		t.Fatalf("header %+v", rd.Info)
	}
	n := 0
	for {
		rec, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(rec.BlockBlob, recs[n].BlockBlob) || len(rec.TxBlobs) != len(recs[n].TxBlobs) {
			t.Fatalf("record %d differs", n)
		}
		n++
	}
	if n != 202 {
		t.Fatalf("read %d records, want 202", n)
	}

	w, err := NewWriter(io.Discard, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(recs[0]); err != nil {
		t.Fatal(err)
	}
	if err := w.Write(recs[1]); err == nil {
		t.Fatal("a record past the declared last block was written")
	}
	if _, err := NewWriter(io.Discard, 5, 4); err == nil {
		t.Fatal("an empty range was accepted")
	}
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// FuzzReader feeds whole hostile files (header and chunks) to the reader:
// it must return records or an error, never panic, hang or allocate beyond
// its limits; a file it reads completely, written again, reads back the same.
func FuzzReader(f *testing.F) {
	orig, err := os.ReadFile(testutil.Path(f, "testdata", "regtest", "blockchain.raw"))
	if err != nil {
		f.Fatal(err)
	}
	// The header and the first few records (the whole file is too large a seed).
	off := 4 + HeaderSize
	for i := 0; i < 3; i++ {
		off += 4 + int(uint32(orig[off])|uint32(orig[off+1])<<8|uint32(orig[off+2])<<16|uint32(orig[off+3])<<24)
	}
	f.Add(orig[:off])
	f.Add(orig[:4+HeaderSize])
	f.Add(orig[:40])
	f.Fuzz(func(t *testing.T, data []byte) {
		rd, err := NewReader(bytes.NewReader(data))
		if err != nil {
			var fe *FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("header error is not a FormatError: %v", err)
			}
			return
		}
		var recs []*Record
		for {
			rec, err := rd.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				var fe *FormatError
				if !errors.As(err, &fe) {
					t.Fatalf("record error is not a FormatError: %v", err)
				}
				return
			}
			recs = append(recs, rec)
		}
		if len(recs) == 0 || rd.Info.FirstHeight+uint64(len(recs))-1 < rd.Info.FirstHeight {
			return
		}
		var buf bytes.Buffer
		writeAll(t, &buf, rd.Info.FirstHeight, rd.Info.FirstHeight+uint64(len(recs))-1, recs)
		rd2, err := NewReader(bytes.NewReader(buf.Bytes()))
		if err != nil {
			t.Fatal(err)
		}
		for i := range recs {
			rec, err := rd2.Next()
			if err != nil {
				t.Fatalf("record %d of the rewritten file: %v", i, err)
			}
			if !bytes.Equal(rec.BlockBlob, recs[i].BlockBlob) || rec.BlockWeight != recs[i].BlockWeight ||
				rec.CumulativeDifficulty != recs[i].CumulativeDifficulty || rec.CoinsGenerated != recs[i].CoinsGenerated {
				t.Fatalf("record %d changed through the writer", i)
			}
			for j := range rec.TxBlobs {
				if !bytes.Equal(rec.TxBlobs[j], recs[i].TxBlobs[j]) {
					t.Fatalf("record %d tx %d changed through the writer", i, j)
				}
			}
		}
		if _, err := rd2.Next(); err != io.EOF {
			t.Fatalf("rewritten file has more records: %v", err)
		}
	})
}
