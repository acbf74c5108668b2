// Package httpd is the HTTP front of the RPC server: it answers like the
// HTTP server of monerod v0.18 (epee's http_protocol_handler and
// http_server_impl_base) on top of net/http. It routes by exact request
// target, adds epee's response headers, enforces the request-size and
// connection limits, HTTP digest authentication (--rpc-login) and CORS
// (--rpc-access-control-origins). It knows nothing about JSON-RPC: routes
// turn a Request into a Response.
//
// Where net/http does not let us answer byte-for-byte like epee, the
// difference is deliberate and listed here:
//
//   - Status lines carry Go's reason phrases ("200 OK", "404 Not Found")
//     and headers are written in Go's (sorted) order; epee says "200 Ok",
//     "404 Not found". Clients look at codes, not phrases.
//   - An HTTP/1.0 request without "Connection: keep-alive" is answered with
//     an "HTTP/1.0" status line and the connection is closed afterwards;
//     epee answers "HTTP/1.1" and keeps it open. net/http has no switch for
//     this. With "Connection: keep-alive" the connection stays open, as in
//     epee, and (like epee) no Connection header is sent.
//   - A request larger than MaxRequestBytes gets "413 Request Entity Too
//     Large" before the connection is closed; epee closes without a word.
//   - A header section larger than MaxHeaderBytes (100,000 bytes, epee's
//     limit; net/http allows 4,096 bytes of slack on top) is answered by
//     net/http itself with "431 Request Header Fields Too Large" and the
//     connection is closed; epee closes without a response. Those 431 and
//     net/http's other early errors (400 for a malformed request or a
//     missing Host header on HTTP/1.1, 501 for an unknown
//     Transfer-Encoding) carry net/http's headers, not epee's.
//   - "Transfer-Encoding: chunked" request bodies are decoded (bounded by
//     MaxRequestBytes) and the connection stays usable; epee ignores the
//     chunks (empty body) and then closes the connection.
//   - Pipelined requests are all answered in order; epee v0.18.0.0 answers
//     the second only once more bytes arrive.
//   - Inactivity limits are net/http's timeouts (see Config), not epee's
//     10 s/120 s first-response and 300 s/1800 s idle limits.
//   - Digest authentication additionally requires the credential's "uri"
//     to be the request target (RFC 2617 section 3.2.2.5), ignores unknown
//     directives (RFC 7616) and accepts only the algorithms it advertises.
package httpd

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Request is what a route sees.
type Request struct {
	HTTPMethod string // GET, POST, ... (upper case)
	Path       string // exact request target as received (no normalisation)
	Body       []byte // full body (at most Config.MaxRequestBytes)
	Restricted bool   // the listener's restriction flag
	RemoteAddr string
}

// Response is what a route returns. Status 0 means 200. The server adds the
// monerod headers.
type Response struct {
	Status      int
	ContentType string // "" for none
	Body        []byte
	Close       bool // close the connection after the response (monerod does after a 500)
}

// Route answers one request. A panic in a route is answered with 500 and a
// closed connection; the server keeps serving.
type Route func(req *Request) Response

// Defaults for the zero values of Config.
const (
	// DefaultMaxRequestBytes is monerod's MAX_RPC_CONTENT_LENGTH (1 MiB),
	// applied to every core RPC server in all v0.18 tags.
	DefaultMaxRequestBytes = 1 << 20
	// DefaultMaxConnections is monerod's --rpc-max-connections default.
	DefaultMaxConnections = 100
	// DefaultMaxConnectionsPerIP is monerod's
	// --rpc-max-connections-per-private-ip default (the captures were made
	// on loopback, where the 26th connection was closed at once).
	DefaultMaxConnectionsPerIP = 25
	// DefaultReadHeaderTimeout bounds the time a client may take to send a
	// request line and headers (slowloris). monerod allows a fresh remote
	// connection 10 s to produce a response.
	DefaultReadHeaderTimeout = 10 * time.Second
	// DefaultReadTimeout bounds the time to read a whole request (headers
	// and body): 1 MiB in 30 s is ~35 kB/s, enough for any real client.
	DefaultReadTimeout = 30 * time.Second
	// DefaultWriteTimeout bounds the time from the end of the request
	// headers until the response is written, so it also bounds the route.
	DefaultWriteTimeout = 30 * time.Second
	// DefaultIdleTimeout closes keep-alive connections idle this long.
	// monerod keeps loopback connections up to 1800 s; 120 s frees the
	// per-IP connection slots of clients that forget to close sooner.
	DefaultIdleTimeout = 120 * time.Second
	// MaxHeaderBytes is epee's HTTP_MAX_HEADER_LEN; net/http applies it to
	// the request line and headers together (plus 4,096 bytes of slack).
	MaxHeaderBytes = 100000
)

// Config configures one listener. Zero values take the defaults above.
type Config struct {
	Addr       string // host:port to listen on (":0" allowed; Addr() tells the bound address)
	Restricted bool
	Login      *Login // HTTP digest authentication (monerod --rpc-login); nil: none
	// CORSOrigins are the --rpc-access-control-origins entries (each is
	// trimmed, empty ones dropped); "*" allows any origin.
	CORSOrigins []string
	// MaxRequestBytes limits request line + headers + body together, as
	// monerod counts them (the head is measured from the parsed request,
	// which is exact for the usual "Name: value" layout). A larger request
	// gets 413 and the connection is closed; a Content-Length over the
	// limit is refused before any body byte is read. Default 1 MiB; <= 0
	// means the default.
	MaxRequestBytes int64
	// MaxConnections limits concurrently open connections on this listener,
	// MaxConnectionsPerIP those from one remote IP. Excess connections are
	// accepted and closed at once, as monerod does. 0 means the default,
	// a negative value no limit. The per-IP limit applies to every IP
	// alike; monerod (>= 0.18.4) allows public IPs only 3
	// (--rpc-max-connections-per-public-ip), so a public listener may want
	// a lower value.
	MaxConnections      int
	MaxConnectionsPerIP int
	// Timeouts (see the Default* constants); 0 means the default, a
	// negative value none.
	ReadHeaderTimeout, ReadTimeout, WriteTimeout, IdleTimeout time.Duration
	Logger                                                    *slog.Logger // nil: slog.Default()
}

// Login is the user name and password of HTTP digest authentication.
type Login struct{ User, Password string }

// Server is one HTTP listener with its routes.
type Server struct {
	cfg     Config
	routes  map[string]Route
	log     *slog.Logger
	auth    *digestAuth // nil: no authentication
	origins []string    // CORS origins; nil: CORS off
	anyOrig bool        // origins contains "*"

	hs *http.Server

	mu       sync.Mutex
	ln       *limitListener // set by Listen
	serving  bool
	closing  atomic.Bool   // Shutdown was called
	shutDone chan struct{} // closed when Shutdown returns
	doneOnce sync.Once
}

// New checks cfg, fills in defaults and copies routes (keyed by exact
// request target, e.g. "/json_rpc", "/get_info"). It does not bind.
func New(cfg Config, routes map[string]Route) (*Server, error) {
	if cfg.MaxRequestBytes <= 0 {
		cfg.MaxRequestBytes = DefaultMaxRequestBytes
	}
	if cfg.MaxConnections == 0 {
		cfg.MaxConnections = DefaultMaxConnections
	}
	if cfg.MaxConnectionsPerIP == 0 {
		cfg.MaxConnectionsPerIP = DefaultMaxConnectionsPerIP
	}
	cfg.ReadHeaderTimeout = timeoutOrDefault(cfg.ReadHeaderTimeout, DefaultReadHeaderTimeout)
	cfg.ReadTimeout = timeoutOrDefault(cfg.ReadTimeout, DefaultReadTimeout)
	cfg.WriteTimeout = timeoutOrDefault(cfg.WriteTimeout, DefaultWriteTimeout)
	cfg.IdleTimeout = timeoutOrDefault(cfg.IdleTimeout, DefaultIdleTimeout)
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	s := &Server{
		cfg:      cfg,
		routes:   make(map[string]Route, len(routes)),
		log:      cfg.Logger,
		shutDone: make(chan struct{}),
	}
	for path, route := range routes {
		if route == nil {
			return nil, fmt.Errorf("httpd: route %q is nil", path)
		}
		s.routes[path] = route
	}
	if cfg.Login != nil {
		// monerod refuses an empty user name for --rpc-login.
		if cfg.Login.User == "" {
			return nil, errors.New("httpd: login user name is empty")
		}
		s.auth = newDigestAuth(cfg.Login.User, cfg.Login.Password)
	}
	for _, o := range cfg.CORSOrigins {
		o = strings.TrimSpace(o)
		if o == "" {
			continue
		}
		if o == "*" {
			s.anyOrig = true
		}
		s.origins = append(s.origins, o)
	}

	protocols := new(http.Protocols)
	protocols.SetHTTP1(true) // plain HTTP/1.x only, like epee: no h2c
	s.hs = &http.Server{
		Handler:           http.HandlerFunc(s.serveHTTP),
		ReadHeaderTimeout: cfg.ReadHeaderTimeout,
		ReadTimeout:       cfg.ReadTimeout,
		WriteTimeout:      cfg.WriteTimeout,
		IdleTimeout:       cfg.IdleTimeout,
		MaxHeaderBytes:    MaxHeaderBytes,
		Protocols:         protocols,
		// epee answers "OPTIONS *" like any other OPTIONS request.
		DisableGeneralOptionsHandler: true,
		ErrorLog:                     slog.NewLogLogger(cfg.Logger.Handler(), slog.LevelWarn),
	}
	if s.auth != nil {
		// Digest state (nonce and use counter) lives per TCP connection,
		// as in epee's http_server_auth, which belongs to the connection's
		// protocol handler.
		s.hs.ConnContext = func(ctx context.Context, _ net.Conn) context.Context {
			return context.WithValue(ctx, connAuthKey{}, new(authSession))
		}
	}
	return s, nil
}

// timeoutOrDefault maps 0 to def and a negative value to "none" (0 for
// net/http).
func timeoutOrDefault(d, def time.Duration) time.Duration {
	switch {
	case d == 0:
		return def
	case d < 0:
		return 0
	}
	return d
}

// Listen binds cfg.Addr.
func (s *Server) Listen() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing.Load() {
		return http.ErrServerClosed
	}
	if s.ln != nil {
		return errors.New("httpd: already listening")
	}
	inner, err := net.Listen("tcp", s.cfg.Addr)
	if err != nil {
		return err
	}
	s.ln = newLimitListener(inner, s.cfg.MaxConnections, s.cfg.MaxConnectionsPerIP, s.log)
	return nil
}

// Serve serves until Shutdown (binding first if Listen was not called). It
// returns nil after Shutdown, once Shutdown has returned (that is, after
// in-flight requests finished or Shutdown's context expired).
func (s *Server) Serve() error {
	s.mu.Lock()
	if s.serving {
		s.mu.Unlock()
		return errors.New("httpd: already serving")
	}
	s.serving = true
	bound := s.ln != nil
	s.mu.Unlock()
	if !bound {
		if err := s.Listen(); err != nil {
			if errors.Is(err, http.ErrServerClosed) {
				return nil
			}
			return err
		}
	}
	s.mu.Lock()
	ln := s.ln
	s.mu.Unlock()

	err := s.hs.Serve(ln)
	if errors.Is(err, http.ErrServerClosed) || s.closing.Load() {
		<-s.shutDone
		return nil
	}
	return err
}

// Addr is the bound address (nil before Listen).
func (s *Server) Addr() net.Addr {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ln == nil {
		return nil
	}
	return s.ln.Addr()
}

// Shutdown stops accepting, closes idle connections and waits for in-flight
// requests to finish. If ctx ends first, the remaining connections are
// closed and ctx's error is returned.
func (s *Server) Shutdown(ctx context.Context) error {
	// Under mu, so that a concurrent Listen either fails or is seen here.
	s.mu.Lock()
	s.closing.Store(true)
	ln := s.ln
	s.mu.Unlock()
	defer s.doneOnce.Do(func() { close(s.shutDone) })
	err := s.hs.Shutdown(ctx)
	if err != nil {
		_ = s.hs.Close()
	}
	if ln != nil {
		// Listen without Serve: net/http never saw this listener.
		_ = ln.Close()
	}
	return err
}

// OpenConnections is the number of HTTP connections open on this server
// right now, including the one of a route that asks (get_info's
// rpc_connections_count).
func (s *Server) OpenConnections() int {
	s.mu.Lock()
	ln := s.ln
	s.mu.Unlock()
	if ln == nil {
		return 0
	}
	return ln.Open()
}
