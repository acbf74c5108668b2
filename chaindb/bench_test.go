package chaindb

import (
	"math/rand/v2"
	"testing"

	"github.com/gonero/gonero/cryptonote"
)

// benchBlock is block h of a chain of ~1 KiB blobs: a 1 KiB block blob and
// four 1 KiB txs.
func benchBlock(h uint64) BlockRecord {
	rec := synthBlock(seedMain, h)
	rng := rand.New(rand.NewPCG(99, h))
	rec.Blob = randBytes(rng, 1024)
	rec.Meta.BlobSize = 1024
	rec.Txs = make([]TxRecord, 4)
	for i := range rec.Txs {
		rec.Txs[i] = TxRecord{Hash: randHash(rng), Blob: randBytes(rng, 1024)}
	}
	rec.Meta.NumTxes = 4
	return rec
}

// BenchmarkAppend measures one durable (fsynced) append per op.
func BenchmarkAppend(b *testing.B) {
	db, _ := openTemp(b)
	recs := make([]BlockRecord, b.N)
	for i := range recs {
		recs[i] = benchBlock(uint64(i))
	}
	b.SetBytes(5 * 1024)
	b.ResetTimer()
	for i := range recs {
		if err := db.Append(recs[i]); err != nil {
			b.Fatal(err)
		}
	}
}

const benchChain = 2000

func benchStore(b *testing.B) *DB {
	db, _ := openTemp(b)
	// fsync per block would make the setup take minutes; the reads measured
	// do not depend on it.
	db.bolt.NoSync = true
	for h := uint64(0); h < benchChain; h++ {
		if err := db.Append(benchBlock(h)); err != nil {
			b.Fatal(err)
		}
	}
	db.bolt.NoSync = false
	return db
}

// BenchmarkMetaByHeight is one read view and one lookup per op, as an RPC
// request would do it.
func BenchmarkMetaByHeight(b *testing.B) {
	db := benchStore(b)
	rng := rand.New(rand.NewPCG(1, 2))
	for b.Loop() {
		h := rng.Uint64N(benchChain)
		err := db.View(func(r *Reader) error {
			_, err := r.MetaByHeight(h)
			return err
		})
		if err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkMetaByHash(b *testing.B) {
	db := benchStore(b)
	hashes := make([]cryptonote.Hash, benchChain)
	for h := range hashes {
		hashes[h] = synthHash(seedMain, uint64(h))
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for b.Loop() {
		hash := hashes[rng.IntN(benchChain)]
		err := db.View(func(r *Reader) error {
			_, err := r.MetaByHash(hash)
			return err
		})
		if err != nil {
			b.Fatal(err)
		}
	}
}
