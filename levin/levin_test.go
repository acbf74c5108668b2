package levin

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"io"
	"runtime"
	"strings"
	"testing"
	"testing/iotest"
)

// unhex decodes hex with any whitespace and '|' separators, as the doc
// prints it.
func unhex(t testing.TB, s string) []byte {
	t.Helper()
	s = strings.NewReplacer(" ", "", "\n", "", "\t", "", "|", "").Replace(s)
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// emptyStorage is a portable-storage blob with an empty root section.
var emptyStorage = []byte{0x01, 0x11, 0x01, 0x01, 0x01, 0x01, 0x02, 0x01, 0x01, 0x00}

// TestPingExample checks docs/p2p-levin.md §2.7 (observed against
// monerod) byte for byte: the ping request we send and monerod's answer.
func TestPingExample(t *testing.T) {
	request := unhex(t, `
		01 21 01 01 01 01 01 01
		0a 00 00 00 00 00 00 00
		01
		eb 03 00 00
		00 00 00 00
		01 00 00 00
		01 00 00 00
		01 11 01 01 01 01 02 01 01 00`)
	var out bytes.Buffer
	if err := WriteMessage(&out, Message{Kind: KindRequest, Command: CommandPing, Body: emptyStorage}); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out.Bytes(), request) {
		t.Fatalf("ping request\n got %x\nwant %x", out.Bytes(), request)
	}

	response := unhex(t, `
		01 21 01 01 01 01 01 01 | 26 00 00 00 00 00 00 00 | 00 | eb 03 00 00 | 01 00 00 00 | 02 00 00 00 | 01 00 00 00
		01 11 01 01 01 01 02 01 01
		08
		07 706565725f6964 05 37 05 d3 c9 3d 7d 6b 1f
		06 737461747573 0a 08 4f 4b`)
	m, err := ReadMessage(bytes.NewReader(response), MaxPacketSizeBeforeHandshake)
	if err != nil {
		t.Fatal(err)
	}
	if m.Kind != KindResponse || m.Command != CommandPing || m.ReturnCode != ReturnSuccess || len(m.Body) != 38 {
		t.Fatalf("ping response read as %+v", m)
	}
	if !bytes.Equal(m.Body, response[HeaderSize:]) {
		t.Fatal("body differs")
	}
	out.Reset()
	if err := WriteMessage(&out, m); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out.Bytes(), response) {
		t.Fatalf("ping response rewritten\n got %x\nwant %x", out.Bytes(), response)
	}
}

// TestHandshakeHeaderExample checks the levin header of the docs/p2p-levin.md §5.1 worked
// example (a 262-byte handshake invoke).
func TestHandshakeHeaderExample(t *testing.T) {
	want := unhex(t, `01 21 01 01 01 01 01 01 | 06 01 00 00 00 00 00 00 | 01 | e9 03 00 00 | 00 00 00 00 | 01 00 00 00 | 01 00 00 00`)
	h, err := Message{Kind: KindRequest, Command: CommandHandshake, Body: make([]byte, 262)}.header()
	if err != nil {
		t.Fatal(err)
	}
	if got := h.Encode(); !bytes.Equal(got[:], want) {
		t.Fatalf("got %x\nwant %x", got, want)
	}
	back, err := ParseHeader(want)
	if err != nil || back != h {
		t.Fatalf("ParseHeader = %+v, %v; want %+v", back, err, h)
	}
}

func TestRoundTrip(t *testing.T) {
	msgs := []Message{
		{Kind: KindRequest, Command: CommandHandshake, Body: []byte("hello")},
		{Kind: KindResponse, Command: CommandHandshake, ReturnCode: ReturnSuccess, Body: emptyStorage},
		{Kind: KindResponse, Command: 1005, ReturnCode: ReturnErrHandlerNotDefined},
		{Kind: KindNotification, Command: NotifyNewTransactions, Body: bytes.Repeat([]byte{7}, 200000)},
		{Kind: KindNotification, Command: 0xffffffff},
		{Kind: KindRequest, Command: 42, ReturnCode: -7, Body: []byte{0}},
	}
	var stream bytes.Buffer
	for _, m := range msgs {
		if err := WriteMessage(&stream, m); err != nil {
			t.Fatal(err)
		}
	}
	rd := NewReader(&stream, MaxPacketSize)
	for i, want := range msgs {
		got, err := rd.ReadMessage()
		if err != nil {
			t.Fatalf("message %d: %v", i, err)
		}
		if !sameMessage(got, want) {
			t.Fatalf("message %d: got %+v want %+v", i, got, want)
		}
	}
	if _, err := rd.ReadMessage(); err != io.EOF {
		t.Fatalf("after the last message: %v, want io.EOF", err)
	}
}

func sameMessage(a, b Message) bool {
	return a.Kind == b.Kind && a.Command == b.Command && a.ReturnCode == b.ReturnCode && bytes.Equal(a.Body, b.Body)
}

// TestKind follows the handle_recv decision order of docs/p2p-levin.md §2.3.
func TestKind(t *testing.T) {
	cases := []struct {
		flags  Flags
		expect bool
		want   Kind
	}{
		{FlagRequest, true, KindRequest},
		{FlagRequest, false, KindNotification},
		{FlagResponse, false, KindResponse},
		{FlagResponse, true, KindResponse}, // the response flag wins
		{FlagRequest | FlagResponse, true, KindResponse},
		{0, true, KindFragment}, // observed: a handshake with flags 0 is buffered, never answered
		{FlagBegin, false, KindFragment},
		{FlagEnd, false, KindFragment},
		{FlagBegin | FlagEnd, false, KindFragment},
		{FlagBegin | FlagRequest, false, KindNotification},
	}
	for _, c := range cases {
		h := Header{Flags: c.flags, ExpectsResponse: c.expect, ProtocolVersion: 1}
		if got := h.Kind(); got != c.want {
			t.Errorf("flags %#x expect %v: %v, want %v", c.flags, c.expect, got, c.want)
		}
	}
	if !(Header{Flags: FlagBegin | FlagEnd}).IsNoise() || (Header{Flags: FlagBegin}).IsNoise() ||
		(Header{Flags: FlagBegin | FlagEnd | FlagRequest}).IsNoise() {
		t.Error("IsNoise")
	}
}

// validHeader returns the encoded header of a request with the given body size.
func validHeader(command uint32, size uint64) []byte {
	h := Header{BodySize: size, ExpectsResponse: true, Command: command, Flags: FlagRequest, ProtocolVersion: 1}
	b := h.Encode()
	return b[:]
}

func TestMalformedHeaders(t *testing.T) {
	mutate := func(f func(b []byte)) []byte {
		b := validHeader(CommandPing, 0)
		f(b)
		return b
	}
	cases := []struct {
		name string
		hdr  []byte
		want error
	}{
		{"signature byte 0", mutate(func(b []byte) { b[0] = 0 }), ErrBadSignature},
		{"signature byte 1", mutate(func(b []byte) { b[1] = 0x01 }), ErrBadSignature},
		{"signature byte 7", mutate(func(b []byte) { b[7] = 0x02 }), ErrBadSignature},
		{"signature big-endian", mutate(func(b []byte) { binary.BigEndian.PutUint64(b, Signature) }), ErrBadSignature},
		{"have_to_return 2", mutate(func(b []byte) { b[16] = 2 }), ErrBadHeader},
		{"have_to_return ff", mutate(func(b []byte) { b[16] = 0xff }), ErrBadHeader},
		{"version 0", mutate(func(b []byte) { b[29] = 0 }), ErrBadProtocolVersion},
		{"version 2", mutate(func(b []byte) { b[29] = 2 }), ErrBadProtocolVersion},
		{"version 1<<24", mutate(func(b []byte) { b[32] = 1 }), ErrBadProtocolVersion},
	}
	for _, c := range cases {
		if _, err := ParseHeader(c.hdr); !errors.Is(err, c.want) {
			t.Errorf("%s: ParseHeader: %v, want %v", c.name, err, c.want)
		}
		stream := append(append([]byte{}, c.hdr...), emptyStorage...)
		if _, err := ReadMessage(bytes.NewReader(stream), MaxPacketSize); !errors.Is(err, c.want) {
			t.Errorf("%s: ReadMessage: %v, want %v", c.name, err, c.want)
		}
	}
	var ve *VersionError
	if _, err := ParseHeader(mutate(func(b []byte) { b[29] = 9 })); !errors.As(err, &ve) || ve.Version != 9 {
		t.Errorf("VersionError: %v", err)
	}
	for n := 0; n < HeaderSize; n++ {
		if _, err := ParseHeader(validHeader(1, 0)[:n]); err != ErrShortHeader {
			t.Errorf("ParseHeader of %d bytes: %v", n, err)
		}
	}
}

// TestBadSignatureAfterEightBytes: monerod closes as soon as 8 bytes are
// buffered; so do we, without waiting for the rest of the header.
func TestBadSignatureAfterEightBytes(t *testing.T) {
	r := io.MultiReader(bytes.NewReader([]byte("GET / HT")), blockingReader{t})
	if _, err := ReadMessage(r, MaxPacketSize); err != ErrBadSignature {
		t.Fatalf("%v, want ErrBadSignature", err)
	}
}

type blockingReader struct{ t *testing.T }

func (b blockingReader) Read([]byte) (int, error) {
	b.t.Fatal("read past the signature")
	return 0, io.EOF
}

func TestSizeLimits(t *testing.T) {
	cases := []struct {
		command uint32
		size    uint64
		limit   uint64
		ok      bool
	}{
		{NotifyNewTransactions, MaxPacketSizeBeforeHandshake, MaxPacketSizeBeforeHandshake, true},
		{NotifyNewTransactions, MaxPacketSizeBeforeHandshake + 1, MaxPacketSizeBeforeHandshake, false},
		{NotifyNewTransactions, MaxPacketSizeBeforeHandshake + 1, MaxPacketSize, true},
		{NotifyNewTransactions, MaxPacketSize + 1, MaxPacketSize, false},
		{999, MaxPacketSize, MaxPacketSize, true},
		{CommandHandshake, 65536, MaxPacketSize, true},
		{CommandHandshake, 65537, MaxPacketSize, false},
		{CommandTimedSync, 65537, MaxPacketSize, false},
		{CommandPing, 4096, MaxPacketSizeBeforeHandshake, true},
		{CommandPing, 4097, MaxPacketSize, false},
		{CommandRequestSupportFlags, 4097, MaxPacketSize, false},
		{NotifyRequestGetObjects, 2097153, MaxPacketSize, false},
		{NotifyRequestChain, 524289, MaxPacketSize, false},
		{NotifyResponseChainEntry, 4194305, MaxPacketSize, false},
		{NotifyNewFluffyBlock, 4194305, MaxPacketSize, false},
		{NotifyRequestFluffyMissingTx, 1048577, MaxPacketSize, false},
		{NotifyGetTxpoolComplement, 4194305, MaxPacketSize, false},
		{NotifyGetTxpoolComplement, 4194304, MaxPacketSize, true},
		{1, 1 << 63, ^uint64(0), true}, // no limit at all: only the data decides (it ends early here)
	}
	for _, c := range cases {
		_, err := ReadMessage(bytes.NewReader(validHeader(c.command, c.size)), c.limit)
		var se *SizeError
		if c.ok {
			// Accepted: the body is then missing.
			if err != io.ErrUnexpectedEOF {
				t.Errorf("command %d size %d limit %d: %v, want io.ErrUnexpectedEOF", c.command, c.size, c.limit, err)
			}
		} else if !errors.As(err, &se) || !errors.Is(err, ErrTooLarge) || se.Command != c.command || se.Size != c.size {
			t.Errorf("command %d size %d limit %d: %v, want *SizeError", c.command, c.size, c.limit, err)
		}
	}
}

// TestOversizedBodyNotAllocated: a refused size costs no body memory, and an
// accepted but undelivered 100 MB body costs only what arrived.
func TestOversizedBodyNotAllocated(t *testing.T) {
	hdr := validHeader(NotifyNewTransactions, 1<<40)
	allocs := testing.AllocsPerRun(100, func() {
		if _, err := ReadMessage(bytes.NewReader(hdr), MaxPacketSize); !errors.Is(err, ErrTooLarge) {
			t.Fatal(err)
		}
	})
	t.Logf("refusing a 1 TiB claim: %v allocations", allocs)
	if allocs > 3 {
		t.Errorf("%v allocations to refuse an oversized body", allocs)
	}

	claim := validHeader(999, MaxPacketSize)
	stream := append(claim, make([]byte, 1000)...)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for range 10 {
		if _, err := ReadMessage(bytes.NewReader(stream), MaxPacketSize); err != io.ErrUnexpectedEOF {
			t.Fatal(err)
		}
	}
	runtime.ReadMemStats(&after)
	t.Logf("10 reads of a 100 MB claim, 1000 bytes sent: %d bytes allocated", after.TotalAlloc-before.TotalAlloc)
	if d := after.TotalAlloc - before.TotalAlloc; d > 10*(bodyChunk+4096) {
		t.Errorf("10 reads of a 100 MB claim with 1000 bytes sent allocated %d bytes", d)
	}
}

// TestLargeBodyGrowth: a large body arriving in pieces is read correctly
// and without excessive memory.
func TestLargeBodyGrowth(t *testing.T) {
	body := make([]byte, 5<<20+123)
	for i := range body {
		body[i] = byte(i * 7)
	}
	var stream bytes.Buffer
	if err := WriteMessage(&stream, Message{Kind: KindNotification, Command: NotifyResponseGetObjects, Body: body}); err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	m, err := ReadMessage(iotest.HalfReader(&stream), MaxPacketSize)
	runtime.ReadMemStats(&after)
	if err != nil || !bytes.Equal(m.Body, body) {
		t.Fatalf("%v, body equal %v", err, bytes.Equal(m.Body, body))
	}
	if d := after.TotalAlloc - before.TotalAlloc; d > 4*uint64(len(body)) {
		t.Errorf("reading %d bytes allocated %d", len(body), d)
	}
}

func TestOneByteReader(t *testing.T) {
	var stream bytes.Buffer
	msgs := []Message{
		{Kind: KindRequest, Command: CommandPing, Body: emptyStorage},
		{Kind: KindNotification, Command: NotifyNewTransactions, Body: bytes.Repeat([]byte("tx"), 5000)},
	}
	for _, m := range msgs[:1] {
		WriteMessage(&stream, m)
	}
	stream.Write(noise())
	stream.Write(fragmented(t, msgs[1]))
	rd := NewReader(iotest.OneByteReader(&stream), MaxPacketSize)
	for i, want := range msgs {
		got, err := rd.ReadMessage()
		if err != nil || !sameMessage(got, want) {
			t.Fatalf("message %d: %v", i, err)
		}
	}
	if _, err := rd.ReadMessage(); err != io.EOF {
		t.Fatalf("end: %v", err)
	}
}

func TestEOF(t *testing.T) {
	var full bytes.Buffer
	WriteMessage(&full, Message{Kind: KindRequest, Command: CommandPing, Body: emptyStorage})
	whole := full.Bytes()
	for n := 0; n < len(whole); n++ {
		want := io.ErrUnexpectedEOF
		if n == 0 {
			want = io.EOF
		}
		for _, r := range []io.Reader{bytes.NewReader(whole[:n]), iotest.DataErrReader(bytes.NewReader(whole[:n]))} {
			if _, err := ReadMessage(r, MaxPacketSize); err != want {
				t.Errorf("%d of %d bytes: %v, want %v", n, len(whole), err, want)
			}
		}
	}
	if m, err := ReadMessage(iotest.DataErrReader(bytes.NewReader(whole)), MaxPacketSize); err != nil || m.Command != CommandPing {
		t.Errorf("data with EOF: %v", err)
	}
	// Noise then a clean end: io.EOF. A fragment sequence cut off: unexpected.
	if _, err := ReadMessage(bytes.NewReader(noise()), MaxPacketSize); err != io.EOF {
		t.Errorf("after noise: %v", err)
	}
	frags := fragmented(t, Message{Kind: KindNotification, Command: NotifyNewTransactions, Body: make([]byte, 7000)})
	if _, err := ReadMessage(bytes.NewReader(frags[:noiseSize]), MaxPacketSize); err != io.ErrUnexpectedEOF {
		t.Errorf("after a BEGIN fragment: %v", err)
	}
	// Other read errors come through unchanged.
	if _, err := ReadMessage(iotest.TimeoutReader(bytes.NewReader(whole)), MaxPacketSize); err != iotest.ErrTimeout {
		t.Errorf("timeout in the header: %v", err)
	}
	if _, err := ReadMessage(iotest.ErrReader(iotest.ErrTimeout), MaxPacketSize); err != iotest.ErrTimeout {
		t.Errorf("read error: %v", err)
	}
}

func TestWriteErrors(t *testing.T) {
	for _, k := range []Kind{0, KindFragment, 99} {
		if err := WriteMessage(io.Discard, Message{Kind: k, Command: 1}); !errors.Is(err, ErrBadKind) {
			t.Errorf("kind %v: %v", k, err)
		}
	}
	if err := WriteMessage(io.Discard, Message{Kind: KindRequest, Command: CommandPing, Body: make([]byte, 4097)}); !errors.Is(err, ErrTooLarge) {
		t.Errorf("oversized ping: %v", err)
	}
	if err := WriteMessage(errWriter{}, Message{Kind: KindRequest, Command: 1}); err != iotest.ErrTimeout {
		t.Errorf("writer error: %v", err)
	}
}

type errWriter struct{}

func (errWriter) Write([]byte) (int, error) { return 0, iotest.ErrTimeout }

// noiseSize is CRYPTONOTE_NOISE_BYTES.
const noiseSize = 3072

// noise is a dummy bucket as levin_notify.cpp makes it.
func noise() []byte {
	h := Header{BodySize: noiseSize - HeaderSize, Flags: FlagBegin | FlagEnd, ProtocolVersion: 1}
	b := h.Encode()
	return append(b[:], make([]byte, noiseSize-HeaderSize)...)
}

// fragmented cuts m the way levin_base.cpp's make_fragmented_notify does:
// the whole bucket in pieces of 3072-33 bytes, each behind a header with
// command 0, flags BEGIN / 0 / END, the last piece zero-padded.
func fragmented(t testing.TB, m Message) []byte {
	return fragmentedBy(t, m, noiseSize-HeaderSize)
}

// fragmentedBy is fragmented with pieces of the given size.
func fragmentedBy(t testing.TB, m Message, piece int) []byte {
	inner, err := AppendMessage(nil, m)
	if err != nil {
		t.Fatal(err)
	}
	var out []byte
	for off := 0; off < len(inner); off += piece {
		var flags Flags
		if off == 0 {
			flags |= FlagBegin
		}
		if off+piece >= len(inner) {
			flags |= FlagEnd
		}
		h := Header{BodySize: uint64(piece), Flags: flags, ProtocolVersion: 1}
		hb := h.Encode()
		out = append(out, hb[:]...)
		chunk := inner[off:min(off+piece, len(inner))]
		out = append(out, chunk...)
		out = append(out, make([]byte, piece-len(chunk))...)
	}
	return out
}

func TestFragments(t *testing.T) {
	big := Message{Kind: KindNotification, Command: NotifyNewTransactions, Body: bytes.Repeat([]byte{0xab}, 20000)}
	ping := Message{Kind: KindRequest, Command: CommandPing, Body: emptyStorage}
	frags := fragmented(t, big)
	if len(frags)%noiseSize != 0 || len(frags)/noiseSize != 7 {
		t.Fatalf("%d bytes of fragments", len(frags))
	}

	t.Run("reassembled and padding cut", func(t *testing.T) {
		m, err := ReadMessage(bytes.NewReader(frags), MaxPacketSize)
		if err != nil || !sameMessage(m, big) {
			t.Fatalf("%v", err)
		}
	})

	t.Run("normal message between fragments", func(t *testing.T) {
		var s bytes.Buffer
		s.Write(frags[:2*noiseSize])
		WriteMessage(&s, ping)
		s.Write(noise())
		s.Write(frags[2*noiseSize:])
		rd := NewReader(&s, MaxPacketSize)
		for _, want := range []Message{ping, big} {
			got, err := rd.ReadMessage()
			if err != nil || !sameMessage(got, want) {
				t.Fatalf("%v", err)
			}
		}
	})

	t.Run("BEGIN restarts the buffer", func(t *testing.T) {
		s := append(append([]byte{}, frags[:3*noiseSize]...), frags...)
		m, err := ReadMessage(bytes.NewReader(s), MaxPacketSize)
		if err != nil || !sameMessage(m, big) {
			t.Fatalf("%v", err)
		}
	})

	t.Run("fragment buffer counts against the limit", func(t *testing.T) {
		// The inner header announces less than the limit (the rest of the
		// fragments would be padding), so that the buffer, not the inner
		// header's size, is what goes past it.
		f := bytes.Clone(frags)
		binary.LittleEndian.PutUint64(f[HeaderSize+8:], 10000)
		_, err := ReadMessage(bytes.NewReader(f), 5*(noiseSize-HeaderSize))
		var se *SizeError
		if !errors.As(err, &se) || se.Size != 6*(noiseSize-HeaderSize) {
			t.Fatalf("%v", err)
		}
	})

	t.Run("inner command limit", func(t *testing.T) {
		f := fragmented(t, Message{Kind: KindNotification, Command: 7777, Body: make([]byte, 5000)})
		binary.LittleEndian.PutUint32(f[HeaderSize+17:], CommandPing) // a 5000-byte ping
		if _, err := ReadMessage(bytes.NewReader(f), MaxPacketSize); !errors.Is(err, ErrTooLarge) {
			t.Fatalf("%v", err)
		}
	})

	t.Run("inner signature not checked", func(t *testing.T) {
		f := fragmented(t, big)
		copy(f[HeaderSize:], "garbage!")
		if m, err := ReadMessage(bytes.NewReader(f), MaxPacketSize); err != nil || !sameMessage(m, big) {
			t.Fatalf("%v", err)
		}
	})

	bad := func(name string, edit func(f []byte) []byte, want error) {
		t.Run(name, func(t *testing.T) {
			f := edit(fragmented(t, big))
			if _, err := ReadMessage(bytes.NewReader(f), MaxPacketSize); !errors.Is(err, want) {
				t.Fatalf("%v, want %v", err, want)
			}
		})
	}
	bad("inner size beyond the data", func(f []byte) []byte {
		binary.LittleEndian.PutUint64(f[HeaderSize+8:], 7*(noiseSize-HeaderSize))
		return f
	}, ErrBadFragment)
	bad("inner version", func(f []byte) []byte { f[HeaderSize+29] = 2; return f }, ErrBadProtocolVersion)
	bad("inner is a fragment", func(f []byte) []byte { f[HeaderSize+25] = byte(FlagBegin); return f }, ErrBadFragment)
	bad("shorter than a header", func(f []byte) []byte {
		h := Header{BodySize: 20, Flags: FlagEnd, ProtocolVersion: 1} // an END alone with 20 bytes
		hb := h.Encode()
		return append(hb[:], make([]byte, 20)...)
	}, ErrBadFragment)
	bad("outer signature", func(f []byte) []byte { f[noiseSize] = 0; return f }, ErrBadSignature)

	t.Run("many tiny fragments cost linear time and memory", func(t *testing.T) {
		m := Message{Kind: KindNotification, Command: NotifyNewTransactions, Body: bytes.Repeat([]byte{1}, 100_000)}
		f := fragmentedBy(t, m, 1) // 100,033 fragments of one byte
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		got, err := ReadMessage(bytes.NewReader(f), MaxPacketSize)
		runtime.ReadMemStats(&after)
		if err != nil || !sameMessage(got, m) {
			t.Fatal(err)
		}
		if d := after.TotalAlloc - before.TotalAlloc; d > 1<<20 {
			t.Errorf("reassembling 100 kB from 1-byte fragments allocated %d bytes", d)
		}
	})

	t.Run("noise larger than the limit", func(t *testing.T) {
		if _, err := ReadMessage(bytes.NewReader(noise()), 100); !errors.Is(err, ErrTooLarge) {
			t.Fatalf("%v", err)
		}
	})
}

// FuzzReadMessage feeds arbitrary streams to a Reader. Whatever it returns
// must write back and read back identically.
func FuzzReadMessage(f *testing.F) {
	var s bytes.Buffer
	WriteMessage(&s, Message{Kind: KindRequest, Command: CommandPing, Body: emptyStorage})
	f.Add(s.Bytes(), false)
	// Small noise and fragments: the fuzzer minimizes every new input, which
	// is slow for inputs of the real 3072-byte size.
	small := Header{BodySize: 3, Flags: FlagBegin | FlagEnd, ProtocolVersion: 1}.Encode()
	f.Add(append(small[:], 0, 0, 0), true)
	f.Add(fragmentedBy(f, Message{Kind: KindNotification, Command: 2002, Body: emptyStorage}, 20), true)
	f.Add(append(validHeader(CommandHandshake, 3), 1, 2, 3), false)
	f.Fuzz(func(t *testing.T, data []byte, small bool) {
		limit := MaxPacketSize
		if small {
			limit = 8192
		}
		rd := NewReader(bytes.NewReader(data), limit)
		// Claims over claimLimit are refused; every body returned was
		// claimed whole before it was read.
		const claimLimit = 4096
		var claimed uint64
		rd.Claim = func(_ uint32, size uint64) error {
			if size > claimLimit {
				return ErrTooLarge
			}
			claimed = max(claimed, size)
			return nil
		}
		for {
			claimed = 0
			m, err := rd.ReadMessage()
			if err != nil {
				return
			}
			if uint64(len(m.Body)) > bodyLimit(limit, m.Command) {
				t.Fatalf("body of %d bytes passed limit %d", len(m.Body), limit)
			}
			if uint64(len(m.Body)) > claimed {
				t.Fatalf("body of %d bytes read with %d claimed", len(m.Body), claimed)
			}
			var out bytes.Buffer
			if err := WriteMessage(&out, m); err != nil {
				t.Fatalf("cannot write back %+v: %v", m, err)
			}
			back, err := ReadMessage(&out, limit)
			if err != nil || !sameMessage(back, m) {
				t.Fatalf("round trip: %v", err)
			}
		}
	})
}
