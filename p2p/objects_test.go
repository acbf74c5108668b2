package p2p

import (
	"errors"
	"net"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/gonero/gonero/chaindb"
	"github.com/gonero/gonero/cryptonote"
	"github.com/gonero/gonero/internal/testutil"
	"github.com/gonero/gonero/portable"
)

// The blocks of a NOTIFY_RESPONSE_GET_OBJECTS must be the chain the peer
// announced in its last chain entry (monero ed70c1622): each at the height
// its coinbase names and where the entry lists it, the first linking to the
// entry's block below it, each next to the one before; a miner tx has
// exactly one gen input. Each case below returns the blocks that were asked
// for (the ids match the request), so only those checks can catch it.
func TestObjectsMustMatchAnnouncedChain(t *testing.T) {
	db, src := newTestChain(t, t.TempDir(), testutil.Path(t, "testdata", "regtest", "blockchain.raw"))
	defer db.Close()
	blocks := make([]*cryptonote.Block, 5)
	ids := make([]cryptonote.Hash, 5)
	blobs := make([][]byte, 5)
	err := src.Store().View(func(r *chaindb.Reader) error {
		for h := range blocks {
			blob, err := r.BlockBlob(uint64(h))
			if err != nil {
				return err
			}
			if blocks[h], err = cryptonote.ParseBlock(blob); err != nil {
				return err
			}
			if ids[h], err = blocks[h].ID(); err != nil {
				return err
			}
			blobs[h] = blob
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// altered is block h changed by f, and its id.
	altered := func(h int, f func(*cryptonote.Block)) ([]byte, cryptonote.Hash) {
		blk, err := cryptonote.ParseBlock(blobs[h])
		if err != nil {
			t.Fatal(err)
		}
		f(blk)
		id, err := blk.ID()
		if err != nil {
			t.Fatal(err)
		}
		return blk.Serialize(), id
	}
	unlinked1, unlinked1ID := altered(1, func(b *cryptonote.Block) { b.PrevID = cryptonote.Hash{0x55} })
	unlinked2, unlinked2ID := altered(2, func(b *cryptonote.Block) { b.PrevID = cryptonote.Hash{0x55} })
	twoGens, twoGensID := altered(1, func(b *cryptonote.Block) {
		b.MinerTx.Inputs = append(b.MinerTx.Inputs, b.MinerTx.Inputs[0])
	})

	type span struct {
		entryStart uint64
		entry      []cryptonote.Hash
		start      uint64
		requested  []cryptonote.Hash
		blobs      [][]byte
	}
	tn := startTestNode(t, "", Config{})
	handle := func(s span, reserve bool) error {
		a, b := net.Pipe()
		t.Cleanup(func() { a.Close(); b.Close() })
		go func() { // drain what the node sends
			buf := make([]byte, 4096)
			for {
				if _, err := b.Read(buf); err != nil {
					return
				}
			}
		}()
		c := newConn(tn.node, a, false, netAddress(netip.MustParseAddrPort("127.0.0.9:18080")))
		c.mu.Lock()
		c.sync.entryStart, c.sync.entryIDs = s.entryStart, s.entry
		c.sync.requested, c.sync.requestedStart = s.requested, s.start
		c.mu.Unlock()
		if reserve { // as requestMissing does before asking
			if r, _ := tn.node.queue.reserve(c, s.start, s.requested, len(s.requested), time.Now()); r == nil || r.start != s.start {
				t.Fatalf("span at %d not reserved", s.start)
			}
		}
		resp := portable.ResponseGetObjects{CurrentBlockchainHeight: 5}
		for _, blob := range s.blobs {
			resp.Blocks = append(resp.Blocks, portable.BlockCompleteEntry{Block: blob})
		}
		return tn.node.handleObjects(c, resp)
	}
	for _, bc := range []struct {
		name string
		span
	}{
		{"entry lists blocks 1 and 2 swapped", span{0, []cryptonote.Hash{ids[0], ids[2], ids[1], ids[3]},
			1, []cryptonote.Hash{ids[2], ids[1]}, [][]byte{blobs[2], blobs[1]}}},
		{"entry one height too high", span{2, []cryptonote.Hash{ids[1], ids[2], ids[3]},
			3, []cryptonote.Hash{ids[2], ids[3]}, [][]byte{blobs[2], blobs[3]}}},
		{"second block does not follow the first", span{0, []cryptonote.Hash{ids[0], ids[1], unlinked2ID},
			1, []cryptonote.Hash{ids[1], unlinked2ID}, [][]byte{blobs[1], unlinked2}}},
		{"first block does not follow the entry", span{0, []cryptonote.Hash{ids[0], unlinked1ID},
			1, []cryptonote.Hash{unlinked1ID}, [][]byte{unlinked1}}},
		{"miner tx with two gen inputs", span{0, []cryptonote.Hash{ids[0], twoGensID},
			1, []cryptonote.Hash{twoGensID}, [][]byte{twoGens}}},
	} {
		err := handle(bc.span, false)
		var pe *peerError
		if !errors.As(err, &pe) {
			t.Errorf("%s: handled with %v; want the peer dropped", bc.name, err)
		} else if !strings.Contains(err.Error(), "invalid chain") && !errors.Is(err, cryptonote.ErrInputType) {
			t.Errorf("%s: dropped for %v", bc.name, err)
		}
	}
	// The chain as announced is taken.
	if err := handle(span{0, ids[:4], 1, ids[1:4], blobs[1:4]}, true); err != nil {
		t.Fatalf("the announced chain refused: %v", err)
	}
	eventually(t, 20*time.Second, "the announced blocks to be added", func() bool { return tn.chain.Height() >= 4 })
}
