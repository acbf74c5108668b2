package address

import (
	"testing"
)

// FuzzParse: any string either fails with an error or parses to an address
// that encodes back to the same string (the encoding is unique: fixed-size
// blocks, a checksum over everything).
func FuzzParse(f *testing.F) {
	for _, v := range realAddresses {
		f.Add(v.s)
	}
	f.Add("")
	f.Add("11111111111")
	f.Fuzz(func(t *testing.T, s string) {
		a, err := Parse(s)
		if err != nil {
			return
		}
		if got := a.String(); got != s {
			t.Fatalf("%q parsed, but encodes to %q", s, got)
		}
	})
}

// FuzzBase58 decodes arbitrary strings and round-trips what decodes.
func FuzzBase58(f *testing.F) {
	f.Add("")
	f.Add("zzzzzzzzzzz")
	f.Add("1111111111111")
	f.Fuzz(func(t *testing.T, s string) {
		b, err := Base58Decode(s)
		if err != nil {
			return
		}
		if got := Base58Encode(b); got != s {
			t.Fatalf("%q decodes to %x, which encodes to %q", s, b, got)
		}
	})
}
