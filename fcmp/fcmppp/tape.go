package fcmppp

import "github.com/gonero/gonero/fcmp/gbp"

// The vector-commitment tape (d06d9518 crypto/fcmps/src/tape.rs): the order in which the prover lays its
// committed values out over the vector commitments, which the verifier replays to know which committed
// entry each circuit variable is. Words of 128 entries fill a commitment of commitmentLen entries.

const wordLen = 128

type varKind uint8

const (
	varL varKind = iota // aL, a multiplication's left input
	varR                // aR, its right input
	varO                // aO, its output
	varC                // an entry of a vector commitment
)

// kinds maps a circuit variable's kind to the proof system's vector.
var kinds = [...]gbp.Kind{varL: gbp.KindL, varR: gbp.KindR, varO: gbp.KindO, varC: gbp.KindC}

// variable is a circuit variable: for varC, entry i of vector commitment c; otherwise row i.
type variable struct {
	kind varKind
	c, i int
}

// divisorVars are the committed coefficients of a divisor (ec-divisors' Poly, as the tape lays it
// out): y, the y·x^k coefficients, the x^k coefficients from k = 2 (the x coefficient is 1), the
// constant.
type divisorVars struct {
	y      variable
	yx     []variable
	xFrom2 []variable
	zero   variable
	all    []gbp.Var // y, yx, xFrom2, zero, for the divisor evaluations' shared-weight block
}

// pointWithDlog is a claimed point with the committed bits of its discrete logarithm and the divisor
// proving them.
type pointWithDlog struct {
	x, y    variable
	dlog    []variable
	divisor divisorVars
}

type tape struct {
	commitmentLen int
	offset        int
	commitments   int
}

func (t *tape) word() []variable {
	if t.offset == 0 {
		t.commitments++
	}
	vs := make([]variable, wordLen)
	for k := range vs {
		vs[k] = variable{kind: varC, c: t.commitments - 1, i: t.offset + k}
	}
	t.offset += wordLen
	if t.offset == t.commitmentLen {
		t.offset = 0
	}
	return vs
}

// branch takes a whole commitment for a branch of n children (its first n entries).
func (t *tape) branch(n int) []variable {
	b := t.word()
	for k := 1; k < t.commitmentLen/wordLen; k++ {
		t.word()
	}
	return b[:n]
}

func (t *tape) twoWords() []variable { return append(t.word(), t.word()...) }

// dlog lays out a discrete logarithm of bits bits, the padding up to 255 entries, and one extra entry.
func (t *tape) dlog(bits int) (dlog, padding []variable, extra variable) {
	v := t.twoWords()
	return v[:bits], v[bits:255], v[255]
}

// xCoefficients and yxCoefficients are the divisor's sizes for a scalar field of bits bits
// (DiscreteLogParameters: XCoefficients = (bits+1)/2, YxCoefficients = XCoefficients - 2).
func xCoefficients(bits int) int  { return (bits + 1) / 2 }
func yxCoefficients(bits int) int { return xCoefficients(bits) - 2 }

func (t *tape) divisor(bits int) (divisorVars, variable) {
	v := t.twoWords()
	yx := yxCoefficients(bits)
	x1 := xCoefficients(bits) - 1
	d := divisorVars{y: v[0], yx: v[1 : 1+yx], xFrom2: v[1+yx : 1+yx+x1], zero: v[1+yx+x1]}
	for _, u := range v[:2+yx+x1] {
		d.all = append(d.all, gbp.Var{Kind: kinds[u.kind], C: int32(u.c), I: int32(u.i)})
	}
	return d, v[255]
}

// claimedPoint lays out a point, its discrete logarithm and divisor; the dlog's padding entries are
// returned as they carry other values (the input tuple's coordinates on the first layer).
func (t *tape) claimedPoint(bits int) (pointWithDlog, []variable) {
	dl, padding, x := t.dlog(bits)
	div, y := t.divisor(bits)
	return pointWithDlog{x: x, y: y, dlog: dl, divisor: div}, padding
}
