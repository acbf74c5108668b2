// Package anonaddr holds the addresses of monerod's anonymity zones, Tor
// (.onion) and I2P (.b32.i2p), and the zone an address belongs to: parsing
// and checking them for the command line (--add-peer, --tx-proxy,
// --anonymous-inbound, ...) and for peer-list entries received from peers.
// The wire form of an address (portable.NetAddress, types 3 and 4 with
// "host" and "port") is in package portable.
//
// monerod 0.18.5.3 (src/net/tor_address.cpp, i2p_address.cpp, parse.cpp)
// accepts a Tor host of 16 (v2) or 56 (v3) base32 characters and an I2P
// host of 52, lowercased, without checking more. Tor dropped v2 services
// in 2021, so gonero accepts v3 only, and checks its checksum and version
// byte (Tor's rend-spec-v3, section 6): a mistyped address is refused
// where monerod would dial it in vain.
package anonaddr

import (
	"bytes"
	"crypto/sha3"
	"encoding/base32"
	"errors"
	"fmt"
	"net/netip"
	"strconv"
	"strings"

	"github.com/gonero/gonero/portable"
)

// Zone is epee::net_utils::zone: which network an address belongs to. The
// values are monerod's, so zones sort as its m_network_zones map does.
type Zone uint8

// The zones.
const (
	ZoneInvalid Zone = 0
	ZonePublic  Zone = 1
	ZoneI2P     Zone = 2
	ZoneTor     Zone = 3
)

// String is zone_to_string.
func (z Zone) String() string {
	switch z {
	case ZonePublic:
		return "public"
	case ZoneI2P:
		return "i2p"
	case ZoneTor:
		return "tor"
	}
	return "invalid"
}

// ParseZone is zone_from_string for the anonymity zones --tx-proxy names.
func ParseZone(s string) (Zone, error) {
	switch s {
	case "tor":
		return ZoneTor, nil
	case "i2p":
		return ZoneI2P, nil
	}
	return ZoneInvalid, fmt.Errorf("anonaddr: unknown network %q (want tor or i2p)", s)
}

// ZoneOf is network_address::get_zone.
func ZoneOf(a portable.NetAddress) Zone {
	switch a.Type {
	case portable.AddressIPv4, portable.AddressIPv6:
		return ZonePublic
	case portable.AddressI2P:
		return ZoneI2P
	case portable.AddressTor:
		return ZoneTor
	}
	return ZoneInvalid
}

// Host suffixes and lengths (tor_address.cpp, i2p_address.cpp).
const (
	OnionSuffix    = ".onion"
	I2PSuffix      = ".b32.i2p"
	onionV3Length  = 56 // base32 of key (32) + checksum (2) + version (1)
	i2pB32Length   = 52 // base32 of a SHA-256 destination hash
	onionV3Version = 3
)

// Unknown hosts: what monerod calls the remote end of a connection that
// came in through a hidden service, whose address it cannot know.
const (
	UnknownTorHost = "<unknown tor host>"
	UnknownI2PHost = "<unknown i2p host>"
)

// Unknown is the address of an incoming connection in zone z.
func Unknown(z Zone) portable.NetAddress {
	if z == ZoneI2P {
		return portable.NetAddress{Type: portable.AddressI2P, Host: UnknownI2PHost}
	}
	return portable.NetAddress{Type: portable.AddressTor, Host: UnknownTorHost}
}

// IsUnknown reports whether a is an Unknown address.
func IsUnknown(a portable.NetAddress) bool { return strings.HasPrefix(a.Host, "<") }

var b32 = base32.StdEncoding.WithPadding(base32.NoPadding)

// Errors of the parsers.
var (
	ErrOnion = errors.New("anonaddr: invalid Tor address")
	ErrI2P   = errors.New("anonaddr: invalid I2P address")
	ErrPort  = errors.New("anonaddr: invalid port")
)

// CheckOnionHost checks a lowercase v3 host, "<56 base32>.onion": its
// version byte is 3 and its checksum SHA3-256(".onion checksum" || key ||
// version)[:2] matches.
func CheckOnionHost(host string) error {
	label, ok := strings.CutSuffix(host, OnionSuffix)
	if !ok {
		return fmt.Errorf("%w %q: no %s suffix", ErrOnion, host, OnionSuffix)
	}
	if len(label) == 16 {
		return fmt.Errorf("%w %q: a v2 onion address (Tor serves v3 only)", ErrOnion, host)
	}
	if len(label) != onionV3Length {
		return fmt.Errorf("%w %q: %d characters before %s, want %d", ErrOnion, host, len(label), OnionSuffix, onionV3Length)
	}
	raw, err := b32.DecodeString(strings.ToUpper(label))
	if err != nil || len(raw) != 35 {
		return fmt.Errorf("%w %q: not base32", ErrOnion, host)
	}
	key, sum, version := raw[:32], raw[32:34], raw[34]
	if version != onionV3Version {
		return fmt.Errorf("%w %q: version %d, want %d", ErrOnion, host, version, onionV3Version)
	}
	if !bytes.Equal(sum, onionChecksum(key)) {
		return fmt.Errorf("%w %q: bad checksum", ErrOnion, host)
	}
	return nil
}

func onionChecksum(key []byte) []byte {
	h := sha3.New256()
	h.Write([]byte(".onion checksum"))
	h.Write(key)
	h.Write([]byte{onionV3Version})
	return h.Sum(nil)[:2]
}

// OnionHost is the v3 host of an ed25519 public key (32 bytes).
func OnionHost(key []byte) string {
	raw := append(append(append([]byte(nil), key...), onionChecksum(key)...), onionV3Version)
	return strings.ToLower(b32.EncodeToString(raw)) + OnionSuffix
}

// CheckI2PHost checks a lowercase "<52 base32>.b32.i2p" host.
func CheckI2PHost(host string) error {
	label, ok := strings.CutSuffix(host, I2PSuffix)
	if !ok {
		return fmt.Errorf("%w %q: no %s suffix", ErrI2P, host, I2PSuffix)
	}
	if len(label) != i2pB32Length {
		return fmt.Errorf("%w %q: %d characters before %s, want %d", ErrI2P, host, len(label), I2PSuffix, i2pB32Length)
	}
	// 52 characters carry 260 bits: the 4 beyond the hash must be 0.
	if raw, err := b32.DecodeString(strings.ToUpper(label)); err != nil || len(raw) != 32 ||
		strings.ToLower(b32.EncodeToString(raw)) != label {
		return fmt.Errorf("%w %q: not the base32 of a 32-byte hash", ErrI2P, host)
	}
	return nil
}

// splitHostPort is get_network_address_host_and_port for a host name:
// the port follows the last ':', if any.
func splitHostPort(s string) (host, port string, hasPort bool) {
	if i := strings.LastIndexByte(s, ':'); i >= 0 {
		return s[:i], s[i+1:], true
	}
	return s, "", false
}

func parsePort(s string) (uint16, error) {
	p, err := strconv.ParseUint(s, 10, 16)
	if err != nil {
		return 0, fmt.Errorf("%w %q", ErrPort, s)
	}
	return uint16(p), nil
}

// ParseOnion is tor_address::make: "host.onion[:port]", the port
// defaulting to defaultPort; the host is lowercased as monerod does.
func ParseOnion(s string, defaultPort uint16) (portable.NetAddress, error) {
	host, port, hasPort := splitHostPort(s)
	host = strings.ToLower(host)
	if err := CheckOnionHost(host); err != nil {
		return portable.NetAddress{}, err
	}
	p := defaultPort
	if hasPort {
		var err error
		if p, err = parsePort(port); err != nil {
			return portable.NetAddress{}, err
		}
	}
	return portable.NetAddress{Type: portable.AddressTor, Host: host, Port: p}, nil
}

// ParseI2P is i2p_address::make: "host.b32.i2p[:port]"; a port is
// accepted and ignored (I2P destinations have none; monerod sends 1).
func ParseI2P(s string) (portable.NetAddress, error) {
	host, _, _ := splitHostPort(s)
	host = strings.ToLower(host)
	if err := CheckI2PHost(host); err != nil {
		return portable.NetAddress{}, err
	}
	return portable.NetAddress{Type: portable.AddressI2P, Host: host, Port: 1}, nil
}

// Parse is net::get_network_address for the peer flags: a Tor, I2P, IPv4
// or [IPv6] address with a port (defaultPort when none is given; an IP
// address needs one when defaultPort is 0). Names are not resolved.
func Parse(s string, defaultPort uint16) (portable.NetAddress, error) {
	host, _, _ := splitHostPort(s)
	switch {
	case strings.HasSuffix(strings.ToLower(host), OnionSuffix):
		return ParseOnion(s, defaultPort)
	case strings.HasSuffix(strings.ToLower(host), ".i2p"):
		return ParseI2P(s)
	}
	ap, err := netip.ParseAddrPort(s)
	if err != nil {
		ip, err2 := netip.ParseAddr(strings.TrimSuffix(strings.TrimPrefix(s, "["), "]"))
		if err2 != nil || defaultPort == 0 {
			return portable.NetAddress{}, fmt.Errorf("anonaddr: address %q: want IP:port, host.onion:port or host.b32.i2p", s)
		}
		ap = netip.AddrPortFrom(ip, defaultPort)
	}
	if ap.Addr().Zone() != "" {
		return portable.NetAddress{}, fmt.Errorf("anonaddr: address %q: an IPv6 zone is not an address peers can share", s)
	}
	a := portable.NetAddress{Type: portable.AddressIPv4, IP: ap.Addr().Unmap(), Port: ap.Port()}
	if a.IP.Is6() {
		a.Type = portable.AddressIPv6
	}
	return a, nil
}

// Canonical checks a Tor or I2P address a peer sent, as monerod's loader
// does after lowercasing it, and returns it lowercased; ok is false for an
// address not to keep or dial: a host that fails the checks (an Unknown
// one included) or a Tor address without a port.
func Canonical(a portable.NetAddress) (_ portable.NetAddress, ok bool) {
	a.Host = strings.ToLower(a.Host)
	switch a.Type {
	case portable.AddressTor:
		return a, a.Port != 0 && CheckOnionHost(a.Host) == nil
	case portable.AddressI2P:
		a.Port = 1
		return a, CheckI2PHost(a.Host) == nil
	}
	return a, false
}
