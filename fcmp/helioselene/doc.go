// Package helioselene implements Helios and Selene, the curve cycle of Monero's FCMP++ (full-chain
// membership proofs), as kayabaNerve/fcmp-plus-plus d06d9518 defines them (crypto/helioselene, and the
// Helios/Selene ciphersuites of crypto/ciphersuite):
//
//   - Field25519 = GF(2^255 - 19): Helios's base field and Selene's scalar field (ed25519's base field, so
//     an ed25519 x-coordinate is a Selene scalar);
//   - HelioseleneField = GF(2^255 - 0x408087d3489a94a791492d8d86d83861): Selene's base field and Helios's
//     scalar field;
//   - Helios: y² = x³ - 3x + b over Field25519, prime order |HelioseleneField|;
//   - Selene: y² = x³ - 3x + b over HelioseleneField, prime order 2^255 - 19.
//
// Points are 32 bytes: x little-endian with y's parity in the top bit; the identity is 32 zero bytes.
// Decoding refuses exactly what the reference refuses (x not canonical, x not on the curve, a set sign
// bit on x = 0). Arithmetic is in 64-bit-limb Montgomery form with complete projective formulas
// (Renes–Costello–Batina, a = -3), so no operation branches on its operands' values; the multiscalar
// multiplication is variable-time (it serves verification of public data).
//
// fieldhs.go and selene.go are generated from field25519.go and helios.go (gen_test.go).
package helioselene
