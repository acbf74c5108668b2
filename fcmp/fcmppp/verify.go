package fcmppp

import (
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"

	"filippo.io/edwards25519"
	"golang.org/x/crypto/blake2b"

	"github.com/gonero/gonero/fcmp/ec"
	"github.com/gonero/gonero/fcmp/gbp"
	"github.com/gonero/gonero/fcmp/helioselene"
	"github.com/gonero/gonero/fcmp/transcript"
)

// Errors of reading and verifying. Every one means "does not verify".
var (
	ErrSize       = errors.New("fcmppp: proof length is not proof_size(inputs, layers)")
	ErrShape      = errors.New("fcmppp: no input, no layer, or a count mismatch")
	ErrEncoding   = errors.New("fcmppp: malformed point or scalar")
	ErrIdentity   = errors.New("fcmppp: identity point where a coordinate is needed")
	ErrGenerators = errors.New("fcmppp: the circuit needs more generators than there are")
)

// Params are the fixed values a verifier needs: both curves' generators and hash-init points, the
// Ed25519 generators G, T, U, V, and the tables the discrete-log gadgets derive from them.
type Params struct {
	selene         *gbp.SeleneGenerators
	helios         *gbp.HeliosGenerators
	seleneHashInit helioselene.SelenePoint
	heliosHashInit helioselene.HeliosPoint
	g, t, u, v     *edwards25519.Point

	wei            seleneCurve // Wei25519, the Ed25519 points' curve, over 2^255-19 (the Selene circuit)
	heliosOnC1     seleneCurve // Helios over 2^255-19, whose points the Selene circuit opens
	seleneOnC2     heliosCurve // Selene over the Helioselene field, whose points the Helios circuit opens
	tT, tU, tV, tG seleneTable
	tH2            seleneTable // Helios's h
	tH1            heliosTable // Selene's h
}

func fieldBE25519(h string) helioselene.Field25519 {
	b, _ := hex.DecodeString(h)
	for i, j := 0, len(b)-1; i < j; i, j = i+1, j-1 {
		b[i], b[j] = b[j], b[i]
	}
	var f helioselene.Field25519
	if _, err := f.SetBytes(b); err != nil {
		panic(err)
	}
	return f
}

// NewParams builds the parameters from the tree's generators (fcmp/tree: Selene() and Helios(), the
// hash inits) and T, U, V.
func NewParams(selene *gbp.SeleneGenerators, helios *gbp.HeliosGenerators, seleneHashInit helioselene.SelenePoint,
	heliosHashInit helioselene.HeliosPoint, T, U, V *edwards25519.Point) (*Params, error) {
	p := &Params{selene: selene, helios: helios, seleneHashInit: seleneHashInit, heliosHashInit: heliosHashInit,
		g: edwards25519.NewGeneratorPoint(), t: T, u: U, v: V}
	// Wei25519's a and b (draft-ietf-lwig-curve-representations-02 E.3, as ec-divisors spells them).
	p.wei = seleneCurve{a: fieldBE25519("2aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa984914a144"),
		b: fieldBE25519("7b425ed097b425ed097b425ed097b425ed097b425ed097b4260b5e9c7710c864")}
	// Both curves are y² = x³ - 3x + b; b is read back from a point of each (b = y² - x³ + 3x).
	hh := helios.H()
	hx, hy, err := hh.XY()
	if err != nil {
		return nil, err
	}
	p.heliosOnC1.a.SetUint64(3)
	p.heliosOnC1.a.Negate(&p.heliosOnC1.a)
	p.heliosOnC1.b = curveB25519(&hx, &hy)
	sh := selene.H()
	sx, sy, err := sh.XY()
	if err != nil {
		return nil, err
	}
	p.seleneOnC2.a.SetUint64(3)
	p.seleneOnC2.a.Negate(&p.seleneOnC2.a)
	p.seleneOnC2.b = curveBHS(&sx, &sy)
	table := func(pt *edwards25519.Point) (seleneTable, error) {
		x, y, err := ec.ToWei25519(pt)
		if err != nil {
			return nil, err
		}
		return newSeleneTable(&p.wei, x, y, ed25519Bits), nil
	}
	if p.tT, err = table(T); err != nil {
		return nil, err
	}
	if p.tU, err = table(U); err != nil {
		return nil, err
	}
	if p.tV, err = table(V); err != nil {
		return nil, err
	}
	if p.tG, err = table(p.g); err != nil {
		return nil, err
	}
	p.tH2 = newSeleneTable(&p.heliosOnC1, hx, hy, heliosBits)
	p.tH1 = newHeliosTable(&p.seleneOnC2, sx, sy, seleneBits)
	return p, nil
}

func curveB25519(x, y *helioselene.Field25519) helioselene.Field25519 {
	var b, t helioselene.Field25519
	b.Square(y)
	t.Square(x)
	t.Mul(&t, x)
	b.Sub(&b, &t)
	t.Double(x)
	t.Add(&t, x)
	b.Add(&b, &t)
	return b
}

func curveBHS(x, y *helioselene.HelioseleneField) helioselene.HelioseleneField {
	var b, t helioselene.HelioseleneField
	b.Square(y)
	t.Square(x)
	t.Mul(&t, x)
	b.Sub(&b, &t)
	t.Double(x)
	t.Add(&t, x)
	b.Add(&b, &t)
	return b
}

// input is a re-randomised input tuple with its coordinates on Wei25519.
type input struct {
	oTilde, iTilde, r, cTilde *edwards25519.Point
	enc                       [4][32]byte // O~, I~, R, C~ as encoded
}

// sal is a spend-authorisation-and-linkability proof.
type sal struct {
	P, A, B, RO, RP, RL                *edwards25519.Point
	sAlpha, sBeta, sDelta, sY, sZ, sRP *edwards25519.Scalar
	enc                                [6][32]byte
}

// Proof is a read FCMP++ proof.
type Proof struct {
	layers     int
	inputs     []input
	sals       []sal
	membership []byte
	pok        [64]byte
}

// readEd25519 decodes a point as d06d9518's Ed25519::read_G: a valid, canonically encoded point in the
// prime-order subgroup.
func readEd25519(b []byte) (*edwards25519.Point, error) {
	p, err := new(edwards25519.Point).SetBytes(b)
	if err != nil || !canonicalEd25519(b) || !torsionFree(p) {
		return nil, ErrEncoding
	}
	return p, nil
}

// canonicalEd25519 reports whether the encoding of a decodable point is the one its Bytes gives back,
// without the inversion re-encoding takes: SetBytes accepts a y of at least 2^255 - 19 (y mod p is
// decoded) and the sign bit set on x = 0 (y = 1 or y = -1); every other encoding decodes to a point
// whose x has the sign bit's parity, and so re-encodes to itself.
func canonicalEd25519(b []byte) bool {
	y := [32]byte(b)
	sign := y[31] >> 7
	y[31] &= 0x7f
	// y < p = 2^255 - 19: compared from the most significant byte.
	for i := 31; i >= 0; i-- {
		pi := byte(0xff)
		switch i {
		case 31:
			pi = 0x7f
		case 0:
			pi = 0xed
		}
		if y[i] != pi {
			if y[i] > pi {
				return false
			}
			break
		}
		if i == 0 {
			return false // y = p
		}
	}
	if sign == 1 {
		one := [32]byte{1}
		minusOne := [32]byte{0: 0xec, 31: 0x7f}
		for i := 1; i < 31; i++ {
			minusOne[i] = 0xff
		}
		if y == one || y == minusOne {
			return false
		}
	}
	return true
}

// lMinus1 is the Ed25519 group order minus one.
var lMinus1, _ = new(edwards25519.Scalar).SetCanonicalBytes([]byte{
	0xec, 0xd3, 0xf5, 0x5c, 0x1a, 0x63, 0x12, 0x58, 0xd6, 0x9c, 0xf7, 0xa2, 0xde, 0xf9, 0xde, 0x14,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x10})

// torsionFree reports whether l·P is the identity, computed as (l-1)·P + P with the variable-time
// double-base multiplication (P is public), a third of the constant-time ScalarMult's cost.
func torsionFree(p *edwards25519.Point) bool {
	q := new(edwards25519.Point).VarTimeDoubleScalarBaseMult(lMinus1, p, edwards25519.NewScalar())
	q.Add(q, p)
	return q.Equal(edwards25519.NewIdentityPoint()) == 1
}

func readScalar(b []byte) (*edwards25519.Scalar, error) {
	s, err := new(edwards25519.Scalar).SetCanonicalBytes(b)
	if err != nil {
		return nil, ErrEncoding
	}
	return s, nil
}

// Read reads a proof as FcmpPlusPlus::read does, with the transaction's pseudo-outs (one per input, the
// C~ of each) and the tree's layer count; proof must be exactly ProofSize(len(pseudoOuts), layers)
// bytes.
func Read(pseudoOuts [][32]byte, layers int, proof []byte) (*Proof, error) {
	n := len(pseudoOuts)
	if n == 0 || layers <= 0 || n > 1<<16 || layers > 1<<16 {
		return nil, ErrShape
	}
	// No proof whose circuits outgrow d06d9518's generators (4096 Selene, 2048 Helios) can verify;
	// refusing them first keeps a hostile size from costing a huge layout.
	if c1, c2 := ipaRows(n, layers); c1 > 4096 || c2 > 2048 {
		return nil, ErrGenerators
	}
	if len(proof) != ProofSize(n, layers) {
		return nil, ErrSize
	}
	pr := &Proof{layers: layers}
	for k := 0; k < n; k++ {
		var in input
		var err error
		if in.cTilde, err = readEd25519(pseudoOuts[k][:]); err != nil {
			return nil, err
		}
		in.enc[3] = pseudoOuts[k]
		pts := []**edwards25519.Point{&in.oTilde, &in.iTilde, &in.r}
		for i, pp := range pts {
			copy(in.enc[i][:], proof[32*i:])
			if *pp, err = readEd25519(proof[32*i : 32*i+32]); err != nil {
				return nil, err
			}
		}
		proof = proof[96:]
		var s sal
		for i, pp := range []**edwards25519.Point{&s.P, &s.A, &s.B, &s.RO, &s.RP, &s.RL} {
			copy(s.enc[i][:], proof[32*i:])
			if *pp, err = readEd25519(proof[32*i : 32*i+32]); err != nil {
				return nil, err
			}
		}
		proof = proof[192:]
		for i, sp := range []**edwards25519.Scalar{&s.sAlpha, &s.sBeta, &s.sDelta, &s.sY, &s.sZ, &s.sRP} {
			if *sp, err = readScalar(proof[32*i : 32*i+32]); err != nil {
				return nil, err
			}
		}
		proof = proof[192:]
		pr.inputs = append(pr.inputs, in)
		pr.sals = append(pr.sals, s)
	}
	pr.membership = proof[:len(proof)-64]
	copy(pr.pok[:], proof[len(proof)-64:])
	return pr, nil
}

// Batch collects queued proofs' checks on the three curves.
type Batch struct {
	edScalars          []*edwards25519.Scalar
	edPoints           []*edwards25519.Point
	edG, edT, edU, edV edwards25519.Scalar
	selene             gbp.SeleneBatch
	helios             gbp.HeliosBatch
	c1                 seleneCircuit // the circuits being laid out, kept for the next proof
	c2                 heliosCircuit
}

func randEd() *edwards25519.Scalar {
	var b [64]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("fcmppp: no randomness: " + err.Error())
	}
	s, _ := new(edwards25519.Scalar).SetUniformBytes(b[:])
	return s
}

func rand25519() helioselene.Field25519 {
	var b [64]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("fcmppp: no randomness: " + err.Error())
	}
	var s helioselene.Field25519
	s.SetWideBytes(&b)
	return s
}

func randHS() helioselene.HelioseleneField {
	var b [64]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("fcmppp: no randomness: " + err.Error())
	}
	var s helioselene.HelioseleneField
	s.SetWideBytes(&b)
	return s
}

func (b *Batch) edAdd(w *edwards25519.Scalar, s *edwards25519.Scalar, p *edwards25519.Point) {
	b.edScalars = append(b.edScalars, new(edwards25519.Scalar).Multiply(w, s))
	b.edPoints = append(b.edPoints, p)
}

// queueSAL queues an SA+L proof's four equations, each under its own random weight.
func (p *Params) queueSAL(b *Batch, s *sal, in *input, txHash [32]byte, L *edwards25519.Point, lEnc []byte) {
	h, _ := blake2b.New512(nil)
	h.Write(txHash[:])
	h.Write(in.enc[0][:])
	h.Write(in.enc[1][:])
	h.Write(in.enc[3][:])
	h.Write(in.enc[2][:])
	h.Write(lEnc)
	for i := range s.enc {
		h.Write(s.enc[i][:])
	}
	e, _ := new(edwards25519.Scalar).SetUniformBytes(h.Sum(nil))
	one := new(edwards25519.Scalar)
	one.SetCanonicalBytes([]byte{1, 31: 0})
	var t edwards25519.Scalar
	fixed := func(acc *edwards25519.Scalar, w, s *edwards25519.Scalar) {
		t.Multiply(w, s)
		acc.Subtract(acc, &t)
	}
	// e²P + eA + B = s_α·e·G + s_β·e·V + s_α·s_β·U + s_δ·T
	w := randEd()
	var e2, x edwards25519.Scalar
	e2.Multiply(e, e)
	b.edAdd(w, &e2, s.P)
	b.edAdd(w, e, s.A)
	b.edAdd(w, one, s.B)
	fixed(&b.edG, w, x.Multiply(s.sAlpha, e))
	fixed(&b.edV, w, x.Multiply(s.sBeta, e))
	fixed(&b.edU, w, x.Multiply(s.sAlpha, s.sBeta))
	fixed(&b.edT, w, s.sDelta)
	// R_O + e·O~ = s_α·G + s_y·T
	w = randEd()
	b.edAdd(w, one, s.RO)
	b.edAdd(w, e, in.oTilde)
	fixed(&b.edG, w, s.sAlpha)
	fixed(&b.edT, w, s.sY)
	// R_P + e·(P - O~ - R) = s_z·U + s_r_p·T
	w = randEd()
	d := new(edwards25519.Point).Subtract(s.P, in.oTilde)
	d.Subtract(d, in.r)
	b.edAdd(w, one, s.RP)
	b.edAdd(w, e, d)
	fixed(&b.edU, w, s.sZ)
	fixed(&b.edT, w, s.sRP)
	// R_L + e·L = s_α·I~ - s_z·U
	w = randEd()
	b.edAdd(w, one, s.RL)
	b.edAdd(w, e, L)
	b.edAdd(w, new(edwards25519.Scalar).Negate(s.sAlpha), in.iTilde)
	t.Multiply(w, s.sZ)
	b.edU.Add(&b.edU, &t)
}

// Queue queues proof's verification into b: the tree's root (a Selene point for an odd layer count, a
// Helios point for an even one), the transaction's signable hash and its key images (one per input).
// An error means the proof is invalid (and b must be discarded); nil means it is valid if b's Verify
// is true.
func (p *Params) Queue(b *Batch, proof *Proof, root []byte, txHash [32]byte, keyImages [][32]byte) error {
	if len(keyImages) != len(proof.inputs) {
		return ErrShape
	}
	for k := range proof.inputs {
		L, err := readEd25519(keyImages[k][:])
		if err != nil {
			return err
		}
		p.queueSAL(b, &proof.sals[k], &proof.inputs[k], txHash, L, keyImages[k][:])
	}
	return p.queueMembership(b, proof, root)
}

// Verify checks everything queued in b.
func (p *Params) Verify(b *Batch) bool {
	scalars := append([]*edwards25519.Scalar{&b.edG, &b.edT, &b.edU, &b.edV}, b.edScalars...)
	points := append([]*edwards25519.Point{p.g, p.t, p.u, p.v}, b.edPoints...)
	sum := new(edwards25519.Point).VarTimeMultiScalarMult(scalars, points)
	if sum.Equal(edwards25519.NewIdentityPoint()) != 1 {
		return false
	}
	return p.selene.Verify(&b.selene) && p.helios.Verify(&b.helios)
}

// VerifyOne reads and verifies one proof on its own.
func (p *Params) VerifyOne(pseudoOuts [][32]byte, layers int, proof, root []byte, txHash [32]byte, keyImages [][32]byte) error {
	pr, err := Read(pseudoOuts, layers, proof)
	if err != nil {
		return err
	}
	var b Batch
	if err := p.Queue(&b, pr, root, txHash, keyImages); err != nil {
		return err
	}
	if !p.Verify(&b) {
		return errors.New("fcmppp: proof does not verify")
	}
	return nil
}

type weiInput struct{ o, i, r, c [2]helioselene.Field25519 }

func (p *Params) queueMembership(b *Batch, proof *Proof, rootEnc []byte) error {
	layers, n := proof.layers, len(proof.inputs)
	rootOnSelene := layers%2 == 1
	var rootS helioselene.SelenePoint
	var rootH helioselene.HeliosPoint
	if len(rootEnc) != 32 {
		return ErrEncoding
	}
	if rootOnSelene {
		if _, err := rootS.SetBytes(rootEnc); err != nil {
			return ErrEncoding
		}
	} else if _, err := rootH.SetBytes(rootEnc); err != nil {
		return ErrEncoding
	}
	l := layoutOf(n, layers)
	if l.c1Rows > p.selene.Len() || l.c2Rows > p.helios.Len() {
		return ErrGenerators
	}

	// The transcript's context: BLAKE2b-256 of the root (tagged with its curve), the inputs' Wei25519
	// coordinates, and the root blind's nonce.
	wi := make([]weiInput, n)
	ctx, _ := blake2b.New256(nil)
	if rootOnSelene {
		ctx.Write([]byte{0})
	} else {
		ctx.Write([]byte{1})
	}
	ctx.Write(rootEnc)
	var cnt [4]byte
	binary.LittleEndian.PutUint32(cnt[:], uint32(n))
	ctx.Write(cnt[:])
	for k, in := range proof.inputs {
		for j, pt := range []*edwards25519.Point{in.oTilde, in.iTilde, in.r, in.cTilde} {
			x, y, err := ec.ToWei25519(pt)
			if err != nil {
				return ErrIdentity
			}
			xb, yb := x.Bytes(), y.Bytes()
			ctx.Write(xb[:])
			ctx.Write(yb[:])
			c := [2]helioselene.Field25519{x, y}
			switch j {
			case 0:
				wi[k].o = c
			case 1:
				wi[k].i = c
			case 2:
				wi[k].r = c
			case 3:
				wi[k].c = c
			}
		}
	}
	ctx.Write(proof.pok[:32])
	var context [32]byte
	ctx.Sum(context[:0])
	t := transcript.NewVerifier(context, proof.membership)
	C1, _, err := gbp.SeleneReadCommitments(t, l.c1.commitments, 0)
	if err != nil {
		return err
	}
	C2, _, err := gbp.HeliosReadCommitments(t, l.c2.commitments, 0)
	if err != nil {
		return err
	}

	// The root: hash_init plus the root branch's commitment is the root blinded by h; the proof of
	// knowledge of that blind is R, s with s·h = R + c·(claimed - root).
	ri := l.root[0].c
	if rootOnSelene {
		var claimed, R helioselene.SelenePoint
		claimed.Add(&p.seleneHashInit, &C1[ri])
		claimed.Sub(&claimed, &rootS)
		if _, err := R.SetBytes(proof.pok[:32]); err != nil {
			return ErrEncoding
		}
		var s helioselene.Field25519
		if _, err := s.SetBytes(proof.pok[32:]); err != nil {
			return ErrEncoding
		}
		c, err := seleneChallenge(t)
		if err != nil {
			return err
		}
		w := rand25519()
		b.selene.Add(&w, &R)
		c.Mul(&c, &w)
		b.selene.Add(&c, &claimed)
		s.Mul(&s, &w)
		s.Negate(&s)
		b.selene.AddH(&s)
	} else {
		var claimed, R helioselene.HeliosPoint
		claimed.Add(&p.heliosHashInit, &C2[ri])
		claimed.Sub(&claimed, &rootH)
		if _, err := R.SetBytes(proof.pok[:32]); err != nil {
			return ErrEncoding
		}
		var s helioselene.HelioseleneField
		if _, err := s.SetBytes(proof.pok[32:]); err != nil {
			return ErrEncoding
		}
		c, err := heliosChallenge(t)
		if err != nil {
			return err
		}
		w := randHS()
		b.helios.Add(&w, &R)
		c.Mul(&c, &w)
		b.helios.Add(&c, &claimed)
		s.Mul(&s, &w)
		s.Negate(&s)
		b.helios.AddH(&s)
	}

	// The circuits' buffers belong to the batch, reused from proof to proof, and start at about their
	// final size: an 8-input, 8-layer proof lays out 186,000 terms, whose growing by appends would cost
	// a tenth of its verification. The oracle's proofs have 30 to 74 terms and 1 to 2.1 constraints per
	// multiplication row.
	c1, c2 := &b.c1, &b.c2
	c1.reset()
	c2.reset()
	c1.cs.Grow(80*l.c1Rows, 3*l.c1Rows)
	c2.cs.Grow(80*l.c2Rows, 3*l.c2Rows)
	var c1Dlog *seleneDlogChallenge
	var c1Gen [][]helioselene.Field25519
	var c2Dlog *heliosDlogChallenge
	var c2Gen [][]helioselene.HelioseleneField
	nextC1, nextC2, k1, k2 := 0, 0, 0, 0
	for k := range proof.inputs {
		op, w := &l.inputs[k], &wi[k]
		// The first layer, on Selene: open O~, I~, R, C~ to O, I, C and prove (O.x, I.x, C.x) a leaf.
		ch, gens, err := seleneDiscreteLogChallenge(t, &p.wei, []seleneTable{p.tT, p.tU, p.tV, p.tG}, ed25519Bits)
		if err != nil {
			return err
		}
		gT, gU, gV, gG := gens[0], gens[1], gens[2], gens[3]
		c1.onCurve(&p.wei, op.O[0], op.O[1])
		ob := c1.discreteLog(&p.wei, &op.oBlind, ch, gT)
		c1.incompleteAddFixed(&w.o[0], &w.o[1], ob, op.O)
		c1.onCurve(&p.wei, op.I[0], op.I[1])
		ibu := c1.discreteLog(&p.wei, &op.iBlindU, ch, gU)
		c1.incompleteAddFixed(&w.i[0], &w.i[1], ibu, op.I)
		ibv := c1.discreteLog(&p.wei, &op.iBlindV, ch, gV)
		ibb := c1.discreteLog(&p.wei, &op.iBlindBlind, ch, gT)
		c1.incompleteAddFixed(&w.r[0], &w.r[1], ibv, ibb)
		c1.onCurve(&p.wei, op.C[0], op.C[1])
		cb := c1.discreteLog(&p.wei, &op.cBlind, ch, gG)
		c1.incompleteAddFixed(&w.c[0], &w.c[1], cb, op.C)
		leaves := l.root
		if layers > 1 {
			leaves = l.c1Branches[nextC1]
			nextC1++
		}
		var tuples [][]variable
		for i := 0; i+3 <= len(leaves); i += 3 {
			tuples = append(tuples, leaves[i:i+3])
		}
		if err := c1.tupleMemberOfList(t, []variable{op.O[0], op.I[0], op.C[0]}, tuples); err != nil {
			return err
		}

		nC1 := layers/2 + layers%2
		nC2 := layers / 2
		if c1Dlog == nil && nC1-1 != 0 {
			if c1Dlog, c1Gen, err = seleneDiscreteLogChallenge(t, &p.heliosOnC1, []seleneTable{p.tH2}, heliosBits); err != nil {
				return err
			}
		}
		if c2Dlog == nil && nC2 != 0 {
			if c2Dlog, c2Gen, err = heliosDiscreteLogChallenge(t, &p.seleneOnC2, []heliosTable{p.tH1}, seleneBits); err != nil {
				return err
			}
		}
		var c1Bs, c2Bs [][]variable
		take1 := nC1 - 1
		if rootOnSelene {
			take1--
		}
		for i := 0; i < take1; i++ {
			c1Bs = append(c1Bs, l.c1Branches[nextC1])
			nextC1++
		}
		take2 := nC2
		if !rootOnSelene {
			take2--
		}
		for i := 0; i < take2; i++ {
			c2Bs = append(c2Bs, l.c2Branches[nextC2])
			nextC2++
		}
		if rootOnSelene {
			c1Bs = append(c1Bs, l.root)
		} else {
			c2Bs = append(c2Bs, l.root)
		}
		// Selene branches above the leaves hold the x of Helios hashes: each is a Helios commitment
		// (plus hash init) minus a blind the Selene circuit proves.
		for _, br := range c1Bs {
			if k2 >= len(C2) || k2 >= len(l.c1Claims) {
				break
			}
			var prior helioselene.HeliosPoint
			prior.Add(&C2[k2], &p.heliosHashInit)
			hx, hy, _ := c1.mul(nil, nil)
			x, y, err := prior.XY()
			if err != nil {
				return ErrIdentity
			}
			c1.additionalLayer(&p.heliosOnC1, c1Dlog, c1Gen[0], &x, &y, &l.c1Claims[k2], [2]variable{hx, hy}, br)
			k2++
		}
		for _, br := range c2Bs {
			if k1 >= len(C1) || k1 >= len(l.c2Claims) {
				break
			}
			var prior helioselene.SelenePoint
			prior.Add(&C1[k1], &p.seleneHashInit)
			hx, hy, _ := c2.mul(nil, nil)
			x, y, err := prior.XY()
			if err != nil {
				return ErrIdentity
			}
			c2.additionalLayer(&p.seleneOnC2, c2Dlog, c2Gen[0], &x, &y, &l.c2Claims[k1], [2]variable{hx, hy}, br)
			k1++
		}
	}
	if err := gbp.SeleneVerifyConstraints(p.selene, &b.selene, l.c1Rows, &c1.cs, C1, nil, t); err != nil {
		return fmt.Errorf("fcmppp: Selene proof: %w", err)
	}
	if err := gbp.HeliosVerifyConstraints(p.helios, &b.helios, l.c2Rows, &c2.cs, C2, nil, t); err != nil {
		return fmt.Errorf("fcmppp: Helios proof: %w", err)
	}
	return nil
}
