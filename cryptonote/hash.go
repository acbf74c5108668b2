package cryptonote

import (
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
