package daemonctl

import (
	"strings"
	"testing"
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
		p := parseParams(challenge)
		for k := range p {
			if k != strings.ToLower(k) {
				t.Fatalf("key %q not lowered", k)
			}
		}
		login := &Login{User: "alice", Password: "s3cret"}
		h, ok := digestAuthorization([]string{challenge}, login, "POST", "/json_rpc")
		if !ok {
			return
		}
		scheme, rest, _ := strings.Cut(strings.TrimSpace(challenge), " ")
		if !strings.EqualFold(scheme, "Digest") {
			t.Fatalf("answered a %q challenge", scheme)
		}
		q := parseParams(rest)
		if q["nonce"] == "" {
			t.Fatal("answered a challenge without a nonce")
		}
		if !strings.HasPrefix(h, `Digest username="alice"`) || !strings.Contains(h, "response=") {
			t.Fatalf("answer %q", h)
		}
	})
}
