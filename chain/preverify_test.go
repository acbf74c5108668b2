package chain_test

import (
	"errors"
	"testing"
	"time"

	"github.com/gonero/gonero/chain"
	"github.com/gonero/gonero/chainexport"
	"github.com/gonero/gonero/consensus"
	"github.com/gonero/gonero/cryptonote"
	"github.com/gonero/gonero/params"
)

// withTx returns a copy of rec whose k-th transaction is changed by edit,
// with the block's tx_hashes following (so that only the transaction's own
// rules can refuse it).
func withTx(t *testing.T, rec *chainexport.Record, k int, edit func(tx *cryptonote.Transaction)) *chainexport.Record {
	t.Helper()
	tx, err := cryptonote.ParseTransaction(rec.TxBlobs[k])
	if err != nil {
		t.Fatal(err)
	}
	edit(tx)
	blob := tx.Serialize()
	if tx, err = cryptonote.ParseTransaction(blob); err != nil {
		t.Fatal(err)
	}
	out := tampered(t, rec, func(b *cryptonote.Block) { b.TxHashes[k] = tx.ID() })
	out.Txs = append([]*cryptonote.Transaction(nil), rec.Txs...)
	out.TxBlobs = append([][]byte(nil), rec.TxBlobs...)
	out.Txs[k], out.TxBlobs[k] = tx, blob
	return out
}

// TestPreverifyKeepsVerdicts: checking blocks ahead with Preverify (as the
// importer does) changes no verdict. The regtest chain adds the same with
// and without it, and a block with a bad CLSAG or a bad range proof is
// refused with the same error, naming the block, whether or not it was
// preverified (and the genuine block still goes in after it).
func TestPreverifyKeepsVerdicts(t *testing.T) {
	recs := regtestRecords(t)
	now := time.Unix(int64(recs[len(recs)-1].Block.Timestamp), 0)
	const at = 201 // three CLSAG/BP+ transactions
	target := recs[at]
	if len(target.Txs) == 0 || target.Txs[0].Rct == nil || len(target.Txs[0].Rct.Prunable.CLSAGs) == 0 {
		t.Fatal("block 201 should hold CLSAG transactions")
	}
	badSig := withTx(t, target, 0, func(tx *cryptonote.Transaction) { tx.Rct.Prunable.CLSAGs[0].S[3][0] ^= 1 })
	badProof := withTx(t, target, 1, func(tx *cryptonote.Transaction) { tx.Rct.Prunable.BulletproofsPlus[0].R1[0] ^= 1 })

	refusals := map[bool][]string{}
	var tops []cryptonote.Hash
	for _, pre := range []bool{false, true} {
		c, _ := openChain(t, chain.Config{Network: params.Regtest, FixedDifficulty: 1, Now: func() time.Time { return now }})
		preverify := func(rec *chainexport.Record) {
			if pre {
				c.Preverify(rec.Block, rec.Txs, rec.TxBlobs)
			}
		}
		for h := 1; h < len(recs); h++ {
			if h == at {
				for _, bad := range []struct {
					rec  *chainexport.Record
					want error
				}{{badSig, consensus.ErrSignature}, {badProof, consensus.ErrRctSemantics}} {
					preverify(bad.rec)
					err := add(c, bad.rec)
					var be *chain.BlockError
					if !errors.Is(err, bad.want) || !errors.As(err, &be) || be.Height != at {
						t.Fatalf("preverify %v: got %v, want %v at height %d", pre, err, bad.want, at)
					}
					refusals[pre] = append(refusals[pre], err.Error())
				}
			}
			// The importer's order: the blocks ahead first, then this one.
			for k := h; k < min(h+5, len(recs)); k++ {
				preverify(recs[k])
			}
			if err := add(c, recs[h]); err != nil {
				t.Fatalf("preverify %v: block %d: %v", pre, h, err)
			}
		}
		tops = append(tops, c.Top().Hash)
	}
	if tops[0] != tops[1] {
		t.Fatalf("tops differ: %s without, %s with Preverify", tops[0], tops[1])
	}
	for i := range refusals[false] {
		if refusals[false][i] != refusals[true][i] {
			t.Errorf("refusal %d: %q without, %q with Preverify", i, refusals[false][i], refusals[true][i])
		}
	}
	t.Logf("refusals: %q", refusals[true])
}
