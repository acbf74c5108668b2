package levin

import (
	"errors"
	"fmt"
)

// Sentinel errors; test with errors.Is. Any of them means the peer is broken
// or hostile: monerod closes the connection in each case.
var (
	ErrShortHeader        = errors.New("levin: header shorter than 33 bytes")
	ErrBadSignature       = errors.New("levin: bad bucket signature")
	ErrBadHeader          = errors.New("levin: malformed bucket header")
	ErrBadProtocolVersion = errors.New("levin: unsupported protocol version")
	ErrTooLarge           = errors.New("levin: body exceeds the size limit")
	ErrBadFragment        = errors.New("levin: malformed fragmented message")
	ErrBadKind            = errors.New("levin: invalid message kind")
)

// VersionError is a header whose protocol version is not 1. It matches
// ErrBadProtocolVersion.
type VersionError struct {
	Version uint32
}

func (e *VersionError) Error() string {
	return fmt.Sprintf("levin: unsupported protocol version %d", e.Version)
}

func (e *VersionError) Unwrap() error { return ErrBadProtocolVersion }

// SizeError is a body (or fragment buffer) larger than allowed: the limit is
// the smaller of the connection limit and the command's own ceiling
// (CommandMaxBodySize). It matches ErrTooLarge.
type SizeError struct {
	Command uint32
	Size    uint64 // announced body size (for fragments: buffered + announced)
	Limit   uint64
}

func (e *SizeError) Error() string {
	return fmt.Sprintf("levin: command %d body of %d bytes exceeds the limit of %d", e.Command, e.Size, e.Limit)
}

func (e *SizeError) Unwrap() error { return ErrTooLarge }
