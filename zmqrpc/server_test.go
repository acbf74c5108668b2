package zmqrpc

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/gonero/gonero/chaindb"
	"github.com/gonero/gonero/cryptonote"
	"github.com/gonero/gonero/internal/testutil"
	"github.com/gonero/gonero/membudget"
)

func startLocal(t *testing.T) *Server {
	t.Helper()
	s, err := New(Config{Addr: "127.0.0.1:0"}, Backend{Chain: noChain{}})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

const heightReq = `{"jsonrpc":"2.0","id":1,"method":"get_height","params":{}}`

// A frame declaring more than MaxMessage closes the connection before its
// body is read; other connections are served on.
func TestOversizedFrameCloses(t *testing.T) {
	s := startLocal(t)
	bad := dial(t, s.Addr().String())
	var hdr [9]byte
	hdr[0] = 2 // LONG, last frame
	binary.BigEndian.PutUint64(hdr[1:], MaxMessage+1)
	if _, err := bad.c.Write(append([]byte{1, 0}, hdr[:]...)); err != nil { // empty delimiter, then the header
		t.Fatal(err)
	}
	_ = bad.c.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := bad.r.ReadByte(); !errors.Is(err, io.EOF) {
		var ne net.Error
		if !errors.As(err, &ne) || ne.Timeout() {
			t.Fatalf("connection not closed: %v", err)
		}
	}
	good := dial(t, s.Addr().String())
	if got := good.call(t, heightReq); got != `{"jsonrpc":"2.0","id":1,"result":{"rpc_version":131072,"height":1}}` {
		t.Fatalf("answer %s", got)
	}
}

// A peer that sends requests and never reads stalls only itself.
func TestPeerThatNeverReads(t *testing.T) {
	s := startLocal(t)
	stuck := dial(t, s.Addr().String())
	big := []byte(`{"jsonrpc":"2.0","id":"` + string(bytes.Repeat([]byte("x"), 60000)) + `","method":"get_height","params":{}}`)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; i < 200; i++ { // some 12 MB of answers, never read
			for j, f := range [][]byte{nil, big} {
				writeFrame(stuck.w, f, j == 0)
			}
			if stuck.w.Flush() != nil {
				return
			}
		}
	}()
	other := dial(t, s.Addr().String())
	for i := 0; i < 10; i++ {
		other.call(t, heightReq)
	}
	s.Close()
	<-done
}

// Close ends every connection, handshaking or idle, and returns.
func TestCloseWithPeers(t *testing.T) {
	s := startLocal(t)
	raw, err := net.Dial("tcp", s.Addr().String()) // never handshakes
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	idle := dial(t, s.Addr().String())
	idle.send(t, nil) // a delimiter, then nothing
	closed := make(chan struct{})
	go func() { s.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(30 * time.Second):
		t.Fatal("Close did not return")
	}
	_ = idle.c.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := idle.r.ReadByte(); err == nil {
		t.Fatal("connection still open after Close")
	}
}

// FuzzStream feeds any bytes to the request reader after the handshake:
// it must not panic, and a request it returns is within the limits.
func FuzzStream(f *testing.F) {
	var seed bytes.Buffer
	w := bufio.NewWriter(&seed)
	writeFrame(w, nil, true)
	writeFrame(w, []byte(heightReq), false)
	writeFrame(w, []byte("route"), true)
	writeFrame(w, nil, true)
	writeFrame(w, []byte("{"), true)
	writeFrame(w, []byte("}"), false)
	w.Flush()
	f.Add(seed.Bytes())
	f.Add([]byte{4, 4, 'P', 'I', 'N', 'G', 1, 0, 0, 0})
	f.Add([]byte{3, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff})
	s, err := New(Config{}, Backend{Chain: noChain{}})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		r := bufio.NewReader(bytes.NewReader(in))
		for {
			env, body, tooLarge, err := s.readRequest(context.Background(), netip.Addr{}, r, nil)
			if err != nil {
				return
			}
			if len(env) == 0 || len(env) > maxEnvelope || len(env[len(env)-1]) != 0 {
				t.Fatalf("envelope %q", env)
			}
			if len(body) > MaxMessage || (tooLarge && body != nil) {
				t.Fatalf("body of %d bytes, too large %v", len(body), tooLarge)
			}
			if !tooLarge {
				s.handle(body)
				s.requests.release(netip.Addr{}, int64(len(body)))
			}
		}
	})
}

// A message begun and not finished in time closes its connection, and a
// frame that finds no room in the request budget gives up after a while
// instead of waiting forever.
func TestStalledMessageAndBudget(t *testing.T) {
	s, err := New(Config{Addr: "127.0.0.1:0"}, Backend{Chain: noChain{}})
	if err != nil {
		t.Fatal(err)
	}
	s.messageTimeout, s.budgetWait = 300*time.Millisecond, 300*time.Millisecond
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	closed := func(cl *client) {
		t.Helper()
		_ = cl.c.SetReadDeadline(time.Now().Add(20 * time.Second))
		if _, err := cl.r.ReadByte(); err == nil {
			t.Fatal("answered instead of closing")
		} else if ne, ok := err.(net.Error); ok && ne.Timeout() {
			t.Fatal("connection left open")
		}
	}
	// Half a frame, then nothing.
	stalled := dial(t, s.Addr().String())
	if _, err := stalled.c.Write([]byte{1, 0, 0, 100, '{'}); err != nil {
		t.Fatal(err)
	}
	closed(stalled)
	// The whole budget taken by one half-sent message; another frame
	// waits, then its connection is dropped.
	hog := netip.MustParseAddr("192.0.2.1")
	if s.requests.acct.Take(hog, MaxInFlight); s.requests.acct.Used() != MaxInFlight {
		t.Fatal("budget in use")
	}
	waiting := dial(t, s.Addr().String())
	waiting.send(t, nil, []byte(heightReq))
	closed(waiting)
	s.requests.release(hog, MaxInFlight)
	ok := dial(t, s.Addr().String())
	ok.call(t, heightReq)
}

// get_output_distribution's kept answer follows the chain: after the top
// block is popped, and after it is added again, the answer is what a
// server without kept answers gives on that chain.
func TestOutputDistributionFollowsTheChain(t *testing.T) {
	c, _ := openChain(t, testutil.Path(t, "testdata", "regtest", "blockchain.raw"), 0)
	kept, err := New(Config{}, Backend{Chain: NewChainSource(c)})
	if err != nil {
		t.Fatal(err)
	}
	q := []byte(`{"jsonrpc":"2.0","id":1,"method":"get_output_distribution","params":{"amounts":[0],"from_height":0,"to_height":0,"cumulative":true}}`)
	fresh := func() string {
		s, err := New(Config{}, Backend{Chain: NewChainSource(c)})
		if err != nil {
			t.Fatal(err)
		}
		return string(s.handle(q))
	}
	before := string(kept.handle(q))
	if again := string(kept.handle(q)); again != before || before != fresh() || !strings.Contains(before, `"distribution":[`) {
		t.Fatalf("answers on the same chain differ:\n%s\n%s", before, again)
	}
	// The answer kept for repeated bytes is for those bytes alone: another
	// id, or another range, is answered anew.
	for _, other := range []string{
		strings.Replace(string(q), `"id":1`, `"id":"w2"`, 1),
		strings.Replace(string(q), `"cumulative":true`, `"cumulative":false`, 1),
		strings.Replace(string(q), `"from_height":0`, `"from_height":5`, 1),
	} {
		s, err := New(Config{}, Backend{Chain: NewChainSource(c)})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := string(kept.handle([]byte(other))), string(s.handle([]byte(other))); got != want || got == before {
			t.Fatalf("%s\nanswered\n%s\nwant\n%s", other, got, want)
		}
		if again := string(kept.handle(q)); again != before {
			t.Fatalf("the first request again:\n%s\nwant\n%s", again, before)
		}
	}
	var top *cryptonote.Block
	var blob []byte
	var txs []*cryptonote.Transaction
	var txBlobs [][]byte
	_ = c.Store().View(func(r *chaindb.Reader) error {
		h := c.Height() - 1
		blob, _ = r.BlockBlob(h)
		top, _ = cryptonote.ParseBlock(blob)
		for _, id := range top.TxHashes {
			b, err := r.TxBlob(id)
			if err != nil {
				return err
			}
			tx, err := cryptonote.ParseTransaction(b)
			if err != nil {
				return err
			}
			txs, txBlobs = append(txs, tx), append(txBlobs, b)
		}
		return nil
	})
	if top == nil {
		t.Fatal("no top block")
	}
	if _, err := c.PopBlocks(1); err != nil {
		t.Fatal(err)
	}
	popped := string(kept.handle(q))
	if popped == before || popped != fresh() {
		t.Fatalf("after a pop the kept answer is\n%s\nwant\n%s", popped, fresh())
	}
	if _, err := c.Add(top, blob, txs, txBlobs); err != nil {
		t.Fatal(err)
	}
	if again := string(kept.handle(q)); again != before {
		t.Fatalf("with the block back the answer is\n%s\nwant\n%s", again, before)
	}
}

// Answers not yet sent are bounded all connections together: with the
// answers' budget taken (as by peers that never read), an answer waits
// for room, then its connection is dropped; with room again, answers flow.
func TestAnswerBudget(t *testing.T) {
	s, err := New(Config{Addr: "127.0.0.1:0"}, Backend{Chain: noChain{}})
	if err != nil {
		t.Fatal(err)
	}
	s.budgetWait = 300 * time.Millisecond
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	hog := netip.MustParseAddr("192.0.2.1")
	if s.answers.acct.Take(hog, MaxAnswerBytes); s.answers.acct.Used() != MaxAnswerBytes {
		t.Fatal("answers' budget in use")
	}
	waiting := dial(t, s.Addr().String())
	waiting.send(t, nil, []byte(heightReq))
	_ = waiting.c.SetReadDeadline(time.Now().Add(20 * time.Second))
	if _, err := waiting.r.ReadByte(); err == nil {
		t.Fatal("answered without room for the answer")
	} else if ne, ok := err.(net.Error); ok && ne.Timeout() {
		t.Fatal("connection left open")
	}
	s.answers.release(hog, MaxAnswerBytes)
	served := dial(t, s.Addr().String())
	if a := served.call(t, heightReq); !strings.Contains(a, `"height":1`) {
		t.Fatalf("answer %q", a)
	}
	// All of it given back once sent (the server releases it after its
	// write returns, which the client may see first).
	for deadline := time.Now().Add(5 * time.Second); s.answers.acct.Used() != 0; {
		if time.Now().After(deadline) {
			t.Fatal("an answer sent still holds the budget")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// On the node's budget, the ZMQ RPC's bytes are counted with every other
// part's: while another part (the HTTP RPC, P2P) holds the whole total, a
// request waits for room and is dropped after BudgetWait; once that part
// gives its bytes back, a waiting request is answered, though nothing the
// ZMQ RPC gave back told it so; and its part is bounded to a share of the
// total (a half for answers, a quarter for requests).
func TestDrawsOnNodeBudget(t *testing.T) {
	const total = 32 << 20
	node := membudget.New(total)
	start := func(wait time.Duration) *Server {
		s, err := New(Config{Addr: "127.0.0.1:0", Memory: node}, Backend{Chain: noChain{}})
		if err != nil {
			t.Fatal(err)
		}
		s.budgetWait = wait
		if err := s.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}
	s := start(300 * time.Millisecond)
	if s.answers.limit != total/2 || s.requests.limit != total/4 {
		t.Fatalf("parts' bounds %d and %d of a %d total", s.answers.limit, s.requests.limit, total)
	}
	other := membudget.NewAccount[string](node, 0)
	other.Take("flood", total)
	waiting := dial(t, s.Addr().String())
	waiting.send(t, nil, []byte(heightReq))
	_ = waiting.c.SetReadDeadline(time.Now().Add(20 * time.Second))
	if _, err := waiting.r.ReadByte(); err == nil {
		t.Fatal("answered while another part held the whole budget")
	} else if ne, ok := err.(net.Error); ok && ne.Timeout() {
		t.Fatal("connection left open")
	}

	// A server that waits long enough: the room another part gives back
	// reaches its waiting request.
	patient := start(20 * time.Second)
	waits := make(chan netip.Addr, 1)
	patient.requests.mu.Lock()
	patient.requests.onWait = func(g netip.Addr) { waits <- g }
	patient.requests.mu.Unlock()
	served := dial(t, patient.Addr().String())
	served.send(t, nil, []byte(heightReq))
	select {
	case <-waits:
	case <-time.After(20 * time.Second):
		t.Fatal("the request did not wait for room while another part held the whole total")
	}
	other.Release("flood", total)
	_ = served.c.SetReadDeadline(time.Now().Add(10 * time.Second))
	if m := served.recv(t); !strings.Contains(string(m[len(m)-1]), `"height":1`) {
		t.Fatalf("answer %q", m)
	}
}

// A get_blocks_fast answer refers to the kept rendered blocks instead of
// copying them: two answers share those pieces' bytes, which are most of
// the answer; and it goes out over the wire byte for byte as the answer
// in one piece.
func TestBlocksAnswerReferredNotCopied(t *testing.T) {
	c, pool := openChain(t, testutil.Path(t, "testdata", "regtest", "blockchain.raw"), 0)
	s, err := New(Config{Addr: "127.0.0.1:0"}, Backend{Chain: NewChainSource(c), Pool: NewPoolSource(pool)})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	for _, prune := range []string{"false", "true"} {
		req := `{"jsonrpc":"2.0","id":1,"method":"get_blocks_fast","params":{"block_ids":["` + c.HashAt(0).String() + `"],"start_height":0,"prune":` + prune + `}}`
		a, again := s.handleParts([]byte(req)), s.handleParts([]byte(req))
		whole := a.bytes()
		if a.size() != len(whole) || !strings.Contains(string(whole), `"blocks":[{"block":`) || !bytes.Equal(again.bytes(), whole) {
			t.Fatalf("prune %s: size %d of %d bytes", prune, a.size(), len(whole))
		}
		if len(a.parts) != len(again.parts) {
			t.Fatalf("prune %s: %d and %d pieces", prune, len(a.parts), len(again.parts))
		}
		referred := 0
		for i, p := range a.parts {
			if len(p) >= refMin && &p[0] == &again.parts[i][0] {
				referred += len(p)
			}
		}
		if referred < len(whole)/2 {
			t.Fatalf("prune %s: %d of %d bytes shared by two answers", prune, referred, len(whole))
		}
		cl := dial(t, s.Addr().String())
		if got := cl.call(t, req); got != string(whole) {
			t.Fatalf("prune %s: %d bytes over the wire, want the %d of the joined answer", prune, len(got), len(whole))
		}
	}
}

// handle is handleParts' answer in one slice (the tests compare bytes).
func (s *Server) handle(msg []byte) []byte { return s.handleParts(msg).bytes() }
