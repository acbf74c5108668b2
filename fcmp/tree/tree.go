package tree

import (
	"errors"
	"fmt"

	"filippo.io/edwards25519"

	"github.com/gonero/gonero/fcmp/ec"
	"github.com/gonero/gonero/fcmp/helioselene"
)

// The branch widths of d06d9518 (crypto/fcmps/src/lib.rs): a Selene branch has LAYER_ONE_LEN children
// (outputs in the leaf layer, Helios hashes above it), a Helios branch LAYER_TWO_LEN.
const (
	SeleneWidth = 38
	HeliosWidth = 18
	// LeafScalars is the number of Selene scalars per output in d06d9518's leaf layer: the Wei25519 x of
	// O, I and C. (monerod master's LeafTuple has six, x and y of each: a later revision's layout.)
	LeafScalars = 3
)

// ErrEmpty is returned for the root of a tree with no outputs.
var ErrEmpty = errors.New("tree: empty tree")

// ErrBadLeaf is returned for an output that cannot enter the tree (an identity or a point without a
// Wei25519 image).
var ErrBadLeaf = errors.New("tree: output cannot enter the tree")

// Leaf is an output's entry in the leaf layer: the Wei25519 x coordinates of O, I and C, Selene scalars.
type Leaf struct {
	O, I, C helioselene.Field25519
}

// NewLeaf makes the leaf of the output tuple (O, I, C) as d06d9518 does (Output::new refuses an identity;
// to_xy refuses points without a Wei25519 image). The points are used as given: monerod clears O's and
// C's torsion first (OutputLeaf).
func NewLeaf(O, I, C *edwards25519.Point) (Leaf, error) {
	var l Leaf
	for i, p := range []*edwards25519.Point{O, I, C} {
		if p.Equal(edwards25519.NewIdentityPoint()) == 1 {
			return Leaf{}, ErrBadLeaf
		}
		x, _, err := ec.ToWei25519(p)
		if err != nil {
			return Leaf{}, ErrBadLeaf
		}
		*[]*helioselene.Field25519{&l.O, &l.I, &l.C}[i] = x
	}
	return l, nil
}

// OutputLeaf makes the leaf of an output from its public key and commitment as monerod master's
// output_to_tuple does: O and C torsion-cleared (refused when not points or of small order), I the
// key-image generator of the original public key (biased for outputs created before FCMP++).
func OutputLeaf(pub, commitment [32]byte, biasedKeyImageGenerator bool) (Leaf, error) {
	o, err := ec.ClearTorsion(pub[:])
	if err != nil {
		return Leaf{}, ErrBadLeaf
	}
	c, err := ec.ClearTorsion(commitment[:])
	if err != nil {
		return Leaf{}, ErrBadLeaf
	}
	i, err := ec.KeyImageGenerator(pub, biasedKeyImageGenerator)
	if err != nil {
		return Leaf{}, ErrBadLeaf
	}
	var pts [3]*edwards25519.Point
	for k, b := range [][32]byte{o, i, c} {
		if pts[k], err = new(edwards25519.Point).SetBytes(b[:]); err != nil {
			return Leaf{}, ErrBadLeaf
		}
	}
	return NewLeaf(pts[0], pts[1], pts[2])
}

// Tree is an in-memory curve tree: the leaf scalars and every layer's branch hashes. Layer 0 hashes
// chunks of SeleneWidth outputs (3·SeleneWidth scalars) on Selene; layer 1 hashes chunks of HeliosWidth
// layer-0 x coordinates on Helios; layer 2 chunks of SeleneWidth layer-1 x coordinates on Selene; and so
// on up to the first layer with a single hash, the root. The zero value is an empty tree.
type Tree struct {
	leaves []helioselene.Field25519
	layers []layer
}

// layer holds the hashes of one layer: Selene points on even layers, Helios points on odd ones.
type layer struct {
	sel []helioselene.SelenePoint
	hel []helioselene.HeliosPoint
}

func onSelene(i int) bool { return i%2 == 0 }

func width(i int) int {
	switch {
	case i == 0:
		return LeafScalars * SeleneWidth
	case onSelene(i):
		return SeleneWidth
	default:
		return HeliosWidth
	}
}

func (t *Tree) hashCount(i int) int {
	if onSelene(i) {
		return len(t.layers[i].sel)
	}
	return len(t.layers[i].hel)
}

// Outputs returns the number of outputs in the tree.
func (t *Tree) Outputs() int { return len(t.leaves) / LeafScalars }

// Layers returns the number of layers (0 for an empty tree).
func (t *Tree) Layers() int { return len(t.layers) }

// Root returns the encoded root (a Selene point when the layer count is odd, a Helios point when even)
// and the layer count.
func (t *Tree) Root() ([32]byte, int, error) {
	n := len(t.layers)
	if n == 0 {
		return [32]byte{}, 0, ErrEmpty
	}
	if onSelene(n - 1) {
		return t.layers[n-1].sel[0].Bytes(), n, nil
	}
	return t.layers[n-1].hel[0].Bytes(), n, nil
}

// hashX returns the x coordinate of hash j of layer i as the next layer's child (canonical bytes).
func (t *Tree) hashX(i, j int) [32]byte {
	if onSelene(i) {
		x, _, err := t.layers[i].sel[j].XY()
		if err != nil {
			// A branch hash is the identity only with negligible probability (a discrete-log relation
			// among the generators); the reference would fail to_xy's unwrap here.
			panic("tree: branch hash is the identity")
		}
		return x.Bytes()
	}
	x, _, err := t.layers[i].hel[j].XY()
	if err != nil {
		panic("tree: branch hash is the identity")
	}
	return x.Bytes()
}

// children returns the children [from, to) of layer i as canonical scalar bytes.
func (t *Tree) children(i, from, to int) [][32]byte {
	out := make([][32]byte, 0, to-from)
	for j := from; j < to; j++ {
		if i == 0 {
			out = append(out, t.leaves[j].Bytes())
		} else {
			out = append(out, t.hashX(i-1, j))
		}
	}
	return out
}

// growChunk applies hash_grow to chunk k of layer i (a new chunk starts from the hash init).
func (t *Tree) growChunk(i, k, offset int, existingChild [32]byte, kids [][32]byte) error {
	if onSelene(i) {
		l := &t.layers[i]
		existing := SeleneHashInit()
		if k < len(l.sel) {
			existing = l.sel[k]
		}
		var ex helioselene.Field25519
		ks := make([]helioselene.Field25519, len(kids))
		if _, err := ex.SetBytes(existingChild[:]); err != nil {
			return err
		}
		for j := range kids {
			if _, err := ks[j].SetBytes(kids[j][:]); err != nil {
				return err
			}
		}
		h, err := SeleneHashGrow(&existing, offset, &ex, ks)
		if err != nil {
			return err
		}
		if k < len(l.sel) {
			l.sel[k] = *h
		} else {
			l.sel = append(l.sel, *h)
		}
		return nil
	}
	l := &t.layers[i]
	existing := HeliosHashInit()
	if k < len(l.hel) {
		existing = l.hel[k]
	}
	var ex helioselene.HelioseleneField
	ks := make([]helioselene.HelioseleneField, len(kids))
	if _, err := ex.SetBytes(existingChild[:]); err != nil {
		return err
	}
	for j := range kids {
		if _, err := ks[j].SetBytes(kids[j][:]); err != nil {
			return err
		}
	}
	h, err := HeliosHashGrow(&existing, offset, &ex, ks)
	if err != nil {
		return err
	}
	if k < len(l.hel) {
		l.hel[k] = *h
	} else {
		l.hel = append(l.hel, *h)
	}
	return nil
}

// trimChunk applies hash_trim to chunk k of layer i.
func (t *Tree) trimChunk(i, k, offset int, kids [][32]byte, growBack [32]byte) error {
	if onSelene(i) {
		l := &t.layers[i]
		var gb helioselene.Field25519
		ks := make([]helioselene.Field25519, len(kids))
		if _, err := gb.SetBytes(growBack[:]); err != nil {
			return err
		}
		for j := range kids {
			if _, err := ks[j].SetBytes(kids[j][:]); err != nil {
				return err
			}
		}
		h, err := SeleneHashTrim(&l.sel[k], offset, ks, &gb)
		if err != nil {
			return err
		}
		l.sel[k] = *h
		return nil
	}
	l := &t.layers[i]
	var gb helioselene.HelioseleneField
	ks := make([]helioselene.HelioseleneField, len(kids))
	if _, err := gb.SetBytes(growBack[:]); err != nil {
		return err
	}
	for j := range kids {
		if _, err := ks[j].SetBytes(kids[j][:]); err != nil {
			return err
		}
	}
	h, err := HeliosHashTrim(&l.hel[k], offset, ks, &gb)
	if err != nil {
		return err
	}
	l.hel[k] = *h
	return nil
}

// Grow appends outputs' leaves and updates every layer incrementally, as the reference's tree extension
// does: the last chunk of each layer grows by hash_grow from its existing hash (replacing its last child
// when that child's own hash changed), and new chunks start from the hash init.
func (t *Tree) Grow(leaves []Leaf) error {
	if len(leaves) == 0 {
		return nil
	}
	start := len(t.leaves) // first changed child of the current layer
	oldCount := start      // children the current layer had before
	var oldChild [32]byte  // the old value of child `start` when start < oldCount
	for _, l := range leaves {
		t.leaves = append(t.leaves, l.O, l.I, l.C)
	}
	for i := 0; ; i++ {
		if i == len(t.layers) {
			t.layers = append(t.layers, layer{})
		}
		n := len(t.leaves)
		if i > 0 {
			n = t.hashCount(i - 1)
		}
		w := width(i)
		prevHashes := t.hashCount(i)
		firstChunk := start / w
		// The next layer's changed child is this layer's first touched hash: remember its old x.
		var nextOld [32]byte
		if firstChunk < prevHashes {
			nextOld = t.hashX(i, firstChunk)
		}
		for s := start; s < n; {
			k := s / w
			end := min((k+1)*w, n)
			var existingChild [32]byte
			if s == start && s < oldCount {
				existingChild = oldChild
			}
			if err := t.growChunk(i, k, s-k*w, existingChild, t.children(i, s, end)); err != nil {
				return fmt.Errorf("growing layer %d chunk %d: %w", i, k, err)
			}
			s = end
		}
		if t.hashCount(i) == 1 {
			t.layers = t.layers[:i+1]
			return nil
		}
		// Layer i+1 existed before only if this layer had more than one hash.
		if prevHashes > 1 {
			oldCount = prevHashes
		} else {
			oldCount = 0
		}
		// A layer created now has every child new.
		start = min(firstChunk, oldCount)
		oldChild = nextOld
	}
}

// Trim removes the last n outputs (a reorganisation) and updates every layer with hash_trim: the last
// remaining chunk of each layer drops its removed children and gets its last child's new value back, as
// the reference's trim does; chunks left empty and layers above the new root go.
func (t *Tree) Trim(n int) error {
	if n < 0 || n > t.Outputs() {
		return fmt.Errorf("tree: cannot trim %d of %d outputs", n, t.Outputs())
	}
	if n == 0 {
		return nil
	}
	newLeaves := len(t.leaves) - LeafScalars*n
	if newLeaves == 0 {
		*t = Tree{}
		return nil
	}
	// old[j] for the current layer's children from newCount-1 on, before the trim.
	old := t.children(0, newLeaves-1, len(t.leaves))
	newCount := newLeaves
	t.leaves = t.leaves[:newLeaves]
	for i := 0; i < len(t.layers); i++ {
		w := width(i)
		newHashes := (newCount + w - 1) / w
		oldHashes := t.hashCount(i)
		// The old x of this layer's hashes from newHashes-1 on, for the next layer.
		nextOld := make([][32]byte, 0, oldHashes-newHashes+1)
		for j := newHashes - 1; j < oldHashes; j++ {
			nextOld = append(nextOld, t.hashX(i, j))
		}
		if onSelene(i) {
			t.layers[i].sel = t.layers[i].sel[:newHashes]
		} else {
			t.layers[i].hel = t.layers[i].hel[:newHashes]
		}
		k := newHashes - 1
		last := newCount - 1 // the last remaining child, which may have changed
		end := min((k+1)*w, last+len(old))
		growBack := t.children(i, last, last+1)[0]
		if err := t.trimChunk(i, k, last-k*w, old[:end-last], growBack); err != nil {
			return fmt.Errorf("trimming layer %d: %w", i, err)
		}
		if newHashes == 1 {
			t.layers = t.layers[:i+1]
			return nil
		}
		old = nextOld
		newCount = newHashes
	}
	return nil
}
