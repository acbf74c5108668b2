package fcmppp

import (
	"encoding/json"
	"os"
	"testing"
)

// TestProofSizes checks ProofSize against every entry of the oracle's fcmp_pp_proof_size table (1..8
// inputs × 1..8 layers, FcmpPlusPlus::proof_size of d06d9518).
func TestProofSizes(t *testing.T) {
	raw, err := os.ReadFile("../../testdata/fcmp/vectors.json")
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		Sizes []struct{ Inputs, Layers, Bytes int } `json:"fcmp_pp_proof_size"`
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	if len(v.Sizes) != 64 {
		t.Fatalf("%d sizes in vectors.json, want 64", len(v.Sizes))
	}
	for _, s := range v.Sizes {
		if got := ProofSize(s.Inputs, s.Layers); got != s.Bytes {
			t.Errorf("%d inputs, %d layers: %d bytes, want %d", s.Inputs, s.Layers, got, s.Bytes)
		}
	}
}
