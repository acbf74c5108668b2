// Package socks is the SOCKS client monerod's --proxy and --tx-proxy use
// (src/net/socks.cpp, parse.cpp): SOCKS 4a (monerod's default, when the
// proxy is given without a scheme), SOCKS 4 for IPv4 destinations, and
// SOCKS 5 with optional user:password authentication (RFC 1928, RFC 1929).
// Names (.onion, .b32.i2p) are sent to the proxy, never resolved here.
//
// A proxy that refuses, stalls past the context's deadline or answers
// something that is not SOCKS gives an error that says so; nothing falls
// back to a direct connection.
package socks

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Version is the SOCKS version spoken to the proxy.
type Version uint8

// Versions, as monerod's endpoint::get picks them from the scheme.
const (
	V4a Version = iota // no scheme, socks://, socks4a://
	V4                 // socks4://
	V5                 // socks5://
)

func (v Version) String() string {
	switch v {
	case V4:
		return "socks4"
	case V5:
		return "socks5"
	}
	return "socks4a"
}

// Endpoint is a proxy: its address, version and credentials (SOCKS 5 only).
type Endpoint struct {
	Addr       netip.AddrPort
	Version    Version
	User, Pass string
}

func (e Endpoint) String() string { return e.Version.String() + "://" + e.Addr.String() }

// ConnectTimeout is P2P_DEFAULT_SOCKS_CONNECT_TIMEOUT: how long monerod
// gives a proxy to connect a peer.
const ConnectTimeout = 45 * time.Second

// ParseEndpoint is net::socks::endpoint::get:
// [scheme://][user[:pass]@]IP:port, the user and password percent-encoded.
// Credentials need SOCKS 5; the address must be an IP with a port that is
// not 0 (monerod resolves no proxy name either).
func ParseEndpoint(s string) (Endpoint, error) {
	var e Endpoint
	rest := s
	scheme := ""
	if i := strings.Index(rest, "://"); i >= 0 {
		scheme, rest = rest[:i], rest[i+3:]
	}
	switch scheme {
	case "", "socks", "socks4a":
		e.Version = V4a
	case "socks4":
		e.Version = V4
	case "socks5":
		e.Version = V5
	default:
		return e, fmt.Errorf("socks: proxy %q: unknown scheme %q (want socks4a, socks4 or socks5)", s, scheme)
	}
	if i := strings.LastIndexByte(rest, '@'); i >= 0 {
		userinfo := rest[:i]
		rest = rest[i+1:]
		user, pass, _ := strings.Cut(userinfo, ":")
		var err1, err2 error
		e.User, err1 = url.PathUnescape(user)
		e.Pass, err2 = url.PathUnescape(pass)
		if err1 != nil || err2 != nil {
			return e, fmt.Errorf("socks: proxy %q: bad percent-encoding in the credentials", s)
		}
		if (e.User != "" || e.Pass != "") && e.Version != V5 {
			return e, fmt.Errorf("socks: proxy %q: a user and password need socks5://", s)
		}
		if len(e.User) > 255 || len(e.Pass) > 255 {
			return e, fmt.Errorf("socks: proxy %q: user and password are at most 255 bytes each", s)
		}
	}
	ap, err := netip.ParseAddrPort(rest)
	if err != nil || ap.Port() == 0 {
		return e, fmt.Errorf("socks: proxy %q: want IP:port", s)
	}
	e.Addr = netip.AddrPortFrom(ap.Addr().Unmap(), ap.Port())
	return e, nil
}

// Dialer opens the TCP connection to the proxy.
type Dialer func(ctx context.Context, addr string) (net.Conn, error)

// Dial connects to host:port through the proxy: a name (sent to the
// proxy) or an IP literal. The handshake must finish before ctx ends.
func (e Endpoint) Dial(ctx context.Context, dial Dialer, host string, port uint16) (net.Conn, error) {
	if dial == nil {
		var d net.Dialer
		dial = func(ctx context.Context, addr string) (net.Conn, error) { return d.DialContext(ctx, "tcp", addr) }
	}
	nc, err := dial(ctx, e.Addr.String())
	if err != nil {
		return nil, fmt.Errorf("socks: connecting to proxy %s: %w", e.Addr, err)
	}
	if err := e.Handshake(ctx, nc, host, port); err != nil {
		_ = nc.Close()
		return nil, err
	}
	return nc, nil
}

// Handshake asks the proxy on nc to connect to host:port. On success nc
// carries the connection to the destination, with no deadline left set.
func (e Endpoint) Handshake(ctx context.Context, nc net.Conn, host string, port uint16) error {
	if dl, ok := ctx.Deadline(); ok {
		_ = nc.SetDeadline(dl)
	}
	stop := context.AfterFunc(ctx, func() { _ = nc.SetDeadline(time.Unix(1, 0)) })
	err := e.handshake(nc, host, port)
	if !stop() || ctx.Err() != nil {
		if err == nil {
			err = ctx.Err()
		}
		err = fmt.Errorf("%w (%v)", ErrTimeout, err)
	} else if ne, ok := err.(net.Error); ok && ne.Timeout() {
		err = fmt.Errorf("%w (%v)", ErrTimeout, err)
	}
	if err != nil {
		return fmt.Errorf("socks: %s to %s: %w", e, net.JoinHostPort(host, strconv.Itoa(int(port))), err)
	}
	_ = nc.SetDeadline(time.Time{})
	return nil
}

// Errors of a handshake.
var (
	ErrTimeout  = errors.New("the proxy did not answer in time")
	ErrRefused  = errors.New("the proxy refused the connection")
	ErrAuth     = errors.New("the proxy refused the user and password")
	ErrProtocol = errors.New("the proxy's answer is not SOCKS")
	ErrRequest  = errors.New("cannot be asked of this proxy")
)

func (e Endpoint) handshake(rw io.ReadWriter, host string, port uint16) error {
	if e.Version == V5 {
		return e.handshake5(rw, host, port)
	}
	req, err := request4(e.Version, host, port)
	if err != nil {
		return err
	}
	if _, err := rw.Write(req); err != nil {
		return err
	}
	return ReadReply4(rw)
}

// request4 is a SOCKS 4 or 4a CONNECT: an IPv4 destination, or (4a) a
// name after the invalid IP 0.0.0.1; the user id is empty.
func request4(v Version, host string, port uint16) ([]byte, error) {
	req := []byte{4, 1, byte(port >> 8), byte(port)}
	if ip, err := netip.ParseAddr(host); err == nil && ip.Unmap().Is4() {
		b := ip.Unmap().As4()
		return append(append(req, b[:]...), 0), nil
	}
	if v == V4 {
		return nil, fmt.Errorf("%w: socks4 reaches IPv4 addresses only, not %q (use socks4a or socks5)", ErrRequest, host)
	}
	if host == "" || len(host) > 255 || strings.IndexByte(host, 0) >= 0 {
		return nil, fmt.Errorf("%w: host name %q", ErrRequest, host)
	}
	req = append(req, 0, 0, 0, 1, 0)
	return append(append(req, host...), 0), nil
}

// ReadReply4 reads a SOCKS 4 reply: 8 bytes, version 0, code 90 granted.
func ReadReply4(r io.Reader) error {
	var b [8]byte
	if _, err := io.ReadFull(r, b[:]); err != nil {
		return replyReadError(err)
	}
	if b[0] != 0 {
		return fmt.Errorf("%w: SOCKS 4 reply version %d", ErrProtocol, b[0])
	}
	switch b[1] {
	case 90:
		return nil
	case 91:
		return fmt.Errorf("%w: request rejected or failed (SOCKS 4 code 91)", ErrRefused)
	case 92, 93:
		return fmt.Errorf("%w: identd check failed (SOCKS 4 code %d)", ErrRefused, b[1])
	}
	return fmt.Errorf("%w: SOCKS 4 reply code %d", ErrProtocol, b[1])
}

func replyReadError(err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("%w: the proxy closed the connection mid-handshake", ErrRefused)
	}
	return err
}

func (e Endpoint) handshake5(rw io.ReadWriter, host string, port uint16) error {
	auth := e.User != "" || e.Pass != ""
	greeting := []byte{5, 1, 0}
	if auth {
		greeting = []byte{5, 2, 0, 2}
	}
	if _, err := rw.Write(greeting); err != nil {
		return err
	}
	method, err := ReadMethod5(rw)
	if err != nil {
		return err
	}
	switch {
	case method == 2 && auth:
		req := append([]byte{1, byte(len(e.User))}, e.User...)
		req = append(append(req, byte(len(e.Pass))), e.Pass...)
		if _, err := rw.Write(req); err != nil {
			return err
		}
		if err := ReadAuthReply5(rw); err != nil {
			return err
		}
	case method == 0:
	case method == 0xff:
		if auth {
			return fmt.Errorf("%w: no acceptable authentication method (offered none and user/password)", ErrAuth)
		}
		return fmt.Errorf("%w: it wants authentication (give socks5://user:pass@IP:port)", ErrAuth)
	default:
		return fmt.Errorf("%w: it chose authentication method %d, which was not offered", ErrProtocol, method)
	}
	req, err := request5(host, port)
	if err != nil {
		return err
	}
	if _, err := rw.Write(req); err != nil {
		return err
	}
	return ReadReply5(rw)
}

// ReadMethod5 reads the method selection: version 5 and the method.
func ReadMethod5(r io.Reader) (byte, error) {
	var b [2]byte
	if _, err := io.ReadFull(r, b[:]); err != nil {
		return 0, replyReadError(err)
	}
	if b[0] != 5 {
		return 0, fmt.Errorf("%w: method selection version %d", ErrProtocol, b[0])
	}
	return b[1], nil
}

// ReadAuthReply5 reads RFC 1929's answer: version 1, status 0 for success.
func ReadAuthReply5(r io.Reader) error {
	var b [2]byte
	if _, err := io.ReadFull(r, b[:]); err != nil {
		return replyReadError(err)
	}
	if b[0] != 1 {
		return fmt.Errorf("%w: authentication reply version %d", ErrProtocol, b[0])
	}
	if b[1] != 0 {
		return fmt.Errorf("%w (status %d)", ErrAuth, b[1])
	}
	return nil
}

func request5(host string, port uint16) ([]byte, error) {
	req := []byte{5, 1, 0}
	if ip, err := netip.ParseAddr(host); err == nil {
		if ip = ip.Unmap(); ip.Is4() {
			b := ip.As4()
			req = append(append(req, 1), b[:]...)
		} else {
			b := ip.As16()
			req = append(append(req, 4), b[:]...)
		}
	} else {
		if host == "" || len(host) > 255 {
			return nil, fmt.Errorf("%w: host name %q", ErrRequest, host)
		}
		req = append(append(req, 3, byte(len(host))), host...)
	}
	return append(req, byte(port>>8), byte(port)), nil
}

var reply5Codes = [...]string{1: "general failure", 2: "not allowed by ruleset", 3: "network unreachable",
	4: "host unreachable", 5: "connection refused", 6: "TTL expired", 7: "command not supported",
	8: "address type not supported"}

// ReadReply5 reads a SOCKS 5 CONNECT reply, with its bound address (IPv4,
// a name of at most 255 bytes, or IPv6) and port, which it discards.
func ReadReply5(r io.Reader) error {
	var b [4]byte
	if _, err := io.ReadFull(r, b[:]); err != nil {
		return replyReadError(err)
	}
	if b[0] != 5 || b[2] != 0 {
		return fmt.Errorf("%w: reply header % x", ErrProtocol, b)
	}
	if b[1] != 0 {
		if int(b[1]) < len(reply5Codes) {
			return fmt.Errorf("%w: %s (SOCKS 5 code %d)", ErrRefused, reply5Codes[b[1]], b[1])
		}
		return fmt.Errorf("%w: SOCKS 5 reply code %d", ErrProtocol, b[1])
	}
	var n int
	switch b[3] {
	case 1:
		n = 4
	case 4:
		n = 16
	case 3:
		var l [1]byte
		if _, err := io.ReadFull(r, l[:]); err != nil {
			return replyReadError(err)
		}
		n = int(l[0])
	default:
		return fmt.Errorf("%w: reply address type %d", ErrProtocol, b[3])
	}
	var skip [255 + 2]byte
	if _, err := io.ReadFull(r, skip[:n+2]); err != nil {
		return replyReadError(err)
	}
	return nil
}
