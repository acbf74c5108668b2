package ringct

import (
	"errors"
	"fmt"
	"math/big"
	"testing"

	"filippo.io/edwards25519"

	"github.com/gonero/gonero/crypto"
	"github.com/gonero/gonero/cryptonote"
)

func randomPoint() [32]byte {
	return [32]byte(new(edwards25519.Point).ScalarBaseMult(randomScalar()).Bytes())
}

// commit is m·G + a·H.
func commit(m, a *edwards25519.Scalar) [32]byte {
	p := new(edwards25519.Point).VarTimeDoubleScalarBaseMult(a, crypto.H(), m)
	return [32]byte(p.Bytes())
}

// testRing is a random ring of n with the real spend at l: output key p·G,
// commitment m·G + a·H, pseudo-out m'·G + a·H, z = m − m'.
type testRing struct {
	ring      []RingMember
	l         int
	p, z      *edwards25519.Scalar
	pseudoOut [32]byte
	msg       [32]byte
}

func newTestRing(n, l int) *testRing {
	r := &testRing{ring: make([]RingMember, n), l: l, p: randomScalar()}
	for i := range r.ring {
		r.ring[i] = RingMember{Dest: randomPoint(), Mask: randomPoint()}
	}
	a := randomScalar()
	m, m2 := randomScalar(), randomScalar()
	r.ring[l].Dest = [32]byte(new(edwards25519.Point).ScalarBaseMult(r.p).Bytes())
	r.ring[l].Mask = commit(m, a)
	r.pseudoOut = commit(m2, a)
	r.z = edwards25519.NewScalar().Subtract(m, m2)
	r.msg = [32]byte(randomScalar().Bytes())
	return r
}

func plusEll(k [32]byte) [32]byte { return [32]byte(leBytes(new(big.Int).Add(leInt(k), ell))) }

// flips calls f for every byte position of b after flipping it, restoring
// it afterwards. With sample set, only the first and last bytes.
func flips(b []byte, sample bool, f func(i int)) {
	for i := range b {
		if sample && i != 0 && i != len(b)-1 {
			continue
		}
		b[i] ^= 0x01
		f(i)
		b[i] ^= 0x01
	}
}

func cloneCLSAG(s *cryptonote.Clsag) *cryptonote.Clsag {
	c := *s
	c.S = append([]cryptonote.Key(nil), s.S...)
	return &c
}

func TestCLSAGRoundTrip(t *testing.T) {
	for _, n := range []int{1, 2, 11, 16} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			r := newTestRing(n, n/2)
			sig, ki, err := SignCLSAG(r.msg, r.ring, r.pseudoOut, r.l, r.p, r.z)
			if err != nil {
				t.Fatal(err)
			}
			if want, _ := crypto.GenerateKeyImage(r.ring[r.l].Dest[:], r.p); want != ki {
				t.Fatal("key image")
			}
			verify := func() error { return VerifyCLSAG(r.msg, r.ring, r.pseudoOut, ki, sig) }
			if err := verify(); err != nil {
				t.Fatal(err)
			}
			// Every byte for small rings; for big ones every byte of the
			// real member and of the single fields, the ends of the others.
			mustFail := func(what string) func(int) {
				return func(i int) {
					if verify() == nil {
						t.Fatalf("%s byte %d flipped: accepted", what, i)
					}
				}
			}
			big := n > 2 || testing.Short()
			for i := range sig.S {
				flips(sig.S[i][:], big && i != r.l, mustFail(fmt.Sprintf("s[%d]", i)))
				flips(r.ring[i].Dest[:], big && i != r.l, mustFail(fmt.Sprintf("P[%d]", i)))
				flips(r.ring[i].Mask[:], big && i != r.l, mustFail(fmt.Sprintf("C[%d]", i)))
			}
			flips(sig.C1[:], false, mustFail("c1"))
			flips(sig.D[:], false, mustFail("D"))
			flips(ki[:], false, mustFail("key image"))
			flips(r.pseudoOut[:], false, mustFail("pseudo-out"))
			flips(r.msg[:], false, mustFail("message"))
			if err := verify(); err != nil {
				t.Fatal("restored signature refused:", err)
			}

			// Non-canonical equivalents.
			for i := range sig.S {
				bad := cloneCLSAG(sig)
				bad.S[i] = plusEll(bad.S[i])
				if err := VerifyCLSAG(r.msg, r.ring, r.pseudoOut, ki, bad); !errors.Is(err, ErrScalar) {
					t.Fatalf("s[%d]+ℓ: %v", i, err)
				}
			}
			bad := cloneCLSAG(sig)
			bad.C1 = plusEll(bad.C1)
			if err := VerifyCLSAG(r.msg, r.ring, r.pseudoOut, ki, bad); !errors.Is(err, ErrScalar) {
				t.Fatalf("c1+ℓ: %v", err)
			}
			// Sizes and degenerate points.
			bad = cloneCLSAG(sig)
			bad.S = bad.S[:n-1]
			if VerifyCLSAG(r.msg, r.ring, r.pseudoOut, ki, bad) == nil {
				t.Fatal("short s accepted")
			}
			if VerifyCLSAG(r.msg, r.ring, r.pseudoOut, [32]byte{1}, sig) == nil {
				t.Fatal("identity key image accepted")
			}
			bad = cloneCLSAG(sig)
			bad.D = cryptonote.Key{1}
			if VerifyCLSAG(r.msg, r.ring, r.pseudoOut, ki, bad) == nil {
				t.Fatal("identity D accepted")
			}
			if VerifyCLSAG(r.msg, r.ring, r.pseudoOut, ki, nil) == nil || VerifyCLSAG(r.msg, nil, r.pseudoOut, ki, sig) == nil {
				t.Fatal("nil accepted")
			}
		})
	}
}

func TestCLSAGSignerRefusals(t *testing.T) {
	r := newTestRing(4, 1)
	if _, _, err := SignCLSAG(r.msg, r.ring, r.pseudoOut, 2, r.p, r.z); err == nil {
		t.Error("wrong index accepted")
	}
	if _, _, err := SignCLSAG(r.msg, r.ring, r.pseudoOut, 1, r.z, r.p); err == nil {
		t.Error("wrong secrets accepted")
	}
	if _, _, err := SignCLSAG(r.msg, r.ring, r.pseudoOut, 4, r.p, r.z); err == nil {
		t.Error("index beyond the ring accepted")
	}
	if _, _, err := SignCLSAG(r.msg, r.ring, r.pseudoOut, 1, nil, r.z); err == nil {
		t.Error("nil secret accepted")
	}
	if _, _, err := SignCLSAG(r.msg, nil, r.pseudoOut, 0, r.p, r.z); err == nil {
		t.Error("empty ring accepted")
	}
}

func cloneMG(s *cryptonote.MgSig) *cryptonote.MgSig {
	c := &cryptonote.MgSig{Cc: s.Cc, Ss: make([][]cryptonote.Key, len(s.Ss))}
	for i := range s.Ss {
		c.Ss[i] = append([]cryptonote.Key(nil), s.Ss[i]...)
	}
	return c
}

func TestMLSAGSimpleRoundTrip(t *testing.T) {
	r1 := newTestRing(1, 0)
	if _, _, err := SignMLSAGSimple(r1.msg, r1.ring, r1.pseudoOut, 0, r1.p, r1.z); !errors.Is(err, ErrRingTooSmall) {
		t.Fatalf("ring of 1 signed: %v", err)
	}
	for _, n := range []int{2, 11, 16} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			r := newTestRing(n, n-1)
			sig, ki, err := SignMLSAGSimple(r.msg, r.ring, r.pseudoOut, r.l, r.p, r.z)
			if err != nil {
				t.Fatal(err)
			}
			verify := func() error { return VerifyMLSAGSimple(r.msg, r.ring, r.pseudoOut, ki, sig) }
			if err := verify(); err != nil {
				t.Fatal(err)
			}
			// A ring of one member cut from a valid signature is refused.
			one := &cryptonote.MgSig{Ss: sig.Ss[r.l : r.l+1], Cc: sig.Cc}
			if err := VerifyMLSAGSimple(r.msg, r.ring[r.l:r.l+1], r.pseudoOut, ki, one); !errors.Is(err, ErrRingTooSmall) {
				t.Fatalf("ring of 1: %v", err)
			}
			mustFail := func(what string) func(int) {
				return func(i int) {
					if verify() == nil {
						t.Fatalf("%s byte %d flipped: accepted", what, i)
					}
				}
			}
			big := n > 2 || testing.Short()
			for i := range sig.Ss {
				for j := range sig.Ss[i] {
					flips(sig.Ss[i][j][:], big && i != r.l, mustFail(fmt.Sprintf("ss[%d][%d]", i, j)))
				}
				flips(r.ring[i].Dest[:], big && i != r.l, mustFail(fmt.Sprintf("P[%d]", i)))
				flips(r.ring[i].Mask[:], big && i != r.l, mustFail(fmt.Sprintf("C[%d]", i)))
			}
			flips(sig.Cc[:], false, mustFail("cc"))
			flips(ki[:], false, mustFail("key image"))
			flips(r.pseudoOut[:], false, mustFail("pseudo-out"))
			flips(r.msg[:], false, mustFail("message"))
			if err := verify(); err != nil {
				t.Fatal("restored signature refused:", err)
			}
			for i := range sig.Ss {
				for j := range sig.Ss[i] {
					bad := cloneMG(sig)
					bad.Ss[i][j] = plusEll(bad.Ss[i][j])
					if err := VerifyMLSAGSimple(r.msg, r.ring, r.pseudoOut, ki, bad); !errors.Is(err, ErrScalar) {
						t.Fatalf("ss[%d][%d]+ℓ: %v", i, j, err)
					}
				}
			}
			bad := cloneMG(sig)
			bad.Cc = plusEll(bad.Cc)
			if err := VerifyMLSAGSimple(r.msg, r.ring, r.pseudoOut, ki, bad); !errors.Is(err, ErrScalar) {
				t.Fatalf("cc+ℓ: %v", err)
			}
			bad = cloneMG(sig)
			bad.Ss[0] = bad.Ss[0][:1]
			if VerifyMLSAGSimple(r.msg, r.ring, r.pseudoOut, ki, bad) == nil {
				t.Fatal("short ss row accepted")
			}
			bad.Ss[0] = nil
			if VerifyMLSAGSimple(r.msg, r.ring, r.pseudoOut, ki, bad) == nil {
				t.Fatal("nil ss row accepted")
			}
			if VerifyMLSAGSimple(r.msg, r.ring, r.pseudoOut, [32]byte{1}, sig) == nil {
				t.Fatal("identity key image accepted")
			}
			if VerifyMLSAGSimple(r.msg, r.ring, r.pseudoOut, ki, nil) == nil {
				t.Fatal("nil signature accepted")
			}
		})
	}
}

func TestMLSAGFullRoundTrip(t *testing.T) {
	for _, shape := range [][2]int{{1, 2}, {2, 5}, {3, 11}} {
		k, n := shape[0], shape[1]
		t.Run(fmt.Sprintf("%dx%d", k, n), func(t *testing.T) {
			l := n / 2
			rings := make([][]RingMember, k)
			ps := make([]*edwards25519.Scalar, k)
			sumIn, sumA := edwards25519.NewScalar(), edwards25519.NewScalar()
			for j := range rings {
				rings[j] = make([]RingMember, n)
				for i := range rings[j] {
					rings[j][i] = RingMember{Dest: randomPoint(), Mask: randomPoint()}
				}
				ps[j] = randomScalar()
				m, a := randomScalar(), crypto.ScalarFromUint64(uint64(1000+j))
				rings[j][l] = RingMember{Dest: [32]byte(new(edwards25519.Point).ScalarBaseMult(ps[j]).Bytes()), Mask: commit(m, a)}
				sumIn.Add(sumIn, m)
				sumA.Add(sumA, a)
			}
			// Two outputs and a fee take all of Σa; z = Σ masks in − Σ masks out.
			fee := uint64(7)
			mo1, mo2 := randomScalar(), randomScalar()
			a1 := crypto.ScalarFromUint64(100)
			a2 := edwards25519.NewScalar().Subtract(sumA, a1)
			a2.Subtract(a2, crypto.ScalarFromUint64(fee))
			outPk := []cryptonote.Key{commit(mo1, a1), commit(mo2, a2)}
			z := edwards25519.NewScalar().Subtract(sumIn, mo1)
			z.Subtract(z, mo2)
			msg := [32]byte(randomScalar().Bytes())

			sig, kis, err := SignMLSAGFull(msg, rings, outPk, fee, l, ps, z)
			if err != nil {
				t.Fatal(err)
			}
			verify := func() error { return VerifyMLSAGFull(msg, rings, kis, outPk, fee, sig) }
			if err := verify(); err != nil {
				t.Fatal(err)
			}
			if VerifyMLSAGFull(msg, rings, kis, outPk, fee+1, sig) == nil {
				t.Fatal("other fee accepted")
			}
			mustFail := func(what string) func(int) {
				return func(i int) {
					if verify() == nil {
						t.Fatalf("%s byte %d flipped: accepted", what, i)
					}
				}
			}
			for i := range sig.Ss {
				for j := range sig.Ss[i] {
					flips(sig.Ss[i][j][:], true, mustFail(fmt.Sprintf("ss[%d][%d]", i, j)))
				}
			}
			for j := range rings {
				for i := range rings[j] {
					flips(rings[j][i].Dest[:], true, mustFail("P"))
					flips(rings[j][i].Mask[:], true, mustFail("C"))
				}
				flips(kis[j][:], false, mustFail("key image"))
			}
			for o := range outPk {
				flips(outPk[o][:], true, mustFail("outPk"))
			}
			flips(sig.Cc[:], false, mustFail("cc"))
			flips(msg[:], false, mustFail("message"))
			if err := verify(); err != nil {
				t.Fatal("restored signature refused:", err)
			}
			if k > 1 {
				if VerifyMLSAGFull(msg, rings, kis[:k-1], outPk, fee, sig) == nil {
					t.Fatal("missing key image accepted")
				}
				short := append([][]RingMember(nil), rings...)
				short[1] = short[1][:n-1]
				if VerifyMLSAGFull(msg, short, kis, outPk, fee, sig) == nil {
					t.Fatal("ragged rings accepted")
				}
			}
		})
	}
}

func TestCheckBalance(t *testing.T) {
	a1, a2, fee := uint64(5), uint64(9), uint64(3)
	m1, m2 := randomScalar(), randomScalar()
	mIn := edwards25519.NewScalar().Add(m1, m2)
	in := []cryptonote.Key{commit(mIn, crypto.ScalarFromUint64(a1+a2+fee))}
	out := []cryptonote.Key{commit(m1, crypto.ScalarFromUint64(a1)), commit(m2, crypto.ScalarFromUint64(a2))}
	if !CheckBalance(in, out, fee) {
		t.Fatal("balanced sums refused")
	}
	if CheckBalance(in, out, fee+1) || CheckBalance(in, out[:1], fee) || CheckBalance(out, in, fee) {
		t.Fatal("unbalanced sums accepted")
	}
	if !CheckBalance(nil, nil, 0) {
		t.Fatal("empty sums refused")
	}
	bad := append([]cryptonote.Key(nil), out...)
	bad = append(bad, cryptonote.Key{1}) // identity: still balances
	if !CheckBalance(in, bad, fee) {
		t.Fatal("identity term refused")
	}
	// y = p: not canonical, so it does not decode; its lax decoding is the
	// point of y = 0, which would change the sum only by a torsion point.
	bad[2] = cryptonote.Key{0xed, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f}
	if _, err := crypto.DecodePoint(bad[2][:]); err == nil {
		t.Fatal("test encoding decodes")
	}
	if CheckBalance(in, bad, fee) || CheckBalance(bad, in, fee) {
		t.Fatal("non-decoding commitment accepted")
	}
}
