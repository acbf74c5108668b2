package tree

import (
	"errors"

	"github.com/gonero/gonero/fcmp/helioselene"
)

// ErrNoChildren is returned by a grow with no new children (the reference returns None).
var ErrNoChildren = errors.New("tree: hash_grow without new children")

// ErrTooManyChildren is returned when offset + children exceeds the generators (the reference returns
// None).
var ErrTooManyChildren = errors.New("tree: children beyond the generators")

// SeleneHashGrow is hash_grow over Selene: existing + (new[0] - existingChildAtOffset)·G_bold[offset] +
// Σ_{i≥1} new[i]·G_bold[offset+i]. A new hash starts from SeleneHashInit with offset 0 and a zero existing
// child; replacing the child at offset passes the old child as existingChildAtOffset.
func SeleneHashGrow(existing *helioselene.SelenePoint, offset int, existingChildAtOffset *helioselene.Field25519,
	newChildren []helioselene.Field25519) (*helioselene.SelenePoint, error) {
	if len(newChildren) == 0 {
		return nil, ErrNoChildren
	}
	g := Selene().GBold
	if offset < 0 || offset > len(g) || len(newChildren) > len(g)-offset {
		return nil, ErrTooManyChildren
	}
	ks := make([]helioselene.Field25519, len(newChildren))
	copy(ks, newChildren)
	ks[0].Sub(&ks[0], existingChildAtOffset)
	r := helioselene.SeleneMultiScalarMult(ks, g[offset:offset+len(ks)])
	return r.Add(existing, r), nil
}

// SeleneHashTrim is hash_trim over Selene: it removes children (those at offset, offset+1, ...) from
// existing and grows childToGrowBack back at offset: existing - (children[0] - childToGrowBack)·G_bold[offset]
// - Σ_{i≥1} children[i]·G_bold[offset+i]. With no children it returns existing.
func SeleneHashTrim(existing *helioselene.SelenePoint, offset int, children []helioselene.Field25519,
	childToGrowBack *helioselene.Field25519) (*helioselene.SelenePoint, error) {
	g := Selene().GBold
	if len(children) > 0 && (offset < 0 || offset > len(g) || len(children) > len(g)-offset) {
		return nil, ErrTooManyChildren
	}
	ks := make([]helioselene.Field25519, len(children))
	copy(ks, children)
	if len(ks) > 0 {
		ks[0].Sub(&ks[0], childToGrowBack)
	}
	r := helioselene.SeleneMultiScalarMult(ks, g[offset:offset+len(ks)])
	return r.Sub(existing, r), nil
}

// HeliosHashGrow is hash_grow over Helios (see SeleneHashGrow).
func HeliosHashGrow(existing *helioselene.HeliosPoint, offset int, existingChildAtOffset *helioselene.HelioseleneField,
	newChildren []helioselene.HelioseleneField) (*helioselene.HeliosPoint, error) {
	if len(newChildren) == 0 {
		return nil, ErrNoChildren
	}
	g := Helios().GBold
	if offset < 0 || offset > len(g) || len(newChildren) > len(g)-offset {
		return nil, ErrTooManyChildren
	}
	ks := make([]helioselene.HelioseleneField, len(newChildren))
	copy(ks, newChildren)
	ks[0].Sub(&ks[0], existingChildAtOffset)
	r := helioselene.HeliosMultiScalarMult(ks, g[offset:offset+len(ks)])
	return r.Add(existing, r), nil
}

// HeliosHashTrim is hash_trim over Helios (see SeleneHashTrim).
func HeliosHashTrim(existing *helioselene.HeliosPoint, offset int, children []helioselene.HelioseleneField,
	childToGrowBack *helioselene.HelioseleneField) (*helioselene.HeliosPoint, error) {
	g := Helios().GBold
	if len(children) > 0 && (offset < 0 || offset > len(g) || len(children) > len(g)-offset) {
		return nil, ErrTooManyChildren
	}
	ks := make([]helioselene.HelioseleneField, len(children))
	copy(ks, children)
	if len(ks) > 0 {
		ks[0].Sub(&ks[0], childToGrowBack)
	}
	r := helioselene.HeliosMultiScalarMult(ks, g[offset:offset+len(ks)])
	return r.Sub(existing, r), nil
}
