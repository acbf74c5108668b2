package p2p

import (
	"io"
	"log/slog"
	"net"
	"net/netip"
	"testing"
	"time"

	"github.com/gonero/gonero/chaindb"
	"github.com/gonero/gonero/internal/testutil"
	"github.com/gonero/gonero/levin"
	"github.com/gonero/gonero/params"
	"github.com/gonero/gonero/portable"
)

// FuzzPeerStream feeds arbitrary bytes to a node as one incoming
// connection's stream: whatever arrives, the node must neither panic nor
// hang, and the connection must end when the stream does.
func FuzzPeerStream(f *testing.F) {
	tn := startTestNode(f, testutil.Path(f, "testdata", "regtest", "blockchain.raw"), Config{Offline: true, Logger: slog.New(slog.DiscardHandler)})
	n := tn.node
	msg := func(kind levin.Kind, cmd uint32, p interface{ ToSection() portable.Section }) []byte {
		return levinMessage(f, kind, cmd, p)
	}
	var blob []byte
	_ = tn.chain.Store().View(func(r *chaindb.Reader) error { blob, _ = r.BlockBlob(201); return nil })
	top := tn.chain.Top()
	hs := goodHandshake(5)
	hs.PayloadData.CurrentHeight, hs.PayloadData.TopID, hs.PayloadData.TopVersion = tn.chain.Height(), top.Hash, 16
	hello := msg(levin.KindRequest, levin.CommandHandshake, hs)
	f.Add(hello)
	for _, m := range [][]byte{
		msg(levin.KindNotification, levin.NotifyRequestChain, portable.RequestChain{BlockIDs: [][32]byte{params.Regtest.GenesisID()}}),
		msg(levin.KindNotification, levin.NotifyRequestGetObjects, portable.RequestGetObjects{Blocks: [][32]byte{top.Hash}}),
		msg(levin.KindNotification, levin.NotifyNewFluffyBlock, portable.NewBlock{Block: portable.BlockCompleteEntry{Block: blob}, CurrentBlockchainHeight: 400}),
		msg(levin.KindNotification, levin.NotifyResponseChainEntry, portable.ResponseChainEntry{StartHeight: 1, TotalHeight: 400, BlockIDs: [][32]byte{top.Hash, {1}}}),
		msg(levin.KindNotification, levin.NotifyRequestFluffyMissingTx, portable.RequestFluffyMissingTx{BlockHash: top.Hash}),
		msg(levin.KindNotification, levin.NotifyGetTxpoolComplement, portable.GetTxpoolComplement{}),
		msg(levin.KindNotification, levin.NotifyNewTransactions, portable.NewTransactions{Txs: [][]byte{{2, 0, 0}}}),
		msg(levin.KindRequest, levin.CommandTimedSync, portable.TimedSyncRequest{PayloadData: hs.PayloadData}),
		msg(levin.KindRequest, levin.CommandPing, portable.PingRequest{}),
	} {
		f.Add(append(append([]byte(nil), hello...), m...))
	}
	addr := portable.NetAddress{Type: portable.AddressIPv4, IP: netip.MustParseAddr("127.0.0.1"), Port: 1}
	f.Fuzz(func(t *testing.T, data []byte) {
		server, client := net.Pipe()
		c := newConn(n, server, true, addr)
		streamThrough(t, n, c, client, data)
	})
}

// levinMessage is one levin message of kind and command carrying p.
func levinMessage(tb testing.TB, kind levin.Kind, cmd uint32, p interface{ ToSection() portable.Section }) []byte {
	tb.Helper()
	body, err := portable.Marshal(p)
	if err != nil {
		tb.Fatal(err)
	}
	b, err := levin.AppendMessage(nil, levin.Message{Kind: kind, Command: cmd, Body: body})
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// streamThrough hands c (the server end of a pipe whose other end is
// client) to node n, sends data as the peer's whole stream and requires
// the connection to end once the stream has: whatever the bytes, no hang.
func streamThrough(t *testing.T, n *Node, c *conn, client net.Conn, data []byte) {
	n.addConn(c)
	go func() { _, _ = io.Copy(io.Discard, client) }()
	go func() {
		_, _ = client.Write(data)
		_ = client.Close()
	}()
	select {
	case <-c.done:
	case <-time.After(10 * time.Second):
		t.Fatal("the connection did not end after its stream did")
	}
}
