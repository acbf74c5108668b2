package httpd

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// testCert is a certificate with its key, in PEM and parsed.
type testCert struct {
	certPEM, keyPEM []byte
	tls             tls.Certificate
	x509            *x509.Certificate
	key             *ecdsa.PrivateKey
}

// newTestCert makes a certificate for usage; parent nil: self-signed (a CA
// when isCA).
func newTestCert(t testing.TB, name string, isCA bool, usage x509.ExtKeyUsage, parent *testCert) *testCert {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(time.Now().UnixNano()),
		Subject:      pkix.Name{CommonName: name},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{usage},
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1)},
	}
	if isCA {
		tmpl.IsCA, tmpl.BasicConstraintsValid = true, true
		tmpl.KeyUsage |= x509.KeyUsageCertSign
		tmpl.ExtKeyUsage = nil
	}
	signer, signKey := tmpl, key
	if parent != nil {
		signer, signKey = parent.x509, parent.key
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, signer, &key.PublicKey, signKey)
	if err != nil {
		t.Fatal(err)
	}
	pk, _ := x509.MarshalPKCS8PrivateKey(key)
	c := &testCert{
		certPEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		keyPEM:  pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: pk}),
		key:     key,
	}
	c.x509, _ = x509.ParseCertificate(der)
	c.tls = tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: c.x509}
	if parent != nil && parent.x509.IsCA && len(parent.tls.Certificate) > 0 && !bytes.Equal(parent.x509.RawIssuer, parent.x509.RawSubject) {
		// an intermediate's leaf carries the intermediate in its chain
		c.tls.Certificate = append(c.tls.Certificate, parent.tls.Certificate[0])
	}
	return c
}

func tlsServer(t testing.TB, mode TLSMode, v ClientVerify, cfg Config) (*Server, *testCert) {
	t.Helper()
	server := newTestCert(t, "server", false, x509.ExtKeyUsageServerAuth, nil)
	cfg.TLS = &TLS{Mode: mode, Config: ServerTLSConfig(server.tls, v), HandshakeTimeout: cfg.TLS.handshakeTimeout()}
	return startServer(t, cfg, testRoutes(nil)), server
}

func (t *TLS) handshakeTimeout() time.Duration {
	if t == nil {
		return 0
	}
	return t.HandshakeTimeout
}

// get asks /get_info over TLS (client certificate cert unless nil) or
// plain HTTP (tlsClient false), on a new connection.
func get(s *Server, useTLS bool, cert *testCert) (string, error) {
	tr := &http.Transport{DisableKeepAlives: true}
	scheme := "http"
	if useTLS {
		scheme = "https"
		tc := &tls.Config{InsecureSkipVerify: true}
		if cert != nil {
			tc.Certificates = []tls.Certificate{cert.tls}
		}
		tr.TLSClientConfig = tc
	}
	c := &http.Client{Transport: tr, Timeout: 5 * time.Second}
	resp, err := c.Post(scheme+"://"+s.Addr().String()+"/get_info", "application/json", strings.NewReader("{}"))
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.Status + " " + string(b), err
}

const okInfo = `200 OK {"status": "OK"}`

// TestTLSModes: autodetect serves TLS and plain HTTP on one port; enabled
// refuses plain HTTP, disabled refuses TLS; keep-alive works over TLS.
func TestTLSModes(t *testing.T) {
	for _, tc := range []struct {
		mode           TLSMode
		tlsOK, plainOK bool
	}{
		{TLSAutodetect, true, true},
		{TLSEnabled, true, false},
		{TLSDisabled, false, true},
	} {
		t.Run(tc.mode.String(), func(t *testing.T) {
			s, _ := tlsServer(t, tc.mode, ClientVerify{}, Config{})
			for _, useTLS := range []bool{true, false} {
				got, err := get(s, useTLS, nil)
				want := tc.plainOK
				if useTLS {
					want = tc.tlsOK
				}
				if want && (err != nil || got != okInfo) {
					t.Errorf("tls %v: %q %v; want %q", useTLS, got, err, okInfo)
				}
				if !want && err == nil {
					t.Errorf("tls %v: served (%q); want refused", useTLS, got)
				}
			}
			if tc.tlsOK {
				// many requests on one TLS connection
				tr := &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}, MaxIdleConnsPerHost: 1}
				c := &http.Client{Transport: tr, Timeout: 5 * time.Second}
				defer tr.CloseIdleConnections()
				for i := 0; i < 20; i++ {
					resp, err := c.Post("https://"+s.Addr().String()+"/json_rpc", "application/json", strings.NewReader(`{"method":"x"}`))
					if err != nil {
						t.Fatal(err)
					}
					b, _ := io.ReadAll(resp.Body)
					resp.Body.Close()
					if !bytes.Equal(b, fixedJSON) || resp.TLS == nil {
						t.Fatalf("request %d: %q tls %v", i, b, resp.TLS != nil)
					}
				}
				if n := s.OpenConnections(); n != 1 {
					t.Errorf("%d connections open after 20 keep-alive requests, want 1", n)
				}
			}
		})
	}
}

// TestTLSClientVerify is epee's server-side check of client certificates:
// no certificate asked without fingerprints or CAs; with them, a listed
// fingerprint or a certificate signed by a CA (directly, or through a
// sent intermediate with AllowChained) is let in, anything else refused.
func TestTLSClientVerify(t *testing.T) {
	ca := newTestCert(t, "ca", true, 0, nil)
	inter := newTestCert(t, "intermediate", true, 0, ca)
	byCA := newTestCert(t, "by ca", false, x509.ExtKeyUsageClientAuth, ca)
	byInter := newTestCert(t, "by intermediate", false, x509.ExtKeyUsageClientAuth, inter)
	pinned := newTestCert(t, "pinned", false, x509.ExtKeyUsageClientAuth, nil)
	other := newTestCert(t, "other", false, x509.ExtKeyUsageClientAuth, nil)
	serverUsage := newTestCert(t, "server usage", false, x509.ExtKeyUsageServerAuth, ca)
	pool := x509.NewCertPool()
	pool.AddCert(ca.x509)
	fp := sha256.Sum256(pinned.x509.Raw)

	for _, tc := range []struct {
		name    string
		v       ClientVerify
		allowed []*testCert
		refused []*testCert // nil entry: no client certificate
	}{
		{"none", ClientVerify{}, []*testCert{nil, other, pinned}, nil},
		{"fingerprint", ClientVerify{Fingerprints: [][32]byte{fp}}, []*testCert{pinned}, []*testCert{nil, other, byCA}},
		{"ca", ClientVerify{CAs: pool}, []*testCert{byCA}, []*testCert{nil, other, pinned, byInter, serverUsage}},
		{"ca chained", ClientVerify{CAs: pool, AllowChained: true}, []*testCert{byCA, byInter}, []*testCert{nil, other}},
		{"ca and fingerprint", ClientVerify{CAs: pool, Fingerprints: [][32]byte{fp}}, []*testCert{byCA, pinned}, []*testCert{nil, other}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, _ := tlsServer(t, TLSEnabled, tc.v, Config{})
			for _, c := range tc.allowed {
				if got, err := get(s, true, c); err != nil || got != okInfo {
					t.Errorf("%s: %q %v; want served", name(c), got, err)
				}
			}
			for _, c := range tc.refused {
				if got, err := get(s, true, c); err == nil {
					t.Errorf("%s: served (%q); want refused", name(c), got)
				}
			}
			waitFor(t, "refused connections closed", func() bool { return s.OpenConnections() == 0 })
		})
	}
}

func name(c *testCert) string {
	if c == nil {
		return "no certificate"
	}
	return c.x509.Subject.CommonName
}

// clientHello is the first flight of a Go TLS client.
func clientHello(t testing.TB) []byte {
	t.Helper()
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	go func() {
		_ = tls.Client(a, &tls.Config{InsecureSkipVerify: true}).Handshake()
	}()
	b.SetReadDeadline(time.Now().Add(5 * time.Second))
	hdr := make([]byte, 5)
	if _, err := io.ReadFull(b, hdr); err != nil {
		t.Fatal(err)
	}
	body := make([]byte, int(hdr[3])<<8|int(hdr[4]))
	if _, err := io.ReadFull(b, body); err != nil {
		t.Fatal(err)
	}
	return append(hdr, body...)
}

// TestLooksLikeTLS: epee's is_ssl on real first bytes.
func TestLooksLikeTLS(t *testing.T) {
	hello := clientHello(t)
	if !LooksLikeTLS(hello) || !LooksLikeTLS(hello[:9]) {
		t.Fatalf("a Go ClientHello is not recognised: % x", hello[:9])
	}
	for _, b := range [][]byte{
		hello[:8],
		[]byte("POST /json_rpc HTTP/1.1\r\n"),
		[]byte("GET / HTTP/1.0\r\n\r\n"),
		{0x16, 0x03, 0x01, 0x00, 0x10, 0x02, 0x00, 0x00, 0x0c}, // a ServerHello
		{0x16, 0x03, 0x01, 0x00, 0x10, 0x01, 0x00, 0x00, 0x0d}, // lengths disagree
		{0x16, 0x02, 0x01, 0x00, 0x10, 0x01, 0x00, 0x00, 0x0c}, // SSL 2 version
		{0x17, 0x03, 0x01, 0x00, 0x10, 0x01, 0x00, 0x00, 0x0c}, // application data
	} {
		if LooksLikeTLS(b) {
			t.Errorf("% x taken for TLS", b)
		}
	}
	if !LooksLikeTLS([]byte{0x16, 0x03, 0x01, 0x00, 0x10, 0x01, 0x00, 0x00, 0x0c}) {
		t.Error("minimal ClientHello header not recognised")
	}
}

// TestTLSHandshakeStalls: connections that stall before deciding (one
// byte of a record header), or in the middle of a handshake (a
// ClientHello and then nothing), hold their connection slot until the
// handshake deadline and no longer: then the server closes them, their
// goroutines end and the slots serve others. Meanwhile they count against
// the per-IP limit, so a flood of them cannot take more than the limit.
func TestTLSHandshakeStalls(t *testing.T) {
	t.Parallel() // waits on timeouts and holds, not on the CPU
	const limit, timeout = 4, 300 * time.Millisecond
	for _, mode := range []TLSMode{TLSAutodetect, TLSEnabled} {
		t.Run(mode.String(), func(t *testing.T) {
			base := runtime.NumGoroutine()
			s, _ := tlsServer(t, mode, ClientVerify{}, Config{MaxConnectionsPerPrivateIP: limit,
				TLS: &TLS{HandshakeTimeout: timeout}})
			hello := clientHello(t)
			var stalled []net.Conn
			for i := 0; i < limit; i++ {
				c := dial(t, s)
				switch i % 3 {
				case 0: // one byte of a record header
					c.Write([]byte{0x16})
				case 1: // a whole ClientHello, then silence
					c.Write(hello)
				default: // nothing at all
				}
				stalled = append(stalled, c)
			}
			waitFor(t, "stalled connections admitted", func() bool { return s.OpenConnections() == limit })
			// the slots are taken: one more connection is refused
			extra := dial(t, s)
			if !closedByServer(t, extra, newReader(extra), 2*time.Second) {
				t.Fatal("a connection over the limit was admitted while stalled handshakes held the slots")
			}
			start := time.Now()
			for _, c := range stalled {
				c.SetReadDeadline(time.Now().Add(5 * time.Second))
				_, err := io.Copy(io.Discard, c) // the server's flight, then its close
				if ne, ok := err.(net.Error); ok && ne.Timeout() {
					t.Fatal("a stalled handshake was not ended by the server")
				}
			}
			if d := time.Since(start); d > timeout+2*time.Second {
				t.Errorf("stalled handshakes ended after %v, timeout %v", d, timeout)
			}
			waitFor(t, "slots freed", func() bool { return s.OpenConnections() == 0 })
			if got, err := get(s, true, nil); err != nil || got != okInfo {
				t.Fatalf("after the stall: %q %v", got, err)
			}
			waitFor(t, "goroutines of the stalled connections gone", func() bool {
				return runtime.NumGoroutine() <= base+10
			})
		})
	}
}

// TestTLSHandshakeFlood: many clients opening connections and sending a
// ClientHello, then hanging up, as fast as they can, while a keep-alive
// TLS client is served; afterwards nothing is left open.
func TestTLSHandshakeFlood(t *testing.T) {
	s, _ := tlsServer(t, TLSAutodetect, ClientVerify{}, Config{MaxConnectionsPerPrivateIP: 10, TLS: &TLS{HandshakeTimeout: time.Second}})
	tr := &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}, MaxIdleConnsPerHost: 1}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr, Timeout: 10 * time.Second}
	ask := func() {
		resp, err := client.Post("https://"+s.Addr().String()+"/get_info", "application/json", nil)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	ask()
	hello := clientHello(t)
	stop := make(chan struct{})
	done := make(chan int)
	for w := 0; w < 8; w++ {
		go func() {
			n := 0
			defer func() { done <- n }()
			for {
				select {
				case <-stop:
					return
				default:
				}
				c, err := net.DialTimeout("tcp", s.Addr().String(), time.Second)
				if err != nil {
					continue
				}
				c.Write(hello[:len(hello)/2])
				c.Close()
				n++
			}
		}()
	}
	served := 0
	for end := time.Now().Add(time.Second); time.Now().Before(end); served++ {
		ask()
	}
	close(stop)
	flood := 0
	for w := 0; w < 8; w++ {
		flood += <-done
	}
	tr.CloseIdleConnections()
	waitFor(t, "every connection closed", func() bool { return s.OpenConnections() == 0 })
	t.Logf("%d keep-alive TLS requests served during %d aborted handshakes", served, flood)
}

// TestTLSLoadErrors: bad certificate input is an error that names the
// file, never a fallback.
func TestTLSLoadErrors(t *testing.T) {
	dir := t.TempDir()
	a := newTestCert(t, "a", false, x509.ExtKeyUsageServerAuth, nil)
	b := newTestCert(t, "b", false, x509.ExtKeyUsageServerAuth, nil)
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	aCrt, aKey, bKey := write("a.crt", a.certPEM), write("a.key", a.keyPEM), write("b.key", b.keyPEM)
	if c, err := LoadKeyPair(aCrt, aKey); err != nil || c.Leaf == nil {
		t.Fatalf("a good pair: %v", err)
	}
	enc := write("enc.key", pem.EncodeToMemory(&pem.Block{Type: "ENCRYPTED PRIVATE KEY", Bytes: []byte{1, 2, 3}}))
	garbage := write("garbage", []byte("not pem\n"))
	for _, tc := range []struct{ crt, key, want string }{
		{aCrt, bKey, "does not match"},
		{filepath.Join(dir, "missing.crt"), aKey, "no such file"},
		{aCrt, filepath.Join(dir, "missing.key"), "no such file"},
		{aCrt, enc, "encrypted"},
		{garbage, aKey, "no PEM certificate"},
		{aCrt, garbage, "no PEM private key"},
		{aKey, aKey, "no PEM certificate"},
	} {
		if _, err := LoadKeyPair(tc.crt, tc.key); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s + %s: %v; want an error saying %q", filepath.Base(tc.crt), filepath.Base(tc.key), err, tc.want)
		}
	}
	if _, err := LoadCAFile(aCrt); err != nil {
		t.Errorf("CA file: %v", err)
	}
	for p, want := range map[string]string{
		garbage:                       "no PEM certificate",
		filepath.Join(dir, "missing"): "no such file",
		write("trailing", append(append([]byte{}, a.certPEM...), "junk"...)):                                  "not PEM",
		write("bad", pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: []byte{0x30, 0x03, 1, 2, 3}})): "certificate 1",
	} {
		if _, err := LoadCAFile(p); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("CA file %s: %v; want an error saying %q", filepath.Base(p), err, want)
		}
	}
}

func TestParseFingerprint(t *testing.T) {
	sum := sha256.Sum256([]byte("x"))
	colons := Fingerprint([]byte("x"))
	for _, s := range []string{
		colons,
		strings.ToLower(colons),
		strings.ReplaceAll(colons, ":", ""),
		strings.ReplaceAll(colons, ":", " "),
		" " + strings.ReplaceAll(colons, ":", ": \t") + "\n",
	} {
		fp, err := ParseFingerprint(s)
		if err != nil || fp != sum {
			t.Errorf("%q: %x %v", s, fp, err)
		}
	}
	for _, s := range []string{
		"",
		colons[:len(colons)-3],       // 31 bytes
		colons + ":00",               // 33 bytes
		colons[:len(colons)-1] + "G", // not hex
		"A" + colons[:len(colons)-1], // odd count
		"A:B" + colons[5:],           // separator inside a pair (epee refuses)
	} {
		if _, err := ParseFingerprint(s); err == nil {
			t.Errorf("%q accepted", s)
		}
	}
}

// TestGenerateCertificate: a generated certificate serves TLS, is
// self-signed for half a year and its fingerprint parses back.
func TestGenerateCertificate(t *testing.T) {
	certPEM, keyPEM, err := GenerateCertificate()
	if err != nil {
		t.Fatal(err)
	}
	cert, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		t.Fatal(err)
	}
	leaf := cert.Leaf
	if leaf == nil {
		leaf, _ = x509.ParseCertificate(cert.Certificate[0])
	}
	if d := leaf.NotAfter.Sub(leaf.NotBefore); d < GeneratedCertValidity || d > GeneratedCertValidity+time.Hour {
		t.Errorf("valid for %v", d)
	}
	if err := leaf.CheckSignature(leaf.SignatureAlgorithm, leaf.RawTBSCertificate, leaf.Signature); err != nil || !bytes.Equal(leaf.RawIssuer, leaf.RawSubject) {
		t.Errorf("not self-signed: %v", err)
	}
	if fp, err := ParseFingerprint(Fingerprint(leaf.Raw)); err != nil || fp != sha256.Sum256(leaf.Raw) {
		t.Errorf("fingerprint: %v", err)
	}
}

// TestTLSTooLarge: a request over the limit gets its 413 over TLS too
// (the half-close before hanging up is TLS's close_notify).
func TestTLSTooLarge(t *testing.T) {
	s, _ := tlsServer(t, TLSAutodetect, ClientVerify{}, Config{MaxRequestBytes: 1000})
	c := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	resp, err := c.Post("https://"+s.Addr().String()+"/json_rpc", "application/json", bytes.NewReader(make([]byte, 5000)))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 413 {
		t.Fatalf("status %d, want 413", resp.StatusCode)
	}
	waitFor(t, "the connection closed", func() bool { return s.OpenConnections() == 0 })
}
