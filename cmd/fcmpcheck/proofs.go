package main

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/gonero/gonero/fcmp/ec"
	"github.com/gonero/gonero/fcmp/fcmppp"
	"github.com/gonero/gonero/fcmp/gbp"
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
