// Package cryptonote holds Monero blocks and transactions as Go values and
// converts them to and from monerod's binary serialization, byte for byte.
// It also computes every identifier derived from those bytes (transaction
// ids, tree hash, block hashing blob, block id), transaction and block
// weights, and the `json` text monerod's RPC returns for a block.
//
// The decoder is strict where monerod is lenient only for malformed input
// (see Decoder); it never allocates on the strength of a length field before
// the bytes that length promises are present, so hostile input cannot make it
// reserve memory it does not hold.
//
// This package knows nothing of networks, storage or RPC.
package cryptonote
