package portable

import (
	"errors"
	"fmt"
)

// Decoding errors (causes inside *DecodeError; test with errors.Is). monerod
// rejects the whole message in each case.
var (
	ErrBadHeader     = errors.New("portable: bad storage header")
	ErrTruncated     = errors.New("portable: unexpected end of data")
	ErrTooLarge      = errors.New("portable: count or length exceeds the data left")
	ErrUnknownType   = errors.New("portable: unknown type code")
	ErrNestedArray   = errors.New("portable: array of arrays")
	ErrBadBool       = errors.New("portable: bool is neither 0 nor 1")
	ErrEmptyName     = errors.New("portable: empty entry name")
	ErrDuplicateName = errors.New("portable: duplicate entry name")
	ErrTooDeep       = errors.New("portable: objects nested too deeply")
	ErrLimit         = errors.New("portable: too many objects, fields or strings")
)

// Encoding errors: the value tree cannot be written as monerod reads it.
var (
	ErrBadName      = errors.New("portable: entry name must be 1 to 255 bytes")
	ErrInvalidValue = errors.New("portable: invalid value")
)

// Field access errors (getters and the P2P struct loaders).
var (
	ErrMissing    = errors.New("portable: no such entry")
	ErrWrongType  = errors.New("portable: entry has a type that cannot be converted")
	ErrOutOfRange = errors.New("portable: integer does not fit the field")
	ErrBadAddress = errors.New("portable: invalid network address")
)

// DecodeError says where decoding failed: the byte offset in the input and
// the path of the entry being read ("node_data.peer_id",
// "local_peerlist_new[3].adr"); it wraps one of the causes above.
type DecodeError struct {
	Offset int
	Path   string
	Err    error
}

func (e *DecodeError) Error() string {
	if e.Path == "" {
		return fmt.Sprintf("portable: decode at byte %d: %v", e.Offset, e.Err)
	}
	return fmt.Sprintf("portable: decode %s at byte %d: %v", e.Path, e.Offset, e.Err)
}

func (e *DecodeError) Unwrap() error { return e.Err }

// FieldError names the field of a P2P structure whose value could not be
// loaded (monerod rejects the message: its converter threw).
type FieldError struct {
	Path string
	Err  error
}

func (e *FieldError) Error() string { return fmt.Sprintf("portable: field %s: %v", e.Path, e.Err) }

func (e *FieldError) Unwrap() error { return e.Err }

// joinPath prefixes name to an inner path ("a" + "b" = "a.b", "a" + "[2]" =
// "a[2]").
func joinPath(name, inner string) string {
	switch {
	case inner == "":
		return name
	case inner[0] == '[':
		return name + inner
	}
	return name + "." + inner
}

// withPath adds name in front of the path an error carries.
func withPath(err error, name string) error {
	switch e := err.(type) {
	case *DecodeError:
		e.Path = joinPath(name, e.Path)
	case *FieldError:
		e.Path = joinPath(name, e.Path)
	default:
		return &FieldError{Path: name, Err: err}
	}
	return err
}
