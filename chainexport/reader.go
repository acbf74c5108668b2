// Package chainexport reads the files monero-blockchain-export writes
// ("bootstrap" files, blockchain.raw): a small header, then one chunk per
// block holding the block, its transactions and a few figures monerod
// recorded for it. The figures are informational: an importer recomputes
// and checks everything itself.
package chainexport

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/gonero/gonero/cryptonote"
	"github.com/gonero/gonero/internal/u128"
)

// Magic opens every export file (blockchain_raw_magic).
const Magic = 0x28721586

// MaxChunkSize is the largest chunk monero-blockchain-import accepts
// (BUFFER_SIZE); a larger length field means a corrupt file, and bounding it
// keeps a hostile file from making us allocate.
const MaxChunkSize = 1000000

// Info is the file header.
type Info struct {
	FormatMajor, FormatMinor uint64
	HeaderSize               uint64 // bytes after the magic up to the first chunk
	FirstHeight, LastHeight  uint64 // as recorded by the exporter
}

// Record is one block as exported: its blob and its transactions' blobs
// (block order), and the figures the exporter stored beside them.
type Record struct {
	Height               uint64 // FirstHeight + index in the file
	Offset               int64  // file offset of the chunk's length field
	Block                *cryptonote.Block
	BlockBlob            []byte
	Txs                  []*cryptonote.Transaction
	TxBlobs              [][]byte
	BlockWeight          uint64
	CumulativeDifficulty u128.U128
	CoinsGenerated       uint64
}

// Reader yields the records of an export file in order.
type Reader struct {
	Info   Info
	c      io.Closer // the file Open opened; nil for NewReader
	r      *bufio.Reader
	offset int64
	next   uint64 // height of the next record
	buf    []byte
}

// FormatError describes a corrupt or truncated file, with where it happened.
type FormatError struct {
	Offset int64
	Height uint64 // the record being read, when known
	Msg    string
	Err    error
}

func (e *FormatError) Error() string {
	s := fmt.Sprintf("export file: %s at byte %d", e.Msg, e.Offset)
	if e.Height != noHeight {
		s = fmt.Sprintf("export file: block %d: %s (chunk at byte %d)", e.Height, e.Msg, e.Offset)
	}
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

func (e *FormatError) Unwrap() error { return e.Err }

const noHeight = ^uint64(0)

// Open opens path and reads its header.
func Open(path string) (*Reader, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	rd, err := newReader(f, 1<<20)
	if err != nil {
		f.Close()
		return nil, err
	}
	rd.c = f
	return rd, nil
}

// NewReader reads the header of an export file from r and returns a reader
// for its records.
func NewReader(r io.Reader) (*Reader, error) { return newReader(r, 4096) }

func newReader(r io.Reader, bufSize int) (*Reader, error) {
	rd := &Reader{r: bufio.NewReaderSize(r, bufSize)}
	if err := rd.readHeader(); err != nil {
		return nil, err
	}
	return rd, nil
}

// Close closes the file Open opened (nothing for NewReader).
func (rd *Reader) Close() error {
	if rd.c == nil {
		return nil
	}
	return rd.c.Close()
}

func (rd *Reader) fail(h uint64, msg string, err error) error {
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		msg, err = msg+": file is truncated", nil
	}
	return &FormatError{Offset: rd.offset, Height: h, Msg: msg, Err: err}
}

func (rd *Reader) readFull(p []byte) error {
	n, err := io.ReadFull(rd.r, p)
	rd.offset += int64(n)
	return err
}

func (rd *Reader) u32() (uint32, error) {
	var b [4]byte
	if err := rd.readFull(b[:]); err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint32(b[:]), nil
}

// section reads a length-prefixed header section and decodes its varints.
func (rd *Reader) section(name string, dst ...*uint64) error {
	n, err := rd.u32()
	if err != nil {
		return rd.fail(noHeight, "reading the "+name+" length", err)
	}
	if n > 1024 {
		return rd.fail(noHeight, fmt.Sprintf("%s section of %d bytes is implausible", name, n), nil)
	}
	b := make([]byte, n)
	if err := rd.readFull(b); err != nil {
		return rd.fail(noHeight, "reading the "+name, err)
	}
	d := cryptonote.NewDecoder(b)
	for _, p := range dst {
		if *p, err = d.Varint(name); err != nil {
			return rd.fail(noHeight, "decoding the "+name, err)
		}
	}
	return nil
}

func (rd *Reader) readHeader() error {
	m, err := rd.u32()
	if err != nil {
		return rd.fail(noHeight, "reading the magic number", err)
	}
	if m != Magic {
		return rd.fail(noHeight, fmt.Sprintf("not a monero-blockchain-export file (magic %#x, want %#x)", m, Magic), nil)
	}
	i := &rd.Info
	if err := rd.section("file info", &i.FormatMajor, &i.FormatMinor, &i.HeaderSize); err != nil {
		return err
	}
	var lastPos uint64
	if err := rd.section("blocks info", &i.FirstHeight, &i.LastHeight, &lastPos); err != nil {
		return err
	}
	start := int64(4 + i.HeaderSize)
	if start < rd.offset || i.HeaderSize > 1<<20 {
		return rd.fail(noHeight, fmt.Sprintf("header size %d is implausible", i.HeaderSize), nil)
	}
	if _, err := io.CopyN(io.Discard, rd.r, start-rd.offset); err != nil {
		return rd.fail(noHeight, "skipping the header", err)
	}
	rd.offset = start
	rd.next = i.FirstHeight
	return nil
}

// NextHeight is the height of the record Next will return.
func (rd *Reader) NextHeight() uint64 { return rd.next }

// chunk reads the next chunk's bytes; io.EOF at a clean end of file.
func (rd *Reader) chunk() ([]byte, error) {
	var b [4]byte
	n, err := io.ReadFull(rd.r, b[:])
	if err == io.EOF {
		return nil, io.EOF
	}
	rd.offset += int64(n)
	if err != nil {
		rd.offset -= int64(n)
		return nil, rd.fail(rd.next, "reading the chunk length", err)
	}
	size := binary.LittleEndian.Uint32(b[:])
	if size > MaxChunkSize {
		rd.offset -= 4
		return nil, rd.fail(rd.next, fmt.Sprintf("chunk of %d bytes exceeds the %d-byte limit", size, MaxChunkSize), nil)
	}
	if cap(rd.buf) < int(size) {
		rd.buf = make([]byte, size)
	}
	p := rd.buf[:size]
	if err := rd.readFull(p); err != nil {
		rd.offset -= 4
		return nil, rd.fail(rd.next, "reading the chunk", err)
	}
	return p, nil
}

// Skip passes over n records without decoding them (to resume an import).
func (rd *Reader) Skip(n uint64) error {
	for ; n > 0; n-- {
		if _, err := rd.chunk(); err != nil {
			if err == io.EOF {
				return rd.fail(rd.next, "file ends before the block to resume from", nil)
			}
			return err
		}
		rd.next++
	}
	return nil
}

// Next decodes the next record; io.EOF after the last one.
func (rd *Reader) Next() (*Record, error) {
	start := rd.offset
	p, err := rd.chunk()
	if err != nil {
		return nil, err
	}
	rec, err := decodeRecord(p)
	if err != nil {
		return nil, &FormatError{Offset: start, Height: rd.next, Msg: "corrupt block record", Err: err}
	}
	rec.Height, rec.Offset = rd.next, start
	rd.next++
	return rec, nil
}

// decodeRecord decodes one block_package: block, vector of transactions,
// varint block weight, cumulative difficulty as two varints (high, low), and
// varint coins generated. The blobs are copied out of the reused buffer.
func decodeRecord(p []byte) (*Record, error) {
	d := cryptonote.NewDecoder(p)
	var rec Record
	var err error
	if rec.Block, err = d.Block(); err != nil {
		return nil, err
	}
	rec.BlockBlob = append([]byte(nil), p[:d.Offset()]...)
	n, err := d.Varint("txs")
	if err != nil {
		return nil, err
	}
	if n != uint64(len(rec.Block.TxHashes)) {
		return nil, fmt.Errorf("record holds %d transactions, the block lists %d", n, len(rec.Block.TxHashes))
	}
	for i := uint64(0); i < n; i++ {
		start := d.Offset()
		tx, err := d.Transaction()
		if err != nil {
			return nil, fmt.Errorf("transaction %d: %w", i, err)
		}
		rec.Txs = append(rec.Txs, tx)
		rec.TxBlobs = append(rec.TxBlobs, append([]byte(nil), p[start:d.Offset()]...))
	}
	if rec.BlockWeight, err = d.Varint("block_weight"); err != nil {
		return nil, err
	}
	if rec.CumulativeDifficulty.Hi, err = d.Varint("cumulative_difficulty"); err != nil {
		return nil, err
	}
	if rec.CumulativeDifficulty.Lo, err = d.Varint("cumulative_difficulty"); err != nil {
		return nil, err
	}
	if rec.CoinsGenerated, err = d.Varint("coins_generated"); err != nil {
		return nil, err
	}
	if d.Remaining() != 0 {
		return nil, fmt.Errorf("%d unexpected bytes after the record", d.Remaining())
	}
	return &rec, nil
}
