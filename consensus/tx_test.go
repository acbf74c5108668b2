package consensus

import (
	"errors"
	"fmt"
	"math/bits"
	"slices"
	"strings"
	"testing"

	"filippo.io/edwards25519"

	"github.com/gonero/gonero/crypto"
	"github.com/gonero/gonero/cryptonote"
)

// fakeState is a chain with n outputs per amount, created at height
// heights[amount] each, and a set of spent key images.
type fakeState struct {
	counts     map[uint64]uint64
	height     uint64 // every output's block height
	unlockTime uint64
	spent      map[cryptonote.Key]bool
}

func (s *fakeState) NumOutputs(a uint64) (uint64, error) { return s.counts[a], nil }
func (s *fakeState) KeyImageSpent(ki cryptonote.Key) (bool, error) {
	return s.spent[ki], nil
}
func (s *fakeState) Outputs(a uint64, idx []uint64) ([]RingOutput, error) {
	out := make([]RingOutput, len(idx))
	for i, x := range idx {
		if x >= s.counts[a] {
			return nil, fmt.Errorf("amount %d index %d: %w", a, x, ErrOutputNotFound)
		}
		out[i] = RingOutput{Key: point(int(x) + 1), UnlockTime: s.unlockTime, Height: s.height}
	}
	return out, nil
}

func point(i int) cryptonote.Key {
	p := new(edwards25519.Point).ScalarBaseMult(crypto.ScalarFromUint64(uint64(i)))
	return cryptonote.Key(p.Bytes())
}

func keyImage(i int) cryptonote.Key {
	x := crypto.ScalarFromUint64(uint64(1000 + i))
	pub := new(edwards25519.Point).ScalarBaseMult(x)
	ki, err := crypto.GenerateKeyImage(pub.Bytes(), x)
	if err != nil {
		panic(err)
	}
	return ki
}

// rctTx is a v2 transaction with the given rings (relative offsets) and
// outputs, key images sorted descending as monerod requires.
func rctTx(hf uint8, rings [][]uint64, outputs int) *cryptonote.Transaction {
	tx := &cryptonote.Transaction{Version: 2, Rct: &cryptonote.RctSig{Type: cryptonote.RctTypeBulletproofPlus}}
	var kis []cryptonote.Key
	for i := range rings {
		kis = append(kis, keyImage(i))
	}
	slices.SortFunc(kis, func(a, b cryptonote.Key) int { return -slices.Compare(a[:], b[:]) })
	for i, r := range rings {
		tx.Inputs = append(tx.Inputs, cryptonote.TxInToKey{KeyOffsets: r, KeyImage: kis[i]})
	}
	for i := range outputs {
		var t cryptonote.TxOutTarget = cryptonote.TxOutToTaggedKey{Key: point(100 + i)}
		if hf < VersionViewTags {
			t = cryptonote.TxOutToKey{Key: point(100 + i)}
		}
		tx.Outputs = append(tx.Outputs, cryptonote.TxOut{Target: t})
		tx.Rct.OutPk = append(tx.Rct.OutPk, point(200+i))
	}
	return tx
}

func ring(n int) []uint64 {
	r := make([]uint64, n)
	for i := range r {
		r[i] = 1
	}
	r[0] = 0
	return r
}

func TestCheckTxInputsRingSizes(t *testing.T) {
	for _, c := range []struct {
		hf   uint8
		size int
		ok   bool
	}{
		{16, 16, true}, {16, 15, false}, {16, 17, false}, {16, 11, false},
		{15, 16, true}, {15, 11, true}, {15, 12, false}, {15, 17, false},
		{14, 11, true}, {14, 12, false}, {14, 10, false},
		{9, 11, true}, {9, 12, false}, {8, 11, true}, {8, 10, false},
		{7, 7, true}, {7, 6, false}, {7, 30, true}, {6, 5, true}, {6, 4, false},
	} {
		st := &fakeState{counts: map[uint64]uint64{0: 1000}, spent: map[cryptonote.Key]bool{}}
		tx := rctTx(c.hf, [][]uint64{ring(c.size)}, 2)
		_, err := CheckTxInputs(tx, &InputContext{HF: c.hf, Height: 500, State: st})
		if (err == nil) != c.ok {
			t.Errorf("hf %d ring %d: err %v, want ok=%v", c.hf, c.size, err, c.ok)
		}
		if err != nil && FlagsOf(err) != FlagLowMixin {
			t.Errorf("hf %d ring %d: flags %b, want low_mixin", c.hf, c.size, FlagsOf(err))
		}
		want := RuleInvalidRingSize // above the fork's exact size
		if c.size-1 < MinMixin(c.hf) {
			want = RuleLowRingSize
		}
		if err != nil && RuleOf(err) != want {
			t.Errorf("hf %d ring %d: rule %q, want %q", c.hf, c.size, RuleOf(err), want)
		}
	}
}

func TestCheckTxInputsRules(t *testing.T) {
	base := func() (*cryptonote.Transaction, *fakeState, *InputContext) {
		st := &fakeState{counts: map[uint64]uint64{0: 100}, spent: map[cryptonote.Key]bool{}, height: 10}
		tx := rctTx(16, [][]uint64{ring(16), ring(16)}, 2)
		return tx, st, &InputContext{HF: 16, Height: 200, Now: 1_700_000_000, State: st}
	}
	tx, _, ctx := base()
	rings, err := CheckTxInputs(tx, ctx)
	if err != nil || len(rings) != 2 || len(rings[1]) != 16 {
		t.Fatalf("valid tx refused: %v", err)
	}
	if rings[0][15].Key != point(16) {
		t.Fatalf("ring member 15 resolved to %s, want absolute index 15", rings[0][15].Key)
	}
	cases := []struct {
		name  string
		edit  func(*cryptonote.Transaction, *fakeState, *InputContext)
		flags TxFlags
		rule  Rule
	}{
		{"one output", func(tx *cryptonote.Transaction, _ *fakeState, _ *InputContext) { tx.Outputs = tx.Outputs[:1] }, FlagTooFewOutputs, RuleTooFewOutputs},
		{"varying ring size", func(tx *cryptonote.Transaction, _ *fakeState, _ *InputContext) {
			in := tx.Inputs[1].(cryptonote.TxInToKey)
			in.KeyOffsets = ring(17)
			tx.Inputs[1] = in
		}, FlagLowMixin, RuleVaryingRingSize},
		{"unsorted key images", func(tx *cryptonote.Transaction, _ *fakeState, _ *InputContext) {
			tx.Inputs[0], tx.Inputs[1] = tx.Inputs[1], tx.Inputs[0]
		}, 0, RuleUnsortedInputs},
		{"spent key image", func(tx *cryptonote.Transaction, st *fakeState, _ *InputContext) {
			st.spent[tx.Inputs[1].(cryptonote.TxInToKey).KeyImage] = true
		}, FlagDoubleSpend, RuleKeyImageSpent},
		{"ring member beyond the outputs", func(tx *cryptonote.Transaction, _ *fakeState, _ *InputContext) {
			in := tx.Inputs[0].(cryptonote.TxInToKey)
			in.KeyOffsets[15] = 86 // absolute 14 + 86 = 100 = count
			tx.Inputs[0] = in
		}, 0, RuleOutputNotFound},
		{"locked ring member (height)", func(_ *cryptonote.Transaction, st *fakeState, _ *InputContext) { st.unlockTime = 201 }, 0, RuleRingMemberLocked},
		{"locked ring member (time)", func(_ *cryptonote.Transaction, st *fakeState, c *InputContext) { st.unlockTime = c.Now + 121 }, 0, RuleRingMemberLocked},
		{"too young", func(_ *cryptonote.Transaction, st *fakeState, _ *InputContext) { st.height = 191 }, 0, RuleRingMemberTooYoung},
		{"v1 at hard fork 16", func(tx *cryptonote.Transaction, _ *fakeState, _ *InputContext) { tx.Version = 1 }, 0, RuleVersionTooLow},
	}
	for _, c := range cases {
		tx, st, ctx := base()
		c.edit(tx, st, ctx)
		_, err := CheckTxInputs(tx, ctx)
		if err == nil {
			t.Errorf("%s: accepted", c.name)
			continue
		}
		var te *TxError
		if !errors.As(err, &te) || te.Flags != c.flags || te.Rule != c.rule {
			t.Errorf("%s: %v (flags %b), want flags %b, rule %q", c.name, err, FlagsOf(err), c.flags, c.rule)
		}
	}
	// Boundaries that pass: unlock time == H, time lock within the delta,
	// newest member exactly 10 blocks deep, ring member at count−1.
	for _, edit := range []func(*cryptonote.Transaction, *fakeState, *InputContext){
		func(_ *cryptonote.Transaction, st *fakeState, _ *InputContext) { st.unlockTime = 200 },
		func(_ *cryptonote.Transaction, st *fakeState, c *InputContext) { st.unlockTime = c.Now + 120 },
		func(_ *cryptonote.Transaction, st *fakeState, _ *InputContext) { st.height = 190 },
		func(tx *cryptonote.Transaction, _ *fakeState, _ *InputContext) {
			in := tx.Inputs[0].(cryptonote.TxInToKey)
			in.KeyOffsets[15] = 85
			tx.Inputs[0] = in
		},
	} {
		tx, st, ctx := base()
		edit(tx, st, ctx)
		if _, err := CheckTxInputs(tx, ctx); err != nil {
			t.Errorf("boundary case refused: %v", err)
		}
	}
}

func TestUnmixableInputs(t *testing.T) {
	// HF 6 (min mixin 4): a v1 tx spending an amount with only 3 outputs may
	// use a smaller ring, with at most one mixable input beside it.
	st := &fakeState{counts: map[uint64]uint64{5_000: 3, 7_000: 100}, spent: map[cryptonote.Key]bool{}}
	v1 := func(rings map[uint64]int) *cryptonote.Transaction {
		tx := &cryptonote.Transaction{Version: 1}
		i := 0
		for _, a := range []uint64{5_000, 7_000} {
			if n, ok := rings[a]; ok {
				tx.Inputs = append(tx.Inputs, cryptonote.TxInToKey{Amount: a, KeyOffsets: ring(n), KeyImage: keyImage(i)})
				i++
			}
		}
		tx.Outputs = []cryptonote.TxOut{{Amount: 1000, Target: cryptonote.TxOutToKey{Key: point(1)}}}
		return tx
	}
	ctx := &InputContext{HF: 6, Height: 1000, State: st}
	if err := checkRingSizes(v1(map[uint64]int{5_000: 1}), ctx); err != nil {
		t.Errorf("unmixable ring of 1 refused: %v", err)
	}
	if err := checkRingSizes(v1(map[uint64]int{5_000: 1, 7_000: 1}), ctx); err != nil {
		t.Errorf("unmixable plus one mixable refused: %v", err)
	}
	if err := checkRingSizes(v1(map[uint64]int{7_000: 1}), ctx); FlagsOf(err) != FlagLowMixin {
		t.Errorf("mixable ring of 1: %v, want low_mixin", err)
	}
	// The unmixable exception also admits v1 from hard fork 6.
	if err := checkRingSizes(v1(map[uint64]int{7_000: 5}), ctx); err == nil {
		t.Error("v1 with only mixable inputs accepted at hard fork 6")
	}
}

func TestCheckTxSemantic(t *testing.T) {
	ok := rctTx(16, [][]uint64{ring(16), ring(16)}, 2)
	if err := CheckTxSemantic(ok, 16); err != nil {
		t.Fatalf("valid tx refused: %v", err)
	}
	torsion := cryptonote.Key{0x26, 0xe8, 0x95, 0x8f, 0xc2, 0xb2, 0x27, 0xb0, 0x45, 0xc3, 0xf4, 0x89, 0xf2, 0xef, 0x98, 0xf0, 0xd5, 0xdf, 0xac, 0x05, 0xd3, 0xc6, 0x33, 0x39, 0xb1, 0x38, 0x02, 0x88, 0x6d, 0x53, 0xfc, 0x05}
	notPoint := cryptonote.Key{2} // y = 2 is not on the curve
	// The flags are those core::check_tx_semantic sets from monerod 0.18.4 (commit 008ba966d).
	for _, c := range []struct {
		name string
		edit func(tx *cryptonote.Transaction)
		flag TxFlags
		rule Rule
	}{
		{"no inputs", func(tx *cryptonote.Transaction) { tx.Inputs = nil }, FlagInvalidInput, RuleNoInputs},
		{"gen input", func(tx *cryptonote.Transaction) { tx.Inputs[0] = cryptonote.TxInGen{Height: 1} }, FlagInvalidInput, RuleInputTypes},
		{"output not a point", func(tx *cryptonote.Transaction) {
			tx.Outputs[1] = cryptonote.TxOut{Target: cryptonote.TxOutToTaggedKey{Key: notPoint}}
		}, FlagInvalidOutput, RuleInvalidOutputs},
		{"outPk count", func(tx *cryptonote.Transaction) { tx.Rct.OutPk = tx.Rct.OutPk[:1] }, FlagInvalidOutput, RuleOutPkCount},
		{"duplicate key image", func(tx *cryptonote.Transaction) {
			in := tx.Inputs[1].(cryptonote.TxInToKey)
			in.KeyImage = tx.Inputs[0].(cryptonote.TxInToKey).KeyImage
			tx.Inputs[1] = in
		}, FlagInvalidInput, RuleKeyImageTwice},
		{"duplicate ring member", func(tx *cryptonote.Transaction) {
			in := tx.Inputs[0].(cryptonote.TxInToKey)
			in.KeyOffsets = slices.Clone(in.KeyOffsets)
			in.KeyOffsets[3] = 0
			tx.Inputs[0] = in
		}, FlagInvalidInput, RuleDuplicateRingMember},
		{"key image with torsion", func(tx *cryptonote.Transaction) {
			in := tx.Inputs[0].(cryptonote.TxInToKey)
			p, _ := crypto.DecodePoint(in.KeyImage[:])
			q, _ := crypto.DecodePoint(torsion[:])
			in.KeyImage = cryptonote.Key(new(edwards25519.Point).Add(p, q).Bytes())
			tx.Inputs[0] = in
		}, FlagInvalidInput, RuleKeyImageDomain},
		{"identity key image", func(tx *cryptonote.Transaction) {
			in := tx.Inputs[0].(cryptonote.TxInToKey)
			in.KeyImage = cryptonote.Key{1}
			tx.Inputs[0] = in
		}, FlagInvalidInput, RuleKeyImageDomain},
		{"untagged output at hf 16", func(tx *cryptonote.Transaction) { tx.Outputs[0].Target = cryptonote.TxOutToKey{Key: point(3)} }, FlagInvalidOutput, RuleSemanticOutputTypes},
	} {
		tx := rctTx(16, [][]uint64{ring(16), ring(16)}, 2)
		c.edit(tx)
		if err := CheckTxSemantic(tx, 16); FlagsOf(err) != c.flag || RuleOf(err) != c.rule {
			t.Errorf("%s: %v, want flags %v, rule %q", c.name, err, c.flag.Reason(), c.rule)
		}
	}
	// v1: Σin must exceed Σout.
	v1 := &cryptonote.Transaction{Version: 1,
		Inputs:  []cryptonote.TxIn{cryptonote.TxInToKey{Amount: 1000, KeyOffsets: []uint64{3}, KeyImage: keyImage(0)}},
		Outputs: []cryptonote.TxOut{{Amount: 1000, Target: cryptonote.TxOutToKey{Key: point(1)}}}}
	if err := CheckTxSemantic(v1, 1); FlagsOf(err) != FlagOverspend || RuleOf(err) != RuleWrongAmounts {
		t.Errorf("v1 tx with zero fee: %v, want overspend", err)
	}
	v1.Outputs[0].Amount = 999
	if err := CheckTxSemantic(v1, 1); err != nil {
		t.Errorf("v1 tx with fee 1 refused: %v", err)
	}
	v1.Outputs[0].Amount = 0
	if err := CheckTxSemantic(v1, 1); RuleOf(err) != RuleInvalidOutputs {
		t.Errorf("v1 output of amount 0: %v, want %q", err, RuleInvalidOutputs)
	}
}

func TestCheckTxOutputs(t *testing.T) {
	for _, a := range []uint64{1, 9, 10, 20, 900, 9_000_000_000_000_000_000, 10_000_000_000_000_000_000} {
		if !IsDecomposedAmount(a) {
			t.Errorf("%d not decomposed", a)
		}
	}
	n := 0
	for _, a := range []uint64{0, 11, 15, 110, 1_234, 11_000_000_000_000_000_000} {
		if IsDecomposedAmount(a) {
			t.Errorf("%d decomposed", a)
		}
	}
	for d := uint64(1); d <= 9; d++ {
		for p := uint64(1); p <= 1e18 && p > 0; p *= 10 {
			if IsDecomposedAmount(d * p) {
				n++
			}
			if p == 1e18 {
				break
			}
		}
	}
	if n+1 != 172 {
		t.Errorf("%d decomposed amounts, want 172", n+1)
	}
	v1 := &cryptonote.Transaction{Version: 1, Outputs: []cryptonote.TxOut{{Amount: 15, Target: cryptonote.TxOutToKey{Key: point(1)}}}}
	if err := CheckTxOutputs(v1, 1, false); err != nil {
		t.Errorf("HF 1 refuses a compound amount: %v", err)
	}
	if err := CheckTxOutputs(v1, 2, false); FlagsOf(err) != FlagInvalidOutput || RuleOf(err) != RuleAmountNotDecomposed {
		t.Errorf("HF 2 accepts a compound amount: %v", err)
	}
	// RingCT types by hard fork (blockchain.cpp check_tx_outputs).
	allowed := map[uint8][2]uint8{1: {4, 8}, 2: {4, 8}, 3: {8, 10}, 4: {10, 13}, 5: {13, 15}, 6: {15, 255}}
	for typ := uint8(1); typ <= 6; typ++ {
		for hf := uint8(1); hf <= 16; hf++ {
			rv := &cryptonote.RctSig{Type: typ}
			err := CheckRctType(rv, hf, false)
			want := hf >= allowed[typ][0] && hf <= allowed[typ][1]
			if typ <= 2 && hf < 4 {
				want = true // v2 transactions do not exist there; this rule does not look
			}
			if (err == nil) != want {
				t.Errorf("type %d at hf %d: %v, want allowed=%v", typ, hf, err, want)
			}
		}
	}
	if err := CheckRctType(&cryptonote.RctSig{Type: 4}, 14, true); err != nil {
		t.Errorf("grandfathered type 4 at hf 14 refused: %v", err)
	}
}

func TestCheckTxPoolEntry(t *testing.T) {
	tx := rctTx(16, [][]uint64{ring(16), ring(16)}, 2)
	tx.Rct.TxnFee = 1000
	e := PoolEntry{Weight: 900, FeeOK: func(w, f uint64) bool { return f >= w }, KeyImageInPool: func(cryptonote.Key) bool { return false }}
	if fee, err := CheckTxPoolEntry(tx, e); err != nil || fee != 1000 {
		t.Fatalf("CheckTxPoolEntry = %d, %v", fee, err)
	}
	// Every refusal here leaves the relaying peer alone (m_no_drop_offense).
	refused := func(what string, tx *cryptonote.Transaction, e PoolEntry, want TxFlags) {
		t.Helper()
		_, err := CheckTxPoolEntry(tx, e)
		rule := map[TxFlags]Rule{FlagFeeTooLow: RuleFeeTooLow, FlagTxExtraTooBig: RuleTxExtraTooBig,
			FlagNonzeroUnlockTime: RuleNonzeroUnlockTime, FlagDoubleSpend: RuleKeyImageInPool}[want]
		if FlagsOf(err) != want || RuleOf(err) != rule || !IsNoDropOffense(err) {
			t.Errorf("%s: %v (no-drop %v), want %s (%q)", what, err, IsNoDropOffense(err), want.Reason(), rule)
		}
	}
	low := e
	low.Weight = 1001
	refused("low fee", tx, low, FlagFeeTooLow)
	low.KeptByBlock = true
	if _, err := CheckTxPoolEntry(tx, low); err != nil {
		t.Errorf("block tx judged by the pool's fee: %v", err)
	}

	// MAX_TX_EXTRA_SIZE: 1060 bytes pass, 1061 do not, kept by block they do.
	big := *tx
	big.Extra = make([]byte, MaxTxExtraSize)
	if _, err := CheckTxPoolEntry(&big, e); err != nil {
		t.Errorf("extra of %d bytes: %v", MaxTxExtraSize, err)
	}
	big.Extra = make([]byte, MaxTxExtraSize+1)
	refused("extra too big", &big, e, FlagTxExtraTooBig)
	// The fee comes first (tx_memory_pool::add_tx's order).
	refused("extra too big and fee too low", &big, low2(e), FlagFeeTooLow)
	if _, err := CheckTxPoolEntry(&big, PoolEntry{Weight: 900, KeptByBlock: true}); err != nil {
		t.Errorf("block tx with a big extra: %v", err)
	}

	// A non-zero unlock time, after the extra's size.
	locked := *tx
	locked.UnlockTime = 1
	refused("unlock time", &locked, e, FlagNonzeroUnlockTime)
	locked.Extra = big.Extra
	refused("unlock time and extra too big", &locked, e, FlagTxExtraTooBig)
	locked.Extra = nil
	if _, err := CheckTxPoolEntry(&locked, PoolEntry{Weight: 900, KeptByBlock: true}); err != nil {
		t.Errorf("block tx with an unlock time: %v", err)
	}

	// The fee is get_tx_fee's, read before any other rule: a v1
	// transaction spending all it has, or more, or with an input that is
	// not to_key, pays 0 and is refused for its fee (monerod 0.18.5.2 on).
	v1 := func(in, out uint64) *cryptonote.Transaction {
		return &cryptonote.Transaction{Version: 1,
			Inputs: []cryptonote.TxIn{cryptonote.TxInToKey{Amount: in, KeyOffsets: []uint64{3}, KeyImage: keyImage(0)},
				cryptonote.TxInToKey{Amount: in, KeyOffsets: []uint64{4}, KeyImage: keyImage(1)}},
			Outputs: []cryptonote.TxOut{{Amount: out, Target: cryptonote.TxOutToTaggedKey{Key: point(1)}}}}
	}
	for _, c := range []struct {
		name string
		tx   *cryptonote.Transaction
		fee  uint64
	}{
		{"v1 paying 1000", v1(1000, 1000), 1000},
		{"v1 amounts 0", v1(0, 0), 0},
		{"v1 outputs equal to inputs", v1(500, 1000), 0},
		{"v1 outputs over inputs", v1(100, 1000), 0},
		{"v1 inputs wrapping (as monerod's sums: 2·(2^63+5) is 10)", v1(1<<63+5, 1), 9},
		{"v1 with a gen input", func() *cryptonote.Transaction {
			tx := v1(1000, 1000)
			tx.Inputs[0] = cryptonote.TxInGen{Height: 1}
			return tx
		}(), 0},
	} {
		if got := TxFee(c.tx); got != c.fee {
			t.Errorf("%s: fee %d, want %d", c.name, got, c.fee)
		}
		pay := e
		pay.FeeOK = func(_, f uint64) bool { return f > 0 }
		if c.fee == 0 {
			refused(c.name, c.tx, pay, FlagFeeTooLow)
		} else if _, err := CheckTxPoolEntry(c.tx, pay); err != nil {
			t.Errorf("%s: %v", c.name, err)
		}
	}

	spent := e
	spent.KeyImageInPool = func(ki cryptonote.Key) bool { return ki == tx.Inputs[1].(cryptonote.TxInToKey).KeyImage }
	refused("pool double spend", tx, spent, FlagDoubleSpend)
	locked.UnlockTime = 7
	refused("pool double spend and unlock time", &locked, spent, FlagNonzeroUnlockTime)

	if err := CheckTxWeight(TxWeightLimit(16)+1, 16); FlagsOf(err) != FlagTooBig || RuleOf(err) != RuleTxTooHeavy {
		t.Errorf("heavy tx: %v", err)
	}
	if err := CheckTxWeight(TxWeightLimit(16), 16); err != nil {
		t.Errorf("tx at the weight limit: %v", err)
	}
	if err := CheckTxWeight(TxWeightLimit(7)+1, 7); err != nil {
		t.Errorf("weight limit applied before hard fork 8: %v", err)
	}
	if TxWeightLimit(16) != 149_400 || TxWeightLimit(7) != 299_400 || TxWeightLimit(4) != 59_400 {
		t.Errorf("TxWeightLimit = %d, %d, %d", TxWeightLimit(16), TxWeightLimit(7), TxWeightLimit(4))
	}
}

// low2 is e with a fee rule the transaction fails.
func low2(e PoolEntry) PoolEntry {
	e.FeeOK = func(uint64, uint64) bool { return false }
	return e
}

func TestFlagsReason(t *testing.T) {
	if got := (FlagDoubleSpend | FlagInvalidInput).Reason(); got != "double spend, invalid input" {
		t.Errorf("reason %q", got)
	}
	// core_rpc_server.cpp on_send_raw_tx (0.18.3.4 on) texts for the pool-only rules.
	if got := (FlagFeeTooLow | FlagTxExtraTooBig | FlagNonzeroUnlockTime).Reason(); got != "fee too low, tx-extra too big, tx unlock time is not zero" {
		t.Errorf("reason %q", got)
	}
	// The answer fields, in monerod's order; every flag has one.
	if got := strings.Join((FlagNonzeroUnlockTime | FlagLowMixin).Fields(), ","); got != "low_mixin,nonzero_unlock_time" {
		t.Errorf("fields %q", got)
	}
	if n := len(AllTxFlags.Fields()); n != bits.OnesCount16(uint16(AllTxFlags)) || n != 10 {
		t.Errorf("%d fields for all flags", n)
	}
}
