package consensus

import (
	"errors"
	"fmt"
	"runtime"
	"testing"

	"github.com/gonero/gonero/cryptonote"
	"github.com/gonero/gonero/ringct"
)

// A panic in one input's check (parallel's workers, or its inline path
// with one core) is that check's error: a refusal with RuleVerifierPanic
// holding the stack, the lowest failing index as for any error, and the
// caller goes on.
func TestParallelRecoversPanics(t *testing.T) {
	for _, procs := range []int{1, 2} {
		t.Run(fmt.Sprint("GOMAXPROCS=", procs), func(t *testing.T) {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
			err := parallel(20, func(i int) error {
				if i == 7 {
					panic("injected input panic")
				}
				if i == 12 {
					return errors.New("input 12")
				}
				return nil
			})
			pe := PanicOf(err)
			if RuleOf(err) != RuleVerifierPanic || FlagsOf(err) != 0 || pe == nil || pe.Value != "injected input panic" || len(pe.Stack) == 0 {
				t.Fatalf("got %v (rule %q, panic %v), want the refusal of the panicking input", err, RuleOf(err), pe)
			}
			if !errors.Is(err, ErrVerifierPanic) {
				t.Fatalf("%v does not unwrap to ErrVerifierPanic", err)
			}
		})
	}
}

// A range-proof batch verifier that panics on one transaction's proof
// refuses that transaction alone (RuleVerifierPanic); the others of the
// batch pass, and a verifier that answers false still gives the ordinary
// refusal.
func TestRctBatchPanicRefusesOnlyItsTransaction(t *testing.T) {
	txs := []*cryptonote.Transaction{regtestTx(t, 201, 0), regtestTx(t, 212, 0), regtestTx(t, 218, 0)}
	poisoned, refused := txs[1].Rct.OutPk[0], txs[2].Rct.OutPk[0]
	has := func(items []ringct.BulletproofPlusItem, k cryptonote.Key) bool {
		for _, it := range items {
			if it.Commitments[0] == k {
				return true
			}
		}
		return false
	}
	v := rangeVerifiers{
		bp: func([]ringct.BulletproofItem) bool { panic("no Bulletproof in these transactions") },
		bpp: func(items []ringct.BulletproofPlusItem) bool {
			if has(items, poisoned) {
				panic("injected range-proof panic")
			}
			return !has(items, refused) && ringct.VerifyBulletproofsPlus(items)
		},
	}
	errs := checkRctSemantics(txs, v)
	if errs[0] != nil {
		t.Errorf("transaction 0: %v, want it to pass", errs[0])
	}
	if RuleOf(errs[1]) != RuleVerifierPanic || PanicOf(errs[1]) == nil {
		t.Errorf("transaction 1: %v, want the verifier's panic as its refusal", errs[1])
	}
	if RuleOf(errs[2]) != RuleRctSemantics || PanicOf(errs[2]) != nil {
		t.Errorf("transaction 2: %v, want the ordinary range-proof refusal", errs[2])
	}
}
