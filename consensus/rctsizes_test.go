package consensus

import (
	"strings"
	"testing"

	"github.com/gonero/gonero/chainexport"
	"github.com/gonero/gonero/cryptonote"
	"github.com/gonero/gonero/internal/testutil"
)

// regtestTx is transaction i of block h of the regtest chain of testdata.
func regtestTx(t *testing.T, h uint64, i int) *cryptonote.Transaction {
	t.Helper()
	rd, err := chainexport.Open(testutil.Path(t, "testdata", "regtest", "blockchain.raw"))
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	if err := rd.Skip(h); err != nil {
		t.Fatal(err)
	}
	rec, err := rd.Next()
	if err != nil {
		t.Fatal(err)
	}
	tx, err := cryptonote.ParseTransaction(rec.TxBlobs[i])
	if err != nil {
		t.Fatal(err)
	}
	return tx
}

// A Bulletproof+ proof must have the rounds of the outputs it covers
// (monerod: "Mismatched sizes of outPk and bulletproofs_plus"), a size
// check verRctSemanticsSimple makes before the balance: a transaction with
// an output dropped (the proof for two kept) is refused for the sizes, not
// the balance.
func TestRctSemanticsProofSizeBeforeBalance(t *testing.T) {
	tx := regtestTx(t, 201, 0)
	if errs := CheckRctSemantics([]*cryptonote.Transaction{tx}); errs[0] != nil {
		t.Fatalf("the original transaction: %v", errs[0])
	}
	tx.Outputs = tx.Outputs[:1]
	tx.Rct.EcdhInfo = tx.Rct.EcdhInfo[:1]
	tx.Rct.OutPk = tx.Rct.OutPk[:1]
	err := CheckRctSemantics([]*cryptonote.Transaction{tx})[0]
	if RuleOf(err) != RuleRctSemantics || !strings.Contains(err.Error(), "mismatched sizes of outPk and bulletproofs") {
		t.Fatalf("one output with a two-output proof: %v", err)
	}

	// Rounds that do not pair up, or too many for the outputs.
	for name, mutate := range map[string]func(p *cryptonote.BulletproofPlus){
		"R one short":    func(p *cryptonote.BulletproofPlus) { p.R = p.R[:len(p.R)-1] },
		"an extra round": func(p *cryptonote.BulletproofPlus) { p.L = append(p.L, p.L[0]); p.R = append(p.R, p.R[0]) },
		"a round short":  func(p *cryptonote.BulletproofPlus) { p.L, p.R = p.L[:len(p.L)-1], p.R[:len(p.R)-1] },
	} {
		tx := regtestTx(t, 201, 0)
		mutate(&tx.Rct.Prunable.BulletproofsPlus[0])
		err := CheckRctSemantics([]*cryptonote.Transaction{tx})[0]
		if RuleOf(err) != RuleRctSemantics || !strings.Contains(err.Error(), "mismatched sizes of outPk and bulletproofs") {
			t.Errorf("%s: %v", name, err)
		}
	}
}
