package rpc

import (
	"errors"

	"github.com/gonero/gonero/epeejson"
)

// requestParams reads a request's params object the way monerod loads its
// request structs (epee portable_storage_val_converters.h): a missing member,
// or one epeejson calls the wrong shape (a scalar where an array is
// expected), takes the default; a value of the wrong type (including an
// object or array where a scalar is expected) is -32602.
type requestParams struct {
	v epeejson.Value // KindObject, or the zero Value when params was absent or not an object
	// arr is params when it was an array: the few requests monerod
	// declares as a bare vector (on_getblockhash, submit_block) read it.
	arr epeejson.Value
}

func newParams(v epeejson.Value, ok bool) requestParams {
	if ok && v.Kind == epeejson.KindArray {
		return requestParams{arr: v}
	}
	if !ok || v.Kind != epeejson.KindObject {
		return requestParams{}
	}
	return requestParams{v: v}
}

func (p requestParams) get(name string) (epeejson.Value, bool) {
	if p.v.Kind != epeejson.KindObject {
		return epeejson.Value{}, false
	}
	return p.v.Get(name)
}

// convert applies a converter, mapping its errors to monerod's outcomes.
func convert[T any](p requestParams, name string, def T, conv func(epeejson.Value) (T, error)) (T, *Error) {
	v, ok := p.get(name)
	if !ok {
		return def, nil
	}
	out, err := conv(v)
	switch {
	case err == nil:
		return out, nil
	case errors.Is(err, epeejson.ErrWrongShape):
		return def, nil
	default:
		return def, errInvalidParams
	}
}

func (p requestParams) uint64(name string) (uint64, *Error) {
	return convert(p, name, 0, epeejson.Value.AsUint64)
}

func (p requestParams) string(name string) (string, *Error) {
	return convert(p, name, "", epeejson.Value.AsString)
}

func (p requestParams) bool(name string) (bool, *Error) {
	return convert(p, name, false, epeejson.Value.AsBool)
}

func (p requestParams) strings(name string) ([]string, *Error) {
	return convert(p, name, nil, epeejson.Value.AsStrings)
}
