package httpd

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"sync"
	"sync/atomic"
)

// bind opens the listener's sockets as monerod's init_server does: IPv4
// (well, cfg.Addr) first, its failure fatal unless IgnoreIPv4; then, when
// AddrIPv6 is set (--rpc-use-ipv6), an IPv6-only socket, its failure
// logged, and fatal only when the first failed too. Both feed one
// listener, so the connection limits count them together (one epee server
// with two acceptors). With Allow set, banned clients are closed before
// the limits see them (epee's connection filter comes first). Unlike
// monerod, a server left with no socket at all (IPv4 failed and ignored,
// no IPv6) is an error: monerod runs such an RPC server listening nowhere.
func (s *Server) bind() (net.Listener, error) {
	var lns []net.Listener
	var err4 error
	if s.cfg.Addr != "" {
		var ln net.Listener
		if ln, err4 = net.Listen("tcp", s.cfg.Addr); err4 == nil {
			lns = append(lns, ln)
		} else {
			s.log.Error("httpd: failed to bind IPv4", "addr", s.cfg.Addr, "err", err4)
			if !s.cfg.IgnoreIPv4 || s.cfg.AddrIPv6 == "" {
				return nil, err4
			}
		}
	}
	if s.cfg.AddrIPv6 != "" {
		// "tcp6" sets IPV6_V6ONLY, as epee's v6_only(true).
		ln, err6 := net.Listen("tcp6", s.cfg.AddrIPv6)
		if err6 != nil {
			s.log.Error("httpd: failed to bind IPv6", "addr", s.cfg.AddrIPv6, "err", err6)
			if len(lns) == 0 {
				return nil, fmt.Errorf("failed to bind IPv4 and IPv6: %w", errors.Join(err4, err6))
			}
		} else {
			s.log.Info("httpd: listening (IPv6)", "addr", ln.Addr().String())
			lns = append(lns, ln)
		}
	}
	if len(lns) == 0 {
		return nil, errors.New("httpd: no address to listen on")
	}
	var ln net.Listener = lns[0]
	if len(lns) > 1 {
		ln = newMultiListener(lns)
	}
	if s.cfg.Allow != nil {
		ln = &filterListener{Listener: ln, allow: s.cfg.Allow, srv: s}
	}
	return ln, nil
}

// Addrs are the bound addresses: the IPv4 (Addr) one, then the IPv6 one
// (nil before Listen).
func (s *Server) Addrs() []net.Addr {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ln == nil {
		return nil
	}
	var inner net.Listener = s.ln.Listener
	if f, ok := inner.(*filterListener); ok {
		inner = f.Listener
	}
	if m, ok := inner.(*multiListener); ok {
		out := make([]net.Addr, len(m.lns))
		for i, l := range m.lns {
			out[i] = l.Addr()
		}
		return out
	}
	return []net.Addr{inner.Addr()}
}

// FilterRefused is how many connections Allow refused.
func (s *Server) FilterRefused() uint64 { return s.filterRefused.Load() }

// filterListener closes connections from clients Allow refuses, at once
// and without a byte, as epee does with a host its filter bans.
type filterListener struct {
	net.Listener
	allow func(netip.Addr) bool
	srv   *Server
}

func (l *filterListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		if ip := remoteIP(c); !ip.IsValid() || l.allow(ip) {
			return c, nil
		}
		l.srv.filterRefused.Add(1)
		l.srv.log.Debug("httpd: connection from a banned host refused", "remote", c.RemoteAddr().String())
		_ = c.Close()
	}
}

// multiListener accepts from several listeners as one.
type multiListener struct {
	lns   []net.Listener
	conns chan net.Conn
	errs  chan error
	done  chan struct{}
	once  sync.Once
	open  atomic.Int32
}

func newMultiListener(lns []net.Listener) *multiListener {
	m := &multiListener{lns: lns, conns: make(chan net.Conn), errs: make(chan error, len(lns)), done: make(chan struct{})}
	m.open.Store(int32(len(lns)))
	for _, l := range lns {
		go m.pump(l)
	}
	return m
}

func (m *multiListener) pump(l net.Listener) {
	for {
		c, err := l.Accept()
		if err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				continue
			}
			// The last listener to fail reports; the other failing alone
			// (closed) leaves the rest serving.
			if m.open.Add(-1) == 0 {
				m.errs <- err
			}
			return
		}
		select {
		case m.conns <- c:
		case <-m.done:
			_ = c.Close()
			return
		}
	}
}

func (m *multiListener) Accept() (net.Conn, error) {
	select {
	case c := <-m.conns:
		return c, nil
	case err := <-m.errs:
		return nil, err
	case <-m.done:
		return nil, net.ErrClosed
	}
}

func (m *multiListener) Close() error {
	var errs []error
	m.once.Do(func() {
		close(m.done)
		for _, l := range m.lns {
			errs = append(errs, l.Close())
		}
	})
	return errors.Join(errs...)
}

// Addr is the first listener's address.
func (m *multiListener) Addr() net.Addr { return m.lns[0].Addr() }
