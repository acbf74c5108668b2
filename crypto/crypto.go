// Package crypto holds Monero's curve primitives on top of
// filippo.io/edwards25519: monerod's point decoding, hash_to_scalar, the
// hash_to_ec map, key-image checks, Pedersen commitments and the v1 ring
// signature. The RingCT proofs built on these live in package ringct.
//
// Every function computes exactly what monerod's crypto-ops.c and crypto.cpp
// compute on the same bytes, including on hostile input: an encoding monerod
// refuses is refused here, and one it accepts (small-order points among them)
// is accepted here.
package crypto

import (
	"encoding/hex"
	"errors"

	"filippo.io/edwards25519"
	"golang.org/x/crypto/sha3"
)

// ErrBadPoint is returned for bytes that are not the canonical encoding of a
// curve point (what monerod's ge_frombytes_vartime refuses).
var ErrBadPoint = errors.New("not a canonical curve point")

// ErrBadScalar is returned for 32 bytes that are not a scalar below the group
// order ℓ (what monerod's sc_check refuses).
var ErrBadScalar = errors.New("not a canonical scalar")

// DecodePoint is ge_frombytes_vartime: it accepts exactly the canonical
// encodings (y < p, no negative zero). edwards25519's SetBytes is laxer, so
// the round trip is compared.
func DecodePoint(b []byte) (*edwards25519.Point, error) {
	if len(b) != 32 {
		return nil, ErrBadPoint
	}
	p, err := new(edwards25519.Point).SetBytes(b)
	if err != nil || string(p.Bytes()) != string(b) {
		return nil, ErrBadPoint
	}
	return p, nil
}

// DecodeScalar is sc_check followed by use: canonical scalars only.
func DecodeScalar(b []byte) (*edwards25519.Scalar, error) {
	s, err := edwards25519.NewScalar().SetCanonicalBytes(b)
	if err != nil {
		return nil, ErrBadScalar
	}
	return s, nil
}

// IsCanonicalScalar reports whether b is a scalar below ℓ (sc_check == 0).
func IsCanonicalScalar(b []byte) bool {
	_, err := DecodeScalar(b)
	return err == nil
}

// Keccak256 is cn_fast_hash: the legacy (pre-SHA-3 padding) Keccak-256 of
// the concatenation of data.
func Keccak256(data ...[]byte) [32]byte {
	h := sha3.NewLegacyKeccak256()
	for _, d := range data {
		h.Write(d)
	}
	var out [32]byte
	h.Sum(out[:0])
	return out
}

// HashToScalar is hash_to_scalar (Hs): Keccak-256 of the concatenation,
// reduced mod ℓ (sc_reduce32 of the 256-bit little-endian value).
func HashToScalar(data ...[]byte) *edwards25519.Scalar {
	h := Keccak256(data...)
	return ReduceScalar32(h[:])
}

// ReduceScalar32 is sc_reduce32: 32 little-endian bytes reduced mod ℓ.
func ReduceScalar32(b []byte) *edwards25519.Scalar {
	var wide [64]byte
	copy(wide[:], b)
	s, err := edwards25519.NewScalar().SetUniformBytes(wide[:])
	if err != nil {
		panic("crypto: SetUniformBytes refused 64 bytes") // cannot happen
	}
	return s
}

// identityBytes is the encoding of the neutral element (0, 1).
var identityBytes = [32]byte{1}

// IsIdentityEncoding reports whether b is the 32-byte encoding of the
// identity, as monerod compares keys with rct::identity().
func IsIdentityEncoding(b []byte) bool { return string(b) == string(identityBytes[:]) }

// orderMinusOne is ℓ−1, the largest canonical scalar.
var orderMinusOne = mustScalar("ecd3f55c1a631258d69cf7a2def9de1400000000000000000000000000000010")

// IsInPrimeSubgroup reports whether ℓ·P is the identity: (ℓ−1)·P + P == 0.
// It is monerod's check on key images (scalarmultKey(P, ℓ) == identity).
func IsInPrimeSubgroup(p *edwards25519.Point) bool {
	q := new(edwards25519.Point).VarTimeMultiScalarMult([]*edwards25519.Scalar{orderMinusOne}, []*edwards25519.Point{p})
	q.Add(q, p)
	return q.Equal(edwards25519.NewIdentityPoint()) == 1
}

// CheckKeyImage applies monerod's key-image domain rule
// (check_tx_inputs_keyimages_domain and the identity test): the key image
// decodes, is not the identity, and lies in the prime-order subgroup.
func CheckKeyImage(ki []byte) bool {
	if IsIdentityEncoding(ki) {
		return false
	}
	p, err := DecodePoint(ki)
	if err != nil {
		return false
	}
	return IsInPrimeSubgroup(p)
}

// GenerateKeyImage is generate_key_image: sec·Hp(pub). It is what a wallet
// computes; the node uses it in tests.
func GenerateKeyImage(pub []byte, sec *edwards25519.Scalar) ([32]byte, error) {
	hp, err := HashToEC(pub)
	if err != nil {
		return [32]byte{}, err
	}
	return [32]byte(new(edwards25519.Point).ScalarMult(sec, hp).Bytes()), nil
}

// h is the second Pedersen generator, for amounts (rctTypes.h). It is
// unexported so that no caller can change it under every commitment.
var h = mustPoint("8b655970153799af2aeadc9ff1add0ea6c7251d54154cfa92c173a0dd39c1f94")

// H returns a copy of the second Pedersen generator, for amounts.
func H() *edwards25519.Point { return new(edwards25519.Point).Set(h) }

// ScalarFromUint64 is d2h: the amount as a little-endian scalar.
func ScalarFromUint64(v uint64) *edwards25519.Scalar {
	var b [32]byte
	for i := 0; i < 8; i++ {
		b[i] = byte(v >> (8 * i))
	}
	s, _ := edwards25519.NewScalar().SetCanonicalBytes(b[:])
	return s
}

// ScalarMultH is scalarmultH(d2h(amount)): amount·H.
func ScalarMultH(amount uint64) *edwards25519.Point {
	return new(edwards25519.Point).VarTimeMultiScalarMult([]*edwards25519.Scalar{ScalarFromUint64(amount)}, []*edwards25519.Point{h})
}

// ZeroCommit is zeroCommit(amount) = G + amount·H: the commitment of a
// pre-RingCT ring member and of every v2 coinbase output.
func ZeroCommit(amount uint64) [32]byte {
	p := new(edwards25519.Point).VarTimeDoubleScalarBaseMult(ScalarFromUint64(amount), h, scalarOne)
	return [32]byte(p.Bytes())
}

var scalarOne = ScalarFromUint64(1)

func mustPoint(h string) *edwards25519.Point {
	b, err := hex.DecodeString(h)
	if err != nil {
		panic(err)
	}
	p, err := DecodePoint(b)
	if err != nil {
		panic(err)
	}
	return p
}

func mustScalar(h string) *edwards25519.Scalar {
	b, err := hex.DecodeString(h)
	if err != nil {
		panic(err)
	}
	s, err := DecodeScalar(b)
	if err != nil {
		panic(err)
	}
	return s
}
