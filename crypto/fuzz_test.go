package crypto

import (
	"testing"
)

// Hostile bytes through every primitive that takes them from a transaction:
// never a panic, and the decode checks agree with each other.
func FuzzPrimitives(f *testing.F) {
	f.Add(make([]byte, 32))
	f.Add([]byte{1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x80})
	f.Add(h.Bytes())
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := DecodePoint(b)
		if err == nil && string(p.Bytes()) != string(b) {
			t.Fatalf("decoded %x re-encodes as %x", b, p.Bytes())
		}
		if CheckKeyImage(b) && err != nil {
			t.Fatalf("undecodable %x accepted as a key image", b)
		}
		HashToScalar(b)
		if _, err := HashToEC(b); err != nil {
			t.Fatalf("hash_to_ec(%x): %v", b, err)
		}
		if len(b) == 32 {
			if _, err := HashToPoint(b); err != nil {
				t.Logf("hash_to_point(%x): %v", b, err)
			}
		}
		DecodeScalar(b)
	})
}

// FuzzRingSignature feeds arbitrary rings and signatures to the v1 verifier.
func FuzzRingSignature(f *testing.F) {
	f.Add(make([]byte, 32), make([]byte, 32), make([]byte, 32*2), make([]byte, 64*2))
	f.Fuzz(func(t *testing.T, prefix, ki, ring, sig []byte) {
		if len(prefix) != 32 || len(ki) != 32 || len(ring)%32 != 0 || len(ring) > 32*32 {
			return
		}
		n := len(ring) / 32
		if len(sig) != 64*n {
			return
		}
		pubs := make([][32]byte, n)
		sigs := make([][64]byte, n)
		for i := range n {
			pubs[i] = [32]byte(ring[32*i:])
			sigs[i] = [64]byte(sig[64*i:])
		}
		CheckRingSignature([32]byte(prefix), [32]byte(ki), pubs, sigs)
	})
}
