package httpd

import (
	"bufio"
	"bytes"
	"io"
	"net"
	"net/http"
	"testing"
)

// The HTTP layer's own cost: a trivial route over keep-alive connections.

var benchBody = []byte(`{"jsonrpc":"2.0","id":"0","method":"get_block_count"}`)

func benchServer(b *testing.B) *Server {
	routes := map[string]Route{
		"/json_rpc": func(*Request) Response {
			return Response{ContentType: "application/json", Body: fixedJSON}
		},
	}
	return startServer(b, Config{MaxConnections: -1, MaxConnectionsPerPrivateIP: -1}, routes)
}

// BenchmarkServeKeepAlive: net/http clients in parallel, each reusing its
// connection (client cost included).
func BenchmarkServeKeepAlive(b *testing.B) {
	s := benchServer(b)
	tr := &http.Transport{MaxIdleConnsPerHost: 64, DisableCompression: true}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr}
	url := "http://" + s.Addr().String() + "/json_rpc"
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			resp, err := client.Post(url, "application/json", bytes.NewReader(benchBody))
			if err != nil {
				b.Error(err)
				return
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 {
				b.Errorf("status %d", resp.StatusCode)
				return
			}
		}
	})
}

// BenchmarkServeRawSequential: one raw connection, one request at a time,
// minimal client work: round-trip latency of the server side.
func BenchmarkServeRawSequential(b *testing.B) {
	s := benchServer(b)
	conn, err := net.Dial("tcp", s.Addr().String())
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close()
	req := append([]byte("POST /json_rpc HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 53\r\n\r\n"), benchBody...)
	br := bufio.NewReader(conn)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := conn.Write(req); err != nil {
			b.Fatal(err)
		}
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
}
