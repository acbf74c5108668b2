package rpctypes

import "fmt"

// Error is a JSON-RPC error object. The codes and message texts are
// monerod's (core_rpc_server_error_codes.h and each handler's own text).
type Error struct {
	Code    int64
	Message string
}

func (e *Error) Error() string { return fmt.Sprintf("JSON-RPC error %d: %s", e.Code, e.Message) }

// ErrInvalidParams is epee's answer to params it cannot load into the
// request struct (http_server_handlers_map2.h): a member of the wrong type.
var ErrInvalidParams = &Error{-32602, "Invalid params"}
