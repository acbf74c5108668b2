package levin

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"testing"
)

// headerOnly is a stream holding one header and then failing the test on
// any further read: a refusal by declared size must come without the body
// being read.
type headerOnly struct {
	t   *testing.T
	hdr []byte
}

func (h *headerOnly) Read(p []byte) (int, error) {
	if len(h.hdr) == 0 {
		h.t.Fatal("read past the header")
		return 0, io.EOF
	}
	n := copy(p, h.hdr)
	h.hdr = h.hdr[n:]
	return n, nil
}

// allCommands are monerod v0.18's levin commands.
var allCommands = []uint32{CommandHandshake, CommandTimedSync, CommandPing, CommandRequestSupportFlags,
	NotifyNewBlock, NotifyNewTransactions, NotifyRequestGetObjects, NotifyResponseGetObjects, NotifyRequestChain,
	NotifyResponseChainEntry, NotifyNewFluffyBlock, NotifyRequestFluffyMissingTx, NotifyGetTxpoolComplement}

// TestAnnouncedPastLimitRefusedUnread: for every command, before and after
// the handshake, a header announcing one byte more than the command's limit
// is refused with a *SizeError naming that limit, and nothing past the
// header is read; a body of exactly the limit is read whole.
func TestAnnouncedPastLimitRefusedUnread(t *testing.T) {
	for _, conn := range []uint64{MaxPacketSizeBeforeHandshake, MaxPacketSize} {
		for _, cmd := range allCommands {
			lim := min(conn, MaxPayloadSize(cmd))
			if lim > CommandMaxBodySize(cmd) || lim > conn {
				t.Fatalf("command %d: limit %d above monerod's %d or the connection's %d", cmd, lim, CommandMaxBodySize(cmd), conn)
			}
			rd := NewReader(&headerOnly{t: t, hdr: validHeader(cmd, lim+1)}, conn)
			_, err := rd.ReadMessage()
			var se *SizeError
			if !errors.As(err, &se) || se.Command != cmd || se.Size != lim+1 || se.Limit != lim {
				t.Errorf("command %d, connection limit %d: %v, want a *SizeError at %d", cmd, conn, err, lim)
			}
			if lim > 4<<20 {
				continue // the largest bodies are covered by TestSizeLimits without their bytes
			}
			msg := append(validHeader(cmd, lim), make([]byte, lim)...)
			m, err := ReadMessage(bytes.NewReader(msg), conn)
			if err != nil || m.Command != cmd || uint64(len(m.Body)) != lim {
				t.Errorf("command %d: a body of exactly %d bytes: %v", cmd, lim, err)
			}
		}
	}
}

// TestRequestGetObjectsLimit: the largest request monerod serves (100 block
// hashes, pruned) fits; more hashes, which monerod drops the peer for, do
// not fit once framed.
func TestRequestGetObjectsLimit(t *testing.T) {
	lim := MaxPayloadSize(NotifyRequestGetObjects)
	// The portable-storage bytes of {blocks: 100 hashes, prune: true}: the
	// storage header, one section of two entries, the blob and the bool.
	body := storageBlob(maxObjectRequestCount)
	if uint64(len(body)) > lim {
		t.Fatalf("a request for %d blocks is %d bytes, over the limit %d", maxObjectRequestCount, len(body), lim)
	}
	m, err := ReadMessage(bytes.NewReader(append(validHeader(NotifyRequestGetObjects, uint64(len(body))), body...)), MaxPacketSize)
	if err != nil || !bytes.Equal(m.Body, body) {
		t.Fatalf("%v", err)
	}
	if over := storageBlob(maxObjectRequestCount + fieldSlack/32 + 1); uint64(len(over)) <= lim {
		t.Fatalf("a request of %d bytes fits the limit %d", len(over), lim)
	}
}

// storageBlob is a portable-storage section {blocks: n hashes, prune: true}
// written as monerod's epee writes it.
func storageBlob(n int) []byte {
	b := []byte{0x01, 0x11, 0x01, 0x01, 0x01, 0x01, 0x02, 0x01, 0x01} // signatures and version
	b = append(b, 2<<2)                                               // two entries
	b = append(b, 6)
	b = append(b, "blocks"...)
	b = append(b, 10) // SERIALIZE_TYPE_STRING
	b = appendStorageVarint(b, uint64(n*32))
	b = append(b, make([]byte, n*32)...)
	b = append(b, 5)
	b = append(b, "prune"...)
	b = append(b, 11, 1) // SERIALIZE_TYPE_BOOL, true
	return b
}

func appendStorageVarint(b []byte, v uint64) []byte {
	switch {
	case v < 1<<6:
		return append(b, byte(v<<2))
	case v < 1<<14:
		v = v<<2 | 1
		return append(b, byte(v), byte(v>>8))
	case v < 1<<30:
		v = v<<2 | 2
		return append(b, byte(v), byte(v>>8), byte(v>>16), byte(v>>24))
	}
	v = v<<2 | 3
	return append(b, byte(v), byte(v>>8), byte(v>>16), byte(v>>24), byte(v>>32), byte(v>>40), byte(v>>48), byte(v>>56))
}

// TestCommandLimitLowers: the owner's CommandLimit lowers a command's limit
// (0 refuses every body, unread), never raises one, and leaves other
// commands alone.
func TestCommandLimitLowers(t *testing.T) {
	limits := func(cmd uint32) uint64 {
		switch cmd {
		case NotifyResponseGetObjects:
			return 0 // nothing requested
		case CommandPing:
			return 1 << 30 // above monerod's 4096
		}
		return ^uint64(0)
	}
	read := func(cmd uint32, size uint64, t *testing.T) error {
		rd := NewReader(&headerOnly{t: t, hdr: validHeader(cmd, size)}, MaxPacketSize)
		rd.CommandLimit = limits
		_, err := rd.ReadMessage()
		return err
	}
	var se *SizeError
	if err := read(NotifyResponseGetObjects, 1, t); !errors.As(err, &se) || se.Limit != 0 {
		t.Errorf("unrequested objects: %v", err)
	}
	if err := read(CommandPing, 4097, t); !errors.As(err, &se) || se.Limit != 4096 {
		t.Errorf("ping past 4096: %v", err)
	}
	// An empty body needs no read past the header.
	rd := NewReader(bytes.NewReader(validHeader(NotifyResponseGetObjects, 0)), MaxPacketSize)
	rd.CommandLimit = limits
	if m, err := rd.ReadMessage(); err != nil || m.Command != NotifyResponseGetObjects {
		t.Errorf("empty objects response: %v", err)
	}
}

// TestFragmentedPastLimitRefusedEarly: a fragmented message whose inner
// header announces more than its command allows is refused when that
// header arrives, before the following fragments are read.
func TestFragmentedPastLimitRefusedEarly(t *testing.T) {
	f := fragmented(t, Message{Kind: KindNotification, Command: 7777, Body: make([]byte, 20_000)})
	inner := f[HeaderSize:]
	binary.LittleEndian.PutUint32(inner[17:], NotifyRequestGetObjects)
	lim := MaxPayloadSize(NotifyRequestGetObjects)
	// The first fragment bucket only: reading further fails the test.
	first := HeaderSize + int(parseSize(f))
	_, err := NewReader(&headerOnly{t: t, hdr: f[:first]}, MaxPacketSize).ReadMessage()
	var se *SizeError
	if !errors.As(err, &se) || se.Command != NotifyRequestGetObjects || se.Limit != lim {
		t.Fatalf("%v, want a *SizeError at %d", err, lim)
	}
}

func parseSize(b []byte) uint64 {
	h, _ := ParseHeader(b)
	return h.BodySize
}

// Claim hears a message's size before its body is read, and its refusal
// is returned without a byte of the body read: a whole message, and a
// fragmented one, whose claims grow with the fragments and, once the
// inner header is in, reach the size it announces.
func TestClaimBeforeBody(t *testing.T) {
	errFull := errors.New("budget spent")
	rd := NewReader(&headerOnly{t: t, hdr: validHeader(NotifyNewTransactions, 90_000_000)}, MaxPacketSize)
	var claims []uint64
	rd.Claim = func(command uint32, size uint64) error {
		if command != NotifyNewTransactions {
			t.Errorf("claim for command %d", command)
		}
		claims = append(claims, size)
		return errFull
	}
	if _, err := rd.ReadMessage(); !errors.Is(err, errFull) || len(claims) != 1 || claims[0] != 90_000_000 {
		t.Fatalf("a 90 MB announce: %v, claims %v", err, claims)
	}

	// A fragmented message of 2,000 body bytes in pieces of 500: the
	// claims grow piece by piece, and once the inner header is in they
	// include the whole message it announces.
	body := make([]byte, 2000)
	stream := fragmentedBy(t, Message{Kind: KindNotification, Command: NotifyNewTransactions, Body: body}, 500)
	rd = NewReader(bytes.NewReader(stream), MaxPacketSize)
	claims = nil
	rd.Claim = func(_ uint32, size uint64) error {
		claims = append(claims, size)
		return nil
	}
	m, err := rd.ReadMessage()
	if err != nil || len(m.Body) != len(body) {
		t.Fatalf("fragmented message: %v, %d bytes", err, len(m.Body))
	}
	whole := uint64(HeaderSize + len(body))
	if len(claims) < 2 || claims[0] != 500 || claims[len(claims)-1] < whole {
		t.Fatalf("claims %v: want the first fragment (500) first and at least the whole message (%d) last", claims, whole)
	}
	// The whole message was claimed before the last fragment was read: a
	// refusal at the inner header stops the rest unread.
	rd = NewReader(bytes.NewReader(stream), MaxPacketSize)
	read := 0
	rd.Claim = func(_ uint32, size uint64) error {
		if size >= whole {
			return errFull
		}
		read++
		return nil
	}
	if _, err := rd.ReadMessage(); !errors.Is(err, errFull) || read != 1 {
		t.Fatalf("refused at the inner header: %v after %d fragments claimed", err, read)
	}
}
