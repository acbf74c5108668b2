package main

import (
	"context"
	"fmt"
	"net"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
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
			at := 0
			for at < min(len(ours[i]), len(theirs[i])) && ours[i][at] == theirs[i][at] {
				at++
			}
			from := max(0, at-200)
			t.Errorf("%s: message %d differs at byte %d:\ngonerod: …%.400s\nmonerod: …%.400s", what, i, at, ours[i][from:], theirs[i][from:])
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
// do_not_relay and one without (both published: the nodes, offline, have
// no stem peer and fluff it at once; monerod 0.18.0 published only the
// first); a block
// mining both; pop_blocks; a reorganisation to a two-block alternative
// chain made by monerod. Nothing is excluded: no field is volatile here.
// A subscriber that handshakes and never reads stays connected throughout.
func TestZMQMatchesMonerod(t *testing.T) {
	lab := monerodlab.Require(t)
	fresh := lab.FreshChain(t)
	bin := inProcess
	data := importChain(t, bin, fresh)
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
	// compare drains every subscriber (at once) and compares the nodes'
	// messages per subscription; it returns gonerod's "json-" messages.
	compare := func(what string) []string {
		t.Helper()
		type got struct{ ours, theirs []string }
		results := map[string]*got{}
		var wg sync.WaitGroup
		for prefix, p := range subs {
			r := &got{}
			results[prefix] = r
			wg.Add(2)
			go func() { defer wg.Done(); r.ours = p.g.drain(1500 * time.Millisecond) }()
			go func() { defer wg.Done(); r.theirs = p.m.drain(1500 * time.Millisecond) }()
		}
		wg.Wait()
		for prefix, r := range results {
			compareMessages(t, what+" ["+prefix+"]", r.ours, r.theirs)
		}
		all := results["json-"].ours
		t.Logf("%s: %d messages (%s)", what, len(all), topicsOf(all))
		return all
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

	// 1. Two transactions are made (not sent yet); then blocks mined on
	// gonerod, each submitted to monerod. The transactions' rings are thus
	// a few blocks older than the top when step 4 pops blocks: gonerod's
	// pool drops a transaction a popped block returns if a ring member is
	// then younger than 10 blocks, where monerod keeps it (kept_by_block),
	// which is not this test's subject.
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
	for i := range 3 {
		for _, id := range mine(g.call, 1) {
			submit(m.Call, "monerod", blockBlob(g.call, id))
		}
		compare(fmt.Sprintf("block %d added", i+1))
	}

	// 2. Transactions: with do_not_relay, then without. (Their answers
	// are the relay tests' subject: only the status is checked here.)
	sendBoth := func(what, hex string, doNotRelay bool) {
		t.Helper()
		for who, answer := range map[string]map[string]any{"gonerod": g.sendRawTx(t, hex, doNotRelay), "monerod": monerodSendRawTx(t, m, hex, doNotRelay)} {
			if answer["status"] != "OK" {
				t.Fatalf("%s: %s sendrawtransaction: %v", what, who, answer)
			}
		}
	}
	sendBoth("do_not_relay tx", a.Hex, true)
	compare("tx with do_not_relay")
	sendBoth("relayed tx", b.Hex, false)
	compare("tx to relay")

	// 3. A block with both transactions.
	for _, id := range mine(g.call, 1) {
		submit(m.Call, "monerod", blockBlob(g.call, id))
	}
	compare("block with transactions")

	// 4. pop_blocks 2 on both (announced by nothing): the transactions of
	// the top block go back to the pools (as kept by a block, which puts
	// them in the miner data's backlog). The popped blocks are submitted
	// again: after the first the backlog holds the two transactions.
	top := g.info(t)
	var popBlobs []string
	for h := top.Height - 2; h < top.Height; h++ {
		var hdr struct {
			Header struct {
				Hash string `json:"hash"`
			} `json:"block_header"`
		}
		if err := g.call("getblockheaderbyheight", map[string]any{"height": h}, &hdr); err != nil {
			t.Fatal(err)
		}
		popBlobs = append(popBlobs, blockBlob(g.call, hdr.Header.Hash))
	}
	for who, post := range map[string]func(string, []byte) ([]byte, error){"gonerod": g.post, "monerod": m.Post} {
		if body, err := post("/pop_blocks", []byte(`{"nblocks":2}`)); err != nil || !strings.Contains(string(body), `"OK"`) {
			t.Fatalf("%s pop_blocks: %v %s", who, err, body)
		}
	}
	compare("pop_blocks")
	for i, blob := range popBlobs {
		submit(g.call, "gonerod", blob)
		submit(m.Call, "monerod", blob)
		msgs := compare(fmt.Sprintf("popped block %d added again", i+1))
		// The transactions are back in the pools between the two blocks.
		if withBacklog := len(msgs) > 0 && strings.Contains(msgs[0], `"tx_backlog":[{`); withBacklog != (i == 0) {
			t.Errorf("popped block %d added again: miner data %.300s", i+1, msgs[0])
		}
	}

	// 5. A reorganisation whose second block carries a transaction C.
	// monerod mines B1, gets C (do_not_relay), mines B2 with it, and pops
	// both (C goes back to its pool); gonerod mines A, which goes to
	// monerod; C goes to gonerod; then B1 (an alternative block) and B2
	// (the switch) go to both. Between B1 and B2 both nodes' miner data
	// list C in the backlog. The messages for A are not compared: monerod
	// has C in its pool then, gonerod not yet (gonerod's submit_block needs
	// an alternative block's transactions in the pool, so A must not carry
	// C).
	b1 := mine(m.Call, 1)[0]
	drainAll := func(side func(pair) *zmqSub) map[string][]string {
		out := map[string][]string{}
		for prefix, p := range subs {
			out[prefix] = side(p).drain(1500 * time.Millisecond)
		}
		return out
	}
	monerodSide := func(p pair) *zmqSub { return p.m }
	gonerodSide := func(p pair) *zmqSub { return p.g }
	drainAll(monerodSide)
	if err := w.Call("refresh", struct{}{}, nil); err != nil {
		t.Fatal(err)
	}
	var c walletTx
	if err := w.Call("transfer", map[string]any{"destinations": []map[string]any{{"amount": 1_000_000_000_000, "address": monerodlab.AliceAddress}},
		"account_index": 0, "priority": 0, "do_not_relay": true, "get_tx_hex": true}, &c); err != nil {
		t.Fatal(err)
	}
	if answer := monerodSendRawTx(t, m, c.Hex, true); answer["status"] != "OK" {
		t.Fatalf("monerod sendrawtransaction of C: %v", answer)
	}
	monerodC := drainAll(monerodSide)
	b2 := mine(m.Call, 1)[0]
	var b2Block struct {
		TxHashes []string `json:"tx_hashes"`
	}
	if err := m.Call("getblock", map[string]any{"hash": b2}, &b2Block); err != nil || !slices.Equal(b2Block.TxHashes, []string{c.Hash}) {
		t.Fatalf("monerod's B2 has transactions %v (%v), want C %s", b2Block.TxHashes, err, c.Hash)
	}
	bBlobs := []string{blockBlob(m.Call, b1), blockBlob(m.Call, b2)}
	if body, err := m.Post("/pop_blocks", []byte(`{"nblocks":2}`)); err != nil || !strings.Contains(string(body), `"OK"`) {
		t.Fatalf("monerod pop_blocks: %v %s", err, body)
	}
	drainAll(monerodSide)
	for _, id := range mine(g.call, 1) {
		submit(m.Call, "monerod", blockBlob(g.call, id))
	}
	drainAll(monerodSide)
	drainAll(gonerodSide)
	if answer := g.sendRawTx(t, c.Hex, true); answer["status"] != "OK" {
		t.Fatalf("gonerod sendrawtransaction of C: %v", answer)
	}
	gonerodC := drainAll(gonerodSide)
	for prefix := range subs {
		compareMessages(t, "transaction C ["+prefix+"]", gonerodC[prefix], monerodC[prefix])
	}
	for _, blob := range bBlobs {
		submit(g.call, "gonerod", blob)
		submit(m.Call, "monerod", blob)
	}
	msgs := compare("reorganisation")
	if len(msgs) < 1 || !strings.Contains(msgs[0], `"tx_backlog":[{"id":"`+c.Hash+`"`) {
		t.Errorf("the reorganisation's first miner data does not list C: %.400s", msgs)
	}
	if gi, mi := g.info(t), monerodInfo(t, m); gi.TopHash != mi.TopHash || gi.TopHash != b2 {
		t.Fatalf("tops after the reorganisation: gonerod %s, monerod %s, want %s", gi.TopHash, mi.TopHash, b2)
	}
}

// TestZMQTxFromPeer: a transaction reaching gonerod fluffed over P2P is
// published (monerod's relay_method::fluff), with the bytes monerod
// published for the same transaction. gonerod dials monerod, so monerod
// has no outgoing connection to stem to and fluffs what it relays.
func TestZMQTxFromPeer(t *testing.T) {
	lab := monerodlab.Require(t)
	fresh := lab.FreshChain(t)
	bin := inProcess
	data := importChain(t, bin, fresh)
	gEndpoint := "tcp://127.0.0.1:" + strconv.Itoa(freePort(t))
	mEndpoint := "tcp://127.0.0.1:" + strconv.Itoa(freePort(t))
	// monerod's only exclusive node listens nowhere: it dials no one.
	m := lab.StartMonerod(t, fresh.NodeDir, "--online", "--zmq-pub="+mEndpoint, "--add-exclusive-node", "127.0.0.1:"+strconv.Itoa(freePort(t)))
	g := startGonerod(t, bin, data, "--zmq-pub", gEndpoint, "--add-exclusive-node", "127.0.0.1:"+strconv.Itoa(m.P2PPort))
	waitFor(t, 60*time.Second, "both nodes synchronized at the same top", func() bool {
		gi, mi := g.info(t), monerodInfo(t, m)
		return gi.Synchronized && mi.Synchronized && gi.Height == mi.Height && gi.TopHash == mi.TopHash && gi.Outgoing == 1
	})
	gs, ms := subscribe(t, gEndpoint, "json-"), subscribe(t, mEndpoint, "json-")
	time.Sleep(time.Second)

	w := lab.OpenWallet(t, fresh, "alice", m.RPCPort)
	if err := w.Call("refresh", struct{}{}, nil); err != nil {
		t.Fatal(err)
	}
	var tx walletTx
	if err := w.Call("transfer", map[string]any{"destinations": []map[string]any{{"amount": 1_000_000_000_000, "address": monerodlab.AliceAddress}},
		"account_index": 0, "priority": 0, "do_not_relay": true, "get_tx_hex": true}, &tx); err != nil {
		t.Fatal(err)
	}
	// monerod gets it kept back (and publishes it), then relays it.
	if answer := monerodSendRawTx(t, m, tx.Hex, true); answer["status"] != "OK" {
		t.Fatalf("monerod sendrawtransaction: %v", answer)
	}
	theirs := ms.drain(time.Second)
	if err := m.Call("relay_tx", map[string]any{"txids": []string{tx.Hash}}, nil); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 60*time.Second, "the transaction in gonerod's pool", func() bool { return slices.Contains(poolHashes(t, g.post), tx.Hash) })
	if how := g.receivedAs(t); how != "fluffed" {
		t.Fatalf("gonerod received the transaction %s, want fluffed", how)
	}
	ours := gs.drain(1500 * time.Millisecond)
	if len(ours) != 2 {
		t.Fatalf("gonerod published %s, want the two txpool_add topics", topicsOf(ours))
	}
	compareMessages(t, "transaction from a peer", ours, theirs)
}

// zmqPair is gonerod and monerod on the same fresh chain, each publishing
// on its own endpoint, with a "json-" subscriber on each.
type zmqPair struct {
	t      *testing.T
	lab    *monerodlab.Lab
	fresh  *monerodlab.Chain
	g      *gonerod
	m      *monerodlab.Monerod
	gs, ms *zmqSub
}

func startZMQPair(t *testing.T, gonerodArgs func(m *monerodlab.Monerod) []string, monerodArgs ...string) *zmqPair {
	t.Helper()
	lab := monerodlab.Require(t)
	fresh := lab.FreshChain(t)
	bin := inProcess
	data := importChain(t, bin, fresh)
	gEndpoint := "tcp://127.0.0.1:" + strconv.Itoa(freePort(t))
	mEndpoint := "tcp://127.0.0.1:" + strconv.Itoa(freePort(t))
	m := lab.StartMonerod(t, fresh.NodeDir, append([]string{"--zmq-pub=" + mEndpoint}, monerodArgs...)...)
	g := startGonerod(t, bin, data, append([]string{"--zmq-pub", gEndpoint}, gonerodArgs(m)...)...)
	p := &zmqPair{t: t, lab: lab, fresh: fresh, g: g, m: m, gs: subscribe(t, gEndpoint, "json-"), ms: subscribe(t, mEndpoint, "json-")}
	time.Sleep(time.Second) // ZMQ subscriptions travel asynchronously
	return p
}

// compare drains both subscribers and compares their messages; it returns
// gonerod's.
func (p *zmqPair) compare(what string) []string {
	p.t.Helper()
	var ours, theirs []string
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); ours = p.gs.drain(1500 * time.Millisecond) }()
	go func() { defer wg.Done(); theirs = p.ms.drain(1500 * time.Millisecond) }()
	wg.Wait()
	compareMessages(p.t, what, ours, theirs)
	p.t.Logf("%s: gonerod %s; monerod %s", what, topicsOf(ours), topicsOf(theirs))
	return ours
}

func (p *zmqPair) blockBlob(call func(string, any, any) error, hash string) string {
	p.t.Helper()
	var b struct {
		Blob string `json:"blob"`
	}
	if err := call("getblock", map[string]any{"hash": hash}, &b); err != nil {
		p.t.Fatal(err)
	}
	return b.Blob
}

func (p *zmqPair) submit(call func(string, any, any) error, who, blob string) {
	p.t.Helper()
	var st struct {
		Status string `json:"status"`
	}
	if err := call("submit_block", []string{blob}, &st); err != nil || st.Status != "OK" {
		p.t.Fatalf("%s submit_block: %v %+v", who, err, st)
	}
}

func (p *zmqPair) mine(call func(string, any, any) error, n int) []string {
	p.t.Helper()
	var gen struct {
		Blocks []string `json:"blocks"`
	}
	if err := call("generateblocks", map[string]any{"amount_of_blocks": n, "wallet_address": monerodlab.AliceAddress}, &gen); err != nil || len(gen.Blocks) != n {
		p.t.Fatalf("generateblocks: %v %+v", err, gen)
	}
	return gen.Blocks
}

// sendBoth sends a transaction to both nodes' /sendrawtransaction.
func (p *zmqPair) sendBoth(hex string, doNotRelay bool) {
	p.t.Helper()
	for who, answer := range map[string]map[string]any{"gonerod": p.g.sendRawTx(p.t, hex, doNotRelay), "monerod": monerodSendRawTx(p.t, p.m, hex, doNotRelay)} {
		if answer["status"] != "OK" {
			p.t.Fatalf("%s sendrawtransaction: %v", who, answer)
		}
	}
}

// walletTx makes (does not send) a transfer from alice to herself.
func (p *zmqPair) walletTx(w *monerodlab.WalletRPC) walletTx {
	p.t.Helper()
	if err := w.Call("refresh", struct{}{}, nil); err != nil {
		p.t.Fatal(err)
	}
	var tx walletTx
	if err := w.Call("transfer", map[string]any{"destinations": []map[string]any{{"amount": 1_000_000_000_000, "address": monerodlab.AliceAddress}},
		"account_index": 0, "priority": 0, "do_not_relay": true, "get_tx_hex": true}, &tx); err != nil {
		p.t.Fatal(err)
	}
	return tx
}

// TestZMQReorgReturnsTx: a reorganisation takes away a block carrying a
// transaction T, which goes back to the pool. monerod mines the two blocks
// of the alternative chain first (without T) and pops them; T goes to both
// pools (do_not_relay: published by both); gonerod mines X with T, which
// goes to monerod; then the alternative blocks go to both, and what each
// publishes for the switch is compared.
func TestZMQReorgReturnsTx(t *testing.T) {
	p := startZMQPair(t, func(*monerodlab.Monerod) []string { return []string{"--offline"} })
	w := p.lab.OpenWallet(t, p.fresh, "alice", p.m.RPCPort)
	tx := p.walletTx(w)
	alt := p.mine(p.m.Call, 2)
	altBlobs := []string{p.blockBlob(p.m.Call, alt[0]), p.blockBlob(p.m.Call, alt[1])}
	if body, err := p.m.Post("/pop_blocks", []byte(`{"nblocks":2}`)); err != nil || !strings.Contains(string(body), `"OK"`) {
		t.Fatalf("monerod pop_blocks: %v %s", err, body)
	}
	p.ms.drain(1500 * time.Millisecond)
	p.sendBoth(tx.Hex, true)
	p.compare("T sent")
	x := p.mine(p.g.call, 1)[0]
	var xBlock struct {
		TxHashes []string `json:"tx_hashes"`
	}
	if err := p.g.call("getblock", map[string]any{"hash": x}, &xBlock); err != nil || !slices.Equal(xBlock.TxHashes, []string{tx.Hash}) {
		t.Fatalf("gonerod's X has transactions %v (%v), want T %s", xBlock.TxHashes, err, tx.Hash)
	}
	p.submit(p.m.Call, "monerod", p.blockBlob(p.g.call, x))
	p.compare("X with T")
	for _, blob := range altBlobs {
		p.submit(p.g.call, "gonerod", blob)
		p.submit(p.m.Call, "monerod", blob)
	}
	msgs := p.compare("reorganisation")
	if gi, mi := p.g.info(t), monerodInfo(t, p.m); gi.TopHash != mi.TopHash || gi.TopHash != alt[1] {
		t.Fatalf("tops after the reorganisation: gonerod %s, monerod %s, want %s", gi.TopHash, mi.TopHash, alt[1])
	}
	if !slices.Contains(poolHashes(t, p.g.post), tx.Hash) || !slices.Contains(poolHashes(t, p.m.Post), tx.Hash) {
		t.Fatalf("T is not back in both pools")
	}
	_ = msgs
}

// collect returns what s received until it has n messages or wait passed.
func (s *zmqSub) collect(n int, wait time.Duration) []string {
	var out []string
	deadline := time.After(wait)
	for len(out) < n {
		select {
		case m := <-s.msgs:
			out = append(out, m)
		case <-deadline:
			return out
		}
	}
	return out
}

// TestZMQTxpoolAddWhenFluffed: monerod 0.18.5 publishes a transaction sent
// to /sendrawtransaction to be relayed once it is fluffed (0.18.0 never
// did), and one kept back by do_not_relay twice: when it enters the pool,
// and again when relay_tx has it fluffed. gonerod dials monerod, which
// dials no one: gonerod sends its own transactions on a Dandelion++ stem
// (to monerod) and fluffs them when the embargo runs out; monerod, without
// an outgoing connection to stem to, fluffs at once. Each node must publish
// the same messages in the end (the moments differ by the embargo).
func TestZMQTxpoolAddWhenFluffed(t *testing.T) {
	p := startZMQPair(t, func(m *monerodlab.Monerod) []string {
		return []string{"--add-exclusive-node", "127.0.0.1:" + strconv.Itoa(m.P2PPort)}
	}, "--online", "--add-exclusive-node", "127.0.0.1:"+strconv.Itoa(freePort(t)))
	waitFor(t, 60*time.Second, "both nodes synchronized at the same top", func() bool {
		gi, mi := p.g.info(t), monerodInfo(t, p.m)
		return gi.Synchronized && mi.Synchronized && gi.Height == mi.Height && gi.TopHash == mi.TopHash && gi.Outgoing == 1
	})
	w := p.lab.OpenWallet(t, p.fresh, "alice", p.m.RPCPort)
	const embargo = 4 * time.Minute // gonerod's stem embargo averages 39 s

	// T, sent to each node to be relayed: gonerod's goes on a stem to
	// monerod, monerod's is fluffed at once.
	tx := p.walletTx(w)
	if answer := p.g.sendRawTx(t, tx.Hex, false); answer["status"] != "OK" {
		t.Fatalf("gonerod sendrawtransaction: %v", answer)
	}
	if how := p.g.sentAs(t); how != "stem" {
		t.Fatalf("gonerod relayed its transaction by %s, want a Dandelion++ stem", how)
	}
	waitFor(t, 30*time.Second, "T in monerod's pool", func() bool { return slices.Contains(poolHashes(t, p.m.Post), tx.Hash) })
	theirs := p.ms.collect(2, 30*time.Second)
	ours := p.gs.collect(2, embargo)
	compareMessages(t, "T relayed", ours, theirs)
	p.compare("after T")

	// V, kept back (published by both), then released by relay_tx on both
	// (published again by both).
	v := p.walletTx(w)
	p.sendBoth(v.Hex, true)
	p.compare("V with do_not_relay")
	for who, call := range map[string]func(string, any, any) error{"gonerod": p.g.call, "monerod": p.m.Call} {
		if err := call("relay_tx", map[string]any{"txids": []string{v.Hash}}, nil); err != nil {
			t.Fatalf("%s relay_tx: %v", who, err)
		}
	}
	theirs = p.ms.collect(2, 30*time.Second)
	ours = p.gs.collect(2, embargo)
	compareMessages(t, "V relayed", ours, theirs)
	p.compare("after V")
}

// sentAs says how gonerod last relayed transactions of its own: "stem"
// when its log says it sent some on a Dandelion++ stem, else "fluff".
func (g *gonerod) sentAs(t *testing.T) string {
	t.Helper()
	log, err := os.ReadFile(g.logPath)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(log), `msg="transactions sent on a Dandelion++ stem"`) {
		return "stem"
	}
	return "fluff"
}

// TestZMQTxFromBlock: a transaction that reaches a node inside a block
// (not through its pool) is published by monerod 0.18.5 with the block,
// txpool_add before the block's miner data and chain_main. gonerod dials
// monerod. A goes to gonerod alone (do_not_relay) and into a block gonerod
// mines, which monerod receives; B goes to monerod alone and into a block
// monerod mines, which gonerod receives. Each receiver must publish the
// sender's txpool_add messages for the transaction, then the sender's
// messages for the block.
func TestZMQTxFromBlock(t *testing.T) {
	p := startZMQPair(t, func(m *monerodlab.Monerod) []string {
		return []string{"--add-exclusive-node", "127.0.0.1:" + strconv.Itoa(m.P2PPort)}
	}, "--online", "--add-exclusive-node", "127.0.0.1:"+strconv.Itoa(freePort(t)))
	waitFor(t, 60*time.Second, "both nodes synchronized at the same top", func() bool {
		gi, mi := p.g.info(t), monerodInfo(t, p.m)
		return gi.Synchronized && mi.Synchronized && gi.Height == mi.Height && gi.TopHash == mi.TopHash && gi.Outgoing == 1
	})
	w := p.lab.OpenWallet(t, p.fresh, "alice", p.m.RPCPort)
	for _, tc := range []struct {
		name                 string
		sender, receiver     *zmqSub
		send                 func(hex string) map[string]any
		mine                 func(string, any, any) error
		senderPost, recvPost func(string, []byte) ([]byte, error)
	}{
		{"A, gonerod's block", p.gs, p.ms, func(hex string) map[string]any { return p.g.sendRawTx(t, hex, true) }, p.g.call, p.g.post, p.m.Post},
		{"B, monerod's block", p.ms, p.gs, func(hex string) map[string]any { return monerodSendRawTx(t, p.m, hex, true) }, p.m.Call, p.m.Post, p.g.post},
	} {
		tx := p.walletTx(w)
		if answer := tc.send(tx.Hex); answer["status"] != "OK" {
			t.Fatalf("%s: sendrawtransaction: %v", tc.name, answer)
		}
		sent := tc.sender.collect(2, 10*time.Second)
		if len(sent) != 2 || !strings.Contains(sent[1], `"id":"`+tx.Hash+`"`) {
			t.Fatalf("%s: the sender published %s", tc.name, topicsOf(sent))
		}
		if got := tc.receiver.drain(1500 * time.Millisecond); len(got) != 0 {
			t.Fatalf("%s: the receiver published %s before the block", tc.name, topicsOf(got))
		}
		blk := p.mine(tc.mine, 1)[0]
		waitFor(t, 60*time.Second, "the block on both nodes", func() bool {
			gi, mi := p.g.info(t), monerodInfo(t, p.m)
			return gi.TopHash == blk && mi.TopHash == blk
		})
		block := tc.sender.collect(3, 10*time.Second)
		got := tc.receiver.collect(5, 10*time.Second)
		compareMessages(t, tc.name+": the receiver's messages", got, append(sent, block...))
		if slices.Contains(poolHashes(t, tc.recvPost), tx.Hash) || slices.Contains(poolHashes(t, tc.senderPost), tx.Hash) {
			t.Errorf("%s: the transaction is still in a pool", tc.name)
		}
		p.compare(tc.name + ": after")
	}
}
