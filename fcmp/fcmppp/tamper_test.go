package fcmppp

import (
	"encoding/hex"
	"testing"

	"filippo.io/edwards25519"

	"github.com/gonero/gonero/fcmp/ec"
)

func gridCases(t testing.TB) []oracleCase {
	return loadCases(t, "../../testdata/fcmp/proofs/fcmp_pp_prove_1-3x1-3.json")
}

// TestTamper: a changed proof byte, a wrong root, a wrong layer count, a wrong message, the key image
// of another output, another pseudo-out: each fails.
func TestTamper(t *testing.T) {
	p := testParams(t)
	cs := gridCases(t)
	base := cs[4] // 2 inputs, 2 layers
	if err := verifyCase(p, &base); err != nil {
		t.Fatal(err)
	}
	// Another output: the grid's cases all come from stream 0 of one seed, so their first inputs spend the
	// same output; vectors.json's proof (another seed) spends another.
	other := loadCases(t, "../../testdata/fcmp/vectors.json")[0]
	if other.KeyImages[0] == base.KeyImages[0] {
		t.Fatal("the other case spends the same output")
	}
	flip := func(s string, i int) string {
		b, _ := hex.DecodeString(s)
		b[i] ^= 1
		return hex.EncodeToString(b)
	}
	proofLen := len(base.Proof) / 2
	step := 61
	if testing.Short() {
		step = 397
	}
	for i := 0; i < proofLen; i += step {
		c := base
		c.Proof = flip(base.Proof, i)
		if verifyCase(p, &c) == nil {
			t.Fatalf("proof byte %d changed: verifies", i)
		}
	}
	for _, i := range []int{proofLen - 1, proofLen - 64, proofLen - 33} {
		c := base
		c.Proof = flip(base.Proof, i)
		if verifyCase(p, &c) == nil {
			t.Fatalf("proof byte %d changed: verifies", i)
		}
	}
	mutations := map[string]func(c *oracleCase){
		"root byte changed": func(c *oracleCase) { c.TreeRoot = flip(c.TreeRoot, 0) },
		// A valid Helios point that is not this tree's root: the root of the 1x2 case.
		"another tree's root": func(c *oracleCase) { c.TreeRoot = cs[1].TreeRoot },
		"one layer more":      func(c *oracleCase) { c.Layers++ },
		"one layer less":      func(c *oracleCase) { c.Layers-- },
		"no layer":            func(c *oracleCase) { c.Layers = 0 },
		"message changed":     func(c *oracleCase) { c.SignableTxHash = flip(c.SignableTxHash, 31) },
		"key image of another output": func(c *oracleCase) {
			c.KeyImages = []string{other.KeyImages[0], c.KeyImages[1]}
		},
		"key images swapped": func(c *oracleCase) { c.KeyImages = []string{c.KeyImages[1], c.KeyImages[0]} },
		"pseudo-out of another input": func(c *oracleCase) {
			c.PseudoOuts = []string{c.PseudoOuts[1], c.PseudoOuts[1]}
		},
		"a key image missing": func(c *oracleCase) { c.KeyImages = c.KeyImages[:1] },
	}
	for name, m := range mutations {
		c := base
		c.KeyImages = append([]string{}, base.KeyImages...)
		c.PseudoOuts = append([]string{}, base.PseudoOuts...)
		m(&c)
		if verifyCase(p, &c) == nil {
			t.Errorf("%s: verifies", name)
		}
	}
}

// TestBatch queues every verifying grid case into one batch, which verifies; with one more proof whose
// only fault is its message (it reads and queues), the batch fails.
func TestBatch(t *testing.T) {
	p := testParams(t)
	var b Batch
	queue := func(c *oracleCase) error {
		var pseudo, kis [][32]byte
		for _, s := range c.PseudoOuts {
			v, _ := hex32(s)
			pseudo = append(pseudo, v)
		}
		for _, s := range c.KeyImages {
			v, _ := hex32(s)
			kis = append(kis, v)
		}
		tx, _ := hex32(c.SignableTxHash)
		root, _ := hex32(c.TreeRoot)
		proof, _ := hex.DecodeString(c.Proof)
		pr, err := Read(pseudo, c.Layers, proof)
		if err != nil {
			return err
		}
		return p.Queue(&b, pr, root[:], tx, kis)
	}
	cs := gridCases(t)
	for i := range cs {
		if err := queue(&cs[i]); err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
	}
	if !p.Verify(&b) {
		t.Fatal("a batch of 9 valid proofs fails")
	}
	bad := cs[3]
	// (Every grid case is stream 0 of the same seed, so they share their tx hash: change a byte.)
	tx, _ := hex.DecodeString(bad.SignableTxHash)
	tx[5] ^= 0x20
	bad.SignableTxHash = hex.EncodeToString(tx)
	if err := queue(&bad); err != nil {
		t.Fatalf("the altered proof did not queue: %v", err)
	}
	if p.Verify(&b) {
		t.Fatal("a batch holding a proof of another message verifies")
	}
}

// FuzzRead reads arbitrary bytes as a proof for 1 to 4 inputs and 1 to 4 layers and, when they read,
// verifies them: an error or false, never a panic.
func FuzzRead(f *testing.F) {
	p := testParams(f)
	cs := gridCases(f)
	c := cs[0]
	proof, _ := hex.DecodeString(c.Proof)
	pseudo, _ := hex32(c.PseudoOuts[0])
	f.Add(uint8(1), uint8(1), proof)
	f.Add(uint8(2), uint8(3), []byte{})
	f.Fuzz(func(t *testing.T, inputs, layers uint8, proof []byte) {
		n := int(inputs%4) + 1
		pseudos := make([][32]byte, n)
		for i := range pseudos {
			pseudos[i] = pseudo
		}
		pr, err := Read(pseudos, int(layers%4)+1, proof)
		if err != nil {
			return
		}
		var b Batch
		root, _ := hex32(c.TreeRoot)
		tx, _ := hex32(c.SignableTxHash)
		if p.Queue(&b, pr, root[:], tx, pseudos) == nil {
			p.Verify(&b)
		}
	})
}

// TestTorsionFree agrees with fcmp/ec's HasTorsion on points with and without a torsion component.
func TestTorsionFree(t *testing.T) {
	g := edwards25519.NewGeneratorPoint()
	// An order-8 point (the encoding of a small-order point, c7176a70...).
	small, err := new(edwards25519.Point).SetBytes([]byte{0xc7, 0x17, 0x6a, 0x70, 0x3d, 0x4d, 0xd8, 0x4f, 0xba, 0x3c, 0x0b, 0x76, 0x0d, 0x10, 0x67, 0x0f, 0x2a, 0x20, 0x53, 0xfa, 0x2c, 0x39, 0xcc, 0xc6, 0x4e, 0xc7, 0xfd, 0x77, 0x92, 0xac, 0x03, 0x7a})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []*edwards25519.Point{g, small, new(edwards25519.Point).Add(g, small), edwards25519.NewIdentityPoint()} {
		if torsionFree(p) == ec.HasTorsion(p) {
			t.Fatalf("%x: torsionFree %v, HasTorsion %v", p.Bytes(), torsionFree(p), ec.HasTorsion(p))
		}
	}
}
