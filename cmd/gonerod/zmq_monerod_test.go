package main

import (
	"context"
	"fmt"
	"net"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-zeromq/zmq4"
	"github.com/go-zeromq/zmq4/security/null"

	"github.com/gonero/gonero/internal/monerodlab"
)

// zmqSub is a ZMQ SUB socket collecting every message it receives.
type zmqSub struct {
	sock zmq4.Socket
	msgs chan string
}

func subscribe(t *testing.T, endpoint string, prefixes ...string) *zmqSub {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	s := &zmqSub{sock: zmq4.NewSub(ctx), msgs: make(chan string, 10000)}
	t.Cleanup(func() { cancel(); _ = s.sock.Close() })
	if err := s.sock.Dial(endpoint); err != nil {
		t.Fatalf("dial %s: %v", endpoint, err)
	}
	for _, p := range prefixes {
		if err := s.sock.SetOption(zmq4.OptionSubscribe, p); err != nil {
			t.Fatal(err)
		}
	}
	go func() {
		for {
			m, err := s.sock.Recv()
			if err != nil {
				return
			}
			if len(m.Frames) != 1 {
				s.msgs <- fmt.Sprintf("<%d frames>", len(m.Frames))
				continue
			}
			s.msgs <- string(m.Frames[0])
		}
	}()
	return s
}

// drain returns the messages received until none came for quiet.
func (s *zmqSub) drain(quiet time.Duration) []string {
	var out []string
	for {
		select {
		case m := <-s.msgs:
			out = append(out, m)
		case <-time.After(quiet):
			return out
		}
	}
}

// compareMessages compares two nodes' messages byte for byte, in order.
func compareMessages(t *testing.T, what string, ours, theirs []string) {
	t.Helper()
	if len(ours) != len(theirs) {
		t.Errorf("%s: gonerod published %d messages, monerod %d:\ngonerod: %s\nmonerod: %s", what, len(ours), len(theirs),
			topicsOf(ours), topicsOf(theirs))
	}
	for i := range min(len(ours), len(theirs)) {
		if ours[i] != theirs[i] {
			t.Errorf("%s: message %d differs:\ngonerod: %s\nmonerod: %s", what, i, ours[i], theirs[i])
		}
	}
}

func topicsOf(msgs []string) string {
	var b strings.Builder
	for _, m := range msgs {
		topic, _, _ := strings.Cut(m, ":")
		b.WriteString(topic + " ")
	}
	return b.String()
}

// TestZMQMatchesMonerod runs gonerod (the binary, --zmq-pub) and monerod
// (--zmq-pub) on the same fresh chain, causes the same events on both and
// compares what their subscribers receive, byte for byte, per subscription:
// "json-" (every topic), "json-minimal" (the minimal topics only) and
// "json-full-chain_main:" (a prefix no topic name starts with, which makes
// monerod render nothing). The events: a block mined on gonerod and
// submitted to monerod; a transaction sent to /sendrawtransaction with
// do_not_relay and one without (monerod publishes only the first); a block
// mining both; pop_blocks; a reorganisation to a two-block alternative
// chain made by monerod. Nothing is excluded: no field is volatile here.
// A subscriber that handshakes and never reads stays connected throughout.
func TestZMQMatchesMonerod(t *testing.T) {
	lab := monerodlab.Require(t)
	fresh := lab.FreshChain(t)
	bin := buildGonerod(t)
	data := t.TempDir()
	if out, err := exec.Command(bin, "import", "--regtest", "--fixed-difficulty", "1", "--data-dir", data,
		"--input-file", fresh.RawFile).CombinedOutput(); err != nil {
		t.Fatalf("import: %v\n%s", err, out)
	}
	gEndpoint := "tcp://127.0.0.1:" + strconv.Itoa(freePort(t))
	mEndpoint := "tcp://127.0.0.1:" + strconv.Itoa(freePort(t))
	g := startGonerod(t, bin, data, "--offline", "--zmq-pub", gEndpoint)
	m := lab.StartMonerod(t, fresh.NodeDir, "--zmq-pub="+mEndpoint)

	// A subscriber that subscribes to everything and never reads a byte.
	stalled, err := net.Dial("tcp", strings.TrimPrefix(gEndpoint, "tcp://"))
	if err != nil {
		t.Fatal(err)
	}
	defer stalled.Close()
	if _, err := zmq4.Open(stalled, null.Security(), zmq4.Sub, nil, false, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := stalled.Write([]byte{0, 1, 1}); err != nil { // one frame: subscribe ""
		t.Fatal(err)
	}

	type pair struct{ g, m *zmqSub }
	subs := map[string]pair{}
	for _, prefix := range []string{"json-", "json-minimal", "json-full-chain_main:"} {
		subs[prefix] = pair{subscribe(t, gEndpoint, prefix), subscribe(t, mEndpoint, prefix)}
	}
	time.Sleep(time.Second) // ZMQ subscriptions travel asynchronously
	compare := func(what string) {
		t.Helper()
		for prefix, p := range subs {
			ours, theirs := p.g.drain(1500*time.Millisecond), p.m.drain(300*time.Millisecond)
			compareMessages(t, what+" ["+prefix+"]", ours, theirs)
			if prefix == "json-" {
				t.Logf("%s: %d messages (%s)", what, len(ours), topicsOf(ours))
			}
		}
	}
	var gen struct {
		Blocks []string `json:"blocks"`
	}
	blockBlob := func(call func(string, any, any) error, hash string) string {
		t.Helper()
		var b struct {
			Blob string `json:"blob"`
		}
		if err := call("getblock", map[string]any{"hash": hash}, &b); err != nil {
			t.Fatal(err)
		}
		return b.Blob
	}
	submit := func(call func(string, any, any) error, who, blob string) {
		t.Helper()
		var st struct {
			Status string `json:"status"`
		}
		if err := call("submit_block", []string{blob}, &st); err != nil || st.Status != "OK" {
			t.Fatalf("%s submit_block: %v %+v", who, err, st)
		}
	}
	mine := func(call func(string, any, any) error, n int) []string {
		t.Helper()
		if err := call("generateblocks", map[string]any{"amount_of_blocks": n, "wallet_address": monerodlab.AliceAddress}, &gen); err != nil || len(gen.Blocks) != n {
			t.Fatalf("generateblocks: %v %+v", err, gen)
		}
		return gen.Blocks
	}

	// 1. A block mined on gonerod, the same block submitted to monerod.
	for _, id := range mine(g.call, 1) {
		submit(m.Call, "monerod", blockBlob(g.call, id))
	}
	compare("block added")

	// 2. Transactions: with do_not_relay (published), then without (not).
	w := lab.OpenWallet(t, fresh, "alice", m.RPCPort)
	makeTx := func(subaddr uint32) walletTx {
		t.Helper()
		if err := w.Call("refresh", struct{}{}, nil); err != nil {
			t.Fatal(err)
		}
		var tx walletTx
		if err := w.Call("transfer", map[string]any{"destinations": []map[string]any{{"amount": 1_000_000_000_000, "address": monerodlab.AliceAddress}},
			"account_index": 0, "subaddr_indices": []uint32{subaddr}, "priority": 0, "do_not_relay": true, "get_tx_hex": true}, &tx); err != nil {
			t.Fatal(err)
		}
		return tx
	}
	a, b := makeTx(0), makeTx(1)
	compareAnswers(t, "do_not_relay tx", g.sendRawTx(t, a.Hex, true), monerodSendRawTx(t, m, a.Hex, true))
	compare("tx with do_not_relay")
	compareAnswers(t, "relayed tx", g.sendRawTx(t, b.Hex, false), monerodSendRawTx(t, m, b.Hex, false))
	compare("tx to relay")

	// 3. A block with both transactions.
	for _, id := range mine(g.call, 1) {
		submit(m.Call, "monerod", blockBlob(g.call, id))
	}
	compare("block with transactions")

	// 4. pop_blocks on both (announced by nothing), then the popped block
	// submitted again to both.
	top := g.info(t).TopHash
	topBlob := blockBlob(g.call, top)
	for who, post := range map[string]func(string, []byte) ([]byte, error){"gonerod": g.post, "monerod": m.Post} {
		if body, err := post("/pop_blocks", []byte(`{"nblocks":1}`)); err != nil || !strings.Contains(string(body), `"OK"`) {
			t.Fatalf("%s pop_blocks: %v %s", who, err, body)
		}
	}
	compare("pop_blocks")
	submit(g.call, "gonerod", topBlob)
	submit(m.Call, "monerod", topBlob)
	compare("popped block added again")

	// 5. A reorganisation. monerod mines B1, B2 and pops them again; gonerod
	// mines A, which goes to monerod; then B1 (an alternative block) and B2
	// (the switch) go to both.
	bs := mine(m.Call, 2)
	bBlobs := []string{blockBlob(m.Call, bs[0]), blockBlob(m.Call, bs[1])}
	if body, err := m.Post("/pop_blocks", []byte(`{"nblocks":2}`)); err != nil || !strings.Contains(string(body), `"OK"`) {
		t.Fatalf("monerod pop_blocks: %v %s", err, body)
	}
	for _, p := range subs {
		p.m.drain(500 * time.Millisecond) // monerod's messages for B1, B2 as main-chain blocks
	}
	for _, id := range mine(g.call, 1) {
		submit(m.Call, "monerod", blockBlob(g.call, id))
	}
	compare("block A")
	for _, blob := range bBlobs {
		submit(g.call, "gonerod", blob)
		submit(m.Call, "monerod", blob)
	}
	compare("reorganisation")
	if gi, mi := g.info(t), monerodInfo(t, m); gi.TopHash != mi.TopHash || gi.TopHash != bs[1] {
		t.Fatalf("tops after the reorganisation: gonerod %s, monerod %s, want %s", gi.TopHash, mi.TopHash, bs[1])
	}
}
