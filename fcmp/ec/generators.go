package ec

import (
	"encoding/hex"
	"golang.org/x/crypto/blake2b"

	"filippo.io/edwards25519"

	"github.com/gonero/gonero/crypto"
)

// Generators are FCMP++'s extra Ed25519 generators: T (output-key randomness, O = xG + yT), U (key-image
// blinding) and V (randomness commitments).
type Generators struct {
	T, U, V *edwards25519.Point
}

// The seeds each definition hashes.
const (
	seedT = "Monero Generator T"
	seedU = "Monero FCMP++ Generator U"
	seedV = "Monero FCMP++ Generator V"
)

// masterT, masterU, masterV are the constants monerod master hard-codes (src/crypto/generators.cpp at
// 0aa9c51b; testdata/fcmp/master_generators_TUV.txt).
const (
	masterT = "61b736ce93b62a3d3778ab204da85d3b4cdc07250f5da7e3df2629928134d526"
	masterU = "506b23f6d6e530997abcacc6fd347734b14c2bd79bea00eeb04857e8eadd1a8a"
	masterV = "6935f413f83109138a7a14b409552d3b76d88fca81bb5927e9a1e130cdfe29f9"
)

// MasterGenerators returns T, U, V as monerod master fixes them: the values a version-17 node will use
// unless the fork's final revision changes them again.
//
// generators.cpp's comments (and its debug-only reproduce_generator_T/U/V) say each is
// unbiased_hash_to_ec(keccak256(seed)), with monerod's BLAKE2b personalised "Monero"; that does not give
// these bytes. They are 8·F(h[0:32]) + 8·F(h[32:64]) with h the plain, unpersonalised BLAKE2b-512 of
// keccak256(seed) (masterDerivation; TestGeneratorsMasterDerivation), presumably as monero-oxide's code,
// from which generators.cpp says it took them, computes them.
func MasterGenerators() Generators {
	return Generators{T: mustPoint(masterT), U: mustPoint(masterU), V: mustPoint(masterV)}
}

// D06d9518Generators returns T, U, V as kayabaNerve/fcmp-plus-plus d06d9518 derives them (monero-generators:
// hash_to_point(keccak256(seed)), hash_to_point being the biased hash_to_ec, which hashes once more). The
// oracle's proofs are made with these, so verifying them needs them.
func D06d9518Generators() Generators {
	derive := func(seed string) *edwards25519.Point {
		h := crypto.Keccak256([]byte(seed))
		p, err := BiasedHashToPoint(h[:])
		if err != nil {
			panic("ec: generator seed has no image")
		}
		return p
	}
	return Generators{T: derive(seedT), U: derive(seedU), V: derive(seedV)}
}

// masterDerivation derives a generator the way master's hard-coded T, U, V were derived: the unbiased
// map of UnbiasedHashToPoint over an unpersonalised BLAKE2b-512 of keccak256(seed).
func masterDerivation(seed string) (*edwards25519.Point, error) {
	k := crypto.Keccak256([]byte(seed))
	h := blake2b.Sum512(k[:])
	return unbiasedMap(&h)
}

func mustPoint(h string) *edwards25519.Point {
	b, err := hex.DecodeString(h)
	if err != nil {
		panic(err)
	}
	p, err := crypto.DecodePoint(b)
	if err != nil {
		panic("ec: bad constant " + h)
	}
	return p
}
