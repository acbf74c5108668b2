package levin

import (
	"encoding/binary"
	"fmt"
	"io"
)

// Message is one complete levin message as the P2P layer sees it: a
// request, response or notification, with fragments already reassembled.
type Message struct {
	Kind       Kind // KindRequest, KindResponse or KindNotification
	Command    uint32
	ReturnCode ReturnCode // meaningful in responses; ReturnOK elsewhere when monerod sends
	Body       []byte     // portable-storage blob; empty in monerod's error responses
}

// header returns the bucket header monerod would send for m (docs/p2p-levin.md §2.3 table):
// requests have m_have_to_return_data = 1 and the request flag, notifications
// 0 and the request flag, responses 0 and the response flag.
func (m Message) header() (Header, error) {
	h := Header{
		BodySize:        uint64(len(m.Body)),
		Command:         m.Command,
		ReturnCode:      m.ReturnCode,
		ProtocolVersion: ProtocolVersion,
	}
	switch m.Kind {
	case KindRequest:
		h.ExpectsResponse, h.Flags = true, FlagRequest
	case KindResponse:
		h.Flags = FlagResponse
	case KindNotification:
		h.Flags = FlagRequest
	default:
		return Header{}, fmt.Errorf("%w: %v", ErrBadKind, m.Kind)
	}
	if lim := bodyLimit(MaxPacketSize, m.Command); h.BodySize > lim {
		// monerod would drop the connection on receipt; refuse to send it.
		return Header{}, &SizeError{Command: m.Command, Size: h.BodySize, Limit: lim}
	}
	return h, nil
}

// AppendMessage appends m's header and body to dst. It refuses an invalid
// Kind and a body larger than monerod accepts for the command after the
// handshake (min(MaxPacketSize, CommandMaxBodySize)).
func AppendMessage(dst []byte, m Message) ([]byte, error) {
	h, err := m.header()
	if err != nil {
		return dst, err
	}
	hb := h.Encode()
	return append(append(dst, hb[:]...), m.Body...), nil
}

// WriteMessage writes m with a single Write call, so that concurrent writers
// on a net.Conn (whose Write is atomic per call) never interleave buckets.
func WriteMessage(w io.Writer, m Message) error {
	buf, err := AppendMessage(make([]byte, 0, HeaderSize+len(m.Body)), m)
	if err != nil {
		return err
	}
	_, err = w.Write(buf)
	return err
}

// ReadMessage reads one message from r, allowing bodies of at most limit
// bytes (MaxPacketSizeBeforeHandshake or MaxPacketSize). It is a Reader used
// once: fragments and noise before the message are handled, but a fragment
// sequence interrupted by an ordinary message is lost when the call returns.
// A connection should keep one Reader instead.
func ReadMessage(r io.Reader, limit uint64) (Message, error) {
	rd := Reader{r: r, Limit: limit}
	return rd.ReadMessage()
}

// Reader reads messages from one connection. It keeps the fragment buffer
// between calls, as monerod keeps it per connection. Wrap a net.Conn in a
// bufio.Reader first: the header is read in two small pieces.
type Reader struct {
	// Limit is the connection's maximum body size, checked (together with
	// CommandMaxBodySize) before any body byte is read. Set it to
	// MaxPacketSize once the handshake is done; change it only between
	// ReadMessage calls.
	Limit uint64

	// CommandLimit, when set, lowers a command's limit below
	// min(Limit, MaxPayloadSize) from what only the connection's owner
	// knows: the chain's block weight limit, whether a block request is
	// outstanding (monerod drops an unrequested NOTIFY_RESPONSE_GET_OBJECTS),
	// how many blocks it asked for. A result of 0 refuses every body of the
	// command; it never raises a limit. Change it only between ReadMessage
	// calls.
	CommandLimit func(command uint32) uint64

	// Claim, when set, is told before any body byte is read how many
	// bytes the message being read will hold: its declared body, or for
	// a fragmented one the fragments buffered with the next one announced
	// (and, once the inner header is in, the message it announces). It
	// only ever hears larger sizes for one message; an error refuses the
	// message unread and ReadMessage returns it as is. The owner counts
	// the claims against its memory budgets and gives them back when it
	// is done with the message. Change it only between ReadMessage calls.
	Claim func(command uint32, size uint64) error

	r       io.Reader
	frag    []byte // fragments received so far
	pending bool   // a fragment sequence has started and not ended
	hdr     [HeaderSize]byte
}

// NewReader returns a Reader on r with the given connection limit.
func NewReader(r io.Reader, limit uint64) *Reader {
	return &Reader{r: r, Limit: limit}
}

// ReadMessage returns the next request, response or notification.
//
// Noise buckets are read and discarded, fragments are collected until the
// END fragment and the message inside is returned (levin_base.cpp,
// docs/p2p-levin.md §2.6). Errors: io.EOF when the stream ends cleanly between messages (and
// outside a fragment sequence); io.ErrUnexpectedEOF when it ends inside a
// header, a body or a fragment sequence; ErrBadSignature, ErrBadHeader,
// ErrBadProtocolVersion (*VersionError), ErrTooLarge (*SizeError) and
// ErrBadFragment for a misbehaving peer; otherwise the underlying read
// error. After any error the stream position is undefined: close the
// connection, as monerod does.
func (r *Reader) ReadMessage() (Message, error) {
	for {
		h, err := r.readHeader()
		if err != nil {
			return Message{}, err
		}
		kind := h.Kind()
		if kind != KindFragment {
			if lim := r.limit(h.Command); h.BodySize > lim {
				return Message{}, &SizeError{Command: h.Command, Size: h.BodySize, Limit: lim}
			}
			if err := r.claim(h.Command, h.BodySize); err != nil {
				return Message{}, err
			}
			body, err := r.readBody(nil, h.BodySize)
			if err != nil {
				return Message{}, err
			}
			return Message{Kind: kind, Command: h.Command, ReturnCode: h.ReturnCode, Body: body}, nil
		}
		if h.IsNoise() {
			if h.BodySize > r.Limit {
				return Message{}, &SizeError{Command: h.Command, Size: h.BodySize, Limit: r.Limit}
			}
			if err := r.discard(h.BodySize); err != nil {
				return Message{}, err
			}
			continue
		}
		m, ok, err := r.fragment(h)
		if err != nil || ok {
			return m, err
		}
	}
}

// limit is the most body bytes a message of command may announce on this
// connection: min(Limit, MaxPayloadSize, CommandLimit).
func (r *Reader) limit(command uint32) uint64 {
	lim := bodyLimit(r.Limit, command)
	if r.CommandLimit != nil {
		lim = min(lim, r.CommandLimit(command))
	}
	return lim
}

func (r *Reader) claim(command uint32, size uint64) error {
	if r.Claim == nil {
		return nil
	}
	return r.Claim(command, size)
}

// readHeader reads and parses one header. The signature is checked as soon
// as its 8 bytes are in, as monerod does, so garbage is refused without
// waiting for 25 more bytes.
func (r *Reader) readHeader() (Header, error) {
	if _, err := io.ReadFull(r.r, r.hdr[:8]); err != nil {
		if err == io.EOF && r.pending {
			err = io.ErrUnexpectedEOF
		}
		return Header{}, err
	}
	if binary.LittleEndian.Uint64(r.hdr[:8]) != Signature {
		return Header{}, ErrBadSignature
	}
	if _, err := io.ReadFull(r.r, r.hdr[8:]); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return Header{}, err
	}
	return parseHeaderFields(r.hdr[:])
}

// fragment handles one fragment bucket (docs/p2p-levin.md §2.6 receiving side). ok reports
// that it completed a message.
//
// The buffered fragments count against the connection limit together with
// the announced body, as in monerod. The inner header's signature is not
// checked (monerod does not), but its version and bool byte are, and its
// body size must fit both the reassembled payload and the limits for its
// command. Since v0.18.5.0 monerod cuts the payload to the inner m_cb (the
// rest is zero padding); earlier versions passed the padding on, which the
// storage parser ignored; cutting is correct for both.
func (r *Reader) fragment(h Header) (Message, bool, error) {
	if h.Flags&FlagBegin != 0 {
		r.frag = r.frag[:0]
	}
	buffered := uint64(len(r.frag))
	if h.BodySize > r.Limit || buffered > r.Limit-h.BodySize {
		size := buffered + h.BodySize
		if size < buffered {
			size = ^uint64(0)
		}
		return Message{}, false, &SizeError{Command: h.Command, Size: size, Limit: r.Limit}
	}
	if err := r.claim(h.Command, buffered+h.BodySize); err != nil {
		return Message{}, false, err
	}
	r.pending = true
	var err error
	if r.frag, err = r.readBody(r.frag, h.BodySize); err != nil {
		return Message{}, false, err
	}
	// Once the inner header is in, the message's own size is known: a
	// message announced past its command's limit is refused before the
	// fragments that would carry it are read.
	if len(r.frag) >= HeaderSize && h.Flags&FlagEnd == 0 {
		inner, err := parseHeaderFields(r.frag)
		if err != nil {
			return Message{}, false, err
		}
		if lim := r.limit(inner.Command); inner.BodySize > lim {
			return Message{}, false, &SizeError{Command: inner.Command, Size: inner.BodySize, Limit: lim}
		}
		if err := r.claim(inner.Command, HeaderSize+inner.BodySize); err != nil {
			return Message{}, false, err
		}
	}
	if h.Flags&FlagEnd == 0 {
		return Message{}, false, nil
	}
	buf := r.frag
	r.frag, r.pending = nil, false
	if len(buf) < HeaderSize {
		return Message{}, false, fmt.Errorf("%w: %d bytes reassembled, less than a header", ErrBadFragment, len(buf))
	}
	inner, err := parseHeaderFields(buf)
	if err != nil {
		return Message{}, false, err
	}
	kind := inner.Kind()
	if kind == KindFragment {
		return Message{}, false, fmt.Errorf("%w: fragment inside a fragmented message", ErrBadFragment)
	}
	payload := buf[HeaderSize:]
	if inner.BodySize > uint64(len(payload)) {
		return Message{}, false, fmt.Errorf("%w: inner body of %d bytes, only %d reassembled", ErrBadFragment, inner.BodySize, len(payload))
	}
	if lim := r.limit(inner.Command); inner.BodySize > lim {
		return Message{}, false, &SizeError{Command: inner.Command, Size: inner.BodySize, Limit: lim}
	}
	body := payload[:inner.BodySize:inner.BodySize]
	return Message{Kind: kind, Command: inner.Command, ReturnCode: inner.ReturnCode, Body: body}, true, nil
}

// bodyChunk bounds how far memory may run ahead of the bytes received: a
// peer announcing 100 MB and sending nothing costs at most this much.
const bodyChunk = 64 << 10

// readBody appends exactly n bytes from the stream to dst. A body up to
// bodyChunk into an empty dst is one exact allocation; beyond that memory
// grows with the data actually received. Capacity at least doubles on each
// reallocation, so copying stays linear both for one large body and for
// the fragment buffer fed by many tiny fragments.
func (r *Reader) readBody(dst []byte, n uint64) ([]byte, error) {
	for n > 0 {
		step := int(min(n, max(bodyChunk, uint64(len(dst)))))
		old := len(dst)
		if cap(dst)-old < step {
			grown := make([]byte, old, max(old+step, 2*cap(dst)))
			copy(grown, dst)
			dst = grown
		}
		dst = dst[:old+step]
		if _, err := io.ReadFull(r.r, dst[old:]); err != nil {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return nil, err
		}
		n -= uint64(step)
	}
	return dst, nil
}

// discard skips n body bytes without keeping them.
func (r *Reader) discard(n uint64) error {
	for n > 0 {
		step := min(n, 1<<30)
		if _, err := io.CopyN(io.Discard, r.r, int64(step)); err != nil {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return err
		}
		n -= step
	}
	return nil
}
