package cryptonight

import (
	"bufio"
	"encoding/hex"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/gonero/gonero/internal/testutil"
)

// hashTestdata is where Debian's monero-tests installs monero's tests/hash.
const hashTestdata = "/usr/share/monero/testdata/hash/"

// vectorLine is one line of a tests/hash file: expected hash, input ("x"
// for empty) and, for CryptoNight-R, the height (tests/hash/main.cpp).
type vectorLine struct {
	want   string
	input  []byte
	height uint64
}

func readVectors(t *testing.T, name string, withHeight bool) []vectorLine {
	t.Helper()
	path := hashTestdata + name
	testutil.RequireFile(t, path, "apt-get install monero-tests")
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []vectorLine
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 {
			continue
		}
		want := 2
		if withHeight {
			want = 3
		}
		if len(fields) != want {
			t.Fatalf("%s: line %q has %d fields, want %d", name, sc.Text(), len(fields), want)
		}
		var v vectorLine
		v.want = fields[0]
		if fields[1] != "x" {
			if v.input, err = hex.DecodeString(fields[1]); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
		}
		if withHeight {
			if v.height, err = strconv.ParseUint(fields[2], 10, 64); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
		}
		out = append(out, v)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(out) == 0 {
		t.Fatalf("%s: no vectors", name)
	}
	return out
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
				got, err := h.Sum(v.input, tc.variant, v.height)
				if err != nil {
					t.Fatalf("line %d: %v", i+1, err)
				}
				if hex.EncodeToString(got[:]) != v.want {
					t.Errorf("line %d: got %x, want %s", i+1, got, v.want)
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
				got := finalizer(i, v.input)
				if hex.EncodeToString(got[:]) != v.want {
					t.Errorf("line %d: got %x, want %s", n+1, got, v.want)
				}
			}
		})
	}
	t.Run("tests-fast.txt", func(t *testing.T) {
		for n, v := range readVectors(t, "tests-fast.txt", false) {
			st := keccak1600(v.input)
			if hex.EncodeToString(st[:32]) != v.want {
				t.Errorf("line %d: got %x, want %s", n+1, st[:32], v.want)
			}
		}
	})
}

// finalizer runs finalHash's choice i on any input (the vectors are not
// 200-byte states).
func finalizer(i int, data []byte) [Size]byte {
	return finalHashes[i](data)
}
