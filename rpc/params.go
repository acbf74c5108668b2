package rpc

import (
	"github.com/gonero/gonero/epeejson"
	"github.com/gonero/gonero/rpctypes"
)

// requestParams is a request's params, read by epee's rules: the reader
// is rpctypes.Params, shared with every other server of the RPC.
type requestParams = rpctypes.Params

func newParams(v epeejson.Value, ok bool) requestParams { return rpctypes.NewParams(v, ok) }
