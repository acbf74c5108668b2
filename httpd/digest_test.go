package httpd

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os/exec"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gonero/gonero/internal/testutil"
)

const (
	testUser = "rpcuser"
	testPass = "s3cret:with:colons"
)

var challengeRE = regexp.MustCompile(`^Digest qop="auth",algorithm=(MD5|MD5-sess),realm="monero-rpc",nonce="([A-Za-z0-9+/]{22}==)",stale=(true|false)$`)

// challenge checks a 401 against epee's exact form and returns its nonce
// and stale flag.
func challenge(t *testing.T, resp *http.Response, body []byte) (nonce string, stale bool) {
	return expect401(t).of(resp, body)
}

// challenger lets challenge take a (response, body) call directly:
// expect401(t).of(c.post(...)).
type challenger struct{ *testing.T }

func expect401(t *testing.T) challenger { return challenger{t} }

func (ch challenger) of(resp *http.Response, body []byte) (nonce string, stale bool) {
	t := ch.T
	t.Helper()
	if resp.StatusCode != 401 || string(body) != unauthorizedBody || resp.Header.Get("Content-Type") != "text/html" {
		t.Fatalf("want epee's 401, got %d %q %q", resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
	values := resp.Header.Values("Www-Authenticate")
	if len(values) != 2 {
		t.Fatalf("want 2 challenges, got %q", values)
	}
	for i, v := range values {
		m := challengeRE.FindStringSubmatch(v)
		if m == nil {
			t.Fatalf("challenge %q not in epee's form", v)
		}
		if want := []string{"MD5", "MD5-sess"}[i]; m[1] != want {
			t.Fatalf("challenge %d is %s, want %s", i, m[1], want)
		}
		if i == 0 {
			nonce, stale = m[2], m[3] == "true"
		} else if m[2] != nonce || (m[3] == "true") != stale {
			t.Fatalf("challenges disagree: %q", values)
		}
	}
	return nonce, stale
}

// digestParams describe one Authorization header built by the test client.
type digestParams struct {
	user, pass, method, uri, nonce string
	algorithm                      string // "", "MD5", "MD5-sess"
	qop                            string // "" (RFC 2069) or "auth"
	nc                             uint32
	cnonce                         string
}

// authorization computes an RFC 2617 client response (independently of the
// server code).
func (p digestParams) authorization() string {
	h := func(s string) string { return md5Hex(s) }
	ha1 := h(p.user + ":monero-rpc:" + p.pass)
	if strings.EqualFold(p.algorithm, "MD5-sess") {
		ha1 = h(ha1 + ":" + p.nonce + ":" + p.cnonce)
	}
	ha2 := h(p.method + ":" + p.uri)
	nc := fmt.Sprintf("%08x", p.nc)
	var resp string
	if p.qop == "" {
		resp = h(ha1 + ":" + p.nonce + ":" + ha2)
	} else {
		resp = h(ha1 + ":" + p.nonce + ":" + nc + ":" + p.cnonce + ":" + p.qop + ":" + ha2)
	}
	v := fmt.Sprintf(`Digest username="%s", realm="monero-rpc", nonce="%s", uri="%s", response="%s"`,
		p.user, p.nonce, p.uri, resp)
	if p.algorithm != "" {
		v += ", algorithm=" + p.algorithm
	}
	if p.qop != "" {
		v += fmt.Sprintf(", qop=%s, nc=%s, cnonce=\"%s\"", p.qop, nc, p.cnonce)
	}
	return v
}

// post sends POST /json_rpc with optional extra header lines.
func (c *rawClient) post(target string, headers ...string) (*http.Response, []byte) {
	c.t.Helper()
	req := "POST " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 2\r\n"
	for _, h := range headers {
		req += h + "\r\n"
	}
	return c.do("POST", req+"\r\n{}")
}

func authServer(t *testing.T, cfg Config) (*Server, *atomic.Int32) {
	t.Helper()
	var calls atomic.Int32
	routes := testRoutes(nil)
	inner := routes["/json_rpc"]
	routes["/json_rpc"] = func(r *Request) Response { calls.Add(1); return inner(r) }
	cfg.Login = &Login{User: testUser, Password: testPass}
	return startServer(t, cfg, routes), &calls
}

func TestDigestSequence(t *testing.T) {
	t.Parallel() // waits on timeouts and holds, not on the CPU
	for _, alg := range []string{"", "MD5", "MD5-sess", "md5-SESS"} {
		t.Run("alg="+alg, func(t *testing.T) {
			s, calls := authServer(t, Config{})
			c := newRawClient(t, s)
			nonce, stale := expect401(t).of(c.post("/json_rpc"))
			if stale {
				t.Fatal("first challenge stale")
			}
			p := digestParams{user: testUser, pass: testPass, method: "POST", uri: "/json_rpc", nonce: nonce,
				algorithm: alg, qop: "auth", cnonce: "Y2xpZW50bm9uY2U="}
			// nc 1, 2, 3, ... on one connection: all pass.
			for nc := uint32(1); nc <= 5; nc++ {
				p.nc = nc
				if resp, body := c.post("/json_rpc", "Authorization: "+p.authorization()); resp.StatusCode != 200 {
					t.Fatalf("nc=%d: %d %q", nc, resp.StatusCode, body)
				}
			}
			if calls.Load() != 5 {
				t.Fatalf("route ran %d times, want 5", calls.Load())
			}
			// Replaying nc 5: a valid response for an old count is stale,
			// with a fresh nonce.
			nonce2, stale := expect401(t).of(c.post("/json_rpc", "Authorization: "+p.authorization()))
			if !stale || nonce2 == nonce {
				t.Fatalf("replayed nc: stale=%v, nonce renewed=%v", stale, nonce2 != nonce)
			}
			// The old nonce is stale now too, whatever the nc.
			p.nc = 1
			if _, stale := expect401(t).of(c.post("/json_rpc", "Authorization: "+p.authorization())); !stale {
				t.Fatal("old nonce not stale")
			}
			// ... and every 401 replaced the nonce: fetch the current one.
			nonce3, _ := expect401(t).of(c.post("/json_rpc"))
			p.nonce, p.nc = nonce3, 1
			if resp, _ := c.post("/json_rpc", "Authorization: "+p.authorization()); resp.StatusCode != 200 {
				t.Fatalf("fresh nonce: %d", resp.StatusCode)
			}
			// Skipping a count (1 -> 3) is stale.
			p.nc = 3
			if _, stale := expect401(t).of(c.post("/json_rpc", "Authorization: "+p.authorization())); !stale {
				t.Fatal("skipped nc not stale")
			}
		})
	}
}

func TestDigestFailures(t *testing.T) {
	s, calls := authServer(t, Config{})
	c := newRawClient(t, s)
	nonce, _ := expect401(t).of(c.post("/json_rpc"))
	good := digestParams{user: testUser, pass: testPass, method: "POST", uri: "/json_rpc", nonce: nonce,
		algorithm: "MD5", qop: "auth", nc: 1, cnonce: "abc"}

	bad := map[string]digestParams{}
	p := good
	p.pass = "wrong"
	bad["wrong password"] = p
	p = good
	p.user = "RPCUSER"
	bad["wrong user"] = p
	p = good
	p.uri = "/get_info" // a credential for another target
	bad["other uri"] = p
	p = good
	p.method = "GET"
	bad["other method"] = p
	p = good
	p.algorithm = "SHA-256"
	bad["unsupported algorithm"] = p
	for name, p := range bad {
		p.nonce = nonce
		var stale bool
		nonce, stale = expect401(t).of(c.post("/json_rpc", "Authorization: "+p.authorization()))
		if stale {
			t.Errorf("%s: stale=true, want false", name)
		}
	}
	for _, h := range []string{"Basic cnBjdXNlcjpzM2NyZXQ=", "Digest", "", "Digest username=\"rpcuser\","} {
		if _, stale := expect401(t).of(c.post("/json_rpc", "Authorization: "+h)); stale {
			t.Errorf("%q: stale=true", h)
		}
	}
	if calls.Load() != 0 {
		t.Fatalf("route ran %d times without valid credentials", calls.Load())
	}
	// Unknown paths need authentication first, as in epee.
	if resp, _ := c.post("/nowhere"); resp.StatusCode != 401 {
		t.Fatalf("unknown path without auth: %d", resp.StatusCode)
	}
}

// TestDigestPerConnection: the nonce belongs to its connection. A valid
// response for another connection's nonce is stale on a new connection.
func TestDigestPerConnection(t *testing.T) {
	s, _ := authServer(t, Config{})
	a := newRawClient(t, s)
	nonce, _ := expect401(t).of(a.post("/json_rpc"))
	p := digestParams{user: testUser, pass: testPass, method: "POST", uri: "/json_rpc", nonce: nonce,
		qop: "auth", nc: 1, cnonce: "abc"}
	if resp, _ := a.post("/json_rpc", "Authorization: "+p.authorization()); resp.StatusCode != 200 {
		t.Fatal(resp.Status)
	}
	b := newRawClient(t, s)
	p.nc = 2
	if _, stale := expect401(t).of(b.post("/json_rpc", "Authorization: "+p.authorization())); !stale {
		t.Fatal("another connection's nonce accepted or not stale")
	}
	// a is unaffected.
	if resp, _ := a.post("/json_rpc", "Authorization: "+p.authorization()); resp.StatusCode != 200 {
		t.Fatal(resp.Status)
	}
	// A request without Authorization on a authenticated connection gets a
	// new challenge and resets the count.
	nonce2, _ := expect401(t).of(a.post("/json_rpc"))
	p.nonce, p.nc = nonce2, 1
	if resp, _ := a.post("/json_rpc", "Authorization: "+p.authorization()); resp.StatusCode != 200 {
		t.Fatal(resp.Status)
	}
}

// TestDigestRFC2069 : without qop the nonce is good for one use.
func TestDigestRFC2069(t *testing.T) {
	s, _ := authServer(t, Config{})
	c := newRawClient(t, s)
	nonce, _ := expect401(t).of(c.post("/json_rpc"))
	p := digestParams{user: testUser, pass: testPass, method: "POST", uri: "/json_rpc", nonce: nonce}
	if resp, _ := c.post("/json_rpc", "Authorization: "+p.authorization()); resp.StatusCode != 200 {
		t.Fatal(resp.Status)
	}
	if _, stale := expect401(t).of(c.post("/json_rpc", "Authorization: "+p.authorization())); !stale {
		t.Fatal("second use of an RFC 2069 credential not stale")
	}
}

// TestDigestCurl: curl --digest (as monerod's users do) over one
// connection, and with a wrong password.
func TestDigestCurl(t *testing.T) {
	curl := testutil.RequireTool(t, "curl", "apt-get install curl")
	s, calls := authServer(t, Config{})
	url := "http://" + s.Addr().String() + "/json_rpc"
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()

	cmd := exec.CommandContext(ctx, curl, "-sS", "--noproxy", "*", "--digest", "-u", testUser+":"+testPass,
		"-H", "Content-Type: application/json", "-d", `{"jsonrpc":"2.0","id":"0","method":"get_info"}`,
		"-o", "/dev/null", "-o", "/dev/null", "-o", "/dev/null", "-o", "/dev/null",
		"-w", `%{http_code} %{num_connects}\n`, url, url, url, url)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("curl: %v\n%s", err, out)
	}
	lines := strings.Fields(strings.ReplaceAll(string(out), "\n", " "))
	if len(lines) != 8 {
		t.Fatalf("curl output %q", out)
	}
	connects := 0
	for i := 0; i < 8; i += 2 {
		if lines[i] != "200" {
			t.Errorf("request %d: HTTP %s", i/2+1, lines[i])
		}
		var n int
		fmt.Sscan(lines[i+1], &n)
		connects += n
	}
	if connects != 1 || calls.Load() != 4 {
		t.Fatalf("%d connections, %d route calls; want 1, 4 (%q)", connects, calls.Load(), out)
	}
	if acc, _ := s.ln.stats(); acc != 1 {
		t.Fatalf("server admitted %d connections, want 1", acc)
	}

	cmd = exec.CommandContext(ctx, curl, "-sS", "--noproxy", "*", "--digest", "-u", testUser+":wrong",
		"-d", "{}", "-D", "-", "-o", "/dev/null", url)
	out, err = cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("curl: %v\n%s", err, out)
	}
	// curl shows both answers: the first challenge, then the refusal of
	// its attempt, each a 401 with both challenges and stale=false.
	answers := bytes.Split(out, []byte("HTTP/1.1 "))[1:]
	if len(answers) != 2 {
		t.Fatalf("wrong password, want 2 answers:\n%s", out)
	}
	for _, a := range answers {
		if !bytes.HasPrefix(a, []byte("401")) ||
			bytes.Count(a, []byte("WWW-authenticate: Digest qop=\"auth\",algorithm=MD5,")) != 1 ||
			bytes.Count(a, []byte("WWW-authenticate: Digest qop=\"auth\",algorithm=MD5-sess,")) != 1 ||
			bytes.Count(a, []byte("stale=false")) != 2 {
			t.Fatalf("wrong password:\n%s", out)
		}
	}
	if calls.Load() != 4 {
		t.Fatal("route ran with a wrong password")
	}
}

func TestCORS(t *testing.T) {
	t.Parallel() // waits on timeouts and holds, not on the CPU
	allowed := "http://wallet.test"
	for _, tc := range []struct {
		name    string
		origins []string
		origin  string
		match   bool
	}{
		{"listed", []string{" http://other.test", allowed + " "}, allowed, true},
		{"star", []string{"*"}, "http://anything.test", true},
		{"not listed", []string{allowed}, "http://evil.test", false},
		{"no origin header", []string{"*"}, "", false},
		{"not configured", nil, allowed, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, _ := authServer(t, Config{CORSOrigins: tc.origins})
			c := newRawClient(t, s)
			var hdr []string
			if tc.origin != "" {
				hdr = append(hdr, "Origin: "+tc.origin)
			}
			check := func(resp *http.Response, options bool) {
				t.Helper()
				h := resp.Header
				if !tc.match {
					for k := range h {
						if strings.HasPrefix(k, "Access-Control-") {
							t.Errorf("unexpected %s", k)
						}
					}
					return
				}
				if h.Get("Access-Control-Allow-Origin") != tc.origin ||
					h.Get("Access-Control-Expose-Headers") != "www-authenticate" ||
					h.Get("Access-Control-Allow-Methods") != "POST, PUT, GET, OPTIONS" {
					t.Errorf("CORS headers %v", h)
				}
				_, hasAllowHeaders := h["Access-Control-Allow-Headers"]
				if hasAllowHeaders != options ||
					(options && h.Get("Access-Control-Allow-Headers") != "Content-Type, Authorization, X-Requested-With") {
					t.Errorf("Access-Control-Allow-Headers %q on OPTIONS=%v", h.Get("Access-Control-Allow-Headers"), options)
				}
			}
			// 401 carries them (a browser must see the challenge).
			resp, body := c.post("/json_rpc", hdr...)
			nonce, _ := challenge(t, resp, body)
			check(resp, false)
			// So do OPTIONS (no auth needed) and authenticated answers.
			resp, _ = c.do("OPTIONS", "OPTIONS /json_rpc HTTP/1.1\r\nHost: x\r\n"+strings.Join(append(hdr, ""), "\r\n")+"\r\n")
			if resp.StatusCode != 200 {
				t.Fatalf("OPTIONS: %d", resp.StatusCode)
			}
			check(resp, true)
			p := digestParams{user: testUser, pass: testPass, method: "POST", uri: "/json_rpc", nonce: nonce,
				qop: "auth", nc: 1, cnonce: "abc"}
			resp, _ = c.post("/json_rpc", append(hdr, "Authorization: "+p.authorization())...)
			if resp.StatusCode != 200 {
				t.Fatalf("authenticated: %d", resp.StatusCode)
			}
			check(resp, false)
		})
	}
}

func TestParseDigest(t *testing.T) {
	cred, ok := ParseDigest(`  digest username="u\"x", realm="monero-rpc",nonce="n==" , uri="/json_rpc",` +
		` response="0123456789ABCDEFabcdef0123456789", algorithm="MD5-sess", qop=auth, nc=0000000a, cnonce="c", userhash=false`)
	if !ok {
		t.Fatal("curl-style header rejected")
	}
	want := DigestDirectives{Username: `u\"x`, Realm: "monero-rpc", Nonce: "n==", URI: "/json_rpc",
		Response: "0123456789ABCDEFabcdef0123456789", Algorithm: "MD5-sess", QOP: "auth", NC: "0000000a",
		CNonce: "c", HasNC: true, NCValue: 10}
	if cred != want {
		t.Fatalf("got  %+v\nwant %+v", cred, want)
	}
	// The server's own challenges, as the operator commands' client reads them.
	for i, ch := range digestChallenges("SD7ol2RIvOD/hBCrmxd/6g==", true) {
		got, ok := ParseDigest(ch)
		alg := []string{"MD5", "MD5-sess"}[i]
		if want := (DigestDirectives{Realm: digestRealm, Nonce: "SD7ol2RIvOD/hBCrmxd/6g==", QOP: "auth", Algorithm: alg, Stale: "true"}); !ok || got != want {
			t.Errorf("challenge %q: got %+v %v, want %+v", ch, got, ok, want)
		}
	}
	for _, bad := range []string{
		``, `Basic abc`, `Digest`, `Digest `, `Digest username="u",`, `Digest username=u`,
		`Digest nc=0001`, `Digest nc=000000001`, `Digest nc="00000001"`, `Digest response="abc"`,
		`Digest response="zz"`, `Digest username="u" realm="r"`, `Digest username="unterminated`,
		`Digest =x`, `Digest qop=`,
	} {
		if _, ok := ParseDigest(bad); ok {
			t.Errorf("%q accepted", bad)
		}
	}
}

func FuzzParseDigest(f *testing.F) {
	f.Add(`Digest username="rpcuser", realm="monero-rpc", nonce="SD7ol2RIvOD/hBCrmxd/6g==", uri="/json_rpc", ` +
		`cnonce="NjQ2NDY0", nc=00000001, qop=auth, response="6629fae49393a05397450978507c4ef1", algorithm=MD5`)
	f.Add(`Digest algorithm=MD5-sess,nonce="x",realm="monero-rpc",response="00",uri="/",username="u",qop="auth",nc=ffffffff,cnonce="\"q"`)
	f.Add(`digest  username = "a" ,	uri="/" , domain="d", opaque="o", stale=true`)
	f.Add(`Digest username="`)
	a := newDigestAuth(testUser, testPass)
	f.Fuzz(func(t *testing.T, header string) {
		cred, ok := ParseDigest(header)
		if !ok {
			return
		}
		if cred.HasNC && len(cred.NC) != 8 {
			t.Fatalf("nc %q", cred.NC)
		}
		if len(cred.Response)%2 != 0 {
			t.Fatalf("response %q", cred.Response)
		}
		// Verification of whatever parsed must not panic either.
		s := &authSession{nonce: cred.Nonce, counter: 1}
		a.check(s, "POST", cred.URI, header)
	})
}
