package chaindb

import (
	"errors"
	"io"
	"sort"
	"sync"
	"testing"

	"github.com/gonero/gonero/chainexport"
	"github.com/gonero/gonero/cryptonote"
	"github.com/gonero/gonero/internal/testutil"
)

// regtestChain is one export file read as BlockRecords, with the parsed txs
// beside them so that tests can compute expectations without the store.
type regtestChain struct {
	recs   []BlockRecord
	blocks []*cryptonote.Block
	txs    [][]*cryptonote.Transaction // non-coinbase, block order
}

var (
	regtestMu    sync.Mutex
	regtestCache = map[string]*regtestChain{}
)

// loadExport reads testdata/regtest/<rel> into records. Meta fields
// the store does not derive anything from (difficulty, weights, rewards) are
// left zero: chaindb stores them but checks nothing about them.
func loadExport(t testing.TB, rel ...string) *regtestChain {
	t.Helper()
	path := testutil.Path(t, append([]string{"testdata", "regtest"}, rel...)...)
	regtestMu.Lock()
	defer regtestMu.Unlock()
	if c, ok := regtestCache[path]; ok {
		return c
	}
	rd, err := chainexport.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	c := &regtestChain{}
	for {
		x, err := rd.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		id, err := x.Block.ID()
		if err != nil {
			t.Fatal(err)
		}
		rec := BlockRecord{
			Meta: BlockMeta{
				Height: x.Height, Hash: id, PrevHash: x.Block.PrevID, Timestamp: x.Block.Timestamp,
				MajorVersion: x.Block.MajorVersion, MinorVersion: x.Block.MinorVersion, Nonce: x.Block.Nonce,
				BlobSize: uint64(len(x.BlockBlob)), Weight: x.BlockWeight,
				CumulativeDifficulty: x.CumulativeDifficulty, GeneratedCoins: x.CoinsGenerated,
				MinerTxHash: x.Block.MinerTx.ID(), NumTxes: uint64(len(x.Txs)),
			},
			Blob: x.BlockBlob,
		}
		for i, tx := range x.Txs {
			rec.Txs = append(rec.Txs, TxRecord{Hash: tx.ID(), Blob: x.TxBlobs[i]})
		}
		c.recs = append(c.recs, rec)
		c.blocks = append(c.blocks, x.Block)
		c.txs = append(c.txs, x.Txs)
	}
	regtestCache[path] = c
	return c
}

func regtest(t testing.TB) *regtestChain { return loadExport(t, "blockchain.raw") }

// openFast is openTemp without fsync: for stores that only build
// expectations or whose durability is not under test.
func openFast(t testing.TB) *DB {
	t.Helper()
	db, _ := openTemp(t)
	db.bolt.NoSync = true
	return db
}

func appendAll(t testing.TB, db *DB, recs []BlockRecord) {
	t.Helper()
	for i := range recs {
		if err := db.Append(recs[i]); err != nil {
			t.Fatalf("append height %d: %v", recs[i].Meta.Height, err)
		}
	}
}

// mainChainDump is dump without the alternative blocks and their counter:
// what a store holding only the main chain would hold.
func mainChainDump(t testing.TB, db *DB) map[string]string {
	t.Helper()
	d := dump(t, db)
	for k := range d {
		if len(k) > len(bucketAltBlocks) && k[:len(bucketAltBlocks)+1] == string(bucketAltBlocks)+"/" {
			delete(d, k)
		}
	}
	delete(d, string(bucketInfo)+"/"+string(infoAltBlockCount))
	return d
}

// diffDumps describes the first differences between two dumps, or "".
func diffDumps(a, b map[string]string) string {
	var keys []string
	for k := range a {
		if b[k] != a[k] {
			keys = append(keys, k)
		}
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return ""
	}
	sort.Strings(keys)
	out := ""
	for i, k := range keys {
		if i == 5 {
			out += "..."
			break
		}
		_, inA := a[k]
		_, inB := b[k]
		out += "\n" + describeKey(k) + ": "
		switch {
		case !inB:
			out += "only in the first"
		case !inA:
			out += "only in the second"
		default:
			out += "values differ"
		}
	}
	return out
}

func describeKey(k string) string {
	for i := range len(k) {
		if k[i] == '/' {
			return k[:i] + "/" + hexString(k[i+1:])
		}
	}
	return hexString(k)
}

func hexString(s string) string {
	const digits = "0123456789abcdef"
	b := make([]byte, 0, 2*len(s))
	for i := range len(s) {
		b = append(b, digits[s[i]>>4], digits[s[i]&15])
	}
	return string(b)
}

// checkMatchesFresh asserts that db's main chain, with every index, is byte
// for byte what appending its blocks to an empty store gives.
func checkMatchesFresh(t testing.TB, db *DB) {
	t.Helper()
	var recs []BlockRecord
	err := db.View(func(r *Reader) error {
		height, err := r.Height()
		if err != nil {
			return err
		}
		for h := range height {
			rec, err := readRecord(r, h)
			if err != nil {
				return err
			}
			recs = append(recs, rec)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	fresh := openFast(t)
	appendAll(t, fresh, recs)
	if d := diffDumps(mainChainDump(t, db), mainChainDump(t, fresh)); d != "" {
		t.Fatalf("store differs from a fresh append of its %d blocks:%s", len(recs), d)
	}
}

// expectedIndexes recomputes, without the store, monerod's numbering of the
// chain recs: per tx hash (miner txs too) the amount and index of each
// output, the per-amount counts, the amount-0 count after each block, and
// the height spending each key image.
type expectedIndexes struct {
	txAmounts map[cryptonote.Hash][]uint64
	txIndexes map[cryptonote.Hash][]uint64
	counts    map[uint64]uint64
	rctUpTo   []uint64
	spent     map[cryptonote.Key]uint64
}

func expectIndexes(t testing.TB, c *regtestChain, n int) *expectedIndexes {
	t.Helper()
	e := &expectedIndexes{
		txAmounts: map[cryptonote.Hash][]uint64{},
		txIndexes: map[cryptonote.Hash][]uint64{},
		counts:    map[uint64]uint64{},
		spent:     map[cryptonote.Key]uint64{},
	}
	add := func(h cryptonote.Hash, tx *cryptonote.Transaction) {
		for _, o := range tx.Outputs {
			a := o.Amount
			if tx.Version >= 2 {
				a = 0
			}
			e.txAmounts[h] = append(e.txAmounts[h], a)
			e.txIndexes[h] = append(e.txIndexes[h], e.counts[a])
			e.counts[a]++
		}
		if _, ok := e.txIndexes[h]; !ok {
			e.txIndexes[h] = []uint64{}
		}
	}
	for i := range n {
		rec := &c.recs[i]
		add(rec.Meta.MinerTxHash, &c.blocks[i].MinerTx)
		for j, tx := range c.txs[i] {
			add(rec.Txs[j].Hash, tx)
			for _, in := range tx.Inputs {
				if k, ok := in.(cryptonote.TxInToKey); ok {
					e.spent[k.KeyImage] = uint64(i)
				}
			}
		}
		e.rctUpTo = append(e.rctUpTo, e.counts[0])
	}
	return e
}
