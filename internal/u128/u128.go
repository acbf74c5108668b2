// Package u128 is the unsigned 128-bit integer Monero uses for difficulty and
// cumulative difficulty (monerod's difficulty_type). It is a plain value type:
// arithmetic that would overflow reports it instead of wrapping silently.
package u128

import (
	"math/big"
	"math/bits"
	"strconv"
)

// U128 is an unsigned 128-bit integer: Hi<<64 | Lo.
type U128 struct {
	Lo, Hi uint64
}

// From64 widens v.
func From64(v uint64) U128 { return U128{Lo: v} }

// Add returns a+b and whether the sum overflowed 128 bits.
func (a U128) Add(b U128) (U128, bool) {
	lo, c := bits.Add64(a.Lo, b.Lo, 0)
	hi, c2 := bits.Add64(a.Hi, b.Hi, c)
	return U128{lo, hi}, c2 != 0
}

// Sub returns a-b and whether it underflowed.
func (a U128) Sub(b U128) (U128, bool) {
	lo, br := bits.Sub64(a.Lo, b.Lo, 0)
	hi, br2 := bits.Sub64(a.Hi, b.Hi, br)
	return U128{lo, hi}, br2 != 0
}

// Cmp returns -1, 0 or +1.
func (a U128) Cmp(b U128) int {
	switch {
	case a.Hi < b.Hi:
		return -1
	case a.Hi > b.Hi:
		return 1
	case a.Lo < b.Lo:
		return -1
	case a.Lo > b.Lo:
		return 1
	}
	return 0
}

// IsZero reports a == 0.
func (a U128) IsZero() bool { return a.Lo == 0 && a.Hi == 0 }

// Big converts to a math/big integer (for the rare wide intermediate).
func (a U128) Big() *big.Int {
	b := new(big.Int).SetUint64(a.Hi)
	b.Lsh(b, 64)
	return b.Or(b, new(big.Int).SetUint64(a.Lo))
}

// FromBig converts b, reporting false if it is negative or wider than 128 bits.
func FromBig(b *big.Int) (U128, bool) {
	if b.Sign() < 0 || b.BitLen() > 128 {
		return U128{}, false
	}
	var lo, hi big.Int
	lo.And(b, new(big.Int).SetUint64(^uint64(0)))
	hi.Rsh(b, 64)
	return U128{Lo: lo.Uint64(), Hi: hi.Uint64()}, true
}

// Hex is monerod's wide_* rendering: "0x" and lower-case hex without leading zeros ("0x0" for zero).
func (a U128) Hex() string {
	if a.Hi == 0 {
		return "0x" + strconv.FormatUint(a.Lo, 16)
	}
	lo := strconv.FormatUint(a.Lo, 16)
	pad := "0000000000000000"[:16-len(lo)]
	return "0x" + strconv.FormatUint(a.Hi, 16) + pad + lo
}

// String is the decimal value.
func (a U128) String() string {
	if a.Hi == 0 {
		return strconv.FormatUint(a.Lo, 10)
	}
	return a.Big().String()
}
