package rpc

import (
	"time"

	"github.com/gonero/gonero/epeejson"
)

// OtherEndpoint is the instrumentation name of every request that names no
// registered endpoint: an unknown or refused JSON-RPC method, a body that
// does not parse, a non-string method. Client input never becomes a name.
const OtherEndpoint = "other"

// endpointTimers are the duration observers of Config.Instrument, bound
// once per endpoint name so that a request only looks its own up.
type endpointTimers struct {
	byName map[string]func(time.Duration)
	other  func(time.Duration)
}

func newEndpointTimers(instrument func(string) func(time.Duration)) *endpointTimers {
	t := &endpointTimers{byName: make(map[string]func(time.Duration), len(endpoints.paths)+len(endpoints.methods)),
		other: instrument(OtherEndpoint)}
	for p := range endpoints.paths {
		t.byName[p] = instrument(p)
	}
	for m := range endpoints.methods {
		t.byName[m] = instrument(m)
	}
	return t
}

// EndpointNames are the names Config.Instrument is asked for: every
// registered path and JSON-RPC method, and OtherEndpoint.
func EndpointNames() []string {
	names := []string{OtherEndpoint}
	for p := range endpoints.paths {
		names = append(names, p)
	}
	for m := range endpoints.methods {
		names = append(names, m)
	}
	return names
}

// path is the observer of a registered path (nil when not instrumented).
func (t *endpointTimers) path(p string) func(time.Duration) {
	if t == nil {
		return nil
	}
	return t.byName[p]
}

// method is the observer of a JSON-RPC request object's method: the
// method's own when it names a registered one, else other. A map lookup,
// no allocation.
func (t *endpointTimers) method(req epeejson.Value) func(time.Duration) {
	if mv, ok := req.Get("method"); ok && mv.Kind == epeejson.KindString {
		if f, ok := t.byName[mv.Str]; ok {
			return f
		}
	}
	return t.other
}
