package httpd

import (
	"bytes"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/gonero/gonero/internal/testutil"
	"github.com/valyala/fasthttp/fasthttputil"
)

// FuzzServeConn feeds arbitrary bytes to one connection of a server with
// digest authentication and CORS on (so that every parser runs): the
// server must not panic, must answer only with HTTP/1.1 responses (or
// nothing) and must end the exchange within its timeouts. Seeded with the
// captured monerod requests.
func FuzzServeConn(f *testing.F) {
	dir := testutil.Path(f, "testdata", "regtest", "responses", "offline")
	files, _ := filepath.Glob(filepath.Join(dir, "*.request"))
	for _, p := range files {
		if b, err := os.ReadFile(p); err == nil && len(b) < 4096 {
			f.Add(b)
		}
	}
	f.Add([]byte("POST /json_rpc HTTP/1.0\r\nConnection: close\r\nContent-Length: 2\r\n\r\n{}"))
	f.Add([]byte("GET /get_info HTTP/1.1\r\nHost: x\r\nAuthorization: Digest username=\"u\", realm=\"monero-rpc\", nonce=\"n\", uri=\"/get_info\", response=\"00\", qop=auth, nc=00000001, cnonce=\"c\"\r\nOrigin: http://a\r\n\r\n"))
	f.Add([]byte("POST /json_rpc HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n"))
	f.Add([]byte{0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xfc, 0x03, 0x03})

	s, err := New(Config{
		MaxRequestBytes: 4096, Login: &Login{User: "u", Password: "p"}, CORSOrigins: []string{"*"},
		ReadHeaderTimeout: 50 * time.Millisecond, ReadTimeout: 50 * time.Millisecond, WriteTimeout: 50 * time.Millisecond,
		IdleTimeout: 50 * time.Millisecond, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	}, testRoutes(nil))
	if err != nil {
		f.Fatal(err)
	}
	ln := newLimitListener(nil, -1, -1, -1, 0, s.log)
	f.Fuzz(func(t *testing.T, in []byte) {
		pc := fasthttputil.NewPipeConns()
		cc := &countedConn{Conn: pc.Conn1(), ln: ln}
		ln.admit(cc.key, cc)
		done := make(chan struct{})
		go func() {
			_ = s.fs.ServeConn(cc)
			_ = cc.Close()
			close(done)
		}()
		client := pc.Conn2()
		go func() {
			_, _ = client.Write(in)
		}()
		_ = client.SetReadDeadline(time.Now().Add(3 * time.Second))
		out, _ := io.ReadAll(client)
		select {
		case <-done:
		case <-time.After(3 * time.Second):
			t.Fatalf("connection still served 3 s after %q", in)
		}
		_ = client.Close()
		if len(out) > 0 && !bytes.HasPrefix(out, []byte("HTTP/1.1 ")) {
			t.Fatalf("answer %q to %q", out, in)
		}
	})
}
