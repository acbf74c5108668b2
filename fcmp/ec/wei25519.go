package ec

import (
	"errors"

	"filippo.io/edwards25519"
	"filippo.io/edwards25519/field"

	"github.com/gonero/gonero/fcmp/helioselene"
)

// ErrNoWei25519 is returned by ToWei25519 for the points the map is not defined on: the identity and the
// point of order 2 (x = 0), where 1 - y or x vanishes.
var ErrNoWei25519 = errors.New("ec: point has no Wei25519 image")

// weiAOver3 is A/3 for Curve25519's A = 486662, and weiC = sqrt(-(A + 2)) as d06d9518's divisors crate
// computes it (dalek-ff-group's square root, whose choice of root the map's y depends on).
var weiAOver3, weiC helioselene.Field25519

func init() {
	var a, three helioselene.Field25519
	a.SetUint64(486662)
	three.SetUint64(3)
	inv, _ := new(helioselene.Field25519).Invert(&three)
	weiAOver3.Mul(&a, inv)
	var m helioselene.Field25519
	m.SetUint64(486662 + 2)
	m.Negate(&m)
	if _, ok := weiC.Sqrt(&m); !ok {
		panic("ec: -(A+2) is not a square")
	}
}

// ToWei25519 maps an Ed25519 point to its Wei25519 coordinates (draft-ietf-lwig-curve-representations-02
// E.2, as d06d9518's ec-divisors crate and monerod master's point_to_wei_x_y compute them):
// x_w = (1 + y)/(1 - y) + A/3 and y_w = c·(1 + y)/((1 - y)·x). The x coordinate is what the curve tree
// stores for each of O, I, C (a Selene scalar).
func ToWei25519(p *edwards25519.Point) (x, y helioselene.Field25519, err error) {
	X, Y, Z, _ := p.ExtendedCoordinates()
	var zi, ex, ey field.Element
	zi.Invert(Z)
	ex.Multiply(X, &zi)
	ey.Multiply(Y, &zi)
	var fx, fy helioselene.Field25519
	if _, err := fx.SetBytes(ex.Bytes()); err != nil {
		return x, y, err
	}
	if _, err := fy.SetBytes(ey.Bytes()); err != nil {
		return x, y, err
	}
	var one, onePlusY, oneMinusY, den helioselene.Field25519
	one.One()
	onePlusY.Add(&one, &fy)
	oneMinusY.Sub(&one, &fy)
	den.Mul(&oneMinusY, &fx)
	if den.IsZero() {
		return x, y, ErrNoWei25519
	}
	var invOneMinusY, invDen helioselene.Field25519
	invOneMinusY.Invert(&oneMinusY)
	invDen.Invert(&den)
	x.Mul(&onePlusY, &invOneMinusY)
	x.Add(&x, &weiAOver3)
	y.Mul(&weiC, &onePlusY)
	y.Mul(&y, &invDen)
	return x, y, nil
}
