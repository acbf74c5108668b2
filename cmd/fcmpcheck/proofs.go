package main

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"filippo.io/edwards25519"

	"github.com/gonero/gonero/crypto"
	"github.com/gonero/gonero/fcmp/divisor"
	"github.com/gonero/gonero/fcmp/ec"
	"github.com/gonero/gonero/fcmp/fcmppp"
	"github.com/gonero/gonero/fcmp/gbp"
	"github.com/gonero/gonero/fcmp/helioselene"
	"github.com/gonero/gonero/fcmp/tree"
)

var (
	paramsOnce sync.Once
	params     *fcmppp.Params
	paramsErr  error
)

// fcmpParams are d06d9518's verifier parameters: the tree's generators and hash inits, d06d9518's T,
// U, V (the oracle's revision).
func fcmpParams() (*fcmppp.Params, error) {
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
		params, paramsErr = fcmppp.NewParams(sg, hg, tree.SeleneHashInit(), tree.HeliosHashInit(), g.T, g.U, g.V)
	})
	return params, paramsErr
}

func hex32s(o obj, k string) [][32]byte {
	var out [][32]byte
	for i, s := range o.strs(k) {
		var v [32]byte
		b, err := hex.DecodeString(s)
		if err != nil || len(b) != 32 {
			o.c.fail("%s.%s[%d]: not 32 bytes of hex", o.p, k, i)
		}
		copy(v[:], b)
		out = append(out, v)
	}
	return out
}

// verdict verifies one case (the keys fcmp-oracle's verify reads) as the oracle does: whatever does not
// read or verify is false.
func verdict(o obj) bool {
	p, err := fcmpParams()
	if err != nil {
		o.c.fail("fcmp parameters: %v", err)
		return false
	}
	layers, ok := o.get("layers").(float64)
	if !ok || layers != float64(int(layers)) {
		o.c.fail("%s.layers: not an integer", o.p)
		return false
	}
	pseudo, kis := hex32s(o, "pseudo_outs"), hex32s(o, "key_images")
	root := o.bytes("tree_root")
	txb := o.bytes("signable_tx_hash")
	proof := o.bytes("proof")
	if o.c.err != nil || len(txb) != 32 {
		return false
	}
	var tx [32]byte
	copy(tx[:], txb)
	return p.VerifyOne(pseudo, int(layers), proof, root, tx, kis) == nil
}

// checkProofSizes compares FcmpPlusPlus::proof_size with every entry of the size table.
func checkProofSizes(c *checker, root obj) {
	a, ok := root.get("fcmp_pp_proof_size").([]any)
	if !ok {
		c.fail("vectors.fcmp_pp_proof_size: not a list")
		return
	}
	for i, v := range a {
		e, ok := v.(map[string]any)
		if !ok {
			c.fail("vectors.fcmp_pp_proof_size[%d]: not an object", i)
			return
		}
		in, _ := e["inputs"].(float64)
		la, _ := e["layers"].(float64)
		if in < 1 || la < 1 || in > 64 || la > 256 {
			c.fail("vectors.fcmp_pp_proof_size[%d]: bad size", i)
			return
		}
		c.eq(fmt.Sprintf("fcmp_pp_proof_size(%d,%d)", int(in), int(la)),
			fmt.Sprint(fcmppp.ProofSize(int(in), int(la))), fmt.Sprint(e["bytes"]))
	}
}

// isCases tells proof cases (prove's output: an object or array of objects with a "proof", one value or
// several in a row) from vectors' output.
func isCases(data []byte) bool {
	d := json.NewDecoder(bytes.NewReader(data))
	var v any
	if err := d.Decode(&v); err != nil {
		return false
	}
	switch x := v.(type) {
	case []any:
		return true
	case map[string]any:
		_, ok := x["proof"]
		return ok
	}
	return false
}

// checkCases verifies every case and compares the verdict with the case's "verifies".
func checkCases(data []byte, c *checker) {
	d := json.NewDecoder(bytes.NewReader(data))
	n := 0
	one := func(m map[string]any) {
		o := obj{c, m, fmt.Sprintf("case[%d]", n)}
		n++
		want, ok := o.get("verifies").(bool)
		if !ok {
			c.fail("%s.verifies: not a boolean", o.p)
			return
		}
		name := fmt.Sprintf("%s (%d inputs, %v layers", o.p, len(o.strs("pseudo_outs")), o.get("layers"))
		if t, ok := m["tamper"].(string); ok {
			name += ", " + t
		}
		name += ").verifies"
		got := verdict(o)
		if c.err != nil {
			return
		}
		c.eq(name, fmt.Sprint(got), fmt.Sprint(want))
	}
	for d.More() {
		var v any
		if err := d.Decode(&v); err != nil {
			c.fail("%v", err)
			return
		}
		switch x := v.(type) {
		case []any:
			for i, e := range x {
				m, ok := e.(map[string]any)
				if !ok {
					c.fail("case %d: not an object", i)
					return
				}
				one(m)
			}
		case map[string]any:
			one(x)
		default:
			c.fail("not a case")
			return
		}
		if c.err != nil {
			return
		}
	}
	if n == 0 {
		c.fail("no case")
	}
}

// checkDivisor recomputes the scalar-multiplication divisor: the decomposition and every coefficient.
func checkDivisor(c *checker, o obj) {
	s, err := new(edwards25519.Scalar).SetCanonicalBytes(o.bytes("scalar"))
	if err != nil {
		c.fail("%s.scalar: %v", o.p, err)
		return
	}
	g, err := crypto.DecodePoint(o.bytes("point"))
	if err != nil {
		c.fail("%s.point: %v", o.p, err)
		return
	}
	want, ok := o.get("decomposition").([]any)
	if !ok {
		c.fail("%s.decomposition: not a list", o.p)
		return
	}
	dec, err := divisor.Decompose(s)
	if err != nil {
		c.fail("%s: %v", o.p, err)
		return
	}
	gotDec := make([]string, len(dec))
	for i, v := range dec {
		gotDec[i] = fmt.Sprint(v)
	}
	wantDec := make([]string, len(want))
	for i, v := range want {
		wantDec[i] = fmt.Sprint(v)
	}
	c.eq("divisor.decomposition", strings.Join(gotDec, ","), strings.Join(wantDec, ","))
	p, err := divisor.ScalarMulDivisor(s, dec, g)
	if err != nil {
		c.eq("divisor", err.Error(), "a divisor")
		return
	}
	join := func(fs []helioselene.Field25519) string {
		out := make([]string, len(fs))
		for i := range fs {
			b := fs[i].Bytes()
			out[i] = hex.EncodeToString(b[:])
		}
		return strings.Join(out, ",")
	}
	c.eq("divisor.y_coefficients", join(p.Y), strings.Join(o.strs("y_coefficients"), ","))
	rows, _ := o.get("yx_coefficients").([]any)
	var wantYX []string
	for _, r := range rows {
		for _, v := range r.([]any) {
			s, _ := v.(string)
			wantYX = append(wantYX, s)
		}
	}
	var gotYX []helioselene.Field25519
	for _, r := range p.YX {
		gotYX = append(gotYX, r...)
	}
	c.eq("divisor.yx_coefficients", join(gotYX), strings.Join(wantYX, ","))
	c.eq("divisor.x_coefficients", join(p.X), strings.Join(o.strs("x_coefficients"), ","))
	c.eq("divisor.zero_coefficient", join([]helioselene.Field25519{p.Zero}), o.str("zero_coefficient"))
}
