package ringct

import (
	"errors"
	"fmt"

	"filippo.io/edwards25519"

	"github.com/gonero/gonero/crypto"
	"github.com/gonero/gonero/cryptonote"
	"github.com/gonero/gonero/ringct/internal/msm"
)

var (
	tagAgg0  = domain("CLSAG_agg_0")
	tagAgg1  = domain("CLSAG_agg_1")
	tagRound = domain("CLSAG_round")
)

// clsagHashes holds the two transcripts of a CLSAG over one ring:
// agg = tag ‖ P₀…Pₙ₋₁ ‖ C₀…Cₙ₋₁ ‖ I ‖ D ‖ C' (tag swapped for μ_P and μ_C)
// and round = tag ‖ P… ‖ C… ‖ C' ‖ m ‖ L ‖ R, whose last 64 bytes change
// every round.
type clsagHashes struct {
	h     hasher
	round []byte
	muP   edwards25519.Scalar
	muC   edwards25519.Scalar
	// prefix is the hasher's state after the round transcript's fixed
	// part (some 1.1 KB for a ring of 16, eight Keccak blocks): each
	// round resumes from it and absorbs only L and R.
	prefix []byte
}

func newCLSAGHashes(msg *[32]byte, ring []RingMember, pseudoOut, keyImage, d *[32]byte) *clsagHashes {
	n := len(ring)
	t := &clsagHashes{h: newHasher()}
	buf := make([]byte, 0, 32*(2*n+5))
	buf = append(buf, tagAgg0[:]...)
	for i := range ring {
		buf = append(buf, ring[i].Dest[:]...)
	}
	for i := range ring {
		buf = append(buf, ring[i].Mask[:]...)
	}
	keys := len(buf)
	buf = append(buf, keyImage[:]...)
	buf = append(buf, d[:]...)
	buf = append(buf, pseudoOut[:]...)
	t.h.scalar(&t.muP, buf)
	copy(buf, tagAgg1[:])
	t.h.scalar(&t.muC, buf)

	// Reuse the buffer for the round transcript.
	copy(buf, tagRound[:])
	buf = buf[:keys]
	buf = append(buf, pseudoOut[:]...)
	buf = append(buf, msg[:]...)
	buf = append(buf, make([]byte, 64)...)
	t.round = buf
	t.prefix = t.h.stateAfter(buf[:len(buf)-64])
	return t
}

// next sets c = Hs(round transcript with the encodings of L, R).
func (t *clsagHashes) next(c *edwards25519.Scalar, L, R []byte) {
	tail := t.round[len(t.round)-64:]
	copy(tail, L)
	copy(tail[32:], R)
	if t.prefix == nil {
		t.h.scalar(c, t.round)
		return
	}
	t.h.scalarFrom(c, t.prefix, tail)
}

// VerifyCLSAG is monerod's verRctCLSAGSimple: it checks the CLSAG sig of one
// input over ring (the referenced outputs' keys and commitments, in ring
// order), with the input's pseudo-out commitment and key image, on message
// msg (MessageHash). It returns nil when the signature is valid, otherwise an
// error saying why not.
//
// Like monerod it requires a non-empty ring, one s per member, canonical s
// and c1, a key image other than the identity encoding, and D decoding with
// 8·D not the identity; every ring key and commitment, the pseudo-out and
// the key image must decode. It does not test the key image's subgroup
// (crypto.CheckKeyImage is a separate rule).
func VerifyCLSAG(msg [32]byte, ring []RingMember, pseudoOut [32]byte, keyImage [32]byte, sig *cryptonote.Clsag) error {
	n := len(ring)
	if sig == nil {
		return ErrNilSignature
	}
	if n == 0 {
		return ErrEmptyRing
	}
	if len(sig.S) != n {
		return fmt.Errorf("%w: %d scalars for %d members", ErrSize, len(sig.S), n)
	}
	s := make([]edwards25519.Scalar, n)
	for i := range s {
		if err := decodeScalar(&s[i], sig.S[i][:]); err != nil {
			return fmt.Errorf("ringct: CLSAG s[%d]: %w", i, err)
		}
	}
	var c1 edwards25519.Scalar
	if err := decodeScalar(&c1, sig.C1[:]); err != nil {
		return fmt.Errorf("ringct: CLSAG c1: %w", err)
	}
	if crypto.IsIdentityEncoding(keyImage[:]) {
		return ErrKeyImage
	}
	// The points are msm.Points: its three-term multiscalar multiplication
	// takes about half the time of edwards25519's, and the ring loop is
	// nearly all of a CLSAG's cost. decodeVoi applies monerod's decoding
	// rules, as decodePoint does.
	cOff, ok := decodeVoi(pseudoOut[:])
	if !ok {
		return fmt.Errorf("ringct: pseudo-out: %w", ErrPoint)
	}
	D8, ok := decodeVoi(sig.D[:])
	if !ok {
		return fmt.Errorf("ringct: CLSAG D: %w", ErrPoint)
	}
	if D8.MulByCofactor(D8).IsIdentity() {
		return errors.New("ringct: CLSAG 8·D is the identity")
	}
	I, ok := decodeVoi(keyImage[:])
	if !ok {
		return fmt.Errorf("ringct: key image: %w", ErrPoint)
	}

	d := [32]byte(sig.D)
	t := newCLSAGHashes(&msg, ring, &pseudoOut, &keyImage, &d)

	var (
		c              edwards25519.Scalar
		vs, vc, vP, vC msm.Scalar
		L, R, C        msm.Point // destinations
		lEnc, rEnc     [32]byte
		muPVoi, muCV   = msm.NewScalar(&t.muP), msm.NewScalar(&t.muC)
	)
	// R = s·Hp(P) + c·μP·I + c·μC·D = s·Hp(P) + c·(μP·I + μC·D): the
	// second term's point is the same for every member, so it is summed
	// once and its table built once, and each member's R is a sum of two
	// terms instead of three.
	V := msm.Expand(new(msm.Point).Sum2(muPVoi, I, muCV, D8))
	c.Set(&c1)
	for i := range n {
		// P, Hp(P) and the commitment depend on the member's bytes alone:
		// taken from the cache when the member was in an earlier ring
		// (decoys recur).
		kp, hit := ringKeys.Get(ring[i])
		if !hit {
			if kp.p, ok = decodeVoi(ring[i].Dest[:]); !ok {
				return fmt.Errorf("ringct: ring key %d: %w", i, ErrPoint)
			}
			if kp.c, ok = decodeVoi(ring[i].Mask[:]); !ok {
				return fmt.Errorf("ringct: ring commitment %d: %w", i, ErrPoint)
			}
			var err error
			if kp.hp, err = hashToECVoi(ring[i].Dest[:]); err != nil {
				return fmt.Errorf("ringct: ring key %d: %w", i, err)
			}
			ringKeys.Put(ring[i], kp)
		}
		C.Sub(kp.c, cOff)
		vs.Set(&s[i])
		vc.Set(&c)
		vC.Mul(&vc, muCV)
		vP.Mul(&vc, muPVoi)
		// L = s·G + c·μP·P + c·μC·C (G's table built once for all),
		// R = s·Hp(P) + c·V
		L.SumE1P2(&vs, voiGx, &vP, kp.p, &vC, &C).Encode(&lEnc)
		R.SumE1P1(&vc, V, &vs, kp.hp).Encode(&rEnc)
		t.next(&c, lEnc[:], rEnc[:])
		if c.Equal(zeroS) == 1 {
			return ErrZeroHash
		}
	}
	if c.Equal(&c1) != 1 {
		return ErrMismatch
	}
	return nil
}

// hashToECVoi is crypto.HashToEC with the result as an msm.Point.
func hashToECVoi(b []byte) (*msm.Point, error) {
	hp, err := crypto.HashToEC(b)
	if err != nil {
		return nil, err
	}
	return msm.FromEdwards(hp), nil
}

// SignCLSAG is monerod's CLSAG_Gen, for tests and tools (a wallet needs it
// too). It signs msg for the member at index l of ring, whose output key is
// p·G and whose commitment minus pseudoOut is z·G. It returns the signature
// and the key image p·Hp(P_l). Nonces and decoy scalars come from
// crypto/rand.
func SignCLSAG(msg [32]byte, ring []RingMember, pseudoOut [32]byte, l int, p, z *edwards25519.Scalar) (*cryptonote.Clsag, [32]byte, error) {
	n := len(ring)
	if n == 0 {
		return nil, [32]byte{}, ErrEmptyRing
	}
	if l < 0 || l >= n {
		return nil, [32]byte{}, errors.New("ringct: signer index outside the ring")
	}
	if p == nil || z == nil {
		return nil, [32]byte{}, errors.New("ringct: missing secret")
	}
	var cOff edwards25519.Point
	if err := decodePoint(&cOff, pseudoOut[:]); err != nil {
		return nil, [32]byte{}, fmt.Errorf("ringct: pseudo-out: %w", err)
	}
	P := make([]edwards25519.Point, n)
	C := make([]edwards25519.Point, n) // C_i − C'
	for i := range ring {
		if err := decodePoint(&P[i], ring[i].Dest[:]); err != nil {
			return nil, [32]byte{}, fmt.Errorf("ringct: ring key %d: %w", i, err)
		}
		if err := decodePoint(&C[i], ring[i].Mask[:]); err != nil {
			return nil, [32]byte{}, fmt.Errorf("ringct: ring commitment %d: %w", i, err)
		}
		C[i].Subtract(&C[i], &cOff)
	}
	var check edwards25519.Point
	if check.ScalarBaseMult(p).Equal(&P[l]) != 1 {
		return nil, [32]byte{}, errors.New("ringct: secret key does not match the ring key")
	}
	if check.ScalarBaseMult(z).Equal(&C[l]) != 1 {
		return nil, [32]byte{}, errors.New("ringct: commitment secret does not match commitment − pseudo-out")
	}

	hl, err := crypto.HashToEC(ring[l].Dest[:])
	if err != nil {
		return nil, [32]byte{}, err
	}
	var I, D, D8 edwards25519.Point
	I.ScalarMult(p, hl)
	D8.ScalarMult(z, hl) // D before the 1/8 offset
	D.ScalarMult(invEight, &D8)
	ki := [32]byte(I.Bytes())
	sig := &cryptonote.Clsag{S: make([]cryptonote.Key, n), D: cryptonote.Key(D.Bytes())}
	d := [32]byte(sig.D)
	t := newCLSAGHashes(&msg, ring, &pseudoOut, &ki, &d)

	a := randomScalar()
	var L, R edwards25519.Point
	L.ScalarBaseMult(a)
	R.ScalarMult(a, hl)
	var c, cP, cC edwards25519.Scalar
	t.next(&c, L.Bytes(), R.Bytes())

	for i := (l + 1) % n; i != l; i = (i + 1) % n {
		if i == 0 {
			sig.C1 = cryptonote.Key(c.Bytes())
		}
		s := randomScalar()
		sig.S[i] = cryptonote.Key(s.Bytes())
		cP.Multiply(&t.muP, &c)
		cC.Multiply(&t.muC, &c)
		hp, err := crypto.HashToEC(ring[i].Dest[:])
		if err != nil {
			return nil, [32]byte{}, err
		}
		L.VarTimeMultiScalarMult([]*edwards25519.Scalar{s, &cP, &cC}, []*edwards25519.Point{generator, &P[i], &C[i]})
		R.VarTimeMultiScalarMult([]*edwards25519.Scalar{s, &cP, &cC}, []*edwards25519.Point{hp, &I, &D8})
		t.next(&c, L.Bytes(), R.Bytes())
	}
	if l == 0 {
		sig.C1 = cryptonote.Key(c.Bytes())
	}
	// s_l = a − c·(μ_P·p + μ_C·z)
	var sl edwards25519.Scalar
	sl.Multiply(&t.muP, p)
	sl.MultiplyAdd(&t.muC, z, &sl)
	sl.Multiply(&sl, &c)
	sl.Subtract(a, &sl)
	sig.S[l] = cryptonote.Key(sl.Bytes())
	return sig, ki, nil
}
