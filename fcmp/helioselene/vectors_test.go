package helioselene

import (
	"encoding/hex"
	"encoding/json"
	"os"
	"testing"

	"github.com/gonero/gonero/internal/testutil"
)

// oracleVectors is the part of testdata/fcmp/vectors.json (fcmp-oracle `vectors`, see its README) that
// this package reproduces.
type oracleVectors struct {
	Helios    curveVectors `json:"helios"`
	Selene    curveVectors `json:"selene"`
	Field     fieldVectors `json:"field25519"`
	FieldHS   fieldVectors `json:"helioselene_field"`
	TreeHash  []any        `json:"tree_hash"`
	HashInit  any          `json:"hash_init"`
	BPGens    any          `json:"bp_generators"`
	Generator any          `json:"generators"`
}

type curveVectors struct {
	Curve     string `json:"curve"`
	Generator string `json:"generator"`
	Identity  string `json:"identity"`
	ScalarMul []struct {
		K, KG, X, Y string
	} `json:"scalar_mul"`
	PointOps []struct {
		A    string `json:"a"`
		B    string `json:"b"`
		Sum  string `json:"a+b"`
		Diff string `json:"a-b"`
		Dbl  string `json:"2a"`
	} `json:"point_ops"`
	ScalarFieldOps []struct {
		A    string `json:"a"`
		B    string `json:"b"`
		Sum  string `json:"a+b"`
		Prod string `json:"a*b"`
		Diff string `json:"a-b"`
		Inv  string `json:"inv_a"`
	} `json:"scalar_field_ops"`
	Decode []struct {
		Bytes     string  `json:"bytes"`
		Valid     bool    `json:"valid"`
		Reencoded *string `json:"reencoded"`
	} `json:"decode"`
	// HashToF is the key "hash_to_F(oracle dst,oracle message)", which a struct tag cannot name (the
	// comma); loadVectors fills it.
	HashToF string `json:"-"`
}

type fieldVectors struct {
	Modulus string `json:"modulus"`
	Ops     []struct {
		A    string `json:"a"`
		Sq   string `json:"a^2"`
		Sqrt string `json:"sqrt(a^2)"`
		Inv  string `json:"inv_a"`
	} `json:"ops"`
}

func loadVectors(t testing.TB) *oracleVectors {
	t.Helper()
	b, err := os.ReadFile(testutil.Path(t, "testdata", "fcmp", "vectors.json"))
	if err != nil {
		t.Fatal(err)
	}
	var v oracleVectors
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	// The hash_to_F entries, through a map because of the comma in their key.
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]*curveVectors{"helios": &v.Helios, "selene": &v.Selene} {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(raw[name], &m); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(m["hash_to_F(oracle dst,oracle message)"], &c.HashToF); err != nil {
			t.Fatalf("%s hash_to_F: %v", name, err)
		}
	}
	return &v
}

func unhex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatalf("bad hex %q: %v", s, err)
	}
	return b
}
