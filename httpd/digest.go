package httpd

import (
	"crypto/md5"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"strconv"
	"strings"
	"sync"
)

// HTTP digest authentication as monerod's --rpc-login does it (epee
// http_auth.cpp, RFC 2617 with MD5 and MD5-sess, qop=auth, RFC 2069 form
// also accepted):
//
//   - every request except OPTIONS must carry a valid Authorization header;
//   - the nonce and a use counter live per TCP connection, so a new
//     connection always starts with a 401;
//   - the counter counts requests carrying an Authorization header since the
//     last challenge: the first use of a nonce passes whatever its nc, later
//     uses need qop and nc equal to the count (nc grows by exactly one);
//   - a correct response for another nonce or nc is "stale": 401 with
//     stale=true and a fresh nonce; anything else is 401 with stale=false;
//     every 401 issues a fresh nonce and resets the counter.

const (
	digestRealm = "monero-rpc"

	// unauthorizedBody is epee's 401 body (text/html).
	unauthorizedBody = "<html><head><title>Unauthorized Access</title></head><body><h1>401 Unauthorized</h1></body></html>"

	// wwwAuthenticateHeader is spelt as epee spells it.
	wwwAuthenticateHeader = "WWW-authenticate"
)

// digestAuth holds the configured login.
type digestAuth struct {
	user []byte
	ha1  string // hex MD5(user ":" realm ":" password), the MD5 "A1" digest
}

func newDigestAuth(user, password string) *digestAuth {
	return &digestAuth{
		user: []byte(user),
		ha1:  md5Hex(user + ":" + digestRealm + ":" + password),
	}
}

// authSession is the digest state of one TCP connection.
type authSession struct {
	mu      sync.Mutex
	nonce   string // the current nonce; "" until the first challenge
	counter uint32 // requests with an Authorization header since the challenge
}

// authenticate checks a request's Authorization header (present: whether
// it has one) against the connection's session. It returns nil when the
// request may proceed, else the two WWW-authenticate challenges of the 401.
func (a *digestAuth) authenticate(s *authSession, method, target, authz string, present bool) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	stale := false
	if present {
		s.counter++
		switch a.check(s, method, target, authz) {
		case digestPass:
			return nil
		case digestStale:
			stale = true
		}
	}
	s.counter = 0
	s.nonce = newNonce()
	return digestChallenges(s.nonce, stale)
}

type digestVerdict int

const (
	digestFail digestVerdict = iota
	digestStale
	digestPass
)

// check is epee's auth_message::verify: the credential must name our user
// and carry a correct response; then its nonce and nc decide pass or stale.
func (a *digestAuth) check(s *authSession, method, target, header string) digestVerdict {
	cred, ok := ParseDigest(header)
	if !ok {
		return digestFail
	}
	userOK := subtle.ConstantTimeCompare([]byte(cred.Username), a.user) == 1
	// RFC 2617 3.2.2.5: the digest-uri must name the request target. epee
	// v0.18 hashes whatever uri the client sends; insisting on the target
	// stops a credential for one URI being replayed against another.
	if !userOK || cred.URI != target || !a.validResponse(&cred, method) {
		return digestFail
	}
	if s.nonce != "" && cred.Nonce == s.nonce {
		// The RFC 2069 form (no qop) carries no nc: it is good for one use.
		if s.counter == 1 || (cred.QOP != "" && cred.HasNC && cred.NCValue == s.counter) {
			return digestPass
		}
	}
	return digestStale
}

// validResponse reports whether cred.Response is the digest of our
// password for this request, for the algorithm and qop the client chose.
func (a *digestAuth) validResponse(cred *DigestDirectives, method string) bool {
	ha1 := a.ha1
	switch {
	case cred.Algorithm == "" || strings.EqualFold(cred.Algorithm, "MD5"):
	case strings.EqualFold(cred.Algorithm, "MD5-sess"):
		ha1 = md5Hex(ha1 + ":" + cred.Nonce + ":" + cred.CNonce)
	default:
		return false
	}
	ha2 := md5Hex(method + ":" + cred.URI)
	var want string
	switch {
	case cred.QOP == "":
		want = md5Hex(ha1 + ":" + cred.Nonce + ":" + ha2)
	case strings.EqualFold(cred.QOP, "auth"):
		want = md5Hex(ha1 + ":" + cred.Nonce + ":" + cred.NC + ":" + cred.CNonce + ":" + cred.QOP + ":" + ha2)
	default:
		return false // auth-int is not offered
	}
	// epee compares the hex case-insensitively.
	return subtle.ConstantTimeCompare([]byte(strings.ToLower(cred.Response)), []byte(want)) == 1
}

func md5Hex(s string) string {
	sum := md5.Sum([]byte(s))
	return hex.EncodeToString(sum[:])
}

// newNonce is base64 of 16 random bytes, like epee's.
func newNonce() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (it crashes instead)
	return base64.StdEncoding.EncodeToString(b[:])
}

// digestChallenges are epee's two WWW-authenticate values, MD5 first.
func digestChallenges(nonce string, stale bool) []string {
	st := strconv.FormatBool(stale)
	return []string{
		`Digest qop="auth",algorithm=MD5,realm="` + digestRealm + `",nonce="` + nonce + `",stale=` + st,
		`Digest qop="auth",algorithm=MD5-sess,realm="` + digestRealm + `",nonce="` + nonce + `",stale=` + st,
	}
}

// DigestDirectives are the directives of a Digest header: the credentials
// of an Authorization header, or a WWW-Authenticate challenge (realm,
// nonce, qop, algorithm, opaque, stale). Values are raw as sent (quoted
// strings without their quotes, escapes left in place, as epee keeps them).
type DigestDirectives struct {
	Username, Realm, Nonce, URI, Response string
	Algorithm, QOP, NC, CNonce, Opaque    string
	Stale                                 string
	HasNC                                 bool
	NCValue                               uint32 // NC's value
}

// ParseDigest parses a header value of scheme Digest, an Authorization
// header's credentials (which the server checks) or a WWW-Authenticate
// challenge (which the operator commands' client answers): one parser for
// both ends. The grammar follows epee's parser: "Digest" (any case), then one or more
// name=value directives separated by commas (a comma must be followed by
// another directive), optional whitespace around '=' and ','; username,
// realm, nonce, uri, cnonce, opaque and domain are quoted strings; response
// is a quoted string of hex byte pairs; nc is exactly 8 hex digits; other
// values are a token or a quoted string. Unlike epee, unknown directives
// are ignored (RFC 7616 3.4) rather than failing the header.
func ParseDigest(v string) (DigestDirectives, bool) {
	var cred DigestDirectives
	p := skipSpace(v)
	if len(p) < len("digest") || !strings.EqualFold(p[:len("digest")], "digest") {
		return cred, false
	}
	p = skipSpace(p[len("digest"):])
	for {
		n := 0
		for n < len(p) && isTokenChar(p[n]) {
			n++
		}
		if n == 0 {
			return cred, false
		}
		name := strings.ToLower(p[:n])
		p = skipSpace(p[n:])
		if p == "" || p[0] != '=' {
			return cred, false
		}
		p = skipSpace(p[1:])

		var val string
		var ok bool
		switch name {
		case "username", "realm", "nonce", "uri", "cnonce", "opaque", "domain":
			val, p, ok = quotedString(p)
		case "response":
			val, p, ok = quotedString(p)
			ok = ok && len(val) > 0 && len(val)%2 == 0 && isHex(val)
		case "nc":
			ok = len(p) >= 8 && isHex(p[:8])
			if ok {
				val, p = p[:8], p[8:]
				// no further hex digit may follow: exactly eight
				ok = p == "" || !isHexDigit(p[0])
			}
		default:
			val, p, ok = tokenOrQuoted(p)
		}
		if !ok {
			return cred, false
		}
		switch name {
		case "username":
			cred.Username = val
		case "realm":
			cred.Realm = val
		case "nonce":
			cred.Nonce = val
		case "uri":
			cred.URI = val
		case "cnonce":
			cred.CNonce = val
		case "opaque":
			cred.Opaque = val
		case "response":
			cred.Response = val
		case "nc":
			u, err := strconv.ParseUint(val, 16, 32)
			if err != nil {
				return cred, false
			}
			cred.NC, cred.HasNC, cred.NCValue = val, true, uint32(u)
		case "algorithm":
			cred.Algorithm = val
		case "qop":
			cred.QOP = val
		case "stale":
			cred.Stale = val
		}

		p = skipSpace(p)
		if p == "" {
			return cred, true
		}
		if p[0] != ',' {
			return cred, false
		}
		p = skipSpace(p[1:])
	}
}

// quotedString reads `"..."` where `\"` does not end the string; the
// content is returned raw.
func quotedString(p string) (val, rest string, ok bool) {
	if p == "" || p[0] != '"' {
		return "", p, false
	}
	for i := 1; i < len(p); i++ {
		switch p[i] {
		case '\\':
			if i+1 < len(p) && p[i+1] == '"' {
				i++
			}
		case '"':
			return p[1:i], p[i+1:], true
		}
	}
	return "", p, false
}

func tokenOrQuoted(p string) (val, rest string, ok bool) {
	if p != "" && p[0] == '"' {
		return quotedString(p)
	}
	n := 0
	for n < len(p) && isTokenChar(p[n]) {
		n++
	}
	if n == 0 {
		return "", p, false
	}
	return p[:n], p[n:], true
}

// isTokenChar: visible ASCII except RFC 2616 separators.
func isTokenChar(c byte) bool {
	if c <= ' ' || c >= 0x7f {
		return false
	}
	return !strings.ContainsRune(`()<>@,;:\"/[]?={}`, rune(c))
}

func isHexDigit(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isHexDigit(s[i]) {
			return false
		}
	}
	return true
}

// skipSpace skips ASCII whitespace (epee's qi::ascii::space).
func skipSpace(p string) string {
	for p != "" && (p[0] == ' ' || ('\t' <= p[0] && p[0] <= '\r')) {
		p = p[1:]
	}
	return p
}
