package address

import (
	"crypto/rand"
	"errors"
	"strings"
	"testing"

	"filippo.io/edwards25519"

	"github.com/gonero/gonero/internal/monerodlab"
	"github.com/gonero/gonero/params"
)

// Real addresses: the regtest wallets of testdata/regtest (made by
// monero-wallet-rpc) and addresses from the Monero project's own tests,
// one of each network and kind.
var realAddresses = []struct {
	s    string
	net  params.Network
	kind Kind
}{
	{monerodlab.AliceAddress, params.Mainnet, Standard},
	{monerodlab.AliceSubaddress, params.Mainnet, Subaddress},
	{"46s2fAbLma7FktkJWc2wijKHsdFMZV32qgnFDxFJezT4ZZPYXZJwT2jj4vM1yENnxRGNDCvSTihk5dYj5sts3RkUVCq7RtY", params.Mainnet, Standard},
	{"4BxSHvcgTwu25WooY4BVmgdcKwZu5EksVZSZkDd6ooxSVVqQ4ubxXkhLF6hEqtw96i9cf3cVfLw8UWe95bdDKfRQeYtPwLm1Jiw7AKt2LY", params.Mainnet, Integrated},
	{"9svHk1wHPo3ULf2AZykghzcye6sitaRE4MaDjPC6uanTHCynHjJHZaiAb922PojE1GexhhRt1LVf5DC43feyrRZMLXQr3mk", params.Testnet, Standard},
	{"A4A1uPj4qaxj7xoVXytVH32R1pLZBk4VV4mZFGEh4wkXhDWqw1soPyf3fGixf1kni31VznEZkWNEza9d5TvjWwq5acaPMJfMbn3ReTsBpp", params.Testnet, Integrated},
	{"BcFvPa3fT4gVt5QyRDe5Vv7VtUFao9ci8NFEy3r254KF7R1N2cNB5FYhGvrHbMStv4D6VDzZ5xtxeKV8vgEPMnDcNFuwZb9", params.Testnet, Subaddress},
	{"53teqCAESLxeJ1REzGMAat1ZeHvuajvDiXqboEocPaDRRmqWoVPzy46GLo866qRFjbNhfkNckyhST3WEvBviDwpUDd7DSzB", params.Stagenet, Standard},
	{"5K8mwfjumVseCcQEjNbf59Um6R9NfVUNkHTLhhPCmNvgDLVS88YW5tScnm83rw9mfgYtchtDDTW5jEfMhygi27j1QYphX38hg6m4VMtN29", params.Stagenet, Integrated},
	{"73LhUiix4DVFMcKhsPRG51QmCsv8dYYbL6GcQoLwEEFvPvkVvc7BhebfA4pnEFF9Lq66hwvLqBvpHjTcqvpJMHmmNjPPBqa", params.Stagenet, Subaddress},
}

func TestParseRealAddresses(t *testing.T) {
	for _, v := range realAddresses {
		a, err := Parse(v.s)
		if err != nil {
			t.Fatalf("%s: %v", v.s, err)
		}
		if a.Network != v.net || a.Kind != v.kind {
			t.Errorf("%s: parsed as %s %s, want %s %s", v.s, a.Network, a.Kind, v.net, v.kind)
		}
		if got := a.String(); got != v.s {
			t.Errorf("round trip: %s -> %s", v.s, got)
		}
	}
}

func TestParseForNetwork(t *testing.T) {
	if _, err := ParseFor(monerodlab.AliceAddress, params.Regtest); err != nil {
		t.Errorf("regtest must take mainnet addresses: %v", err)
	}
	_, err := ParseFor(realAddresses[4].s, params.Regtest)
	if !errors.Is(err, ErrWrongNetwork) || !strings.Contains(err.Error(), "testnet") {
		t.Errorf("testnet address on regtest: %v", err)
	}
	if _, err := ParseFor(monerodlab.AliceAddress, params.Stagenet); !errors.Is(err, ErrWrongNetwork) {
		t.Errorf("mainnet address on stagenet: %v", err)
	}
}

// Every single-character change of a real address is refused with a clear
// error (the 4-byte checksum catches them; a change that breaks base58
// itself is named as such), never accepted, never a panic.
func TestParseRefusesEveryTypo(t *testing.T) {
	for _, v := range realAddresses[:2] {
		for i := range len(v.s) {
			for _, c := range []byte{'1', 'z', '0', 'l', ' '} {
				if v.s[i] == c {
					continue
				}
				bad := v.s[:i] + string(c) + v.s[i+1:]
				_, err := Parse(bad)
				if err == nil {
					t.Fatalf("%s accepted", bad)
				}
				if !errors.Is(err, ErrChecksum) && !errors.Is(err, ErrBase58) {
					t.Fatalf("%s: unexpected error %v", bad, err)
				}
			}
		}
	}
	cases := map[string]error{
		"":                           ErrEmpty,
		strings.Repeat("1", 200):     ErrTooLong,
		monerodlab.AliceAddress[:94]: ErrBase58,   // 94 % 11 = 6 characters in the last block: impossible
		monerodlab.AliceAddress[:88]: ErrChecksum, // 8 whole blocks: decodes, but the last 4 bytes are no checksum
		"4":                          ErrBase58,
		"11":                         ErrLength,
		"zzzzzzzzzzz":                ErrBase58, // overflows 64 bits
	}
	for s, want := range cases {
		if _, err := Parse(s); !errors.Is(err, want) {
			t.Errorf("Parse(%.20q): %v, want %v", s, err, want)
		}
	}
}

func TestBase58RoundTrip(t *testing.T) {
	for n := range 80 {
		b := make([]byte, n)
		rand.Read(b)
		s := Base58Encode(b)
		got, err := Base58Decode(s)
		if err != nil || string(got) != string(b) {
			t.Fatalf("%d bytes %x: %q -> %x, %v", n, b, s, got, err)
		}
	}
	// Leading zero bytes keep their width: a block is a fixed-size number.
	if s := Base58Encode(make([]byte, 9)); s != "11111111111"+"11" {
		t.Errorf("zeros: %q", s)
	}
}

// randomKey returns a random valid public key.
func randomKey(t *testing.T) [32]byte {
	var seed [64]byte
	rand.Read(seed[:])
	s, err := edwards25519.NewScalar().SetUniformBytes(seed[:])
	if err != nil {
		t.Fatal(err)
	}
	var k [32]byte
	copy(k[:], new(edwards25519.Point).ScalarBaseMult(s).Bytes())
	return k
}

// monero-wallet-rpc's validate_address (get_account_address_from_str) is the
// oracle: addresses of every network and kind that this package encodes
// from random keys are valid there with the same network and kind, and
// every one of them with one character changed is invalid in both.
func TestAgainstWalletRPC(t *testing.T) {
	lab := monerodlab.Require(t)
	w := lab.StartWalletRPC(t, monerodlab.FreePort(t))
	type verdict struct {
		Valid      bool   `json:"valid"`
		Integrated bool   `json:"integrated"`
		Subaddress bool   `json:"subaddress"`
		Nettype    string `json:"nettype"`
	}
	validate := func(s string) verdict {
		var v verdict
		if err := w.Call("validate_address", map[string]any{"address": s, "any_net_type": true}, &v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	var addrs []string
	for _, v := range realAddresses {
		addrs = append(addrs, v.s)
	}
	for _, net := range []params.Network{params.Mainnet, params.Testnet, params.Stagenet} {
		for _, kind := range []Kind{Standard, Integrated, Subaddress} {
			a := Address{Network: net, Kind: kind, Spend: randomKey(t), View: randomKey(t)}
			if kind == Integrated {
				rand.Read(a.PaymentID[:])
			}
			addrs = append(addrs, a.String())
		}
	}
	for _, s := range addrs {
		a, err := Parse(s)
		if err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		v := validate(s)
		want := verdict{Valid: true, Integrated: a.Kind == Integrated, Subaddress: a.Kind == Subaddress, Nettype: a.Network.String()}
		if a.Network == params.Mainnet {
			want.Nettype = "mainnet"
		}
		if v != want {
			t.Errorf("%s: wallet-rpc says %+v, we parse %s %s", s, v, a.Network, a.Kind)
		}
		// One changed character, at a position that keeps the length valid.
		i := len(s) / 2
		c := byte('2')
		if s[i] == c {
			c = '3'
		}
		bad := s[:i] + string(c) + s[i+1:]
		_, err = Parse(bad)
		if v := validate(bad); v.Valid || err == nil {
			t.Errorf("%s: wallet-rpc valid=%v, our error %v; both must refuse", bad, v.Valid, err)
		}
	}
	// Keys that are no canonical point encoding, under a correct checksum:
	// y = 2^255 - 1 (>= p), y = 2 (no x exists), and -0 (the identity's y
	// with the sign bit set).
	var notCanonical, offCurve, minusZero [32]byte
	for i := range notCanonical {
		notCanonical[i] = 0xff
	}
	notCanonical[31] = 0x7f
	offCurve[0] = 2
	minusZero[0], minusZero[31] = 1, 0x80
	for _, k := range [][32]byte{notCanonical, offCurve, minusZero} {
		a := Address{Network: params.Mainnet, Kind: Standard, Spend: k, View: randomKey(t)}
		_, err := Parse(a.String())
		if v := validate(a.String()); v.Valid || !errors.Is(err, ErrBadKey) {
			t.Errorf("spend key %x: wallet-rpc valid=%v, our error %v", k, v.Valid, err)
		}
	}
}
