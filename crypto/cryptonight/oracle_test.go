package cryptonight

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/gonero/gonero/internal/testutil"
)

// hashTestsBin is monero's tests/hash runner from Debian's monero-tests.
const hashTestsBin = "/usr/lib/monero/tests/bin/hash-tests"

// oracleCase is one random input for the differential test.
type oracleCase struct {
	input  []byte
	height uint64
}

// monerodHashes runs hash-tests on cases with a dummy expected hash: it
// prints each mismatching input's actual hash, which makes it an oracle for
// any input (docs/mainnet.md §1.7). Its CryptoNight-R JIT aborts on this machine,
// so the interpreter is forced (MONERO_USE_CNV4_JIT=0).
// It runs beside the Go side, so it reports failures as errors rather than
// through t.
func monerodHashes(dir, name string, cases []oracleCase, withHeight bool) ([]string, error) {
	var file bytes.Buffer
	zero := strings.Repeat("0", 64)
	for _, c := range cases {
		in := hex.EncodeToString(c.input)
		if in == "" {
			in = "x"
		}
		if withHeight {
			fmt.Fprintf(&file, "%s %s %d\n", zero, in, c.height)
		} else {
			fmt.Fprintf(&file, "%s %s\n", zero, in)
		}
	}
	path := filepath.Join(dir, name+".txt")
	if err := os.WriteFile(path, file.Bytes(), 0o644); err != nil {
		return nil, err
	}
	cmd := exec.Command(hashTestsBin, name, path)
	cmd.Env = append(os.Environ(), "MONERO_USE_CNV4_JIT=0")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err == nil {
		return nil, fmt.Errorf("hash-tests %s accepted dummy hashes", name)
	}
	var out []string
	sc := bufio.NewScanner(&stderr)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if h, ok := strings.CutPrefix(sc.Text(), "Actual hash: "); ok {
			out = append(out, h)
		}
	}
	if len(out) != len(cases) {
		return nil, fmt.Errorf("hash-tests %s printed %d hashes for %d cases:\n%s", name, len(out), len(cases), stderr.String())
	}
	return out, nil
}

// TestDifferentialAgainstMonerod hashes random inputs (43–200 bytes, the
// v1 minimum upwards; v0 from empty) and random CryptoNight-R heights
// (0 … 10^7) with this package and with monerod's hash-tests, and compares.
// 50 cases per variant (about 40 s on the 2-core machine, in every CI
// run), 20 with -short, or GONERO_CN_ORACLE_CASES (e.g. 2000 for a longer
// campaign; the seeds are fixed, so a larger count extends the same
// sequence).
func TestDifferentialAgainstMonerod(t *testing.T) {
	testutil.RequireFile(t, hashTestsBin, "apt-get install monero-tests")
	n := 50
	if testing.Short() {
		n = 20
	}
	if v := os.Getenv("GONERO_CN_ORACLE_CASES"); v != "" {
		c, err := strconv.Atoi(v)
		if err != nil || c < 1 {
			t.Fatalf("GONERO_CN_ORACLE_CASES=%q: want a positive count", v)
		}
		n = c
	}
	for _, tc := range []struct {
		name    string
		variant int
		minLen  int
	}{
		{"slow", V0, 0},
		{"slow-1", V1, v1MinInput},
		{"slow-2", V2, v1MinInput},
		{"slow-4", R, v1MinInput},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(tc.variant), 0x63727970746f6e))
			cases := make([]oracleCase, n)
			for i := range cases {
				cases[i].input = make([]byte, tc.minLen+rng.IntN(201-tc.minLen))
				for j := range cases[i].input {
					cases[i].input[j] = byte(rng.Uint32())
				}
				cases[i].height = rng.Uint64N(10_000_001)
			}
			// monerod's run and ours share the two cores.
			var (
				want    []string
				oracleE error
				wg      sync.WaitGroup
			)
			dir := t.TempDir()
			wg.Go(func() { want, oracleE = monerodHashes(dir, tc.name, cases, tc.variant == R) })
			got := make([]string, n)
			pool := NewPool(1)
			for i, c := range cases {
				h, err := pool.Sum(c.input, tc.variant, c.height)
				if err != nil {
					t.Errorf("case %d: %v", i, err)
				}
				got[i] = hex.EncodeToString(h[:])
			}
			wg.Wait()
			if oracleE != nil {
				t.Fatal(oracleE)
			}
			for i := range cases {
				if got[i] != want[i] {
					t.Errorf("case %d (height %d, input %x): got %s, monerod %s", i, cases[i].height, cases[i].input, got[i], want[i])
				}
			}
		})
	}
}

// TestFinalizersAgainstMonerod hashes inputs of every length from 0 to 300
// bytes (all padding cases of 64-byte blocks several times over) and 100
// random 200-byte states with each of the four finalizers here and with
// monerod's own (hash-tests extra-blake, -groestl, -jh, -skein), and
// compares.
func TestFinalizersAgainstMonerod(t *testing.T) {
	testutil.RequireFile(t, hashTestsBin, "apt-get install monero-tests")
	rng := rand.New(rand.NewPCG(0x66696e616c, 0x697a6572))
	var cases []oracleCase
	random := func(n int) []byte {
		b := make([]byte, n)
		for j := range b {
			b[j] = byte(rng.Uint32())
		}
		return b
	}
	for n := 0; n <= 300; n++ {
		cases = append(cases, oracleCase{input: random(n)})
	}
	for range 100 {
		cases = append(cases, oracleCase{input: random(200)})
	}
	for i, name := range []string{"extra-blake", "extra-groestl", "extra-jh", "extra-skein"} {
		t.Run(name, func(t *testing.T) {
			want, err := monerodHashes(t.TempDir(), name, cases, false)
			if err != nil {
				t.Fatal(err)
			}
			for n, c := range cases {
				if got := finalizer(i, c.input); hex.EncodeToString(got[:]) != want[n] {
					t.Errorf("case %d (%d bytes): got %x, monerod %s", n, len(c.input), got, want[n])
				}
			}
		})
	}
}
