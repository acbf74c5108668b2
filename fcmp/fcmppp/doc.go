// Package fcmppp verifies FCMP++ proofs as kayabaNerve/fcmp-plus-plus d06d9518 makes them
// (networks/monero/ringct/fcmp++ and crypto/fcmps): per input the re-randomised tuple (O~, I~, R, with
// C~ the transaction's pseudo-out) and its spend-authorisation-and-linkability proof (SA+L, on Ed25519
// with T, U, V), then one membership proof for all inputs: a Selene and a Helios generalized
// Bulletproof whose circuits open the re-randomisation (discrete-log gadgets over divisors) and walk
// the curve tree from the leaves to the given root, plus a proof of knowledge of the root's blind.
//
// Verification queues into a Batch (Ed25519, Selene and Helios sums) that one multiscalar
// multiplication per curve checks, so many proofs share those costs. Nothing here is wired into a
// block or transaction rule: version 17's rules are not final, and the layout, the generators and
// T, U, V are those of d06d9518 (docs/fcmp.md).
package fcmppp
