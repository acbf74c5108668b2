package zmqpub

import (
	"bytes"
	"encoding/binary"
	"io"
	"net"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-zeromq/zmq4"
	"github.com/go-zeromq/zmq4/security/null"

	"github.com/gonero/gonero/cryptonote"
)

func startPublisher(t *testing.T) (*Publisher, string) {
	t.Helper()
	p, err := Listen([]string{"tcp://127.0.0.1:0"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Close() })
	return p, p.Addrs()[0].String()
}

// rawSub is a subscriber speaking ZMTP through go-zeromq's connection
// (handshake, frames) on a plain TCP connection the test controls.
type rawSub struct {
	c  net.Conn
	zc *zmq4.Conn
}

func dialSub(t *testing.T, addr string, prefixes ...string) *rawSub {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	zc, err := zmq4.Open(c, null.Security(), zmq4.Sub, nil, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range prefixes {
		if err := zc.SendMsg(zmq4.NewMsg(append([]byte{1}, p...))); err != nil {
			t.Fatal(err)
		}
	}
	return &rawSub{c: c, zc: zc}
}

func (s *rawSub) recv(t *testing.T) string {
	t.Helper()
	_ = s.c.SetReadDeadline(time.Now().Add(10 * time.Second))
	m, err := s.zc.RecvMsg()
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Frames) != 1 {
		t.Fatalf("%d frames, monerod sends one", len(m.Frames))
	}
	return string(m.Frames[0])
}

// waitInterest waits until the publisher has seen the subscriptions.
func waitInterest(t *testing.T, p *Publisher, want topicBit) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for topicBit(p.interest.Load()) != want {
		if time.Now().After(deadline) {
			t.Fatalf("interest %05b, want %05b", p.interest.Load(), want)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func testBlock(extra int, nonce uint32) *cryptonote.Block {
	b := &cryptonote.Block{}
	b.Nonce = nonce
	b.MinerTx = cryptonote.Transaction{Version: 2, Inputs: []cryptonote.TxIn{cryptonote.TxInGen{Height: uint64(nonce)}},
		Extra: bytes.Repeat([]byte{0xab}, extra), Rct: &cryptonote.RctSig{}}
	return b
}

// The prefix rules of zmq_pub::sub_request.
func TestInterestOf(t *testing.T) {
	all := bitFullChain | bitMinimalChain | bitMinerData | bitFullTxpool | bitMinimalTxpool
	for prefix, want := range map[string]topicBit{
		"": all, "json": all, "json-": all,
		"json-full":             bitFullChain | bitMinerData | bitFullTxpool,
		"json-minimal":          bitMinimalChain | bitMinimalTxpool,
		"json-full-chain_main":  bitFullChain,
		"json-full-chain_main:": 0, // longer than the topic: monerod renders nothing for it
		"json-minimal-txpool":   bitMinimalTxpool,
		"xyz":                   0,
	} {
		if got := interestOf(prefix); got != want {
			t.Errorf("interestOf(%q) = %05b, want %05b", prefix, got, want)
		}
	}
}

// Subscriptions count per topic, an unsubscription or a disconnection
// takes them back, and each subscriber gets what its prefixes select.
func TestSubscriptions(t *testing.T) {
	p, addr := startPublisher(t)
	full := dialSub(t, addr, "json-full")
	minimal := dialSub(t, addr, "json-minimal-chain")
	waitInterest(t, p, bitFullChain|bitMinerData|bitFullTxpool|bitMinimalChain)
	p.ChainMain(7, []*cryptonote.Block{testBlock(1, 7)}, []cryptonote.Hash{{1}})
	if m := full.recv(t); !strings.HasPrefix(m, "json-full-chain_main:[{") {
		t.Fatalf("full subscriber got %q", m)
	}
	want := `json-minimal-chain_main:{"first_height":7,"first_prev_id":"` + strings.Repeat("0", 64) + `","ids":["01` + strings.Repeat("0", 62) + `"]}`
	if m := minimal.recv(t); m != want {
		t.Fatalf("minimal subscriber got %q, want %q", m, want)
	}
	if err := minimal.zc.SendMsg(zmq4.NewMsg([]byte("\x00json-minimal-chain"))); err != nil {
		t.Fatal(err)
	}
	waitInterest(t, p, bitFullChain|bitMinerData|bitFullTxpool)
	_ = full.c.Close()
	waitInterest(t, p, 0)
}

// A subscriber that never reads neither blocks the publisher nor delays
// the others: its queue fills and its messages are dropped.
func TestStalledSubscriber(t *testing.T) {
	p, addr := startPublisher(t)
	// The reading one first, alone: the union of interests then shows
	// that its subscription is in place before anything is published (with
	// the stalled one's "" in the union, it could still be on its way, and
	// the first blocks would miss it).
	good := dialSub(t, addr, "json-full-chain_main")
	waitInterest(t, p, bitFullChain)
	stalled := dialSub(t, addr, "")
	_ = stalled
	waitInterest(t, p, bitFullChain|bitMinimalChain|bitMinerData|bitFullTxpool|bitMinimalTxpool)
	const batches, perBatch, extra = 30, 100, 20_000 // 3000 blocks of 20 kB: far more than socket buffers hold
	// The reading subscriber is given time to take each batch (100
	// messages, a tenth of its queue) before the next: what is tested is
	// that the stalled one never holds it up, not how fast it reads on a
	// machine busy with -race.
	// The deadlines are generous: on a machine starved of CPU (a niced
	// run beside a full test suite) the reader can stall for seconds; a
	// reader held up by the stalled subscriber would never get its batch.
	var got atomic.Int64
	var readerDone atomic.Bool
	received := make(chan int, 1)
	go func() {
		defer readerDone.Store(true)
		n := 0
		for range batches * perBatch {
			_ = good.c.SetReadDeadline(time.Now().Add(60 * time.Second))
			if _, err := good.zc.RecvMsg(); err != nil {
				break
			}
			n++
			got.Store(int64(n))
		}
		received <- n
	}()
	var slowest time.Duration
	for b := range batches {
		for i := range perBatch {
			blk := testBlock(extra, uint32(b*perBatch+i))
			began := time.Now()
			p.ChainMain(uint64(i), []*cryptonote.Block{blk}, []cryptonote.Hash{{}})
			slowest = max(slowest, time.Since(began))
		}
		p.Flush()
		for deadline := time.Now().Add(60 * time.Second); got.Load() < int64((b+1)*perBatch) && !readerDone.Load() && time.Now().Before(deadline); {
			time.Sleep(time.Millisecond)
		}
	}
	if n := <-received; n != batches*perBatch {
		t.Fatalf("the reading subscriber got %d of %d messages", n, batches*perBatch)
	}
	subs, dropped, lost := p.Stats()
	t.Logf("slowest ChainMain %v; subscribers %d, messages dropped %d, events lost %d", slowest, subs, dropped, lost)
	if dropped == 0 {
		t.Fatal("nothing dropped for the subscriber that never reads")
	}
	// Liveness, not speed (speed is for benchmarks): a call blocked on the
	// subscriber that never reads would never return.
	if slowest > 10*time.Second {
		t.Fatalf("a ChainMain call took %v: it waited on a subscriber", slowest)
	}
}

// Connections beyond MaxSubscribers are closed at once; every goroutine
// ends when the connections go.
func TestSubscriberLimit(t *testing.T) {
	before := runtime.NumGoroutine()
	p, addr := startPublisher(t)
	var conns []net.Conn
	for range MaxSubscribers + 50 {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
	}
	// The last connections were refused: they read EOF at once.
	closed := 0
	for _, c := range conns[MaxSubscribers-10:] {
		_ = c.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
		if _, err := c.Read(make([]byte, 1)); err == io.EOF {
			closed++
		}
	}
	if closed < 50 || closed > 60 {
		t.Fatalf("%d of the last 60 connections closed, want the 50 beyond the limit", closed)
	}
	if n := p.conns.Load(); n != MaxSubscribers {
		t.Fatalf("%d connections served, limit %d", n, MaxSubscribers)
	}
	for _, c := range conns {
		_ = c.Close()
	}
	deadline := time.Now().Add(10 * time.Second)
	for p.conns.Load() != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("%d connections still served", p.conns.Load())
		}
		time.Sleep(10 * time.Millisecond)
	}
	_ = p.Close()
	for runtime.NumGoroutine() > before+2 {
		if time.Now().After(deadline) {
			t.Fatalf("%d goroutines left, %d before", runtime.NumGoroutine(), before)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// greeting is a ZMTP 3.0 NULL greeting as a client sends it.
func greeting() []byte {
	g := make([]byte, 64)
	g[0], g[9], g[10], g[11] = 0xff, 0x7f, 3, 0
	copy(g[12:], "NULL")
	return g
}

// ready is the client's READY command for a SUB socket.
func ready() []byte {
	body := append([]byte("\x05READY\x0bSocket-Type"), 0, 0, 0, 3)
	body = append(body, "SUB"...)
	return append([]byte{flagCommand, byte(len(body))}, body...)
}

func frame(flags byte, body []byte) []byte {
	if len(body) > 255 {
		h := make([]byte, 9)
		h[0] = flags | flagLong
		binary.BigEndian.PutUint64(h[1:], uint64(len(body)))
		return append(h, body...)
	}
	return append([]byte{flags, byte(len(body))}, body...)
}

// Malformed input: each connection is dropped (or its message ignored)
// without harm, and a well-behaved subscriber still gets its messages.
func TestMalformedSubscribers(t *testing.T) {
	p, addr := startPublisher(t)
	huge := make([]byte, 9)
	huge[0] = flagLong
	binary.BigEndian.PutUint64(huge[1:], 1<<40) // a terabyte frame
	hs := append(greeting(), ready()...)
	cases := map[string][]byte{
		"garbage":                      bytes.Repeat([]byte{0x55}, 200),
		"READY without a socket type":  append(greeting(), frame(flagCommand, []byte("\x05READY"))...), // go-zeromq panics on it
		"READY from a PUB":             append(greeting(), frame(flagCommand, []byte("\x05READY\x0bSocket-Type\x00\x00\x00\x03PUB"))...),
		"huge frame in handshake":      append(greeting(), huge...),
		"huge frame after handshake":   append(append([]byte{}, hs...), huge...),
		"frame over the limit":         append(append([]byte{}, hs...), frame(0, make([]byte, MaxFrame+1))...),
		"reserved flags":               append(append([]byte{}, hs...), 0xf0, 1, 1),
		"bad tag, empty, multi-frame":  append(append(append(append([]byte{}, hs...), frame(0, []byte("\x02json-"))...), frame(0, nil)...), append(frame(flagMore, []byte("\x01json-")), frame(0, []byte("x"))...)...),
		"unsubscribe unknown, ping":    append(append(append([]byte{}, hs...), frame(0, []byte("\x00json-"))...), frame(flagCommand, []byte("\x04PING\x00\x00"))...),
		"truncated after subscription": append(append(append([]byte{}, hs...), frame(0, []byte("\x01json-"))...), flagLong, 0, 0),
	}
	for name, b := range cases {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		go func() { _, _ = io.Copy(io.Discard, c) }()
		if _, err := c.Write(b); err != nil {
			t.Logf("%s: write: %v", name, err)
		}
		_ = c.Close()
	}
	deadline := time.Now().Add(30 * time.Second)
	for p.conns.Load() != 0 || p.interest.Load() != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("%d connections still served, interest %05b", p.conns.Load(), p.interest.Load())
		}
		time.Sleep(10 * time.Millisecond)
	}
	good := dialSub(t, addr, "json-minimal-txpool_add")
	waitInterest(t, p, bitMinimalTxpool)
	p.TxpoolAdd([]TxEvent{{Tx: &cryptonote.Transaction{}, ID: cryptonote.Hash{2}, BlobSize: 3, Weight: 4, Fee: 5}})
	want := `json-minimal-txpool_add:[{"id":"02` + strings.Repeat("0", 62) + `","blob_size":3,"weight":4,"fee":5}]`
	if m := good.recv(t); m != want {
		t.Fatalf("got %q, want %q", m, want)
	}
}

func TestDifficultyHex(t *testing.T) {
	for _, c := range []struct {
		hi, lo uint64
		want   string
	}{{0, 0, "0x0"}, {0, 1, "0x1"}, {0, 0xabc, "0xabc"}, {1, 0, "0x10000000000000000"}, {0x12, 0x3, "0x120000000000000003"}} {
		if got := difficultyHex(c.hi, c.lo); got != c.want {
			t.Errorf("difficultyHex(%#x, %#x) = %s, want %s", c.hi, c.lo, got, c.want)
		}
	}
}

func TestListenAddresses(t *testing.T) {
	dir := t.TempDir()
	p, err := Listen([]string{"tcp://127.0.0.1:0", "ipc://" + dir + "/zmq.sock"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	_ = p.Close()
	// The same path again (Go removed the socket file on Close).
	p, err = Listen([]string{"ipc://" + dir + "/zmq.sock"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	_ = p.Close()
	for _, bad := range []string{"127.0.0.1:5555", "tcp://127.0.0.1", "udp://127.0.0.1:1", "ipc://", "tcp://300.0.0.1:1"} {
		if _, err := Listen([]string{bad}, nil); err == nil {
			t.Errorf("Listen(%q) accepted", bad)
		}
	}
}

// A stalled subscriber's queue is bounded in bytes too.
func TestStalledSubscriberBytes(t *testing.T) {
	p, addr := startPublisher(t)
	dialSub(t, addr, "json-full-chain_main") // never reads
	waitInterest(t, p, bitFullChain)
	blk := testBlock(1<<20, 1) // a 2 MiB message (extra as hex)
	for i := range 50 {
		p.ChainMain(uint64(i), []*cryptonote.Block{blk}, []cryptonote.Hash{{}})
		p.Flush()
	}
	p.mu.Lock()
	var queued int64
	for s := range p.subs {
		queued = max(queued, s.queued.Load())
	}
	p.mu.Unlock()
	_, dropped, _ := p.Stats()
	t.Logf("queued %d bytes, %d messages dropped", queued, dropped)
	if queued > QueueBytes || dropped == 0 {
		t.Fatalf("queued %d bytes (limit %d), dropped %d", queued, QueueBytes, dropped)
	}
}
