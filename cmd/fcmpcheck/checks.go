package main

import (
	"fmt"
	"strings"

	"filippo.io/edwards25519"

	"github.com/gonero/gonero/crypto"
	"github.com/gonero/gonero/fcmp/ec"
	"github.com/gonero/gonero/fcmp/helioselene"
	"github.com/gonero/gonero/fcmp/tree"
)

func b32(b [32]byte) string { return hexs(b[:]) }

func checkEd25519(c *checker, root obj) {
	g := root.obj("generators")
	d := ec.D06d9518Generators()
	c.eq("generators.G", hexs(edwards25519.NewGeneratorPoint().Bytes()), g.str("G"))
	c.eq("generators.H", hexs(crypto.H().Bytes()), g.str("H"))
	c.eq("generators.T", hexs(d.T.Bytes()), g.str("T"))
	c.eq("generators.U", hexs(d.U.Bytes()), g.str("U"))
	c.eq("generators.V", hexs(d.V.Bytes()), g.str("V"))
	for i, e := range root.list("hash_to_point(keccak([i]))") {
		p, err := ec.BiasedHashToPoint(e.bytes("in"))
		got := fmt.Sprint(err)
		if err == nil {
			got = hexs(p.Bytes())
		}
		c.eq(fmt.Sprintf("hash_to_point[%d]", i), got, e.str("out"))
	}
	for i, e := range root.list("derive_key_image_generator(pub=(i+1)G)") {
		pub := e.bytes("pub")
		if len(pub) != 32 {
			c.fail("%s: pub is not 32 bytes", e.p)
			continue
		}
		for _, biased := range []bool{true, false} {
			name, key := "unbiased", "unbiased"
			if biased {
				name, key = "biased", "biased"
			}
			k, err := ec.KeyImageGenerator([32]byte(pub), biased)
			got := fmt.Sprint(err)
			if err == nil {
				got = b32(k)
			}
			c.eq(fmt.Sprintf("key_image_generator[%d].%s", i, name), got, e.str(key))
		}
	}
	for i, e := range root.list("ed25519_to_wei25519_xy") {
		gx, gy := "not a point", "not a point"
		if p, err := crypto.DecodePoint(e.bytes("point")); err == nil {
			if x, y, err := ec.ToWei25519(p); err == nil {
				gx, gy = b32(x.Bytes()), b32(y.Bytes())
			} else {
				gx, gy = err.Error(), err.Error()
			}
		}
		c.eq(fmt.Sprintf("ed25519_to_wei25519[%d].x", i), gx, e.str("wei_x"))
		c.eq(fmt.Sprintf("ed25519_to_wei25519[%d].y", i), gy, e.str("wei_y"))
	}
}

// hashToFArgs splits the key "hash_to_F(DST,MESSAGE)" into its two byte strings.
func hashToFArgs(k string) (dst, msg []byte, ok bool) {
	inner, found := strings.CutPrefix(k, "hash_to_F(")
	if !found || !strings.HasSuffix(inner, ")") {
		return nil, nil, false
	}
	d, m, found := strings.Cut(strings.TrimSuffix(inner, ")"), ",")
	return []byte(d), []byte(m), found
}

func checkCurves(c *checker, root obj) {
	hel := root.obj("helios")
	c.eq("helios.generator", b32(helioselene.HeliosGenerator().Bytes()), hel.str("generator"))
	c.eq("helios.identity", b32(helioselene.NewHeliosPoint().Bytes()), hel.str("identity"))
	for i, e := range hel.list("scalar_mul") {
		var k helioselene.HelioseleneField
		if _, err := k.SetBytes(e.bytes("k")); err != nil {
			c.fail("%s.k: %v", e.p, err)
			continue
		}
		p := new(helioselene.HeliosPoint).ScalarMult(&k, helioselene.HeliosGenerator())
		x, y, _ := p.XY()
		c.eq(fmt.Sprintf("helios.scalar_mul[%d].kG", i), b32(p.Bytes()), e.str("kG"))
		c.eq(fmt.Sprintf("helios.scalar_mul[%d].x", i), b32(x.Bytes()), e.str("x"))
		c.eq(fmt.Sprintf("helios.scalar_mul[%d].y", i), b32(y.Bytes()), e.str("y"))
	}
	for i, e := range hel.list("point_ops") {
		a, errA := new(helioselene.HeliosPoint).SetBytes(e.bytes("a"))
		b, errB := new(helioselene.HeliosPoint).SetBytes(e.bytes("b"))
		if errA != nil || errB != nil {
			c.fail("%s: operands do not decode", e.p)
			continue
		}
		c.eq(fmt.Sprintf("helios.point_ops[%d].a+b", i), b32(new(helioselene.HeliosPoint).Add(a, b).Bytes()), e.str("a+b"))
		c.eq(fmt.Sprintf("helios.point_ops[%d].a-b", i), b32(new(helioselene.HeliosPoint).Sub(a, b).Bytes()), e.str("a-b"))
		c.eq(fmt.Sprintf("helios.point_ops[%d].2a", i), b32(new(helioselene.HeliosPoint).Double(a).Bytes()), e.str("2a"))
	}
	for i, e := range hel.list("scalar_field_ops") {
		var a, b helioselene.HelioseleneField
		if _, err := a.SetBytes(e.bytes("a")); err != nil {
			c.fail("%s.a: %v", e.p, err)
		}
		if _, err := b.SetBytes(e.bytes("b")); err != nil {
			c.fail("%s.b: %v", e.p, err)
		}
		inv, _ := new(helioselene.HelioseleneField).Invert(&a)
		c.eq(fmt.Sprintf("helios.scalar_field_ops[%d].a+b", i), b32(new(helioselene.HelioseleneField).Add(&a, &b).Bytes()), e.str("a+b"))
		c.eq(fmt.Sprintf("helios.scalar_field_ops[%d].a*b", i), b32(new(helioselene.HelioseleneField).Mul(&a, &b).Bytes()), e.str("a*b"))
		c.eq(fmt.Sprintf("helios.scalar_field_ops[%d].a-b", i), b32(new(helioselene.HelioseleneField).Sub(&a, &b).Bytes()), e.str("a-b"))
		c.eq(fmt.Sprintf("helios.scalar_field_ops[%d].inv_a", i), b32(inv.Bytes()), e.str("inv_a"))
	}
	for i, e := range hel.list("decode") {
		p, err := new(helioselene.HeliosPoint).SetBytes(e.bytes("bytes"))
		got, want := "invalid", "invalid"
		if err == nil {
			got = b32(p.Bytes())
		}
		if v, _ := e.get("valid").(bool); v {
			want = e.str("reencoded")
		}
		c.eq(fmt.Sprintf("helios.decode[%d]", i), got, want)
	}
	for _, k := range hel.keys("hash_to_F(") {
		dst, msg, ok := hashToFArgs(k)
		if !ok {
			c.fail("helios.%s: cannot read the arguments", k)
			continue
		}
		h := helioselene.HeliosHashToF(dst, msg)
		c.eq("helios."+k, b32(h.Bytes()), hel.str(k))
	}

	sel := root.obj("selene")
	c.eq("selene.generator", b32(helioselene.SeleneGenerator().Bytes()), sel.str("generator"))
	c.eq("selene.identity", b32(helioselene.NewSelenePoint().Bytes()), sel.str("identity"))
	for i, e := range sel.list("scalar_mul") {
		var k helioselene.Field25519
		if _, err := k.SetBytes(e.bytes("k")); err != nil {
			c.fail("%s.k: %v", e.p, err)
			continue
		}
		p := new(helioselene.SelenePoint).ScalarMult(&k, helioselene.SeleneGenerator())
		x, y, _ := p.XY()
		c.eq(fmt.Sprintf("selene.scalar_mul[%d].kG", i), b32(p.Bytes()), e.str("kG"))
		c.eq(fmt.Sprintf("selene.scalar_mul[%d].x", i), b32(x.Bytes()), e.str("x"))
		c.eq(fmt.Sprintf("selene.scalar_mul[%d].y", i), b32(y.Bytes()), e.str("y"))
	}
	for i, e := range sel.list("point_ops") {
		a, errA := new(helioselene.SelenePoint).SetBytes(e.bytes("a"))
		b, errB := new(helioselene.SelenePoint).SetBytes(e.bytes("b"))
		if errA != nil || errB != nil {
			c.fail("%s: operands do not decode", e.p)
			continue
		}
		c.eq(fmt.Sprintf("selene.point_ops[%d].a+b", i), b32(new(helioselene.SelenePoint).Add(a, b).Bytes()), e.str("a+b"))
		c.eq(fmt.Sprintf("selene.point_ops[%d].a-b", i), b32(new(helioselene.SelenePoint).Sub(a, b).Bytes()), e.str("a-b"))
		c.eq(fmt.Sprintf("selene.point_ops[%d].2a", i), b32(new(helioselene.SelenePoint).Double(a).Bytes()), e.str("2a"))
	}
	for i, e := range sel.list("scalar_field_ops") {
		var a, b helioselene.Field25519
		if _, err := a.SetBytes(e.bytes("a")); err != nil {
			c.fail("%s.a: %v", e.p, err)
		}
		if _, err := b.SetBytes(e.bytes("b")); err != nil {
			c.fail("%s.b: %v", e.p, err)
		}
		inv, _ := new(helioselene.Field25519).Invert(&a)
		c.eq(fmt.Sprintf("selene.scalar_field_ops[%d].a+b", i), b32(new(helioselene.Field25519).Add(&a, &b).Bytes()), e.str("a+b"))
		c.eq(fmt.Sprintf("selene.scalar_field_ops[%d].a*b", i), b32(new(helioselene.Field25519).Mul(&a, &b).Bytes()), e.str("a*b"))
		c.eq(fmt.Sprintf("selene.scalar_field_ops[%d].a-b", i), b32(new(helioselene.Field25519).Sub(&a, &b).Bytes()), e.str("a-b"))
		c.eq(fmt.Sprintf("selene.scalar_field_ops[%d].inv_a", i), b32(inv.Bytes()), e.str("inv_a"))
	}
	for i, e := range sel.list("decode") {
		p, err := new(helioselene.SelenePoint).SetBytes(e.bytes("bytes"))
		got, want := "invalid", "invalid"
		if err == nil {
			got = b32(p.Bytes())
		}
		if v, _ := e.get("valid").(bool); v {
			want = e.str("reencoded")
		}
		c.eq(fmt.Sprintf("selene.decode[%d]", i), got, want)
	}
	for _, k := range sel.keys("hash_to_F(") {
		dst, msg, ok := hashToFArgs(k)
		if !ok {
			c.fail("selene.%s: cannot read the arguments", k)
			continue
		}
		h := helioselene.SeleneHashToF(dst, msg)
		c.eq("selene."+k, b32(h.Bytes()), sel.str(k))
	}

	for i, e := range root.obj("field25519").list("ops") {
		var a, sq helioselene.Field25519
		if _, err := a.SetBytes(e.bytes("a")); err != nil {
			c.fail("%s.a: %v", e.p, err)
		}
		sq.Square(&a)
		r, _ := new(helioselene.Field25519).Sqrt(&sq)
		inv, _ := new(helioselene.Field25519).Invert(&a)
		c.eq(fmt.Sprintf("field25519.ops[%d].a^2", i), b32(sq.Bytes()), e.str("a^2"))
		c.eq(fmt.Sprintf("field25519.ops[%d].sqrt(a^2)", i), b32(r.Bytes()), e.str("sqrt(a^2)"))
		c.eq(fmt.Sprintf("field25519.ops[%d].inv_a", i), b32(inv.Bytes()), e.str("inv_a"))
	}
	for i, e := range root.obj("helioselene_field").list("ops") {
		var a, sq helioselene.HelioseleneField
		if _, err := a.SetBytes(e.bytes("a")); err != nil {
			c.fail("%s.a: %v", e.p, err)
		}
		sq.Square(&a)
		r, _ := new(helioselene.HelioseleneField).Sqrt(&sq)
		inv, _ := new(helioselene.HelioseleneField).Invert(&a)
		c.eq(fmt.Sprintf("helioselene_field.ops[%d].a^2", i), b32(sq.Bytes()), e.str("a^2"))
		c.eq(fmt.Sprintf("helioselene_field.ops[%d].sqrt(a^2)", i), b32(r.Bytes()), e.str("sqrt(a^2)"))
		c.eq(fmt.Sprintf("helioselene_field.ops[%d].inv_a", i), b32(inv.Bytes()), e.str("inv_a"))
	}
}

func checkTree(c *checker, root obj) {
	hi, si := tree.HeliosHashInit(), tree.SeleneHashInit()
	init := root.obj("hash_init")
	c.eq("hash_init.helios", b32(hi.Bytes()), init.str("helios"))
	c.eq("hash_init.selene", b32(si.Bytes()), init.str("selene"))
	bp := root.obj("bp_generators")
	h, s := tree.Helios(), tree.Selene()
	checkGens(c, "bp_generators.helios", bp.obj("helios"), b32(h.G.Bytes()), b32(h.H.Bytes()), len(h.GBold),
		func(i int) (string, string) { return b32(h.GBold[i].Bytes()), b32(h.HBold[i].Bytes()) })
	checkGens(c, "bp_generators.selene", bp.obj("selene"), b32(s.G.Bytes()), b32(s.H.Bytes()), len(s.GBold),
		func(i int) (string, string) { return b32(s.GBold[i].Bytes()), b32(s.HBold[i].Bytes()) })

	for _, e := range root.list("tree_hash") {
		switch e.str("curve") {
		case "Selene":
			fs := func(x string) helioselene.Field25519 {
				var z helioselene.Field25519
				if _, err := z.SetBytes(fromHex(c, x)); err != nil {
					c.fail("%s: %v", e.p, err)
				}
				return z
			}
			var kids []helioselene.Field25519
			for _, x := range e.strs("children") {
				kids = append(kids, fs(x))
			}
			if len(kids) != 6 {
				c.fail("%s: want 6 children", e.p)
				return
			}
			var zero helioselene.Field25519
			h3, _ := tree.SeleneHashGrow(&si, 0, &zero, kids[:3])
			h6, _ := tree.SeleneHashGrow(h3, 3, &zero, kids[3:])
			c.eq("tree_hash.selene.grow(init,0,0,children[0..3])", b32(h3.Bytes()), e.str("grow(init,0,0,children[0..3])"))
			c.eq("tree_hash.selene.grow(prev,3,0,children[3..6])", b32(h6.Bytes()), e.str("grow(prev,3,0,children[3..6])"))
			nc := fs(e.str("new_child_5"))
			h6b, _ := tree.SeleneHashGrow(h6, 5, &kids[5], []helioselene.Field25519{nc})
			c.eq("tree_hash.selene.grow(h6,5,children[5],[new_child_5])", b32(h6b.Bytes()), e.str("grow(h6,5,children[5],[new_child_5])"))
			back := fs(e.str("grow_back_at_4"))
			tr, _ := tree.SeleneHashTrim(h6, 4, kids[4:], &back)
			c.eq("tree_hash.selene.trim(h6,4,children[4..6],grow_back_at_4)", b32(tr.Bytes()), e.str("trim(h6,4,children[4..6],grow_back_at_4)"))
			x, _, _ := h6.XY()
			c.eq("tree_hash.selene.x_of_root_as_helios_scalar", b32(x.Bytes()), e.str("x_of_root_as_helios_scalar"))
		case "Helios":
			var kids []helioselene.HelioseleneField
			for _, x := range e.strs("children") {
				var z helioselene.HelioseleneField
				if _, err := z.SetBytes(fromHex(c, x)); err != nil {
					c.fail("%s: %v", e.p, err)
				}
				kids = append(kids, z)
			}
			var zero helioselene.HelioseleneField
			hh, err := tree.HeliosHashGrow(&hi, 0, &zero, kids)
			if err != nil {
				c.fail("%s: %v", e.p, err)
				continue
			}
			c.eq("tree_hash.helios.grow(init,0,0,children)", b32(hh.Bytes()), e.str("grow(init,0,0,children)"))
			x, _, _ := hh.XY()
			c.eq("tree_hash.helios.x_of_root_as_selene_scalar", b32(x.Bytes()), e.str("x_of_root_as_selene_scalar"))
		}
	}

	// The one-output tree of the FCMP++ entry (a single leaf chunk: one layer).
	f := root.obj("fcmp_pp")
	out := f.obj("output")
	var pts [3]*edwards25519.Point
	for i, k := range []string{"O", "I", "C"} {
		p, err := crypto.DecodePoint(out.bytes(k))
		if err != nil {
			c.fail("%s.%s: %v", out.p, k, err)
			return
		}
		pts[i] = p
	}
	leaf, err := tree.NewLeaf(pts[0], pts[1], pts[2])
	got := fmt.Sprint(err)
	if err == nil {
		var t tree.Tree
		if err := t.Grow([]tree.Leaf{leaf}); err == nil {
			r, layers, _ := t.Root()
			got = b32(r)
			c.eq("fcmp_pp.layers", fmt.Sprint(layers), fmt.Sprint(f.get("layers")))
		}
	}
	c.eq("fcmp_pp.tree_root", got, f.str("tree_root"))
}

func checkGens(c *checker, name string, o obj, g, h string, n int, at func(int) (string, string)) {
	c.eq(name+".g", g, o.str("g"))
	c.eq(name+".h", h, o.str("h"))
	c.eq(name+".g_bold_len", fmt.Sprint(n), fmt.Sprint(o.get("g_bold_len")))
	gb, hb := o.strs("g_bold[0..4]"), o.strs("h_bold[0..4]")
	for i := range gb {
		if i < n {
			gi, _ := at(i)
			c.eq(fmt.Sprintf("%s.g_bold[%d]", name, i), gi, gb[i])
		}
	}
	for i := range hb {
		if i < n {
			_, hi := at(i)
			c.eq(fmt.Sprintf("%s.h_bold[%d]", name, i), hi, hb[i])
		}
	}
	if n > 0 {
		last, _ := at(n - 1)
		c.eq(name+".g_bold[last]", last, o.str("g_bold[last]"))
	}
}

func fromHex(c *checker, s string) []byte {
	b, err := hexDecode(s)
	if err != nil {
		c.fail("bad hex %q", s)
	}
	return b
}
