package cryptonote

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"

	"golang.org/x/crypto/sha3"
)

// HashSize is the size of every Monero hash, key and key image.
const HashSize = 32

// Hash is a 32-byte Keccak-256 digest (block id, tx id, tree hash, ...).
type Hash [HashSize]byte

// String is the lower-case hex form monerod prints.
func (h Hash) String() string { return hex.EncodeToString(h[:]) }

// IsZero reports whether every byte is zero.
func (h Hash) IsZero() bool { return h == Hash{} }

// CompareHash32 is monerod's LMDB compare_hash32, the order of its tables
// keyed by a hash (the transaction pool, the alternative blocks), which
// its RPC and ZMQ lists follow: the hash as eight little-endian 32-bit
// words, the last most significant. It returns -1, 0 or +1.
func CompareHash32(a, b Hash) int {
	for n := 7; n >= 0; n-- {
		x := binary.LittleEndian.Uint32(a[4*n:])
		y := binary.LittleEndian.Uint32(b[4*n:])
		if x != y {
			if x < y {
				return -1
			}
			return 1
		}
	}
	return 0
}

// ParseHash decodes exactly 64 hex digits (either case).
func ParseHash(s string) (Hash, error) {
	var h Hash
	if len(s) != 2*HashSize {
		return h, fmt.Errorf("hash must be %d hex digits, got %d characters", 2*HashSize, len(s))
	}
	if _, err := hex.Decode(h[:], []byte(s)); err != nil {
		return h, fmt.Errorf("hash is not hex: %w", err)
	}
	return h, nil
}

// MustParseHash is ParseHash for constants; it panics on a malformed literal.
func MustParseHash(s string) Hash {
	h, err := ParseHash(s)
	if err != nil {
		panic(err)
	}
	return h
}

// Keccak256 is monero's cn_fast_hash: Keccak-256 with the original (pre-SHA-3) padding.
func Keccak256(data ...[]byte) Hash {
	k := sha3.NewLegacyKeccak256()
	for _, d := range data {
		k.Write(d)
	}
	var h Hash
	k.Sum(h[:0])
	return h
}
