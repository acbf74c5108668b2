// Package daemonctl is monerod's command-line client mode for gonerod:
// `gonerod status`, `gonerod print_block 5`, ... send a command over RPC to
// a running daemon and print its answer as monerod v0.18.0.0 prints it
// (src/daemon/command_parser_executor.cpp and rpc_command_executor.cpp):
// same text, spacing, units, and colours only on a terminal.
//
// Each command is a method of Ctl, which holds the RPC client (an
// interface, so tests need no process) and the writers.
package daemonctl

import (
	"bufio"
	"bytes"
	"context"
	"crypto/md5"
	"crypto/rand"
	"crypto/tls"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/gonero/gonero/httpd"
)

// Client is what the commands need of a daemon's RPC.
type Client interface {
	// Path posts req as JSON to path (e.g. "/getinfo") and decodes the
	// answer into res.
	Path(path string, req, res any) error
	// Method calls a JSON-RPC method under /json_rpc and decodes its
	// result into res; a JSON-RPC error is an error.
	Method(method string, params, res any) error
	// Addr is the daemon's host:port as monerod names it in messages.
	Addr() string
}

// ErrConnect is wrapped by a Client's error when the daemon could not be
// reached at all (monerod: "Couldn't connect to daemon").
var ErrConnect = errors.New("couldn't connect to daemon")

// Timeout is monerod's t_http_connection::TIMEOUT (3 min 30 s), for the
// connection and for each request.
const Timeout = 3*time.Minute + 30*time.Second

// Login is --rpc-login's user and password.
type Login struct {
	User, Password string
}

// HTTPClient is a Client over HTTP/1.1, one TCP connection per call as
// monerod's client opens one per request, with digest authentication on the
// same connection (epee keeps the digest nonce per connection).
type HTTPClient struct {
	Host    string
	Port    string
	Login   *Login
	Timeout time.Duration // 0: Timeout
	// TLS, if set, wraps each connection (--rpc-ssl enabled or
	// autodetect). With TLSFallback (autodetect) a failed handshake is
	// followed by a plain connection, as epee's client "reconnects
	// without SSL".
	TLS         *tls.Config
	TLSFallback bool
}

// Addr implements Client.
func (c *HTTPClient) Addr() string { return c.Host + ":" + c.Port }

// maxAnswer bounds an answer's size: a block or pool listing is far below
// it, and a hostile or broken peer cannot make us buffer more.
const maxAnswer = 256 << 20

// Path implements Client.
func (c *HTTPClient) Path(path string, req, res any) error {
	body, err := json.Marshal(req)
	if err != nil {
		return err
	}
	answer, err := c.post(path, body)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(answer, res); err != nil {
		return fmt.Errorf("%s: undecodable answer: %w", path, err)
	}
	return nil
}

// Method implements Client.
func (c *HTTPClient) Method(method string, params, res any) error {
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 0, "method": method, "params": params})
	if err != nil {
		return err
	}
	answer, err := c.post("/json_rpc", body)
	if err != nil {
		return err
	}
	var env struct {
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(answer, &env); err != nil {
		return fmt.Errorf("%s: undecodable answer: %w", method, err)
	}
	if env.Error != nil {
		return fmt.Errorf("%s: error %d: %s", method, env.Error.Code, env.Error.Message)
	}
	if len(env.Result) == 0 {
		return fmt.Errorf("%s: answer without result", method)
	}
	return json.Unmarshal(env.Result, res)
}

func (c *HTTPClient) post(path string, body []byte) ([]byte, error) {
	timeout := c.Timeout
	if timeout <= 0 {
		timeout = Timeout
	}
	conn, err := c.dial(timeout)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	if err := conn.SetDeadline(time.Now().Add(timeout)); err != nil {
		return nil, err
	}
	r := bufio.NewReader(conn)
	resp, answer, err := exchange(conn, r, c.Addr(), path, body, "")
	if err != nil {
		return nil, err
	}
	if resp.StatusCode == http.StatusUnauthorized && c.Login != nil {
		authz, ok := digestAuthorization(resp.Header.Values("WWW-Authenticate"), c.Login, "POST", path)
		if !ok {
			return nil, fmt.Errorf("%s: HTTP 401 without a digest challenge we can answer", path)
		}
		if resp, answer, err = exchange(conn, r, c.Addr(), path, body, authz); err != nil {
			return nil, err
		}
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s: HTTP %d", path, resp.StatusCode)
	}
	return answer, nil
}

// dial connects, with TLS first if set (see HTTPClient.TLS).
func (c *HTTPClient) dial(timeout time.Duration) (net.Conn, error) {
	addr := net.JoinHostPort(c.Host, c.Port)
	conn, err := net.DialTimeout("tcp", addr, timeout)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrConnect, err)
	}
	if c.TLS == nil {
		return conn, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	tc := tls.Client(conn, c.TLS)
	herr := tc.HandshakeContext(ctx)
	if herr == nil {
		return tc, nil
	}
	conn.Close()
	if !c.TLSFallback {
		return nil, fmt.Errorf("%w: TLS: %v", ErrConnect, herr)
	}
	if conn, err = net.DialTimeout("tcp", addr, timeout); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrConnect, err)
	}
	return conn, nil
}

func exchange(w io.Writer, r *bufio.Reader, host, path string, body []byte, authz string) (*http.Response, []byte, error) {
	var req bytes.Buffer
	fmt.Fprintf(&req, "POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n", path, host, len(body))
	if authz != "" {
		fmt.Fprintf(&req, "Authorization: %s\r\n", authz)
	}
	req.WriteString("\r\n")
	req.Write(body)
	if _, err := w.Write(req.Bytes()); err != nil {
		return nil, nil, err
	}
	resp, err := http.ReadResponse(r, nil)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	answer, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer+1))
	if err != nil {
		return nil, nil, err
	}
	if len(answer) > maxAnswer {
		return nil, nil, fmt.Errorf("%s: answer larger than %d bytes", path, maxAnswer)
	}
	return resp, answer, nil
}

// digestAuthorization answers the first MD5 (not MD5-sess) challenge with
// qop=auth, as epee's client does (RFC 2617). The challenges are read by
// httpd.ParseDigest, the parser the server reads credentials with.
func digestAuthorization(challenges []string, login *Login, method, uri string) (string, bool) {
	for _, ch := range challenges {
		p, ok := httpd.ParseDigest(ch)
		if !ok {
			continue
		}
		if alg := p.Algorithm; alg != "" && !strings.EqualFold(alg, "MD5") {
			continue
		}
		nonce, realm := p.Nonce, p.Realm
		if nonce == "" {
			continue
		}
		qopAuth := false
		for _, q := range strings.Split(p.QOP, ",") {
			qopAuth = qopAuth || strings.EqualFold(strings.TrimSpace(q), "auth")
		}
		ha1 := md5Hex(login.User + ":" + realm + ":" + login.Password)
		ha2 := md5Hex(method + ":" + uri)
		var cn [8]byte
		_, _ = rand.Read(cn[:])
		cnonce := hex.EncodeToString(cn[:])
		const nc = "00000001"
		var b strings.Builder
		fmt.Fprintf(&b, `Digest username=%q, realm=%q, nonce=%q, uri=%q, algorithm=MD5`, login.User, realm, nonce, uri)
		if qopAuth {
			fmt.Fprintf(&b, `, qop=auth, nc=%s, cnonce=%q, response=%q`, nc, cnonce, md5Hex(ha1+":"+nonce+":"+nc+":"+cnonce+":auth:"+ha2))
		} else {
			fmt.Fprintf(&b, `, response=%q`, md5Hex(ha1+":"+nonce+":"+ha2))
		}
		if op := p.Opaque; op != "" {
			fmt.Fprintf(&b, `, opaque=%q`, op)
		}
		return b.String(), true
	}
	return "", false
}

func md5Hex(s string) string {
	sum := md5.Sum([]byte(s))
	return hex.EncodeToString(sum[:])
}
