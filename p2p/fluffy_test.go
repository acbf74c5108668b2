package p2p

import (
	"context"
	"testing"
	"time"

	"github.com/gonero/gonero/chaindb"
	"github.com/gonero/gonero/cryptonote"
	"github.com/gonero/gonero/importer"
	"github.com/gonero/gonero/internal/testutil"
	"github.com/gonero/gonero/levin"
	"github.com/gonero/gonero/params"
	"github.com/gonero/gonero/portable"
)

// A fluffy block whose transactions the node lacks: it asks for exactly
// those (2009) and adds the block when they come (2008 with txs). And it
// answers such a request itself. Block 201 of the regtest chain of testdata
// holds three transactions.
func TestFluffyBlockMissingTransactions(t *testing.T) {
	raw := testutil.Path(t, "testdata", "regtest", "blockchain.raw")
	full := startTestNode(t, raw, Config{})
	var blob []byte
	var txBlobs [][]byte
	if err := full.chain.Store().View(func(r *chaindb.Reader) error {
		var err error
		if blob, err = r.BlockBlob(201); err != nil {
			return err
		}
		hashes, err := r.TxHashes(201)
		for _, h := range hashes {
			b, err := r.TxBlob(h)
			if err != nil {
				return err
			}
			txBlobs = append(txBlobs, b)
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	blk, err := cryptonote.ParseBlock(blob)
	if err != nil || len(blk.TxHashes) != 3 {
		t.Fatalf("block 201: %v, %d txs", err, len(blk.TxHashes))
	}
	id, _ := blk.ID()

	// The full node serves the missing transactions it is asked for.
	p := dialRaw(t, full.p2pAddr())
	p.handshake(31)
	p.sendPayload(levin.KindNotification, levin.NotifyRequestFluffyMissingTx, portable.RequestFluffyMissingTx{
		BlockHash: id, CurrentBlockchainHeight: 1, MissingTxIndices: []uint64{2, 0}})
	var nb portable.NewBlock
	p.expectNotification(levin.NotifyNewFluffyBlock, &nb)
	if string(nb.Block.Block) != string(blob) || len(nb.Block.Txs) != 2 ||
		string(nb.Block.Txs[0].Blob) != string(txBlobs[2]) || string(nb.Block.Txs[1].Blob) != string(txBlobs[0]) {
		t.Fatalf("answer to 2009: block equal %v, %d txs", string(nb.Block.Block) == string(blob), len(nb.Block.Txs))
	}

	// A node holding heights 0..200 gets block 201 without its transactions.
	short := &testNode{t: t, dir: t.TempDir()}
	short.db, short.chain = newTestChain(t, short.dir, "")
	t.Cleanup(func() { _ = short.node.Close(); short.db.Close() })
	if _, err := importer.Import(context.Background(), short.chain, raw, 200, nil); err != nil {
		t.Fatal(err)
	}
	short.startP2P(Config{})
	q := dialRaw(t, short.p2pAddr())
	hs := goodHandshake(32)
	top := short.chain.Top()
	hs.PayloadData.CurrentHeight, hs.PayloadData.TopID, hs.PayloadData.TopVersion = short.chain.Height(), top.Hash, params.Regtest.VersionAt(top.Height)
	q.sendPayload(levin.KindRequest, levin.CommandHandshake, hs)
	q.expectResponse(levin.CommandHandshake)
	q.sendPayload(levin.KindNotification, levin.NotifyNewFluffyBlock, portable.NewBlock{
		Block: portable.BlockCompleteEntry{Block: blob}, CurrentBlockchainHeight: 202})
	var req portable.RequestFluffyMissingTx
	q.expectNotification(levin.NotifyRequestFluffyMissingTx, &req)
	if req.BlockHash != id || len(req.MissingTxIndices) != 3 || req.MissingTxIndices[0] != 0 || req.MissingTxIndices[2] != 2 {
		t.Fatalf("2009 asked %+v", req)
	}
	entry := portable.BlockCompleteEntry{Block: blob}
	for _, b := range txBlobs {
		entry.Txs = append(entry.Txs, portable.TxBlobEntry{Blob: b})
	}
	q.sendPayload(levin.KindNotification, levin.NotifyNewFluffyBlock, portable.NewBlock{Block: entry, CurrentBlockchainHeight: 202})
	eventually(t, 5*time.Second, "the completed block to be added", func() bool { return short.chain.Top().Hash == id })
	if n := short.chain.Top().NumTxes; n != 3 {
		t.Fatalf("block added with %d transactions", n)
	}
}
