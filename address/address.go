// Package address parses and formats Monero addresses: standard, integrated
// and subaddresses of mainnet, testnet and stagenet (regtest uses mainnet's).
//
// An address is base58 (Monero's block-wise variant) of
// varint(prefix) ‖ spend public key ‖ view public key [‖ 8-byte payment id]
// ‖ the first 4 bytes of Keccak-256 of everything before them. The prefix
// names the network and the kind.
package address

import (
	"errors"
	"fmt"

	"filippo.io/edwards25519"

	"github.com/gonero/gonero/cryptonote"
	"github.com/gonero/gonero/params"
)

// Kind is what an address's prefix says it is.
type Kind uint8

const (
	Standard   Kind = iota + 1 // the account's main address
	Integrated                 // a standard address with an 8-byte payment id
	Subaddress                 // a subaddress (spend key D, view key C = a·D)
)

func (k Kind) String() string {
	switch k {
	case Standard:
		return "standard address"
	case Integrated:
		return "integrated address"
	case Subaddress:
		return "subaddress"
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// Address is a parsed address.
type Address struct {
	// Network is Mainnet, Testnet or Stagenet: the prefix's network.
	// Regtest shares mainnet's prefixes; use Network.Accepts.
	Network   params.Network
	Kind      Kind
	Spend     cryptonote.Key
	View      cryptonote.Key
	PaymentID [8]byte // integrated addresses only
}

// prefixes are cryptonote_config.h's CRYPTONOTE_PUBLIC_*_BASE58_PREFIX values.
var prefixes = []struct {
	net                              params.Network
	standard, integrated, subaddress uint64
}{
	{params.Mainnet, 18, 19, 42},
	{params.Testnet, 53, 54, 63},
	{params.Stagenet, 24, 25, 36},
}

const (
	checksumSize = 4
	keysSize     = 64
	paymentIDLen = 8
	// maxLength bounds the input before decoding: an integrated address, the
	// longest kind, is 106 characters.
	maxLength = 128
)

// Errors; every parse error wraps one of these.
var (
	ErrEmpty         = errors.New("empty address")
	ErrTooLong       = errors.New("address too long")
	ErrBase58        = errors.New("not valid base58")
	ErrChecksum      = errors.New("checksum mismatch (a mistyped or truncated address)")
	ErrUnknownPrefix = errors.New("unknown address prefix")
	ErrLength        = errors.New("wrong length for its kind")
	ErrBadKey        = errors.New("public key is not a valid curve point")
	ErrWrongNetwork  = errors.New("address belongs to another network")
)

// Parse decodes an address of any network and kind. The keys must be valid
// curve points, as monerod's get_account_address_from_str requires.
func Parse(s string) (Address, error) {
	switch {
	case s == "":
		return Address{}, ErrEmpty
	case len(s) > maxLength:
		return Address{}, fmt.Errorf("%w: %d characters (an address has at most 106)", ErrTooLong, len(s))
	}
	raw, err := Base58Decode(s)
	if err != nil {
		return Address{}, fmt.Errorf("%w: %v", ErrBase58, err)
	}
	if len(raw) <= checksumSize {
		return Address{}, fmt.Errorf("%w: %d bytes decoded", ErrLength, len(raw))
	}
	body, sum := raw[:len(raw)-checksumSize], raw[len(raw)-checksumSize:]
	if want := cryptonote.Keccak256(body); string(want[:checksumSize]) != string(sum) {
		return Address{}, ErrChecksum
	}
	d := cryptonote.NewDecoder(body)
	prefix, err := d.Varint("prefix")
	if err != nil {
		return Address{}, fmt.Errorf("%w: %v", ErrUnknownPrefix, err)
	}
	a := Address{}
	for _, p := range prefixes {
		switch prefix {
		case p.standard:
			a.Network, a.Kind = p.net, Standard
		case p.integrated:
			a.Network, a.Kind = p.net, Integrated
		case p.subaddress:
			a.Network, a.Kind = p.net, Subaddress
		}
	}
	if a.Kind == 0 {
		return Address{}, fmt.Errorf("%w %d", ErrUnknownPrefix, prefix)
	}
	rest := body[d.Offset():]
	want := keysSize
	if a.Kind == Integrated {
		want += paymentIDLen
	}
	if len(rest) != want {
		return Address{}, fmt.Errorf("%w: a %s %s holds %d bytes of keys and payment id, this one %d", ErrLength, a.Network, a.Kind, want, len(rest))
	}
	copy(a.Spend[:], rest[:32])
	copy(a.View[:], rest[32:64])
	copy(a.PaymentID[:], rest[64:])
	if !ValidKey(a.Spend) {
		return Address{}, fmt.Errorf("%w: spend key %s", ErrBadKey, a.Spend)
	}
	if !ValidKey(a.View) {
		return Address{}, fmt.Errorf("%w: view key %s", ErrBadKey, a.View)
	}
	return a, nil
}

// ValidKey is crypto::check_key: k is the canonical encoding of a curve
// point. edwards25519.Point.SetBytes alone also takes non-canonical
// encodings (y >= p, or x = 0 with the sign bit set), which monerod's
// ge_frombytes_vartime refuses; re-encoding and comparing refuses them too.
func ValidKey(k cryptonote.Key) bool {
	p, err := new(edwards25519.Point).SetBytes(k[:])
	return err == nil && string(p.Bytes()) == string(k[:])
}

// ParseFor parses an address that must belong to net (regtest takes
// mainnet addresses, as monerod's fakechain does). A wrong network gets an
// error naming both.
func ParseFor(s string, net params.Network) (Address, error) {
	a, err := Parse(s)
	if err != nil {
		return a, err
	}
	if prefixNetwork(net) != a.Network {
		name := net.String()
		if net == params.Regtest {
			name = "regtest" // String gives monerod's nettype, "fakechain"
		}
		return Address{}, fmt.Errorf("%w: a %s %s, but the node runs %s (which uses %s addresses)", ErrWrongNetwork, a.Network, a.Kind, name, prefixNetwork(net))
	}
	return a, nil
}

// prefixNetwork is the network whose prefixes net uses.
func prefixNetwork(net params.Network) params.Network {
	if net == params.Regtest {
		return params.Mainnet
	}
	return net
}

// String encodes the address (with its checksum).
func (a Address) String() string {
	var prefix uint64
	for _, p := range prefixes {
		if p.net == a.Network {
			switch a.Kind {
			case Standard:
				prefix = p.standard
			case Integrated:
				prefix = p.integrated
			case Subaddress:
				prefix = p.subaddress
			}
		}
	}
	b := cryptonote.AppendVarint(nil, prefix)
	b = append(b, a.Spend[:]...)
	b = append(b, a.View[:]...)
	if a.Kind == Integrated {
		b = append(b, a.PaymentID[:]...)
	}
	sum := cryptonote.Keccak256(b)
	return Base58Encode(append(b, sum[:checksumSize]...))
}
