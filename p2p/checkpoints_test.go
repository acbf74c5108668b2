package p2p

import (
	"net/netip"
	"path/filepath"
	"testing"
	"time"

	"github.com/gonero/gonero/chain"
	"github.com/gonero/gonero/chaindb"
	"github.com/gonero/gonero/cryptonote"
	"github.com/gonero/gonero/internal/testutil"
	"github.com/gonero/gonero/levin"
	"github.com/gonero/gonero/params"
	"github.com/gonero/gonero/portable"
)

// A peer announcing a fork below a checkpoint the node has passed (an
// alternative block at or below it) is dropped and banned at once, and the
// store is unchanged.
func TestForkBelowCheckpointBans(t *testing.T) {
	dir := t.TempDir()
	// The regtest chain of testdata, imported without checkpoints, then reopened
	// with one at height 5 holding block 5's real id.
	db, c := newTestChain(t, dir, testutil.Path(t, "testdata", "regtest", "blockchain.raw"))
	cp := params.Checkpoint{Height: 5, ID: c.HashAt(5)}
	db.Close()
	db, err := chaindb.Open(filepath.Join(dir, "chain.db"), chaindb.Options{Network: params.Regtest.String()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	c, err = chain.Open(db, chain.Config{Network: params.Regtest, FixedDifficulty: 1, Checkpoints: []params.Checkpoint{cp}})
	if err != nil {
		t.Fatal(err)
	}
	n, err := New(Config{Chain: c, ListenAddr: "127.0.0.1:0", StateFile: filepath.Join(dir, "p2pstate.json"), MaxConnectionsPerIP: 100})
	if err != nil {
		t.Fatal(err)
	}
	if err := n.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = n.Close() })
	h0, top0 := c.Height(), c.Top().Hash

	p := dialRaw(t, n.Addr().String())
	hs := goodHandshake(21)
	hs.PayloadData.CurrentHeight, hs.PayloadData.TopID, hs.PayloadData.TopVersion = h0, top0, params.Regtest.VersionAt(h0-1)
	p.sendPayload(levin.KindRequest, levin.CommandHandshake, hs)
	p.expectResponse(levin.CommandHandshake)
	if !n.Synchronized() {
		t.Fatal("not synchronized")
	}
	// Block 4 again with another timestamp: an alternative block at height
	// 4 on block 3, below the checkpoint at 5.
	var blob []byte
	if err := c.Store().View(func(r *chaindb.Reader) error {
		var err error
		blob, err = r.BlockBlob(4)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	blk, err := cryptonote.ParseBlock(blob)
	if err != nil {
		t.Fatal(err)
	}
	blk.Timestamp++
	blk.TxHashes = nil // no transactions to fetch
	p.sendPayload(levin.KindNotification, levin.NotifyNewFluffyBlock, portable.NewBlock{
		Block: portable.BlockCompleteEntry{Block: blk.Serialize()}, CurrentBlockchainHeight: h0})
	p.expectClosed("a fork below the checkpoint")
	if _, banned := n.BannedUntil(netip.MustParseAddr("127.0.0.1"), time.Now()); !banned {
		t.Fatal("the peer was not banned")
	}
	var alt uint64
	if err := c.Store().View(func(r *chaindb.Reader) error {
		alt, err = r.AltBlockCount()
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if c.Height() != h0 || c.Top().Hash != top0 || alt != 0 {
		t.Fatalf("the store changed: height %d, alt blocks %d", c.Height(), alt)
	}
}
