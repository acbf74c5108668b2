package crypto

import (
	"bufio"
	"crypto/rand"
	"os"
	"strings"
	"testing"

	"filippo.io/edwards25519"

	"github.com/gonero/gonero/internal/testutil"
)

// The seven small-order points of monero's tests/unit_tests/bulletproofs.cpp
// (copied to testdata/vectors): a key image of the form I + T must be
// refused, as must T alone and the identity.
func TestCheckKeyImageTorsion(t *testing.T) {
	f, err := os.Open(testutil.Path(t, "testdata", "vectors", "monero-unit-tests", "torsion_points.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var torsion []*edwards25519.Point
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		b := unhex(t, line)
		if CheckKeyImage(b) {
			t.Errorf("small-order point %s accepted as a key image", line)
		}
		p, err := new(edwards25519.Point).SetBytes(b)
		if err != nil {
			continue // the non-canonical encodings in the list
		}
		torsion = append(torsion, p)
	}
	if len(torsion) < 5 {
		t.Fatalf("only %d torsion points decoded", len(torsion))
	}
	if CheckKeyImage(identityBytes[:]) {
		t.Error("identity accepted as a key image")
	}
	for i := 0; i < 20; i++ {
		var seed [64]byte
		rand.Read(seed[:])
		x, _ := edwards25519.NewScalar().SetUniformBytes(seed[:])
		pub := new(edwards25519.Point).ScalarBaseMult(x)
		ki, err := GenerateKeyImage(pub.Bytes(), x)
		if err != nil {
			t.Fatal(err)
		}
		if !CheckKeyImage(ki[:]) {
			t.Fatalf("honest key image %x refused", ki)
		}
		for _, T := range torsion {
			if T.Equal(edwards25519.NewIdentityPoint()) == 1 {
				continue
			}
			bad := new(edwards25519.Point).Add(mustDecode(t, ki[:]), T)
			if CheckKeyImage(bad.Bytes()) {
				t.Fatalf("key image + torsion %x accepted", bad.Bytes())
			}
		}
	}
}

func mustDecode(t *testing.T, b []byte) *edwards25519.Point {
	t.Helper()
	p, err := DecodePoint(b)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestZeroCommit(t *testing.T) {
	// zeroCommit(0) is G itself; zeroCommit(a) − zeroCommit(0) = a·H.
	if c := ZeroCommit(0); c != [32]byte(edwards25519.NewGeneratorPoint().Bytes()) {
		t.Fatalf("zeroCommit(0) = %x, want G", c)
	}
	c := mustDecode(t, func() []byte { c := ZeroCommit(1000); return c[:] }())
	c.Subtract(c, edwards25519.NewGeneratorPoint())
	h1000 := new(edwards25519.Point).ScalarMult(ScalarFromUint64(1000), h)
	if c.Equal(h1000) != 1 {
		t.Fatal("zeroCommit(1000) − G ≠ 1000·H")
	}
	// The largest amount, against a constant-time multiplication.
	max := new(edwards25519.Point).ScalarMult(ScalarFromUint64(1<<64-1), h)
	max.Add(max, edwards25519.NewGeneratorPoint())
	if got := ZeroCommit(1<<64 - 1); got != [32]byte(max.Bytes()) {
		t.Fatalf("zeroCommit(2^64−1) = %x", got)
	}
}
