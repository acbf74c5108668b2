package main

import (
	"bufio"
	"context"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gonero/gonero/levin"
	"github.com/gonero/gonero/params"
	"github.com/gonero/gonero/portable"
)

// The P2P attacks of issue 33: peers that ask for blocks and chains as
// fast as they are answered, peers that ask and never read, peers that
// send tens of MB of garbage transactions per message. Each attacker
// handshakes as a regtest peer at genesis (so the node never syncs from
// it), from an address of its own.

// p2pPeers is how many attacking peers each P2P attack uses.
const p2pPeers = 20

// blockIDs are 100 consecutive main-chain block ids of n's chain, read once
// per node from its RPC.
var blockIDs sync.Map // url -> [][32]byte

func chainBlockIDs(n *node, f *facts) ([][32]byte, error) {
	if v, ok := blockIDs.Load(n.url()); ok {
		return v.([][32]byte), nil
	}
	start := uint64(1)
	if f.height > 101 {
		start = f.height - 101
	}
	var hdrs struct {
		Headers []struct {
			Hash string `json:"hash"`
		} `json:"headers"`
	}
	c := &http.Client{Timeout: 30 * time.Second}
	if err := jsonRPC(c, n.url(), "getblockheadersrange", map[string]any{"start_height": start, "end_height": start + 99}, &hdrs); err != nil {
		return nil, err
	}
	var ids [][32]byte
	for _, h := range hdrs.Headers {
		b, err := hex.DecodeString(h.Hash)
		if err != nil || len(b) != 32 {
			return nil, fmt.Errorf("block hash %q", h.Hash)
		}
		ids = append(ids, [32]byte(b))
	}
	blockIDs.Store(n.url(), ids)
	return ids, nil
}

// p2pHandshake dials n's P2P port from src and handshakes as a peer at
// genesis; it returns the connection and a reader on it.
func p2pHandshake(ctx context.Context, n *node, f *facts, src string, peerID uint64) (net.Conn, *levin.Reader, error) {
	return p2pHandshakeAt(ctx, n, f, src, peerID, false)
}

// p2pHandshakeAt is p2pHandshake; with atTop set the peer claims the
// node's own top (height, id, cumulative difficulty): the node has nothing
// to sync from it and, on a first such peer, counts itself synchronized.
func p2pHandshakeAt(ctx context.Context, n *node, f *facts, src string, peerID uint64, atTop bool) (net.Conn, *levin.Reader, error) {
	c, err := dialFrom(ctx, src, n.p2p)
	if err != nil {
		return nil, nil, err
	}
	net := params.Regtest
	sync := portable.CoreSyncData{CurrentHeight: 1, CumulativeDifficulty: 1, TopID: [32]byte(f.genesis), TopVersion: net.VersionAt(0)}
	if atTop {
		sync = portable.CoreSyncData{CurrentHeight: f.height, CumulativeDifficulty: f.cumDiff, TopID: f.top,
			TopVersion: net.VersionAt(f.height - 1)}
	}
	hs := portable.HandshakeRequest{
		NodeData:    portable.NodeData{NetworkID: net.NetworkID(), PeerID: peerID, SupportFlags: 1},
		PayloadData: sync,
	}
	body, err := portable.Marshal(hs)
	if err != nil {
		c.Close()
		return nil, nil, err
	}
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	if err := levin.WriteMessage(c, levin.Message{Kind: levin.KindRequest, Command: levin.CommandHandshake, Body: body}); err != nil {
		c.Close()
		return nil, nil, err
	}
	rd := levin.NewReader(bufio.NewReaderSize(c, 64<<10), levin.MaxPacketSize)
	for {
		m, err := rd.ReadMessage()
		if err != nil {
			c.Close()
			return nil, nil, err
		}
		if m.Kind == levin.KindResponse && m.Command == levin.CommandHandshake {
			if m.ReturnCode <= 0 {
				c.Close()
				return nil, nil, fmt.Errorf("handshake refused (%d)", m.ReturnCode)
			}
			break
		}
	}
	_ = c.SetDeadline(time.Time{})
	return c, rd, nil
}

// p2pRequests are the framed requests of the block attacks: 100 blocks at
// a time, and a chain from genesis (10,000 ids with their weights).
func p2pRequests(ids [][32]byte, genesis []byte) (blocks, chain []byte, err error) {
	b, err := portable.Marshal(portable.RequestGetObjects{Blocks: ids})
	if err != nil {
		return nil, nil, err
	}
	if blocks, err = levin.AppendMessage(nil, levin.Message{Kind: levin.KindNotification, Command: levin.NotifyRequestGetObjects, Body: b}); err != nil {
		return nil, nil, err
	}
	b, err = portable.Marshal(portable.RequestChain{BlockIDs: [][32]byte{[32]byte(genesis)}})
	if err != nil {
		return nil, nil, err
	}
	chain, err = levin.AppendMessage(nil, levin.Message{Kind: levin.KindNotification, Command: levin.NotifyRequestChain, Body: b})
	return blocks, chain, err
}

// p2pBlockFlood has p2pPeers peers ask for 100 blocks and for the chain,
// alternately, as fast as the node takes the requests; with read set they
// read every answer, else they never read at all.
func p2pBlockFlood(read bool) func(ctx context.Context, n *node, f *facts) string {
	return func(ctx context.Context, n *node, f *facts) string {
		ids, err := chainBlockIDs(n, f)
		if err != nil {
			return "block ids: " + err.Error()
		}
		blocks, chain, err := p2pRequests(ids, f.genesis)
		if err != nil {
			return "requests: " + err.Error()
		}
		var conns, refused, requests, served atomic.Int64
		workers(ctx, p2pPeers, false, func(ctx context.Context, i int) {
			c, rd, err := p2pHandshake(ctx, n, f, attackerAddr(ctx, i, p2pPeers), rand.Uint64())
			if err != nil {
				refused.Add(1)
				select {
				case <-ctx.Done():
				case <-time.After(100 * time.Millisecond):
				}
				return
			}
			defer c.Close()
			conns.Add(1)
			if !read {
				if tc, ok := tcpConn(c); ok {
					_ = tc.SetReadBuffer(4096)
				}
			} else {
				go func() {
					for {
						_ = c.SetReadDeadline(time.Now().Add(30 * time.Second))
						m, err := rd.ReadMessage()
						if err != nil {
							return
						}
						served.Add(int64(levin.HeaderSize + len(m.Body)))
					}
				}()
			}
			for k := 0; ctx.Err() == nil; k++ {
				msg := blocks
				if k%2 == 1 {
					msg = chain
				}
				_ = c.SetWriteDeadline(time.Now().Add(30 * time.Second))
				if _, err := c.Write(msg); err != nil {
					return
				}
				requests.Add(1)
			}
		})
		if read {
			return fmt.Sprintf("%d connections (%d failed), %d requests sent, %.0f MB of answers read", conns.Load(), refused.Load(),
				requests.Load(), float64(served.Load())/1e6)
		}
		return fmt.Sprintf("%d connections (%d failed), %d requests sent, nothing read", conns.Load(), refused.Load(), requests.Load())
	}
}

// garbageTxs is a NOTIFY_NEW_TRANSACTIONS of 48 MB: 1,000 "transactions" of
// random bytes, framed once.
var garbageTxs = sync.OnceValue(func() []byte {
	var nt portable.NewTransactions
	for range 1000 {
		tx := make([]byte, 48_000)
		for k := range tx {
			tx[k] = byte(rand.Uint32())
		}
		nt.Txs = append(nt.Txs, tx)
	}
	b, err := portable.Marshal(nt)
	if err != nil {
		panic(err)
	}
	msg, err := levin.AppendMessage(nil, levin.Message{Kind: levin.KindNotification, Command: levin.NotifyNewTransactions, Body: b})
	if err != nil {
		panic(err)
	}
	return msg
})

// p2pGarbageTxs has p2pPeers peers handshake and send 48 MB messages of
// garbage transactions, again and again, reconnecting when dropped.
func p2pGarbageTxs(ctx context.Context, n *node, f *facts) string {
	msg := garbageTxs()
	var conns, refused, sent atomic.Int64
	workers(ctx, p2pPeers, false, func(ctx context.Context, i int) {
		c, _, err := p2pHandshake(ctx, n, f, attackerAddr(ctx, i, p2pPeers), rand.Uint64())
		if err != nil {
			refused.Add(1)
			select {
			case <-ctx.Done():
			case <-time.After(100 * time.Millisecond):
			}
			return
		}
		defer c.Close()
		conns.Add(1)
		go holdUntilClosed(ctx, c)
		for ctx.Err() == nil {
			_ = c.SetWriteDeadline(time.Now().Add(30 * time.Second))
			k, err := c.Write(msg)
			sent.Add(int64(k))
			if err != nil {
				return
			}
		}
	})
	return fmt.Sprintf("%d connections (%d failed), %.0f MB of garbage transactions sent", conns.Load(), refused.Load(), float64(sent.Load())/1e6)
}

// tcpConn is the TCP connection under an attacker's socket.
func tcpConn(c net.Conn) (*net.TCPConn, bool) {
	if k, ok := c.(*counted); ok {
		c = k.Conn
	}
	tc, ok := c.(*net.TCPConn)
	return tc, ok
}
