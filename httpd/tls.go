package httpd

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"sync"
	"time"
)

// TLS on an RPC listener, as monerod 0.18 offers it (--rpc-ssl,
// docs/tls.md): epee's connection (contrib/epee/include/net/
// abstract_tcp_server2.inl, start_handshake) either forces a TLS handshake
// (enabled), never does one (disabled), or, by default, reads the first 9
// bytes of a connection and starts a handshake only when they look like a
// TLS ClientHello (autodetect, net_ssl.cpp's is_ssl), so that TLS and plain
// HTTP share one port.
//
// Here the decision and the handshake happen in the connection's first
// Read, in the goroutine that serves it, never in the accept loop: a
// client that stalls during either holds only its own connection. Both
// are bounded by TLS.HandshakeTimeout from the accept, and the connection
// counts against the connection limits meanwhile (the limit listener
// admitted it before), so a handshake flood costs at most the limits'
// worth of connections for that long.

// TLSMode is --rpc-ssl.
type TLSMode uint8

// The --rpc-ssl modes.
const (
	TLSDisabled   TLSMode = iota // plain HTTP only
	TLSEnabled                   // TLS only
	TLSAutodetect                // either, decided by the connection's first bytes
)

// ParseTLSMode reads monerod's --rpc-ssl words (ssl_support_from_string):
// enabled, disabled, autodetect.
func ParseTLSMode(s string) (TLSMode, error) {
	switch s {
	case "enabled":
		return TLSEnabled, nil
	case "disabled":
		return TLSDisabled, nil
	case "autodetect":
		return TLSAutodetect, nil
	}
	return TLSDisabled, fmt.Errorf("httpd: TLS mode %q is not enabled, disabled or autodetect", s)
}

func (m TLSMode) String() string {
	switch m {
	case TLSEnabled:
		return "enabled"
	case TLSAutodetect:
		return "autodetect"
	}
	return "disabled"
}

// DefaultTLSHandshakeTimeout bounds the time from a connection's accept to
// the end of its TLS handshake (and, in autodetect, to the bytes that
// decide it): monerod's NEW_CONNECTION_TIMEOUT_REMOTE.
const DefaultTLSHandshakeTimeout = 10 * time.Second

// TLS is a listener's TLS setting (Config.TLS). A nil *TLS, or Mode
// TLSDisabled, serves plain HTTP only.
type TLS struct {
	Mode TLSMode
	// Config is the server's TLS configuration: its certificate and how
	// it checks client certificates (ServerTLSConfig builds monerod's).
	Config *tls.Config
	// HandshakeTimeout: see DefaultTLSHandshakeTimeout; 0 means the
	// default.
	HandshakeTimeout time.Duration
}

func (t *TLS) on() bool { return t != nil && t.Mode != TLSDisabled && t.Config != nil }

// sslMagicSize is epee's get_ssl_magic_size(): the bytes autodetect reads
// before it decides.
const sslMagicSize = 9

// LooksLikeTLS is epee's is_ssl (net_ssl.cpp) on a connection's first
// bytes: a handshake record (0x16) of a 3.x version holding exactly one
// ClientHello (type 1) that fills the record. It needs sslMagicSize bytes.
func LooksLikeTLS(b []byte) bool {
	if len(b) < sslMagicSize {
		return false
	}
	return b[0] == 0x16 && b[1] == 3 && b[5] == 1 && b[6] == 0 &&
		int(b[3])<<8|int(b[4]) == (int(b[7])<<8|int(b[8]))+4
}

// sniff decides autodetect from the bytes read so far: done reports
// whether they suffice, isTLS the verdict. Anything whose first byte is
// not a handshake record is plain at once (epee reads 9 bytes whatever
// they are; an HTTP request is longer, so only the moment differs).
func sniff(b []byte) (isTLS, done bool) {
	if len(b) == 0 {
		return false, false
	}
	if b[0] != 0x16 {
		return false, true
	}
	if len(b) < sslMagicSize {
		return false, false
	}
	return LooksLikeTLS(b), true
}

// tlsListener hands out connections that decide plain or TLS on their
// first Read. It sits under the limit listener, so that the connections it
// makes are counted and the server's per-connection state stays on the
// limit listener's connection.
type tlsListener struct {
	net.Listener
	mode    TLSMode
	config  *tls.Config
	timeout time.Duration
}

func newTLSListener(inner net.Listener, t *TLS) *tlsListener {
	timeout := t.HandshakeTimeout
	if timeout <= 0 {
		timeout = DefaultTLSHandshakeTimeout
	}
	return &tlsListener{Listener: inner, mode: t.Mode, config: t.Config, timeout: timeout}
}

func (l *tlsListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &tlsConn{Conn: c, ln: l, deadline: time.Now().Add(l.timeout)}, nil
}

// tlsConn is an accepted connection before and after its first Read
// decides what it is. Read, Write and the deadline setters come from the
// one goroutine serving the connection; Close may come from any.
type tlsConn struct {
	net.Conn              // the TCP connection
	ln       *tlsListener //
	deadline time.Time    // the handshake's, from the accept
	started  bool         // start ran (serving goroutine only)
	startErr error
	rd, wd   time.Time // the server's deadlines, restored after the handshake
	active   net.Conn  // what Read and Write use once started: the TCP connection, a replay of the sniffed bytes, or TLS
	mu       sync.Mutex
	closed   bool
	tc       *tls.Conn // set under mu
}

// start decides the connection: in autodetect it reads up to 9 bytes and
// looks at them (sniff); a TLS connection then does its handshake. Both
// within the handshake deadline; the server's own deadlines are restored
// afterwards.
func (c *tlsConn) start() error {
	c.started = true
	_ = c.Conn.SetDeadline(c.deadline)
	var pre []byte
	isTLS := c.ln.mode == TLSEnabled
	if c.ln.mode == TLSAutodetect {
		var buf [sslMagicSize]byte
		n := 0
		for {
			k, err := c.Conn.Read(buf[n:])
			n += k
			t, done := sniff(buf[:n])
			if done {
				isTLS = t
				break
			}
			if err != nil {
				return err
			}
		}
		pre = append([]byte(nil), buf[:n]...)
	}
	if !isTLS {
		if len(pre) > 0 {
			c.active = &replayConn{Conn: c.Conn, pre: pre}
		} else {
			c.active = c.Conn
		}
		return c.restoreDeadlines()
	}
	var under net.Conn = c.Conn
	if len(pre) > 0 {
		under = &replayConn{Conn: c.Conn, pre: pre}
	}
	tc := tls.Server(under, c.ln.config)
	ctx, cancel := context.WithDeadline(context.Background(), c.deadline)
	defer cancel()
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return net.ErrClosed
	}
	c.tc = tc
	c.mu.Unlock()
	if err := tc.HandshakeContext(ctx); err != nil {
		return err
	}
	c.active = tc
	return c.restoreDeadlines()
}

func (c *tlsConn) restoreDeadlines() error {
	if err := c.Conn.SetReadDeadline(c.rd); err != nil {
		return err
	}
	return c.Conn.SetWriteDeadline(c.wd)
}

func (c *tlsConn) Read(p []byte) (int, error) {
	if !c.started {
		c.startErr = c.start()
	}
	if c.startErr != nil {
		return 0, c.startErr
	}
	return c.active.Read(p)
}

func (c *tlsConn) Write(p []byte) (int, error) {
	if !c.started {
		c.startErr = c.start()
	}
	if c.startErr != nil {
		return 0, c.startErr
	}
	return c.active.Write(p)
}

// The server sets deadlines before the first Read: they are remembered
// and apply once the handshake (which has its own) is over.
func (c *tlsConn) SetDeadline(t time.Time) error {
	c.rd, c.wd = t, t
	if !c.started {
		return nil
	}
	return c.Conn.SetDeadline(t)
}

func (c *tlsConn) SetReadDeadline(t time.Time) error {
	c.rd = t
	if !c.started {
		return nil
	}
	return c.Conn.SetReadDeadline(t)
}

func (c *tlsConn) SetWriteDeadline(t time.Time) error {
	c.wd = t
	if !c.started {
		return nil
	}
	return c.Conn.SetWriteDeadline(t)
}

// Close sends TLS's close_notify when a handshake completed (tls.Conn
// does, bounded in time) and closes the TCP connection; closing during a
// handshake ends the handshake.
func (c *tlsConn) Close() error {
	c.mu.Lock()
	c.closed = true
	tc := c.tc
	c.mu.Unlock()
	if tc != nil {
		return tc.Close()
	}
	return c.Conn.Close()
}

// CloseWrite half-closes (countedConn's drain before hanging up): TLS's
// close_notify, or TCP's FIN on a plain connection.
func (c *tlsConn) CloseWrite() error {
	if tc, ok := c.active.(*tls.Conn); ok {
		return tc.CloseWrite()
	}
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

// SetWriteBuffer sizes the TCP send buffer (--rpc-response-soft-limit).
func (c *tlsConn) SetWriteBuffer(n int) error {
	if tc, ok := c.Conn.(*net.TCPConn); ok {
		return tc.SetWriteBuffer(n)
	}
	return nil
}

// replayConn reads the bytes autodetect consumed before the connection's.
type replayConn struct {
	net.Conn
	pre []byte
}

func (r *replayConn) Read(p []byte) (int, error) {
	if len(r.pre) > 0 {
		n := copy(p, r.pre)
		r.pre = r.pre[n:]
		return n, nil
	}
	return r.Conn.Read(p)
}

// What countedConn and the limit listener look for on a connection.
var (
	_ interface{ CloseWrite() error }        = (*tlsConn)(nil)
	_ interface{ SetWriteBuffer(int) error } = (*tlsConn)(nil)
)
