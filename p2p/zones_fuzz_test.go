package p2p

import (
	"log/slog"
	"net"
	"net/netip"
	"testing"

	"github.com/gonero/gonero/anonaddr"
	"github.com/gonero/gonero/internal/testutil"
	"github.com/gonero/gonero/levin"
	"github.com/gonero/gonero/portable"
	"github.com/gonero/gonero/socks"
)

// FuzzZonePeerStream is FuzzPeerStream on a connection that came through
// the node's Tor hidden service: whatever the peer sends (filtered
// commands, peer lists of any zone, fragments and noise), the connection
// ends when its stream does, without a panic.
func FuzzZonePeerStream(f *testing.F) {
	ep, _ := socks.ParseEndpoint("127.0.0.1:9")
	ours := "zbjkbsxc5munw3qusl7j2hpcmikhqocdf4pqhnhtpzw5nt5jrmofptid.onion"
	tn := startTestNode(f, testutil.Path(f, "testdata", "regtest", "blockchain.raw"), Config{Offline: true,
		Logger: slog.New(slog.DiscardHandler), Zones: []ZoneConfig{{Zone: anonaddr.ZoneTor, Proxy: &ep,
			OurAddress: portable.NetAddress{Type: portable.AddressTor, Host: ours, Port: 18083}}}})
	n := tn.node
	msg := func(kind levin.Kind, cmd uint32, p interface{ ToSection() portable.Section }) []byte {
		return levinMessage(f, kind, cmd, p)
	}
	top := tn.chain.Top()
	hs := goodHandshake(1)
	hs.NodeData.SupportFlags = 0
	hs.PayloadData.CurrentHeight, hs.PayloadData.TopID, hs.PayloadData.TopVersion = tn.chain.Height(), top.Hash, 16
	hello := msg(levin.KindRequest, levin.CommandHandshake, hs)
	f.Add(hello)
	tor := portable.PeerlistEntry{Address: portable.NetAddress{Type: portable.AddressTor, Host: ours, Port: 1}, ID: 2}
	ip := portable.PeerlistEntry{Address: portable.NetAddress{Type: portable.AddressIPv4, IP: netip.MustParseAddr("8.8.8.8"), Port: 1}, ID: 3}
	fragments, err := noiseTxMessage([][]byte{make([]byte, 5000)})
	if err != nil {
		f.Fatal(err)
	}
	for _, m := range [][]byte{
		msg(levin.KindNotification, levin.NotifyRequestChain, portable.RequestChain{}),
		msg(levin.KindNotification, levin.NotifyNewTransactions, portable.NewTransactions{Txs: [][]byte{{2, 0, 0}}, Stem: true}),
		msg(levin.KindRequest, levin.CommandTimedSync, portable.TimedSyncRequest{PayloadData: hs.PayloadData}),
		msg(levin.KindResponse, levin.CommandTimedSync, portable.TimedSyncResponse{PayloadData: hs.PayloadData,
			LocalPeerlist: []portable.PeerlistEntry{tor, ip}}),
		msg(levin.KindRequest, levin.CommandPing, portable.PingRequest{}),
		msg(levin.KindRequest, levin.CommandRequestSupportFlags, portable.SupportFlagsRequest{}),
		append(noiseBucket(), fragments...),
	} {
		f.Add(append(append([]byte(nil), hello...), m...))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		server, client := net.Pipe()
		c := newConn(n, server, true, anonaddr.Unknown(anonaddr.ZoneTor))
		c.anon = n.zones[0]
		streamThrough(t, n, c, client, data)
	})
}
