package httpd

import (
	"log/slog"
	"net"
	"net/netip"
	"sync"
)

// limitListener enforces monerod's RPC connection limits
// (--rpc-max-connections, --rpc-max-connections-per-private-ip): a
// connection over either limit is accepted by TCP and closed at once,
// without any HTTP, which is what the v0.18 captures show for the 26th
// connection from one IP. It also counts open connections for
// OpenConnections.
type limitListener struct {
	net.Listener
	maxTotal, maxPerIP int // < 0: no limit
	log                *slog.Logger

	mu       sync.Mutex
	open     int
	perIP    map[netip.Addr]int
	accepted uint64 // connections admitted since start
	refused  uint64 // connections closed at once because of a limit
}

func newLimitListener(inner net.Listener, maxTotal, maxPerIP int, log *slog.Logger) *limitListener {
	return &limitListener{
		Listener: inner,
		maxTotal: maxTotal,
		maxPerIP: maxPerIP,
		log:      log,
		perIP:    make(map[netip.Addr]int),
	}
}

// Accept returns the next connection within the limits; connections over a
// limit are closed here and never reach net/http.
func (l *limitListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		ip := remoteIP(c)
		if l.admit(ip) {
			return &countedConn{Conn: c, ln: l, ip: ip}, nil
		}
		_ = c.Close()
		l.log.Debug("httpd: connection refused: limit reached", "remote", c.RemoteAddr().String())
	}
}

// remoteIP is the peer's address without port, IPv4-mapped IPv6 unmapped so
// that one client counts once whichever way it reached a dual-stack socket.
func remoteIP(c net.Conn) netip.Addr {
	if ta, ok := c.RemoteAddr().(*net.TCPAddr); ok {
		return ta.AddrPort().Addr().Unmap()
	}
	if ap, err := netip.ParseAddrPort(c.RemoteAddr().String()); err == nil {
		return ap.Addr().Unmap()
	}
	return netip.Addr{} // all unknown peers share one slot count
}

func (l *limitListener) admit(ip netip.Addr) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if (l.maxTotal >= 0 && l.open >= l.maxTotal) || (l.maxPerIP >= 0 && l.perIP[ip] >= l.maxPerIP) {
		l.refused++
		return false
	}
	l.open++
	l.perIP[ip]++
	l.accepted++
	return true
}

func (l *limitListener) release(ip netip.Addr) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.open--
	if n := l.perIP[ip] - 1; n > 0 {
		l.perIP[ip] = n
	} else {
		delete(l.perIP, ip)
	}
}

// Open is the number of admitted connections not yet closed.
func (l *limitListener) Open() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.open
}

// stats returns the admitted and refused totals (for tests).
func (l *limitListener) stats() (accepted, refused uint64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.accepted, l.refused
}

// countedConn gives its slot back exactly once, however often it is closed.
type countedConn struct {
	net.Conn
	ln   *limitListener
	ip   netip.Addr
	once sync.Once
}

func (c *countedConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() { c.ln.release(c.ip) })
	return err
}

// CloseWrite lets net/http half-close before it hangs up on a client whose
// request body it did not read (413), so that the client can still read the
// answer instead of being reset.
func (c *countedConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}
