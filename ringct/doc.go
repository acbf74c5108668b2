// Package ringct verifies the RingCT parts of Monero v2 transactions exactly
// as monerod v0.18 does (src/ringct/rctSigs.cpp): the signed message
// (get_pre_mlsag_hash), CLSAG (types 5 and 6), MLSAG (simple for types 2–4,
// full for type 1), Borromean range proofs (types 1 and 2, including
// monerod's treatment of unreduced scalars) and the commitment balance.
// Bulletproofs and Bulletproofs+ live in this package's bulletproof files.
//
// Every verifier takes plain bytes and returns an error (or false) on any
// input monerod refuses, never panicking: points that do not decode,
// non-canonical scalars, wrong lengths and nil pointers are all refusals.
//
// The package also holds signers (SignCLSAG, SignMLSAGSimple,
// SignMLSAGFull) ported from monerod's CLSAG_Gen and MLSAG_Gen. The node
// uses them only in tests and tools; a wallet will need them.
//
// Points are compared by their canonical encodings and decoded with
// crypto.DecodePoint (monerod's ge_frombytes_vartime), so small-order and
// mixed-order points are accepted wherever monerod accepts them.
package ringct
