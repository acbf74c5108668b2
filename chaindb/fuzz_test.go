package chaindb

import (
	"bytes"
	"errors"
	"slices"
	"testing"

	"github.com/gonero/gonero/cryptonote"
)

func FuzzDecodeMeta(f *testing.F) {
	for h := range uint64(4) {
		m := synthBlock(seedMain, h).Meta
		v := encodeMeta(&m)
		f.Add(v)
		f.Add(v[:len(v)-1])
		f.Add(append(v, 0))
	}
	f.Add([]byte{})
	f.Add([]byte{metaLayoutV1})
	f.Add(append([]byte{2}, make([]byte, metaSize-1)...))
	f.Fuzz(func(t *testing.T, v []byte) {
		m, err := decodeMeta(v)
		if err != nil {
			return
		}
		// Whatever decodes must be exactly what encodes back.
		if again := encodeMeta(&m); !bytes.Equal(again, v) {
			t.Fatalf("decode then encode changed the value:\n%x\n%x", v, again)
		}
	})
}

func FuzzDecodeAltBlock(f *testing.F) {
	for h := range uint64(4) {
		rec := synthBlock(seedMain, h)
		v := encodeAltBlock(&rec)
		f.Add(v)
		f.Add(v[:len(v)-1])
	}
	f.Add([]byte{})
	f.Add([]byte{altLayoutV1})
	f.Fuzz(func(t *testing.T, v []byte) {
		rec, err := decodeAltBlock(v)
		if err != nil {
			return
		}
		if again := encodeAltBlock(&rec); !bytes.Equal(again, v) {
			t.Fatalf("decode then encode changed the value:\n%x\n%x", v, again)
		}
	})
}

func FuzzDecodeTxHashes(f *testing.F) {
	f.Add(encodeTxHashes(synthBlock(seedMain, 3).Txs))
	f.Add(encodeTxHashes(nil))
	f.Add([]byte{0xff, 0xff, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, v []byte) {
		hashes, err := decodeTxHashes(v)
		if err != nil {
			return
		}
		txs := make([]TxRecord, len(hashes))
		for i := range hashes {
			txs[i].Hash = hashes[i]
		}
		if again := encodeTxHashes(txs); !bytes.Equal(again, v) {
			t.Fatalf("decode then encode changed the value")
		}
	})
}

func FuzzDecodeBlockTxBlobs(f *testing.F) {
	f.Add(encodeBlockTxBlobs([][]byte{{1, 2, 3}, {}, {4}}))
	f.Add(encodeBlockTxBlobs([][]byte{make([]byte, 300)}))
	f.Add([]byte{blockTxBlobsLayout, 0xff, 0xff, 0xff, 0xff})
	f.Add([]byte{blockTxBlobsLayout, 2, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 1, 0, 0, 0, 7})
	f.Fuzz(func(t *testing.T, v []byte) {
		blobs, err := decodeBlockTxBlobs(v)
		// blockTxBlobAt must agree blob by blob wherever the whole value
		// decodes, and never panic elsewhere.
		for i := range uint32(8) {
			one, errAt := blockTxBlobAt(v, i)
			if err == nil && int(i) < len(blobs) && (errAt != nil || !bytes.Equal(one, blobs[i])) {
				t.Fatalf("blob %d: blockTxBlobAt %x %v, decode %x", i, one, errAt, blobs[i])
			}
		}
		if err != nil {
			return
		}
		if again := encodeBlockTxBlobs(blobs); !bytes.Equal(again, v) {
			t.Fatalf("decode then encode changed the value")
		}
	})
}

// TestMetaLayoutIsFixed pins the v1 layout: a change to the encoder that
// moves a field breaks every existing store, so it must be deliberate.
func TestMetaLayoutIsFixed(t *testing.T) {
	m := BlockMeta{Height: 0x0102030405060708, Nonce: 0xAABBCCDD, MajorVersion: 16, MinorVersion: 17}
	m.Hash[0] = 0x11
	m.PrevHash[31] = 0x22
	m.CumulativeDifficulty.Hi = 0x33
	m.MinerTxHash[0] = 0x44
	m.NumTxes = 5
	v := encodeMeta(&m)
	if len(v) != metaSize {
		t.Fatalf("encoded meta is %d bytes, want %d", len(v), metaSize)
	}
	for _, c := range []struct {
		off  int
		want byte
	}{
		{0, metaLayoutV1}, {1, 0x08}, {8, 0x01}, {9, 0x11}, {72, 0x22}, {81, 16}, {82, 17},
		{83, 0xDD}, {86, 0xAA}, {135, 0x33}, {159, 0x44}, {191, 5},
	} {
		if v[c.off] != c.want {
			t.Errorf("byte %d = %#x, want %#x", c.off, v[c.off], c.want)
		}
	}
}

func FuzzDecodeOutput(f *testing.F) {
	for _, a := range []uint64{0, 5} {
		o := OutputEntry{Amount: a, Height: 4, Position: 6, slot: 5, outOff: 90}
		v := encodeOutput(&o)
		f.Add(outputKey(a, 9), v)
		f.Add(outputKey(a, 9), v[:len(v)-1])
		f.Add(outputKey(a^5, 9), v)
	}
	f.Add([]byte{}, []byte{})
	f.Add(make([]byte, 15), []byte{outputLayout})
	f.Add(make([]byte, 16), []byte{outputLayout, 0x80, 0, 1, 2, 3, 4}) // an overlong uvarint
	f.Fuzz(func(t *testing.T, k, v []byte) {
		amount, index, err := decodeOutputKey(k)
		if err != nil {
			return
		}
		if !bytes.Equal(outputKey(amount, index), k) {
			t.Fatalf("output key does not round-trip")
		}
		o, err := decodeOutput(amount, index, v)
		if err != nil {
			return
		}
		if o.Amount != amount || o.Index != index {
			t.Fatalf("entry says (%d, %d), key (%d, %d)", o.Amount, o.Index, amount, index)
		}
		if again := encodeOutput(&o); !bytes.Equal(again, v) {
			t.Fatalf("decode then encode changed the value:\n%x\n%x", v, again)
		}
	})
}

func FuzzDecodeIndexList(f *testing.F) {
	f.Add(encodeIndexList(nil))
	f.Add(encodeIndexList([]uint64{0, 1, 1 << 63}))
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0})
	f.Add([]byte{indexListList, 2, 5, 6})      // a run stored as a list
	f.Add([]byte{indexListRun, 0x80, 0x00, 1}) // an overlong count
	f.Fuzz(func(t *testing.T, v []byte) {
		idx, err := decodeIndexList(v)
		if err != nil {
			return
		}
		if again := encodeIndexList(idx); !bytes.Equal(again, v) {
			t.Fatalf("decode then encode changed the value")
		}
	})
}

// FuzzDeriveIndexes feeds arbitrary block and tx blobs to the derivation
// that append, pop and the migration run on stored bytes: it must refuse
// them with an error, never panic, and whatever it accepts must plan.
func FuzzDeriveIndexes(f *testing.F) {
	for h := range uint64(6) {
		rec := synthBlock(seedMain, h)
		if len(rec.Txs) > 0 {
			f.Add(rec.Blob, rec.Txs[0].Blob)
		}
		f.Add(rec.Blob, []byte{})
	}
	f.Fuzz(func(t *testing.T, blob, txBlob []byte) {
		// Every tx the block lists gets txBlob (more than one then spend
		// the same key images, which must be refused too).
		rec := BlockRecord{Blob: blob}
		if blk, err := cryptonote.ParseBlock(blob); err == nil {
			for _, h := range blk.TxHashes {
				rec.Txs = append(rec.Txs, TxRecord{Hash: h, Blob: txBlob})
			}
		}
		bi, err := deriveIndexes(&rec)
		if err != nil {
			var inv *ErrInvalidRecord
			var spent *ErrKeyImageSpent
			if !errors.As(err, &inv) && !errors.As(err, &spent) {
				t.Fatalf("untyped error %T: %v", err, err)
			}
			return
		}
		// Whatever derives has one output entry per output and indexes per tx.
		n := 0
		for _, tx := range bi.txs {
			n += tx.n
		}
		if n != len(bi.outputs) || len(bi.txs) != 1+len(rec.Txs) {
			t.Fatalf("%d outputs over %d txs, %d entries", n, len(bi.txs), len(bi.outputs))
		}
	})
}

// FuzzDecodeTxEntries: a tx_index value is entries in ascending (height,
// slot) order, each with one encoding, so re-encoding what decodes gives
// the same bytes, and skipping the index lists finds the same entries.
func FuzzDecodeTxEntries(f *testing.F) {
	f.Add(encodeTxEntry(0, 0, nil))
	f.Add(encodeTxEntry(3_000_000, 17, []uint64{90_000_000, 90_000_001}))
	f.Add(append(encodeTxEntry(7, 0, []uint64{5, 1, 1 << 40}), encodeTxEntry(7, 3, []uint64{2})...))
	f.Add(append(encodeTxEntry(9, 1, nil), encodeTxEntry(8, 1, nil)...)) // not ascending
	f.Add([]byte{0x80, 0x00, 1, indexListRun, 1, 0})
	f.Fuzz(func(t *testing.T, v []byte) {
		entries, err := decodeTxEntries(v, true)
		if err != nil {
			if _, err2 := decodeTxEntries(v, false); err2 == nil {
				t.Fatalf("refused with the indexes (%v), accepted without", err)
			}
			return
		}
		var again []byte
		for i, e := range entries {
			enc := encodeTxEntry(e.height, e.slot, e.idx)
			if !bytes.Equal(enc, e.raw) {
				t.Fatalf("entry %d: decode then encode changed it:\n%x\n%x", i, e.raw, enc)
			}
			if i > 0 && (e.height < entries[i-1].height || e.height == entries[i-1].height && e.slot <= entries[i-1].slot) {
				t.Fatalf("entries %d and %d are not ascending", i-1, i)
			}
			again = append(again, enc...)
		}
		if !bytes.Equal(again, v) {
			t.Fatalf("decode then encode changed the value:\n%x\n%x", v, again)
		}
		skipped, err := decodeTxEntries(v, false)
		if err != nil || len(skipped) != len(entries) {
			t.Fatalf("without the indexes: %d entries, %v; with them %d", len(skipped), err, len(entries))
		}
		for i := range skipped {
			if skipped[i].height != entries[i].height || skipped[i].slot != entries[i].slot || !bytes.Equal(skipped[i].raw, entries[i].raw) {
				t.Fatalf("entry %d differs without the indexes", i)
			}
		}
	})
}

func FuzzDecodeSpentHeights(f *testing.F) {
	f.Add(encodeSpentHeights([]uint64{5}))
	f.Add(encodeSpentHeights([]uint64{5, 5, 3_000_000}))
	f.Add([]byte{9, 3})
	f.Add([]byte{0x80, 0x00})
	f.Fuzz(func(t *testing.T, v []byte) {
		heights, err := decodeSpentHeights(v)
		if err != nil {
			return
		}
		if len(heights) == 0 || !slices.IsSorted(heights) {
			t.Fatalf("heights %v", heights)
		}
		if again := encodeSpentHeights(heights); !bytes.Equal(again, v) {
			t.Fatalf("decode then encode changed the value")
		}
	})
}

// FuzzReadOutputInTx reads an output's key, unlock time and commitment
// out of arbitrary tx bytes at the places an arbitrary entry names (a
// corrupt store): an error, never a panic. On a real tx, the places the
// derivation finds read back its outputs.
func FuzzReadOutputInTx(f *testing.F) {
	for h := range uint64(6) {
		rec := synthBlock(seedMain, h)
		start, err := minerTxStart(rec.Blob)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(uint64(0), uint32(10), uint32(0), rec.Blob[start:])
		for _, tx := range rec.Txs {
			f.Add(uint64(0), uint32(40), uint32(300), tx.Blob)
			f.Add(uint64(7), uint32(40), uint32(0), tx.Blob)
		}
	}
	f.Fuzz(func(t *testing.T, amount uint64, outOff, commitOff uint32, txb []byte) {
		_, _ = minerTxStart(txb)
		o := OutputEntry{Amount: amount, outOff: outOff, commitOff: commitOff, Commitment: cryptonote.Key{9}}
		if err := readOutputInTx(&o, txb); err == nil && commitOff == 0 && o.Commitment != (cryptonote.Key{9}) {
			t.Fatal("an entry holding its commitment got another from the tx")
		}
		tx, err := cryptonote.ParseTransaction(txb)
		if err != nil {
			return
		}
		places, outPk, err := txOutputPlaces(tx, txb)
		if err != nil {
			return // outputs not to a key
		}
		for i, p := range places {
			e := OutputEntry{Amount: tx.Outputs[i].Amount, outOff: p}
			if outPk > 0 {
				e.Amount, e.commitOff = 0, uint32(outPk+32*i)
			}
			if err := readOutputInTx(&e, txb); err != nil || e.UnlockTime != tx.UnlockTime {
				t.Fatalf("output %d at %d: %v, unlock time %d of %d", i, p, err, e.UnlockTime, tx.UnlockTime)
			}
			if outPk > 0 && e.Commitment != tx.Rct.OutPk[i] {
				t.Fatalf("output %d: commitment %x, the tx's %x", i, e.Commitment, tx.Rct.OutPk[i])
			}
		}
	})
}

// FuzzDecodeRctOutputs: a rct_outputs value that walks re-encodes to the
// same bytes (one encoding), its indexes run on from the key's, and a
// walk stopped early never fails where the whole one passed.
func FuzzDecodeRctOutputs(f *testing.F) {
	outs := []OutputEntry{
		{slot: 0, Position: 0, outOff: 70, Commitment: cryptonote.Key{1}},
		{slot: 2, Position: 0, outOff: 300, commitOff: 900},
		{slot: 2, Position: 1, outOff: 334, commitOff: 932},
		{slot: 5, Position: 3, outOff: 40},
	}
	f.Add(uint64(7), encodeRctOutputs(3_000_000, outs))
	f.Add(uint64(0), encodeRctOutputs(1, outs[:1]))
	f.Add(uint64(1<<63), encodeRctOutputs(1, outs[1:3]))
	f.Add(uint64(0), []byte{rctOutputsLayout, 1})
	f.Add(uint64(0), []byte{rctOutputsLayout, 1, 2, 2, 0x80, 0, 1, 2})
	f.Fuzz(func(t *testing.T, first uint64, v []byte) {
		var got []OutputEntry
		var height uint64
		err := walkRctOutputs(v, first, func(o *OutputEntry) bool {
			if o.Index != first+uint64(len(got)) || o.Amount != 0 {
				t.Fatalf("output %d has index %d, amount %d", len(got), o.Index, o.Amount)
			}
			height = o.Height
			got = append(got, *o)
			return true
		})
		if err != nil {
			return
		}
		if again := encodeRctOutputs(height, got); !bytes.Equal(again, v) {
			t.Fatalf("decode then encode changed the value:\n%x\n%x", v, again)
		}
		n := 0
		if err := walkRctOutputs(v, first, func(*OutputEntry) bool { n++; return n < len(got)/2 }); err != nil {
			t.Fatalf("a walk stopped early failed: %v", err)
		}
	})
}

// FuzzUnionIndexValue: the value an LSM key holds while a commit is under
// way decodes, and holds every entry of the old value and of the new one
// (lsm.go); stored bytes that do not decode are refused, never a panic.
func FuzzUnionIndexValue(f *testing.F) {
	f.Add(true, encodeSpentHeights([]uint64{1, 5, 5}), encodeSpentHeights([]uint64{1, 5, 5, 9}))
	f.Add(false, encodeTxEntry(3, 1, []uint64{7}), append(encodeTxEntry(3, 1, []uint64{7}), encodeTxEntry(4, 0, []uint64{8, 9})...))
	f.Add(false, encodeTxEntry(4, 0, nil), encodeTxEntry(2, 2, []uint64{1}))
	f.Fuzz(func(t *testing.T, spent bool, old, new []byte) {
		bucket := bucketTxIndex
		if spent {
			bucket = bucketSpentKeys
		}
		u, err := unionIndexValue(bucket, old, new)
		if err != nil {
			return
		}
		if spent {
			a, errA := decodeSpentHeights(old)
			b, errB := decodeSpentHeights(new)
			got, errU := decodeSpentHeights(u)
			if errA != nil || errB != nil || errU != nil {
				t.Fatalf("union of %x and %x is %x: %v %v %v", old, new, u, errA, errB, errU)
			}
			count := func(l []uint64) map[uint64]int {
				m := map[uint64]int{}
				for _, h := range l {
					m[h]++
				}
				return m
			}
			cu := count(got)
			for _, l := range [][]uint64{a, b} {
				for h, n := range count(l) {
					if cu[h] < n {
						t.Fatalf("union %v misses height %d of %v", got, h, l)
					}
				}
			}
			return
		}
		a, errA := decodeTxEntries(old, false)
		b, errB := decodeTxEntries(new, false)
		got, errU := decodeTxEntries(u, false)
		if errA != nil || errB != nil || errU != nil {
			t.Fatalf("union of %x and %x is %x: %v %v %v", old, new, u, errA, errB, errU)
		}
		has := map[[2]uint64]bool{}
		for _, e := range got {
			has[[2]uint64{e.height, uint64(e.slot)}] = true
		}
		for _, l := range [][]txEntry{a, b} {
			for _, e := range l {
				if !has[[2]uint64{e.height, uint64(e.slot)}] {
					t.Fatalf("union misses entry (%d, %d)", e.height, e.slot)
				}
			}
		}
	})
}
