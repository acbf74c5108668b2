package fcmppp

import (
	"encoding/hex"
	"encoding/json"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"filippo.io/edwards25519"

	"github.com/gonero/gonero/fcmp/ec"
	"github.com/gonero/gonero/fcmp/gbp"
	"github.com/gonero/gonero/fcmp/tree"
)

var (
	paramsOnce sync.Once
	params     *Params
	paramsErr  error
)

// testParams are d06d9518's parameters: the tree's generators and hash inits, and d06d9518's T, U, V
// (the oracle's proofs are made with them).
func testParams(t testing.TB) *Params {
	paramsOnce.Do(func() {
		s, h := tree.Selene(), tree.Helios()
		sg, err := gbp.NewSeleneGenerators(s.G, s.H, s.GBold, s.HBold)
		if err != nil {
			paramsErr = err
			return
		}
		hg, err := gbp.NewHeliosGenerators(h.G, h.H, h.GBold, h.HBold)
		if err != nil {
			paramsErr = err
			return
		}
		g := ec.D06d9518Generators()
		params, paramsErr = NewParams(sg, hg, tree.SeleneHashInit(), tree.HeliosHashInit(), g.T, g.U, g.V)
	})
	if paramsErr != nil {
		t.Fatal(paramsErr)
	}
	return params
}

// oracleCase is a proof case as fcmp-oracle writes it (the keys its verify reads).
type oracleCase struct {
	Layers         int      `json:"layers"`
	TreeRoot       string   `json:"tree_root"`
	SignableTxHash string   `json:"signable_tx_hash"`
	PseudoOuts     []string `json:"pseudo_outs"`
	KeyImages      []string `json:"key_images"`
	Proof          string   `json:"proof"`
	Verifies       bool     `json:"verifies"`
	Case           int      `json:"case"`
	Tamper         string   `json:"tamper"`
}

func hex32(s string) ([32]byte, bool) {
	var out [32]byte
	b, err := hex.DecodeString(s)
	if err != nil || len(b) != 32 {
		return out, false
	}
	copy(out[:], b)
	return out, true
}

// verifyCase verifies a case as the oracle's verify does: anything unreadable is false.
func verifyCase(p *Params, c *oracleCase) error {
	var pseudo, kis [][32]byte
	for _, s := range c.PseudoOuts {
		v, ok := hex32(s)
		if !ok {
			return ErrEncoding
		}
		pseudo = append(pseudo, v)
	}
	for _, s := range c.KeyImages {
		v, ok := hex32(s)
		if !ok {
			return ErrEncoding
		}
		kis = append(kis, v)
	}
	tx, ok := hex32(c.SignableTxHash)
	root, ok2 := hex32(c.TreeRoot)
	proof, err := hex.DecodeString(c.Proof)
	if !ok || !ok2 || err != nil {
		return ErrEncoding
	}
	return p.VerifyOne(pseudo, c.Layers, proof, root[:], tx, kis)
}

func loadCases(t testing.TB, path string) []oracleCase {
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var cs []oracleCase
	if strings.HasPrefix(strings.TrimSpace(string(raw)), "[") {
		if err := json.Unmarshal(raw, &cs); err != nil {
			t.Fatal(err)
		}
		return cs
	}
	// One object: a case, or vectors.json with its fcmp_pp entry.
	var v struct {
		FcmpPP *oracleCase `json:"fcmp_pp"`
	}
	if err := json.Unmarshal(raw, &v); err == nil && v.FcmpPP != nil {
		return []oracleCase{*v.FcmpPP}
	}
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	for dec.More() {
		var c oracleCase
		if err := dec.Decode(&c); err != nil {
			t.Fatal(err)
		}
		cs = append(cs, c)
	}
	return cs
}

func TestVectorsProof(t *testing.T) {
	p := testParams(t)
	cs := loadCases(t, "../../testdata/fcmp/vectors.json")
	if len(cs) != 1 || !cs[0].Verifies {
		t.Fatalf("vectors.json's fcmp_pp: %d cases", len(cs))
	}
	if err := verifyCase(p, &cs[0]); err != nil {
		t.Fatalf("the oracle's fcmp_pp proof does not verify: %v", err)
	}
}

// TestOracleCases verifies every committed proof case: each verifies exactly when the oracle says so.
func TestOracleCases(t *testing.T) {
	p := testParams(t)
	files, _ := filepath.Glob("../../testdata/fcmp/proofs/*.json")
	if len(files) == 0 {
		t.Fatal("no proof cases")
	}
	var yes, no int
	for _, f := range files {
		for i, c := range loadCases(t, f) {
			if testing.Short() && c.Layers > 3 {
				continue
			}
			// The two single altered cases keep the untouched proof's verifies field (the oracle's
			// vectors/README.md); verify answers false for them.
			if strings.HasPrefix(filepath.Base(f), "fcmp_pp_case_") {
				c.Verifies = false
			}
			err := verifyCase(p, &c)
			if (err == nil) != c.Verifies {
				t.Errorf("%s[%d] (%q): verified %v (%v), the oracle says %v", filepath.Base(f), i, c.Tamper, err == nil, err, c.Verifies)
			}
			if c.Verifies {
				yes++
			} else {
				no++
			}
		}
	}
	t.Logf("%d verifying and %d failing cases agree with the oracle", yes, no)
}

// TestCanonicalEd25519 checks the encoding test against re-encoding on the encodings near its edges:
// y near 0, 1, p - 1, p and 2^255, with and without the sign bit, and random points.
func TestCanonicalEd25519(t *testing.T) {
	var cases [][32]byte
	le := func(v *big.Int) [32]byte {
		var b [32]byte
		vb := v.Bytes()
		for i := range vb {
			b[i] = vb[len(vb)-1-i]
		}
		return b
	}
	p := new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 255), big.NewInt(19))
	for _, base := range []*big.Int{big.NewInt(0), big.NewInt(1), p, new(big.Int).Lsh(big.NewInt(1), 255)} {
		for d := int64(-40); d <= 40; d++ {
			v := new(big.Int).Add(base, big.NewInt(d))
			if v.Sign() < 0 || v.BitLen() > 255 {
				continue
			}
			cases = append(cases, le(v))
		}
	}
	for i := range 200 {
		s := edwards25519.NewScalar()
		var w [64]byte
		w[0], w[1] = byte(i), byte(i>>8)
		s.SetUniformBytes(w[:])
		cases = append(cases, [32]byte(new(edwards25519.Point).ScalarBaseMult(s).Bytes()))
	}
	checked, refused := 0, 0
	for _, c := range cases {
		for _, sign := range []byte{0, 0x80} {
			b := c
			b[31] |= sign
			pt, err := new(edwards25519.Point).SetBytes(b[:])
			if err != nil {
				continue
			}
			checked++
			want := string(pt.Bytes()) == string(b[:])
			if !want {
				refused++
			}
			if canonicalEd25519(b[:]) != want {
				t.Errorf("%x: canonical %v, re-encoding says %v", b, !want, want)
			}
		}
	}
	if checked < 200 || refused < 4 {
		t.Fatalf("only %d decodable encodings checked, %d of them non-canonical", checked, refused)
	}
}
