package ringct

import (
	"filippo.io/edwards25519"

	"github.com/gonero/gonero/crypto"
	"github.com/gonero/gonero/cryptonote"
)

// CheckBalance is the balance rule of verRctSemanticsSimple (RingCT types
// 2–6): Σ pseudoOuts == Σ outPk + fee·H, compared by encoding. Every
// commitment must decode; an empty list sums to the identity. Type 1 has no
// pseudo-outs: its balance is inside the full MLSAG.
func CheckBalance(pseudoOuts, outPk []cryptonote.Key, fee uint64) bool {
	in, ok := sumPoints(pseudoOuts)
	if !ok {
		return false
	}
	out, ok := sumPoints(outPk)
	if !ok {
		return false
	}
	out.Add(out, crypto.ScalarMultH(fee))
	return in.Equal(out) == 1
}

func sumPoints(ks []cryptonote.Key) (*edwards25519.Point, bool) {
	sum := edwards25519.NewIdentityPoint()
	var p edwards25519.Point
	for i := range ks {
		if decodePoint(&p, ks[i][:]) != nil {
			return nil, false
		}
		sum.Add(sum, &p)
	}
	return sum, true
}
