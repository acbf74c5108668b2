package chain

import (
	"errors"
	"math/big"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/gonero/gonero/chaindb"
	"github.com/gonero/gonero/consensus"
	"github.com/gonero/gonero/cryptonote"
	"github.com/gonero/gonero/params"
)

type zeroHash struct{}

func (zeroHash) Hash(seed [32]byte, input []byte) ([32]byte, error) { return [32]byte{}, nil }

func mkBlock(c *Chain, h, ts, amount uint64) *cryptonote.Block {
	blk := &cryptonote.Block{}
	blk.MajorVersion, blk.MinorVersion = 16, 16
	blk.Timestamp = ts
	blk.PrevID = c.Top().Hash
	blk.MinerTx = cryptonote.Transaction{
		Version: 2, UnlockTime: h + 60,
		Inputs:  []cryptonote.TxIn{cryptonote.TxInGen{Height: h}},
		Outputs: []cryptonote.TxOut{{Amount: amount, Target: cryptonote.TxOutToTaggedKey{}}},
		Extra:   []byte{},
		Rct:     &cryptonote.RctSig{Type: 0},
	}
	return blk
}

// addAt adds a block with timestamp ts, fixing the reward amount; returns the error of the final attempt.
func addAt(c *Chain, ts uint64) error {
	h := c.Height()
	blk := mkBlock(c, h, ts, 1)
	_, err := c.AddBlock(blk, blk.Serialize(), nil, nil)
	var ae *consensus.MinerTxAmountError
	if errors.As(err, &ae) {
		blk = mkBlock(c, h, ts, ae.Reward+ae.Fees)
		_, err = c.AddBlock(blk, blk.Serialize(), nil, nil)
	}
	return err
}

// docDifficulty is docs/chain-format.md §7 computed from the store with big ints.
func docDifficulty(t *testing.T, db *chaindb.DB, h uint64) *big.Int {
	var metas []chaindb.BlockMeta
	start := uint64(1)
	if h > 735 {
		start = h - 735
	}
	if start >= h {
		return big.NewInt(1)
	}
	db.View(func(r *chaindb.Reader) error { var err error; metas, err = r.MetasInRange(start, h); return err })
	if len(metas) > 720 {
		metas = metas[:720]
	}
	n := len(metas)
	if n <= 1 {
		return big.NewInt(1)
	}
	ts := make([]uint64, n)
	for i, m := range metas {
		ts[i] = m.Timestamp
	}
	slices.Sort(ts)
	lo, hi := 0, n
	if n > 600 {
		lo = (n - 600 + 1) / 2
		hi = lo + 600
	}
	span := ts[hi-1] - ts[lo]
	if span == 0 {
		span = 1
	}
	cd := func(m chaindb.BlockMeta) *big.Int {
		x := new(big.Int).SetUint64(m.CumulativeDifficulty.Hi)
		x.Lsh(x, 64)
		return x.Add(x, new(big.Int).SetUint64(m.CumulativeDifficulty.Lo))
	}
	work := new(big.Int).Sub(cd(metas[hi-1]), cd(metas[lo]))
	d := new(big.Int).Mul(work, big.NewInt(120))
	d.Add(d, new(big.Int).SetUint64(span-1))
	return d.Div(d, new(big.Int).SetUint64(span))
}

func docMedianTS(db *chaindb.DB, h uint64) (uint64, bool) {
	if h < 60 {
		return 0, false
	}
	var metas []chaindb.BlockMeta
	db.View(func(r *chaindb.Reader) error { var err error; metas, err = r.MetasInRange(h-60, h); return err })
	ts := []uint64{}
	for _, m := range metas {
		ts = append(ts, m.Timestamp)
	}
	return consensus.Median(ts), true
}

// An 820-block chain under the real difficulty algorithm (a PoW hasher
// whose hashes meet any difficulty), restarted at heights that rebuild the
// in-memory windows from the store: every stored difficulty and the
// next-block figures at the 60-, 100- and 735-block window boundaries equal
// an independent big-integer reading of docs/chain-format.md §7, and a timestamp
// one below the median is refused at every boundary.
func TestLongChainWindowsAndRestarts(t *testing.T) {
	path := filepath.Join(t.TempDir(), "chain.db")
	db, err := chaindb.Open(path, chaindb.Options{Network: params.Regtest.String()})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Unix(1<<40, 0)
	cfg := Config{Network: params.Regtest, PoW: zeroHash{}, Now: func() time.Time { return now }}
	c, err := Open(db, cfg)
	if err != nil {
		t.Fatal(err)
	}
	const T0 = 1_700_000_000
	boundaries := map[uint64]bool{58: true, 59: true, 60: true, 61: true, 99: true, 100: true, 101: true, 734: true, 735: true, 736: true, 737: true, 800: true}
	prevTS := uint64(T0)
	for h := uint64(1); h < 820; h++ {
		if h == 400 || h == 736 || h == 750 { // restart: rebuild the windows from the store
			db.Close()
			if db, err = chaindb.Open(path, chaindb.Options{Network: params.Regtest.String()}); err != nil {
				t.Fatal(err)
			}
			if c, err = Open(db, cfg); err != nil {
				t.Fatal(err)
			}
		}
		if boundaries[h] {
			if med, ok := docMedianTS(db, h); ok {
				if err := addAt(c, med-1); !errors.Is(err, consensus.ErrTimestampTooOld) {
					t.Fatalf("h=%d: timestamp median-1 gave %v", h, err)
				}
			}
			nb := c.NextBlockFacts()
			if want := docDifficulty(t, db, h); nb.Difficulty.Lo != want.Uint64() {
				t.Fatalf("h=%d: NextBlockFacts difficulty %v, doc %v", h, nb.Difficulty, want)
			}
		}
		step := uint64(3 + (h*37)%23)
		if h > 500 {
			step = 100 + (h*7919)%301
		}
		prevTS += step
		ts := prevTS
		if h%97 == 0 {
			ts = prevTS - 2*step // an out-of-order timestamp, still above the median
		}
		if err := addAt(c, ts); err != nil {
			t.Fatalf("h=%d: %v", h, err)
		}
		want := docDifficulty(t, db, h)
		got := c.Top().Difficulty
		if h%100 == 0 {
			t.Logf("h=%d difficulty %v", h, got)
		}
		if got.Hi != 0 || got.Lo != want.Uint64() {
			t.Fatalf("h=%d: difficulty %v, doc algorithm %v", h, got, want)
		}
	}
	t.Logf("820 blocks: difficulties match the doc algorithm; top difficulty %v", c.Top().Difficulty)
	db.Close()
}
