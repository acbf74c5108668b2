package gbp

import (
	"fmt"
	"testing"

	"github.com/gonero/gonero/fcmp/helioselene"
	"github.com/gonero/gonero/fcmp/transcript"
)

// testHeliosGenerators are n generators of each kind from hash_to_F multiples of the base point: their
// discrete logarithms are known, which only a prover could exploit; the tests' prover is honest.
func testHeliosGenerators(t testing.TB, n int) *HeliosGenerators {
	pt := func(i int) helioselene.HeliosPoint {
		k := helioselene.HeliosHashToF([]byte("gbp test generator"), []byte(fmt.Sprint(i)))
		var p helioselene.HeliosPoint
		p.ScalarMult(&k, helioselene.HeliosGenerator())
		return p
	}
	gB, hB := make([]helioselene.HeliosPoint, n), make([]helioselene.HeliosPoint, n)
	for i := 0; i < n; i++ {
		gB[i], hB[i] = pt(2+2*i), pt(3+2*i)
	}
	gens, err := NewHeliosGenerators(pt(0), pt(1), gB, hB)
	if err != nil {
		t.Fatal(err)
	}
	return gens
}

// heliosCircuit makes a satisfied circuit of the given shape: rows multiplications, c vector
// commitments, v Pedersen commitments, constraints tying every kind of variable together.
func heliosCircuit(rows, c, v int) ([]HeliosLinComb, *heliosWitness) {
	w := &heliosWitness{}
	for i := 0; i < rows; i++ {
		w.aL = append(w.aL, heliosWeight())
		w.aR = append(w.aR, heliosWeight())
	}
	for i := 0; i < c; i++ {
		vals := make([]helioselene.HelioseleneField, rows)
		for j := range vals {
			vals[j] = heliosWeight()
		}
		// The first entry of each commitment repeats aL[0], which a constraint checks.
		vals[0] = w.aL[0]
		w.cValues = append(w.cValues, vals)
		w.cMasks = append(w.cMasks, heliosWeight())
	}
	for i := 0; i < v; i++ {
		w.vValues = append(w.vValues, w.aR[i%rows])
		w.vMask = append(w.vMask, heliosWeight())
	}
	var one, minus helioselene.HelioseleneField
	one.One()
	minus.Negate(&one)
	var cs []HeliosLinComb
	// aO[i] = aL[i]·aR[i] as a constant.
	for i := 0; i < rows; i++ {
		var prod helioselene.HelioseleneField
		prod.Mul(&w.aL[i], &w.aR[i])
		prod.Negate(&prod)
		cs = append(cs, HeliosLinComb{WO: []HeliosTerm{{i, one}}, C: prod})
	}
	for i := 0; i < c; i++ {
		wcg := make([][]HeliosTerm, i+1)
		wcg[i] = []HeliosTerm{{0, one}}
		cs = append(cs, HeliosLinComb{WL: []HeliosTerm{{0, minus}}, WCG: wcg})
	}
	for i := 0; i < v; i++ {
		cs = append(cs, HeliosLinComb{WV: []HeliosTerm{{i, one}}, WR: []HeliosTerm{{i % rows, minus}}})
	}
	// One random combination of everything, its constant making it zero.
	var lc HeliosLinComb
	var sum, tmp helioselene.HelioseleneField
	add := func(terms *[]HeliosTerm, i int, val *helioselene.HelioseleneField) {
		wt := heliosWeight()
		*terms = append(*terms, HeliosTerm{i, wt})
		tmp.Mul(&wt, val)
		sum.Add(&sum, &tmp)
	}
	for i := 0; i < rows; i++ {
		var o helioselene.HelioseleneField
		o.Mul(&w.aL[i], &w.aR[i])
		add(&lc.WL, i, &w.aL[i])
		add(&lc.WR, i, &w.aR[i])
		add(&lc.WO, i, &o)
	}
	lc.WCG = make([][]HeliosTerm, c)
	for i := 0; i < c; i++ {
		for j := range w.cValues[i] {
			add(&lc.WCG[i], j, &w.cValues[i][j])
		}
	}
	for i := 0; i < v; i++ {
		add(&lc.WV, i, &w.vValues[i])
	}
	lc.C.Negate(&sum)
	cs = append(cs, lc)
	return cs, w
}

func heliosMakeProof(gens *HeliosGenerators, rows int, cs []HeliosLinComb, w *heliosWitness) (C, V []helioselene.HeliosPoint, proof []byte) {
	C, V = w.commitments(gens)
	p := transcript.NewProver([32]byte{7})
	p.Count(len(C))
	for i := range C {
		p.PushPoint(C[i].Bytes())
	}
	p.Count(len(V))
	for i := range V {
		p.PushPoint(V[i].Bytes())
	}
	heliosProve(gens, rows, cs, w, p)
	return C, V, p.Proof()
}

func heliosCheck(gens *HeliosGenerators, b *HeliosBatch, rows int, cs []HeliosLinComb, proof []byte, c, v int) error {
	t := transcript.NewVerifier([32]byte{7}, proof)
	C, V, err := HeliosReadCommitments(t, c, v)
	if err != nil {
		return err
	}
	if err := HeliosVerify(gens, b, rows, cs, C, V, t); err != nil {
		return err
	}
	if t.Remaining() != 0 {
		return ErrProof
	}
	return nil
}

func TestHeliosCircuits(t *testing.T) {
	gens := testHeliosGenerators(t, 16)
	for _, shape := range [][3]int{{1, 0, 0}, {3, 0, 1}, {8, 1, 0}, {8, 2, 2}, {16, 3, 1}, {5, 4, 3}} {
		rows, c, v := shape[0], shape[1], shape[2]
		cs, w := heliosCircuit(rows, c, v)
		_, _, proof := heliosMakeProof(gens, rows, cs, w)
		var b HeliosBatch
		if err := heliosCheck(gens, &b, rows, cs, proof, c, v); err != nil || !gens.Verify(&b) {
			t.Fatalf("rows %d, %d vector commitments, %d commitments: a valid proof fails (%v)", rows, c, v, err)
		}
		// A wrong statement: one constraint's constant moved.
		bad := append([]HeliosLinComb{}, cs...)
		var one helioselene.HelioseleneField
		one.One()
		bad[0].C.Add(&bad[0].C, &one)
		b = HeliosBatch{}
		if err := heliosCheck(gens, &b, rows, bad, proof, c, v); err == nil && gens.Verify(&b) {
			t.Fatalf("shape %v: a proof verifies against a constraint it does not satisfy", shape)
		}
		// A witness that breaks a constraint makes a proof that fails.
		cs2, w2 := heliosCircuit(rows, c, v)
		w2.aL[rows-1].Add(&w2.aL[rows-1], &one)
		_, _, proof2 := heliosMakeProof(gens, rows, cs2, w2)
		b = HeliosBatch{}
		if err := heliosCheck(gens, &b, rows, cs2, proof2, c, v); err == nil && gens.Verify(&b) {
			t.Fatalf("shape %v: a proof of an unsatisfied circuit verifies", shape)
		}
	}
}

// TestHeliosTamper changes every byte of a proof in turn: each change must fail.
func TestHeliosTamper(t *testing.T) {
	gens := testHeliosGenerators(t, 8)
	rows, c, v := 4, 1, 1
	cs, w := heliosCircuit(rows, c, v)
	_, _, proof := heliosMakeProof(gens, rows, cs, w)
	step := 1
	if testing.Short() {
		step = 7
	}
	for i := 0; i < len(proof); i += step {
		bad := append([]byte{}, proof...)
		bad[i] ^= 0x01
		var b HeliosBatch
		if err := heliosCheck(gens, &b, rows, cs, bad, c, v); err == nil && gens.Verify(&b) {
			t.Fatalf("byte %d changed: the proof still verifies", i)
		}
	}
	var b HeliosBatch
	if err := heliosCheck(gens, &b, rows, cs, proof[:len(proof)-1], c, v); err == nil {
		t.Fatal("a truncated proof reads")
	}
}

// TestHeliosBatch queues several proofs in one batch: all valid verify together, one bad spoils it.
func TestHeliosBatch(t *testing.T) {
	gens := testHeliosGenerators(t, 16)
	type item struct {
		rows, c, v int
		cs         []HeliosLinComb
		proof      []byte
	}
	var items []item
	for _, s := range [][3]int{{2, 0, 1}, {16, 2, 0}, {7, 1, 2}} {
		cs, w := heliosCircuit(s[0], s[1], s[2])
		_, _, proof := heliosMakeProof(gens, s[0], cs, w)
		items = append(items, item{s[0], s[1], s[2], cs, proof})
	}
	var b HeliosBatch
	for _, it := range items {
		if err := heliosCheck(gens, &b, it.rows, it.cs, it.proof, it.c, it.v); err != nil {
			t.Fatal(err)
		}
	}
	if !gens.Verify(&b) {
		t.Fatal("a batch of valid proofs fails")
	}
	b = HeliosBatch{}
	for k, it := range items {
		proof := it.proof
		if k == 1 {
			proof = append([]byte{}, proof...)
			proof[len(proof)-40] ^= 0x80
		}
		if err := heliosCheck(gens, &b, it.rows, it.cs, proof, it.c, it.v); err != nil {
			return // refused outright: also a failure, as wanted
		}
	}
	if gens.Verify(&b) {
		t.Fatal("a batch with one altered proof verifies")
	}
}

func TestHeliosStatementRefused(t *testing.T) {
	gens := testHeliosGenerators(t, 4)
	var one helioselene.HelioseleneField
	one.One()
	for _, lc := range []HeliosLinComb{
		{WL: []HeliosTerm{{4, one}}},
		{WO: []HeliosTerm{{-1, one}}},
		{WCG: [][]HeliosTerm{{{0, one}}}},
		{WV: []HeliosTerm{{0, one}}},
	} {
		var b HeliosBatch
		tr := transcript.NewVerifier([32]byte{}, make([]byte, 4096))
		if err := HeliosVerify(gens, &b, 4, []HeliosLinComb{lc}, nil, nil, tr); err != ErrStatement {
			t.Fatalf("%+v: got %v, want ErrStatement", lc, err)
		}
	}
	var b HeliosBatch
	if err := HeliosVerify(gens, &b, 5, nil, nil, nil, transcript.NewVerifier([32]byte{}, nil)); err != ErrGenerators {
		t.Fatalf("more rows than generators: %v", err)
	}
}

// FuzzHeliosVerify feeds arbitrary bytes as the proof of a fixed circuit: reading and verifying must
// refuse them with an error or a failing batch, never panic.
func FuzzHeliosVerify(f *testing.F) {
	gens := testHeliosGenerators(f, 4)
	rows, c, v := 4, 1, 1
	cs, w := heliosCircuit(rows, c, v)
	_, _, proof := heliosMakeProof(gens, rows, cs, w)
	f.Add(proof)
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, proof []byte) {
		var b HeliosBatch
		if err := heliosCheck(gens, &b, rows, cs, proof, c, v); err == nil {
			gens.Verify(&b)
		}
	})
}
