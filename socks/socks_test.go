package socks

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/gonero/gonero/internal/sockstest"
)

const onion = "zbjkbsxc5munw3qusl7j2hpcmikhqocdf4pqhnhtpzw5nt5jrmofptid.onion"

func TestParseEndpoint(t *testing.T) {
	good := []struct {
		in   string
		want Endpoint
	}{
		{"127.0.0.1:9050", Endpoint{Version: V4a}},
		{"socks://127.0.0.1:9050", Endpoint{Version: V4a}},
		{"socks4a://127.0.0.1:9050", Endpoint{Version: V4a}},
		{"socks4://127.0.0.1:9050", Endpoint{Version: V4}},
		{"socks5://127.0.0.1:9050", Endpoint{Version: V5}},
		{"socks5://alice:s%3Acret@127.0.0.1:9050", Endpoint{Version: V5, User: "alice", Pass: "s:cret"}},
		{"socks5://alice@127.0.0.1:9050", Endpoint{Version: V5, User: "alice"}},
	}
	for _, c := range good {
		e, err := ParseEndpoint(c.in)
		c.want.Addr = e.Addr
		if err != nil || e != c.want || e.Addr.String() != "127.0.0.1:9050" {
			t.Errorf("%s: %+v %v", c.in, e, err)
		}
	}
	for _, in := range []string{"", "127.0.0.1", "127.0.0.1:0", "localhost:9050", "http://127.0.0.1:9050",
		"alice:pw@127.0.0.1:9050", "socks4://a:b@127.0.0.1:9050", "socks5://a%zz:b@127.0.0.1:9050",
		"socks5://" + strings.Repeat("u", 256) + ":p@127.0.0.1:1"} {
		if e, err := ParseEndpoint(in); err == nil {
			t.Errorf("%q accepted: %+v", in, e)
		}
	}
}

// echo is a destination that echoes what it reads.
func echo(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() { _, _ = io.Copy(c, c); _ = c.Close() }()
		}
	}()
	return ln.Addr().String()
}

func proxy(t *testing.T, user, pass string) *sockstest.Server {
	s, err := sockstest.Start()
	if err != nil {
		t.Fatal(err)
	}
	s.User, s.Pass = user, pass
	t.Cleanup(s.Close)
	return s
}

func ctx(t *testing.T, d time.Duration) context.Context {
	c, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return c
}

func roundTrip(t *testing.T, nc net.Conn) {
	t.Helper()
	defer nc.Close()
	if _, err := nc.Write([]byte("ping")); err != nil {
		t.Fatal(err)
	}
	var b [4]byte
	if _, err := io.ReadFull(nc, b[:]); err != nil || string(b[:]) != "ping" {
		t.Fatalf("%q %v", b, err)
	}
}

func TestDialThroughProxy(t *testing.T) {
	dest := echo(t)
	for _, c := range []struct{ uri, user, pass string }{
		{"127.0.0.1:P", "", ""},
		{"socks5://127.0.0.1:P", "", ""},
		{"socks5://alice:pw@127.0.0.1:P", "alice", "pw"},
	} {
		s := proxy(t, c.user, c.pass)
		s.Route(onion, dest)
		e, err := ParseEndpoint(strings.Replace(c.uri, "127.0.0.1:P", s.Addr(), 1))
		if err != nil {
			t.Fatal(err)
		}
		nc, err := e.Dial(ctx(t, 10*time.Second), nil, onion, 18083)
		if err != nil {
			t.Fatalf("%s: %v", c.uri, err)
		}
		roundTrip(t, nc)
		if got := s.Asked(); len(got) != 1 || got[0] != onion+":18083" {
			t.Errorf("%s: proxy asked for %v", c.uri, got)
		}
	}
	// SOCKS 4 reaches an IPv4 destination, and refuses to send a name.
	s := proxy(t, "", "")
	s.Route("127.0.0.1", dest)
	e, _ := ParseEndpoint("socks4://" + s.Addr())
	_, port, _ := net.SplitHostPort(dest)
	var p uint16
	for _, ch := range port {
		p = p*10 + uint16(ch-'0')
	}
	nc, err := e.Dial(ctx(t, 10*time.Second), nil, "127.0.0.1", p)
	if err != nil {
		t.Fatal(err)
	}
	roundTrip(t, nc)
	if _, err := e.Dial(ctx(t, 10*time.Second), nil, onion, 1); !errors.Is(err, ErrRequest) {
		t.Errorf("socks4 with a name: %v", err)
	}
}

func TestProxyRefuses(t *testing.T) {
	for _, uri := range []string{"socks4a://P", "socks5://P"} {
		s := proxy(t, "", "")
		e, _ := ParseEndpoint(strings.Replace(uri, "P", s.Addr(), 1))
		_, err := e.Dial(ctx(t, 10*time.Second), nil, onion, 18083) // no route
		if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), onion) {
			t.Errorf("%s: %v", uri, err)
		}
	}
	// Wrong credentials, none when they are needed.
	s := proxy(t, "alice", "pw")
	s.Route(onion, echo(t))
	for uri, want := range map[string]error{"socks5://alice:nope@": ErrAuth, "socks5://": ErrAuth} {
		e, _ := ParseEndpoint(uri + s.Addr())
		if _, err := e.Dial(ctx(t, 10*time.Second), nil, onion, 18083); !errors.Is(err, want) {
			t.Errorf("%s: %v", uri, err)
		}
	}
	// Nothing listening.
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := ln.Addr().String()
	_ = ln.Close()
	e, _ := ParseEndpoint(addr)
	if _, err := e.Dial(ctx(t, 10*time.Second), nil, onion, 1); err == nil || !strings.Contains(err.Error(), "connecting to proxy") {
		t.Errorf("no proxy: %v", err)
	}
}

// fakeProxy answers every connection with fn.
func fakeProxy(t *testing.T, fn func(net.Conn)) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	t.Cleanup(func() { close(done); _ = ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				fn(c)
				<-done // hold it open until the test ends
			}()
		}
	}()
	return ln.Addr().String()
}

func TestProxyStallsOrBabbles(t *testing.T) {
	stall := fakeProxy(t, func(c net.Conn) { _, _ = c.Read(make([]byte, 512)) })
	for _, v := range []string{"", "socks5://"} {
		e, _ := ParseEndpoint(v + stall)
		// The proxy never answers: only the deadline ends the handshake.
		if _, err := e.Dial(ctx(t, 200*time.Millisecond), nil, onion, 1); !errors.Is(err, ErrTimeout) {
			t.Errorf("%s stalled: %v", v, err)
		}
	}
	garbage := fakeProxy(t, func(c net.Conn) {
		_, _ = c.Read(make([]byte, 512))
		_, _ = c.Write([]byte("HTTP/1.1 400 Bad Request\r\n\r\n"))
	})
	for _, v := range []string{"", "socks5://"} {
		e, _ := ParseEndpoint(v + garbage)
		if _, err := e.Dial(ctx(t, 10*time.Second), nil, onion, 1); !errors.Is(err, ErrProtocol) {
			t.Errorf("%s garbage: %v", v, err)
		}
	}
	hangup := fakeProxy(t, func(c net.Conn) { _, _ = c.Read(make([]byte, 512)); _ = c.Close() })
	e, _ := ParseEndpoint(hangup)
	if _, err := e.Dial(ctx(t, 10*time.Second), nil, onion, 1); !errors.Is(err, ErrRefused) {
		t.Errorf("hang-up: %v", err)
	}
}

// FuzzReplies feeds the reply parsers arbitrary bytes: an error or
// success, never a panic, and never more read than a reply holds.
func FuzzReplies(f *testing.F) {
	f.Add([]byte{0, 90, 0, 0, 0, 0, 0, 0})
	f.Add([]byte{5, 0, 0, 3, 5, 'a', 'b', 'c', 'd', 'e', 0, 80})
	f.Add([]byte{5, 0, 0, 4, 15: 0, 16: 0, 17: 0, 18: 0, 19: 0, 20: 0, 21: 0})
	f.Add([]byte{1, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, read := range []func(io.Reader) error{ReadReply4, ReadReply5, ReadAuthReply5,
			func(r io.Reader) error { _, err := ReadMethod5(r); return err }} {
			r := bytes.NewReader(b)
			err := read(r)
			if used := len(b) - r.Len(); used > 4+1+255+2 {
				t.Fatalf("read %d bytes", used)
			}
			if err == nil && len(b) < 2 {
				t.Fatalf("success on %x", b)
			}
		}
	})
}
