// Command storagefloor computes, for bench/storage.sh, the floor of a chain
// store: the raw bytes every node must keep (each block blob and each
// transaction blob, as monero-blockchain-export wrote them), and beside them
// the indexes the RPC needs, each counted at its smallest fixed-width form
// (no page, key prefix or tree overhead). With -store it also reports where a
// gonero store's bytes go: every bucket's bytes in use and allocated, and the
// free pages.
//
// The index parts, per item (what monerod's RPC answers without parsing
// blobs: get_block_header*, get_transactions, get_outs, is_key_image_spent,
// get_o_indexes):
//
//	block hash → height          32 + 8  per block
//	block meta                   48      per block: timestamp, 128-bit cumulative
//	                                     difficulty, weight, long-term weight, coins
//	block blob offset            8       per block (blobs in one append-only file)
//	tx hash → location           32 + 8  per transaction, miner txs included
//	output (amount, index) →     80      per output: key, commitment, unlock time,
//	                                     height (the key is its position for amount 0)
//	tx → output indexes          8       per output
//	key image (spent)            32      per input
//
// The pruned floor keeps, for a v2 transaction in a block that a node of
// the -stripe (default 1) does not keep (pruning.HasUnprunedBlock), only its
// pruned part (prefix and RingCT base) plus the 32-byte hash of the dropped
// part. The stripe matters on a chain longer than the pruning tip: stripe 1
// keeps heights 0-4,095 whole, so a short chain's old blocks are pruned only
// by the other seven stripes.
//
// The floor is counted from an export file (-input-file) or from a gonero
// store (-floor-store, walked by height through chaindb's read API: each
// block blob, each tx blob), by the same code: on the same chain both give
// the same figures. -chain-height counts the pruned floor as if the chain
// were that long, so that bench/scale.sh's short samples (2,000 blocks,
// inside the pruning tip of their own chain) count as pruned.
//
// Output: one "name bytes" line per figure, for awk.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"

	bolt "go.etcd.io/bbolt"

	"github.com/gonero/gonero/chaindb"
	"github.com/gonero/gonero/chainexport"
	"github.com/gonero/gonero/cryptonote"
	"github.com/gonero/gonero/pruning"
)

func main() {
	in := flag.String("input-file", "", "export file (monero-blockchain-export)")
	store := flag.String("store", "", "a gonero store file (gonero.db) to break down by bucket")
	network := flag.String("network", "fakechain", "the store's network name, as chaindb.Open takes it")
	raw := flag.String("raw", "", "a bbolt file to break down without opening it as a store (any schema, nothing upgraded): "+
		"per bucket keys, key bytes, value bytes, element headers, pages and fill")
	floorStore := flag.String("floor-store", "", "a gonero store file (gonero.db, unpruned) to compute the floor of, instead of an export file")
	stripe := flag.Uint("stripe", 1, "the pruning stripe (1-8) of the pruned floor")
	chainHeight := flag.Uint64("chain-height", 0, "count the pruned floor as if the chain were this long (0: its own height), "+
		"so that a short sample can be counted as lying below the pruning tip of a longer chain")
	flag.Parse()
	if *stripe < 1 || *stripe > pruning.Stripes {
		log.Fatalf("storagefloor: -stripe %d not in 1-%d", *stripe, pruning.Stripes)
	}
	if *raw != "" {
		if err := rawBreakdown(*raw); err != nil {
			log.Fatalf("storagefloor: %v", err)
		}
		return
	}
	if *in == "" && *store == "" && *floorStore == "" {
		log.Fatal("storagefloor: -input-file, -floor-store or -store is needed")
	}
	if *in != "" && *floorStore != "" {
		log.Fatal("storagefloor: -input-file and -floor-store both give a floor: one at a time")
	}
	var c *counter
	var err error
	switch {
	case *in != "":
		c, err = floorOfExport(*in, uint32(*stripe), *chainHeight)
	case *floorStore != "":
		c, err = floorOfStore(*floorStore, *network, uint32(*stripe), *chainHeight)
	}
	if err != nil {
		log.Fatalf("storagefloor: %v", err)
	}
	if c != nil {
		c.print()
	}
	if *store != "" {
		if err := breakdown(*store, *network); err != nil {
			log.Fatalf("storagefloor: %v", err)
		}
	}
}

type parts struct {
	blocks, txs, outputs, inputs       uint64
	blockBlobs, txBlobs, prunedTxBlobs uint64
	prunedAway                         uint64 // v2 txs whose prunable part a node of the stripe drops
}

// counter adds up a chain's floor parts block by block, whichever source
// the blocks come from (an export file or a store): both count exactly the
// same parts.
type counter struct {
	parts
	chainHeight uint64 // the height the pruning decision takes the chain to have
	seed        uint32 // the pruned floor's stripe
}

func newCounter(stripe uint32, chainHeight uint64) (*counter, error) {
	seed, err := pruning.MakeSeed(stripe, pruning.LogStripes)
	if err != nil {
		return nil, err
	}
	return &counter{chainHeight: chainHeight, seed: seed}, nil
}

// block counts the block at height (its blob of blockBlob bytes and its
// miner tx) and its txs, each with the length of its blob.
func (c *counter) block(height uint64, blockBlob int, miner *cryptonote.Transaction, txs []*cryptonote.Transaction, txBlobs []int) {
	c.blocks++
	c.blockBlobs += uint64(blockBlob)
	c.count(miner)
	keep := pruning.HasUnprunedBlock(height, c.chainHeight, c.seed)
	for i, tx := range txs {
		c.count(tx)
		n := uint64(txBlobs[i])
		c.txBlobs += n
		if tx.Version < 2 || keep {
			c.prunedTxBlobs += n
			continue
		}
		_, prunedLen := tx.SplitBlob()
		c.prunedTxBlobs += uint64(prunedLen) + 32
		c.prunedAway++
	}
}

func (c *counter) count(tx *cryptonote.Transaction) {
	c.txs++
	c.outputs += uint64(len(tx.Outputs))
	for _, in := range tx.Inputs {
		if _, ok := in.(cryptonote.TxInToKey); ok {
			c.inputs++
		}
	}
}

// floorOfExport counts the floor of an export file. chainHeight 0 takes
// the file's own height.
func floorOfExport(path string, stripe uint32, chainHeight uint64) (*counter, error) {
	rd, err := chainexport.Open(path)
	if err != nil {
		return nil, err
	}
	defer rd.Close()
	var recs []*chainexport.Record
	for {
		rec, err := rd.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		// Only the sizes and shapes are kept: the blobs are dropped.
		recs = append(recs, &chainexport.Record{Height: rec.Height, Block: rec.Block, Txs: rec.Txs,
			BlockBlob: make([]byte, len(rec.BlockBlob)), TxBlobs: sizesOnly(rec.TxBlobs)})
	}
	if chainHeight == 0 {
		chainHeight = uint64(len(recs))
	}
	c, err := newCounter(stripe, chainHeight)
	if err != nil {
		return nil, err
	}
	for _, r := range recs {
		lens := make([]int, len(r.TxBlobs))
		for i, b := range r.TxBlobs {
			lens[i] = len(b)
		}
		c.block(r.Height, len(r.BlockBlob), &r.Block.MinerTx, r.Txs, lens)
	}
	return c, nil
}

// floorOfStore counts the floor of a gonero store, walking its main chain
// by height: each block's blob and its txs' blobs, as the RPC reads them.
// A pruned store no longer holds whole tx blobs: it is refused.
// chainHeight 0 takes the store's own height.
func floorOfStore(path, network string, stripe uint32, chainHeight uint64) (*counter, error) {
	if _, err := os.Stat(path); err != nil {
		return nil, err
	}
	db, err := chaindb.Open(filepath.Clean(path), chaindb.Options{Network: network})
	if err != nil {
		return nil, err
	}
	defer db.Close()
	var c *counter
	err = db.View(func(r *chaindb.Reader) error {
		if seed, err := r.PruningSeed(); err != nil {
			return err
		} else if seed != 0 {
			return fmt.Errorf("%s is pruned (seed %#x): the floor needs the whole tx blobs", path, seed)
		}
		height, err := r.Height()
		if err != nil {
			return err
		}
		if chainHeight == 0 {
			chainHeight = height
		}
		if c, err = newCounter(stripe, chainHeight); err != nil {
			return err
		}
		for h := range height {
			blob, err := r.BlockBlob(h)
			if err != nil {
				return err
			}
			b, err := cryptonote.ParseBlock(blob)
			if err != nil {
				return fmt.Errorf("block at height %d: %w", h, err)
			}
			ids, err := r.TxHashes(h)
			if err != nil {
				return err
			}
			txs := make([]*cryptonote.Transaction, len(ids))
			lens := make([]int, len(ids))
			for i, id := range ids {
				tb, err := r.TxBlob(id)
				if err != nil {
					return err
				}
				if txs[i], err = cryptonote.ParseTransaction(tb); err != nil {
					return fmt.Errorf("tx %s at height %d: %w", id, h, err)
				}
				lens[i] = len(tb)
			}
			c.block(h, len(blob), &b.MinerTx, txs, lens)
		}
		return nil
	})
	return c, err
}

type indexPart struct {
	name  string
	bytes uint64
}

// indexes are the index parts at their smallest fixed width, in print order.
func (p *parts) indexes() []indexPart {
	return []indexPart{
		{"idx_block_hash", 40 * p.blocks},
		{"idx_block_meta", 48 * p.blocks},
		{"idx_block_offset", 8 * p.blocks},
		{"idx_tx_location", 40 * p.txs},
		{"idx_outputs", 80 * p.outputs},
		{"idx_tx_outputs", 8 * p.outputs},
		{"idx_key_images", 32 * p.inputs},
	}
}

func (c *counter) print() {
	var idxTotal uint64
	for _, ix := range c.indexes() {
		fmt.Println(ix.name, ix.bytes)
		idxTotal += ix.bytes
	}
	fmt.Println("blocks", c.blocks)
	fmt.Println("txs", c.txs)
	fmt.Println("outputs", c.outputs)
	fmt.Println("inputs", c.inputs)
	fmt.Println("block_blobs", c.blockBlobs)
	fmt.Println("tx_blobs", c.txBlobs)
	fmt.Println("blobs", c.blockBlobs+c.txBlobs)
	fmt.Println("indexes", idxTotal)
	fmt.Println("floor", c.blockBlobs+c.txBlobs+idxTotal)
	fmt.Println("pruned_stripe", pruning.StripeOf(c.seed))
	fmt.Println("pruned_chain_height", c.chainHeight)
	fmt.Println("pruned_txs", c.prunedAway)
	fmt.Println("pruned_blobs", c.blockBlobs+c.prunedTxBlobs)
	fmt.Println("pruned_floor", c.blockBlobs+c.prunedTxBlobs+idxTotal)
}

func sizesOnly(blobs [][]byte) [][]byte {
	out := make([][]byte, len(blobs))
	for i, b := range blobs {
		out[i] = make([]byte, len(b))
	}
	return out
}

// breakdown prints every bucket's bytes in use and allocated and the free
// pages of a gonero store (opened, so run it after the write measurement).
func breakdown(path, network string) error {
	if _, err := os.Stat(path); err != nil {
		return err
	}
	db, err := chaindb.Open(filepath.Clean(path), chaindb.Options{Network: network})
	if err != nil {
		return err
	}
	defer db.Close()
	st, err := db.BucketStats()
	if err != nil {
		return err
	}
	var inUse, alloc int
	for _, s := range st {
		fmt.Printf("bucket_%s %d %d %d\n", s.Name, s.InUse, s.Allocated, s.Keys)
		inUse += s.InUse
		alloc += s.Allocated
	}
	f := db.FreeStats()
	fmt.Println("buckets_in_use", inUse)
	fmt.Println("buckets_alloc", alloc)
	fmt.Println("free_pages_bytes", (f.FreePages+f.PendingPages)*f.PageSize)
	return nil
}

// rawBreakdown walks every root bucket of a bbolt file, opened read-only:
// the bytes of its keys and values, bbolt's 16-byte element header per key
// (leafPageElement), its pages (leaf, branch, overflow) and how full they
// are (bytes in use ÷ bytes allocated), and the file's free pages. The
// rest of a page's bytes in use is its 16-byte header and the branch
// pages' elements.
func rawBreakdown(path string) error {
	db, err := bolt.Open(path, 0o400, &bolt.Options{ReadOnly: true})
	if err != nil {
		return err
	}
	defer db.Close()
	fmt.Printf("%-18s %8s %10s %10s %9s %6s %6s %6s %10s %10s %5s\n", "bucket", "keys", "key B", "value B", "elem hdr",
		"leaf", "branch", "ovfl", "in use", "alloc", "fill")
	var tk, tkb, tvb, tin, tal int
	err = db.View(func(tx *bolt.Tx) error {
		err := tx.ForEach(func(name []byte, b *bolt.Bucket) error {
			var keys, kb, vb int
			if err := b.ForEach(func(k, v []byte) error {
				keys++
				kb += len(k)
				vb += len(v)
				return nil
			}); err != nil {
				return err
			}
			st := b.Stats()
			in, al := st.LeafInuse+st.BranchInuse, st.LeafAlloc+st.BranchAlloc
			fill := 0.0
			if al > 0 {
				fill = float64(in) / float64(al)
			}
			fmt.Printf("%-18s %8d %10d %10d %9d %6d %6d %6d %10d %10d %5.2f\n", name, keys, kb, vb, 16*keys,
				st.LeafPageN, st.BranchPageN, st.LeafOverflowN+st.BranchOverflowN, in, al, fill)
			tk, tkb, tvb, tin, tal = tk+keys, tkb+kb, tvb+vb, tin+in, tal+al
			return nil
		})
		if err != nil {
			return err
		}
		fmt.Printf("%-18s %8d %10d %10d %9d %6s %6s %6s %10d %10d %5.2f\n", "total", tk, tkb, tvb, 16*tk, "", "", "", tin, tal,
			float64(tin)/float64(max(tal, 1)))
		s := db.Stats()
		page := db.Info().PageSize
		fmt.Printf("free pages %d (%d B), pending %d; file %d B (%d B pages in use by the snapshot)\n", s.FreePageN,
			s.FreePageN*page, s.PendingPageN, fileSize(path), tx.Size())
		return nil
	})
	return err
}

func fileSize(path string) int64 {
	fi, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return fi.Size()
}
