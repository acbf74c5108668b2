// Package ec holds the Ed25519 side of FCMP++: the generators T, U, V (monerod master's constants, and
// kayabaNerve/fcmp-plus-plus d06d9518's derivation, which fcmp-oracle's proofs use), the biased and the
// unbiased hash-to-point, the key-image generator I = Hp(O), torsion clearing, and the map from Ed25519 to
// Wei25519 coordinates whose x the curve tree stores. Points are filippo.io/edwards25519 values decoded the
// way monerod decodes them (package crypto).
package ec
