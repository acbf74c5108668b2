package consensus

import (
	"encoding/binary"
	"math/bits"

	"github.com/gonero/gonero/crypto/cryptonight"
	"github.com/gonero/gonero/internal/u128"
)

// PoWHasher computes RandomX hashes: Hash(seed, input) is rx_slow_hash with
// the seed block's id as key. The cgo package randomx provides one.
type PoWHasher interface {
	Hash(seed [32]byte, input []byte) ([32]byte, error)
}

// CheckPoWHash reports whether a PoW hash satisfies difficulty
// (difficulty.cpp check_hash): the hash, read as a little-endian 256-bit
// integer x, must satisfy x * difficulty < 2^256. Difficulty 0 and 1 accept
// every hash.
func CheckPoWHash(hash [32]byte, difficulty u128.U128) bool {
	var x [4]uint64
	for i := range x {
		x[i] = binary.LittleEndian.Uint64(hash[8*i:])
	}
	// Schoolbook x * d; only the words above 2^256 matter.
	var p [6]uint64
	for j, d := range [2]uint64{difficulty.Lo, difficulty.Hi} {
		var carry uint64
		for i, xi := range x {
			hi, lo := bits.Mul64(xi, d)
			var c uint64
			lo, c = bits.Add64(lo, p[i+j], 0)
			hi += c
			lo, c = bits.Add64(lo, carry, 0)
			hi += c
			p[i+j] = lo
			carry = hi
		}
		p[j+4] += carry
	}
	return p[4] == 0 && p[5] == 0
}

// SeedHeight is the height of the block whose id keys RandomX for a block at
// height (rx-slow-hash.c rx_seedheight): 0 (the genesis block) up to height
// 2112, then the last multiple of 2048 at least 65 blocks below.
func SeedHeight(height uint64) uint64 {
	if height <= SeedHashEpochBlocks+SeedHashEpochLag {
		return 0
	}
	return (height - SeedHashEpochLag - 1) &^ (SeedHashEpochBlocks - 1)
}

// NextSeedHeight is the seed height SeedHashEpochLag blocks later
// (rx_seedheights' "next height"); get_block_template reports the id at
// this height as next_seed_hash when it differs from the current seed.
func NextSeedHeight(height uint64) uint64 {
	return SeedHeight(height + SeedHashEpochLag)
}

// specialPoWHeight is the height whose PoW hash monerod never computes.
const specialPoWHeight = 202612

// pow202612 is that constant hash (cryptonote_tx_utils.cpp get_block_longhash).
var pow202612 = [32]byte{
	0x84, 0xf6, 0x47, 0x66, 0x47, 0x5d, 0x51, 0x83, 0x7a, 0xc9, 0xef, 0xbe, 0xf1, 0x92, 0x64, 0x86,
	0xe5, 0x85, 0x63, 0xc9, 0x5a, 0x19, 0xfe, 0xf4, 0xae, 0xc3, 0x25, 0x4f, 0x03, 0x00, 0x00, 0x00,
}

// PoWHashOverride returns the PoW hash monerod uses for a block at height
// instead of hashing it, if there is one: the block at height 202612 (on
// every network, regtest included) has the fixed hash of mainnet block
// 202612, whose real PoW was computed from a buggy tree hash.
func PoWHashOverride(height uint64) ([32]byte, bool) {
	if height == specialPoWHeight {
		return pow202612, true
	}
	return [32]byte{}, false
}

// CryptoNightVariant is the cn_slow_hash variant get_block_longhash uses for
// a block of major version major below RandomXVersion: major − 6 from version
// 7 on (1 for v7, 2 and 3 for v8–9, 4 and 5 for v10–11), else 0.
func CryptoNightVariant(major uint8) int {
	if major >= 7 {
		return int(major) - 6
	}
	return 0
}

// BlockPoWHash is get_block_longhash: the override of PoWHashOverride, else
// for major version >= 12 the RandomX hash of hashingBlob keyed with seed,
// the id of the block at SeedHeight(height), else CryptoNight in the variant
// of CryptoNightVariant (CryptoNight-R also takes the height; h and seed are
// not used).
func BlockPoWHash(h PoWHasher, height uint64, major uint8, seed [32]byte, hashingBlob []byte) ([32]byte, error) {
	if fixed, ok := PoWHashOverride(height); ok {
		return fixed, nil
	}
	if major < RandomXVersion {
		// monerod exits the process on a variant-1 input shorter than 43
		// bytes (possible only through calc_pow); this returns
		// cryptonight.ErrShortInput.
		return cryptonight.Sum(hashingBlob, CryptoNightVariant(major), height)
	}
	return h.Hash(seed, hashingBlob)
}
