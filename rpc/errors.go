package rpc

import (
	"fmt"

	"github.com/gonero/gonero/rpctypes"
)

// Error is a JSON-RPC error object (rpctypes.Error): the codes and message
// texts are monerod's (core_rpc_server_error_codes.h and each handler's own text).
type Error = rpctypes.Error

// Envelope-level errors (epee http_server_handlers_map2.h).
var (
	errParse          = &Error{Code: -32700, Message: "Parse error"}
	errInvalidRequest = &Error{Code: -32600, Message: "Invalid Request"}
	errMethodNotFound = &Error{Code: -32601, Message: "Method not found"}
	errInvalidParams  = rpctypes.ErrInvalidParams
)

// Handler-level codes (CORE_RPC_ERROR_CODE_*).
const (
	codeWrongParam    = -1
	codeTooBigHeight  = -2
	codeInternalError = -5
	codeRestricted    = -19
)

func errBadHash(hash string) *Error {
	return &Error{Code: codeWrongParam, Message: "Failed to parse hex representation of block hash. Hex = " + hash + "."}
}

func errUnknownHash(hash string) *Error {
	return &Error{Code: codeInternalError, Message: "Internal error: can't get block by hash. Hash = " + hash + "."}
}

func errTooBigHeight(height, top uint64) *Error {
	return &Error{Code: codeTooBigHeight, Message: fmt.Sprintf("Requested block height: %d greater than current top block height: %d", height, top)}
}

func errInternal(what string) *Error {
	return &Error{Code: codeInternalError, Message: "Internal error: " + what}
}

var errTooManyHeaders = &Error{Code: codeRestricted, Message: "Too many block headers requested in restricted mode"}
