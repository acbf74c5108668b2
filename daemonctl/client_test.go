package daemonctl

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gonero/gonero/httpd"
)

// FuzzDigestChallenge: any WWW-Authenticate value a daemon (or anything
// listening on its port) sends is parsed without a panic or a hang, and an
// answer is produced only for an MD5 Digest challenge with a nonce, naming
// that nonce and the realm as sent.
func FuzzDigestChallenge(f *testing.F) {
	f.Add(`Digest qop="auth",algorithm=MD5,realm="monero-rpc",nonce="7Rj0Fb8pXQEXbDyMAtRd3Q==",stale=false`)
	f.Add(`Digest qop="auth",algorithm=MD5-sess,realm="monero-rpc",nonce="abc",stale=false`)
	f.Add(`Digest realm="x", nonce="n", opaque="o"`)
	f.Add(`Basic realm="x"`)
	f.Add(`Digest nonce="unterminated`)
	f.Add(`Digest ,,,=,"=",nonce=`)
	f.Fuzz(func(t *testing.T, challenge string) {
		login := &Login{User: "alice", Password: "s3cret"}
		h, ok := digestAuthorization([]string{challenge}, login, "POST", "/json_rpc")
		if !ok {
			return
		}
		p, parsed := httpd.ParseDigest(challenge)
		if !parsed || p.Nonce == "" {
			t.Fatalf("answered %q, which is no Digest challenge with a nonce", challenge)
		}
		if !strings.HasPrefix(h, `Digest username="alice"`) || !strings.Contains(h, "response=") || !strings.Contains(h, fmt.Sprintf("nonce=%q", p.Nonce)) {
			t.Fatalf("answer %q", h)
		}
	})
}
