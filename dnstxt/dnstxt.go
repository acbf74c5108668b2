// Package dnstxt asks a DNS resolver for TXT records over TCP, the way
// monerod's DNS blocklist reads them: each record's data after its first
// length byte (dns_utils.cpp txt_to_string), and whether the resolver
// vouched for them with DNSSEC (the AD flag). gonero does not validate
// DNSSEC signatures itself: it asks a validating resolver (monerod links
// libunbound, which validates), so the resolver must be trusted and
// reached over a trusted path. It knows nothing of P2P.
package dnstxt

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"time"
)

// Errors of a malformed or unexpected answer.
var (
	ErrMalformed = errors.New("dnstxt: malformed DNS message")
	ErrMismatch  = errors.New("dnstxt: answer to another query")
)

const (
	typeTXT  = 16
	typeOPT  = 41
	classIN  = 1
	flagQR   = 1 << 15
	flagRD   = 1 << 8
	flagAD   = 1 << 5
	rcodeNX  = 3
	maxLabel = 63
	maxName  = 255
)

// BuildQuery is a TXT query for name with id: recursion desired, and
// EDNS0 with the DO bit and the AD bit set, which asks a validating
// resolver to say whether the answer is DNSSEC-secure (RFC 6840, section 5.7).
func BuildQuery(id uint16, name string) ([]byte, error) {
	name = strings.TrimSuffix(name, ".")
	if name == "" || len(name) > maxName-2 {
		return nil, fmt.Errorf("dnstxt: bad name %q", name)
	}
	b := make([]byte, 12, 12+len(name)+2+4+11)
	binary.BigEndian.PutUint16(b[0:], id)
	binary.BigEndian.PutUint16(b[2:], flagRD|flagAD)
	binary.BigEndian.PutUint16(b[4:], 1)  // QDCOUNT
	binary.BigEndian.PutUint16(b[10:], 1) // ARCOUNT: the OPT record
	for _, label := range strings.Split(name, ".") {
		if label == "" || len(label) > maxLabel {
			return nil, fmt.Errorf("dnstxt: bad name %q", name)
		}
		b = append(b, byte(len(label)))
		b = append(b, label...)
	}
	b = append(b, 0, 0, typeTXT, 0, classIN)
	// OPT: root name, type 41, UDP payload 4096, extended rcode 0,
	// version 0, DO bit, no options.
	b = append(b, 0, 0, typeOPT, 0x10, 0x00, 0, 0, 0x80, 0, 0, 0)
	return b, nil
}

// Answer is a parsed TXT answer.
type Answer struct {
	// TXT holds each TXT record of the answer section: its data after
	// the first length byte, as monerod's txt_to_string takes it.
	TXT []string
	// Authenticated is the AD flag: the resolver validated the answer.
	Authenticated bool
	// NXDomain: the name does not exist (TXT is empty).
	NXDomain bool
}

// ParseAnswer reads the answer to the query BuildQuery(id, name) made.
// Records of other types (a CNAME on the way) are skipped; a message that
// is not an answer to that query, or that does not parse, is an error.
func ParseAnswer(msg []byte, id uint16, name string) (Answer, error) {
	var a Answer
	if len(msg) < 12 {
		return a, ErrMalformed
	}
	flags := binary.BigEndian.Uint16(msg[2:])
	if binary.BigEndian.Uint16(msg[0:]) != id || flags&flagQR == 0 {
		return a, ErrMismatch
	}
	qd := int(binary.BigEndian.Uint16(msg[4:]))
	an := int(binary.BigEndian.Uint16(msg[6:]))
	if qd != 1 {
		return a, ErrMismatch
	}
	off := 12
	qname, off, err := readName(msg, off)
	if err != nil {
		return a, err
	}
	if off+4 > len(msg) {
		return a, ErrMalformed
	}
	if !strings.EqualFold(qname, strings.TrimSuffix(name, ".")) || binary.BigEndian.Uint16(msg[off:]) != typeTXT {
		return a, ErrMismatch
	}
	off += 4
	switch rcode := flags & 0xf; rcode {
	case 0:
	case rcodeNX:
		a.NXDomain = true
	default:
		return a, fmt.Errorf("dnstxt: resolver answered rcode %d", rcode)
	}
	a.Authenticated = flags&flagAD != 0
	for range an {
		if _, off, err = readName(msg, off); err != nil {
			return Answer{}, err
		}
		if off+10 > len(msg) {
			return Answer{}, ErrMalformed
		}
		typ := binary.BigEndian.Uint16(msg[off:])
		class := binary.BigEndian.Uint16(msg[off+2:])
		rdlen := int(binary.BigEndian.Uint16(msg[off+8:]))
		off += 10
		if off+rdlen > len(msg) {
			return Answer{}, ErrMalformed
		}
		if typ == typeTXT && class == classIN && rdlen > 0 {
			a.TXT = append(a.TXT, string(msg[off+1:off+rdlen]))
		}
		off += rdlen
	}
	return a, nil
}

// readName reads a possibly compressed domain name at off and returns it
// (dotted, without the root's dot) and the offset after it. Pointers must
// point backwards, which bounds the walk.
func readName(msg []byte, off int) (string, int, error) {
	var sb strings.Builder
	end := -1
	for hops := 0; ; hops++ {
		if off >= len(msg) || hops > 128 {
			return "", 0, ErrMalformed
		}
		l := int(msg[off])
		switch {
		case l == 0:
			if end < 0 {
				end = off + 1
			}
			return sb.String(), end, nil
		case l&0xc0 == 0xc0:
			if off+1 >= len(msg) {
				return "", 0, ErrMalformed
			}
			ptr := int(binary.BigEndian.Uint16(msg[off:]) & 0x3fff)
			if ptr >= off {
				return "", 0, ErrMalformed
			}
			if end < 0 {
				end = off + 2
			}
			off = ptr
		case l&0xc0 != 0:
			return "", 0, ErrMalformed
		default:
			if off+1+l > len(msg) || sb.Len()+l+1 > maxName {
				return "", 0, ErrMalformed
			}
			if sb.Len() > 0 {
				sb.WriteByte('.')
			}
			sb.Write(msg[off+1 : off+1+l])
			off += 1 + l
		}
	}
}

// Client asks one resolver over TCP.
type Client struct {
	Server  string        // host:port
	Timeout time.Duration // per lookup; 0: 10 s
	// Dial opens the connection (nil: net.Dialer's); tests inject theirs.
	Dial func(ctx context.Context, network, addr string) (net.Conn, error)
}

// LookupTXT asks the resolver for name's TXT records.
func (c *Client) LookupTXT(ctx context.Context, name string) (Answer, error) {
	timeout := c.Timeout
	if timeout <= 0 {
		timeout = 10 * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var idb [2]byte
	if _, err := io.ReadFull(randReader, idb[:]); err != nil {
		return Answer{}, err
	}
	id := binary.BigEndian.Uint16(idb[:])
	q, err := BuildQuery(id, name)
	if err != nil {
		return Answer{}, err
	}
	dial := c.Dial
	if dial == nil {
		dial = (&net.Dialer{}).DialContext
	}
	conn, err := dial(ctx, "tcp", c.Server)
	if err != nil {
		return Answer{}, fmt.Errorf("dnstxt: %w", err)
	}
	defer conn.Close()
	if dl, ok := ctx.Deadline(); ok {
		_ = conn.SetDeadline(dl)
	}
	msg := make([]byte, 2+len(q))
	binary.BigEndian.PutUint16(msg, uint16(len(q)))
	copy(msg[2:], q)
	if _, err := conn.Write(msg); err != nil {
		return Answer{}, fmt.Errorf("dnstxt: %w", err)
	}
	var lb [2]byte
	if _, err := io.ReadFull(conn, lb[:]); err != nil {
		return Answer{}, fmt.Errorf("dnstxt: %w", err)
	}
	resp := make([]byte, binary.BigEndian.Uint16(lb[:]))
	if _, err := io.ReadFull(conn, resp); err != nil {
		return Answer{}, fmt.Errorf("dnstxt: %w", err)
	}
	return ParseAnswer(resp, id, name)
}
