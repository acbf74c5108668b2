package anonaddr

import (
	"crypto/ed25519"
	"errors"
	"strings"
	"testing"

	"github.com/gonero/gonero/portable"
)

// monerod 0.18.5.3's Tor and I2P seed nodes (net_node.inl,
// get_seed_nodes): real v3 onion services and I2P destinations.
var realOnions = []string{
	"zbjkbsxc5munw3qusl7j2hpcmikhqocdf4pqhnhtpzw5nt5jrmofptid.onion:18083",
	"plowsof3t5hogddwabaeiyrno25efmzfxyro2vligremt7sxpsclfaid.onion:18083",
	"plowsoffjexmxalw73tkjmf422gq6575fc7vicuu4javzn2ynnte6tyd.onion:18083",
	"plowsofe6cleftfmk2raiw5h2x66atrik3nja4bfd3zrfa2hdlgworad.onion:18083",
	"aclc4e2jhhtr44guufbnwk5bzwhaecinax4yip4wr4tjn27sjsfg6zqd.onion:18083",
	"lykcas4tus7mkm4bhsgqe4drtd4awi7gja24goscc47xfgzj54yofyqd.onion:18083",
}

var realI2P = []string{
	"uqj3aphckqtjsitz7kxx5flqpwjlq5ppr3chazfued7xucv3nheq.b32.i2p",
	"vdmnehdjkpkg57nthgnjfuaqgku673r5bpbqg56ix6fyqoywgqrq.b32.i2p",
	"ugnlcdciyhghh2zert7c3kl4biwkirc43ke33jiy5slnd3mv2trq.b32.i2p",
}

func TestRealAddresses(t *testing.T) {
	for _, s := range realOnions {
		a, err := Parse(s, 0)
		if err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		if a.Type != portable.AddressTor || a.Port != 18083 || a.String() != s || ZoneOf(a) != ZoneTor {
			t.Errorf("%s: %+v %s", s, a, a.String())
		}
		// monerod lowercases hosts (canonicalize_host).
		if b, err := Parse(strings.ToUpper(s[:56])+s[56:], 0); err != nil || b != a {
			t.Errorf("uppercase %s: %+v %v", s, b, err)
		}
	}
	for _, s := range realI2P {
		for _, in := range []string{s, s + ":0", s + ":18080"} {
			a, err := Parse(in, 0)
			if err != nil {
				t.Fatalf("%s: %v", in, err)
			}
			if a.Type != portable.AddressI2P || a.Port != 1 || a.String() != s || ZoneOf(a) != ZoneI2P {
				t.Errorf("%s: %+v", in, a)
			}
		}
	}
}

func TestOnionHostOfKey(t *testing.T) {
	pub, _, err := ed25519.GenerateKey(nil)
	if err != nil {
		t.Fatal(err)
	}
	h := OnionHost(pub)
	if err := CheckOnionHost(h); err != nil || len(h) != 62 {
		t.Fatalf("%s: %v", h, err)
	}
	a, err := ParseOnion(h, 18083)
	if err != nil || a.String() != h+":18083" {
		t.Fatalf("%+v %v", a, err)
	}
}

func TestBadAddresses(t *testing.T) {
	good := realOnions[0][:62]
	flip := func(s string, i int) string {
		b := []byte(s)
		if b[i] == 'a' {
			b[i] = 'b'
		} else {
			b[i] = 'a'
		}
		return string(b)
	}
	cases := []struct {
		in   string
		want error
	}{
		{"expyuzz4wqqyqhjn.onion:18083", ErrOnion},                    // v2
		{flip(good, 3) + ":18083", ErrOnion},                          // key changed: checksum fails
		{flip(good, 52) + ":18083", ErrOnion},                         // checksum bytes changed
		{good[:55] + "a.onion:18083", ErrOnion},                       // version byte
		{good[:20] + "1" + good[21:] + ":1", ErrOnion},                // not base32
		{good[1:] + ":1", ErrOnion},                                   // 55 characters
		{"x" + good + ":1", ErrOnion},                                 // 57 characters
		{good + ":65536", ErrPort},                                    // port
		{good + ":-1", ErrPort},                                       //
		{good + ":port", ErrPort},                                     //
		{".onion:18083", ErrOnion},                                    //
		{realI2P[0][:51] + ".b32.i2p", ErrI2P},                        // 51
		{realI2P[0][:51] + "1.b32.i2p", ErrI2P},                       // not base32
		{realI2P[0][:51] + "r.b32.i2p", ErrI2P},                       // bits beyond the hash
		{strings.TrimSuffix(realI2P[0], ".b32.i2p") + ".i2p", ErrI2P}, // not b32
	}
	for _, c := range cases {
		if a, err := Parse(c.in, 18083); !errors.Is(err, c.want) {
			t.Errorf("%s: %+v %v, want %v", c.in, a, err, c.want)
		}
	}
	for _, s := range []string{"", "1.2.3.4", "example.com:18080", "[::1", "1.2.3.4:99999"} {
		if a, err := Parse(s, 0); err == nil {
			t.Errorf("%q: %+v", s, a)
		}
	}
	if a, err := Parse("1.2.3.4", 18080); err != nil || a.String() != "1.2.3.4:18080" {
		t.Errorf("default port: %+v %v", a, err)
	}
	if a, err := Parse("[2001:db8::1]:5", 0); err != nil || a.Type != portable.AddressIPv6 || a.String() != "[2001:db8::1]:5" {
		t.Errorf("IPv6: %+v %v", a, err)
	}
}

func TestCanonical(t *testing.T) {
	on, _ := Parse(realOnions[1], 0)
	up := on
	up.Host = strings.ToUpper(up.Host)
	if a, ok := Canonical(up); !ok || a != on {
		t.Errorf("%+v %v", a, ok)
	}
	noPort := on
	noPort.Port = 0
	for _, a := range []portable.NetAddress{noPort, Unknown(ZoneTor), Unknown(ZoneI2P),
		{Type: portable.AddressIPv4}, {Type: portable.AddressTor, Host: "expyuzz4wqqyqhjn.onion", Port: 1}} {
		if _, ok := Canonical(a); ok {
			t.Errorf("%+v accepted", a)
		}
	}
	i2p := portable.NetAddress{Type: portable.AddressI2P, Host: realI2P[2], Port: 0}
	if a, ok := Canonical(i2p); !ok || a.Port != 1 {
		t.Errorf("%+v %v", a, ok)
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range append(append([]string{"1.2.3.4:5", "[::1]:2", "x.onion:1"}, realOnions...), realI2P...) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		a, err := Parse(s, 18083)
		if err != nil {
			return
		}
		// What parses prints as something that parses to the same address.
		b, err := Parse(a.String(), 18083)
		if a.Type == portable.AddressTor && a.Port == 0 {
			b.Port = 0 // monerod prints no port for port 0
		}
		if err != nil || b != a {
			t.Fatalf("%q -> %+v -> %q -> %+v %v", s, a, a.String(), b, err)
		}
		if c, ok := Canonical(a); (a.Type == portable.AddressTor && a.Port != 0 || a.Type == portable.AddressI2P) && (!ok || c != a) {
			t.Fatalf("%q: parsed but not canonical: %+v", s, c)
		}
	})
}
