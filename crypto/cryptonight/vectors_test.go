package cryptonight

import (
	"encoding/hex"
	"testing"

	"github.com/gonero/gonero/internal/testutil"
)

// readVectors reads one of monero's tests/hash files.
func readVectors(t *testing.T, name string, withHeight bool) []testutil.HashVector {
	return testutil.HashVectors(t, name, withHeight)
}

// TestSlowHashMoneroVectors runs every line of monero's tests-slow*.txt.
func TestSlowHashMoneroVectors(t *testing.T) {
	for _, tc := range []struct {
		file    string
		variant int
		height  bool
		count   int
	}{
		{"tests-slow.txt", V0, false, 4},
		{"tests-slow-1.txt", V1, false, 5},
		{"tests-slow-2.txt", V2, false, 10},
		{"tests-slow-4.txt", R, true, 10},
	} {
		t.Run(tc.file, func(t *testing.T) {
			t.Parallel()
			vs := readVectors(t, tc.file, tc.height)
			if len(vs) != tc.count {
				t.Errorf("%d vectors, want %d", len(vs), tc.count)
			}
			h := NewHasher()
			for i, v := range vs {
				got, err := h.Sum(v.Input, tc.variant, v.Height)
				if err != nil {
					t.Fatalf("line %d: %v", i+1, err)
				}
				if hex.EncodeToString(got[:]) != v.Want {
					t.Errorf("line %d: got %x, want %s", i+1, got, v.Want)
				}
			}
		})
	}
}

// TestFinalizerMoneroVectors runs monero's tests-extra-*.txt through the
// four finalizers, and tests-fast.txt through the full-state Keccak.
func TestFinalizerMoneroVectors(t *testing.T) {
	for i, file := range []string{"tests-extra-blake.txt", "tests-extra-groestl.txt", "tests-extra-jh.txt", "tests-extra-skein.txt"} {
		t.Run(file, func(t *testing.T) {
			vs := readVectors(t, file, false)
			for n, v := range vs {
				got := finalizer(i, v.Input)
				if hex.EncodeToString(got[:]) != v.Want {
					t.Errorf("line %d: got %x, want %s", n+1, got, v.Want)
				}
			}
		})
	}
	t.Run("tests-fast.txt", func(t *testing.T) {
		for n, v := range readVectors(t, "tests-fast.txt", false) {
			st := keccak1600(v.Input)
			if hex.EncodeToString(st[:32]) != v.Want {
				t.Errorf("line %d: got %x, want %s", n+1, st[:32], v.Want)
			}
		}
	})
}

// finalizer runs finalHash's choice i on any input (the vectors are not
// 200-byte states).
func finalizer(i int, data []byte) [Size]byte {
	return finalHashes[i](data)
}
