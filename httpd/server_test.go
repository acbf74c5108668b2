package httpd

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestRouteSeesRequest(t *testing.T) {
	var got Request
	routes := map[string]Route{
		"/json_rpc": func(req *Request) Response {
			got = *req
			got.Body = append([]byte(nil), req.Body...)
			return Response{Status: 201, ContentType: "application/json", Body: []byte("{}")}
		},
	}
	s := startServer(t, Config{Restricted: true}, routes)
	c := newRawClient(t, s)
	resp, body := c.do("put", "put /json_rpc HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello")
	if resp.StatusCode != 201 || string(body) != "{}" || resp.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("status %d, body %q, Content-Type %q", resp.StatusCode, body, resp.Header.Get("Content-Type"))
	}
	if got.HTTPMethod != "PUT" || got.Path != "/json_rpc" || string(got.Body) != "hello" || !got.Restricted ||
		got.RemoteAddr != c.conn.LocalAddr().String() {
		t.Fatalf("route saw %+v", got)
	}
}

func TestResponseHeaders(t *testing.T) {
	routes := map[string]Route{
		"/plain": func(*Request) Response { return Response{Body: []byte("<html>no type</html>")} },
		"/close": func(*Request) Response { return Response{ContentType: "text/plain", Close: true} },
	}
	s := startServer(t, Config{}, routes)

	c := newRawClient(t, s)
	resp, _ := c.do("GET", "GET /plain HTTP/1.1\r\nHost: x\r\n\r\n")
	if _, ok := resp.Header["Content-Type"]; ok {
		t.Errorf("Content-Type %q on a route without one (net/http sniffing leaked)", resp.Header.Get("Content-Type"))
	}
	if _, ok := resp.Header["Date"]; ok || resp.Header.Get("Server") != "Epee-based" || resp.Close {
		t.Errorf("headers %v, close %v", resp.Header, resp.Close)
	}
	// The route's Close closes the connection and says so.
	resp, _ = c.do("GET", "GET /close HTTP/1.1\r\nHost: x\r\n\r\n")
	if !resp.Close || !closedByServer(t, c.conn, c.br, 5*time.Second) {
		t.Error("Response.Close did not close the connection")
	}

	// HTTP/1.0 asking for close gets epee's "Connection: close" too.
	c = newRawClient(t, s)
	c.send("GET /plain HTTP/1.0\r\nConnection: close\r\n\r\n")
	names, err := peekHeaderNames(c.br)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(names, ","), "Connection") {
		t.Errorf("HTTP/1.0 Connection: close not echoed: %v", names)
	}
}

func TestUnknownVerbDropsConnection(t *testing.T) {
	s := startServer(t, Config{}, testRoutes(nil))
	for _, verb := range []string{"PATCH", "FOO"} {
		c := newRawClient(t, s)
		c.send(verb + " /json_rpc HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}")
		if !closedByServer(t, c.conn, c.br, 5*time.Second) {
			t.Errorf("%s: connection left open", verb)
		}
	}
	// TRACE is one of epee's verbs and reaches the route.
	c := newRawClient(t, s)
	if resp, _ := c.do("TRACE", "TRACE /json_rpc HTTP/1.1\r\nHost: x\r\n\r\n"); resp.StatusCode != 200 {
		t.Errorf("TRACE: %d", resp.StatusCode)
	}
}

func TestOptionsAnyPath(t *testing.T) {
	s := startServer(t, Config{Login: &Login{User: "u", Password: "p"}}, testRoutes(nil))
	for _, target := range []string{"/json_rpc", "/nowhere", "*"} {
		c := newRawClient(t, s)
		resp, body := c.do("OPTIONS", "OPTIONS "+target+" HTTP/1.1\r\nHost: x\r\n\r\n")
		if _, hasType := resp.Header["Content-Type"]; resp.StatusCode != 200 || len(body) != 0 || hasType ||
			resp.Header.Get("Content-Length") != "0" {
			t.Errorf("OPTIONS %s: %d %v %q", target, resp.StatusCode, resp.Header, body)
		}
	}
}

func TestRequestSizeLimit(t *testing.T) {
	const limit = 2000
	var lastBodyLen atomic.Int64
	s := startServer(t, Config{MaxRequestBytes: limit}, testRoutes(&lastBodyLen))

	// A request of exactly the limit (request line + headers + body) is
	// served; one byte more is refused, as monerod counts.
	head := func(n int) string {
		return fmt.Sprintf("POST /json_rpc HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: %d\r\n\r\n", n)
	}
	bodyLen := limit - len(head(1000))
	c := newRawClient(t, s)
	if resp, _ := c.do("POST", head(bodyLen)+strings.Repeat("x", bodyLen)); resp.StatusCode != 200 || lastBodyLen.Load() != int64(bodyLen) {
		t.Fatalf("request of exactly the limit: %d, body %d", resp.StatusCode, lastBodyLen.Load())
	}
	resp, body := c.do("POST", head(bodyLen+1)+strings.Repeat("x", bodyLen+1))
	if resp.StatusCode != 413 || !resp.Close || len(body) == 0 || resp.Header.Get("Content-Type") != "text/plain" {
		t.Fatalf("one byte over: %d close=%v %q", resp.StatusCode, resp.Close, body)
	}
	if !closedByServer(t, c.conn, c.br, 5*time.Second) {
		t.Error("connection open after 413")
	}

	// A huge Content-Length is refused before any body byte is sent.
	c = newRawClient(t, s)
	if resp, _ := c.do("POST", head(1<<40)); resp.StatusCode != 413 {
		t.Fatalf("huge Content-Length: %d", resp.StatusCode)
	}
	if !closedByServer(t, c.conn, c.br, 5*time.Second) {
		t.Error("connection open after 413")
	}

	// Chunked bodies are decoded and bounded by the same limit.
	chunked := func(n int) string {
		return "POST /json_rpc HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n" +
			fmt.Sprintf("%x\r\n%s\r\n0\r\n\r\n", n, strings.Repeat("y", n))
	}
	c = newRawClient(t, s)
	if resp, _ := c.do("POST", chunked(100)); resp.StatusCode != 200 || lastBodyLen.Load() != 100 {
		t.Fatalf("small chunked body: %d, route saw %d bytes", resp.StatusCode, lastBodyLen.Load())
	}
	if resp, _ := c.do("POST", chunked(5000)); resp.StatusCode != 413 {
		t.Fatalf("large chunked body: %d", resp.StatusCode)
	}
	if !closedByServer(t, c.conn, c.br, 5*time.Second) {
		t.Error("connection open after 413")
	}
}

func TestRoutePanic(t *testing.T) {
	logs := new(lockedBuffer)
	routes := testRoutes(nil)
	routes["/boom"] = func(*Request) Response { panic("route bug") }
	s := startServer(t, Config{Logger: slog.New(slog.NewTextHandler(logs, nil))}, routes)

	c := newRawClient(t, s)
	resp, body := c.do("POST", "POST /boom HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}")
	if resp.StatusCode != 500 || len(body) != 0 || resp.Header.Get("Content-Length") != "0" {
		t.Fatalf("panic answered %d %q", resp.StatusCode, body)
	}
	if !closedByServer(t, c.conn, c.br, 5*time.Second) {
		t.Error("connection open after 500")
	}
	if !strings.Contains(logs.String(), "route panicked") || !strings.Contains(logs.String(), "route bug") {
		t.Errorf("panic not logged: %s", logs.String())
	}
	// Still serving.
	c = newRawClient(t, s)
	if resp, _ := c.do("POST", "POST /json_rpc HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}"); resp.StatusCode != 200 {
		t.Fatalf("after the panic: %d", resp.StatusCode)
	}
}

func TestShutdownDrainsInFlight(t *testing.T) {
	entered := make(chan struct{})
	release := make(chan struct{})
	routes := map[string]Route{
		"/slow": func(*Request) Response {
			close(entered)
			<-release
			return Response{ContentType: "text/plain", Body: []byte("done")}
		},
	}
	s, err := New(Config{Addr: "127.0.0.1:0", Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}, routes)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Listen(); err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- s.Serve() }()

	c := newRawClient(t, s)
	idle := newRawClient(t, s) // an idle keep-alive connection is closed by Shutdown
	if resp, _ := idle.do("OPTIONS", "OPTIONS / HTTP/1.1\r\nHost: x\r\n\r\n"); resp.StatusCode != 200 {
		t.Fatal(resp.Status)
	}
	c.send("GET /slow HTTP/1.1\r\nHost: x\r\n\r\n")
	<-entered

	shut := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		shut <- s.Shutdown(ctx)
	}()
	waitFor(t, "the listener to close", func() bool {
		conn, err := net.DialTimeout("tcp", s.Addr().String(), time.Second)
		if err != nil {
			return true
		}
		conn.Close()
		return false
	})
	if !closedByServer(t, idle.conn, idle.br, 5*time.Second) {
		t.Error("idle connection not closed by Shutdown")
	}
	select {
	case err := <-shut:
		t.Fatalf("Shutdown returned %v with a request in flight", err)
	case err := <-served:
		t.Fatalf("Serve returned %v with a request in flight", err)
	case <-time.After(100 * time.Millisecond):
	}

	close(release)
	resp, body := c.read("GET")
	if resp.StatusCode != 200 || string(body) != "done" {
		t.Fatalf("in-flight request: %d %q", resp.StatusCode, body)
	}
	if err := <-shut; err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
	select {
	case err := <-served:
		if err != nil {
			t.Fatalf("Serve: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Serve did not return")
	}
}

func TestShutdownWithoutServe(t *testing.T) {
	s, err := New(Config{Addr: "127.0.0.1:0"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Listen(); err != nil {
		t.Fatal(err)
	}
	addr := s.Addr().String()
	if err := s.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
		c.Close()
		t.Fatal("listener still open after Shutdown")
	}
	if err := s.Serve(); err != nil {
		t.Fatalf("Serve after Shutdown: %v", err)
	}
}

func TestOpenConnections(t *testing.T) {
	var s *Server
	routes := map[string]Route{
		"/count": func(*Request) Response {
			return Response{ContentType: "text/plain", Body: []byte(strconv.Itoa(s.OpenConnections()))}
		},
	}
	s = startServer(t, Config{}, routes)
	if n := s.OpenConnections(); n != 0 {
		t.Fatalf("before any connection: %d", n)
	}
	ask := func(c *rawClient) string {
		_, body := c.do("GET", "GET /count HTTP/1.1\r\nHost: x\r\n\r\n")
		return string(body)
	}
	a := newRawClient(t, s)
	if got := ask(a); got != "1" {
		t.Fatalf("one connection, its route sees %s", got)
	}
	b := newRawClient(t, s)
	if got := ask(b); got != "2" {
		t.Fatalf("two connections: %s", got)
	}
	if got := ask(a); got != "2" {
		t.Fatalf("keep-alive reuse: %s", got)
	}
	a.conn.Close()
	waitFor(t, "1 open connection", func() bool { return s.OpenConnections() == 1 })
	b.conn.Close()
	waitFor(t, "0 open connections", func() bool { return s.OpenConnections() == 0 })
}

// dialFrom connects from a chosen loopback address, so that one test can
// be several "remote IPs".
func dialFrom(t *testing.T, s *Server, ip string) *rawClient {
	t.Helper()
	d := net.Dialer{Timeout: 5 * time.Second, LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}
	c, err := d.Dial("tcp", s.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	rc := &rawClient{t: t, conn: c}
	rc.br = newReader(c)
	return rc
}

// served reports whether the connection was admitted: admitted ones answer
// OPTIONS, refused ones are closed without a byte.
func (c *rawClient) served() bool {
	c.t.Helper()
	c.send("OPTIONS / HTTP/1.1\r\nHost: x\r\n\r\n")
	resp, _, err := readResponse(c.conn, c.br, "OPTIONS", 5*time.Second)
	if err != nil {
		return false
	}
	return resp.StatusCode == 200
}

func TestConnectionLimits(t *testing.T) {
	t.Parallel() // waits on timeouts and holds, not on the CPU
	entered, release := make(chan struct{}), make(chan struct{})
	routes := testRoutes(nil)
	routes["/hold"] = func(*Request) Response {
		entered <- struct{}{}
		<-release
		return Response{}
	}
	s := startServer(t, Config{MaxConnections: 5, MaxConnectionsPerPrivateIP: 3}, routes)

	var fromA []*rawClient
	for i := 0; i < 3; i++ {
		c := dialFrom(t, s, "127.0.0.1")
		if !c.served() {
			t.Fatalf("connection %d from A refused", i+1)
		}
		fromA = append(fromA, c)
	}
	if dialFrom(t, s, "127.0.0.1").served() {
		t.Fatal("4th connection from one IP admitted (per-IP limit 3)")
	}
	for i := 0; i < 2; i++ {
		if !dialFrom(t, s, "127.0.0.2").served() {
			t.Fatalf("connection %d from B refused", i+1)
		}
	}
	// At the total limit, monerod refuses everyone; here a new address
	// group takes the slot of the longest idle connection of a group
	// holding at least two more (fairslots.go): A's first.
	if !dialFrom(t, s, "127.0.0.3").served() {
		t.Fatal("a new address was refused while another held 3 of 5 slots")
	}
	if !closedByServer(t, fromA[0].conn, fromA[0].br, 5*time.Second) {
		t.Fatal("A's longest idle connection was not closed for the newcomer")
	}
	// Now A and B hold 2, C 1: no group holds 2 more than C, so C's
	// second connection takes the place of C's own idle one (once the
	// server waits for its next request).
	waitIdle(t, s, "127.0.0.3")
	c2 := dialFrom(t, s, "127.0.0.3")
	if !c2.served() {
		t.Fatal("a group's new connection did not take the place of its own idle one at the cap")
	}
	if n := s.OpenConnections(); n != 5 {
		t.Fatalf("OpenConnections = %d, want 5", n)
	}
	// With C's only connection busy, C's next one has no place: refused,
	// as monerod refuses it.
	c2.send("GET /hold HTTP/1.1\r\nHost: x\r\n\r\n")
	<-entered
	if dialFrom(t, s, "127.0.0.3").served() {
		t.Fatal("6th connection admitted (total limit 5) although the slots are shared fairly")
	}
	close(release)
	fromA[1].conn.Close()
	waitFor(t, "a freed slot", func() bool { return s.OpenConnections() == 4 })
	if !dialFrom(t, s, "127.0.0.3").served() {
		t.Fatal("connection refused after a slot was freed")
	}
	if acc, ref := s.ln.stats(); acc != 8 || ref != 2 {
		t.Fatalf("admitted %d, refused %d; want 8, 2", acc, ref)
	}
	if st := s.GuardStats(); st.EvictedIdle != 2 || st.EvictedBusy != 0 || st.RefusedPerIP != 1 || st.RefusedTotal != 1 {
		t.Fatalf("guard stats %+v; want 2 idle evictions, 1 per-IP and 1 total refusal", st)
	}
}

// TestConnectionLimitsConcurrent opens many connections at once: exactly
// the limit must be admitted, the count must return to zero.
func TestConnectionLimitsConcurrent(t *testing.T) {
	const limit, clients = 20, 60
	var inRoute atomic.Int32
	release := make(chan struct{})
	routes := map[string]Route{
		"/hold": func(*Request) Response {
			inRoute.Add(1)
			<-release
			return Response{}
		},
	}
	s := startServer(t, Config{MaxConnections: limit, MaxConnectionsPerPrivateIP: limit}, routes)

	var refused atomic.Int32
	var wg sync.WaitGroup
	for i := 0; i < clients; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			conn, err := net.DialTimeout("tcp", s.Addr().String(), 5*time.Second)
			if err != nil {
				t.Error(err)
				return
			}
			defer conn.Close()
			conn.SetDeadline(time.Now().Add(10 * time.Second))
			if _, err := io.WriteString(conn, "GET /hold HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
				refused.Add(1) // closed before we could even write
				return
			}
			resp, err := http.ReadResponse(newReader(conn), nil)
			if err != nil {
				refused.Add(1)
				return
			}
			resp.Body.Close()
		}()
	}
	waitFor(t, "all connections admitted or refused", func() bool {
		return inRoute.Load() == limit && refused.Load() == clients-limit
	})
	if n := s.OpenConnections(); n != limit {
		t.Errorf("OpenConnections = %d, want %d", n, limit)
	}
	close(release)
	wg.Wait()
	waitFor(t, "0 open connections", func() bool { return s.OpenConnections() == 0 })
	if acc, ref := s.ln.stats(); acc != limit || ref != clients-limit {
		t.Fatalf("admitted %d, refused %d", acc, ref)
	}
}

// TestSlowloris: a client dribbling its headers one byte at a time is cut
// off by ReadHeaderTimeout, without a response.
func TestSlowloris(t *testing.T) {
	t.Parallel() // waits on timeouts and holds, not on the CPU
	const timeout = 600 * time.Millisecond
	s := startServer(t, Config{ReadHeaderTimeout: timeout}, testRoutes(nil))
	// The server's clock starts when it accepts the connection, so ours
	// starts before dialling: the measured time can only be longer.
	start := time.Now()
	c := newRawClient(t, s)
	closed := make(chan time.Duration, 1)
	go func() {
		var b [1]byte
		c.conn.SetReadDeadline(time.Now().Add(10 * time.Second))
		_, _ = c.conn.Read(b[:]) // returns at EOF
		closed <- time.Since(start)
	}()
	req := "POST /json_rpc HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: " + strings.Repeat("z", 100)
	for i := 0; i < len(req); i++ {
		select {
		case d := <-closed:
			if d < timeout || d > timeout+5*time.Second {
				t.Fatalf("closed after %v, ReadHeaderTimeout %v", d, timeout)
			}
			return
		case <-time.After(100 * time.Millisecond):
		}
		if _, err := c.conn.Write([]byte{req[i]}); err != nil {
			break
		}
	}
	select {
	case d := <-closed:
		if d < timeout || d > timeout+5*time.Second {
			t.Fatalf("closed after %v, ReadHeaderTimeout %v", d, timeout)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("slowloris connection never closed")
	}
}

// TestSlowBody: a body dribbled slower than ReadTimeout allows is cut off.
func TestSlowBody(t *testing.T) {
	t.Parallel() // waits on timeouts and holds, not on the CPU
	const timeout = 600 * time.Millisecond
	s := startServer(t, Config{ReadTimeout: timeout, ReadHeaderTimeout: timeout}, testRoutes(nil))
	start := time.Now() // before dialling: the server's clock starts at accept
	c := newRawClient(t, s)
	c.send("POST /json_rpc HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{")
	go func() {
		for i := 0; i < 50; i++ {
			time.Sleep(100 * time.Millisecond)
			if _, err := c.conn.Write([]byte(" ")); err != nil {
				return
			}
		}
	}()
	if !closedByServer(t, c.conn, c.br, 10*time.Second) {
		t.Fatal("slow body not cut off")
	}
	if d := time.Since(start); d < timeout || d > timeout+5*time.Second {
		t.Fatalf("closed after %v, ReadTimeout %v", d, timeout)
	}
}

func TestIdleTimeout(t *testing.T) {
	t.Parallel() // waits on timeouts and holds, not on the CPU
	const idle = 400 * time.Millisecond
	s := startServer(t, Config{IdleTimeout: idle}, testRoutes(nil))
	c := newRawClient(t, s)
	c.do("GET", "GET /get_info HTTP/1.1\r\nHost: x\r\n\r\n")
	start := time.Now()
	if !closedByServer(t, c.conn, c.br, 10*time.Second) {
		t.Fatal("idle connection not closed")
	}
	if d := time.Since(start); d < idle-50*time.Millisecond || d > idle+5*time.Second {
		t.Fatalf("idle connection closed after %v, IdleTimeout %v", d, idle)
	}
	waitFor(t, "0 open connections", func() bool { return s.OpenConnections() == 0 })
}

func TestNewRejectsBadConfig(t *testing.T) {
	if _, err := New(Config{Login: &Login{User: ""}}, nil); err == nil {
		t.Error("empty login user accepted")
	}
	if _, err := New(Config{}, map[string]Route{"/x": nil}); err == nil {
		t.Error("nil route accepted")
	}
}

// A body given as Parts goes out byte for byte as the same body given
// whole: the same headers (Content-Length included) and the same bytes,
// for GET and for HEAD, on a connection kept alive across both.
func TestResponsePartsAsBody(t *testing.T) {
	whole := make([]byte, 3<<20+17)
	for i := range whole {
		whole[i] = byte(i * 7)
	}
	parts := [][]byte{whole[:5], whole[5 : 1<<20], {}, whole[1<<20 : 3<<20], whole[3<<20:]}
	routes := map[string]Route{
		"/whole": func(*Request) Response {
			return Response{ContentType: "application/octet-stream", Body: whole}
		},
		"/parts": func(*Request) Response {
			return Response{ContentType: "application/octet-stream", Parts: parts}
		},
	}
	s := startServer(t, Config{}, routes)
	// The raw answer without its Last-Modified line (the second it was
	// sent).
	raw := func(c net.Conn, br *bufio.Reader, method, path string, body bool) string {
		t.Helper()
		if _, err := io.WriteString(c, method+" "+path+" HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
			t.Fatal(err)
		}
		var head strings.Builder
		for {
			line, err := br.ReadString('\n')
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(line, "Last-Modified:") {
				head.WriteString(line)
			}
			if line == "\r\n" {
				break
			}
		}
		if !body {
			return head.String()
		}
		b := make([]byte, len(whole))
		if _, err := io.ReadFull(br, b); err != nil {
			t.Fatal(err)
		}
		return head.String() + string(b)
	}
	c := dial(t, s)
	br := bufio.NewReader(c)
	for _, m := range []string{"GET", "HEAD", "GET"} {
		want := raw(c, br, m, "/whole", m == "GET")
		got := raw(c, br, m, "/parts", m == "GET")
		if got != want {
			t.Fatalf("%s: the answer from parts differs from the whole body's (%d and %d bytes; heads %q and %q)",
				m, len(got), len(want), got[:min(len(got), 300)], want[:min(len(want), 300)])
		}
		if !strings.Contains(want, "Content-Length: "+strconv.Itoa(len(whole))+"\r\n") {
			t.Fatalf("%s: no Content-Length of the body: %q", m, want[:min(len(want), 300)])
		}
	}
}
