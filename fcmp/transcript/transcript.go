// Package transcript is the Fiat-Shamir transcript of d06d9518's generalized Bulletproofs
// (crypto/generalized-bulletproofs/src/transcript.rs), which the FCMP++ membership proof runs on: one
// BLAKE2b-512 state started from a 32-byte context, every scalar and point absorbed with a one-byte tag
// (0 scalar, 1 point) before its 32-byte encoding, vector-commitment counts absorbed as u32 little-endian
// without a tag, and a challenge absorbing tag 2 and returning the state's digest (the state itself goes
// on). The proof is the concatenation of the absorbed encodings, so the verifier reads what it absorbs.
//
// The package deals in bytes: decoding (and refusing non-canonical encodings) is the curve's business,
// and a challenge's reduction is the scalar field's.
package transcript

import (
	"encoding/binary"
	"errors"
	"hash"

	"golang.org/x/crypto/blake2b"
)

// The tags d06d9518 absorbs before each element.
const (
	tagScalar    = 0
	tagPoint     = 1
	tagChallenge = 2
)

// ElementLen is the encoded length of every scalar and point of Helios and Selene.
const ElementLen = 32

// ErrShort is returned when the proof ends before an element the verifier must read.
var ErrShort = errors.New("transcript: proof too short")

func newState(context [32]byte) hash.Hash {
	h, err := blake2b.New512(nil)
	if err != nil {
		// New512 fails only for a key longer than 64 bytes; there is none.
		panic(err)
	}
	h.Write(context[:])
	return h
}

// Verifier reads a proof while absorbing it, as VerifierTranscript does.
type Verifier struct {
	h     hash.Hash
	proof []byte
}

// NewVerifier starts a transcript from context over proof.
func NewVerifier(context [32]byte, proof []byte) *Verifier {
	return &Verifier{h: newState(context), proof: proof}
}

func (v *Verifier) read(tag byte) ([]byte, error) {
	// The reference absorbs the tag before it checks the length; a short proof fails either way.
	v.h.Write([]byte{tag})
	if len(v.proof) < ElementLen {
		return nil, ErrShort
	}
	b := v.proof[:ElementLen:ElementLen]
	v.h.Write(b)
	v.proof = v.proof[ElementLen:]
	return b, nil
}

// ReadScalar absorbs and returns the next scalar's 32 bytes (the caller decodes them).
func (v *Verifier) ReadScalar() ([]byte, error) { return v.read(tagScalar) }

// ReadPoint absorbs and returns the next point's 32 bytes (the caller decodes them).
func (v *Verifier) ReadPoint() ([]byte, error) { return v.read(tagPoint) }

// Count absorbs a vector's length as the reference's read_commitments does (u32 little-endian, no tag).
func (v *Verifier) Count(n int) {
	var b [4]byte
	binary.LittleEndian.PutUint32(b[:], uint32(n))
	v.h.Write(b[:])
}

// Challenge absorbs the challenge tag and returns the 64-byte digest; the caller reduces it into its
// scalar field (and must refuse a zero challenge, which the reference treats as fatal).
func (v *Verifier) Challenge() [64]byte { return challenge(v.h) }

// Remaining is the number of proof bytes not read yet.
func (v *Verifier) Remaining() int { return len(v.proof) }

func challenge(h hash.Hash) [64]byte {
	h.Write([]byte{tagChallenge})
	var out [64]byte
	// Sum appends the digest of the state so far without changing the state, as the reference's
	// digest.clone().finalize() does.
	h.Sum(out[:0])
	return out
}

// Prover writes a proof while absorbing it (Transcript); gonero proves nothing on chain, so this serves
// the tests that make proofs for the verifier.
type Prover struct {
	h     hash.Hash
	proof []byte
}

// NewProver starts a transcript from context.
func NewProver(context [32]byte) *Prover { return &Prover{h: newState(context)} }

func (p *Prover) push(tag byte, b [32]byte) {
	p.h.Write([]byte{tag})
	p.h.Write(b[:])
	p.proof = append(p.proof, b[:]...)
}

// PushScalar absorbs and writes a scalar's encoding.
func (p *Prover) PushScalar(b [32]byte) { p.push(tagScalar, b) }

// PushPoint absorbs and writes a point's encoding.
func (p *Prover) PushPoint(b [32]byte) { p.push(tagPoint, b) }

// Count absorbs a vector's length (write_commitments).
func (p *Prover) Count(n int) {
	var b [4]byte
	binary.LittleEndian.PutUint32(b[:], uint32(n))
	p.h.Write(b[:])
}

// Challenge absorbs the challenge tag and returns the 64-byte digest.
func (p *Prover) Challenge() [64]byte { return challenge(p.h) }

// Proof returns the bytes written so far.
func (p *Prover) Proof() []byte { return p.proof }
