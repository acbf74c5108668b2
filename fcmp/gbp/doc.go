// Package gbp verifies generalized Bulletproofs (d06d9518 crypto/generalized-bulletproofs): arithmetic-
// circuit proofs with Pedersen vector commitments over Helios and Selene, the proofs FCMP++'s
// membership proof is made of. A verification queues its whole check, as scalars, into a batch
// (HeliosBatch, SeleneBatch, the reference's BatchVerifier) under random weights; one multiscalar
// multiplication then checks every queued proof at once.
//
// helios.go is the template; selene.go is generated from it (gen_test.go).
package gbp

import "errors"

// Errors a verification returns. Any error means the proof is invalid; the batch it was queued into
// must then be discarded, as the reference says of its BatchVerifier.
var (
	ErrGenerators    = errors.New("gbp: bad generators")
	ErrStatement     = errors.New("gbp: a constraint names a term or commitment that does not exist")
	ErrProof         = errors.New("gbp: malformed proof")
	ErrZeroChallenge = errors.New("gbp: zero challenge")
)

// pow2 is the reference's padded_pow_of_2: the least power of two at least i.
func pow2(i int) int {
	p := 1
	for p < i {
		p <<= 1
	}
	return p
}

// log2 of a power of two.
func log2(n int) int {
	k := 0
	for 1<<k < n {
		k++
	}
	return k
}

// Kind is the vector a constraint's term weights (Constraints' layout): a multiplication row's left
// input aL, its right input aR, its output aO, an entry of a vector commitment, a Pedersen-committed
// value V.
type Kind uint8

// The kinds of a term.
const (
	KindL Kind = iota
	KindR
	KindO
	KindC
	KindV
)

// Var names a circuit variable: entry I of the kind's vector (of vector commitment C for KindC).
type Var struct {
	Kind Kind
	C, I int32
}
