package peerinfo

import (
	"errors"
	"net/netip"
	"slices"
	"testing"
)

// The syntax monerod's --ban-list reads: comments after '#', blanks
// around entries, empty lines; IPv4 subnets, IPv4 and IPv6 hosts with or
// without a port.
func TestParseBanList(t *testing.T) {
	data := []byte("# monerod ban list\n" +
		"\n" +
		"  1.2.3.4  \t# a host\n" +
		"5.6.7.8/24\r\n" +
		"9.9.9.9:18080\n" +
		"2001:db8::1\n" +
		"[2001:db8::2]:18080\n" +
		"[2001:db8::3]\n" +
		"::ffff:10.0.0.1\n" +
		"\t#only a comment\n" +
		"0.0.0.0/0")
	got, err := ParseBanList(data, "bans.txt")
	if err != nil {
		t.Fatal(err)
	}
	want := []netip.Prefix{
		netip.MustParsePrefix("1.2.3.4/32"), netip.MustParsePrefix("5.6.7.0/24"), netip.MustParsePrefix("9.9.9.9/32"),
		netip.MustParsePrefix("2001:db8::1/128"), netip.MustParsePrefix("2001:db8::2/128"),
		netip.MustParsePrefix("2001:db8::3/128"), netip.MustParsePrefix("10.0.0.1/32"), netip.MustParsePrefix("0.0.0.0/0"),
	}
	if !slices.Equal(got, want) {
		t.Fatalf("got %v\nwant %v", got, want)
	}
}

// A line that is neither a host nor an IPv4 subnet is an error naming the
// file and the line (monerod logs it and goes on).
func TestParseBanListErrors(t *testing.T) {
	for _, tc := range []struct {
		data string
		line int
	}{
		{"1.2.3.4\nexample.com\n", 2},
		{"1.2.3.4/33", 1},
		{"\n\n2001:db8::/64", 3},    // monerod has no IPv6 subnets
		{"1.2.3", 1},                // inet_addr's short form: not taken
		{"1.2.3.4:99999", 1},        // port out of range
		{"abc.onion:18083", 1},      // cannot be banned
		{"fe80::1%eth0", 1},         // zones are not hosts
		{"# ok\n1.2.3.4/x\n", 2},    // bad mask
		{"[2001:db8::1]:x", 1},      // bad port
		{"1.2.3.4/24/8", 1},         // two masks
		{"1.2.3.4 5.6.7.8", 1},      // two entries on one line
		{"1.2.3.4\n\n\n::1/128", 4}, // IPv6 with a mask
	} {
		_, err := ParseBanList([]byte(tc.data), "f")
		var le *BanListError
		if !errors.As(err, &le) || le.Source != "f" || le.Line != tc.line {
			t.Errorf("%q: error %v, want one at line %d", tc.data, err, tc.line)
		}
	}
}

// FuzzParseBanList: any file parses to valid prefixes or an error naming a
// line of it, never a panic.
func FuzzParseBanList(f *testing.F) {
	f.Add([]byte("1.2.3.4\n# c\n5.6.7.0/24 # x\n[2001:db8::1]:1\n"))
	f.Add([]byte("::1\n\r\n1.1.1.1:0\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		list, err := ParseBanList(data, "fuzz")
		if err != nil {
			var le *BanListError
			if errors.As(err, &le) && (le.Line < 1 || le.Text == "") {
				t.Fatalf("error without a line: %v", err)
			}
			return
		}
		for _, p := range list {
			if !p.IsValid() || p != p.Masked() || p.Addr().Is4In6() {
				t.Fatalf("prefix %v", p)
			}
		}
	})
}
