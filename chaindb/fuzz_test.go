package chaindb

import (
	"bytes"
	"testing"
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
