package chainexport

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"os"

	"github.com/gonero/gonero/cryptonote"
)

// HeaderSize is the header length monero-blockchain-export writes after the
// magic (bootstrap::file_info.header_size): the two length-prefixed header
// sections, then zeros up to this size.
const HeaderSize = 1024

// Writer writes an export file in monero-blockchain-export's format, which
// monero-blockchain-import and Reader read: the header, then one chunk per
// block. The header records the block range, so the writer is told it up
// front, as the exporter is.
type Writer struct {
	w      *bufio.Writer
	c      io.Closer // the file Create opened; nil for NewWriter
	next   uint64    // height of the next record
	last   uint64
	buf    []byte
	closed bool
}

// Create creates (or truncates) path and writes the header of an export of
// blocks first..last.
func Create(path string, first, last uint64) (*Writer, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	w, err := NewWriter(f, first, last)
	if err != nil {
		f.Close()
		return nil, err
	}
	w.c = f
	return w, nil
}

// NewWriter writes the header of an export of blocks first..last to w and
// returns a writer for the records. Call Close (or Flush) when done.
func NewWriter(w io.Writer, first, last uint64) (*Writer, error) {
	if last < first {
		return nil, fmt.Errorf("export range %d..%d is empty", first, last)
	}
	ew := &Writer{w: bufio.NewWriterSize(w, 1<<16), next: first, last: last}
	// file_info {major_version 1, minor_version 0, header_size} and
	// blocks_info {block_first, block_last, block_last_pos 0}, each a u32
	// length and its varints, as BootstrapFile::initialize_file writes them.
	hdr := binary.LittleEndian.AppendUint32(nil, Magic)
	fileInfo := cryptonote.AppendVarint(cryptonote.AppendVarint(cryptonote.AppendVarint(nil, 1), 0), HeaderSize)
	hdr = binary.LittleEndian.AppendUint32(hdr, uint32(len(fileInfo)))
	hdr = append(hdr, fileInfo...)
	blocksInfo := cryptonote.AppendVarint(cryptonote.AppendVarint(cryptonote.AppendVarint(nil, first), last), 0)
	hdr = binary.LittleEndian.AppendUint32(hdr, uint32(len(blocksInfo)))
	hdr = append(hdr, blocksInfo...)
	hdr = append(hdr, make([]byte, 4+HeaderSize-len(hdr))...)
	if _, err := ew.w.Write(hdr); err != nil {
		return nil, err
	}
	return ew, nil
}

// NextHeight is the height the next record is written at.
func (w *Writer) NextHeight() uint64 { return w.next }

// Write appends one block record: the block blob (BlockBlob, or Block
// serialized when BlockBlob is nil), its transactions (TxBlobs, or Txs
// serialized), and the figures BlockWeight, CumulativeDifficulty and
// CoinsGenerated. rec.Height is not consulted: records follow each other
// from the first height of the header.
func (w *Writer) Write(rec *Record) error {
	if w.closed {
		return fmt.Errorf("export file: write after close")
	}
	if w.next > w.last {
		return fmt.Errorf("export file: record for height %d is past the declared last block %d", w.next, w.last)
	}
	blockBlob := rec.BlockBlob
	if blockBlob == nil {
		if rec.Block == nil {
			return fmt.Errorf("export file: block %d: record has neither a block nor its blob", w.next)
		}
		blockBlob = rec.Block.Serialize()
	}
	txBlobs := rec.TxBlobs
	if txBlobs == nil {
		for _, tx := range rec.Txs {
			txBlobs = append(txBlobs, tx.Serialize())
		}
	}
	// block_package: block, vector of transactions, varint block weight,
	// cumulative difficulty as two varints (high, low), varint coins.
	p := append(w.buf[:0], blockBlob...)
	p = cryptonote.AppendVarint(p, uint64(len(txBlobs)))
	for _, b := range txBlobs {
		p = append(p, b...)
	}
	p = cryptonote.AppendVarint(p, rec.BlockWeight)
	p = cryptonote.AppendVarint(p, rec.CumulativeDifficulty.Hi)
	p = cryptonote.AppendVarint(p, rec.CumulativeDifficulty.Lo)
	p = cryptonote.AppendVarint(p, rec.CoinsGenerated)
	w.buf = p
	if len(p) > MaxChunkSize {
		return fmt.Errorf("export file: block %d: record of %d bytes exceeds the %d-byte chunk limit", w.next, len(p), MaxChunkSize)
	}
	var n [4]byte
	binary.LittleEndian.PutUint32(n[:], uint32(len(p)))
	if _, err := w.w.Write(n[:]); err != nil {
		return err
	}
	if _, err := w.w.Write(p); err != nil {
		return err
	}
	w.next++
	return nil
}

// Flush writes buffered data to the underlying writer.
func (w *Writer) Flush() error { return w.w.Flush() }

// Close flushes and, for a file made by Create, closes it. It does not
// require the declared range to be complete: a short file is what an
// interrupted export leaves, and readers treat it as truncated.
func (w *Writer) Close() error {
	if w.closed {
		return nil
	}
	w.closed = true
	err := w.w.Flush()
	if w.c != nil {
		if cerr := w.c.Close(); err == nil {
			err = cerr
		}
	}
	return err
}
