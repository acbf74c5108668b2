package testutil

import (
	"bufio"
	"encoding/hex"
	"os"
	"strconv"
	"strings"
	"testing"
)

// HashTestdata is where Debian's monero-tests installs monero's tests/hash.
const HashTestdata = "/usr/share/monero/testdata/hash/"

// HashVector is one line of a tests/hash file: the expected hash in hex,
// the input ("x" for empty in the file) and, for CryptoNight-R, the
// height (monero's tests/hash/main.cpp).
type HashVector struct {
	Want   string
	Input  []byte
	Height uint64
}

// HashVectors reads HashTestdata+name (failing in CI, skipping elsewhere,
// when monero-tests is missing); withHeight for the files whose lines end
// with a height.
func HashVectors(t testing.TB, name string, withHeight bool) []HashVector {
	t.Helper()
	path := HashTestdata + name
	RequireFile(t, path, "apt-get install monero-tests")
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fieldCount := 2
	if withHeight {
		fieldCount = 3
	}
	var out []HashVector
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 {
			continue
		}
		if len(fields) != fieldCount {
			t.Fatalf("%s: line %q has %d fields, want %d", name, sc.Text(), len(fields), fieldCount)
		}
		v := HashVector{Want: fields[0]}
		if fields[1] != "x" {
			if v.Input, err = hex.DecodeString(fields[1]); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
		}
		if withHeight {
			if v.Height, err = strconv.ParseUint(fields[2], 10, 64); err != nil {
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
