package rpctypes

import (
	"bytes"
	"errors"
	"math"

	"github.com/gonero/gonero/epeejson"
)

// Params reads a request's params object the way monerod loads its request
// structs (epee portable_storage_val_converters.h): a missing member, or
// one epeejson calls the wrong shape (a scalar where an array is expected),
// takes the default; a value of the wrong type (including an object or
// array where a scalar is expected) is ErrInvalidParams (-32602).
type Params struct {
	v epeejson.Value // KindObject, or the zero Value when params was absent or not an object
	// arr is params when it was an array: the few requests monerod
	// declares as a bare vector (on_getblockhash, submit_block) read it.
	arr epeejson.Value
}

// NewParams wraps a JSON-RPC params value (ok false: there was none).
func NewParams(v epeejson.Value, ok bool) Params {
	if ok && v.Kind == epeejson.KindArray {
		return Params{arr: v}
	}
	if !ok || v.Kind != epeejson.KindObject {
		return Params{}
	}
	return Params{v: v}
}

// PathParams reads the JSON body of a plain-path request: none (or only
// white space) is the all-default request; a body that does not parse is
// false (monerod's 400).
func PathParams(body []byte) (Params, bool) { return pathParams(body, epeejson.Parse) }

func pathParams(body []byte, parse func([]byte) (epeejson.Value, error)) (Params, bool) {
	if len(bytes.TrimSpace(body)) == 0 {
		return Params{}, true
	}
	v, err := parse(body)
	if err != nil {
		return Params{}, false
	}
	return NewParams(v, true), true
}

// PathRequest reads the JSON body of a plain-path endpoint the way
// monerod's MAP_URI_AUTO_JON2 does: as PathParams, and a "client" of the
// wrong type is also false (400).
func PathRequest(body []byte) (Params, bool) { return pathRequest(body, epeejson.Parse) }

// PathRequestCapped is PathRequest building only the first n+1 elements
// of the top-level array name (epeejson.ParseCapped): for a listener that
// refuses more than n of them, whatever the rest hold.
func PathRequestCapped(body []byte, name string, n int) (Params, bool) {
	return pathRequest(body, func(b []byte) (epeejson.Value, error) { return epeejson.ParseCapped(b, name, n) })
}

func pathRequest(body []byte, parse func([]byte) (epeejson.Value, error)) (Params, bool) {
	p, ok := pathParams(body, parse)
	if !ok {
		return p, false
	}
	if _, e := p.String("client"); e != nil {
		return p, false
	}
	return p, true
}

// JSONBodyParams parses the body of a plain JSON endpoint; a body of
// nothing but JSON white space is an empty object, as epee's
// load_t_from_json takes it.
func JSONBodyParams(body []byte) (Params, error) { return jsonBodyParams(body, epeejson.Parse) }

func jsonBodyParams(body []byte, parse func([]byte) (epeejson.Value, error)) (Params, error) {
	blank := true
	for _, c := range body {
		if c != ' ' && c != '\t' && c != '\r' && c != '\n' {
			blank = false
			break
		}
	}
	if blank {
		return Params{}, nil
	}
	v, err := parse(body)
	if err != nil {
		return Params{}, ErrBadRequest
	}
	return NewParams(v, true), nil
}

// Get is the member name, if params is an object holding it.
func (p Params) Get(name string) (epeejson.Value, bool) {
	if p.v.Kind != epeejson.KindObject {
		return epeejson.Value{}, false
	}
	return p.v.Get(name)
}

// Convert applies a converter to member name, mapping its errors to
// monerod's outcomes: absent or of the wrong shape, def; of the wrong type,
// ErrInvalidParams.
func Convert[T any](p Params, name string, def T, conv func(epeejson.Value) (T, error)) (T, *Error) {
	v, ok := p.Get(name)
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
		return def, ErrInvalidParams
	}
}

// Uint64 reads a uint64_t member (default 0).
func (p Params) Uint64(name string) (uint64, *Error) {
	return Convert(p, name, 0, epeejson.Value.AsUint64)
}

// String reads a std::string member (default "").
func (p Params) String(name string) (string, *Error) {
	return Convert(p, name, "", epeejson.Value.AsString)
}

// Bool reads a bool member (default false).
func (p Params) Bool(name string) (bool, *Error) {
	return Convert(p, name, false, epeejson.Value.AsBool)
}

// BoolOr reads a bool member whose default (KV_SERIALIZE_OPT) is def.
func (p Params) BoolOr(name string, def bool) (bool, *Error) {
	return Convert(p, name, def, epeejson.Value.AsBool)
}

// mustBeParsed stops a reader of an array or object that the request's
// parse skipped (epeejson.ParseShallow): its method reads deeper than its
// params were parsed, which only marking it deepParams (rpc/endpoints.go)
// mends. Reading on would answer as if the member were empty; the panic
// makes every test of the method fail instead (httpd answers it 500).
func mustBeParsed(v epeejson.Value) {
	if v.Skipped {
		panic("rpctypes: a params array or object was read but not parsed: mark the method deepParams")
	}
}

// Strings reads a std::vector<std::string> member.
func (p Params) Strings(name string) ([]string, *Error) {
	if v, ok := p.Get(name); ok {
		mustBeParsed(v)
	}
	return Convert(p, name, nil, epeejson.Value.AsStrings)
}

// Uint8 reads a uint8_t member: epee refuses a value out of its range.
func (p Params) Uint8(name string) (uint8, *Error) {
	v, e := p.Uint64(name)
	if e != nil {
		return 0, e
	}
	if v > 0xff {
		return 0, ErrInvalidParams
	}
	return uint8(v), nil
}

// Unsigned reads an unsigned integer member of a C++ type whose largest
// value is max (uint32_t, uint16_t): epee's convert_t takes a JSON number
// in range, and nothing else (a string converts to uint64_t only).
func (p Params) Unsigned(name string, def, max uint64) (uint64, *Error) {
	return Convert(p, name, def, func(v epeejson.Value) (uint64, error) {
		switch v.Kind {
		case epeejson.KindUint:
			if v.Uint <= max {
				return v.Uint, nil
			}
		case epeejson.KindInt:
			if v.Int >= 0 && uint64(v.Int) <= max {
				return uint64(v.Int), nil
			}
		case epeejson.KindString:
			if max == math.MaxUint64 {
				return v.AsUint64()
			}
		}
		return 0, epeejson.ErrWrongType
	})
}

// Signed reads a signed integer member of a C++ type with range [min, max]
// (int8_t, int64_t).
func (p Params) Signed(name string, def, min, max int64) (int64, *Error) {
	return Convert(p, name, def, func(v epeejson.Value) (int64, error) {
		switch v.Kind {
		case epeejson.KindUint:
			if v.Uint <= uint64(max) {
				return int64(v.Uint), nil
			}
		case epeejson.KindInt:
			if v.Int >= min && v.Int <= max {
				return v.Int, nil
			}
		}
		return 0, epeejson.ErrWrongType
	})
}

// Objects reads an array of objects (std::vector of a struct): anything
// but an array of objects leaves it empty, as epee finds no section array.
func (p Params) Objects(name string) []Params {
	v, ok := p.Get(name)
	mustBeParsed(v)
	if !ok || v.Kind != epeejson.KindArray {
		return nil
	}
	out := make([]Params, 0, len(v.Arr))
	for _, e := range v.Arr {
		if e.Kind != epeejson.KindObject {
			return nil
		}
		out = append(out, NewParams(e, true))
	}
	return out
}

// Uint64List reads a std::vector<uint64_t> member: a value that is not an
// array leaves it empty; an element that does not convert is -32602.
func (p Params) Uint64List(name string) ([]uint64, *Error) {
	v, ok := p.Get(name)
	mustBeParsed(v)
	if !ok || v.Kind != epeejson.KindArray || len(v.Arr) == 0 {
		return nil, nil
	}
	out := make([]uint64, len(v.Arr))
	for i := range v.Arr {
		n, err := v.Arr[i].AsUint64()
		if err != nil {
			return nil, ErrInvalidParams
		}
		out[i] = n
	}
	return out, nil
}

// BareUint64s reads params given as a bare array of integers
// (on_getblockhash's std::vector<uint64_t>): params that are not an array
// give none.
func (p Params) BareUint64s() ([]uint64, *Error) {
	mustBeParsed(p.arr)
	if p.arr.Kind != epeejson.KindArray {
		return nil, nil
	}
	out := make([]uint64, 0, len(p.arr.Arr))
	for _, v := range p.arr.Arr {
		n, err := v.AsUint64()
		if err != nil {
			return nil, ErrInvalidParams
		}
		out = append(out, n)
	}
	return out, nil
}

// BareStrings reads params given as a bare array of strings
// (submit_block's std::vector<std::string>).
func (p Params) BareStrings() ([]string, *Error) {
	mustBeParsed(p.arr)
	if p.arr.Kind != epeejson.KindArray {
		return nil, nil
	}
	out := make([]string, 0, len(p.arr.Arr))
	for _, v := range p.arr.Arr {
		s, err := v.AsString()
		if err != nil {
			return nil, ErrInvalidParams
		}
		out = append(out, s)
	}
	return out, nil
}
