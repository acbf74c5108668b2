// Package tree holds FCMP++'s curve tree, as kayabaNerve/fcmp-plus-plus d06d9518 defines it: the
// Pedersen-style vector-commitment hash of a layer's children (hash_grow and hash_trim of
// crypto/fcmps/src/tree.rs) over the generators and hash-initialisation points of
// networks/monero/ringct/fcmp++ (HELIOS_GENERATORS, SELENE_GENERATORS, HELIOS_HASH_INIT, SELENE_HASH_INIT).
//
// The generators (2048 Helios and 4096 Selene pairs, d06d9518's "Increase generators" sizes) are the
// generalized-Bulletproofs generators too; they live here until the proof verifier needs them, and are
// derived on first use. They are a parameter of the reference revision: a later revision may change their
// count or their derivation.
package tree
