package httpd

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"strconv"
	"testing"
)

// The HTTP layer's own cost: a trivial route over keep-alive connections,
// driven by raw clients that allocate nothing themselves, so that
// -benchmem's allocs/op are the server's.

var benchBody = []byte(`{"jsonrpc":"2.0","id":"0","method":"get_block_count"}`)

// benchAnswer is a body of the size of a getblockheaderbyheight answer.
var benchAnswer = bytes.Repeat([]byte("x"), 960)

func benchServer(b *testing.B, cfg Config) *Server {
	routes := map[string]Route{
		"/json_rpc": func(*Request) Response {
			return Response{ContentType: "application/json", Body: benchAnswer}
		},
	}
	cfg.MaxConnections, cfg.MaxConnectionsPerPrivateIP = -1, -1
	return startServer(b, cfg, routes)
}

var benchRequest = append([]byte("POST /json_rpc HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: "+
	strconv.Itoa(len(benchBody))+"\r\n\r\n"), benchBody...)

// rawRoundTrip writes req and reads one response (Content-Length framed)
// into scratch, without allocating.
func rawRoundTrip(conn net.Conn, br *bufio.Reader, req []byte, scratch []byte) error {
	if _, err := conn.Write(req); err != nil {
		return err
	}
	length := -1
	status := 0
	for {
		line, err := br.ReadSlice('\n')
		if err != nil {
			return err
		}
		if status == 0 {
			if len(line) < 12 {
				return fmt.Errorf("bad status line %q", line)
			}
			status = int(line[9]-'0')*100 + int(line[10]-'0')*10 + int(line[11]-'0')
			continue
		}
		if len(line) <= 2 {
			break
		}
		if bytes.HasPrefix(line, []byte("Content-Length: ")) {
			n := 0
			for _, c := range bytes.TrimSpace(line[len("Content-Length: "):]) {
				n = n*10 + int(c-'0')
			}
			length = n
		}
	}
	if status != 200 || length < 0 || length > len(scratch) {
		return fmt.Errorf("status %d, length %d", status, length)
	}
	_, err := io.ReadFull(br, scratch[:length])
	return err
}

// BenchmarkServeParallel: keep-alive connections in parallel (GOMAXPROCS
// of them), one request at a time each.
func BenchmarkServeParallel(b *testing.B) {
	s := benchServer(b, Config{})
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		conn, err := net.Dial("tcp", s.Addr().String())
		if err != nil {
			b.Error(err)
			return
		}
		defer conn.Close()
		br := bufio.NewReaderSize(conn, 4096)
		scratch := make([]byte, 4096)
		for pb.Next() {
			if err := rawRoundTrip(conn, br, benchRequest, scratch); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// BenchmarkServeSequential: one connection, one request at a time: the
// round-trip latency of the server side.
func BenchmarkServeSequential(b *testing.B) {
	for _, tc := range []struct {
		name string
		cfg  Config
	}{
		{"plain", Config{}},
		{"cors", Config{CORSOrigins: []string{"http://a.example"}}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			s := benchServer(b, tc.cfg)
			conn, err := net.Dial("tcp", s.Addr().String())
			if err != nil {
				b.Fatal(err)
			}
			defer conn.Close()
			req := benchRequest
			if tc.cfg.CORSOrigins != nil {
				req = bytes.Replace(req, []byte("Host: 127.0.0.1\r\n"), []byte("Host: 127.0.0.1\r\nOrigin: http://a.example\r\n"), 1)
			}
			br := bufio.NewReaderSize(conn, 4096)
			scratch := make([]byte, 4096)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if err := rawRoundTrip(conn, br, req, scratch); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestServeAllocations pins the hot path at zero allocations per request
// (the benchmarks show it; this fails when it regresses).
func TestServeAllocations(t *testing.T) {
	if testing.Short() {
		t.Skip("allocation count needs a warm server")
	}
	if raceEnabled {
		t.Skip("allocation counts are not the program's under the race detector")
	}
	routes := map[string]Route{
		"/json_rpc": func(*Request) Response {
			return Response{ContentType: "application/json", Body: benchAnswer}
		},
	}
	s := startServer(t, Config{}, routes)
	conn := dial(t, s)
	br := bufio.NewReaderSize(conn, 4096)
	scratch := make([]byte, 4096)
	for i := 0; i < 100; i++ { // warm the pools
		if err := rawRoundTrip(conn, br, benchRequest, scratch); err != nil {
			t.Fatal(err)
		}
	}
	allocs := testing.AllocsPerRun(2000, func() {
		if err := rawRoundTrip(conn, br, benchRequest, scratch); err != nil {
			t.Fatal(err)
		}
	})
	// AllocsPerRun counts the whole process: a rare pool refill or timer
	// may land in the window, hence "below one", not "zero".
	if allocs >= 1 {
		t.Fatalf("%.2f allocations per request, want 0", allocs)
	}
}
