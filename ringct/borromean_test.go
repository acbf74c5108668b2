package ringct

import (
	"bufio"
	"crypto/rand"
	"math/big"
	"os"
	"strings"
	"testing"

	"filippo.io/edwards25519"

	"github.com/gonero/gonero/cryptonote"
	"github.com/gonero/gonero/internal/testutil"
)

// oxide's four unreduced Borromean-style scalars (bit 255 set) and what
// monerod effectively multiplies by.
func TestUnreducedScalarVectors(t *testing.T) {
	f, err := os.Open(testutil.Path(t, "testdata", "vectors", "monero-oxide", "unreduced_scalars.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n := 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) != 2 {
			continue
		}
		stored, want := unhex32(t, fields[0]), unhex32(t, fields[1])
		got := effectiveScalar(stored)
		if [32]byte(got.Bytes()) != want {
			t.Errorf("%x: effective %x, want %x", stored, got.Bytes(), want)
		}
		if got.Equal(digitValue(t, stored)) != 1 {
			t.Errorf("%x: effective scalar differs from the slide digits' value", stored)
		}
		n++
	}
	if n != 4 {
		t.Fatalf("%d vectors, want 4", n)
	}
}

var ell, _ = new(big.Int).SetString("7237005577332262213973186563042994240857116359379907606001950938285454250989", 10)

// digitValue evaluates Σ d_i·2^i mod ℓ over slide's digits with big
// integers: an independent check of the lost-carry arithmetic.
func digitValue(t testing.TB, b [32]byte) *edwards25519.Scalar {
	var r [256]int
	slide(&r, &b)
	v := new(big.Int)
	for i := 255; i >= 0; i-- {
		v.Lsh(v, 1)
		v.Add(v, big.NewInt(int64(r[i])))
	}
	v.Mod(v, ell)
	var le [32]byte
	be := v.FillBytes(make([]byte, 32))
	for i := range le {
		le[i] = be[31-i]
	}
	s, err := edwards25519.NewScalar().SetCanonicalBytes(le[:])
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestEffectiveScalarRandom(t *testing.T) {
	lostClear, lostSet := 0, 0
	for i := range 4000 {
		var b [32]byte
		rand.Read(b[:])
		switch i % 4 {
		case 0: // canonical
			b = [32]byte(randomScalar().Bytes())
		case 1: // bit 255 clear
			b[31] &= 0x7f
		case 2: // long runs of ones at the top, where carries travel
			for j := 24 + i%8; j < 32; j++ {
				b[j] = 0xff
			}
		}
		if got, want := effectiveScalar(b), digitValue(t, b); got.Equal(want) != 1 {
			t.Fatalf("%x: effective %x, digits give %x", b, got.Bytes(), want.Bytes())
		}
		var r [256]int
		if slide(&r, &b) > 0 {
			if b[31]&0x80 == 0 {
				lostClear++
			} else {
				lostSet++
			}
		}
		for _, d := range r {
			if d < -15 || d > 15 || (d != 0 && d%2 == 0) {
				t.Fatalf("%x: digit %d", b, d)
			}
		}
	}
	if lostClear != 0 {
		t.Errorf("%d scalars with bit 255 clear lost a carry", lostClear)
	}
	t.Logf("%d of the scalars with bit 255 set lost a carry", lostSet)
}

func verifyRangeSigs(t *testing.T, name string, tx *cryptonote.Transaction) int {
	t.Helper()
	r := tx.Rct
	if len(r.Prunable.RangeSigs) != len(r.OutPk) {
		t.Fatalf("%s: %d proofs for %d outputs", name, len(r.Prunable.RangeSigs), len(r.OutPk))
	}
	for i := range r.OutPk {
		if err := VerifyBorromean(r.OutPk[i], &r.Prunable.RangeSigs[i]); err != nil {
			t.Errorf("%s output %d: %v", name, i, err)
		}
	}
	return len(r.OutPk)
}

// The real Borromean proofs available offline: monero-tests' TX2 and the
// monero-rs type-2 tx (both type 2, with balance), and the two proofs of
// the type-1 tx of full_mlsag_tx.json.
func TestBorromeanRealProofs(t *testing.T) {
	proofs := 0
	tx2 := "/usr/share/monero/testdata/fuzz/transaction/TX2"
	testutil.RequireFile(t, tx2, "apt-get install monero-tests")
	blob, err := os.ReadFile(tx2)
	if err != nil {
		t.Fatal(err)
	}
	tx := parseTx(t, blob)
	if tx.Rct.Type != cryptonote.RctTypeSimple || !strings.HasPrefix(tx.ID().String(), "9d91c3a9b610ed37") {
		t.Fatalf("TX2: type %d id %s", tx.Rct.Type, tx.ID())
	}
	proofs += verifyRangeSigs(t, "TX2", tx)
	if !CheckBalance(tx.Rct.PseudoOuts, tx.Rct.OutPk, tx.Rct.TxnFee) {
		t.Error("TX2 balance")
	}
	if _, err := MessageHash(tx); err != nil {
		t.Error(err)
	}

	var rs struct {
		Txs []struct {
			TxHash string `json:"tx_hash"`
			TxHex  string `json:"tx_hex"`
		}
	}
	loadJSON(t, &rs, "testdata", "mainnet", "tx", "monero-rs-tx-vectors.json")
	found := false
	for _, v := range rs.Txs {
		if !strings.HasPrefix(v.TxHash, "4a5fd752") {
			continue
		}
		found = true
		tx := parseTx(t, unhex(t, v.TxHex))
		if tx.Rct.Type != cryptonote.RctTypeSimple || tx.ID().String() != v.TxHash {
			t.Fatalf("%s: type %d id %s", v.TxHash, tx.Rct.Type, tx.ID())
		}
		proofs += verifyRangeSigs(t, v.TxHash, tx)
		if !CheckBalance(tx.Rct.PseudoOuts, tx.Rct.OutPk, tx.Rct.TxnFee) {
			t.Error("4a5fd752 balance")
		}
	}
	if !found {
		t.Fatal("4a5fd752 not in monero-rs vectors")
	}

	fv := loadFullMLSAGVector(t)
	proofs += verifyRangeSigs(t, "full_mlsag_tx", fv.tx)
	if proofs != 6 {
		t.Fatalf("%d proofs, want 6", proofs)
	}
}

func TestBorromeanTamper(t *testing.T) {
	fv := loadFullMLSAGVector(t)
	C := fv.tx.Rct.OutPk[0]
	orig := fv.tx.Rct.Prunable.RangeSigs[0]
	if err := VerifyBorromean(C, &orig); err != nil {
		t.Fatal(err)
	}
	if VerifyBorromean(C, nil) == nil {
		t.Fatal("nil proof accepted")
	}
	if VerifyBorromean(fv.tx.Rct.OutPk[1], &orig) == nil {
		t.Fatal("proof accepted for another commitment")
	}
	// Flip bytes at a spread of positions of every field.
	for _, pos := range []int{0, 31} {
		for i := 0; i < 64; i += 21 {
			for f := range 3 {
				rs := orig
				var k *cryptonote.Key
				switch f {
				case 0:
					k = &rs.S0[i]
				case 1:
					k = &rs.S1[i]
				case 2:
					k = &rs.Ci[i]
				}
				k[pos] ^= 0x01
				if VerifyBorromean(C, &rs) == nil {
					t.Fatalf("field %d[%d] byte %d flipped: accepted", f, i, pos)
				}
			}
		}
		rs := orig
		rs.Ee[pos] ^= 1
		if VerifyBorromean(C, &rs) == nil {
			t.Fatalf("ee byte %d flipped: accepted", pos)
		}
	}
	// s0 replaced by s0 + ℓ (still below 2^256, bit 255 clear): monerod
	// reduces it silently, so the proof stays valid.
	rs := orig
	rs.S0[5] = leBytes(new(big.Int).Add(leInt(rs.S0[5]), ell))
	if err := VerifyBorromean(C, &rs); err != nil {
		t.Fatalf("s0 + ℓ refused: %v", err)
	}

	// s1 replaced by encodings with bit 255 set that monerod maps to the
	// same scalar: t + m·ℓ when the slide keeps its carries, and
	// t + 2^256 − m·ℓ when it drops one (then plain reduction mod ℓ would
	// give another scalar and the proof would fail).
	target := leInt(orig.S1[9])
	two255 := new(big.Int).Lsh(big.NewInt(1), 255)
	two256 := new(big.Int).Lsh(big.NewInt(1), 256)
	kinds := map[bool]int{}
	for m := int64(1); m <= 32; m++ {
		mell := new(big.Int).Mul(big.NewInt(m), ell)
		for _, b := range []*big.Int{new(big.Int).Add(target, mell), new(big.Int).Sub(new(big.Int).Add(target, two256), mell)} {
			if b.Cmp(two255) < 0 || b.Cmp(two256) >= 0 {
				continue
			}
			enc := leBytes(b)
			var r [256]int
			lost := slide(&r, (*[32]byte)(&enc)) > 0
			if kinds[lost] > 0 || [32]byte(effectiveScalar(enc).Bytes()) != orig.S1[9] {
				continue
			}
			rs := orig
			rs.S1[9] = enc
			if err := VerifyBorromean(C, &rs); err != nil {
				t.Fatalf("s1 = %x (carry lost: %v) refused: %v", enc, lost, err)
			}
			kinds[lost]++
		}
	}
	if kinds[true] == 0 || kinds[false] == 0 {
		t.Fatalf("equivalent unreduced encodings found: %v", kinds)
	}
}

func leInt(k cryptonote.Key) *big.Int {
	be := make([]byte, 32)
	for i := range be {
		be[i] = k[31-i]
	}
	return new(big.Int).SetBytes(be)
}

func leBytes(v *big.Int) cryptonote.Key {
	be := v.FillBytes(make([]byte, 32))
	var k cryptonote.Key
	for i := range k {
		k[i] = be[31-i]
	}
	return k
}
