package daemonctl

import (
	"crypto/tls"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// heightServer answers /get_height as a daemon does.
func heightServer() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		_, _ = io.WriteString(w, `{"height":7,"status":"OK"}`)
	})
}

func clientOf(t *testing.T, srv *httptest.Server) *HTTPClient {
	t.Helper()
	host, port, err := net.SplitHostPort(srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	return &HTTPClient{Host: host, Port: port, Timeout: 5 * time.Second}
}

func height(c *HTTPClient) (uint64, error) {
	var h struct {
		Height uint64 `json:"height"`
	}
	err := c.Path("/get_height", struct{}{}, &h)
	return h.Height, err
}

// TestTLSClientModes: TLS to a TLS daemon; autodetect falls back to plain
// HTTP when the handshake fails, as epee's client reconnects without SSL;
// enabled does not, and a certificate the check refuses is a connection
// failure.
func TestTLSClientModes(t *testing.T) {
	tlsSrv := httptest.NewTLSServer(heightServer())
	defer tlsSrv.Close()
	plainSrv := httptest.NewServer(heightServer())
	defer plainSrv.Close()
	anyCert := &tls.Config{InsecureSkipVerify: true}

	c := clientOf(t, tlsSrv)
	c.TLS = anyCert
	if h, err := height(c); err != nil || h != 7 {
		t.Fatalf("TLS to a TLS daemon: %d, %v", h, err)
	}
	c = clientOf(t, plainSrv)
	c.TLS, c.TLSFallback = anyCert, true
	if h, err := height(c); err != nil || h != 7 {
		t.Fatalf("autodetect to a plain daemon: %d, %v; want the plain fallback", h, err)
	}
	c.TLSFallback = false
	if _, err := height(c); !errors.Is(err, ErrConnect) {
		t.Fatalf("enabled to a plain daemon: %v; want %v", err, ErrConnect)
	}
	c = clientOf(t, tlsSrv)
	c.TLS = &tls.Config{ServerName: "127.0.0.1"} // the system's CAs: the test server's certificate is unknown to them
	if _, err := height(c); !errors.Is(err, ErrConnect) {
		t.Fatalf("a certificate the check refuses: %v; want %v", err, ErrConnect)
	}
	c = clientOf(t, plainSrv)
	if h, err := height(c); err != nil || h != 7 {
		t.Fatalf("plain to a plain daemon: %d, %v", h, err)
	}
}
