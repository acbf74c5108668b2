package ec

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"filippo.io/edwards25519"

	"github.com/gonero/gonero/crypto"
	"github.com/gonero/gonero/internal/testutil"
)

type vectors struct {
	Generators map[string]string `json:"generators"`
	HashToPt   []struct {
		In, Out string
	} `json:"hash_to_point(keccak([i]))"`
	KIG []struct {
		Pub, Biased, Unbiased string
	} `json:"derive_key_image_generator(pub=(i+1)G)"`
	Wei []struct {
		Point string `json:"point"`
		WeiX  string `json:"wei_x"`
		WeiY  string `json:"wei_y"`
	} `json:"ed25519_to_wei25519_xy"`
}

func loadVectors(t *testing.T) *vectors {
	t.Helper()
	b, err := os.ReadFile(testutil.Path(t, "testdata", "fcmp", "vectors.json"))
	if err != nil {
		t.Fatal(err)
	}
	var v vectors
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	if len(v.HashToPt) != 8 || len(v.KIG) != 8 || len(v.Wei) != 8 || len(v.Generators) != 5 {
		t.Fatal("vectors.json is not the oracle's vectors output")
	}
	return &v
}

func unhex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func hexOf(b []byte) string { return hex.EncodeToString(b) }

func TestGeneratorsD06d9518(t *testing.T) {
	v := loadVectors(t)
	g := D06d9518Generators()
	for name, p := range map[string]*edwards25519.Point{"T": g.T, "U": g.U, "V": g.V} {
		if got := hexOf(p.Bytes()); got != v.Generators[name] {
			t.Errorf("d06d9518 %s = %s, want %s", name, got, v.Generators[name])
		}
	}
	if got := hexOf(crypto.H().Bytes()); got != v.Generators["H"] {
		t.Errorf("H = %s, want %s", got, v.Generators["H"])
	}
	if got := hexOf(edwards25519.NewGeneratorPoint().Bytes()); got != v.Generators["G"] {
		t.Errorf("G = %s, want %s", got, v.Generators["G"])
	}
}

func TestGeneratorsMaster(t *testing.T) {
	f, err := os.Open(testutil.Path(t, "testdata", "fcmp", "master_generators_TUV.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	g := MasterGenerators()
	got := map[string]*edwards25519.Point{"T": g.T, "U": g.U, "V": g.V}
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		w := strings.Fields(sc.Text())
		if len(w) != 2 {
			continue
		}
		if hexOf(got[w[0]].Bytes()) != w[1] {
			t.Errorf("master %s = %x, want %s", w[0], got[w[0]].Bytes(), w[1])
		}
		n++
	}
	if n != 3 {
		t.Fatalf("%d generators in the file", n)
	}
	// Master's constants are prime-order points, unlike any other point a typo would give.
	for name, p := range got {
		if HasTorsion(p) {
			t.Errorf("master %s has torsion", name)
		}
	}
}

// TestGeneratorsMasterDerivation derives master's hard-coded T, U, V from their seeds, and shows that the
// derivation generators.cpp names (unbiased_hash_to_ec(keccak256(seed)), personalised BLAKE2b) gives other
// points: the open discrepancy of fcmp-oracle's README, resolved.
func TestGeneratorsMasterDerivation(t *testing.T) {
	g := MasterGenerators()
	for seed, want := range map[string]*edwards25519.Point{seedT: g.T, seedU: g.U, seedV: g.V} {
		p, err := masterDerivation(seed)
		if err != nil || p.Equal(want) != 1 {
			t.Errorf("%q: derived %x, want %x", seed, p.Bytes(), want.Bytes())
		}
		k := crypto.Keccak256([]byte(seed))
		q, err := UnbiasedHashToPoint(k[:])
		if err != nil || q.Equal(want) == 1 {
			t.Errorf("%q: the personalised derivation gives master's constant", seed)
		}
	}
	// The personalised derivation of the seeds gives what fcmp-oracle's build prints (generator_seeds.txt
	// holds keccak256(seed); the oracle's summary line has T dc42e1d3, U 8a948e28, V 1a423509).
	k := crypto.Keccak256([]byte(seedT))
	q, _ := UnbiasedHashToPoint(k[:])
	if !strings.HasPrefix(hexOf(q.Bytes()), "dc42e1d3") {
		t.Errorf("personalised T = %x", q.Bytes())
	}
}

func TestBiasedHashToPoint(t *testing.T) {
	v := loadVectors(t)
	for i, h := range v.HashToPt {
		in := unhex(t, h.In)
		if want := crypto.Keccak256([]byte{byte(i)}); hexOf(want[:]) != h.In {
			t.Fatalf("input %d is not keccak([%d])", i, i)
		}
		p, err := BiasedHashToPoint(in)
		if err != nil || hexOf(p.Bytes()) != h.Out {
			t.Errorf("hash_to_point(%s) = %v %v, want %s", h.In, p, err, h.Out)
		}
	}
}

func TestKeyImageGenerator(t *testing.T) {
	v := loadVectors(t)
	for i, k := range v.KIG {
		want := crypto.ScalarFromUint64(uint64(i + 1))
		pub := new(edwards25519.Point).ScalarBaseMult(want).Bytes()
		if hexOf(pub) != k.Pub {
			t.Fatalf("pub %d is not %d·G", i, i+1)
		}
		b, err := KeyImageGenerator([32]byte(pub), true)
		if err != nil || hexOf(b[:]) != k.Biased {
			t.Errorf("biased KIG(%s) = %x %v, want %s", k.Pub, b, err, k.Biased)
		}
		u, err := KeyImageGenerator([32]byte(pub), false)
		if err != nil || hexOf(u[:]) != k.Unbiased {
			t.Errorf("unbiased KIG(%s) = %x %v, want %s", k.Pub, u, err, k.Unbiased)
		}
	}
}

// TestKeyImageGeneratorMaster replays the 49 derive_key_image_generator(PUB, false) lines of monerod
// master's tests/crypto/tests.txt.
func TestKeyImageGeneratorMaster(t *testing.T) {
	f, err := os.Open(testutil.Path(t, "testdata", "fcmp", "kig_unbiased_from_master_tests_txt.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		w := strings.Fields(sc.Text())
		if len(w) != 2 {
			continue
		}
		got, err := KeyImageGenerator([32]byte(unhex(t, w[0])), false)
		if err != nil || hexOf(got[:]) != w[1] {
			t.Errorf("unbiased KIG(%s) = %x %v, want %s", w[0], got, err, w[1])
		}
		n++
	}
	if n != 49 {
		t.Fatalf("%d lines replayed, want 49", n)
	}
}

func TestToWei25519(t *testing.T) {
	v := loadVectors(t)
	for i, w := range v.Wei {
		p, err := crypto.DecodePoint(unhex(t, w.Point))
		if err != nil {
			t.Fatal(err)
		}
		x, y, err := ToWei25519(p)
		xb, yb := x.Bytes(), y.Bytes()
		if err != nil || hexOf(xb[:]) != w.WeiX || hexOf(yb[:]) != w.WeiY {
			t.Errorf("wei %d: %x %x %v, want %s %s", i, xb, yb, err, w.WeiX, w.WeiY)
		}
	}
	if _, _, err := ToWei25519(edwards25519.NewIdentityPoint()); err == nil {
		t.Error("identity mapped")
	}
	// (0, -1), the point of order 2.
	order2 := unhex(t, "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f")
	p, err := crypto.DecodePoint(order2)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := ToWei25519(p); err == nil {
		t.Error("point of order 2 mapped")
	}
}

func TestClearTorsion(t *testing.T) {
	g := edwards25519.NewGeneratorPoint()
	// A point of order 8: its torsion-cleared value is the identity, refused.
	order8 := unhex(t, "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a")
	if _, err := ClearTorsion(order8); err == nil {
		t.Error("small-order point accepted")
	}
	o8, err := crypto.DecodePoint(order8)
	if err != nil {
		t.Fatal(err)
	}
	// G + (order 8) clears to G; G itself is unchanged.
	tors := new(edwards25519.Point).Add(g, o8)
	if !HasTorsion(tors) || HasTorsion(g) {
		t.Error("HasTorsion")
	}
	got, err := ClearTorsion(tors.Bytes())
	if err != nil || !bytes.Equal(got[:], g.Bytes()) {
		t.Errorf("clear(G + T8) = %x %v, want G", got, err)
	}
	got, err = ClearTorsion(g.Bytes())
	if err != nil || !bytes.Equal(got[:], g.Bytes()) {
		t.Errorf("clear(G) = %x %v", got, err)
	}
	// Non-canonical y (p + 1 for y = 1) is refused as monerod refuses it.
	if _, err := ClearTorsion(unhex(t, "eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f")); err == nil {
		t.Error("non-canonical encoding accepted")
	}
	if _, err := ClearTorsion([]byte{1, 2, 3}); err == nil {
		t.Error("short input accepted")
	}
}

func FuzzClearTorsion(f *testing.F) {
	f.Add(edwards25519.NewGeneratorPoint().Bytes())
	f.Add(make([]byte, 32))
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := ClearTorsion(b)
		if err != nil {
			return
		}
		p, err := crypto.DecodePoint(c[:])
		if err != nil || HasTorsion(p) {
			t.Fatalf("%x cleared to %x with torsion", b, c)
		}
		if _, _, err := ToWei25519(p); err != nil {
			t.Fatalf("cleared %x has no Wei25519 image", c)
		}
	})
}

func FuzzUnbiasedHashToPoint(f *testing.F) {
	f.Add([]byte("Monero Generator T"))
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := UnbiasedHashToPoint(b)
		if err != nil {
			return
		}
		if HasTorsion(p) {
			t.Fatalf("%x: unbiased hash-to-point has torsion", b)
		}
	})
}
