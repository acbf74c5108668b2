package peerinfo

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net/netip"
	"strconv"
	"strings"
)

// ParseIPv4Subnet is monerod's net::get_ipv4_subnet_address without the
// implicit /32: "a.b.c.d/n" with n at most 32. The prefix is not masked
// (monerod keeps the address as written, and prints it so).
func ParseIPv4Subnet(s string) (netip.Prefix, bool) {
	addr, mask, ok := strings.Cut(s, "/")
	if !ok {
		return netip.Prefix{}, false
	}
	bits, err := strconv.ParseUint(mask, 10, 16)
	if err != nil || bits > 32 {
		return netip.Prefix{}, false
	}
	a, err := netip.ParseAddr(addr)
	if err != nil || !a.Is4() {
		return netip.Prefix{}, false
	}
	return netip.PrefixFrom(a, int(bits)), true
}

// ParseHost is net::get_network_address(host, 0) for the address kinds a
// ban applies to: an IPv4 address, or an IPv6 one in brackets, optionally
// with a port ("1.2.3.4:18080", "[2001:db8::1]:18080"), or a bare IPv6
// address (two colons or more, no port; since 0.18.4; 0.18.0 cut it at its
// last colon). monerod also reads the IPv4 forms inet_addr takes ("1.2.3",
// "0x7f.1") and Tor and I2P addresses, which cannot be banned; here they
// are not hosts.
func ParseHost(s string) (netip.Addr, bool) {
	var host, port string
	if strings.IndexByte(s, ']') >= 0 {
		if j := strings.LastIndexByte(s, ']'); j >= 1 {
			host = s[1:j]
		} else {
			host = s[1:]
		}
		if len(host)+2 < len(s) {
			port = s[strings.LastIndexByte(s, ':')+1:]
		}
	} else if strings.Count(s, ":") >= 2 {
		host = s
	} else if k := strings.LastIndexByte(s, ':'); k >= 0 {
		host, port = s[:k], s[k+1:]
	} else {
		host = s
	}
	if host == "" {
		return netip.Addr{}, false
	}
	if port != "" {
		if _, err := strconv.ParseUint(port, 10, 16); err != nil {
			return netip.Addr{}, false
		}
	}
	a, err := netip.ParseAddr(host)
	if err != nil || a.Zone() != "" {
		return netip.Addr{}, false
	}
	return a, true
}

// MaxBanListBytes bounds a ban-list file (or DNS blocklist answer): a
// million entries fit.
const MaxBanListBytes = 32 << 20

// BanListError is a line of a ban list that is neither a host nor an IPv4
// subnet.
type BanListError struct {
	Source string // the file
	Line   int    // from 1
	Text   string // the line, comment and blanks removed
}

func (e *BanListError) Error() string {
	return fmt.Sprintf("ban list %s line %d: %q is neither an IP address nor an IPv4 subnet", e.Source, e.Line, e.Text)
}

// ParseBanList reads a ban list as monerod's --ban-list does
// (node_server::handle_command_line): one entry a line, what follows '#'
// a comment, blanks around an entry ignored, empty lines skipped; an entry
// is an IPv4 subnet ("a.b.c.d/n") or a host as ParseHost reads it (a port
// is allowed and ignored). Hosts come back as single-address prefixes
// (an IPv4-mapped IPv6 address as its IPv4 address), subnets masked.
//
// monerod logs a line it cannot read ("Invalid IP address or IPv4
// subnet") and goes on; here it is an error naming source and line, so that
// a typo does not silently leave a host unbanned.
func ParseBanList(data []byte, source string) ([]netip.Prefix, error) {
	if len(data) > MaxBanListBytes {
		return nil, fmt.Errorf("ban list %s: over %d bytes", source, MaxBanListBytes)
	}
	var out []netip.Prefix
	var bad *BanListError
	err := BanListEntries(bytes.NewReader(data), func(n int, entry string) bool {
		p, ok := ParseBanEntry(entry)
		if !ok {
			bad = &BanListError{Source: source, Line: n, Text: entry}
			return false
		}
		out = append(out, p)
		return true
	})
	if bad != nil {
		return nil, bad
	}
	if err != nil {
		return nil, fmt.Errorf("ban list %s: %w", source, err)
	}
	return out, nil
}

// BanListEntries reads the lines of a ban list as monerod does (its
// --ban-list and its client's `ban @file`): what follows '#' is a
// comment, blanks around an entry are trimmed (boost::trim: the C locale's
// spaces), empty lines are skipped. fn gets each entry and its line number
// (from 1) and returns false to stop. At most MaxBanListBytes are read.
func BanListEntries(r io.Reader, fn func(n int, entry string) bool) error {
	sc := bufio.NewScanner(io.LimitReader(r, MaxBanListBytes+1))
	sc.Buffer(nil, MaxBanListBytes+1)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		line = strings.Trim(line, " \t\r\n\v\f")
		if line != "" && !fn(n, line) {
			return nil
		}
	}
	return sc.Err()
}

// ParseBanEntry reads one entry of a ban list or DNS blocklist record: an
// IPv4 subnet first, as monerod tries it, else a host.
func ParseBanEntry(s string) (netip.Prefix, bool) {
	if p, ok := ParseIPv4Subnet(s); ok {
		return p.Masked(), true
	}
	a, ok := ParseHost(s)
	if !ok {
		return netip.Prefix{}, false
	}
	a = a.Unmap()
	return netip.PrefixFrom(a, a.BitLen()), true
}
