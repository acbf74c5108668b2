package chain

import (
	"io"
	"path/filepath"
	"testing"
	"time"

	"github.com/gonero/gonero/chaindb"
	"github.com/gonero/gonero/chainexport"
	"github.com/gonero/gonero/internal/testutil"
	"github.com/gonero/gonero/params"
	"github.com/gonero/gonero/params/blockhashes"
)

// BenchmarkVerifyBlockTxs checks block 201 of the regtest chain (three
// CLSAG/BP+ transactions, 2 inputs each, ring 16) against the chain below it,
// as AddBlock does but without committing: every rule, the range proofs as
// one batch, the inputs and the six CLSAGs on every core. The verified
// cache is emptied before each run; the ring keys' points (ringct's cache)
// stay warm, as in an import.
func BenchmarkVerifyBlockTxs(b *testing.B) { benchmarkVerifyBlockTxs(b, false) }

// BenchmarkVerifyBlockTxsFastChecked is the same block with its id proved by
// the block-hash list (fast sync): no range proofs, inputs or signatures.
func BenchmarkVerifyBlockTxsFastChecked(b *testing.B) { benchmarkVerifyBlockTxs(b, true) }

func benchmarkVerifyBlockTxs(b *testing.B, fast bool) {
	rd, err := chainexport.Open(testutil.Path(b, "testdata", "regtest", "blockchain.raw"))
	if err != nil {
		b.Fatal(err)
	}
	defer rd.Close()
	db, err := chaindb.Open(filepath.Join(b.TempDir(), "chain.db"), chaindb.Options{Network: params.Regtest.String()})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	var target *chainexport.Record
	var c *Chain
	for {
		rec, err := rd.Next()
		if err == io.EOF {
			b.Fatal("no block 201")
		}
		if err != nil {
			b.Fatal(err)
		}
		if rec.Height == 0 {
			if c, err = Open(db, Config{Network: params.Regtest, FixedDifficulty: 1, Now: time.Now}); err != nil {
				b.Fatal(err)
			}
			continue
		}
		if rec.Height == 201 {
			target = rec
			break
		}
		if _, err := c.AddBlock(rec.Block, rec.BlockBlob, rec.Txs, rec.TxBlobs); err != nil {
			b.Fatal(err)
		}
	}
	if len(target.Txs) != 3 {
		b.Fatalf("block 201 has %d transactions", len(target.Txs))
	}
	if fast {
		id, _ := target.Block.ID()
		c.fast.list = &blockhashes.List{Groups: make([]blockhashes.Group, 1)}
		c.fast.expected = map[uint64]expectedBlock{target.Height: {id: id}}
	}
	b.ReportAllocs()
	for b.Loop() {
		c.verified.reset()
		err := c.store.View(func(r *chaindb.Reader) error {
			_, _, err := c.check(r, c.main, mainRules, target.Block, target.BlockBlob, target.Txs, target.TxBlobs)
			return err
		})
		if err != nil {
			b.Fatal(err)
		}
	}
}
