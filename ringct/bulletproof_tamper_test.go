package ringct

import (
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/gonero/gonero/crypto"
	"github.com/gonero/gonero/cryptonote"
)

// flipDecodable changes k so that it still decodes as a point (the equation
// must catch it, not the decoder).
func flipDecodable(k *cryptonote.Key) {
	orig := *k
	for i := 0; ; i++ {
		*k = orig
		k[i%31] ^= 1 << (i / 31 % 8)
		if _, err := crypto.DecodePoint(k[:]); err == nil {
			return
		}
	}
}

// notAPoint is an encoding monerod refuses: y = 2 has no x on the curve
// (checked in init).
var notAPoint = func() cryptonote.Key {
	for y := byte(2); ; y++ {
		k := cryptonote.Key{y}
		if _, err := crypto.DecodePoint(k[:]); err != nil {
			return k
		}
	}
}()

// nonCanonicalY is y = p: SetBytes accepts it, monerod does not.
var nonCanonicalY = cryptonote.Key{0xed, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f}

// plusL returns s + ℓ as 32 bytes: the same value mod ℓ, not canonical.
func plusL(t testing.TB, s cryptonote.Key) cryptonote.Key {
	l, _ := new(big.Int).SetString("7237005577332262213973186563042994240857116359379907606001950938285454250989", 10)
	le := make([]byte, 32)
	for i := range le {
		le[i] = s[31-i]
	}
	v := new(big.Int).SetBytes(le)
	v.Add(v, l)
	if v.BitLen() > 256 {
		t.Fatal("scalar + ℓ does not fit")
	}
	be := v.FillBytes(make([]byte, 32))
	var out cryptonote.Key
	for i := range out {
		out[i] = be[31-i]
	}
	if crypto.IsCanonicalScalar(out[:]) {
		t.Fatal("s + ℓ is canonical")
	}
	return out
}

func copyBPP(it BulletproofPlusItem) BulletproofPlusItem {
	p := *it.Proof
	p.L = append([]cryptonote.Key(nil), p.L...)
	p.R = append([]cryptonote.Key(nil), p.R...)
	return BulletproofPlusItem{Proof: &p, Commitments: append([]cryptonote.Key(nil), it.Commitments...)}
}

func copyBP(it BulletproofItem) BulletproofItem {
	p := *it.Proof
	p.L = append([]cryptonote.Key(nil), p.L...)
	p.R = append([]cryptonote.Key(nil), p.R...)
	return BulletproofItem{Proof: &p, Commitments: append([]cryptonote.Key(nil), it.Commitments...)}
}

type bppMutation struct {
	name string
	f    func(t testing.TB, it *BulletproofPlusItem)
}

func bppMutations() []bppMutation {
	return []bppMutation{
		{"flip A", func(_ testing.TB, it *BulletproofPlusItem) { flipDecodable(&it.Proof.A) }},
		{"flip A1", func(_ testing.TB, it *BulletproofPlusItem) { flipDecodable(&it.Proof.A1) }},
		{"flip B", func(_ testing.TB, it *BulletproofPlusItem) { flipDecodable(&it.Proof.B) }},
		{"flip r1", func(_ testing.TB, it *BulletproofPlusItem) { it.Proof.R1[0] ^= 1 }},
		{"flip s1", func(_ testing.TB, it *BulletproofPlusItem) { it.Proof.S1[0] ^= 1 }},
		{"flip d1", func(_ testing.TB, it *BulletproofPlusItem) { it.Proof.D1[0] ^= 1 }},
		{"flip L[0]", func(_ testing.TB, it *BulletproofPlusItem) { flipDecodable(&it.Proof.L[0]) }},
		{"flip L[last]", func(_ testing.TB, it *BulletproofPlusItem) { flipDecodable(&it.Proof.L[len(it.Proof.L)-1]) }},
		{"flip R[3]", func(_ testing.TB, it *BulletproofPlusItem) { flipDecodable(&it.Proof.R[3]) }},
		{"swap L[1] R[1]", func(_ testing.TB, it *BulletproofPlusItem) {
			it.Proof.L[1], it.Proof.R[1] = it.Proof.R[1], it.Proof.L[1]
		}},
		{"flip commitment 0", func(_ testing.TB, it *BulletproofPlusItem) { flipDecodable(&it.Commitments[0]) }},
		{"flip last commitment", func(_ testing.TB, it *BulletproofPlusItem) { flipDecodable(&it.Commitments[len(it.Commitments)-1]) }},
		{"swap commitments", func(_ testing.TB, it *BulletproofPlusItem) {
			it.Commitments[0], it.Commitments[1] = it.Commitments[1], it.Commitments[0]
		}},
		{"drop commitment", func(_ testing.TB, it *BulletproofPlusItem) { it.Commitments = it.Commitments[:len(it.Commitments)-1] }},
		{"duplicate commitment", func(_ testing.TB, it *BulletproofPlusItem) {
			it.Commitments = append(it.Commitments, it.Commitments[0])
		}},
		{"r1 + ℓ", func(t testing.TB, it *BulletproofPlusItem) { it.Proof.R1 = plusL(t, it.Proof.R1) }},
		{"s1 + ℓ", func(t testing.TB, it *BulletproofPlusItem) { it.Proof.S1 = plusL(t, it.Proof.S1) }},
		{"d1 + ℓ", func(t testing.TB, it *BulletproofPlusItem) { it.Proof.D1 = plusL(t, it.Proof.D1) }},
		{"no commitments", func(_ testing.TB, it *BulletproofPlusItem) { it.Commitments = nil }},
		{"17 commitments", func(_ testing.TB, it *BulletproofPlusItem) {
			for len(it.Commitments) < 17 {
				it.Commitments = append(it.Commitments, it.Commitments[0])
			}
		}},
		{"L and R one short", func(_ testing.TB, it *BulletproofPlusItem) {
			it.Proof.L = it.Proof.L[:len(it.Proof.L)-1]
			it.Proof.R = it.Proof.R[:len(it.Proof.R)-1]
		}},
		{"L and R one long", func(_ testing.TB, it *BulletproofPlusItem) {
			it.Proof.L = append(it.Proof.L, it.Proof.L[0])
			it.Proof.R = append(it.Proof.R, it.Proof.R[0])
		}},
		{"L one long", func(_ testing.TB, it *BulletproofPlusItem) { it.Proof.L = append(it.Proof.L, it.Proof.L[0]) }},
		{"R one short", func(_ testing.TB, it *BulletproofPlusItem) { it.Proof.R = it.Proof.R[:len(it.Proof.R)-1] }},
		{"A not a point", func(_ testing.TB, it *BulletproofPlusItem) { it.Proof.A = notAPoint }},
		{"B y = p", func(_ testing.TB, it *BulletproofPlusItem) { it.Proof.B = nonCanonicalY }},
		{"R[2] not a point", func(_ testing.TB, it *BulletproofPlusItem) { it.Proof.R[2] = notAPoint }},
		{"commitment not a point", func(_ testing.TB, it *BulletproofPlusItem) { it.Commitments[1] = notAPoint }},
		{"commitment y = p", func(_ testing.TB, it *BulletproofPlusItem) { it.Commitments[0] = nonCanonicalY }},
		{"nil proof", func(_ testing.TB, it *BulletproofPlusItem) { it.Proof = nil }},
	}
}

type bpMutation struct {
	name string
	f    func(t testing.TB, it *BulletproofItem)
}

func bpMutations() []bpMutation {
	return []bpMutation{
		{"flip A", func(_ testing.TB, it *BulletproofItem) { flipDecodable(&it.Proof.A) }},
		{"flip S", func(_ testing.TB, it *BulletproofItem) { flipDecodable(&it.Proof.S) }},
		{"flip T1", func(_ testing.TB, it *BulletproofItem) { flipDecodable(&it.Proof.T1) }},
		{"flip T2", func(_ testing.TB, it *BulletproofItem) { flipDecodable(&it.Proof.T2) }},
		{"flip taux", func(_ testing.TB, it *BulletproofItem) { it.Proof.Taux[0] ^= 1 }},
		{"flip mu", func(_ testing.TB, it *BulletproofItem) { it.Proof.Mu[0] ^= 1 }},
		{"flip a", func(_ testing.TB, it *BulletproofItem) { it.Proof.Aa[0] ^= 1 }},
		{"flip b", func(_ testing.TB, it *BulletproofItem) { it.Proof.B[0] ^= 1 }},
		{"flip t", func(_ testing.TB, it *BulletproofItem) { it.Proof.T[0] ^= 1 }},
		{"flip L[0]", func(_ testing.TB, it *BulletproofItem) { flipDecodable(&it.Proof.L[0]) }},
		{"flip L[last]", func(_ testing.TB, it *BulletproofItem) { flipDecodable(&it.Proof.L[len(it.Proof.L)-1]) }},
		{"flip R[3]", func(_ testing.TB, it *BulletproofItem) { flipDecodable(&it.Proof.R[3]) }},
		{"swap L[1] R[1]", func(_ testing.TB, it *BulletproofItem) { it.Proof.L[1], it.Proof.R[1] = it.Proof.R[1], it.Proof.L[1] }},
		{"flip commitment 0", func(_ testing.TB, it *BulletproofItem) { flipDecodable(&it.Commitments[0]) }},
		{"flip last commitment", func(_ testing.TB, it *BulletproofItem) { flipDecodable(&it.Commitments[len(it.Commitments)-1]) }},
		{"swap commitments", func(_ testing.TB, it *BulletproofItem) {
			it.Commitments[0], it.Commitments[1] = it.Commitments[1], it.Commitments[0]
		}},
		{"drop commitment", func(_ testing.TB, it *BulletproofItem) { it.Commitments = it.Commitments[:len(it.Commitments)-1] }},
		{"duplicate commitment", func(_ testing.TB, it *BulletproofItem) { it.Commitments = append(it.Commitments, it.Commitments[0]) }},
		{"taux + ℓ", func(t testing.TB, it *BulletproofItem) { it.Proof.Taux = plusL(t, it.Proof.Taux) }},
		{"mu + ℓ", func(t testing.TB, it *BulletproofItem) { it.Proof.Mu = plusL(t, it.Proof.Mu) }},
		{"a + ℓ", func(t testing.TB, it *BulletproofItem) { it.Proof.Aa = plusL(t, it.Proof.Aa) }},
		{"b + ℓ", func(t testing.TB, it *BulletproofItem) { it.Proof.B = plusL(t, it.Proof.B) }},
		{"t + ℓ", func(t testing.TB, it *BulletproofItem) { it.Proof.T = plusL(t, it.Proof.T) }},
		{"no commitments", func(_ testing.TB, it *BulletproofItem) { it.Commitments = nil }},
		{"17 commitments", func(_ testing.TB, it *BulletproofItem) {
			for len(it.Commitments) < 17 {
				it.Commitments = append(it.Commitments, it.Commitments[0])
			}
		}},
		{"L and R one short", func(_ testing.TB, it *BulletproofItem) {
			it.Proof.L = it.Proof.L[:len(it.Proof.L)-1]
			it.Proof.R = it.Proof.R[:len(it.Proof.R)-1]
		}},
		{"L and R one long", func(_ testing.TB, it *BulletproofItem) {
			it.Proof.L = append(it.Proof.L, it.Proof.L[0])
			it.Proof.R = append(it.Proof.R, it.Proof.R[0])
		}},
		{"L one long", func(_ testing.TB, it *BulletproofItem) { it.Proof.L = append(it.Proof.L, it.Proof.L[0]) }},
		{"R one short", func(_ testing.TB, it *BulletproofItem) { it.Proof.R = it.Proof.R[:len(it.Proof.R)-1] }},
		{"A not a point", func(_ testing.TB, it *BulletproofItem) { it.Proof.A = notAPoint }},
		{"T2 y = p", func(_ testing.TB, it *BulletproofItem) { it.Proof.T2 = nonCanonicalY }},
		{"R[2] not a point", func(_ testing.TB, it *BulletproofItem) { it.Proof.R[2] = notAPoint }},
		{"commitment not a point", func(_ testing.TB, it *BulletproofItem) { it.Commitments[1] = notAPoint }},
		{"commitment y = p", func(_ testing.TB, it *BulletproofItem) { it.Commitments[0] = nonCanonicalY }},
		{"nil proof", func(_ testing.TB, it *BulletproofItem) { it.Proof = nil }},
	}
}

// pickTargets returns the indexes of a smallest and a largest proof.
func pickTargets(n int, size func(int) int) []int {
	lo, hi := 0, 0
	for i := 0; i < n; i++ {
		if size(i) < size(lo) {
			lo = i
		}
		if size(i) > size(hi) {
			hi = i
		}
	}
	return []int{lo, hi}
}

func TestBulletproofPlusTampered(t *testing.T) {
	names, items := realBPPlus(t)
	for _, k := range pickTargets(len(items), func(i int) int { return len(items[i].Commitments) }) {
		for _, m := range bppMutations() {
			bad := copyBPP(items[k])
			m.f(t, &bad)
			if VerifyBulletproofsPlus([]BulletproofPlusItem{bad}) {
				t.Errorf("%s, %s: verifies alone", names[k], m.name)
			}
			batch := append([]BulletproofPlusItem(nil), items...)
			batch[k] = bad
			if VerifyBulletproofsPlus(batch) {
				t.Errorf("%s, %s: batch verifies", names[k], m.name)
			}
		}
	}
	// Untouched copies still verify (the mutations worked on copies).
	if !VerifyBulletproofsPlus(items) {
		t.Fatal("originals changed")
	}
}

func TestBulletproofTampered(t *testing.T) {
	names, items := realBP(t)
	for _, k := range pickTargets(len(items), func(i int) int { return len(items[i].Commitments) }) {
		for _, m := range bpMutations() {
			bad := copyBP(items[k])
			m.f(t, &bad)
			if VerifyBulletproofs([]BulletproofItem{bad}) {
				t.Errorf("%s, %s: verifies alone", names[k], m.name)
			}
			batch := append([]BulletproofItem(nil), items...)
			batch[k] = bad
			if VerifyBulletproofs(batch) {
				t.Errorf("%s, %s: batch verifies", names[k], m.name)
			}
		}
	}
	if !VerifyBulletproofs(items) {
		t.Fatal("originals changed")
	}
}

// The batch verdict must equal the conjunction of the single verdicts.
func TestBulletproofPlusBatchSubsets(t *testing.T) {
	_, items := realBPPlus(t)
	muts := bppMutations()
	rng := rand.New(rand.NewPCG(1, 2))
	var pool []BulletproofPlusItem
	var valid []bool
	for i := range items {
		pool = append(pool, items[i])
		valid = append(valid, true)
		bad := copyBPP(items[i])
		muts[rng.IntN(14)].f(t, &bad) // equation-level corruptions only
		pool = append(pool, bad)
		valid = append(valid, false)
	}
	for i := range pool {
		if got := VerifyBulletproofsPlus(pool[i : i+1]); got != valid[i] {
			t.Fatalf("pool item %d alone: %v, want %v", i, got, valid[i])
		}
	}
	for round := 0; round < 12; round++ {
		n := 1 + rng.IntN(6)
		var sub []BulletproofPlusItem
		want := true
		for j := 0; j < n; j++ {
			i := rng.IntN(len(pool))
			if rng.IntN(3) != 0 { // mostly valid proofs, so some batches pass
				i &^= 1
			}
			sub = append(sub, pool[i])
			want = want && valid[i]
		}
		if got := VerifyBulletproofsPlus(sub); got != want {
			t.Errorf("subset %d (%d proofs): batch %v, singles %v", round, n, got, want)
		}
	}
}

func TestBulletproofBatchSubsets(t *testing.T) {
	_, items := realBP(t)
	muts := bpMutations()
	rng := rand.New(rand.NewPCG(3, 4))
	var pool []BulletproofItem
	var valid []bool
	for i := range items {
		pool = append(pool, items[i])
		valid = append(valid, true)
		bad := copyBP(items[i])
		muts[rng.IntN(18)].f(t, &bad)
		pool = append(pool, bad)
		valid = append(valid, false)
	}
	for i := range pool {
		if got := VerifyBulletproofs(pool[i : i+1]); got != valid[i] {
			t.Fatalf("pool item %d alone: %v, want %v", i, got, valid[i])
		}
	}
	for round := 0; round < 12; round++ {
		n := 1 + rng.IntN(6)
		var sub []BulletproofItem
		want := true
		for j := 0; j < n; j++ {
			i := rng.IntN(len(pool))
			if rng.IntN(3) != 0 {
				i &^= 1
			}
			sub = append(sub, pool[i])
			want = want && valid[i]
		}
		if got := VerifyBulletproofs(sub); got != want {
			t.Errorf("subset %d (%d proofs): batch %v, singles %v", round, n, got, want)
		}
	}
}

// The same valid proof twice in one batch still verifies; an empty batch
// verifies (nothing to refuse).
func TestBulletproofBatchEdges(t *testing.T) {
	_, bpp := realBPPlus(t)
	if !VerifyBulletproofsPlus([]BulletproofPlusItem{bpp[0], bpp[0]}) {
		t.Error("BP+ proof twice")
	}
	_, bp := realBP(t)
	if !VerifyBulletproofs([]BulletproofItem{bp[0], bp[0]}) {
		t.Error("BP twice")
	}
	if !VerifyBulletproofsPlus(nil) || !VerifyBulletproofs(nil) {
		t.Error("empty batch")
	}
}
