package fcmppp

import "sync"

// The circuit sizes of d06d9518 (crypto/fcmps/src/lib.rs).
const (
	LayerOneLen = 38 // children of a Selene branch; the leaf branch holds 3·38 scalars
	LayerTwoLen = 18 // children of a Helios branch

	c1LeavesRowsPerInput  = 97
	c1BranchRowsPerInput  = 52
	c2RowsPerInputPerLayr = 32
	c1TargetRows          = 256
	c2TargetRows          = 128

	// The scalar sizes in bits of Ed25519, Selene (2^255-19) and Helios (the Helioselene field): the
	// length of the discrete logarithms the circuits prove.
	ed25519Bits = 253
	seleneBits  = 255
	heliosBits  = 255
)

// MaxInputs and MaxLayers are the consensus limits of seraphis-migration's cryptonote_config.h
// (FCMP_PLUS_PLUS_MAX_INPUTS, FCMP_PLUS_PLUS_MAX_LAYERS).
const (
	MaxInputs = 8
	MaxLayers = 12
)

func pad2(v int) int {
	r := 1
	for r < v {
		r <<= 1
	}
	return r
}

// ipaRows is the number of rows of the Selene (c1) and Helios (c2) proofs.
func ipaRows(inputs, layers int) (int, int) {
	c1 := inputs * (c1LeavesRowsPerInput + ((layers-1)/2)*c1BranchRowsPerInput)
	c2 := inputs * max((layers/2)*c2RowsPerInputPerLayr, 1)
	return max(pad2(c1), c1TargetRows), max(pad2(c2), c2TargetRows)
}

// layout is where the verifier finds everything in the two proofs' vector commitments.
type layout struct {
	c1Rows, c2Rows int
	c1, c2         tape
	c1Branches     [][]variable // per input, the Selene branches below the root (the leaf branch first)
	c2Branches     [][]variable
	root           []variable
	inputs         []inputVars
	c1Claims       []pointWithDlog // blinds of Helios commitments, proved on Selene
	c2Claims       []pointWithDlog // blinds of Selene commitments, proved on Helios
}

// inputVars are an input's committed values on the first layer.
type inputVars struct {
	O, I, C                                       [2]variable
	oBlind, iBlindU, iBlindV, iBlindBlind, cBlind pointWithDlog
}

// layouts keeps the layouts of Monero's sizes (at most 8 inputs, FCMP_PLUS_PLUS_MAX_INPUTS; 16 layers,
// beyond the 12 of FCMP_PLUS_PLUS_MAX_LAYERS), which reading and verifying each need: replaying the tape
// costs about a millisecond for 8 inputs. A layout is never changed once made. Other sizes, which a
// hostile proof could pick by the thousand, are made afresh.
var layouts sync.Map // [2]int{inputs, layers} → *layout

func layoutOf(inputs, layers int) *layout {
	if inputs > 8 || layers > 16 {
		return newLayout(inputs, layers)
	}
	key := [2]int{inputs, layers}
	if l, ok := layouts.Load(key); ok {
		return l.(*layout)
	}
	l, _ := layouts.LoadOrStore(key, newLayout(inputs, layers))
	return l.(*layout)
}

// newLayout replays the prover's tape for inputs inputs and layers layers (Fcmp::verify's opening).
func newLayout(inputs, layers int) *layout {
	l := &layout{}
	l.c1Rows, l.c2Rows = ipaRows(inputs, layers)
	l.c1.commitmentLen, l.c2.commitmentLen = l.c1Rows, l.c2Rows
	for k := 0; k < inputs; k++ {
		for i := 0; i < layers-1; i++ {
			if i%2 == 0 {
				n := LayerOneLen
				if i == 0 {
					n = 3 * LayerOneLen
				}
				l.c1Branches = append(l.c1Branches, l.c1.branch(n))
			} else {
				l.c2Branches = append(l.c2Branches, l.c2.branch(LayerTwoLen))
			}
		}
	}
	if layers%2 == 1 {
		n := LayerOneLen
		if layers == 1 {
			n = 3 * LayerOneLen
		}
		l.root = l.c1.branch(n)
	} else {
		l.root = l.c2.branch(LayerTwoLen)
	}
	for k := 0; k < inputs; k++ {
		var in inputVars
		var p []variable
		in.oBlind, p = l.c1.claimedPoint(ed25519Bits)
		in.O = [2]variable{p[0], p[1]}
		in.iBlindU, p = l.c1.claimedPoint(ed25519Bits)
		in.I = [2]variable{p[0], p[1]}
		div, _ := l.c1.divisor(ed25519Bits)
		in.iBlindBlind, p = l.c1.claimedPoint(ed25519Bits)
		// The V blind shares the U blind's discrete logarithm; its point is in the next claim's padding.
		in.iBlindV = pointWithDlog{x: p[0], y: p[1], dlog: in.iBlindU.dlog, divisor: div}
		in.cBlind, p = l.c1.claimedPoint(ed25519Bits)
		in.C = [2]variable{p[0], p[1]}
		l.inputs = append(l.inputs, in)
	}
	n1 := 0
	if len(l.c1Branches) > 0 {
		n1 = len(l.c1Branches) - inputs + inputs*(layers%2)
	}
	for k := 0; k < n1; k++ {
		c, _ := l.c1.claimedPoint(heliosBits)
		l.c1Claims = append(l.c1Claims, c)
	}
	n2 := len(l.c2Branches)
	if layers%2 == 0 {
		n2 += inputs
	}
	for k := 0; k < n2; k++ {
		c, _ := l.c2.claimedPoint(seleneBits)
		l.c2Claims = append(l.c2Claims, c)
	}
	return l
}

// gbpProofElements is the number of 32-byte elements of one arithmetic-circuit proof with c vector
// commitments over rows rows: the commitments, AI, AO, S, the T commitments, tau_x, u, t_caret, the
// inner-product rounds' L and R, a and b.
func gbpProofElements(rows, c int) int {
	ni := 2 + 2*(c/2)
	tCommitments := 2*(ni+2) - 2
	rounds := 0
	for 1<<rounds < rows {
		rounds++
	}
	return c + 3 + tCommitments + 3 + 2*rounds + 2
}

// membershipSize is Fcmp::proof_size: both proofs and the root-blind proof of knowledge (64 bytes).
func (l *layout) membershipSize() int {
	return 32*(gbpProofElements(l.c1Rows, l.c1.commitments)+gbpProofElements(l.c2Rows, l.c2.commitments)) + 64
}

// saLLen is an input's bytes before the membership proof: O~, I~, R and SA+L's 6 points and 6 scalars.
const saLLen = 3*32 + 12*32

// ProofSize is FcmpPlusPlus::proof_size: the bytes of a proof for inputs inputs in a tree of layers
// layers. It returns 0 for a size d06d9518 does not define (no input or no layer).
func ProofSize(inputs, layers int) int {
	if inputs <= 0 || layers <= 0 {
		return 0
	}
	return inputs*saLLen + layoutOf(inputs, layers).membershipSize()
}
