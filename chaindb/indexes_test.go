package chaindb

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"slices"
	"testing"

	"filippo.io/edwards25519"

	"github.com/gonero/gonero/cryptonote"
)

const genesisAmount = 17592186044415

func TestRegtestIndexes(t *testing.T) {
	c := regtest(t)
	if len(c.recs) != 300 {
		t.Fatalf("regtest chain has %d blocks, want 300", len(c.recs))
	}
	db := openFast(t)
	appendAll(t, db, c.recs)
	want := expectIndexes(t, c, len(c.recs))

	// Independent count of amount-0 outputs: v2 miner txs and RingCT txs.
	var rctOutputs, nonCoinbase uint64
	for i := range c.recs {
		if c.blocks[i].MinerTx.Version >= 2 {
			rctOutputs += uint64(len(c.blocks[i].MinerTx.Outputs))
		}
		for _, tx := range c.txs[i] {
			nonCoinbase++
			if tx.Version < 2 || tx.Rct == nil || tx.Rct.Type == cryptonote.RctTypeNull {
				t.Fatalf("height %d: regtest tx is not RingCT", i)
			}
			rctOutputs += uint64(len(tx.Outputs))
		}
	}
	if nonCoinbase != 10 {
		t.Fatalf("%d non-coinbase txs, README says 10", nonCoinbase)
	}

	err := db.View(func(r *Reader) error {
		if n, err := r.OutputCount(0); err != nil || n != rctOutputs {
			t.Fatalf("OutputCount(0) = %d, %v; want %d", n, err, rctOutputs)
		}
		// The genesis v1 miner output sits under its amount, alone.
		if n, err := r.OutputCount(genesisAmount); err != nil || n != 1 {
			t.Fatalf("OutputCount(%d) = %d, %v; want 1", uint64(genesisAmount), n, err)
		}
		g, err := r.Output(genesisAmount, 0)
		if err != nil {
			t.Fatal(err)
		}
		genesisKey := c.blocks[0].MinerTx.Outputs[0].Target.(cryptonote.TxOutToKey).Key
		if g.Height != 0 || g.TxHash != c.recs[0].Meta.MinerTxHash || g.Key != genesisKey || g.Position != 0 ||
			g.Commitment != (cryptonote.Key{}) || g.UnlockTime != c.blocks[0].MinerTx.UnlockTime {
			t.Fatalf("genesis output = %+v", g)
		}
		for a, n := range want.counts {
			if got, err := r.OutputCount(a); err != nil || got != n {
				t.Fatalf("OutputCount(%d) = %d, %v; want %d", a, got, err, n)
			}
		}
		if n := bucketLen(r.tx, bucketOutputCounts); n != uint64(len(want.counts)) {
			t.Fatalf("%d amounts counted, want %d", n, len(want.counts))
		}

		// Every tx's indexes, miner txs included, and each output's entry.
		for i := range c.recs {
			check := func(h cryptonote.Hash, tx *cryptonote.Transaction, miner bool) {
				got, err := r.TxOutputIndexes(h)
				if err != nil {
					t.Fatalf("height %d tx %s: %v", i, h, err)
				}
				if !slices.Equal(got, want.txIndexes[h]) {
					t.Fatalf("height %d tx %s: indexes %v, want %v", i, h, got, want.txIndexes[h])
				}
				for k := 1; k < len(got); k++ {
					if want.txAmounts[h][k] == want.txAmounts[h][k-1] && got[k] != got[k-1]+1 {
						t.Fatalf("height %d tx %s: indexes %v not consecutive", i, h, got)
					}
				}
				for k, idx := range got {
					o, err := r.Output(want.txAmounts[h][k], idx)
					if err != nil {
						t.Fatal(err)
					}
					var wantKey cryptonote.Key
					switch tg := tx.Outputs[k].Target.(type) {
					case cryptonote.TxOutToKey:
						wantKey = tg.Key
					case cryptonote.TxOutToTaggedKey:
						wantKey = tg.Key
					}
					if o.TxHash != h || o.Position != uint32(k) || o.Height != uint64(i) || o.Key != wantKey ||
						o.UnlockTime != tx.UnlockTime || o.Index != idx {
						t.Fatalf("height %d tx %s output %d: entry %+v", i, h, k, o)
					}
					var wantCommit cryptonote.Key
					switch {
					case tx.Version < 2:
					case miner:
						wantCommit = independentZeroCommit(t, tx.Outputs[k].Amount)
					default:
						wantCommit = tx.Rct.OutPk[k]
					}
					if o.Commitment != wantCommit {
						t.Fatalf("height %d tx %s output %d: commitment %s, want %s", i, h, k, o.Commitment, wantCommit)
					}
				}
			}
			check(c.recs[i].Meta.MinerTxHash, &c.blocks[i].MinerTx, true)
			for j, tx := range c.txs[i] {
				check(c.recs[i].Txs[j].Hash, tx, false)
			}
			if n, err := r.RctOutputsUpTo(uint64(i)); err != nil || n != want.rctUpTo[i] {
				t.Fatalf("RctOutputsUpTo(%d) = %d, %v; want %d", i, n, err, want.rctUpTo[i])
			}
		}
		if _, err := r.RctOutputsUpTo(300); !errors.Is(err, ErrNotFound) {
			t.Fatalf("RctOutputsUpTo above the top: %v", err)
		}
		if _, err := r.Output(0, rctOutputs); !errors.Is(err, ErrNotFound) {
			t.Fatalf("Output past the count: %v", err)
		}
		if _, err := r.TxOutputIndexes(cryptonote.Hash{1}); !errors.Is(err, ErrNotFound) {
			t.Fatalf("TxOutputIndexes of an unknown tx: %v", err)
		}

		// The key images of the 10 txs, each at its block's height.
		if len(want.spent) == 0 {
			t.Fatal("no key images in the chain")
		}
		for ki, h := range want.spent {
			got, spent, err := r.KeyImageSpent(ki)
			if err != nil || !spent || got != h {
				t.Fatalf("KeyImageSpent(%s) = %d, %v, %v; want height %d", ki, got, spent, err, h)
			}
		}
		if n := bucketLen(r.tx, bucketSpentKeys); n != uint64(len(want.spent)) {
			t.Fatalf("%d key images stored, want %d", n, len(want.spent))
		}
		if _, spent, err := r.KeyImageSpent(cryptonote.Key{7}); spent || err != nil {
			t.Fatalf("an unknown key image is spent: %v, %v", spent, err)
		}
		for _, h := range []uint64{201, 212, 218, 290} {
			if len(c.txs[h]) == 0 {
				t.Fatalf("README lists txs at height %d, the export has none", h)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// independentZeroCommit computes G + a·H by adding a·H to the base point,
// not by the double-scalar multiplication the store uses.
func independentZeroCommit(t testing.TB, amount uint64) cryptonote.Key {
	t.Helper()
	hb, _ := cryptonote.ParseHash("8b655970153799af2aeadc9ff1add0ea6c7251d54154cfa92c173a0dd39c1f94")
	h, err := new(edwards25519.Point).SetBytes(hb[:])
	if err != nil {
		t.Fatal(err)
	}
	var b [32]byte
	for i := range 8 {
		b[i] = byte(amount >> (8 * i))
	}
	s, err := edwards25519.NewScalar().SetCanonicalBytes(b[:])
	if err != nil {
		t.Fatal(err)
	}
	p := new(edwards25519.Point).ScalarMult(s, h)
	p.Add(p, edwards25519.NewGeneratorPoint())
	return cryptonote.Key(p.Bytes())
}

// TestRingMembersResolve: every CLSAG ring member of the chain's txs is an
// amount-0 output that existed before the tx's block (absolute indexes are
// the prefix sums of the key offsets).
func TestRingMembersResolve(t *testing.T) {
	c := regtest(t)
	db := openFast(t)
	members := 0
	for i := range c.recs {
		if len(c.txs[i]) > 0 {
			err := db.View(func(r *Reader) error {
				count, err := r.OutputCount(0)
				if err != nil {
					return err
				}
				if upTo, err := r.RctOutputsUpTo(uint64(i - 1)); err != nil || upTo != count {
					t.Fatalf("RctOutputsUpTo(%d) = %d, %v; OutputCount(0) = %d", i-1, upTo, err, count)
				}
				for j, tx := range c.txs[i] {
					for k, in := range tx.Inputs {
						key := in.(cryptonote.TxInToKey)
						if key.Amount != 0 {
							t.Fatalf("height %d tx %d input %d: amount %d", i, j, k, key.Amount)
						}
						abs := make([]uint64, len(key.KeyOffsets))
						var sum uint64
						for m, off := range key.KeyOffsets {
							sum += off
							abs[m] = sum
							if sum >= count {
								t.Fatalf("height %d tx %d input %d: member %d has index %d, only %d outputs before the block", i, j, k, m, sum, count)
							}
						}
						outs, err := r.Outputs(0, abs)
						if err != nil {
							t.Fatalf("height %d tx %d input %d: %v", i, j, k, err)
						}
						for m, o := range outs {
							if o.Index != abs[m] || o.Height >= uint64(i) || o.Commitment == (cryptonote.Key{}) {
								t.Fatalf("height %d tx %d input %d member %d: %+v", i, j, k, m, o)
							}
							members++
						}
					}
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
		}
		if err := db.Append(c.recs[i]); err != nil {
			t.Fatal(err)
		}
	}
	if members < 10*16 {
		t.Fatalf("only %d ring members checked", members)
	}
	t.Logf("%d ring members resolved", members)
}

// TestSyntheticIndexes covers what the regtest chain lacks: v1 txs and v1
// miner txs under many amounts, txs without outputs (their key images still
// count), tagged and untagged keys.
func TestSyntheticIndexes(t *testing.T) {
	db := openFast(t)
	const n = 120
	appendSynth(t, db, seedMain, 0, n)
	counts := map[uint64]uint64{}
	var withoutOutputs, keyImages int
	err := db.View(func(r *Reader) error {
		var rct uint64
		for h := range uint64(n) {
			rec := synthBlock(seedMain, h)
			blk, err := cryptonote.ParseBlock(rec.Blob)
			if err != nil {
				t.Fatal(err)
			}
			txs := []*cryptonote.Transaction{&blk.MinerTx}
			hashes := []cryptonote.Hash{rec.Meta.MinerTxHash}
			for _, tr := range rec.Txs {
				tx, err := cryptonote.ParseTransaction(tr.Blob)
				if err != nil {
					t.Fatal(err)
				}
				txs = append(txs, tx)
				hashes = append(hashes, tr.Hash)
			}
			for i, tx := range txs {
				got, err := r.TxOutputIndexes(hashes[i])
				if err != nil {
					t.Fatal(err)
				}
				if len(got) != len(tx.Outputs) {
					t.Fatalf("height %d tx %d: %d indexes for %d outputs", h, i, len(got), len(tx.Outputs))
				}
				if len(tx.Outputs) == 0 {
					withoutOutputs++
				}
				for k, o := range tx.Outputs {
					a := o.Amount
					if tx.Version >= 2 {
						a = 0
						rct++
					}
					if got[k] != counts[a] {
						t.Fatalf("height %d tx %d output %d: index %d, want %d", h, i, k, got[k], counts[a])
					}
					counts[a]++
				}
				for _, in := range tx.Inputs {
					if k, ok := in.(cryptonote.TxInToKey); ok {
						sh, spent, err := r.KeyImageSpent(k.KeyImage)
						if err != nil || !spent || sh != h {
							t.Fatalf("height %d: key image %s: %d, %v, %v", h, k.KeyImage, sh, spent, err)
						}
						keyImages++
					}
				}
			}
			if got, err := r.RctOutputsUpTo(h); err != nil || got != rct {
				t.Fatalf("RctOutputsUpTo(%d) = %d, %v; want %d", h, got, err, rct)
			}
		}
		for a, want := range counts {
			if got, err := r.OutputCount(a); err != nil || got != want {
				t.Fatalf("OutputCount(%d) = %d, %v; want %d", a, got, err, want)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(counts) < 4 || withoutOutputs == 0 || keyImages == 0 || counts[0] == 0 {
		t.Fatalf("synthetic chain too tame: %d amounts, %d txs without outputs, %d key images", len(counts), withoutOutputs, keyImages)
	}
	checkMatchesFresh(t, db)
}

// TestPopAppendMatchesFresh: random pops and appends over the regtest chain,
// with Reorganize now and then, always end byte for byte where a fresh
// append of the final chain ends.
func TestPopAppendMatchesFresh(t *testing.T) {
	c := regtest(t)
	recs := c.recs
	// Fresh dumps for every prefix length would be costly; build them lazily.
	freshDumps := map[int]map[string]string{}
	fresh := func(n int) map[string]string {
		if d, ok := freshDumps[n]; ok {
			return d
		}
		db := openFast(t)
		appendAll(t, db, recs[:n])
		d := mainChainDump(t, db)
		_ = db.Close()
		freshDumps[n] = d
		return d
	}
	db := openFast(t)
	height := 0
	rng := rand.New(rand.NewPCG(5, 6))
	rounds := 40
	if testing.Short() {
		rounds = 10
	}
	for round := range rounds {
		switch op := rng.IntN(3); {
		case op == 0 && height > 0: // pop a few
			k := 1 + rng.IntN(min(height, 40))
			for range k {
				if _, err := db.PopTop(); err != nil {
					t.Fatal(err)
				}
			}
			height -= k
		case op == 1 && height > 1: // reorganize onto the same blocks
			k := 1 + rng.IntN(min(height-1, 40))
			popped, err := db.Reorganize(Reorg{Pop: uint64(k), Append: recs[height-k : height]})
			if err != nil {
				t.Fatal(err)
			}
			if len(popped) != k || popped[0].Meta.Height != uint64(height-k) {
				t.Fatalf("Reorganize popped %d blocks from %d", len(popped), popped[0].Meta.Height)
			}
		default: // append a few
			k := rng.IntN(min(len(recs)-height, 80) + 1)
			appendAll(t, db, recs[height:height+k])
			height += k
		}
		if d := diffDumps(mainChainDump(t, db), fresh(height)); d != "" {
			t.Fatalf("round %d, height %d: store differs from a fresh append:%s", round, height, d)
		}
	}
	// And all the way down and up again.
	for height > 0 {
		if _, err := db.PopTop(); err != nil {
			t.Fatal(err)
		}
		height--
	}
	for k := range dump(t, db) {
		if k[:len(bucketInfo)+1] != string(bucketInfo)+"/" {
			t.Fatalf("entry %q left after popping everything", describeKey(k))
		}
	}
	appendAll(t, db, recs)
	if d := diffDumps(mainChainDump(t, db), fresh(len(recs))); d != "" {
		t.Fatalf("after a full pop and re-append:%s", d)
	}
}

// TestReorganizeOntoForkMatchesFresh switches between two real branches of
// the regtest chain (monerod's own fork file) and back.
func TestReorganizeOntoForkMatchesFresh(t *testing.T) {
	long := loadExport(t, "wallet", "blockchain-after-sweep.raw") // 313 blocks, txs at 300, 301, 312
	fork := loadExport(t, "wallet", "blockchain-fork.raw")        // 303 blocks, forks after 299
	if fork.recs[299].Meta.Hash != long.recs[299].Meta.Hash || fork.recs[300].Meta.Hash == long.recs[300].Meta.Hash {
		t.Fatal("the fork file does not fork after height 299")
	}
	freshOf := func(recs []BlockRecord) map[string]string {
		db := openFast(t)
		appendAll(t, db, recs)
		return mainChainDump(t, db)
	}
	db := openFast(t)
	appendAll(t, db, long.recs)
	if _, err := db.Reorganize(Reorg{Pop: 13, KeepPopped: true, Append: fork.recs[300:]}); err != nil {
		t.Fatal(err)
	}
	if d := diffDumps(mainChainDump(t, db), freshOf(fork.recs)); d != "" {
		t.Fatalf("on the fork:%s", d)
	}
	// Back, taking the popped blocks out of the alternative store.
	popped, err := db.Reorganize(Reorg{Pop: 3, KeepPopped: true, DeleteAlts: hashesOf(long.recs[300:]), Append: long.recs[300:]})
	if err != nil {
		t.Fatal(err)
	}
	if len(popped) != 3 {
		t.Fatalf("popped %d blocks", len(popped))
	}
	if d := diffDumps(mainChainDump(t, db), freshOf(long.recs)); d != "" {
		t.Fatalf("back on the long chain:%s", d)
	}
	checkConsistent(t, db)
}

// forgeBlock builds the record of a block at height on top of prev that
// carries the given tx blobs under made-up hashes (chaindb checks no tx id
// and no signature).
func forgeBlock(t testing.TB, c *regtestChain, prev BlockMeta, blobs ...[]byte) BlockRecord {
	t.Helper()
	blk, err := cryptonote.ParseBlock(c.recs[len(c.recs)-1].Blob)
	if err != nil {
		t.Fatal(err)
	}
	height := prev.Height + 1
	blk.PrevID = prev.Hash
	blk.MinerTx.Inputs = []cryptonote.TxIn{cryptonote.TxInGen{Height: height}}
	blk.TxHashes = nil
	rec := BlockRecord{Meta: BlockMeta{Height: height, PrevHash: prev.Hash, MinerTxHash: blk.MinerTx.ID()}}
	rec.Meta.Hash = cryptonote.Keccak256([]byte("forged"), prev.Hash[:])
	for i, b := range blobs {
		h := cryptonote.Keccak256([]byte("forged tx"), prev.Hash[:], []byte{byte(i)})
		rec.Txs = append(rec.Txs, TxRecord{Hash: h, Blob: b})
		blk.TxHashes = append(blk.TxHashes, h)
	}
	rec.Blob = blk.Serialize()
	rec.Meta.BlobSize = uint64(len(rec.Blob))
	rec.Meta.NumTxes = uint64(len(rec.Txs))
	return rec
}

func TestDoubleSpendsAreRefused(t *testing.T) {
	c := regtest(t)
	db := openFast(t)
	appendAll(t, db, c.recs)
	top := c.recs[len(c.recs)-1].Meta
	spentTx := c.recs[201].Txs[0].Blob
	tx, err := cryptonote.ParseTransaction(spentTx)
	if err != nil {
		t.Fatal(err)
	}
	ki := tx.Inputs[0].(cryptonote.TxInToKey).KeyImage
	before := dump(t, db)

	// Against the chain: the tx of block 201 again, under another hash.
	var e *ErrKeyImageSpent
	err = db.Append(forgeBlock(t, c, top, spentTx))
	if !errors.As(err, &e) || e.KeyImage != ki || e.Height != 201 || e.InBlock {
		t.Fatalf("replayed tx: err = %v", err)
	}
	sameDump(t, "replayed tx", before, dump(t, db))

	// Inside one block, on a chain where the tx is not spent yet: pop to 201
	// and offer a block holding the tx twice.
	fork := openFast(t)
	appendAll(t, fork, c.recs[:201])
	forkBefore := dump(t, fork)
	twice := forgeBlock(t, c, c.recs[200].Meta, spentTx, spentTx)
	err = fork.Append(twice)
	if !errors.As(err, &e) || e.KeyImage != ki || e.Height != 201 || !e.InBlock {
		t.Fatalf("tx twice in a block: err = %v", err)
	}
	sameDump(t, "tx twice in a block", forkBefore, dump(t, fork))
	// Once is fine there, and its key images are then spent at 201.
	once := forgeBlock(t, c, c.recs[200].Meta, spentTx)
	if err := fork.Append(once); err != nil {
		t.Fatal(err)
	}
	if err := fork.View(func(r *Reader) error {
		h, spent, err := r.KeyImageSpent(ki)
		if err != nil || !spent || h != 201 {
			t.Fatalf("KeyImageSpent = %d, %v, %v", h, spent, err)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}

	// A reorganisation whose second block double-spends the first's input
	// fails whole.
	b1 := forgeBlock(t, c, top, c.recs[290].Txs[0].Blob) // spent at 290
	if _, err := db.Reorganize(Reorg{Pop: 1, Append: []BlockRecord{c.recs[299], b1}}); !errors.As(err, &e) || e.Height != 290 {
		t.Fatalf("reorganize with a double spend: err = %v", err)
	}
	sameDump(t, "refused reorganisation", before, dump(t, db))
	checkMatchesFresh(t, db)
}

func TestUpdate(t *testing.T) {
	c := regtest(t)
	db := openFast(t)
	appendAll(t, db, c.recs[:200])
	before := dump(t, db)
	boom := errors.New("boom")

	// Writes are visible inside, and an error rolls every one of them back.
	err := db.Update(func(w *Writer) error {
		for _, rec := range c.recs[200:202] {
			if err := w.Append(rec); err != nil {
				return err
			}
		}
		if h, err := w.Height(); err != nil || h != 202 {
			t.Fatalf("Height inside = %d, %v", h, err)
		}
		ki := c.txs[201][0].Inputs[0].(cryptonote.TxInToKey).KeyImage
		if h, spent, err := w.KeyImageSpent(ki); err != nil || !spent || h != 201 {
			t.Fatalf("KeyImageSpent inside = %d, %v, %v", h, spent, err)
		}
		if _, err := w.TxOutputIndexes(c.recs[201].Txs[0].Hash); err != nil {
			t.Fatal(err)
		}
		// A refused append inside leaves the transaction as it was.
		err := w.Append(forgeBlock(t, c, c.recs[201].Meta, c.recs[201].Txs[0].Blob))
		var e *ErrKeyImageSpent
		if !errors.As(err, &e) {
			t.Fatalf("double spend inside: %v", err)
		}
		if h, _ := w.Height(); h != 202 {
			t.Fatalf("height after a refusal inside = %d", h)
		}
		popped, err := w.PopTop()
		if err != nil || popped.Meta.Height != 201 {
			t.Fatalf("PopTop inside: %v", err)
		}
		if _, spent, _ := w.KeyImageSpent(ki); spent {
			t.Fatal("key image still spent after the pop inside")
		}
		if err := w.PutAltBlock(popped); err != nil {
			t.Fatal(err)
		}
		if !w.HasAltBlock(popped.Meta.Hash) {
			t.Fatal("alt block not visible inside")
		}
		if err := w.DeleteAltBlock(popped.Meta.Hash); err != nil {
			t.Fatal(err)
		}
		if err := w.PutAltBlock(popped); err != nil {
			t.Fatal(err)
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("Update returned %v", err)
	}
	sameDump(t, "rolled-back update", before, dump(t, db))

	// Committed when fn returns nil.
	err = db.Update(func(w *Writer) error {
		for _, rec := range c.recs[200:] {
			if err := w.Append(rec); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	checkMatchesFresh(t, db)
	if h := checkConsistent(t, db); h != 300 {
		t.Fatalf("height %d", h)
	}
}

func TestInvalidBlobsAreRefused(t *testing.T) {
	db := openFast(t)
	appendSynth(t, db, seedMain, 0, 10)
	before := dump(t, db)
	next := func() BlockRecord { return synthBlock(seedMain, 10) }
	withTxs := func() BlockRecord {
		for s := uint64(100); ; s++ {
			r := synthBlock(s, 10)
			if len(r.Txs) > 0 {
				r.Meta.PrevHash = synthHash(seedMain, 9)
				return r
			}
		}
	}
	cases := map[string]func() BlockRecord{
		"garbage block blob": func() BlockRecord {
			r := next()
			r.Blob = []byte{1, 2, 3}
			r.Meta.BlobSize = 3
			return r
		},
		"tx hash not in the block": func() BlockRecord { r := withTxs(); r.Txs[0].Hash[0] ^= 1; return r },
		"garbage tx blob":          func() BlockRecord { r := withTxs(); r.Txs[0].Blob = []byte{2, 0}; return r },
		"miner tx hash already on chain": func() BlockRecord {
			r := next()
			r.Meta.MinerTxHash = synthBlock(seedMain, 3).Meta.MinerTxHash
			return r
		},
		"tx hash equal to the miner tx hash": func() BlockRecord {
			r := withTxs()
			r.Meta.MinerTxHash = r.Txs[0].Hash
			return r
		},
	}
	for name, mk := range cases {
		err := db.Append(mk())
		var inv *ErrInvalidRecord
		if !errors.As(err, &inv) {
			t.Errorf("%s: err = %v (%T)", name, err, err)
		} else {
			t.Logf("%s: %v", name, err)
		}
		sameDump(t, name, before, dump(t, db))
	}
}

func TestCorruptIndexesAreReported(t *testing.T) {
	c := regtest(t)
	db, path := openTemp(t)
	db.bolt.NoSync = true
	appendAll(t, db, c.recs)
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	topMiner := c.recs[299].Meta.MinerTxHash
	ki := c.txs[290][0].Inputs[0].(cryptonote.TxInToKey).KeyImage
	setRaw(t, path, bucketRctOutputs, rctKey(5), []byte{rctOutputsLayout, 1})
	setRaw(t, path, bucketOutputCounts, amountKey(genesisAmount), []byte{1})
	setRaw(t, path, bucketSpentKeys, spentKey(&ki), []byte{0x81})
	setRaw(t, path, bucketTxIndex, txIndexKey(&topMiner), []byte{0x81, 0x02, 0, indexListRun, 9})
	setRaw(t, path, bucketRctCounts, heightKey(7), nil)

	db, err := Open(path, Options{Network: testNetwork})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	err = db.View(func(r *Reader) error {
		for what, err := range map[string]error{
			"Output":          second(r.Output(0, 5)),
			"Outputs":         second(r.Outputs(0, []uint64{4, 5})),
			"OutputCount":     second(r.OutputCount(genesisAmount)),
			"KeyImageSpent":   func() error { _, _, err := r.KeyImageSpent(ki); return err }(),
			"TxOutputIndexes": second(r.TxOutputIndexes(topMiner)),
			"RctOutputsUpTo":  second(r.RctOutputsUpTo(7)),
		} {
			var ce *ErrCorrupt
			if !errors.As(err, &ce) {
				t.Errorf("%s: err = %v, want *ErrCorrupt", what, err)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// The top block's tx_outputs entry is wrong: the pop refuses whole.
	before := dump(t, db)
	var ce *ErrCorrupt
	if _, err := db.PopTop(); !errors.As(err, &ce) {
		t.Fatalf("PopTop over a corrupt index: err = %v", err)
	}
	sameDump(t, "refused pop", before, dump(t, db))
}

// TestOutputLayoutIsFixed pins the output entry layout (3): layout byte,
// then uvarints height, tx slot, position and the output's place in the
// tx; and the rct_outputs layout (1): layout byte, uvarint height, then a
// group per tx: uvarints slot, count, commitments' place (0: inline), the
// outputs' positions and places, the inline commitments.
func TestOutputLayoutIsFixed(t *testing.T) {
	o := OutputEntry{Amount: 5, Key: cryptonote.Key{0x11}, Commitment: cryptonote.Key{0x22},
		UnlockTime: 0x0102, Height: 0x0304, TxHash: cryptonote.Hash{0x33}, Position: 0x05060708, slot: 3, outOff: 0x90}
	if v := encodeOutput(&o); !bytes.Equal(v, []byte{outputLayout, 0x84, 0x06, 0x03, 0x88, 0x8e, 0x98, 0x28, 0x90, 0x01}) {
		t.Fatalf("clear entry: %x", v)
	}
	if k := outputKey(0x0102, 3); k[7] != 2 || k[6] != 1 || k[15] != 3 {
		t.Fatalf("output key %x", k)
	}
	rct := encodeRctOutputs(0x0304, []OutputEntry{
		{slot: 0, Position: 0, outOff: 0x45, Commitment: cryptonote.Key{0x22}},
		{slot: 2, Position: 0, outOff: 0x90, commitOff: 0x0400},
		{slot: 2, Position: 1, outOff: 0xb2, commitOff: 0x0420},
	})
	want := append([]byte{rctOutputsLayout, 0x84, 0x06, 0, 1, 0, 0, 0x45, 0x22}, make([]byte, 31)...)
	want = append(want, 2, 2, 0x80, 0x08, 0, 0x90, 0x01, 1, 0xb2, 0x01)
	if !bytes.Equal(rct, want) {
		t.Fatalf("rct outputs:\n%x\nwant\n%x", rct, want)
	}
}
