package ringct

import (
	"crypto/rand"
	"encoding"
	"errors"
	"hash"

	"filippo.io/edwards25519"
	"golang.org/x/crypto/sha3"

	"github.com/gonero/gonero/crypto"
)

// RingMember is one column of a RingCT ring: the output key (dest) and the
// amount commitment (mask) of the referenced output, as monerod's ctkey.
type RingMember struct {
	Dest, Mask [32]byte
}

// Verification errors shared by the verifiers.
var (
	ErrNilSignature = errors.New("ringct: no signature")
	ErrEmptyRing    = errors.New("ringct: empty ring")
	ErrSize         = errors.New("ringct: signature size does not match the ring")
	ErrScalar       = errors.New("ringct: non-canonical scalar")
	ErrPoint        = errors.New("ringct: point does not decode")
	ErrKeyImage     = errors.New("ringct: key image is the identity")
	ErrZeroHash     = errors.New("ringct: a round hash is zero")
	ErrMismatch     = errors.New("ringct: signature does not verify")
)

var (
	generator = edwards25519.NewGeneratorPoint()
	identity  = edwards25519.NewIdentityPoint()
	zeroS     = edwards25519.NewScalar()
	invEight  = func() *edwards25519.Scalar {
		eight := crypto.ScalarFromUint64(8)
		return edwards25519.NewScalar().Invert(eight)
	}()
)

// hasher computes Hs over a buffer with one reused Keccak state.
type hasher struct{ h hash.Hash }

func newHasher() hasher { return hasher{sha3.NewLegacyKeccak256()} }

// scalar sets dst = Hs(buf).
func (h hasher) scalar(dst *edwards25519.Scalar, buf []byte) {
	var sum [64]byte
	h.h.Reset()
	h.h.Write(buf)
	h.h.Sum(sum[:0])
	if _, err := dst.SetUniformBytes(sum[:]); err != nil {
		panic("ringct: SetUniformBytes refused 64 bytes") // cannot happen
	}
}

// stateAfter returns the hasher's state after absorbing prefix, to resume
// from with scalarFrom, or nil if the hash cannot save its state.
func (h hasher) stateAfter(prefix []byte) []byte {
	m, ok := h.h.(encoding.BinaryAppender)
	if !ok {
		return nil
	}
	h.h.Reset()
	h.h.Write(prefix)
	st, err := m.AppendBinary(nil)
	if err != nil {
		return nil
	}
	return st
}

// scalarFrom sets dst = Hs(prefix ‖ tail), the hasher resuming from
// state, stateAfter(prefix).
func (h hasher) scalarFrom(dst *edwards25519.Scalar, state, tail []byte) {
	if err := h.h.(encoding.BinaryUnmarshaler).UnmarshalBinary(state); err != nil {
		panic("ringct: Keccak refused its own state: " + err.Error()) // cannot happen
	}
	var sum [64]byte
	h.h.Write(tail)
	h.h.Sum(sum[:0])
	if _, err := dst.SetUniformBytes(sum[:]); err != nil {
		panic("ringct: SetUniformBytes refused 64 bytes") // cannot happen
	}
}

// domain is a CLSAG domain tag zero-padded to 32 bytes.
func domain(tag string) [32]byte {
	var d [32]byte
	copy(d[:], tag)
	return d
}

// decodePoints decodes every encoding, failing on the first bad one.
func decodePoint(dst *edwards25519.Point, b []byte) error {
	p, err := crypto.DecodePoint(b)
	if err != nil {
		return ErrPoint
	}
	dst.Set(p)
	return nil
}

func decodeScalar(dst *edwards25519.Scalar, b []byte) error {
	if _, err := dst.SetCanonicalBytes(b); err != nil {
		return ErrScalar
	}
	return nil
}

// randomScalar is skGen: a uniformly random scalar from crypto/rand.
func randomScalar() *edwards25519.Scalar {
	var b [64]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("ringct: crypto/rand failed: " + err.Error())
	}
	s, _ := edwards25519.NewScalar().SetUniformBytes(b[:])
	return s
}

func isIdentity(p *edwards25519.Point) bool { return p.Equal(identity) == 1 }
