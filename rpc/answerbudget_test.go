package rpc

import (
	"encoding/json"
	"fmt"
	"net/netip"
	"runtime"
	"strings"
	"testing"

	"github.com/gonero/gonero/address"
	"github.com/gonero/gonero/cryptonote"
	"github.com/gonero/gonero/epeejson"
	"github.com/gonero/gonero/internal/monerodlab"
	"github.com/gonero/gonero/internal/testutil"
	"github.com/gonero/gonero/membudget"
	"github.com/gonero/gonero/miner"
	"github.com/gonero/gonero/params"
	"github.com/gonero/gonero/peerinfo"
	"github.com/gonero/gonero/portable"
	"github.com/gonero/gonero/rpctypes"
)

// allocated is what the process allocated while f ran: the least of three
// runs, so that a collection or another goroutine's burst in one of them
// does not count.
func allocated(f func()) uint64 {
	least := ^uint64(0)
	for range 3 {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		f()
		runtime.ReadMemStats(&after)
		least = min(least, after.TotalAlloc-before.TotalAlloc)
	}
	return least
}

// busyAnswered reports whether body is monerod's busy answer of its kind:
// JSON-RPC -9 (every element of a batch), or status "BUSY".
func busyAnswered(path string, body []byte) bool {
	switch {
	case path == "/json_rpc" && strings.HasPrefix(string(body), "["):
		var arr []struct {
			Error *struct{ Code int64 } `json:"error"`
		}
		if json.Unmarshal(body, &arr) != nil || len(arr) == 0 {
			return false
		}
		for _, e := range arr {
			if e.Error == nil || e.Error.Code != errCoreBusy.Code {
				return false
			}
		}
		return true
	case path == "/json_rpc":
		v, err := epeejson.Parse(body)
		e, _ := v.Get("error")
		code, _ := e.Get("code")
		return err == nil && code.Int == errCoreBusy.Code
	case strings.HasSuffix(path, ".bin"):
		sec, err := portable.Decode(body)
		st, _ := sec.GetString("status")
		return err == nil && st == statusBusy
	}
	v, err := epeejson.Parse(body)
	st, _ := v.Get("status")
	return err == nil && st.Str == statusBusy
}

// TestExpensiveAnswerRefusedBeforeBuilt: an answer that grows with its
// request or with the chain (issue 33: a header range, /getblocks.bin,
// get_outs, a batch of them...) is claimed from the memory budget before
// or as it is built. With a budget smaller than the answer, the request
// gets monerod's busy answer, and the process allocates at most the
// budget's worth of it on the way, and a little slack (it allocated all
// of it, and more, when the answer was claimed only once built); the
// budget is never passed. The
// same requests to a node without a budget are served in full.
func TestExpensiveAnswerRefusedBeforeBuilt(t *testing.T) {
	export := testutil.Path(t, "testdata", "regtest", "blockchain.raw")
	// A thousand white and a thousand grey peers with an RPC port.
	peers := publicPeers{n: 1000}
	full := startNode(t, export, peers)
	// A refused request allocates its request, parsed, and at most the
	// budget's worth of answer (claimed as it was built), and slack for
	// the rest (HTTP, the client); a request whose answer was built
	// before it was claimed allocates more than the answer.
	const total, slack = 32 << 10, 16 << 10
	budget := membudget.New(total)
	small := startNodeWith(t, nodeOptions{net: params.Regtest, fixedDifficulty: 1, exportFile: export, peers: peers,
		memory: membudget.NewAccount[netip.Addr](budget, 0)})

	// get_block's answer grows with the block: a block whose miner
	// transaction carries 40 kB of extra (nonce fields) is added to both
	// chains, so that its answer (some 250 kB) is past the budget.
	bigBlock := addBigBlock(t, 40<<10, full, small)
	height := full.chain.Height()
	genesis := full.chain.HashAt(0)
	heights := make([]uint64, 3*height)
	outs := make([]rpctypes.OutputRef, 1000)
	for i := range heights {
		heights[i] = uint64(i) % height
	}
	for i := range outs {
		outs[i] = rpctypes.OutputRef{Amount: 0, Index: uint64(i % 200)}
	}
	amounts := strings.TrimSuffix(strings.Repeat("0,", 64), ",")
	jsonParse := func(b []byte) { _, _ = epeejson.Parse(b) }
	cases := []struct {
		name, path string
		body       []byte
		parse      func([]byte) // the server's parser of the request, if its cost is not claimed
		// rendered, if not nil, is a block whose rendering (cached once
		// made) the refused request must not have made: a cached block is
		// not built again, so the allocations of the least of three runs
		// do not show the first run's.
		rendered *cryptonote.Hash
	}{
		{"get_block_headers_range", "/json_rpc", fmt.Appendf(nil,
			`{"jsonrpc":"2.0","id":1,"method":"get_block_headers_range","params":{"start_height":0,"end_height":%d}}`, height-1), jsonParse, nil},
		{"a batch of header ranges", "/json_rpc", expensiveBatch(4), jsonParse, nil},
		{name: "get_block by hash", path: "/json_rpc", body: fmt.Appendf(nil,
			`{"jsonrpc":"2.0","id":1,"method":"get_block","params":{"hash":"%s"}}`, bigBlock), parse: jsonParse, rendered: &bigBlock},
		{name: "get_block by height", path: "/json_rpc", body: fmt.Appendf(nil,
			`{"jsonrpc":"2.0","id":1,"method":"get_block","params":{"height":%d}}`, height-1), parse: jsonParse, rendered: &bigBlock},
		{"get_output_distribution", "/json_rpc", fmt.Appendf(nil,
			`{"jsonrpc":"2.0","id":1,"method":"get_output_distribution","params":{"amounts":[%s],"cumulative":true}}`, amounts), jsonParse, nil},
		// A binary body's decoded form is claimed before it is decoded:
		// no allowance for it.
		{"/getblocks.bin", "/getblocks.bin", epee(t, "block_ids", idsBlob(genesis)), nil, nil},
		{"/getblocks_by_height.bin", "/getblocks_by_height.bin", epee(t, "heights", u64s(heights...)), nil, nil},
		{"/get_outs.bin", "/get_outs.bin", epee(t, "outputs", outsValue(outs)), nil, nil},
		// The peer lists are claimed from their sizes before they are
		// copied (2,000 entries, 128 kB of Go values).
		{"/get_public_nodes", "/get_public_nodes", []byte(`{"gray":true}`), jsonParse, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			status, served := post(t, full.url, c.path, c.body)
			if status != 200 || busyAnswered(c.path, served) || len(served) < total+slack {
				t.Fatalf("without a budget: status %d, %d bytes (want a full answer over %d)", status, len(served), total+slack)
			}
			refusedBefore := budget.Stats().Refused
			var body []byte
			alloc := allocated(func() { status, body = post(t, small.url, c.path, c.body) })
			if status != 200 || !busyAnswered(c.path, body) {
				t.Fatalf("within a %d-byte budget: status %d, %.200q; want the busy answer", total, status, body)
			}
			// Parsing the request costs what it costs whatever the
			// answer (a binary array's values are parsed one by one).
			var parse uint64
			if c.parse != nil {
				parse = allocated(func() { c.parse(c.body) })
			}
			// Under the race detector allocation counts are not the
			// program's (raceEnabled): the budget's figures still hold.
			if !raceEnabled && alloc > total+slack+parse {
				t.Fatalf("the refused request allocated %d bytes (%d parsing it), the answer is %d: it was built before it was claimed", alloc, parse, len(served))
			}
			if c.rendered != nil {
				if _, ok := small.srv.cache.Get(*c.rendered); ok {
					t.Fatalf("block %s was rendered for a refused request", c.rendered)
				}
			}
			if st := budget.Stats(); st.Refused == refusedBefore || st.Peak > total {
				t.Fatalf("budget %+v: want a refusal and a peak within %d", st, total)
			}
			t.Logf("answer %d bytes; refused within %d after %d bytes allocated (%d parsing the request, client included)", len(served), total, alloc, parse)
		})
	}
}

// TestAnswerClaimSteps: a claim counts what was gathered, a snapshot read
// again reuses what was claimed instead of claiming it twice, a batch's
// limit stops the answer before it passes it, and a count past any budget
// does not overflow into a small claim.
func TestAnswerClaimSteps(t *testing.T) {
	a := &answerClaim{limit: 1000}
	if !a.add(300) || !a.addItems(2, 100) || a.claimed != 500 {
		t.Fatalf("claimed %d after 500 bytes", a.claimed)
	}
	a.restart()
	if !a.add(400) || a.claimed != 500 {
		t.Fatalf("claimed %d after a restart and 400 bytes; want the 500 claimed before", a.claimed)
	}
	if !a.add(200) || a.claimed != 600 {
		t.Fatalf("claimed %d after 600 bytes", a.claimed)
	}
	if a.add(401) || !a.overLimit || a.used != 600 {
		t.Fatalf("past the limit: overLimit %v, used %d", a.overLimit, a.used)
	}
	b := &answerClaim{limit: 1 << 30}
	if b.addItems(1<<62, 1024) || !b.overLimit {
		t.Fatal("2^72 bytes passed a 1 GiB limit")
	}
	var none *answerClaim
	if !none.add(1<<40) || !none.addItems(1<<62, 1<<20) {
		t.Fatal("no claim refused something")
	}
}

// addBigBlock mines a block whose miner transaction carries extra bytes of
// nonce fields (255 bytes each) on the top of every node's chain (the
// nodes' chains are the same) and returns its id. Regtest's fixed
// difficulty of 1 takes any nonce.
func addBigBlock(t *testing.T, extra int, nodes ...*testNode) cryptonote.Hash {
	t.Helper()
	to, err := address.Parse(monerodlab.AliceAddress)
	if err != nil {
		t.Fatal(err)
	}
	tmpl, err := miner.New(nodes[0].chain, miner.Options{}).BlockTemplate(to, nil)
	if err != nil {
		t.Fatal(err)
	}
	tx := &tmpl.Block.MinerTx
	for len(tx.Extra) < extra {
		tx.Extra = append(append(tx.Extra, 0x02, 0xff), make([]byte, 255)...) // TX_EXTRA_NONCE
	}
	blob := tmpl.Block.Serialize()
	blk, err := cryptonote.ParseBlock(blob)
	if err != nil {
		t.Fatal(err)
	}
	id, err := blk.ID()
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range nodes {
		if res, err := n.chain.Add(blk, blob, nil, nil); err != nil || !res.MainChain {
			t.Fatalf("adding a block of %d bytes: %+v, %v", len(blob), res, err)
		}
	}
	return id
}

// publicPeers is a P2P node whose peer lists hold n white and n grey
// entries, each a public address with an RPC port.
type publicPeers struct {
	NoPeers
	n int
}

func (p publicPeers) Counts() (incoming, outgoing, white, grey uint64) {
	return 0, 0, uint64(p.n), uint64(p.n)
}

func (p publicPeers) PeerLists() (white, grey []peerinfo.PeerEntry) {
	list := func(first byte) []peerinfo.PeerEntry {
		out := make([]peerinfo.PeerEntry, p.n)
		for i := range out {
			ip := netip.AddrFrom4([4]byte{first, byte(i >> 8), byte(i), 1})
			out[i] = peerinfo.PeerEntry{ID: uint64(i), Addr: netip.AddrPortFrom(ip, 18080), LastSeen: 1700000000, RPCPort: 18089}
		}
		return out
	}
	return list(11), list(12)
}
