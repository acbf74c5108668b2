// Package sockstest is a SOCKS 4a and 5 proxy for tests, on 127.0.0.1: it
// connects the names it is asked for (a test's .onion and .b32.i2p hosts)
// to the loopback addresses the test maps them to, so that every hop of a
// "Tor" connection stays on loopback. A name it does not know, and any
// IP destination, is refused: nothing leaves the machine through it.
package sockstest

import (
	"encoding/binary"
	"io"
	"net"
	"strconv"
	"sync"
)

// Server is a running proxy.
type Server struct {
	ln net.Listener
	// User and Pass, when set, are required (SOCKS 5 user/password).
	User, Pass string

	mu     sync.Mutex
	routes map[string]string // host[:port] -> 127.0.0.1:port
	asked  []string          // every destination asked for, host:port
	conns  map[net.Conn]bool
	wg     sync.WaitGroup
}

// Start listens on 127.0.0.1 on a free port.
func Start() (*Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &Server{ln: ln, routes: map[string]string{}, conns: map[net.Conn]bool{}}
	s.wg.Add(1)
	go s.serve()
	return s, nil
}

// Addr is the proxy's host:port.
func (s *Server) Addr() string { return s.ln.Addr().String() }

// Route sends connections for host (any port), or for host:port, to the
// loopback address to.
func (s *Server) Route(host, to string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.routes[host] = to
}

// Asked is every destination asked for so far, in order.
func (s *Server) Asked() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.asked...)
}

// Close stops the proxy and every connection through it.
func (s *Server) Close() {
	_ = s.ln.Close()
	s.mu.Lock()
	for c := range s.conns {
		_ = c.Close()
	}
	s.mu.Unlock()
	s.wg.Wait()
}

func (s *Server) track(c net.Conn, on bool) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if on {
		s.conns[c] = true
	} else {
		delete(s.conns, c)
	}
	return true
}

func (s *Server) serve() {
	defer s.wg.Done()
	for {
		c, err := s.ln.Accept()
		if err != nil {
			return
		}
		s.track(c, true)
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			defer s.track(c, false)
			defer c.Close()
			s.handle(c)
		}()
	}
}

func (s *Server) route(host string, port uint16) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	hp := net.JoinHostPort(host, strconv.Itoa(int(port)))
	s.asked = append(s.asked, hp)
	if to, ok := s.routes[hp]; ok {
		return to, true
	}
	to, ok := s.routes[host]
	return to, ok
}

func (s *Server) handle(c net.Conn) {
	var v [1]byte
	if _, err := io.ReadFull(c, v[:]); err != nil {
		return
	}
	var host string
	var port uint16
	var reply func(ok bool)
	switch v[0] {
	case 4:
		var h [7]byte // command, port, ip
		if _, err := io.ReadFull(c, h[:]); err != nil || h[0] != 1 {
			return
		}
		port = binary.BigEndian.Uint16(h[1:3])
		if readString0(c) == nil { // user id
			return
		}
		if h[3] == 0 && h[4] == 0 && h[5] == 0 && h[6] != 0 {
			name := readString0(c)
			if name == nil {
				return
			}
			host = string(name)
		} else {
			host = net.IP(h[3:7]).String()
		}
		reply = func(ok bool) {
			code := byte(91)
			if ok {
				code = 90
			}
			_, _ = c.Write([]byte{0, code, 0, 0, 0, 0, 0, 0})
		}
	case 5:
		var n [1]byte
		if _, err := io.ReadFull(c, n[:]); err != nil {
			return
		}
		methods := make([]byte, n[0])
		if _, err := io.ReadFull(c, methods); err != nil {
			return
		}
		want := byte(0)
		if s.User != "" || s.Pass != "" {
			want = 2
		}
		offered := false
		for _, m := range methods {
			offered = offered || m == want
		}
		if !offered {
			_, _ = c.Write([]byte{5, 0xff})
			return
		}
		_, _ = c.Write([]byte{5, want})
		if want == 2 {
			var ver [1]byte
			if _, err := io.ReadFull(c, ver[:]); err != nil || ver[0] != 1 {
				return
			}
			user, pass := readString8(c), readString8(c)
			if user == nil || pass == nil {
				return
			}
			if string(user) != s.User || string(pass) != s.Pass {
				_, _ = c.Write([]byte{1, 1})
				return
			}
			_, _ = c.Write([]byte{1, 0})
		}
		var h [4]byte
		if _, err := io.ReadFull(c, h[:]); err != nil || h[0] != 5 || h[1] != 1 {
			return
		}
		switch h[3] {
		case 1:
			var ip [4]byte
			if _, err := io.ReadFull(c, ip[:]); err != nil {
				return
			}
			host = net.IP(ip[:]).String()
		case 4:
			var ip [16]byte
			if _, err := io.ReadFull(c, ip[:]); err != nil {
				return
			}
			host = net.IP(ip[:]).String()
		case 3:
			name := readString8(c)
			if name == nil {
				return
			}
			host = string(name)
		default:
			return
		}
		var p [2]byte
		if _, err := io.ReadFull(c, p[:]); err != nil {
			return
		}
		port = binary.BigEndian.Uint16(p[:])
		reply = func(ok bool) {
			code := byte(5)
			if ok {
				code = 0
			}
			_, _ = c.Write([]byte{5, code, 0, 1, 0, 0, 0, 0, 0, 0})
		}
	default:
		return
	}
	to, ok := s.route(host, port)
	if !ok {
		reply(false)
		return
	}
	up, err := net.Dial("tcp", to)
	if err != nil {
		reply(false)
		return
	}
	s.track(up, true)
	defer s.track(up, false)
	defer up.Close()
	reply(true)
	done := make(chan struct{})
	go func() {
		_, _ = io.Copy(up, c)
		_ = up.Close()
		close(done)
	}()
	_, _ = io.Copy(c, up)
	_ = c.Close()
	<-done
}

func readString0(r io.Reader) []byte {
	var out []byte
	var b [1]byte
	for len(out) < 256 {
		if _, err := io.ReadFull(r, b[:]); err != nil {
			return nil
		}
		if b[0] == 0 {
			if out == nil {
				out = []byte{}
			}
			return out
		}
		out = append(out, b[0])
	}
	return nil
}

func readString8(r io.Reader) []byte {
	var n [1]byte
	if _, err := io.ReadFull(r, n[:]); err != nil {
		return nil
	}
	b := make([]byte, n[0])
	if _, err := io.ReadFull(r, b); err != nil {
		return nil
	}
	return b
}
