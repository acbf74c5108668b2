package ringct

import (
	"testing"

	"github.com/gonero/gonero/cryptonote"
)

// The fuzz input is a seed proof index, then bytes XORed over the proof's
// serialized fields, then control bytes that resize L, R and the
// commitments (each bounded: L, R ≤ 10, commitments ≤ 16).

// mutateKeys XORs data over keys, returning the unused rest of data.
func mutateKeys(keys []*cryptonote.Key, data []byte) []byte {
	for _, k := range keys {
		if len(data) == 0 {
			return nil
		}
		n := copyXor(k[:], data)
		data = data[n:]
	}
	return data
}

func copyXor(dst, src []byte) int {
	n := min(len(dst), len(src))
	for i := 0; i < n; i++ {
		dst[i] ^= src[i]
	}
	return n
}

func resize(keys []cryptonote.Key, n int) []cryptonote.Key {
	for len(keys) < n {
		keys = append(keys, keys[len(keys)%max(1, len(keys))])
	}
	return keys[:n]
}

func keyPtrs(ks []cryptonote.Key) []*cryptonote.Key {
	out := make([]*cryptonote.Key, len(ks))
	for i := range ks {
		out[i] = &ks[i]
	}
	return out
}

func FuzzVerifyBulletproofsPlus(f *testing.F) {
	_, items := realBPPlus(f)
	f.Add(uint8(0), uint8(0), uint8(0), uint8(0), []byte{})
	f.Add(uint8(1), uint8(7), uint8(7), uint8(3), []byte{1, 2, 3})
	f.Add(uint8(2), uint8(6), uint8(5), uint8(2), make([]byte, 100))
	f.Fuzz(func(t *testing.T, idx, nl, nr, nc uint8, data []byte) {
		it := copyBPP(items[int(idx)%len(items)])
		p := it.Proof
		if nl != 0 {
			p.L = resize(p.L, int(nl)%11)
		}
		if nr != 0 {
			p.R = resize(p.R, int(nr)%11)
		}
		if nc != 0 && len(it.Commitments) > 0 {
			it.Commitments = resize(it.Commitments, int(nc)%17)
		}
		keys := []*cryptonote.Key{&p.A, &p.A1, &p.B, &p.R1, &p.S1, &p.D1}
		keys = append(keys, keyPtrs(p.L)...)
		keys = append(keys, keyPtrs(p.R)...)
		keys = append(keys, keyPtrs(it.Commitments)...)
		mutateKeys(keys, data)
		VerifyBulletproofsPlus([]BulletproofPlusItem{it})
		VerifyBulletproofsPlus([]BulletproofPlusItem{items[0], it})
	})
}

func FuzzVerifyBulletproofs(f *testing.F) {
	_, items := realBP(f)
	f.Add(uint8(0), uint8(0), uint8(0), uint8(0), []byte{})
	f.Add(uint8(1), uint8(7), uint8(7), uint8(3), []byte{1, 2, 3})
	f.Add(uint8(2), uint8(6), uint8(5), uint8(2), make([]byte, 100))
	f.Fuzz(func(t *testing.T, idx, nl, nr, nc uint8, data []byte) {
		it := copyBP(items[int(idx)%len(items)])
		p := it.Proof
		if nl != 0 {
			p.L = resize(p.L, int(nl)%11)
		}
		if nr != 0 {
			p.R = resize(p.R, int(nr)%11)
		}
		if nc != 0 && len(it.Commitments) > 0 {
			it.Commitments = resize(it.Commitments, int(nc)%17)
		}
		keys := []*cryptonote.Key{&p.A, &p.S, &p.T1, &p.T2, &p.Taux, &p.Mu, &p.Aa, &p.B, &p.T}
		keys = append(keys, keyPtrs(p.L)...)
		keys = append(keys, keyPtrs(p.R)...)
		keys = append(keys, keyPtrs(it.Commitments)...)
		mutateKeys(keys, data)
		VerifyBulletproofs([]BulletproofItem{it})
		VerifyBulletproofs([]BulletproofItem{items[0], it})
	})
}
