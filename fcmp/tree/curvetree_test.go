package tree

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"

	"filippo.io/edwards25519"

	"github.com/gonero/gonero/crypto"
	"github.com/gonero/gonero/fcmp/helioselene"
	"github.com/gonero/gonero/internal/testutil"
)

// naiveRoot hashes every layer from scratch (hash_grow from the init over each full chunk).
func naiveRoot(t *testing.T, leaves []Leaf) ([32]byte, int) {
	t.Helper()
	var sel []helioselene.Field25519
	for _, l := range leaves {
		sel = append(sel, l.O, l.I, l.C)
	}
	var zs helioselene.Field25519
	var zh helioselene.HelioseleneField
	w := LeafScalars * SeleneWidth
	for layers := 1; ; layers++ {
		// A Selene layer over sel.
		var hashes []helioselene.SelenePoint
		for i := 0; i < len(sel); i += w {
			init := SeleneHashInit()
			h, err := SeleneHashGrow(&init, 0, &zs, sel[i:min(i+w, len(sel))])
			if err != nil {
				t.Fatal(err)
			}
			hashes = append(hashes, *h)
		}
		if len(hashes) == 1 {
			return hashes[0].Bytes(), layers
		}
		layers++
		var hel []helioselene.HelioseleneField
		for _, h := range hashes {
			x, _, _ := h.XY()
			hel = append(hel, x)
		}
		var hh []helioselene.HeliosPoint
		for i := 0; i < len(hel); i += HeliosWidth {
			init := HeliosHashInit()
			h, err := HeliosHashGrow(&init, 0, &zh, hel[i:min(i+HeliosWidth, len(hel))])
			if err != nil {
				t.Fatal(err)
			}
			hh = append(hh, *h)
		}
		if len(hh) == 1 {
			return hh[0].Bytes(), layers
		}
		sel = sel[:0]
		for _, h := range hh {
			x, _, _ := h.XY()
			sel = append(sel, x)
		}
		w = SeleneWidth
	}
}

func randomLeaves(n, salt int) []Leaf {
	out := make([]Leaf, n)
	for i := range out {
		tag := []byte{byte(i), byte(i >> 8), byte(i >> 16), byte(salt)}
		out[i] = Leaf{
			O: helioselene.SeleneHashToF([]byte("leaf O"), tag),
			I: helioselene.SeleneHashToF([]byte("leaf I"), tag),
			C: helioselene.SeleneHashToF([]byte("leaf C"), tag),
		}
	}
	return out
}

func rootOf(t *testing.T, tr *Tree) ([32]byte, int) {
	t.Helper()
	r, n, err := tr.Root()
	if err != nil {
		t.Fatal(err)
	}
	return r, n
}

// TestTreeOneOutputVector rebuilds the oracle's one-layer FCMP++ tree (vectors.json fcmp_pp: one output
// O, I, C; root = SELENE_HASH_INIT + the multiexp of its three x coordinates), from the points and from
// the output's public key and commitment as monerod would.
func TestTreeOneOutputVector(t *testing.T) {
	b, err := os.ReadFile(testutil.Path(t, "testdata", "fcmp", "vectors.json"))
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		FCMP struct {
			Layers int    `json:"layers"`
			Root   string `json:"tree_root"`
			Output struct{ O, I, C string }
		} `json:"fcmp_pp"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	pt := func(s string) [32]byte { return [32]byte(unhex(t, s)) }
	O, I, C := pt(v.FCMP.Output.O), pt(v.FCMP.Output.I), pt(v.FCMP.Output.C)
	var pts [3]*edwardsPoint
	for k, e := range [][32]byte{O, I, C} {
		if pts[k], err = crypto.DecodePoint(e[:]); err != nil {
			t.Fatal(err)
		}
	}
	leaf, err := NewLeaf(pts[0], pts[1], pts[2])
	if err != nil {
		t.Fatal(err)
	}
	var tr Tree
	if err := tr.Grow([]Leaf{leaf}); err != nil {
		t.Fatal(err)
	}
	root, layers := rootOf(t, &tr)
	if hexOf(root) != v.FCMP.Root || layers != v.FCMP.Layers {
		t.Errorf("root %x (%d layers), want %s (%d)", root, layers, v.FCMP.Root, v.FCMP.Layers)
	}
	// monerod's path: O and C are torsion-free already, I is the biased hash of O.
	leaf2, err := OutputLeaf(O, C, true)
	if err != nil || leaf2 != leaf {
		t.Errorf("OutputLeaf differs from the oracle's tuple (%v)", err)
	}
	if leaf3, err := OutputLeaf(O, C, false); err != nil || leaf3.I == leaf.I {
		t.Errorf("unbiased key-image generator gives the oracle's (biased) I (%v)", err)
	}
}

type edwardsPoint = edwards25519.Point

// TestTreeGrowTrim grows a tree in uneven steps across the 1-, 2- and 3-layer shapes, checks each root
// against a from-scratch hash, then trims back (a reorganisation) and checks that every earlier root
// comes back, and that growing other outputs after a trim gives their from-scratch root.
func TestTreeGrowTrim(t *testing.T) {
	all := randomLeaves(SeleneWidth*HeliosWidth+SeleneWidth+5, 1) // 3 layers at the end
	steps := []int{1, 1, 36, 1, 1, 37, 38, 100, 200, 250, 54, 2, 1, 41}
	var tr Tree
	type snap struct {
		n     int
		root  [32]byte
		layer int
	}
	var snaps []snap
	n := 0
	for _, s := range steps {
		if n+s > len(all) {
			s = len(all) - n
		}
		if err := tr.Grow(all[n : n+s]); err != nil {
			t.Fatal(err)
		}
		n += s
		root, layers := rootOf(t, &tr)
		want, wl := naiveRoot(t, all[:n])
		if root != want || layers != wl {
			t.Fatalf("after growing to %d outputs: root %x (%d layers), want %x (%d)", n, root, layers, want, wl)
		}
		snaps = append(snaps, snap{n, root, layers})
	}
	if snaps[len(snaps)-1].layer != 3 {
		t.Fatalf("the test tree reached %d layers, want 3", snaps[len(snaps)-1].layer)
	}
	// Trim back through every snapshot.
	for i := len(snaps) - 2; i >= 0; i-- {
		if err := tr.Trim(tr.Outputs() - snaps[i].n); err != nil {
			t.Fatal(err)
		}
		root, layers := rootOf(t, &tr)
		if root != snaps[i].root || layers != snaps[i].layer {
			t.Fatalf("trimmed to %d outputs: root %x (%d layers), want %x (%d)", snaps[i].n, root, layers,
				snaps[i].root, snaps[i].layer)
		}
	}
	// Reorganisation: trim 30 outputs of a 2-layer tree, add 45 others, compare with a fresh hash.
	var tr2 Tree
	base := all[:500]
	if err := tr2.Grow(base); err != nil {
		t.Fatal(err)
	}
	if err := tr2.Trim(30); err != nil {
		t.Fatal(err)
	}
	other := randomLeaves(45, 2)
	if err := tr2.Grow(other); err != nil {
		t.Fatal(err)
	}
	root, layers := rootOf(t, &tr2)
	want, wl := naiveRoot(t, append(append([]Leaf{}, base[:470]...), other...))
	if root != want || layers != wl {
		t.Fatalf("after the reorganisation: root %x (%d), want %x (%d)", root, layers, want, wl)
	}
	// Trimming everything empties the tree; trimming more is refused.
	if err := tr2.Trim(tr2.Outputs()); err != nil {
		t.Fatal(err)
	}
	if _, _, err := tr2.Root(); err == nil {
		t.Error("empty tree has a root")
	}
	if err := tr2.Trim(1); err == nil {
		t.Error("trimmed an empty tree")
	}
}

func TestLeafRefuses(t *testing.T) {
	id := [32]byte{1}
	g := [32]byte(crypto.H().Bytes())
	if _, err := OutputLeaf(id, g, true); err == nil {
		t.Error("identity public key accepted")
	}
	bad := [32]byte(bytes.Repeat([]byte{0xff}, 32))
	if _, err := OutputLeaf(g, bad, true); err == nil {
		t.Error("undecodable commitment accepted")
	}
}

func FuzzOutputLeaf(f *testing.F) {
	f.Add(crypto.H().Bytes(), edwards25519.NewGeneratorPoint().Bytes(), true)
	f.Add(make([]byte, 32), make([]byte, 32), false)
	f.Fuzz(func(t *testing.T, pub, commitment []byte, biased bool) {
		if len(pub) != 32 || len(commitment) != 32 {
			return
		}
		l, err := OutputLeaf([32]byte(pub), [32]byte(commitment), biased)
		if err != nil {
			return
		}
		var tr Tree
		if err := tr.Grow([]Leaf{l}); err != nil {
			t.Fatal(err)
		}
	})
}
