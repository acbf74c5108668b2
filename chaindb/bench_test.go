package chaindb

import (
	"math/rand/v2"
	"syscall"
	"testing"

	"github.com/gonero/gonero/cryptonote"
)

// benchBlock is block h of the synthetic chain: a parseable block with 0–4
// txs, v1 and v2, which the indexes are derived from.
func benchBlock(h uint64) BlockRecord { return synthBlock(seedMain, h) }

// BenchmarkAppend measures one durable (fsynced) append per op.
func BenchmarkAppend(b *testing.B) {
	db, _ := openTemp(b)
	recs := make([]BlockRecord, b.N)
	for i := range recs {
		recs[i] = benchBlock(uint64(i))
	}
	b.ResetTimer()
	for i := range recs {
		if err := db.Append(recs[i]); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAppendRegtest appends the real regtest chain block by block, one
// durable append per op (a new store every 300 blocks), and reports blocks/s.
// With NoSync it measures the store's own work, without the fsync.
func BenchmarkAppendRegtest(b *testing.B) {
	for _, sync := range []bool{true, false} {
		name := "fsync"
		if !sync {
			name = "nosync"
		}
		b.Run(name, func(b *testing.B) {
			recs := regtest(b).recs
			var db *DB
			i := len(recs)
			b.ResetTimer()
			for range b.N {
				if i == len(recs) {
					b.StopTimer()
					if db != nil {
						_ = db.Close()
					}
					db, _ = openTemp(b)
					db.bolt.NoSync = !sync
					i = 0
					b.StartTimer()
				}
				if err := db.Append(recs[i]); err != nil {
					b.Fatal(err)
				}
				i++
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "blocks/s")
		})
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

// BenchmarkEachOutput is a wallet's ring-member lookup (/get_outs.bin):
// one read view, 150 random amount-0 outputs per op, with the tx hashes
// (txid) and without (ring).
func BenchmarkEachOutput(b *testing.B) {
	db := benchStore(b)
	b.Run("txid", func(b *testing.B) { benchEachOutput(b, db, true) })
	b.Run("ring", func(b *testing.B) { benchEachOutput(b, db, false) })
}

func benchEachOutput(b *testing.B, db *DB, txHashes bool) {
	var n uint64
	if err := db.View(func(r *Reader) (err error) { n, err = r.OutputCount(0); return }); err != nil || n == 0 {
		b.Fatalf("%d RingCT outputs, %v", n, err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	idx := make([]uint64, 150)
	// CPU time as well as wall time: on a shared machine the wall time
	// of a lookup is mostly waiting for a core.
	cpu0 := processCPU()
	for b.Loop() {
		for i := range idx {
			idx[i] = rng.Uint64N(n)
		}
		err := db.View(func(r *Reader) error {
			each := r.EachRingMember
			if txHashes {
				each = r.EachOutput
			}
			return each(len(idx), func(i int) (uint64, uint64) { return 0, idx[i] }, func(int, *OutputEntry) error { return nil })
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(processCPU()-cpu0)/float64(b.N), "cpu-ns/op")
}

// processCPU is the process's user and system CPU time in nanoseconds.
func processCPU() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
