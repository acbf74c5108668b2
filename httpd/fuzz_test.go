package httpd

import (
	"bytes"
	"encoding/hex"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
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
		// The seeds run side by side: each waits out the 50 ms timeouts.
		t.Parallel()
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

// FuzzParseFingerprint: --rpc-ssl-allowed-fingerprints values never panic
// the parser, and what it accepts prints back (Fingerprint's form) to the
// same 32 bytes.
func FuzzParseFingerprint(f *testing.F) {
	f.Add(Fingerprint([]byte("x")))
	f.Add("ab:cd")
	f.Add("A:B")
	f.Add(" 00 11 ")
	f.Fuzz(func(t *testing.T, s string) {
		fp, err := ParseFingerprint(s)
		if err != nil {
			return
		}
		again, err := ParseFingerprint(fingerprintHex(fp))
		if err != nil || again != fp {
			t.Fatalf("%q parsed to %x, which does not parse back: %v", s, fp, err)
		}
	})
}

func fingerprintHex(fp [FingerprintSize]byte) string {
	var b bytes.Buffer
	for i, x := range fp {
		if i > 0 {
			b.WriteByte(':')
		}
		b.WriteString(strings.ToUpper(hex.EncodeToString([]byte{x})))
	}
	return b.String()
}

// FuzzTLSSniff feeds arbitrary first bytes to an autodetect listener's
// connection: the decision never panics, agrees with epee's is_ssl on the
// first 9 bytes, and a connection taken for plain HTTP reads back exactly
// the bytes sent (nothing the sniffing consumed is lost).
func FuzzTLSSniff(f *testing.F) {
	f.Add([]byte("POST /json_rpc HTTP/1.1\r\nHost: x\r\n\r\n"))
	f.Add([]byte{0x16, 0x03, 0x01, 0x00, 0x10, 0x01, 0x00, 0x00, 0x0c, 0x03, 0x03})
	f.Add([]byte{0x16, 0x03, 0x01})
	f.Add([]byte{0x16})
	f.Fuzz(func(t *testing.T, data []byte) {
		isTLS, done := sniff(data)
		switch {
		case len(data) == 0 || (data[0] == 0x16 && len(data) < sslMagicSize):
			if done {
				t.Fatalf("% x decided early", data)
			}
			return
		case !done:
			t.Fatalf("% x undecided", data)
		case isTLS != LooksLikeTLS(data[:min(len(data), sslMagicSize)]):
			t.Fatalf("% x: sniff says TLS %v, is_ssl disagrees", data, isTLS)
		}
		if isTLS {
			return
		}
		ln := &tlsListener{mode: TLSAutodetect, timeout: time.Second}
		c := &tlsConn{Conn: &bytesConn{r: bytes.NewReader(data)}, ln: ln, deadline: time.Now().Add(time.Second)}
		got, err := io.ReadAll(c)
		c.Close()
		if err != nil || !bytes.Equal(got, data) {
			t.Fatalf("plain connection read %q (%v), sent %q", got, err, data)
		}
	})
}

// bytesConn is a connection whose client sent r and then closed.
type bytesConn struct {
	net.Conn
	r *bytes.Reader
}

func (c *bytesConn) Read(p []byte) (int, error)       { return c.r.Read(p) }
func (c *bytesConn) Close() error                     { return nil }
func (c *bytesConn) SetDeadline(time.Time) error      { return nil }
func (c *bytesConn) SetReadDeadline(time.Time) error  { return nil }
func (c *bytesConn) SetWriteDeadline(time.Time) error { return nil }
