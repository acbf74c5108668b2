package miner

import (
	"filippo.io/edwards25519"

	"github.com/gonero/gonero/crypto"
	"github.com/gonero/gonero/cryptonote"
)

// The one-time output keys of a miner transaction, as Monero derives them
// (crypto.cpp): with a random scalar r and a recipient (spend key B, view
// key A),
//
//	R = r·G                      the tx public key, in extra (r·B for a subaddress)
//	D = 8·r·A                    the key derivation (the recipient computes 8·a·R)
//	P = Hs(D ‖ varint(i))·G + B  the one-time key of output i
//	view tag = Keccak256("view_tag" ‖ D ‖ varint(i))[0]
//
// where Hs is Keccak-256 reduced modulo the group order l.

// decodePoint is crypto.DecodePoint for a key.
func decodePoint(k cryptonote.Key) (*edwards25519.Point, error) { return crypto.DecodePoint(k[:]) }

// keyDerivation is generate_key_derivation: 8·(secret·pub).
func keyDerivation(pub *edwards25519.Point, secret *edwards25519.Scalar) [32]byte {
	p := new(edwards25519.Point).ScalarMult(secret, pub)
	p.MultByCofactor(p)
	return [32]byte(p.Bytes())
}

// derivationToScalar is Hs(D ‖ varint(i)).
func derivationToScalar(derivation [32]byte, index uint64) *edwards25519.Scalar {
	return crypto.HashToScalar(derivation[:], cryptonote.AppendVarint(nil, index))
}

// derivePublicKey is derive_public_key: Hs(D ‖ varint(i))·G + base.
func derivePublicKey(derivation [32]byte, index uint64, base *edwards25519.Point) cryptonote.Key {
	p := new(edwards25519.Point).ScalarBaseMult(derivationToScalar(derivation, index))
	p.Add(p, base)
	return cryptonote.Key(p.Bytes())
}

// viewTag is derive_view_tag: the first byte of
// Keccak256("view_tag" ‖ D ‖ varint(i)) (the salt without its NUL).
func viewTag(derivation [32]byte, index uint64) byte {
	h := cryptonote.Keccak256([]byte("view_tag"), derivation[:], cryptonote.AppendVarint(nil, index))
	return h[0]
}
