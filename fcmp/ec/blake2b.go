package ec

import "github.com/gonero/gonero/crypto/blake2bp"

// Blake2bMonero512 is monerod's blake2b_monero(out, 64, data, len, NULL, 0): BLAKE2b-512 personalised with
// "Monero" (src/crypto/blake2b.c), the hash under the unbiased hash-to-point.
func Blake2bMonero512(data []byte) [64]byte {
	var out [64]byte
	blake2bp.Sum(out[:], nil, []byte("Monero"), data)
	return out
}
