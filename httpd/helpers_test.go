package httpd

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// fixedJSON is what the test "/json_rpc" route answers; the JSON-RPC
// envelope is another package's business.
var fixedJSON = []byte("{\r\n  \"id\": \"0\",\r\n  \"jsonrpc\": \"2.0\",\r\n  \"result\": {\r\n    \"status\": \"OK\"\r\n  }\r\n}")

// testRoutes are "/json_rpc" (fixed JSON; records the body length it saw)
// and "/get_info".
func testRoutes(lastBodyLen *atomic.Int64) map[string]Route {
	return map[string]Route{
		"/json_rpc": func(req *Request) Response {
			if lastBodyLen != nil {
				lastBodyLen.Store(int64(len(req.Body)))
			}
			return Response{ContentType: "application/json", Body: fixedJSON}
		},
		"/get_info": func(req *Request) Response {
			return Response{ContentType: "application/json", Body: []byte(`{"status": "OK"}`)}
		},
	}
}

// lockedBuffer collects log output from concurrent goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// startServer listens on 127.0.0.1 and serves until the test ends; then it
// shuts down and checks that Serve returned nil.
func startServer(t testing.TB, cfg Config, routes map[string]Route) *Server {
	t.Helper()
	return startServerWrapped(t, cfg, routes, nil)
}

// startServerWrapped is startServer with the bound listener wrapped by
// wrap (Server.wrapInner; nil: not wrapped).
func startServerWrapped(t testing.TB, cfg Config, routes map[string]Route, wrap func(net.Listener) net.Listener) *Server {
	t.Helper()
	if cfg.Addr == "" {
		cfg.Addr = "127.0.0.1:0"
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	s, err := New(cfg, routes)
	if err != nil {
		t.Fatal(err)
	}
	s.wrapInner = wrap
	if err := s.Listen(); err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- s.Serve() }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := s.Shutdown(ctx); err != nil {
			t.Errorf("Shutdown: %v", err)
		}
		select {
		case err := <-served:
			if err != nil {
				t.Errorf("Serve returned %v after Shutdown", err)
			}
		case <-time.After(5 * time.Second):
			t.Error("Serve did not return after Shutdown")
		}
	})
	return s
}

// dial opens a raw TCP connection to s.
func dial(t testing.TB, s *Server) net.Conn {
	t.Helper()
	c, err := net.DialTimeout("tcp", s.Addr().String(), 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// rawClient is one raw connection with a reader for its responses.
type rawClient struct {
	t    testing.TB
	conn net.Conn
	br   *bufio.Reader
}

func newRawClient(t testing.TB, s *Server) *rawClient {
	c := dial(t, s)
	return &rawClient{t: t, conn: c, br: bufio.NewReader(c)}
}

// send writes raw request bytes.
func (c *rawClient) send(req string) {
	c.t.Helper()
	c.conn.SetWriteDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.WriteString(c.conn, req); err != nil {
		c.t.Fatalf("write: %v", err)
	}
}

// read reads one response (method is the request's, for HEAD) and its body.
func (c *rawClient) read(method string) (*http.Response, []byte) {
	c.t.Helper()
	resp, body, err := readResponse(c.conn, c.br, method, 5*time.Second)
	if err != nil {
		c.t.Fatalf("reading response: %v", err)
	}
	return resp, body
}

// do sends a request and reads its response.
func (c *rawClient) do(method, req string) (*http.Response, []byte) {
	c.t.Helper()
	c.send(req)
	return c.read(method)
}

func readResponse(conn net.Conn, br *bufio.Reader, method string, wait time.Duration) (*http.Response, []byte, error) {
	conn.SetReadDeadline(time.Now().Add(wait))
	resp, err := http.ReadResponse(br, &http.Request{Method: method})
	if err != nil {
		return nil, nil, err
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	return resp, body, err
}

// closedByServer waits up to wait for the server to close the connection:
// true on EOF or reset, false if nothing happened; unexpected bytes fail.
func closedByServer(t testing.TB, conn net.Conn, br *bufio.Reader, wait time.Duration) bool {
	t.Helper()
	conn.SetReadDeadline(time.Now().Add(wait))
	b, err := br.ReadByte()
	if err == nil {
		rest, _ := br.Peek(br.Buffered())
		t.Fatalf("unexpected bytes from server: %q", append([]byte{b}, rest...))
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return false
	}
	return true
}

// waitFor polls cond until it holds or the time is up.
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// holdRoute adds /hold to routes: each request says so on entered (which
// buffers that many), waits until release is called, and answers "held".
// release may be called more than once; the test's end calls it too.
func holdRoute(t testing.TB, routes map[string]Route, buffered int) (entered <-chan struct{}, release func()) {
	in := make(chan struct{}, buffered)
	gate := make(chan struct{})
	var once sync.Once
	release = func() { once.Do(func() { close(gate) }) }
	t.Cleanup(release)
	routes["/hold"] = func(*Request) Response {
		in <- struct{}{}
		<-gate
		return Response{ContentType: "text/plain", Body: []byte("held")}
	}
	return in, release
}

// readFile reads a test data file.
func readFile(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func newReader(c net.Conn) *bufio.Reader { return bufio.NewReader(c) }
