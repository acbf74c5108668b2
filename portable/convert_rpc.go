package portable

import "math"

// AsUint64 converts a value (an entry or an array element) for a uint64_t
// C++ field as epee's converters do: any integer type that fits; anything
// else is ErrWrongType or ErrOutOfRange (monerod's converter throws and the
// whole request is refused). monerod 0.18.0 also took a string of decimal
// digits; 0.18.5.3 refuses it (checked against the binary:
// TestWalletSyncMatchesMonerod's "as digits" cases).
func (v Value) AsUint64() (uint64, error) { return asUint(v, math.MaxUint64) }
