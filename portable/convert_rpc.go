package portable

import "math"

// AsUint64 converts a value (an entry or an array element) for a uint64_t
// C++ field as epee's converters do: any integer type that fits, or a
// string of decimal digits; anything else is ErrWrongType or ErrOutOfRange
// (monerod's converter throws and the whole request is refused).
func (v Value) AsUint64() (uint64, error) { return asUint(v, math.MaxUint64) }
