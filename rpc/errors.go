package rpc

import "fmt"

// Error is a JSON-RPC error object. The codes and message texts are
// monerod's (core_rpc_server_error_codes.h and each handler's own text).
type Error struct {
	Code    int64
	Message string
}

func (e *Error) Error() string { return fmt.Sprintf("JSON-RPC error %d: %s", e.Code, e.Message) }

// Envelope-level errors (epee http_server_handlers_map2.h).
var (
	errParse          = &Error{-32700, "Parse error"}
	errInvalidRequest = &Error{-32600, "Invalid Request"}
	errMethodNotFound = &Error{-32601, "Method not found"}
	errInvalidParams  = &Error{-32602, "Invalid params"}
)

// Handler-level codes (CORE_RPC_ERROR_CODE_*).
const (
	codeWrongParam    = -1
	codeTooBigHeight  = -2
	codeInternalError = -5
	codeRestricted    = -19
)

func errBadHash(hash string) *Error {
	return &Error{codeWrongParam, "Failed to parse hex representation of block hash. Hex = " + hash + "."}
}

func errUnknownHash(hash string) *Error {
	return &Error{codeInternalError, "Internal error: can't get block by hash. Hash = " + hash + "."}
}

func errTooBigHeight(height, top uint64) *Error {
	return &Error{codeTooBigHeight, fmt.Sprintf("Requested block height: %d greater than current top block height: %d", height, top)}
}

func errInternal(what string) *Error {
	return &Error{codeInternalError, "Internal error: " + what}
}

var errTooManyHeaders = &Error{codeRestricted, "Too many block headers requested in restricted mode"}
