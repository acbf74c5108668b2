package chain

import (
	"errors"
	"github.com/gonero/gonero/chainexport"
	"github.com/gonero/gonero/internal/testutil"
	"io"
	"math/rand/v2"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gonero/gonero/chaindb"
	"github.com/gonero/gonero/consensus"
	"github.com/gonero/gonero/cryptonote"
	"github.com/gonero/gonero/params"
	"github.com/gonero/gonero/params/blockhashes"
)

// v1BlockOn is a version-1 block at height h on prev (mainnet's first era),
// paying amount to one v1 output.
func v1BlockOn(prev cryptonote.Hash, h, ts uint64, nonce uint32, amount uint64) *cryptonote.Block {
	blk := &cryptonote.Block{}
	blk.MajorVersion, blk.MinorVersion = 1, 0
	blk.Timestamp, blk.PrevID, blk.Nonce = ts, prev, nonce
	blk.MinerTx = cryptonote.Transaction{
		Version: 1, UnlockTime: h + 60,
		Inputs:  []cryptonote.TxIn{cryptonote.TxInGen{Height: h}},
		Outputs: []cryptonote.TxOut{{Amount: amount, Target: cryptonote.TxOutToKey{}}},
		Extra:   []byte{},
	}
	return blk
}

// On mainnet the hard-coded checkpoints are enforced: a block 1 other than
// the real one (whose id is the checkpoint at height 1) is refused after its
// proof of work, with the store unchanged. On testnet and stagenet, whose
// tables monerod gives the wallet only, the same kind of block is accepted.
func TestCheckpointsEnforcedOnMainnetOnly(t *testing.T) {
	for _, net := range []params.Network{params.Mainnet, params.Testnet, params.Stagenet} {
		t.Run(net.String(), func(t *testing.T) {
			c, db := openAt(t, filepath.Join(t.TempDir(), "c.db"), Config{Network: net})
			defer db.Close()
			ts := c.Top().Timestamp + 60
			c.cfg.Now = func() time.Time { return time.Unix(int64(ts), 0) }
			blk := v1BlockOn(c.Top().Hash, 1, ts, 7, 1)
			_, err := c.AddBlock(blk, blk.Serialize(), nil, nil)
			var ae *consensus.MinerTxAmountError
			if errors.As(err, &ae) {
				blk = v1BlockOn(c.Top().Hash, 1, ts, 7, ae.Reward+ae.Fees)
				_, err = c.AddBlock(blk, blk.Serialize(), nil, nil)
			}
			if net != params.Mainnet {
				if err != nil {
					t.Fatalf("%s enforces a checkpoint monerod leaves to the wallet: %v", net, err)
				}
				return
			}
			if !errors.Is(err, ErrCheckpoint) {
				t.Fatalf("a false mainnet block 1: %v, want ErrCheckpoint", err)
			}
			if c.Height() != 1 {
				t.Fatalf("height %d after a refused block", c.Height())
			}
		})
	}
}

// buildChain adds n synthetic blocks (regtest, difficulty as configured)
// and returns them, genesis excluded.
func buildChain(t *testing.T, c *Chain, n int) []*cryptonote.Block {
	t.Helper()
	var out []*cryptonote.Block
	for i := 0; i < n; i++ {
		h := c.Height()
		_, blk, err := addOn(c, c.Top().Hash, h, c.Top().Timestamp+120, 0)
		if err != nil {
			t.Fatalf("block %d: %v", h, err)
		}
		out = append(out, blk)
	}
	return out
}

func regtestAt(t *testing.T, cfg Config) *Chain {
	t.Helper()
	cfg.Network = params.Regtest
	if cfg.FixedDifficulty == 0 {
		cfg.FixedDifficulty = 1
	}
	if cfg.Now == nil {
		cfg.Now = func() time.Time { return time.Unix(2e9, 0) }
	}
	c, db := openAt(t, filepath.Join(t.TempDir(), "c.db"), cfg)
	t.Cleanup(func() { db.Close() })
	return c
}

// docs/mainnet.md §2.2 with a test table on regtest: a main-chain block at a checkpoint
// height must carry its id; an alternative block at or below the newest
// checkpoint passed is refused (and height 0 always), above it accepted,
// so a heavier fork reorganises the chain only above the checkpoint.
func TestCheckpointRules(t *testing.T) {
	src := regtestAt(t, Config{})
	blocks := buildChain(t, src, 12)
	id := func(b *cryptonote.Block) cryptonote.Hash { return mustID(b) }

	// Wrong id at a checkpoint height: refused, store unchanged.
	wrong := regtestAt(t, Config{Checkpoints: []params.Checkpoint{{Height: 5, ID: cryptonote.Keccak256([]byte("not block 5"))}}})
	for _, b := range blocks[:4] {
		if _, err := wrong.AddBlock(b, b.Serialize(), nil, nil); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := wrong.AddBlock(blocks[4], blocks[4].Serialize(), nil, nil); !errors.Is(err, ErrCheckpoint) {
		t.Fatalf("block 5 against a false checkpoint: %v", err)
	}
	if wrong.Height() != 5 {
		t.Fatalf("height %d", wrong.Height())
	}

	c := regtestAt(t, Config{Checkpoints: []params.Checkpoint{{Height: 5, ID: id(blocks[4])}, {Height: 40, ID: cryptonote.Hash{1}}}})
	for _, b := range blocks {
		if _, err := c.AddBlock(b, b.Serialize(), nil, nil); err != nil {
			t.Fatal(err)
		}
	}
	// Height 13 now; the newest checkpoint passed is 5.
	altOn := func(parent int) error { // an alternative block at height parent+1
		_, _, err := addOn(c, id(blocks[parent-1]), uint64(parent+1), blocks[parent-1].Timestamp+60, 99)
		return err
	}
	for _, parent := range []int{3, 4} { // heights 4 and 5
		if err := altOn(parent); !errors.Is(err, ErrAltBelowCheckpoint) {
			t.Fatalf("alternative block at height %d: %v", parent+1, err)
		}
	}
	g := synthOn(c.HashAt(0), 0, blocks[0].Timestamp, 5, 1) // claims height 0
	if _, err := c.Add(g, g.Serialize(), nil, nil); !errors.Is(err, ErrAltBelowCheckpoint) {
		t.Fatalf("alternative block at height 0: %v", err)
	}
	if err := altOn(5); err != nil { // height 6, above the checkpoint
		t.Fatalf("alternative block at height 6: %v", err)
	}
	if c.Height() != 13 || c.HashAt(12) != id(blocks[11]) {
		t.Fatal("the main chain moved")
	}
	var be *BlockError
	if err := altOn(4); !errors.As(err, &be) || be.Rule != RuleCheckpoint {
		t.Fatalf("rule of the refusal: %v", err)
	}
}

// countingPoW counts its calls and returns the all-ones hash, which meets
// no difficulty above 1: a block needing PoW fails, one that skips it passes.
type countingPoW struct{ calls atomic.Int64 }

func (p *countingPoW) Hash(seed [32]byte, input []byte) ([32]byte, error) {
	p.calls.Add(1)
	return noPoW, nil
}

var noPoW = func() (h [32]byte) {
	for i := range h {
		h[i] = 0xff
	}
	return
}()

// fastChain is a regtest chain of n blocks at difficulty 1000 whose PoW a
// zero-hash hasher accepted, and its block-hash list.
func fastChain(t *testing.T, n int) ([]*cryptonote.Block, *blockhashes.List, *Chain) {
	t.Helper()
	src := regtestAt(t, Config{FixedDifficulty: 1000, PoW: zeroHash{}})
	blocks := buildChain(t, src, n)
	var metas []chaindb.BlockMeta
	if err := src.Store().View(func(r *chaindb.Reader) error {
		for h := uint64(0); h < src.Height(); h++ {
			m, err := r.MetaByHeight(h)
			if err != nil {
				return err
			}
			metas = append(metas, m)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	l, err := blockhashes.Generate(src.Height(), func(h uint64) (cryptonote.Hash, uint64, error) {
		return metas[h].Hash, metas[h].Weight, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return blocks, l, src
}

func ids(blocks []*cryptonote.Block) []cryptonote.Hash {
	out := make([]cryptonote.Hash, len(blocks))
	for i, b := range blocks {
		out[i] = mustID(b)
	}
	return out
}

// docs/mainnet.md §7.2, item 4: with a list covering the chain, blocks whose ids a chain entry
// proved are added without computing their proof of work (a hasher that
// fails every block is never called); a block with another id at a proved
// height is refused; heights without a proved id, and every block when fast
// sync is off, are verified fully (and fail here, proving the PoW runs).
func TestFastSyncSkipsPoWOnlyForProvedIDs(t *testing.T) {
	const n = 2*blockhashes.GroupSize + 40
	blocks, list, src := fastChain(t, n)
	if len(list.Groups) != 2 {
		t.Fatalf("%d groups", len(list.Groups))
	}
	all := append([]cryptonote.Hash{src.HashAt(0)}, ids(blocks)...)

	// Fast sync off: the first block needs its PoW, which fails.
	pow := &countingPoW{}
	off := regtestAt(t, Config{FixedDifficulty: 1000, PoW: pow})
	if _, err := off.AddBlock(blocks[0], blocks[0].Serialize(), nil, nil); !errors.Is(err, consensus.ErrInsufficientPoW) || blockRule(err) != RuleProofOfWork {
		t.Fatalf("without fast sync: %v", err)
	}

	pow = &countingPoW{}
	c := regtestAt(t, Config{FixedDifficulty: 1000, PoW: pow, BlockHashes: list})
	if !c.InBlockHashArea(c.Height()) || c.InBlockHashArea(list.Heights()) {
		t.Fatal("InBlockHashArea")
	}
	// Nothing proved yet: block 1 is verified fully.
	if _, err := c.AddBlock(blocks[0], blocks[0].Serialize(), nil, nil); !errors.Is(err, consensus.ErrInsufficientPoW) || pow.calls.Load() != 1 {
		t.Fatalf("unproved block: %v (%d PoW calls)", err, pow.calls.Load())
	}
	// A chain entry from the top (height 0) with one false id in the second
	// group: the first group is proved, the rest is not usable.
	entry := append([]cryptonote.Hash(nil), all...)
	entry[blockhashes.GroupSize+3][0] ^= 1
	usable, err := c.PrevalidateBlockHashes(0, entry, nil)
	if err != nil || usable != blockhashes.GroupSize {
		t.Fatalf("usable %d, %v; want %d", usable, err, blockhashes.GroupSize)
	}
	// A weight list that does not match fails the first group.
	weights := make([]uint64, len(all))
	if usable, err := c.PrevalidateBlockHashes(0, all, weights); err != nil || usable != 0 {
		t.Fatalf("false weights: usable %d, %v", usable, err)
	}
	// A block with another id at a proved height: refused, PoW not even run.
	forged := synthOn(all[0], 1, blocks[0].Timestamp, 12345, blocks[0].MinerTx.Outputs[0].Amount)
	if _, err := c.AddBlock(forged, forged.Serialize(), nil, nil); !errors.Is(err, ErrBlockHashList) || blockRule(err) != RuleBlockHashList {
		t.Fatalf("forged block at a proved height: %v", err)
	}
	calls := pow.calls.Load()
	for _, b := range blocks[:blockhashes.GroupSize-1] {
		if _, err := c.AddBlock(b, b.Serialize(), nil, nil); err != nil {
			t.Fatalf("proved block: %v", err)
		}
	}
	if pow.calls.Load() != calls {
		t.Fatalf("%d PoW computations for proved blocks", pow.calls.Load()-calls)
	}
	// Height 512 was not proved (its group held the false id): full check.
	if _, err := c.AddBlock(blocks[511], blocks[511].Serialize(), nil, nil); !errors.Is(err, consensus.ErrInsufficientPoW) {
		t.Fatalf("block 512, unproved: %v", err)
	}
	// The genuine entry from the top (ids below fill the group) proves it.
	usable, err = c.PrevalidateBlockHashes(c.Height()-1, all[c.Height()-1:], src.weightsFrom(t, c.Height()-1))
	if err != nil || usable != uint64(len(all))-(c.Height()-1) {
		t.Fatalf("genuine entry: usable %d of %d, %v", usable, len(all)-int(c.Height()-1), err)
	}
	for _, b := range blocks[blockhashes.GroupSize-1 : 2*blockhashes.GroupSize-1] {
		if _, err := c.AddBlock(b, b.Serialize(), nil, nil); err != nil {
			t.Fatalf("proved block: %v", err)
		}
	}
	if pow.calls.Load() != calls+1 || !c.InBlockHashArea(c.Height()-1) || c.InBlockHashArea(c.Height()) {
		t.Fatalf("after the list: %d PoW calls, height %d", pow.calls.Load()-calls, c.Height())
	}
	// Past the list: full verification again.
	if _, err := c.AddBlock(blocks[2*blockhashes.GroupSize-1], blocks[2*blockhashes.GroupSize-1].Serialize(), nil, nil); !errors.Is(err, consensus.ErrInsufficientPoW) {
		t.Fatalf("block past the list: %v", err)
	}
}

// weightsFrom reads the main chain's weights from height h to the top.
func (c *Chain) weightsFrom(t *testing.T, h uint64) []uint64 {
	var out []uint64
	if err := c.Store().View(func(r *chaindb.Reader) error {
		for ; h < c.Height(); h++ {
			m, err := r.MetaByHeight(h)
			if err != nil {
				return err
			}
			out = append(out, m.Weight)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

// Blocks with real transactions (the regtest chain of testdata, monerod-mined)
// whose ids a chain entry proved are added without their transactions'
// RingCT semantics and signatures being verified; the same blocks added
// without the list are verified (the verified cache shows which ran).
func TestFastSyncSkipsTxVerification(t *testing.T) {
	rd, err := chainexport.Open(testutil.Path(t, "testdata", "regtest", "blockchain.raw"))
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	var recs []*chainexport.Record
	for {
		rec, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, rec)
	}
	// A full verifier, extended with synthetic blocks to one whole group.
	full := regtestAt(t, Config{})
	txs := 0
	for _, rec := range recs[1:] {
		if _, err := full.AddBlock(rec.Block, rec.BlockBlob, rec.Txs, rec.TxBlobs); err != nil {
			t.Fatal(err)
		}
		txs += len(rec.Txs)
	}
	if txs == 0 || cacheSize(full) == 0 {
		t.Fatalf("%d transactions, %d verified-cache entries: nothing to compare", txs, cacheSize(full))
	}
	buildChain(t, full, blockhashes.GroupSize-len(recs))
	list, err := blockhashes.Generate(full.Height(), func(h uint64) (cryptonote.Hash, uint64, error) {
		var m chaindb.BlockMeta
		err := full.Store().View(func(r *chaindb.Reader) error {
			var err error
			m, err = r.MetaByHeight(h)
			return err
		})
		return m.Hash, m.Weight, err
	})
	if err != nil {
		t.Fatal(err)
	}
	fast := regtestAt(t, Config{BlockHashes: list})
	entry := make([]cryptonote.Hash, full.Height())
	for h := range entry {
		entry[h] = full.HashAt(uint64(h))
	}
	if usable, err := fast.PrevalidateBlockHashes(0, entry, full.weightsFrom(t, 0)); err != nil || usable != uint64(len(entry)) {
		t.Fatalf("usable %d, %v", usable, err)
	}
	for _, rec := range recs[1:] {
		if _, err := fast.AddBlock(rec.Block, rec.BlockBlob, rec.Txs, rec.TxBlobs); err != nil {
			t.Fatal(err)
		}
	}
	if n := cacheSize(fast); n != 0 {
		t.Fatalf("%d transactions verified inside the proved area", n)
	}
	if fast.Top().Hash != full.HashAt(uint64(len(recs)-1)) {
		t.Fatal("the fast chain's top differs")
	}
}

func cacheSize(c *Chain) int {
	return c.verified.rct.Len() + c.verified.sigs.Len()
}

// Whatever a chain entry holds, PrevalidateBlockHashes never calls more ids
// usable than it was given, and records nothing from ids that match no group.
func TestPrevalidateBounds(t *testing.T) {
	l := &blockhashes.List{Groups: make([]blockhashes.Group, 3)}
	for i := range l.Groups {
		l.Groups[i].IDs = cryptonote.Keccak256([]byte{byte(i)})
	}
	c := regtestAt(t, Config{BlockHashes: l})
	rng := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		height := rng.Uint64N(4 * blockhashes.GroupSize)
		n := rng.IntN(3*blockhashes.GroupSize) + 1
		ids := make([]cryptonote.Hash, n)
		for i := range ids {
			ids[i][0], ids[i][1] = byte(rng.Uint32()), byte(rng.Uint32())
		}
		usable, err := c.PrevalidateBlockHashes(height, ids, nil)
		if err != nil || usable > uint64(n) {
			t.Fatalf("height %d, %d ids: usable %d, %v", height, n, usable, err)
		}
	}
	if len(c.fast.expected) != 0 {
		t.Fatalf("%d heights recorded from random ids", len(c.fast.expected))
	}
}

// blockRule is the rule of the BlockError in err's chain (0 if none).
func blockRule(err error) BlockRule {
	var be *BlockError
	if errors.As(err, &be) {
		return be.Rule
	}
	return 0
}
