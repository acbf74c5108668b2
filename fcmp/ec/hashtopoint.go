package ec

import (
	"errors"

	"filippo.io/edwards25519"

	"github.com/gonero/gonero/crypto"
)

// ErrNoImage is returned when the Elligator-style map has no affine image for its input (no hash output
// is known to reach this; monerod would abort).
var ErrNoImage = errors.New("ec: hash-to-point input has no image")

// BiasedHashToPoint is monerod's hash_to_ec (biased_hash_to_ec): 8·F(Keccak-256(b)), F being
// ge_fromfe_frombytes_vartime. It is the key-image generator of every output created before FCMP++, and
// d06d9518's monero-generators hash_to_point.
func BiasedHashToPoint(b []byte) (*edwards25519.Point, error) {
	p, err := crypto.HashToEC(b)
	if err != nil {
		return nil, ErrNoImage
	}
	return p, nil
}

// UnbiasedHashToPoint is monerod master's unbiased_hash_to_ec: with h = BLAKE2b-512 personalised
// "Monero" of preimage, 8·F(h[0:32]) + 8·F(h[32:64]) (src/crypto/crypto.cpp).
func UnbiasedHashToPoint(preimage []byte) (*edwards25519.Point, error) {
	h := Blake2bMonero512(preimage)
	return unbiasedMap(&h)
}

// unbiasedMap is 8·F(h[0:32]) + 8·F(h[32:64]).
func unbiasedMap(h *[64]byte) (*edwards25519.Point, error) {
	a, err := crypto.HashToPoint(h[:32])
	if err != nil {
		return nil, ErrNoImage
	}
	b, err := crypto.HashToPoint(h[32:])
	if err != nil {
		return nil, ErrNoImage
	}
	a.MultByCofactor(a)
	b.MultByCofactor(b)
	return a.Add(a, b), nil
}

// KeyImageGenerator is monerod master's derive_key_image_generator(pub, biased): I = Hp(O), biased for
// the outputs created before FCMP++ (fcmp_pp::use_biased_hash_to_point: legacy outputs) and unbiased for
// Carrot outputs. pub is the output's original public key, not its torsion-cleared O (monerod's
// curve_trees.cpp explains why: a torsioned key would otherwise get two key images). d06d9518's crates,
// and so fcmp-oracle's proofs, use the biased map for every output.
func KeyImageGenerator(pub [32]byte, biased bool) ([32]byte, error) {
	var p *edwards25519.Point
	var err error
	if biased {
		p, err = BiasedHashToPoint(pub[:])
	} else {
		p, err = UnbiasedHashToPoint(pub[:])
	}
	if err != nil {
		return [32]byte{}, err
	}
	return [32]byte(p.Bytes()), nil
}
