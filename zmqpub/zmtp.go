package zmqpub

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
)

// ZMTP 3.0 framing as far as a publisher reads it (rfc.zeromq.org/spec/23):
// a 64-byte greeting, then frames: a flags byte (MORE 1, LONG 2, COMMAND 4),
// a size (one byte, or eight big-endian bytes when LONG), the body.
const (
	greetingLen   = 64
	flagMore      = 0x01
	flagLong      = 0x02
	flagCommand   = 0x04
	flagsReserved = 0xf8
	// MaxFrame bounds every frame a subscriber sends. A subscriber sends
	// its handshake metadata and subscriptions, a few dozen bytes; monerod
	// (ZMQ_MAXMSGSIZE) disconnects at 10 MiB, which with thousands of
	// subscribers would let them pin gigabytes.
	MaxFrame = 64 << 10
)

var errFrameTooBig = errors.New("frame bigger than the limit")

// frameScanner follows a subscriber's byte stream and refuses a frame
// whose declared size exceeds the limit before anything reads its body:
// go-zeromq's reader allocates a frame's declared size up front, so the
// handshake it performs would otherwise let a peer ask for any amount of
// memory with nine bytes.
type frameScanner struct {
	greetLeft int
	state     int // 0 flags, 1 short size, 2 long size, 3 body
	sizeBytes int
	size      uint64
	bodyLeft  uint64
	limit     uint64
}

func newFrameScanner(limit uint64) *frameScanner {
	return &frameScanner{greetLeft: greetingLen, limit: limit}
}

func (s *frameScanner) scan(p []byte) error {
	for len(p) > 0 {
		if s.greetLeft > 0 {
			n := min(s.greetLeft, len(p))
			s.greetLeft -= n
			p = p[n:]
			continue
		}
		switch s.state {
		case 0:
			f := p[0]
			p = p[1:]
			if f&flagsReserved != 0 {
				return fmt.Errorf("reserved frame flags %#x", f)
			}
			s.size, s.sizeBytes = 0, 0
			if f&flagLong != 0 {
				s.state = 2
			} else {
				s.state = 1
			}
		case 1, 2:
			s.size = s.size<<8 | uint64(p[0])
			s.sizeBytes++
			p = p[1:]
			if s.state == 1 || s.sizeBytes == 8 {
				if s.size > s.limit {
					return errFrameTooBig
				}
				s.bodyLeft = s.size
				s.state = 3
				if s.bodyLeft == 0 {
					s.state = 0
				}
			}
		case 3:
			n := min(s.bodyLeft, uint64(len(p)))
			s.bodyLeft -= n
			p = p[n:]
			if s.bodyLeft == 0 {
				s.state = 0
			}
		}
	}
	return nil
}

// guardConn passes a subscriber's bytes through a frameScanner.
type guardConn struct {
	net.Conn
	s   *frameScanner
	err error
}

func (g *guardConn) Read(p []byte) (int, error) {
	if g.err != nil {
		return 0, g.err
	}
	n, err := g.Conn.Read(p)
	if serr := g.s.scan(p[:n]); serr != nil {
		g.err = serr
		return 0, serr
	}
	return n, err
}

// message is one ZMTP message a subscriber sent after the handshake.
type message struct {
	command bool
	frames  [][]byte
}

// readMessage reads one message (its frames up to one without MORE), at
// most limit bytes of bodies in all.
func readMessage(r *bufio.Reader, limit int) (message, error) {
	var m message
	total := 0
	for {
		f, err := r.ReadByte()
		if err != nil {
			return m, err
		}
		if f&flagsReserved != 0 {
			return m, fmt.Errorf("reserved frame flags %#x", f)
		}
		var size uint64
		if f&flagLong != 0 {
			var b [8]byte
			if _, err := io.ReadFull(r, b[:]); err != nil {
				return m, err
			}
			size = binary.BigEndian.Uint64(b[:])
		} else {
			b, err := r.ReadByte()
			if err != nil {
				return m, err
			}
			size = uint64(b)
		}
		if size > uint64(limit-total) {
			return m, errFrameTooBig
		}
		body := make([]byte, size)
		if _, err := io.ReadFull(r, body); err != nil {
			return m, err
		}
		total += int(size)
		m.command = m.command || f&flagCommand != 0
		m.frames = append(m.frames, body)
		if f&flagMore == 0 || f&flagCommand != 0 {
			return m, nil
		}
	}
}

// subscription reads a message as an XPUB does: one frame starting with 1
// (subscribe) or 0 (unsubscribe) followed by the prefix; ok is false for
// anything else (commands such as PING, multi-frame or empty messages,
// other first bytes), which monerod logs as an invalid ZMQ/Sub message.
func (m message) subscription() (subscribe bool, prefix string, ok bool) {
	if m.command || len(m.frames) != 1 || len(m.frames[0]) == 0 {
		return false, "", false
	}
	switch m.frames[0][0] {
	case 0:
		return false, string(m.frames[0][1:]), true
	case 1:
		return true, string(m.frames[0][1:]), true
	}
	return false, "", false
}
