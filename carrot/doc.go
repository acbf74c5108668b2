// Package carrot is Carrot, the addressing protocol of Monero's FCMP++ hard
// fork (version 17): the account key hierarchy and its addresses, the
// construction of enotes (normal, self-send and coinbase) and their
// scanning.
//
// It follows jeffro256/carrot-rs at 1d67d3cf8155c92e24555d6299c3bf2fe9be4c7c
// (2026-03-03), whose 28 fixed "convergence" vectors it reproduces
// (testdata/carrot_rs_convergence.txt), with generator T as monerod master
// hard-codes it (src/crypto/generators.cpp at 0aa9c51b). Nothing here is
// wired into block or transaction rules: version 17's transaction format is
// not final. docs/carrot.md says what is built and what may still move.
//
// Values cross the API as their 32-, 16-, 8- or 3-byte encodings: Point is
// a compressed Edwards point, X25519 a Montgomery u-coordinate, Scalar a
// canonical little-endian scalar. The Parse functions refuse malformed and
// non-canonical encodings with an error; nothing here panics on input.
package carrot
