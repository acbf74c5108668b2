// Package httpd is the HTTP front of the RPC server: it answers like the
// HTTP server of monerod v0.18 (epee's http_protocol_handler and
// http_server_impl_base) on top of github.com/valyala/fasthttp. It routes by
// exact request target, adds epee's response headers, enforces the
// request-size and connection limits, HTTP digest authentication
// (--rpc-login) and CORS (--rpc-access-control-origins). It knows nothing
// about JSON-RPC: routes turn a Request into a Response.
//
// fasthttp rather than net/http because the RPC is judged on throughput:
// on two cores net/http serves a fixed 1 kB body at ~45k req/s, fasthttp at
// ~70k, and a request costs no allocation here (connection state, the
// Request handed to routes and the response buffers are reused).
//
// Where we do not answer byte-for-byte like epee, the difference is
// deliberate and listed here:
//
//   - Status lines carry Go's reason phrases ("200 OK", "404 Not Found")
//     and headers come in fasthttp's order (Server, Content-Type,
//     Content-Length first); epee says "200 Ok", "404 Not found". Clients
//     look at codes, not phrases.
//   - A request larger than MaxRequestBytes gets "413 Request Entity Too
//     Large" before the connection is closed; epee closes without a word.
//   - A malformed request line or header section (including an HTTP/1.1
//     request without Host) gets "400 Bad Request" and the connection is
//     closed; epee closes (or serves what it could parse).
//   - "Transfer-Encoding: chunked" request bodies are decoded (bounded by
//     MaxRequestBytes); epee ignores the chunks (empty body). Both close
//     the connection afterwards when the request also had a
//     Content-Length; we say "Connection: close", epee does not.
//   - Pipelined requests are all answered in order; epee v0.18.0.0 answers
//     the second only once more bytes arrive.
//   - Inactivity limits are the timeouts of Config, not epee's 10 s/120 s
//     first-response and 300 s/1800 s idle limits.
//   - A public IPv6 client counts per /64 for the per-IP connection limit;
//     monerod counts each address.
//   - With TLS disabled (Config.TLS), a connection opening with a TLS
//     handshake gets a plain "400" and is closed, so that a wallet in
//     --daemon-ssl autodetect falls back to plain HTTP at once.
//   - TLS (tls.go, docs/tls.md) differs from epee's in the details
//     listed in docs/tls.md §5.
//   - At the total connection limit, a connection from an address group
//     holding fewer connections takes the slot of an idle one of the
//     largest group (fairslots.go); while half the limit is held, new
//     connections per group are rate-limited (guard.go); a group over its
//     serving budget is metered and may get Config.Busy (meter.go). See
//     docs/public-node.md.
//   - Digest authentication additionally requires the credential's "uri"
//     to be the request target (RFC 2617 section 3.2.2.5), ignores unknown
//     directives (RFC 7616) and accepts only the algorithms it advertises.
//
// As epee does, an HTTP/1.0 request is answered with an HTTP/1.1 status
// line and the connection stays open unless the request said
// "Connection: close"; a header section over MaxHeaderBytes and a verb
// epee does not know close the connection without a response.
package httpd

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/gonero/gonero/internal/addrgroup"
)

// Request is what a route sees. It and its Body belong to the server: they
// are valid until the route returns (the connection reuses them for its
// next request), so a route that keeps any of it must copy it.
type Request struct {
	HTTPMethod string // GET, POST, ... (upper case)
	Path       string // exact request target as received (no normalisation)
	Body       []byte // full body (at most Config.MaxRequestBytes); valid until the route returns
	Restricted bool   // the listener's restriction flag
	RemoteAddr string

	// The memory budget (memory.go) and the meter (meter.go) of the
	// request being served: set by the server, used by Reserve and
	// Checkpoint.
	conn     *countedConn
	memory   *MemoryAccount
	reserved int64
	meter    *meter
	ticket   ticket
	ticketOK bool
	charged  int64
}

// Response is what a route returns. Status 0 means 200. The server adds the
// monerod headers. Body then belongs to the server until it is written: the
// route must not change it afterwards (handing out an immutable cached
// slice is fine).
type Response struct {
	Status      int
	ContentType string // "" for none
	Body        []byte
	// Parts, when not nil, is the body instead of Body: pieces sent one
	// after another, none of them copied. A large answer made of shared,
	// cached pieces (the block entries of /getblocks.bin) then costs each
	// request in flight only its own few bytes: fifty clients asking for
	// the same 5 MB of blocks do not hold fifty copies while their answers
	// are written.
	Parts [][]byte
	Close bool // close the connection after the response (monerod does after a 500)
}

// Len is the body's length.
func (r *Response) Len() int {
	n := len(r.Body)
	for _, p := range r.Parts {
		n += len(p)
	}
	return n
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
	// DefaultMaxConnectionsPerPublicIP is monerod's
	// --rpc-max-connections-per-public-ip default.
	DefaultMaxConnectionsPerPublicIP = addrgroup.MaxPerPublicHost
	// DefaultMaxConnectionsPerPrivateIP is monerod's
	// --rpc-max-connections-per-private-ip default (loopback and private
	// ranges; the captures were made on loopback, where the 26th
	// connection was closed at once).
	DefaultMaxConnectionsPerPrivateIP = addrgroup.MaxPerPrivateHost
	// DefaultResponseSoftLimit is monerod's --rpc-response-soft-limit
	// default (DEFAULT_RPC_SOFT_LIMIT_SIZE, 25 MiB).
	DefaultResponseSoftLimit = 25 << 20
	// DefaultReadHeaderTimeout bounds the time a client may take to send a
	// request line and headers (slowloris), from its first byte on a
	// keep-alive connection or from the connect on a new one. monerod
	// allows a fresh remote connection 10 s to produce a response.
	DefaultReadHeaderTimeout = 10 * time.Second
	// DefaultReadTimeout bounds the time to read a body once the headers
	// are in: 1 MiB in 30 s is ~35 kB/s, enough for any real client.
	DefaultReadTimeout = 30 * time.Second
	// DefaultWriteTimeout bounds the time to write a response.
	DefaultWriteTimeout = 30 * time.Second
	// DefaultIdleTimeout closes keep-alive connections idle this long.
	// monerod keeps loopback connections up to 1800 s; 120 s frees the
	// per-IP connection slots of clients that forget to close sooner.
	DefaultIdleTimeout = 120 * time.Second
	// MaxHeaderBytes is epee's HTTP_MAX_HEADER_LEN: the request line and
	// headers together. It is also each connection's read buffer.
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
	// monerod counts them. A larger request gets 413 and the connection is
	// closed; a Content-Length over the limit is refused before any body
	// byte is read. Default 1 MiB; <= 0 means the default.
	MaxRequestBytes int64
	// MaxConnections limits concurrently open connections on this
	// listener; MaxConnectionsPerPublicIP and MaxConnectionsPerPrivateIP
	// those from one remote address (a public IPv6 address counts per
	// /64; loopback, RFC 1918, unique-local and link-local addresses are
	// private). Excess connections are accepted and closed at once, as
	// monerod does. 0 means the default, a negative value no limit.
	MaxConnections             int
	MaxConnectionsPerPublicIP  int
	MaxConnectionsPerPrivateIP int
	// ResponseSoftLimit is --rpc-response-soft-limit: the bytes of answers
	// a connection may have queued but unread by its client. Responses
	// are written one at a time with a blocking write, so what is queued
	// is what the kernel's socket buffer holds; a limit below the default
	// shrinks that buffer (SO_SNDBUF). 0 means the default.
	ResponseSoftLimit int64
	// Timeouts (see the Default* constants); 0 means the default, a
	// negative value none.
	ReadHeaderTimeout, ReadTimeout, WriteTimeout, IdleTimeout time.Duration
	Logger                                                    *slog.Logger // nil: slog.Default()
	// TLS is --rpc-ssl and its certificates (tls.go); nil: plain HTTP.
	TLS *TLS
	// AddrIPv6, when set, is an IPv6 address to listen on too
	// (--rpc-use-ipv6); IgnoreIPv4 lets the server run on it alone when
	// Addr cannot be bound (--rpc-ignore-ipv4). Allow, when set, is asked
	// of every connection's client first: false closes it at once
	// (monerod's connection filter, is_remote_host_allowed). See bind.go.
	AddrIPv6   string
	IgnoreIPv4 bool
	Allow      func(netip.Addr) bool

	// The defences beyond monerod's limits (docs/public-node.md).
	// ConnectionRate is the new connections per second one address group
	// (a public IPv4 /24, a public IPv6 /64, a private address) may open,
	// ConnectionBurst how many at once; more are refused like connections
	// over a limit. 0 means the defaults, a negative rate no limit.
	ConnectionRate  float64
	ConnectionBurst int
	// CostRate is the serving capacity, in seconds of route time (and
	// answer bytes) per second, that the active address groups share
	// evenly; CostBurst how long one group may use all of it before its
	// requests are metered: served through MeteredSlots slots, least
	// indebted group first, waiting at most MeteredWait before Busy
	// answers them. 0 means the defaults, a negative CostRate no metering.
	CostRate     float64
	CostBurst    time.Duration
	MeteredSlots int
	MeteredWait  time.Duration
	// Busy answers a request that found no metered slot in time (rpc:
	// monerod's status "BUSY"); nil: an empty 503. It also answers a
	// request whose body or answer the memory budget refused.
	Busy Route
	// Memory is the node's memory budget's account for RPC (memory.go,
	// shared by every listener of the node); nil: no budget.
	Memory *MemoryAccount
}

// Login is the user name and password of HTTP digest authentication.
type Login struct{ User, Password string }

// route is a registered target: the path string (handed to routes as
// Request.Path without allocating) and its handler.
type route struct {
	path string
	fn   Route
}

// Server is one HTTP listener with its routes.
type Server struct {
	cfg     Config
	routes  map[string]route
	log     *slog.Logger
	auth    *digestAuth // nil: no authentication
	origins []string    // CORS origins; nil: CORS off
	anyOrig bool        // origins contains "*"

	fs    *fasthttp.Server
	guard *guardCounters // shared by the listener and the meter
	meter *meter         // nil: no metering

	mu       sync.Mutex
	ln       *limitListener // set by Listen
	serving  bool
	closing  atomic.Bool   // Shutdown was called
	shutDone chan struct{} // closed when Shutdown returns
	doneOnce sync.Once

	// filterRefused counts the connections Config.Allow refused.
	filterRefused atomic.Uint64

	// wrapInner, if set before Listen, wraps the bound listener (tests:
	// connections from simulated remote addresses, which loopback
	// cannot give, reach the limits as they would from the Internet).
	wrapInner func(net.Listener) net.Listener
}

// errServerClosed is Listen's answer after Shutdown.
var errServerClosed = errors.New("httpd: server closed")

// New checks cfg, fills in defaults and copies routes (keyed by exact
// request target, e.g. "/json_rpc", "/get_info"). It does not bind.
func New(cfg Config, routes map[string]Route) (*Server, error) {
	if cfg.MaxRequestBytes <= 0 {
		cfg.MaxRequestBytes = DefaultMaxRequestBytes
	}
	cfg.MaxConnections = limitOrDefault(cfg.MaxConnections, DefaultMaxConnections)
	cfg.MaxConnectionsPerPublicIP = limitOrDefault(cfg.MaxConnectionsPerPublicIP, DefaultMaxConnectionsPerPublicIP)
	cfg.MaxConnectionsPerPrivateIP = limitOrDefault(cfg.MaxConnectionsPerPrivateIP, DefaultMaxConnectionsPerPrivateIP)
	if cfg.ResponseSoftLimit <= 0 {
		cfg.ResponseSoftLimit = DefaultResponseSoftLimit
	}
	cfg.ReadHeaderTimeout = timeoutOrDefault(cfg.ReadHeaderTimeout, DefaultReadHeaderTimeout)
	cfg.ReadTimeout = timeoutOrDefault(cfg.ReadTimeout, DefaultReadTimeout)
	cfg.WriteTimeout = timeoutOrDefault(cfg.WriteTimeout, DefaultWriteTimeout)
	cfg.IdleTimeout = timeoutOrDefault(cfg.IdleTimeout, DefaultIdleTimeout)
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	fillGuardDefaults(&cfg)
	s := &Server{
		cfg:      cfg,
		routes:   make(map[string]route, len(routes)),
		log:      cfg.Logger,
		shutDone: make(chan struct{}),
	}
	for path, fn := range routes {
		if fn == nil {
			return nil, fmt.Errorf("httpd: route %q is nil", path)
		}
		s.routes[path] = route{path: path, fn: fn}
	}
	s.guard = &guardCounters{log: cfg.Logger, addr: cfg.Addr}
	if cfg.CostRate > 0 {
		s.meter = newMeter(cfg.CostRate, cfg.CostBurst, cfg.MeteredSlots, cfg.MeteredWait, s.guard)
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

	s.fs = &fasthttp.Server{
		Handler:        s.handle,
		ErrorHandler:   s.handleError,
		HeaderReceived: s.headerReceived,
		Name:           "Epee-based",
		// fasthttp's ReadTimeout runs from a connection's first byte (or
		// from the connect) through the request headers; headerReceived
		// then gives the body its own ReadTimeout.
		ReadTimeout:  cfg.ReadHeaderTimeout,
		WriteTimeout: cfg.WriteTimeout,
		IdleTimeout:  cfg.IdleTimeout,
		// The header section must fit the read buffer: this is epee's
		// header limit.
		ReadBufferSize:     MaxHeaderBytes,
		MaxRequestBodySize: int(cfg.MaxRequestBytes),
		// epee sends no Date and no default Content-Type.
		NoDefaultDate:        true,
		NoDefaultContentType: true,
		// A request served during Shutdown is answered with
		// "Connection: close".
		CloseOnShutdown:              true,
		DisablePreParseMultipartForm: true,
		SecureErrorLogMessage:        true,
		Logger:                       fasthttpLogger{cfg.Logger},
	}
	return s, nil
}

// limitOrDefault maps 0 to def; negative values (no limit) stay.
func limitOrDefault(n, def int) int {
	if n == 0 {
		return def
	}
	return n
}

// timeoutOrDefault maps 0 to def and a negative value to "none" (0 for
// fasthttp).
func timeoutOrDefault(d, def time.Duration) time.Duration {
	switch {
	case d == 0:
		return def
	case d < 0:
		return 0
	}
	return d
}

// fasthttpLogger sends fasthttp's own messages (connection errors of
// misbehaving clients) to the debug log.
type fasthttpLogger struct{ log *slog.Logger }

func (l fasthttpLogger) Printf(format string, args ...any) {
	if l.log.Enabled(context.Background(), slog.LevelDebug) {
		l.log.Debug("httpd: " + fmt.Sprintf(format, args...))
	}
}

// Listen binds cfg.Addr.
func (s *Server) Listen() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing.Load() {
		return errServerClosed
	}
	if s.ln != nil {
		return errors.New("httpd: already listening")
	}
	inner, err := s.bind()
	if err != nil {
		return err
	}
	if s.wrapInner != nil {
		inner = s.wrapInner(inner)
	}
	if s.cfg.TLS.on() {
		inner = newTLSListener(inner, s.cfg.TLS)
	}
	sndBuf := 0
	if s.cfg.ResponseSoftLimit < DefaultResponseSoftLimit {
		sndBuf = int(s.cfg.ResponseSoftLimit)
	}
	s.ln = newLimitListener(inner, s.cfg.MaxConnections, s.cfg.MaxConnectionsPerPublicIP,
		s.cfg.MaxConnectionsPerPrivateIP, sndBuf, s.log)
	s.ln.guard = s.guard
	s.ln.connRate = newConnRate(s.cfg.ConnectionRate, s.cfg.ConnectionBurst)
	s.guard.addr = inner.Addr().String()
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
			if errors.Is(err, errServerClosed) {
				return nil
			}
			return err
		}
	}
	s.mu.Lock()
	ln := s.ln
	closing := s.closing.Load()
	s.mu.Unlock()
	if closing {
		<-s.shutDone
		return nil
	}

	err := s.fs.Serve(ln)
	if s.closing.Load() {
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
// requests to finish (they are answered with "Connection: close"). If ctx
// ends first, the remaining connections are closed and ctx's error is
// returned.
func (s *Server) Shutdown(ctx context.Context) error {
	// Under mu, so that a concurrent Listen either fails or is seen here.
	s.mu.Lock()
	s.closing.Store(true)
	ln := s.ln
	serving := s.serving
	s.mu.Unlock()
	defer s.doneOnce.Do(func() { close(s.shutDone) })
	if s.meter != nil {
		s.meter.close()
	}
	if ln == nil {
		return nil
	}
	var err error
	if serving {
		err = s.fs.ShutdownWithContext(ctx)
		if err != nil {
			ln.closeAll()
		}
	}
	// Listen without Serve: fasthttp never saw this listener (and after
	// Serve closing it again is harmless).
	_ = ln.Close()
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
