package p2p

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"net"
	"testing"
	"time"

	"github.com/gonero/gonero/anonaddr"
	"github.com/gonero/gonero/internal/sockstest"
	"github.com/gonero/gonero/levin"
	"github.com/gonero/gonero/portable"
	"github.com/gonero/gonero/socks"
	"github.com/gonero/gonero/txpool"
)

// Fragmented transaction messages and noise buckets are 3072 bytes each,
// and levin's reader (as monerod's) gives back the message and drops the
// noise, small messages (padded whole) and large ones (fragments) alike;
// more than 20 fragments is refused.
func TestNoiseFragments(t *testing.T) {
	for _, size := range []int{10, 2000, 3072 - 33 - 40, 3100, 20000, 55000} {
		txs := [][]byte{bytes.Repeat([]byte{0xab}, size)}
		msg, err := noiseTxMessage(txs)
		if err != nil {
			t.Fatalf("%d: %v", size, err)
		}
		if len(msg)%noiseBytes != 0 {
			t.Fatalf("%d: %d bytes, not a multiple of %d", size, len(msg), noiseBytes)
		}
		stream := append(append(noiseBucket(), msg...), noiseBucket()...)
		rd := levin.NewReader(bytes.NewReader(stream), levin.MaxPacketSize)
		m, err := rd.ReadMessage()
		if err != nil || m.Kind != levin.KindNotification || m.Command != levin.NotifyNewTransactions {
			t.Fatalf("%d: %+v %v", size, m.Command, err)
		}
		var nt portable.NewTransactions
		if err := portable.Unmarshal(m.Body, &nt); err != nil || len(nt.Txs) != 1 || !bytes.Equal(nt.Txs[0], txs[0]) || !nt.Stem {
			t.Fatalf("%d: %+v %v", size, nt, err)
		}
		if _, err := rd.ReadMessage(); err != io.EOF {
			t.Fatalf("%d: after the message: %v", size, err)
		}
	}
	if _, err := noiseTxMessage([][]byte{make([]byte, 20*3039)}); !errors.Is(err, errTooManyFragments) {
		t.Fatalf("21 fragments: %v", err)
	}
}

// A noise zone's outgoing connection carries 3072-byte buckets only, and
// the node's own transaction arrives among them, on a stem.
func TestNoiseChannelCarriesOwnTransaction(t *testing.T) {
	proxy, err := sockstest.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(proxy.Close)
	hidden := listen(t)
	onion := newOnion(t)
	proxy.Route(onion, hidden.Addr().String())
	ep, _ := socks.ParseEndpoint(proxy.Addr())
	s := &zoneSetup{}
	s.start(t, Config{PriorityNodes: []string{onion + ":18083"},
		Zones: []ZoneConfig{{Zone: anonaddr.ZoneTor, Proxy: &ep, Noise: true,
			noiseDelay: func() time.Duration { return 20 * time.Millisecond }}}})

	_ = hidden.(*net.TCPListener).SetDeadline(time.Now().Add(10 * time.Second))
	nc, err := hidden.Accept()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = nc.Close() })
	_ = nc.SetReadDeadline(time.Now().Add(20 * time.Second))
	br := bufio.NewReader(nc)
	m, err := levin.NewReader(br, levin.MaxPacketSizeBeforeHandshake).ReadMessage()
	if err != nil || m.Command != levin.CommandHandshake {
		t.Fatalf("%+v %v", m, err)
	}
	hs := s.atTop(1)
	body, _ := portable.Marshal(portable.HandshakeResponse{NodeData: hs.NodeData, PayloadData: hs.PayloadData})
	if err := levin.WriteMessage(nc, levin.Message{Kind: levin.KindResponse, Command: levin.CommandHandshake, ReturnCode: levin.ReturnSuccess, Body: body}); err != nil {
		t.Fatal(err)
	}
	// Noise first: the channel runs before there is anything to send.
	bucket := make([]byte, noiseBytes)
	if _, err := io.ReadFull(br, bucket); err != nil || !bytes.Equal(bucket, noiseBucket()) {
		t.Fatalf("first bucket: %x... %v", bucket[:40], err)
	}
	if _, err := s.tn.node.pool.Add(s.good, txpool.AddOptions{Source: txpool.SourceRPC}); err != nil {
		t.Fatal(err)
	}
	var got []byte
	for i := 0; ; i++ {
		if _, err := io.ReadFull(br, bucket); err != nil {
			t.Fatal(err)
		}
		h, err := levin.ParseHeader(bucket)
		if err != nil {
			t.Fatal(err)
		}
		if h.IsNoise() {
			continue
		}
		got = append(got, bucket...)
		if h.Kind() == levin.KindNotification || h.Flags&levin.FlagEnd != 0 {
			break
		}
		if i > 100 {
			t.Fatal("no whole message in 100 buckets")
		}
	}
	m, err = levin.NewReader(bytes.NewReader(got), levin.MaxPacketSize).ReadMessage()
	if err != nil || m.Command != levin.NotifyNewTransactions {
		t.Fatalf("%+v %v", m.Command, err)
	}
	var nt portable.NewTransactions
	if err := portable.Unmarshal(m.Body, &nt); err != nil || len(nt.Txs) != 1 || !bytes.Equal(nt.Txs[0], s.good) || !nt.Stem {
		t.Fatalf("own transaction over noise: %d txs, stem %v, %v", len(nt.Txs), nt.Stem, err)
	}
	s.noTxsBefore(t)
}
