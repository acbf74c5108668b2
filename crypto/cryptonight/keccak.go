package cryptonight

import (
	"encoding/binary"
	"math/bits"
)

// keccakRate is the sponge rate of monerod's keccak1600 (Keccak-256's:
// 200 − 2·32 bytes).
const keccakRate = 136

var keccakRC = [24]uint64{
	0x0000000000000001, 0x0000000000008082, 0x800000000000808a, 0x8000000080008000,
	0x000000000000808b, 0x0000000080000001, 0x8000000080008081, 0x8000000000008009,
	0x000000000000008a, 0x0000000000000088, 0x0000000080008009, 0x000000008000000a,
	0x000000008000808b, 0x800000000000008b, 0x8000000000008089, 0x8000000000008003,
	0x8000000000008002, 0x8000000000000080, 0x000000000000800a, 0x800000008000000a,
	0x8000000080008081, 0x8000000000008080, 0x0000000080000001, 0x8000000080008008,
}

// keccakRotc and keccakPiln are the ρ offsets and π lane order in the
// order the combined ρπ step visits lanes.
var keccakRotc = [24]int{1, 3, 6, 10, 15, 21, 28, 36, 45, 55, 2, 14, 27, 41, 56, 8, 25, 43, 62, 18, 39, 61, 20, 44}
var keccakPiln = [24]int{10, 7, 11, 17, 18, 3, 5, 16, 8, 21, 24, 4, 15, 23, 19, 13, 12, 2, 20, 14, 22, 9, 6, 1}

// keccakF is Keccak-f[1600], 24 rounds (monerod's keccakf). The standard
// library keeps its permutation unexported, and CryptoNight needs the whole
// state, not a digest.
func keccakF(st *[25]uint64) {
	var bc [5]uint64
	for round := range 24 {
		// θ
		for i := range 5 {
			bc[i] = st[i] ^ st[i+5] ^ st[i+10] ^ st[i+15] ^ st[i+20]
		}
		for i := range 5 {
			t := bc[(i+4)%5] ^ bits.RotateLeft64(bc[(i+1)%5], 1)
			for j := 0; j < 25; j += 5 {
				st[j+i] ^= t
			}
		}
		// ρ and π
		t := st[1]
		for i := range 24 {
			j := keccakPiln[i]
			t, st[j] = st[j], bits.RotateLeft64(t, keccakRotc[i])
		}
		// χ
		for j := 0; j < 25; j += 5 {
			copy(bc[:], st[j:j+5])
			for i := range 5 {
				st[j+i] ^= ^bc[(i+1)%5] & bc[(i+2)%5]
			}
		}
		// ι
		st[0] ^= keccakRC[round]
	}
}

// keccak1600 is monerod's keccak1600 (hash_process): absorb data with rate
// 136 and the original Keccak padding, and return the whole 200-byte state
// after the last permutation. Its first 32 bytes are Keccak-256(data).
func keccak1600(data []byte) [200]byte {
	var st [25]uint64
	for len(data) >= keccakRate {
		for i := range keccakRate / 8 {
			st[i] ^= binary.LittleEndian.Uint64(data[8*i:])
		}
		keccakF(&st)
		data = data[keccakRate:]
	}
	var last [keccakRate]byte
	copy(last[:], data)
	last[len(data)] = 0x01
	last[keccakRate-1] |= 0x80
	for i := range keccakRate / 8 {
		st[i] ^= binary.LittleEndian.Uint64(last[8*i:])
	}
	keccakF(&st)
	return stateBytes(&st)
}

func stateBytes(st *[25]uint64) [200]byte {
	var out [200]byte
	for i, w := range st {
		binary.LittleEndian.PutUint64(out[8*i:], w)
	}
	return out
}

func stateWords(b *[200]byte) [25]uint64 {
	var st [25]uint64
	for i := range st {
		st[i] = binary.LittleEndian.Uint64(b[8*i:])
	}
	return st
}
