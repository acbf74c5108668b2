package metrics

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// The metrics listener's limits. A scraper sends one small GET every few
// seconds; anything slower or bigger is not a scraper, and a few scrapes
// at once are plenty (more wait, then get 503).
const (
	readHeaderTimeout = 5 * time.Second
	readTimeout       = 10 * time.Second
	writeTimeout      = 30 * time.Second
	idleTimeout       = 60 * time.Second
	maxHeaderBytes    = 8 << 10
	maxScrapesAtOnce  = 4
	scrapeTimeout     = 20 * time.Second
)

// Server serves /metrics on a listener of its own.
type Server struct {
	http *http.Server
	ln   net.Listener
}

// Listen binds addr (host:port) and prepares to serve m's registry at
// /metrics; every other path is 404.
func Listen(addr string, m *Metrics, log *slog.Logger) (*Server, error) {
	if log == nil {
		log = slog.Default()
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{
		ErrorLog:            slog.NewLogLogger(log.Handler(), slog.LevelWarn),
		ErrorHandling:       promhttp.ContinueOnError,
		MaxRequestsInFlight: maxScrapesAtOnce,
		Timeout:             scrapeTimeout,
	}))
	return &Server{ln: ln, http: &http.Server{
		Handler:           mux,
		ReadHeaderTimeout: readHeaderTimeout,
		ReadTimeout:       readTimeout,
		WriteTimeout:      writeTimeout,
		IdleTimeout:       idleTimeout,
		MaxHeaderBytes:    maxHeaderBytes,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelDebug),
	}}, nil
}

// Addr is the bound address.
func (s *Server) Addr() net.Addr { return s.ln.Addr() }

// Serve serves until Shutdown (then it returns nil).
func (s *Server) Serve() error {
	if err := s.http.Serve(s.ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// Shutdown stops accepting and waits for scrapes in progress.
func (s *Server) Shutdown(ctx context.Context) error { return s.http.Shutdown(ctx) }
