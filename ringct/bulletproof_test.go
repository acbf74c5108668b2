package ringct

import "testing"

func TestBulletproofPlusRealProofs(t *testing.T) {
	names, items := realBPPlus(t)
	for i := range items {
		if !VerifyBulletproofsPlus(items[i : i+1]) {
			t.Errorf("%s (%d outputs): BP+ does not verify", names[i], len(items[i].Commitments))
		}
	}
	if !VerifyBulletproofsPlus(items) {
		t.Errorf("batch of all %d BP+ proofs does not verify", len(items))
	}
	t.Logf("%d real BP+ proofs", len(items))
}

func TestBulletproofRealProofs(t *testing.T) {
	names, items := realBP(t)
	for i := range items {
		if !VerifyBulletproofs(items[i : i+1]) {
			t.Errorf("%s (%d outputs): BP does not verify", names[i], len(items[i].Commitments))
		}
	}
	if !VerifyBulletproofs(items) {
		t.Errorf("batch of all %d BPs does not verify", len(items))
	}
	t.Logf("%d real BPs", len(items))
}
