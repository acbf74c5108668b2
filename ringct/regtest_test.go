package ringct

import (
	"io"
	"testing"

	"github.com/gonero/gonero/chainexport"
	"github.com/gonero/gonero/crypto"
	"github.com/gonero/gonero/cryptonote"
	"github.com/gonero/gonero/internal/testutil"
)

func outputKey(t testing.TB, o cryptonote.TxOut) [32]byte {
	t.Helper()
	switch tg := o.Target.(type) {
	case cryptonote.TxOutToKey:
		return tg.Key
	case cryptonote.TxOutToTaggedKey:
		return tg.Key
	}
	t.Fatalf("output target %T", o.Target)
	return [32]byte{}
}

// TestRegtestCLSAG walks the regtest chain, builds the amount-0 output list
// as monerod indexes it (v2 miner outputs with zeroCommit(amount), then each
// transaction's outputs with their outPk, in block order), and verifies
// every input of the chain's RingCT transactions against rings resolved
// from that list.
func TestRegtestCLSAG(t *testing.T) {
	rd, err := chainexport.Open(testutil.Path(t, "testdata", "regtest", "blockchain.raw"))
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	var outs []RingMember
	txs, inputs := 0, 0
	heights := map[uint64]int{}
	for {
		rec, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		// Verify this block's txs against the outputs before the block.
		for _, tx := range rec.Txs {
			if tx.Version != 2 || tx.Rct == nil || tx.Rct.Type != cryptonote.RctTypeBulletproofPlus {
				t.Fatalf("height %d: unexpected tx version %d", rec.Height, tx.Version)
			}
			msg, err := MessageHash(tx)
			if err != nil {
				t.Fatal(err)
			}
			p := tx.Rct.Prunable
			for i, in := range tx.Inputs {
				k := in.(cryptonote.TxInToKey)
				ring := make([]RingMember, len(k.KeyOffsets))
				idx := uint64(0)
				for j, off := range k.KeyOffsets {
					idx += off
					if idx >= uint64(len(outs)) {
						t.Fatalf("height %d: ring index %d beyond %d outputs", rec.Height, idx, len(outs))
					}
					ring[j] = outs[idx]
				}
				if err := VerifyCLSAG(msg, ring, p.PseudoOuts[i], k.KeyImage, &p.CLSAGs[i]); err != nil {
					t.Errorf("height %d tx %s input %d: %v", rec.Height, tx.ID(), i, err)
				}
				if !crypto.CheckKeyImage(k.KeyImage[:]) {
					t.Errorf("height %d: key image refused", rec.Height)
				}
				inputs++
			}
			if !CheckBalance(p.PseudoOuts, tx.Rct.OutPk, tx.Rct.TxnFee) {
				t.Errorf("height %d tx %s: balance", rec.Height, tx.ID())
			}
			txs++
			heights[rec.Height]++
		}
		// Then index the block's outputs.
		if mt := &rec.Block.MinerTx; mt.Version == 2 {
			for _, o := range mt.Outputs {
				outs = append(outs, RingMember{Dest: outputKey(t, o), Mask: crypto.ZeroCommit(o.Amount)})
			}
		}
		for _, tx := range rec.Txs {
			for j, o := range tx.Outputs {
				if o.Amount != 0 {
					t.Fatalf("height %d: RingCT output with amount %d", rec.Height, o.Amount)
				}
				outs = append(outs, RingMember{Dest: outputKey(t, o), Mask: tx.Rct.OutPk[j]})
			}
		}
	}
	if txs != 10 || len(heights) != 4 || heights[201] != 3 || heights[212] != 1 || heights[218] != 2 || heights[290] != 4 {
		t.Fatalf("verified %d txs at heights %v; want 10 at 201, 212, 218, 290", txs, heights)
	}
	t.Logf("%d txs, %d inputs verified; %d amount-0 outputs", txs, inputs, len(outs))
}
