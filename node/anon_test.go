package node

import "testing"

// FuzzAnonymityFlags: --tx-proxy and --anonymous-inbound values parse or
// fail cleanly, and what parses is whole: a zone, a proxy or a listener.
func FuzzAnonymityFlags(f *testing.F) {
	for _, s := range []string{"tor,127.0.0.1:9050", "i2p,socks5://a:b@127.0.0.1:4447,10,disable_noise",
		"tor,127.0.0.1:9050,,", "zbjkbsxc5munw3qusl7j2hpcmikhqocdf4pqhnhtpzw5nt5jrmofptid.onion:18083,127.0.0.1:18085,5",
		"uqj3aphckqtjsitz7kxx5flqpwjlq5ppr3chazfued7xucv3nheq.b32.i2p,127.0.0.1:1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if zc, err := ParseTxProxy(s); err == nil {
			if zc.Proxy == nil || !zc.Proxy.Addr.IsValid() || (zc.MaxOut != -1 && zc.MaxOut < 1) {
				t.Fatalf("%q: %+v", s, zc)
			}
		}
		if zc, err := ParseAnonymousInbound(s); err == nil {
			if zc.OurAddress.Host == "" || zc.ListenAddr == "" || (zc.MaxIn != -1 && zc.MaxIn < 1) {
				t.Fatalf("%q: %+v", s, zc)
			}
		}
	})
}
