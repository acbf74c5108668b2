package rpc

import (
	"fmt"
	"time"

	"github.com/gonero/gonero/httpd"
)

// Endpoint registry. Each endpoint family (one file per family: wallet sync,
// transactions, mining, operators, ...) registers its handlers from an init
// function; the server builds its routes from these tables. Which of them a
// restricted listener refuses is decided in restricted.go only.

// pathHandler answers one plain-path endpoint (/get_info, /getblocks.bin, ...).
type pathHandler func(s *Server, req *httpd.Request) httpd.Response

// pathHandlers maps every path monerod serves, aliases included, to its
// handler.
var pathHandlers = map[string]pathHandler{}

// methods maps every JSON-RPC method name monerod accepts to its handler;
// the aliases are distinct registrations of one handler there too.
var methods = map[string]method{}

// registerPath registers h under each of paths (monerod's aliases).
func registerPath(h pathHandler, paths ...string) {
	for _, p := range paths {
		if _, dup := pathHandlers[p]; dup {
			panic(fmt.Sprintf("rpc: path %s registered twice", p))
		}
		pathHandlers[p] = h
	}
}

// registerMethod registers m under each of names (monerod's aliases).
func registerMethod(m method, names ...string) {
	for _, n := range names {
		if _, dup := methods[n]; dup {
			panic(fmt.Sprintf("rpc: method %s registered twice", n))
		}
		methods[n] = m
	}
}

// routes are the httpd routes of a server: every registered path, bound to s.
func (s *Server) routes() map[string]httpd.Route {
	r := make(map[string]httpd.Route, len(pathHandlers)+1)
	r["/json_rpc"] = s.serveJSONRPC
	for p, h := range pathHandlers {
		r[p] = s.pathRoute(p, h)
	}
	return r
}

// pathRoute applies the restricted-listener rule of path before h.
func (s *Server) pathRoute(path string, h pathHandler) httpd.Route {
	refused := restrictedRefusedPaths[path]
	observe := s.timers.path(path) // bound once, not per request
	return func(req *httpd.Request) httpd.Response {
		began := time.Now()
		if refused && req.Restricted {
			if observe != nil {
				observe(time.Since(began))
			}
			return notFound()
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
