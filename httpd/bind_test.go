package httpd

import (
	"io"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"testing"
	"time"
)

func getFrom(src, addr string) (string, error) {
	d := &net.Dialer{Timeout: 5 * time.Second}
	if src != "" {
		d.LocalAddr = &net.TCPAddr{IP: net.ParseIP(src)}
	}
	c := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{DialContext: d.DialContext, DisableKeepAlives: true}}
	resp, err := c.Get("http://" + addr + "/x")
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return string(b), err
}

// An IPv6 address is served beside the IPv4 one, from one set of
// connection limits; Allow closes refused clients' connections before any
// byte; with IgnoreIPv4, a server whose IPv4 address cannot be bound
// serves IPv6 alone.
func TestIPv6ListenerAndFilter(t *testing.T) {
	routes := map[string]Route{"/x": func(*Request) Response { return Response{Body: []byte("ok")} }}
	banned := netip.MustParseAddr("127.0.0.9")
	s := startServer(t, Config{AddrIPv6: "[::1]:0", Allow: func(ip netip.Addr) bool { return ip != banned }}, routes)
	addrs := s.Addrs()
	if len(addrs) != 2 || !strings.HasPrefix(addrs[1].String(), "[::1]:") {
		t.Fatalf("bound %v", addrs)
	}
	for _, a := range addrs {
		if body, err := getFrom("", a.String()); err != nil || body != "ok" {
			t.Fatalf("%v: %q %v", a, body, err)
		}
	}
	if _, err := getFrom("127.0.0.9", addrs[0].String()); err == nil {
		t.Fatal("a refused client was answered")
	}
	if s.FilterRefused() != 1 {
		t.Fatalf("FilterRefused %d, want 1", s.FilterRefused())
	}
	if body, err := getFrom("127.0.0.8", addrs[0].String()); err != nil || body != "ok" {
		t.Fatalf("an allowed client: %q %v", body, err)
	}

	// 192.0.2.1 is on no interface: the IPv4 bind fails.
	only6 := startServer(t, Config{Addr: "192.0.2.1:0", AddrIPv6: "[::1]:0", IgnoreIPv4: true}, routes)
	if a := only6.Addrs(); len(a) != 1 || !strings.HasPrefix(a[0].String(), "[::1]:") {
		t.Fatalf("IPv6 alone bound %v", a)
	}
	if body, err := getFrom("", only6.Addrs()[0].String()); err != nil || body != "ok" {
		t.Fatalf("IPv6 alone: %q %v", body, err)
	}
	s2, err := New(Config{Addr: "192.0.2.1:0", AddrIPv6: "[::1]:0"}, routes)
	if err != nil {
		t.Fatal(err)
	}
	if err := s2.Listen(); err == nil {
		t.Fatal("a failed IPv4 bind without IgnoreIPv4 was accepted")
	}
}
