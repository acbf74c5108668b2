package rpc

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/gonero/gonero/httpd"
)

// The endpoint registry. Every endpoint, under each of monerod's names for
// it, is declared once in its family's table (one function per family file:
// walletSyncEndpoints, miningEndpoints, ...), together with what a
// restricted listener does with it; endpointTables lists the families, and
// buildRegistry, called once below, is the only way in. There is no
// default: an entry whose access is not declared is refused, so a new
// endpoint cannot be open on a restricted listener by being forgotten
// (TestEveryEndpointDeclaresItsAccess; New refuses to start). The caps a
// restricted listener applies are in restricted.go.

// access is what a restricted listener (monerod --restricted-rpc,
// --rpc-restricted-bind-port) does with an endpoint. The zero value declares
// nothing and the registry refuses it.
type access uint8

const (
	accessUndeclared access = iota
	// accessPublic: served alike on every listener.
	accessPublic
	// accessCapped: served on a restricted listener, which applies monerod's
	// caps (restricted.go) or leaves out what only the operator may see; the
	// handler reads Request.Restricted or call.restricted.
	accessCapped
	// accessRefused: not served on a restricted listener, where it is an
	// unknown path (404) or method (-32601): core_rpc_server.h's
	// MAP_URI_AUTO_*_IF and MAP_JON_RPC_*_IF with !m_restricted.
	accessRefused
	accessEnd // first invalid value
)

func (a access) String() string {
	switch a {
	case accessPublic:
		return "public"
	case accessCapped:
		return "capped"
	case accessRefused:
		return "refused"
	}
	return fmt.Sprintf("access(%d)", uint8(a))
}

// pathHandler answers one plain-path endpoint (/get_info, /getblocks.bin, ...).
type pathHandler func(s *Server, req *httpd.Request) httpd.Response

// endpoint is one entry of a family's table: a plain path or a JSON-RPC
// method, under every name monerod gives it.
type endpoint struct {
	// names are monerod's names, aliases included: paths ("/getblocks.bin",
	// "/get_blocks.bin") or JSON-RPC method names ("getblock", "get_block").
	names  []string
	access access
	// Exactly one of path and method is set.
	path   pathHandler
	method handler
	// noClient: a JSON-RPC request without the RPC-payment "client" member
	// (its type is rpc_request_base, or has no base: get_connections).
	noClient bool
	// deepParams: the method reads an array or object inside its params,
	// or params given as an array (the requests monerod loads from one), so
	// its request is parsed whole; every other method is served from
	// epeejson.ParseShallow(body, "params"), where only params' scalars
	// are built (a megabyte of params it never reads costs a scan, not
	// ~100 bytes a value: issue 33). A handler that reads an array or
	// object of its params must declare this, or it sees them empty.
	deepParams bool
}

// registry is the built registry: every name, bound to its entry.
type registry struct {
	paths   map[string]*endpoint
	methods map[string]*endpoint
}

// endpointTables are the families' tables: the one list the registry is
// built from.
func endpointTables() [][]endpoint {
	return [][]endpoint{
		infoEndpoints(),         // server.go
		methodsEndpoints(),      // methods.go
		forksEndpoints(),        // forks.go
		miningEndpoints(),       // mining.go
		operatorEndpoints(),     // operator.go
		poolInfoEndpoints(),     // poolinfo.go
		sendRawTxEndpoints(),    // sendrawtx.go
		transactionsEndpoints(), // transactions.go
		walletSyncEndpoints(),   // walletsync.go
	}
}

// endpoints is the registry of every server; errEndpoints says what is wrong
// with the tables, if anything, and then New refuses to start.
var endpoints, errEndpoints = buildRegistry(endpointTables()...)

// buildRegistry binds every name of every entry of tables. It refuses an
// entry that declares no access (or one it does not know), has no handler
// or two, has no names, has a name of the wrong kind, or reuses a name; the
// error lists every such entry, and the registry holds the others.
func buildRegistry(tables ...[]endpoint) (*registry, error) {
	r := &registry{paths: map[string]*endpoint{}, methods: map[string]*endpoint{}}
	var errs []error
	for _, table := range tables {
		for i := range table {
			e := &table[i]
			if err := e.check(); err != nil {
				errs = append(errs, err)
				continue
			}
			into := r.methods
			if e.path != nil {
				into = r.paths
			}
			for _, n := range e.names {
				if _, dup := into[n]; dup {
					errs = append(errs, fmt.Errorf("rpc: endpoint %s registered twice", n))
					continue
				}
				into[n] = e
			}
		}
	}
	return r, errors.Join(errs...)
}

// check says what is wrong with an entry on its own.
func (e *endpoint) check() error {
	name := strings.Join(e.names, " ")
	switch {
	case len(e.names) == 0:
		return errors.New("rpc: endpoint without a name")
	case e.access == accessUndeclared:
		return fmt.Errorf("rpc: endpoint %s declares no restricted-listener access", name)
	case e.access >= accessEnd:
		return fmt.Errorf("rpc: endpoint %s declares an unknown access %v", name, e.access)
	case (e.path == nil) == (e.method == nil):
		return fmt.Errorf("rpc: endpoint %s needs exactly one of a path and a method handler", name)
	case e.path != nil && e.noClient:
		return fmt.Errorf("rpc: path %s: noClient is for JSON-RPC methods", name)
	}
	for _, n := range e.names {
		isPath := strings.HasPrefix(n, "/")
		switch {
		case n == "" || n == "/":
			return fmt.Errorf("rpc: endpoint %s has an empty name", name)
		case e.path != nil && !isPath:
			return fmt.Errorf("rpc: path %s does not begin with /", n)
		case e.method != nil && isPath:
			return fmt.Errorf("rpc: method %s begins with /", n)
		case n == "/json_rpc":
			return errors.New("rpc: /json_rpc is the JSON-RPC envelope, not a path endpoint")
		}
	}
	return nil
}

// allowed says whether a listener may run the JSON-RPC method e (nil: no
// such method).
func (e *endpoint) allowed(restricted bool) bool {
	return e != nil && (!restricted || e.access != accessRefused)
}

// routes are the httpd routes of a server: every registered path, bound to s.
func (s *Server) routes() map[string]httpd.Route {
	r := make(map[string]httpd.Route, len(endpoints.paths)+1)
	r["/json_rpc"] = s.serveJSONRPC
	for p, e := range endpoints.paths {
		r[p] = s.pathRoute(p, e)
	}
	return r
}

// pathRoute applies e's restricted-listener access before its handler.
func (s *Server) pathRoute(path string, e *endpoint) httpd.Route {
	refused, h := e.access == accessRefused, e.path
	observe := s.timers.path(path) // bound once, not per request
	bin := strings.HasSuffix(path, ".bin")
	return func(req *httpd.Request) httpd.Response {
		began := time.Now()
		if refused && req.Restricted {
			if observe != nil {
				observe(time.Since(began))
			}
			return notFound()
		}
		if bin && !req.Reserve(binParseBytes(len(req.Body))) {
			// The decoded form of an epee body is claimed before it is
			// decoded (answerbudget.go).
			if observe != nil {
				observe(time.Since(began))
			}
			return s.busyAnswer(req)
		}
		resp := h(s, req)
		if resp.Status == 0 || resp.Status == 200 {
			s.track(path, began) // rpc_access_tracking
		}
		if observe != nil {
			observe(time.Since(began))
		}
		return resp
	}
}

// notFound is monerod's answer to a path it does not serve (or does not
// serve on this listener).
func notFound() httpd.Response {
	return httpd.Response{Status: 404, ContentType: "text/plain"}
}

// badRequest is epee's answer to a body it cannot load into the request
// type (unparsable, or a member of the wrong type): an empty 400.
func badRequest() httpd.Response { return httpd.Response{Status: 400, ContentType: "text/plain"} }
