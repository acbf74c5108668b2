package portable

import "math"

// AsUint64 converts a value (an entry or an array element) for a uint64_t
// field of an RPC request as monerod 0.18.5.3 does: any integer type that
// fits; anything else, a string of digits included (0.18.0 converted one,
// 0.18.5.3 answers 400), is ErrWrongType or ErrOutOfRange (monerod's
// converter throws and the whole request is refused).
func (v Value) AsUint64() (uint64, error) {
	if v.Type == TypeString {
		return 0, ErrWrongType
	}
	return asUint(v, math.MaxUint64)
}
