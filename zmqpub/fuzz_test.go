package zmqpub

import (
	"bufio"
	"bytes"
	"io"
	"net"
	"testing"
)

// seeds are real subscriber streams: the handshake go-zeromq and libzmq
// send, then subscriptions as p2pool and payment processors send them.
func seeds() [][]byte {
	hs := append(greeting(), ready()...)
	with := func(parts ...[]byte) []byte {
		b := append([]byte{}, hs...)
		for _, p := range parts {
			b = append(b, p...)
		}
		return b
	}
	return [][]byte{
		with(frame(0, []byte("\x01json-minimal-chain_main")), frame(0, []byte("\x01json-full-miner_data"))),
		with(frame(0, []byte("\x01")), frame(0, []byte("\x00"))),
		with(frame(0, []byte("\x01json-full-txpool_add")), frame(flagCommand, []byte("\x04PING\x00\x00"))),
		with(frame(flagMore, []byte("\x01json-")), frame(0, bytes.Repeat([]byte("x"), 300))),
		greeting(),
		nil,
	}
}

// FuzzSubscriberStream feeds arbitrary bytes, as a subscriber would send
// them, to the code serving one subscriber: it must end without panicking
// and leave no subscription behind.
func FuzzSubscriberStream(f *testing.F) {
	for _, s := range seeds() {
		f.Add(s)
	}
	p, err := Listen(nil, nil)
	if err != nil {
		f.Fatal(err)
	}
	defer p.Close()
	f.Fuzz(func(t *testing.T, in []byte) {
		server, client := net.Pipe()
		go func() { _, _ = io.Copy(io.Discard, client) }()
		go func() { _, _ = client.Write(in); _ = client.Close() }()
		p.serve(server)
		subs, _, _ := p.Stats()
		if subs != 0 || p.interest.Load() != 0 {
			t.Fatalf("after the subscriber left: %d subscribers, interest %05b", subs, p.interest.Load())
		}
	})
}

// FuzzFrames checks the frame scanner (which guards go-zeromq's reader)
// against readMessage on the same bytes after the greeting: whatever chunks
// the bytes come in, the scanner refuses a stream exactly when a frame is
// over the limit or has reserved flags, and readMessage never returns a
// frame over the limit.
func FuzzFrames(f *testing.F) {
	for _, s := range seeds() {
		f.Add(s, uint8(7))
	}
	f.Fuzz(func(t *testing.T, in []byte, chunk uint8) {
		const limit = 300
		s := newFrameScanner(limit)
		var scanErr error
		for rest := in; len(rest) > 0 && scanErr == nil; {
			n := min(len(rest), int(chunk)+1)
			scanErr = s.scan(rest[:n])
			rest = rest[n:]
		}
		whole := newFrameScanner(limit).scan(in)
		if (scanErr == nil) != (whole == nil) {
			t.Fatalf("chunked scan %v, whole scan %v", scanErr, whole)
		}
		if len(in) <= greetingLen {
			return
		}
		r := bufio.NewReader(bytes.NewReader(in[greetingLen:]))
		for {
			m, err := readMessage(r, limit)
			if err != nil {
				break
			}
			total := 0
			for _, fr := range m.frames {
				total += len(fr)
			}
			if total > limit {
				t.Fatalf("message of %d bytes, limit %d", total, limit)
			}
			m.subscription()
		}
	})
}
