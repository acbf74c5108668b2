package httpd

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"runtime/debug"
	"slices"
	"sync/atomic"
	"time"

	"github.com/valyala/fasthttp"
)

// tooLargeBody is the body of our 413 (epee closes without answering).
var tooLargeBody = []byte("Request Entity Too Large\n")

// Header names and constant values, as byte slices so that setting them
// costs no conversion.
var (
	hdrLastModified       = []byte("Last-Modified")
	hdrAcceptRanges       = []byte("Accept-Ranges")
	hdrAllowOrigin        = []byte("Access-Control-Allow-Origin")
	hdrExposeHeaders      = []byte("Access-Control-Expose-Headers")
	hdrAllowHeaders       = []byte("Access-Control-Allow-Headers")
	hdrAllowMethods       = []byte("Access-Control-Allow-Methods")
	valBytes              = []byte("bytes")
	valExposeHeaders      = []byte("www-authenticate")
	valAllowHeaders       = []byte("Content-Type, Authorization, X-Requested-With")
	valAllowMethods       = []byte("POST, PUT, GET, OPTIONS")
	protoHTTP11           = []byte("HTTP/1.1")
	tokenClose            = []byte("close")
	hdrConnectionLower    = []byte("connection")
	unauthorizedBodyBytes = []byte(unauthorizedBody)
)

// handle answers one request the way epee's http_protocol_handler and
// http_custom_handler do: size limit, then OPTIONS (never authenticated),
// then digest authentication, then exact-target routing.
func (s *Server) handle(ctx *fasthttp.RequestCtx) {
	cc := connOf(ctx.Conn())
	if cc == nil { // cannot happen: every connection comes from limitListener
		cc = &countedConn{}
	}
	if !cc.claim() {
		// On probation at the cap, and no slot came (probation.go): it is
		// refused, as monerod refuses a connection over its limit.
		dropConnection(ctx)
		return
	}
	cc.markServing()
	defer func() {
		if ctx.Request.Header.ConnectionClose() || ctx.Response.ConnectionClose() {
			cc.markLastAnswer()
		}
		cc.markWriting()
	}()
	method, ok := epeeVerb(ctx.Method())
	if !ok {
		// epee's request-line parser knows only these verbs and drops the
		// connection on anything else, without a response.
		dropConnection(ctx)
		return
	}
	if !epeeHeaderLines(ctx.Request.Header.RawHeaders()) {
		// monerod 0.18.5.3's header parser closes the connection without
		// a word; we say 400 first, as for any other malformed head.
		s.log.Debug("httpd: malformed header line", "remote", ctx.RemoteAddr().String())
		s.write(ctx, Response{Status: 400, ContentType: "text/plain", Close: true})
		return
	}
	body := ctx.PostBody()
	if requestHeadBytes(&ctx.Request.Header)+int64(len(body)) > s.cfg.MaxRequestBytes {
		// Only a head alone over the limit gets here: headerReceived
		// bounded the body by what the head left.
		s.tooLarge(ctx, cc)
		return
	}

	if method == "OPTIONS" {
		// epee answers every OPTIONS with "200 OK", an empty body and no
		// Content-Type, before and without authentication (CORS preflight).
		s.write(ctx, Response{})
		return
	}

	if s.auth != nil {
		authz := ctx.Request.Header.Peek("Authorization")
		challenges := s.auth.authenticate(&cc.auth, method, string(ctx.RequestURI()), string(authz), authz != nil)
		if challenges != nil {
			// epee's spelling of the name: not normalised.
			h := &ctx.Response.Header
			h.DisableNormalizing()
			h.Set(wwwAuthenticateHeader, challenges[0])
			h.Add(wwwAuthenticateHeader, challenges[1])
			s.write(ctx, Response{Status: 401, ContentType: "text/html", Body: unauthorizedBodyBytes})
			return
		}
	}

	// epee compares the whole request target with the registered URIs,
	// case-sensitively: "/json_rpc?x=1", "/json_rpc/", "/JSON_RPC" are 404.
	rt, ok := s.routes[string(ctx.RequestURI())]
	if !ok {
		s.write(ctx, Response{Status: 404, ContentType: "text/plain"})
		return
	}
	req := &cc.req
	*req = Request{
		HTTPMethod: method,
		Path:       rt.path,
		Body:       body,
		Restricted: s.cfg.Restricted,
		RemoteAddr: cc.remoteAddr(),
		conn:       cc,
		memory:     s.cfg.Memory,
	}
	// A pipelined request comes before the connection reads again: what
	// the previous one held is written (or queued in the write buffer).
	cc.releaseMemory()
	var resp Response
	if !cc.grow(s.cfg.Memory, int64(len(body))) {
		// The memory budget has no room for this body: the busy answer,
		// without running the route.
		s.guard.memoryRefused.Add(1)
		s.guard.pressure()
		resp = s.busy(req)
	} else {
		resp = s.serveMetered(rt.fn, req, cc)
		if !s.claimAnswer(req, cc, &resp) {
			resp = s.busy(req)
		}
	}
	*req = Request{} // drop the references to the request buffers
	s.write(ctx, resp)
}

// epeeHeaderLines reports whether every header line passes the stricter
// parser of monerod 0.18.5.3 (http_base.h parse_header_line): no line
// starts with a space or tab (no folding), each has a colon after a
// non-empty name, and the name holds token characters only (isTokenChar:
// letters, digits and !#$%&'*+-.^_`|~). fasthttp reads some of these
// leniently ("Bad Name: x"); epee, until 0.18.4, read them too.
func epeeHeaderLines(raw []byte) bool {
	for len(raw) > 0 {
		line := raw
		if i := bytes.IndexByte(raw, '\n'); i >= 0 {
			line, raw = raw[:i], raw[i+1:]
		} else {
			raw = nil
		}
		line = bytes.TrimSuffix(line, []byte("\r"))
		if len(line) == 0 {
			return true // the blank line that ends the section
		}
		if line[0] == ' ' || line[0] == '\t' {
			return false
		}
		colon := bytes.IndexByte(line, ':')
		if colon <= 0 {
			return false
		}
		for _, c := range line[:colon] {
			if !isTokenChar(c) {
				return false
			}
		}
	}
	return true
}

// epeeVerb maps the request's verb to its upper-case name if epee's
// request-line parser accepts it (it matches verbs case-insensitively).
// The names are constants: no allocation.
func epeeVerb(m []byte) (string, bool) {
	for _, v := range [...]string{"POST", "GET", "OPTIONS", "HEAD", "PUT", "DELETE", "TRACE"} {
		if len(m) == len(v) && equalFoldASCII(m, v) {
			return v, true
		}
	}
	return "", false
}

func equalFoldASCII(b []byte, s string) bool {
	for i := 0; i < len(b); i++ {
		c := b[i]
		if 'a' <= c && c <= 'z' {
			c -= 'a' - 'A'
		}
		if c != s[i] {
			return false
		}
	}
	return true
}

// connOf finds the admitted connection under c: c itself, or the
// connection a wrapper (TLS) reads from.
func connOf(c net.Conn) *countedConn {
	for range 4 {
		switch x := c.(type) {
		case *countedConn:
			return x
		case interface{ NetConn() net.Conn }:
			c = x.NetConn()
		default:
			return nil
		}
	}
	return nil
}

// dropConnection closes the connection without a response.
func dropConnection(ctx *fasthttp.RequestCtx) {
	ctx.HijackSetNoResponse(true)
	ctx.Hijack(func(net.Conn) {}) // fasthttp closes the connection when this returns
}

// call runs a route; a panic becomes epee's answer to a failed handler:
// 500, empty body, connection closed.
func (s *Server) call(fn Route, req *Request) (resp Response) {
	defer func() {
		v := recover()
		if v == nil {
			return
		}
		s.log.Error("httpd: route panicked", "path", req.Path, "remote", req.RemoteAddr,
			"panic", fmt.Sprint(v), "stack", string(debug.Stack()))
		resp = Response{Status: 500, ContentType: "text/plain", Close: true}
	}()
	resp = fn(req)
	if resp.Status == 0 {
		resp.Status = 200
	}
	if resp.Status < 200 || resp.Status > 999 {
		s.log.Error("httpd: route returned an invalid status", "path", req.Path, "status", resp.Status)
		resp = Response{Status: 500, ContentType: "text/plain", Close: true}
	}
	return resp
}

// headerReceived runs once a request's head is in, before its body is
// read. It bounds the body by what MaxRequestBytes leaves after the head
// (monerod's MAX_RPC_CONTENT_LENGTH counts both), gives the body its own
// ReadTimeout, and makes an HTTP/1.0 request behave as epee treats one:
// as HTTP/1.1, kept open unless it says "Connection: close".
func (s *Server) headerReceived(h *fasthttp.RequestHeader) fasthttp.RequestConfig {
	room := s.cfg.MaxRequestBytes - requestHeadBytes(h)
	if room < 1 {
		room = 1 // the handler refuses the request; a body need not be read
	}
	if !h.IsHTTP11() {
		explicitClose := h.ConnectionClose() && headerHasToken(h.RawHeaders(), hdrConnectionLower, tokenClose)
		h.SetProtocolBytes(protoHTTP11)
		if !explicitClose {
			h.ResetConnectionClose()
		}
	}
	if cl := int64(h.ContentLength()); cl > 0 && cl <= room && !s.bodyFits(cl) {
		// The memory budget has no room for this body now: refused before
		// it is read, as a body over the limit (the handler answers 413).
		s.guard.memoryRefused.Add(1)
		s.guard.pressure()
		room = min(room, cl-1)
	}
	conf := fasthttp.RequestConfig{MaxRequestBodySize: int(min(room, int64(maxInt)))}
	if cl := h.ContentLength(); (cl > 0 || cl == -1) && s.cfg.ReadTimeout > 0 {
		conf.ReadTimeout = s.cfg.ReadTimeout
	}
	return conf
}

const maxInt = int(^uint(0) >> 1)

// requestHeadBytes is the size of the request line and header section as
// received: fasthttp keeps the raw header lines (with the blank line that
// ends them).
func requestHeadBytes(h *fasthttp.RequestHeader) int64 {
	line := len(h.Method()) + 1 + len(h.RequestURI()) + 1 + len("HTTP/1.1") + 2
	return int64(line + len(h.RawHeaders()))
}

// headerHasToken reports whether a raw header section has a header named
// name (lower case) whose comma-separated value contains token
// (case-insensitively).
func headerHasToken(raw, name, token []byte) bool {
	for len(raw) > 0 {
		line := raw
		if i := bytes.IndexByte(raw, '\n'); i >= 0 {
			line, raw = raw[:i], raw[i+1:]
		} else {
			raw = nil
		}
		k, v, ok := bytes.Cut(line, []byte(":"))
		if !ok || !bytes.EqualFold(bytes.TrimSpace(k), name) {
			continue
		}
		for _, part := range bytes.Split(v, []byte(",")) {
			if bytes.EqualFold(bytes.TrimSpace(part), token) {
				return true
			}
		}
	}
	return false
}

// handleError answers a request fasthttp could not read. A body over the
// limit gets our 413; a malformed request 400; a header section over
// MaxHeaderBytes, a timeout or a client that went away gets nothing, the
// connection is closed, as epee does.
func (s *Server) handleError(ctx *fasthttp.RequestCtx, err error) {
	cc := connOf(ctx.Conn())
	var small *fasthttp.ErrSmallBuffer
	var netErr net.Error
	switch {
	case errors.Is(err, fasthttp.ErrBodyTooLarge):
		if cc != nil {
			s.tooLarge(ctx, cc)
			return
		}
	case errors.As(err, &small), errors.As(err, &netErr), errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
	default:
		s.log.Debug("httpd: malformed request", "remote", ctx.RemoteAddr().String(), "err", err)
		s.write(ctx, Response{Status: 400, ContentType: "text/plain", Close: true})
		return
	}
	// Closed now, fasthttp's own error answer goes nowhere.
	_ = ctx.Conn().Close()
}

// tooLarge answers 413 and closes the connection once the answer is out
// (discarding, for a moment, the body the client may still be sending).
func (s *Server) tooLarge(ctx *fasthttp.RequestCtx, cc *countedConn) {
	cc.drainOnClose = true
	s.write(ctx, Response{Status: 413, ContentType: "text/plain", Body: tooLargeBody, Close: true})
}

// write sends resp with epee's headers: Server (fasthttp's Name),
// Content-Length, Content-Type (only if set), Last-Modified (now),
// Accept-Ranges, Connection: close (only if the request asked for it or the
// connection is to be closed), CORS headers when the Origin is allowed, and
// no Date.
func (s *Server) write(ctx *fasthttp.RequestCtx, resp Response) {
	r := &ctx.Response
	if resp.Status == 0 {
		resp.Status = 200
	}
	r.SetStatusCode(resp.Status)
	if resp.ContentType != "" {
		r.Header.SetContentType(resp.ContentType)
	}
	r.Header.SetCanonical(hdrLastModified, lastModified())
	r.Header.SetCanonical(hdrAcceptRanges, valBytes)
	if resp.Close {
		ctx.SetConnectionClose()
	}
	s.addCORS(ctx)
	// The body is written as it is (no copy); for HEAD fasthttp writes its
	// Content-Length and skips it.
	if resp.Parts != nil && !ctx.IsHead() {
		// A stream of known length: Content-Length as for a body, and
		// net.Buffers writes each part straight to the connection's
		// writer. (fasthttp would announce a stream's length as 0 to a
		// HEAD request, which gets the parts joined below.)
		// (A copy of the list: writing consumes a net.Buffers, which
		// shortens its elements, and the route's list may be shared.)
		parts := net.Buffers(slices.Clone(resp.Parts))
		r.SetBodyStream(&parts, resp.Len())
		return
	}
	if resp.Parts != nil {
		resp.Body = bytes.Join(resp.Parts, nil)
	}
	r.SetBodyRaw(resp.Body)
}

// addCORS adds epee's CORS headers when the request's Origin is one of the
// configured origins or "*" is configured. The Origin is echoed (never
// "*"). As in epee's get_response_header, Access-Control-Allow-Methods goes
// with every matching response and Access-Control-Allow-Headers only with
// OPTIONS. 401 answers get them too, so that a browser can read the
// challenge.
func (s *Server) addCORS(ctx *fasthttp.RequestCtx) {
	if s.origins == nil {
		return
	}
	origin := ctx.Request.Header.Peek("Origin")
	if len(origin) == 0 || !s.originAllowed(origin) {
		return
	}
	h := &ctx.Response.Header
	h.SetCanonical(hdrAllowOrigin, origin)
	h.SetCanonical(hdrExposeHeaders, valExposeHeaders)
	if ctx.IsOptions() {
		h.SetCanonical(hdrAllowHeaders, valAllowHeaders)
	}
	h.SetCanonical(hdrAllowMethods, valAllowMethods)
}

func (s *Server) originAllowed(origin []byte) bool {
	if s.anyOrig {
		return true
	}
	for _, o := range s.origins {
		if string(origin) == o {
			return true
		}
	}
	return false
}

// lastModified is the Last-Modified value epee sends: the current time in
// HTTP format. It is formatted once per second and shared (fasthttp copies
// header values), so a response costs no formatting.
func lastModified() []byte {
	now := time.Now().Unix()
	if c := lastModifiedCache.Load(); c != nil && c.unix == now {
		return c.value
	}
	c := &stamp{unix: now, value: time.Unix(now, 0).UTC().AppendFormat(nil, "Mon, 02 Jan 2006 15:04:05 GMT")}
	lastModifiedCache.Store(c)
	return c.value
}

type stamp struct {
	unix  int64
	value []byte
}

var lastModifiedCache atomic.Pointer[stamp]
