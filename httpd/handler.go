package httpd

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"runtime/debug"
	"strconv"
	"strings"
	"time"
)

// tooLargeBody is the body of our 413 (epee closes without answering).
var tooLargeBody = []byte("Request Entity Too Large\n")

// Constant header values, shared by all responses to save allocations
// (net/http only reads them).
var (
	serverValue            = []string{"Epee-based"}
	acceptRangesValue      = []string{"bytes"}
	connectionCloseValue   = []string{"close"}
	exposeHeadersValue     = []string{"www-authenticate"}
	allowHeadersValue      = []string{"Content-Type, Authorization, X-Requested-With"}
	allowMethodsValue      = []string{"POST, PUT, GET, OPTIONS"}
	contentTypeJSONValue   = []string{"application/json"}
	contentLengthZeroValue = []string{"0"}
)

// serveHTTP answers one request the way epee's http_protocol_handler and
// http_custom_handler do: size limit, then OPTIONS (never authenticated),
// then digest authentication, then exact-target routing.
func (s *Server) serveHTTP(w http.ResponseWriter, r *http.Request) {
	method := strings.ToUpper(r.Method)
	if !epeeMethod(method) {
		// epee's request-line parser knows only these verbs and drops the
		// connection on anything else, without a response.
		panic(http.ErrAbortHandler)
	}
	isHead := method == http.MethodHead

	body, err := s.readBody(w, r)
	switch {
	case errors.Is(err, errTooLarge):
		s.write(w, r, isHead, Response{Status: http.StatusRequestEntityTooLarge, ContentType: "text/plain", Body: tooLargeBody, Close: true})
		return
	case err != nil:
		// A read timeout, a client that went away, broken chunked coding:
		// nothing sensible can be answered, so hang up like epee does.
		s.log.Debug("httpd: reading request body failed", "remote", r.RemoteAddr, "err", err)
		panic(http.ErrAbortHandler)
	}

	if method == http.MethodOptions {
		// epee answers every OPTIONS with "200 OK", an empty body and no
		// Content-Type, before and without authentication (CORS preflight).
		s.write(w, r, isHead, Response{})
		return
	}

	if s.auth != nil {
		sess, _ := r.Context().Value(connAuthKey{}).(*authSession)
		if sess == nil { // cannot happen: ConnContext sets it whenever auth is on
			sess = new(authSession)
		}
		if challenges := s.auth.authenticate(sess, r.Method, r.RequestURI, r.Header["Authorization"]); challenges != nil {
			w.Header()[wwwAuthenticateHeader] = challenges
			s.write(w, r, isHead, Response{Status: http.StatusUnauthorized, ContentType: "text/html", Body: []byte(unauthorizedBody)})
			return
		}
	}

	// epee compares the whole request target with the registered URIs,
	// case-sensitively: "/json_rpc?x=1", "/json_rpc/", "/JSON_RPC" are 404.
	route, ok := s.routes[r.RequestURI]
	if !ok {
		s.write(w, r, isHead, Response{Status: http.StatusNotFound, ContentType: "text/plain"})
		return
	}
	resp := s.call(route, &Request{
		HTTPMethod: method,
		Path:       r.RequestURI,
		Body:       body,
		Restricted: s.cfg.Restricted,
		RemoteAddr: r.RemoteAddr,
	})
	s.write(w, r, isHead, resp)
}

// epeeMethod reports whether epee's request-line parser accepts the verb
// (it matches them case-insensitively).
func epeeMethod(m string) bool {
	switch m {
	case http.MethodOptions, http.MethodGet, http.MethodHead, http.MethodPost,
		http.MethodPut, http.MethodDelete, http.MethodTrace:
		return true
	}
	return false
}

// call runs a route; a panic becomes epee's answer to a failed handler:
// 500, empty body, connection closed.
func (s *Server) call(route Route, req *Request) (resp Response) {
	defer func() {
		v := recover()
		if v == nil {
			return
		}
		if v == http.ErrAbortHandler {
			panic(v)
		}
		s.log.Error("httpd: route panicked", "path", req.Path, "remote", req.RemoteAddr,
			"panic", fmt.Sprint(v), "stack", string(debug.Stack()))
		resp = Response{Status: http.StatusInternalServerError, ContentType: "text/plain", Close: true}
	}()
	resp = route(req)
	if resp.Status == 0 {
		resp.Status = http.StatusOK
	}
	if resp.Status < 200 || resp.Status > 999 {
		s.log.Error("httpd: route returned an invalid status", "path", req.Path, "status", resp.Status)
		resp = Response{Status: http.StatusInternalServerError, ContentType: "text/plain", Close: true}
	}
	return resp
}

var errTooLarge = errors.New("request too large")

// readBody reads the whole body within the request limit, which (as
// monerod's MAX_RPC_CONTENT_LENGTH) counts request line, headers and body
// together. A declared Content-Length over the limit is refused before a
// single body byte is read; a chunked body is cut off at the limit.
func (s *Server) readBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	room := s.cfg.MaxRequestBytes - requestHeadBytes(r)
	switch {
	case room < 0 || r.ContentLength > room:
		return nil, errTooLarge
	case r.ContentLength == 0:
		return nil, nil
	case r.ContentLength > 0:
		body := make([]byte, r.ContentLength)
		if _, err := io.ReadFull(r.Body, body); err != nil {
			return nil, err
		}
		return body, nil
	}
	// Unknown length: chunked. MaxBytesReader also tells net/http to close
	// the connection when the limit is hit.
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, room))
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return nil, errTooLarge
	}
	return body, err
}

// requestHeadBytes is the size of the request line and header section as
// sent in the usual layout ("Name: value" CRLF), reconstructed from the
// parsed request: net/http does not expose the raw byte count. Host and the
// framing headers net/http takes out of Header are added back.
func requestHeadBytes(r *http.Request) int64 {
	n := len(r.Method) + 1 + len(r.RequestURI) + 1 + len(r.Proto) + 2
	if r.Host != "" {
		n += len("Host: ") + len(r.Host) + 2
	}
	for name, values := range r.Header {
		for _, v := range values {
			n += len(name) + 2 + len(v) + 2
		}
	}
	if len(r.TransferEncoding) > 0 {
		n += len("Transfer-Encoding: chunked\r\n")
	}
	return int64(n + 2)
}

// write sends resp with epee's headers: Server, Content-Length,
// Content-Type (only if set), Last-Modified (now), Accept-Ranges,
// Connection: close (only if the request asked for it or the connection is
// to be closed), CORS headers when the Origin is allowed, and no Date.
func (s *Server) write(w http.ResponseWriter, r *http.Request, isHead bool, resp Response) {
	if resp.Status == 0 {
		resp.Status = http.StatusOK
	}
	h := w.Header()
	h["Server"] = serverValue
	if len(resp.Body) == 0 {
		h["Content-Length"] = contentLengthZeroValue
	} else {
		h["Content-Length"] = []string{strconv.Itoa(len(resp.Body))}
	}
	switch resp.ContentType {
	case "application/json":
		h["Content-Type"] = contentTypeJSONValue
	case "":
		h["Content-Type"] = nil // nil suppresses net/http's content sniffing
	default:
		h["Content-Type"] = []string{resp.ContentType}
	}
	h["Last-Modified"] = []string{time.Now().UTC().Format(http.TimeFormat)}
	h["Accept-Ranges"] = acceptRangesValue
	h["Date"] = nil // epee sends no Date; nil suppresses net/http's
	if resp.Close || headerHasToken(r.Header["Connection"], "close") {
		// Also makes net/http close after the response (epee closes after
		// "Connection: close" and after any 500).
		h["Connection"] = connectionCloseValue
	} else {
		// Present-but-nil keeps net/http from adding "Connection:
		// keep-alive" to HTTP/1.0 keep-alive answers (epee adds nothing);
		// net/http still writes "Connection: close" when it decides to
		// close for its own reasons.
		h["Connection"] = nil
	}
	s.addCORS(h, r)
	w.WriteHeader(resp.Status)
	if !isHead && len(resp.Body) > 0 {
		_, _ = w.Write(resp.Body)
	}
}

// addCORS adds epee's CORS headers when the request's Origin is one of the
// configured origins or "*" is configured. The Origin is echoed (never
// "*"). As in epee's get_response_header, Access-Control-Allow-Methods goes
// with every matching response and Access-Control-Allow-Headers only with
// OPTIONS. 401 answers get them too, so that a browser can read the
// challenge.
func (s *Server) addCORS(h http.Header, r *http.Request) {
	origin := r.Header.Get("Origin")
	if origin == "" || !s.originAllowed(origin) {
		return
	}
	h["Access-Control-Allow-Origin"] = []string{origin}
	h["Access-Control-Expose-Headers"] = exposeHeadersValue
	if strings.EqualFold(r.Method, http.MethodOptions) {
		h["Access-Control-Allow-Headers"] = allowHeadersValue
	}
	h["Access-Control-Allow-Methods"] = allowMethodsValue
}

func (s *Server) originAllowed(origin string) bool {
	if s.anyOrig {
		return true
	}
	for _, o := range s.origins {
		if o == origin {
			return true
		}
	}
	return false
}

// headerHasToken reports whether a comma-separated header contains token
// (case-insensitively), the way net/http itself reads "Connection".
func headerHasToken(values []string, token string) bool {
	for _, v := range values {
		for _, part := range strings.Split(v, ",") {
			if strings.EqualFold(strings.TrimSpace(part), token) {
				return true
			}
		}
	}
	return false
}
