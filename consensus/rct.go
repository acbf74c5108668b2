package consensus

import (
	"cmp"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/gonero/gonero/crypto"
	"github.com/gonero/gonero/cryptonote"
	"github.com/gonero/gonero/ringct"
)

// The RingCT rules: semantics (what core::handle_incoming_tx_accumulated_batch
// checks of a transaction alone, range proofs batched across transactions)
// and the signatures (the end of Blockchain::check_tx_inputs).

// ErrRctSemantics and ErrSignature are the sentinels of the two checks.
var (
	ErrRctSemantics = errors.New("rct signature semantics check failed")
	ErrSignature    = errors.New("failed to check ring signatures")
)

func semanticsErr(format string, args ...any) error {
	return txErr(RuleRctSemantics, 0, &detail{ErrRctSemantics, fmt.Sprintf(format, args...)})
}

// detail is the particulars of a refusal whose rule names the sentinel:
// it prints only the particulars and unwraps to the sentinel.
type detail struct {
	sentinel error
	text     string
}

func (d *detail) Error() string { return d.text }
func (d *detail) Unwrap() error { return d.sentinel }

// CheckRctSemantics checks the RingCT semantics of v2 transactions: the
// layout and sizes, the balance Σ pseudo-outputs = Σ outputs + fee·H (types
// 2–6), and the range proofs — Borromean per output, Bulletproofs and
// Bulletproofs+ of every transaction given as one batch. It returns one
// error per transaction (nil: passed; v1 transactions always pass). When the
// batch fails, each transaction's proofs are checked alone to find which. A
// verifier that panics refuses the transactions it was verifying alone
// (Recovered), never the caller.
func CheckRctSemantics(txs []*cryptonote.Transaction) []error {
	return checkRctSemantics(txs, rangeVerifiers{ringct.VerifyBulletproofs, ringct.VerifyBulletproofsPlus})
}

// rangeVerifiers are the batch verifiers CheckRctSemantics runs (tests
// inject failing and panicking ones).
type rangeVerifiers struct {
	bp  func([]ringct.BulletproofItem) bool
	bpp func([]ringct.BulletproofPlusItem) bool
}

func checkRctSemantics(txs []*cryptonote.Transaction, v rangeVerifiers) []error {
	errs := make([]error, len(txs))
	var bpIdx, bppIdx []int
	var bps []ringct.BulletproofItem
	var bpps []ringct.BulletproofPlusItem
	for i, tx := range txs {
		if tx.Version < 2 {
			continue
		}
		rv := tx.Rct
		if rv == nil {
			errs[i] = semanticsErr("v2 transaction without RingCT data")
			continue
		}
		if err := rctSizes(tx); err != nil {
			errs[i] = err
			continue
		}
		switch rv.Type {
		case cryptonote.RctTypeFull, cryptonote.RctTypeSimple:
			if rv.Type == cryptonote.RctTypeSimple && !ringct.CheckBalance(rv.PseudoOuts, rv.OutPk, rv.TxnFee) {
				errs[i] = semanticsErr("pseudo-outputs do not balance outputs and fee")
				continue
			}
			for j := range rv.OutPk {
				if err := ringct.VerifyBorromean(rv.OutPk[j], &rv.Prunable.RangeSigs[j]); err != nil {
					errs[i] = semanticsErr("range proof of output %d: %v", j, err)
					break
				}
			}
		case cryptonote.RctTypeBulletproof, cryptonote.RctTypeBulletproof2, cryptonote.RctTypeCLSAG:
			if !ringct.CheckBalance(rv.Prunable.PseudoOuts, rv.OutPk, rv.TxnFee) {
				errs[i] = semanticsErr("pseudo-outputs do not balance outputs and fee")
				continue
			}
			bpIdx = append(bpIdx, i)
			bps = append(bps, ringct.BulletproofItem{Proof: &rv.Prunable.Bulletproofs[0], Commitments: rv.OutPk})
		case cryptonote.RctTypeBulletproofPlus:
			if !ringct.CheckBalance(rv.Prunable.PseudoOuts, rv.OutPk, rv.TxnFee) {
				errs[i] = semanticsErr("pseudo-outputs do not balance outputs and fee")
				continue
			}
			bppIdx = append(bppIdx, i)
			bpps = append(bpps, ringct.BulletproofPlusItem{Proof: &rv.Prunable.BulletproofsPlus[0], Commitments: rv.OutPk})
		default:
			errs[i] = semanticsErr("RingCT type %d on a non-coinbase transaction", rv.Type)
		}
	}
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		checkBatch(len(bps), func(sel []int) bool {
			items := make([]ringct.BulletproofItem, len(sel))
			for k, j := range sel {
				items[k] = bps[j]
			}
			return v.bp(items)
		}, func(j int, panicked error) {
			errs[bpIdx[j]] = cmp.Or(panicked, semanticsErr("bulletproof range proof does not verify"))
		})
	}()
	go func() {
		defer wg.Done()
		checkBatch(len(bpps), func(sel []int) bool {
			items := make([]ringct.BulletproofPlusItem, len(sel))
			for k, j := range sel {
				items[k] = bpps[j]
			}
			return v.bpp(items)
		}, func(j int, panicked error) {
			errs[bppIdx[j]] = cmp.Or(panicked, semanticsErr("bulletproof+ range proof does not verify"))
		})
	}()
	wg.Wait()
	return errs
}

// checkBatch verifies n proofs as one batch and, if the batch fails or
// panics, each alone (a batch of one failing needs no second look),
// reporting the bad ones: panicked is nil for a proof that does not verify,
// the Recovered panic for one whose verifier panicked. (A batch that
// panicked while every proof alone passes refuses nothing.)
func checkBatch(n int, verify func(sel []int) bool, bad func(j int, panicked error)) {
	if n == 0 {
		return
	}
	try := func(sel []int) (ok bool, panicked error) {
		defer func() {
			if r := recover(); r != nil {
				ok, panicked = false, Recovered(r)
			}
		}()
		return verify(sel), nil
	}
	all := make([]int, n)
	for j := range all {
		all[j] = j
	}
	ok, panicked := try(all)
	if ok {
		return
	}
	if n == 1 {
		bad(0, panicked)
		return
	}
	for j := range n {
		if ok, panicked := try([]int{j}); !ok {
			bad(j, panicked)
		}
	}
}

// rctSizes is the size part of verRctSemanticsSimple and verRct(rv, true),
// with the canonical-layout rule of Bulletproof types (exactly one proof
// covering 1..16 outputs).
func rctSizes(tx *cryptonote.Transaction) error {
	rv := tx.Rct
	p := rv.Prunable
	if p == nil {
		return semanticsErr("pruned RingCT data cannot be verified")
	}
	if len(rv.OutPk) != len(rv.EcdhInfo) {
		return semanticsErr("%d commitments but %d encrypted amounts", len(rv.OutPk), len(rv.EcdhInfo))
	}
	switch rv.Type {
	case cryptonote.RctTypeFull:
		if len(rv.OutPk) != len(p.RangeSigs) {
			return semanticsErr("%d commitments but %d range proofs", len(rv.OutPk), len(p.RangeSigs))
		}
		if len(p.MGs) != 1 {
			return semanticsErr("type 1 needs exactly one MLSAG, has %d", len(p.MGs))
		}
	case cryptonote.RctTypeSimple:
		if len(rv.OutPk) != len(p.RangeSigs) {
			return semanticsErr("%d commitments but %d range proofs", len(rv.OutPk), len(p.RangeSigs))
		}
		if len(p.PseudoOuts) != 0 || len(rv.PseudoOuts) != len(p.MGs) || len(p.CLSAGs) != 0 {
			return semanticsErr("pseudo-outputs and MLSAGs do not match")
		}
	case cryptonote.RctTypeBulletproof, cryptonote.RctTypeBulletproof2, cryptonote.RctTypeCLSAG, cryptonote.RctTypeBulletproofPlus:
		plus := rv.Type == cryptonote.RctTypeBulletproofPlus
		var proofs, outputs int
		if plus {
			proofs = len(p.BulletproofsPlus)
			if len(p.Bulletproofs) != 0 {
				return semanticsErr("bulletproofs in a bulletproof+ transaction")
			}
		} else {
			proofs = len(p.Bulletproofs)
			if len(p.BulletproofsPlus) != 0 {
				return semanticsErr("bulletproofs+ in a bulletproof transaction")
			}
		}
		outputs = len(rv.OutPk)
		if proofs != 1 || outputs == 0 || outputs > BulletproofMaxOutputs {
			return semanticsErr("bulletproof does not have canonical form (%d proofs for %d outputs)", proofs, outputs)
		}
		// verRctSemanticsSimple's first check, before the balance:
		// outPk.size() == n_bulletproof(_plus)_amounts, the proof's V being
		// the outputs' commitments, so its L/R rounds must number
		// 6 + ceil(log2(outputs)) (n_bulletproof_amounts_base).
		var l, r int
		if plus {
			l, r = len(p.BulletproofsPlus[0].L), len(p.BulletproofsPlus[0].R)
		} else {
			l, r = len(p.Bulletproofs[0].L), len(p.Bulletproofs[0].R)
		}
		if l != r || l < 6 || l > 10 || outputs > 1<<(l-6) || 2*outputs <= 1<<(l-6) {
			return semanticsErr("mismatched sizes of outPk and bulletproofs: %d outputs, proof with %d L and %d R rounds", outputs, l, r)
		}
		if len(p.RangeSigs) != 0 || len(rv.PseudoOuts) != 0 {
			return semanticsErr("Borromean data or base pseudo-outputs in a bulletproof transaction")
		}
		clsag := rv.Type == cryptonote.RctTypeCLSAG || plus
		if clsag && (len(p.MGs) != 0 || len(p.PseudoOuts) != len(p.CLSAGs)) {
			return semanticsErr("pseudo-outputs and CLSAGs do not match")
		}
		if !clsag && (len(p.CLSAGs) != 0 || len(p.PseudoOuts) != len(p.MGs)) {
			return semanticsErr("pseudo-outputs and MLSAGs do not match")
		}
	}
	return nil
}

func sigErr(format string, args ...any) error {
	return txErr(RuleSignatures, 0, &detail{ErrSignature, fmt.Sprintf(format, args...)})
}

// VerifyTxSignatures checks a transaction's signatures over its resolved
// rings (CheckTxInputs' result): the v1 ring signature of every input, the
// one MLSAG of type 1, the MLSAG (types 2–4) or CLSAG (5, 6) of every input.
// Inputs are verified in parallel.
func VerifyTxSignatures(tx *cryptonote.Transaction, rings [][]RingOutput) error {
	if len(rings) != len(tx.Inputs) {
		return sigErr("%d rings for %d inputs", len(rings), len(tx.Inputs))
	}
	if tx.Version == 1 {
		prefix := [32]byte(tx.Hashes().PrefixHash)
		if len(tx.Signatures) != len(tx.Inputs) {
			return sigErr("%d signatures for %d inputs", len(tx.Signatures), len(tx.Inputs))
		}
		return parallel(len(tx.Inputs), func(i int) error {
			in := tx.Inputs[i].(cryptonote.TxInToKey)
			if len(tx.Signatures[i]) != len(rings[i]) {
				return sigErr("input %d: %d signatures for a ring of %d", i, len(tx.Signatures[i]), len(rings[i]))
			}
			pubs := make([][32]byte, len(rings[i]))
			for j, m := range rings[i] {
				pubs[j] = m.Key
			}
			sigs := make([][64]byte, len(tx.Signatures[i]))
			for j, s := range tx.Signatures[i] {
				sigs[j] = s
			}
			if !crypto.CheckRingSignature(prefix, in.KeyImage, pubs, sigs) {
				return sigErr("input %d: ring signature does not verify", i)
			}
			return nil
		})
	}
	rv := tx.Rct
	if rv == nil || rv.Prunable == nil {
		return sigErr("no RingCT signatures")
	}
	msg, err := ringct.MessageHash(tx)
	if err != nil {
		return sigErr("message: %v", err)
	}
	members := func(i int) []ringct.RingMember {
		ring := make([]ringct.RingMember, len(rings[i]))
		for j, m := range rings[i] {
			ring[j] = ringct.RingMember{Dest: m.Key, Mask: m.Commitment}
		}
		return ring
	}
	keyImage := func(i int) cryptonote.Key { return tx.Inputs[i].(cryptonote.TxInToKey).KeyImage }
	p := rv.Prunable
	switch rv.Type {
	case cryptonote.RctTypeNull:
		return sigErr("null RingCT signature on a non-coinbase transaction")
	case cryptonote.RctTypeFull:
		if len(p.MGs) != 1 {
			return sigErr("type 1 needs exactly one MLSAG")
		}
		all := make([][]ringct.RingMember, len(tx.Inputs))
		kis := make([][32]byte, len(tx.Inputs))
		for i := range tx.Inputs {
			all[i] = members(i)
			kis[i] = keyImage(i)
			if len(all[i]) != len(all[0]) {
				return sigErr("type 1 rings must all have one size")
			}
		}
		if err := ringct.VerifyMLSAGFull(msg, all, kis, rv.OutPk, rv.TxnFee, &p.MGs[0]); err != nil {
			return sigErr("MLSAG: %v", err)
		}
		return nil
	case cryptonote.RctTypeSimple, cryptonote.RctTypeBulletproof, cryptonote.RctTypeBulletproof2:
		pseudo := p.PseudoOuts
		if rv.Type == cryptonote.RctTypeSimple {
			pseudo = rv.PseudoOuts
		}
		if len(p.MGs) != len(tx.Inputs) || len(pseudo) != len(tx.Inputs) {
			return sigErr("mismatched MGs/vin sizes")
		}
		return parallel(len(tx.Inputs), func(i int) error {
			if err := ringct.VerifyMLSAGSimple(msg, members(i), pseudo[i], keyImage(i), &p.MGs[i]); err != nil {
				return sigErr("input %d: MLSAG: %v", i, err)
			}
			return nil
		})
	case cryptonote.RctTypeCLSAG, cryptonote.RctTypeBulletproofPlus:
		if len(p.CLSAGs) != len(tx.Inputs) || len(p.PseudoOuts) != len(tx.Inputs) {
			return sigErr("mismatched CLSAGs/vin sizes")
		}
		return parallel(len(tx.Inputs), func(i int) error {
			if err := ringct.VerifyCLSAG(msg, members(i), p.PseudoOuts[i], keyImage(i), &p.CLSAGs[i]); err != nil {
				return sigErr("input %d: CLSAG: %v", i, err)
			}
			return nil
		})
	}
	return sigErr("unsupported RingCT type %d", rv.Type)
}

// parallel runs f(0..n−1) and returns the error of the lowest index that
// failed. At most GOMAXPROCS goroutines run f, taking the indices in
// order: a transaction's inputs are CPU-bound checks, so more goroutines
// only add memory, and a transaction with thousands of inputs must not
// start thousands. Once an index failed no higher one is started; every
// lower one was already taken, so the lowest failing index is the same as
// if all had run. A panic in f(i) is f(i)'s error (Recovered), on every
// path.
func parallel(n int, f func(i int) error) error {
	workers := min(n, runtime.GOMAXPROCS(0))
	if workers <= 1 {
		for i := range n {
			if err := guard(f, i); err != nil {
				return err
			}
		}
		return nil
	}
	errs := make([]error, n)
	var next atomic.Int64
	var failed atomic.Bool
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !failed.Load() {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				if errs[i] = guard(f, i); errs[i] != nil {
					failed.Store(true)
				}
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
