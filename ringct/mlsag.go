package ringct

import (
	"errors"
	"fmt"

	"filippo.io/edwards25519"

	"github.com/gonero/gonero/crypto"
	"github.com/gonero/gonero/cryptonote"
)

// ErrRingTooSmall is returned for an MLSAG over fewer than two members
// (monerod: "Signature must contain more than one public key").
var ErrRingTooSmall = errors.New("ringct: MLSAG ring has fewer than 2 members")

// mlsagKey is one matrix entry: its encoding (hashed) and its point.
type mlsagKey struct {
	b [32]byte
	p edwards25519.Point
}

func (k *mlsagKey) setBytes(b []byte) error {
	copy(k.b[:], b)
	return decodePoint(&k.p, b)
}

func (k *mlsagKey) setPoint(p *edwards25519.Point) {
	k.p.Set(p)
	k.b = [32]byte(p.Bytes())
}

// newMatrix allocates cols × rows entries in one block.
func newMatrix(cols, rows int) [][]mlsagKey {
	all := make([]mlsagKey, cols*rows)
	m := make([][]mlsagKey, cols)
	for i := range m {
		m[i] = all[i*rows : (i+1)*rows : (i+1)*rows]
	}
	return m
}

// mlsagVerify is MLSAG_Ver over the matrix pk (pk[i][j]: ring member i,
// row j) whose first len(keyImages) rows are linkable.
func mlsagVerify(msg *[32]byte, pk [][]mlsagKey, keyImages [][32]byte, sig *cryptonote.MgSig) error {
	if sig == nil {
		return ErrNilSignature
	}
	cols := len(pk)
	if cols < 2 {
		return ErrRingTooSmall
	}
	rows := len(pk[0])
	ds := len(keyImages)
	if rows < 1 || ds > rows {
		return ErrSize
	}
	if len(sig.Ss) != cols {
		return fmt.Errorf("%w: ss has %d columns for %d members", ErrSize, len(sig.Ss), cols)
	}
	ss := make([]edwards25519.Scalar, cols*rows)
	for i := range cols {
		if len(pk[i]) != rows || len(sig.Ss[i]) != rows {
			return fmt.Errorf("%w: ss[%d] has %d entries for %d rows", ErrSize, i, len(sig.Ss[i]), rows)
		}
		for j := range rows {
			if err := decodeScalar(&ss[i*rows+j], sig.Ss[i][j][:]); err != nil {
				return fmt.Errorf("ringct: MLSAG ss[%d][%d]: %w", i, j, err)
			}
		}
	}
	var cc edwards25519.Scalar
	if err := decodeScalar(&cc, sig.Cc[:]); err != nil {
		return fmt.Errorf("ringct: MLSAG cc: %w", err)
	}
	II := make([]edwards25519.Point, ds)
	for j := range keyImages {
		if crypto.IsIdentityEncoding(keyImages[j][:]) {
			return ErrKeyImage
		}
		if err := decodePoint(&II[j], keyImages[j][:]); err != nil {
			return fmt.Errorf("ringct: key image %d: %w", j, err)
		}
	}

	h := newHasher()
	buf := make([]byte, 32*(1+3*ds+2*(rows-ds)))
	copy(buf, msg[:])
	var (
		c     edwards25519.Scalar
		L, R  edwards25519.Point
		scal  = [2]*edwards25519.Scalar{nil, &c}
		pts   = [2]*edwards25519.Point{}
		entry []byte
	)
	c.Set(&cc)
	for i := range cols {
		entry = buf[32:32]
		for j := range rows {
			s := &ss[i*rows+j]
			L.VarTimeDoubleScalarBaseMult(&c, &pk[i][j].p, s)
			entry = append(entry, pk[i][j].b[:]...)
			entry = append(entry, L.Bytes()...)
			if j < ds {
				hp, err := crypto.HashToEC(pk[i][j].b[:])
				if err != nil {
					return fmt.Errorf("ringct: ring key %d: %w", i, err)
				}
				if isIdentity(hp) {
					return errors.New("ringct: ring key hashed to the identity")
				}
				scal[0], pts[0], pts[1] = s, hp, &II[j]
				R.VarTimeMultiScalarMult(scal[:], pts[:])
				entry = append(entry, R.Bytes()...)
			}
		}
		h.scalar(&c, buf)
		if c.Equal(zeroS) == 1 {
			return ErrZeroHash
		}
	}
	if c.Equal(&cc) != 1 {
		return ErrMismatch
	}
	return nil
}

// simpleMatrix builds verRctMGSimple's matrix: column i = (P_i, C_i − C').
func simpleMatrix(ring []RingMember, pseudoOut *[32]byte) ([][]mlsagKey, error) {
	var cOff, C edwards25519.Point
	if err := decodePoint(&cOff, pseudoOut[:]); err != nil {
		return nil, fmt.Errorf("ringct: pseudo-out: %w", err)
	}
	m := newMatrix(len(ring), 2)
	for i := range ring {
		if err := m[i][0].setBytes(ring[i].Dest[:]); err != nil {
			return nil, fmt.Errorf("ringct: ring key %d: %w", i, err)
		}
		if err := decodePoint(&C, ring[i].Mask[:]); err != nil {
			return nil, fmt.Errorf("ringct: ring commitment %d: %w", i, err)
		}
		m[i][1].setPoint(C.Subtract(&C, &cOff))
	}
	return m, nil
}

// fullMatrix builds verRctMG's matrix for rings[input][member]: column i =
// (P_{i,1}, …, P_{i,k}, Σ_j C_{i,j} − Σ outPk − fee·H).
func fullMatrix(rings [][]RingMember, outPk []cryptonote.Key, fee uint64) ([][]mlsagKey, error) {
	k := len(rings)
	if k == 0 {
		return nil, ErrEmptyRing
	}
	n := len(rings[0])
	for j := range rings {
		if len(rings[j]) != n {
			return nil, errors.New("ringct: rings of a full MLSAG differ in size")
		}
	}
	out, ok := sumPoints(outPk)
	if !ok {
		return nil, fmt.Errorf("ringct: output commitment: %w", ErrPoint)
	}
	out.Add(out, crypto.ScalarMultH(fee))
	m := newMatrix(n, k+1)
	var sum, C edwards25519.Point
	for i := range n {
		sum.Set(identity)
		for j := range k {
			if err := m[i][j].setBytes(rings[j][i].Dest[:]); err != nil {
				return nil, fmt.Errorf("ringct: ring %d key %d: %w", j, i, err)
			}
			if err := decodePoint(&C, rings[j][i].Mask[:]); err != nil {
				return nil, fmt.Errorf("ringct: ring %d commitment %d: %w", j, i, err)
			}
			sum.Add(&sum, &C)
		}
		m[i][k].setPoint(sum.Subtract(&sum, out))
	}
	return m, nil
}

// VerifyMLSAGSimple is monerod's verRctMGSimple (RingCT types 2–4): the
// MLSAG of one input over ring with the input's pseudo-out and key image,
// on message msg. Rows: the ring key (linkable) and C_i − pseudoOut. It
// returns nil when valid. Rings of fewer than two members are refused.
func VerifyMLSAGSimple(msg [32]byte, ring []RingMember, pseudoOut, keyImage [32]byte, sig *cryptonote.MgSig) error {
	if sig == nil {
		return ErrNilSignature
	}
	if len(ring) == 0 {
		return ErrEmptyRing
	}
	m, err := simpleMatrix(ring, &pseudoOut)
	if err != nil {
		return err
	}
	return mlsagVerify(&msg, m, [][32]byte{keyImage}, sig)
}

// VerifyMLSAGFull is monerod's verRctMG (RingCT type 1): the one MLSAG of
// the transaction, over rings[input][member] (all of one size), with the
// inputs' key images in input order, the outputs' commitments and the fee.
// It returns nil when valid.
func VerifyMLSAGFull(msg [32]byte, rings [][]RingMember, keyImages [][32]byte, outPk []cryptonote.Key, fee uint64, sig *cryptonote.MgSig) error {
	if sig == nil {
		return ErrNilSignature
	}
	if len(keyImages) != len(rings) {
		return fmt.Errorf("%w: %d key images for %d inputs", ErrSize, len(keyImages), len(rings))
	}
	m, err := fullMatrix(rings, outPk, fee)
	if err != nil {
		return err
	}
	return mlsagVerify(&msg, m, keyImages, sig)
}

// mlsagSign is MLSAG_Gen: secrets xx[j] with pk[index][j] = xx[j]·G; the
// first ds rows are linkable.
func mlsagSign(msg *[32]byte, pk [][]mlsagKey, xx []*edwards25519.Scalar, index, ds int) (*cryptonote.MgSig, [][32]byte, error) {
	cols := len(pk)
	if cols < 2 {
		return nil, nil, ErrRingTooSmall
	}
	if index < 0 || index >= cols {
		return nil, nil, errors.New("ringct: signer index outside the ring")
	}
	rows := len(pk[0])
	if len(xx) != rows || ds > rows {
		return nil, nil, ErrSize
	}
	var check edwards25519.Point
	for j, x := range xx {
		if x == nil || check.ScalarBaseMult(x).Equal(&pk[index][j].p) != 1 {
			return nil, nil, fmt.Errorf("ringct: secret %d does not match the signer's column", j)
		}
	}
	sig := &cryptonote.MgSig{Ss: make([][]cryptonote.Key, cols)}
	for i := range sig.Ss {
		sig.Ss[i] = make([]cryptonote.Key, rows)
	}
	II := make([]edwards25519.Point, ds)
	ki := make([][32]byte, ds)
	alpha := make([]*edwards25519.Scalar, rows)

	h := newHasher()
	buf := make([]byte, 0, 32*(1+3*ds+2*(rows-ds)))
	buf = append(buf, msg[:]...)
	var L, R edwards25519.Point
	for j := range rows {
		alpha[j] = randomScalar()
		buf = append(buf, pk[index][j].b[:]...)
		buf = append(buf, L.ScalarBaseMult(alpha[j]).Bytes()...)
		if j < ds {
			hp, err := crypto.HashToEC(pk[index][j].b[:])
			if err != nil {
				return nil, nil, err
			}
			buf = append(buf, R.ScalarMult(alpha[j], hp).Bytes()...)
			II[j].ScalarMult(xx[j], hp)
			ki[j] = [32]byte(II[j].Bytes())
		}
	}
	var c edwards25519.Scalar
	h.scalar(&c, buf)
	for i := (index + 1) % cols; i != index; i = (i + 1) % cols {
		if i == 0 {
			sig.Cc = cryptonote.Key(c.Bytes())
		}
		entry := buf[32:32]
		for j := range rows {
			s := randomScalar()
			sig.Ss[i][j] = cryptonote.Key(s.Bytes())
			L.VarTimeDoubleScalarBaseMult(&c, &pk[i][j].p, s)
			entry = append(entry, pk[i][j].b[:]...)
			entry = append(entry, L.Bytes()...)
			if j < ds {
				hp, err := crypto.HashToEC(pk[i][j].b[:])
				if err != nil {
					return nil, nil, err
				}
				R.VarTimeMultiScalarMult([]*edwards25519.Scalar{s, &c}, []*edwards25519.Point{hp, &II[j]})
				entry = append(entry, R.Bytes()...)
			}
		}
		h.scalar(&c, buf)
	}
	if index == 0 {
		sig.Cc = cryptonote.Key(c.Bytes())
	}
	var s edwards25519.Scalar
	for j := range rows { // ss = α − c·x
		s.Multiply(&c, xx[j])
		s.Subtract(alpha[j], &s)
		sig.Ss[index][j] = cryptonote.Key(s.Bytes())
	}
	return sig, ki, nil
}

// SignMLSAGSimple is MLSAG_Gen for a simple RingCT input (types 2–4), for
// tests and tools (a wallet needs it too): it signs msg for ring member l,
// whose output key is p·G and whose commitment minus pseudoOut is z·G, and
// returns the signature and the key image. Rings of one member are refused,
// as monerod refuses them.
func SignMLSAGSimple(msg [32]byte, ring []RingMember, pseudoOut [32]byte, l int, p, z *edwards25519.Scalar) (*cryptonote.MgSig, [32]byte, error) {
	m, err := simpleMatrix(ring, &pseudoOut)
	if err != nil {
		return nil, [32]byte{}, err
	}
	sig, ki, err := mlsagSign(&msg, m, []*edwards25519.Scalar{p, z}, l, 1)
	if err != nil {
		return nil, [32]byte{}, err
	}
	return sig, ki[0], nil
}

// SignMLSAGFull is MLSAG_Gen for a full RingCT transaction (type 1), for
// tests and tools: rings[input][member], the real spend at member l of every
// ring with secret keys ps[input], and z the secret of the last row,
// Σ_j C_{l,j} − Σ outPk − fee·H = z·G. It returns the signature and the key
// images in input order.
func SignMLSAGFull(msg [32]byte, rings [][]RingMember, outPk []cryptonote.Key, fee uint64, l int, ps []*edwards25519.Scalar, z *edwards25519.Scalar) (*cryptonote.MgSig, [][32]byte, error) {
	if len(ps) != len(rings) {
		return nil, nil, ErrSize
	}
	m, err := fullMatrix(rings, outPk, fee)
	if err != nil {
		return nil, nil, err
	}
	xx := append(append([]*edwards25519.Scalar(nil), ps...), z)
	return mlsagSign(&msg, m, xx, l, len(rings))
}
