package cryptonote

import (
	"errors"
	"fmt"
)

// Sentinel causes carried by *DecodeError; test with errors.Is.
var (
	ErrTruncated          = errors.New("unexpected end of data")
	ErrNonCanonicalVarint = errors.New("non-canonical varint")
	ErrVarintOverflow     = errors.New("varint overflows its field")
	ErrTrailingBytes      = errors.New("trailing bytes after the object")
	ErrUnknownTag         = errors.New("unknown variant tag")
	ErrBadVersion         = errors.New("unsupported transaction version")
	ErrBadRctType         = errors.New("unknown RingCT type")
	ErrInconsistent       = errors.New("inconsistent field")
	ErrTooLarge           = errors.New("count exceeds the data available")
	// ErrInputType is an input monerod's parser refuses: a txin_gen beside
	// other inputs, or a txin_to_script or txin_to_scripthash anywhere.
	ErrInputType = errors.New("cryptonote: input type not allowed in a transaction")
)

// DecodeError says where decoding failed (byte offset in the input) and in
// which field, wrapping one of the sentinel causes above.
type DecodeError struct {
	Offset int
	Field  string
	Err    error
}

func (e *DecodeError) Error() string {
	return fmt.Sprintf("decode %s at byte %d: %v", e.Field, e.Offset, e.Err)
}

func (e *DecodeError) Unwrap() error { return e.Err }
