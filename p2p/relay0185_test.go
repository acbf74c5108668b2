package p2p

import (
	"bytes"
	"testing"
	"time"

	"filippo.io/edwards25519"

	"github.com/gonero/gonero/consensus"
	"github.com/gonero/gonero/cryptonote"
	"github.com/gonero/gonero/levin"
	"github.com/gonero/gonero/portable"
	"github.com/gonero/gonero/txpool"
)

// A fluff epoch fluffs what peers send on a stem, but this node's own
// transactions (relay_method::local) still take a stem while there is a
// stem peer (monerod 0.18.2.0 on, levin_notify.cpp dandelionpp_notify).
func TestDandelionLocalStemsInFluffEpoch(t *testing.T) {
	now := time.Unix(1_000_000, 0)
	a, src := testConn(), testConn()
	d := newDandelion()
	d.rnd = func(int) int { return 0 } // a fluff epoch (0 < 20); the first candidate
	list := func() []*conn { return []*conn{a} }
	if s := d.stem(now, src, false, list); s != nil {
		t.Fatal("a peer's stem transaction got a stem in a fluff epoch")
	}
	if s := d.stem(now, nil, true, list); s != a {
		t.Fatalf("a local transaction got stem %p in a fluff epoch, want the candidate %p", s, a)
	}
	if s := d.stem(now, nil, true, func() []*conn { return nil }); s != a {
		t.Fatal("the epoch's stem was dropped while still a candidate")
	}
	a.close(nil)
	if s := d.stem(now, nil, true, func() []*conn { return nil }); s != nil {
		t.Fatal("a local transaction got a stem without any candidate")
	}
}

// End to end: in a fluff epoch, a transaction sendrawtransaction adds goes
// to the stem peer alone, in its stem phase; the watcher is offered
// nothing.
func TestLocalTxStemsInFluffEpoch(t *testing.T) {
	s := &dandelionSetup{withOutPeer: true, fluffEpoch: true, embargo: time.Hour}
	s.start(t)
	if _, err := s.tn.node.pool.Add(s.good, txpool.AddOptions{Source: txpool.SourceRPC}); err != nil {
		t.Fatal(err)
	}
	s.expectTxs(t, s.out, "the stem peer", true)
	if in, stem := s.tn.node.pool.StemPhase(s.goodID); !in || !stem {
		t.Fatalf("pool: has %v, stem phase %v", in, stem)
	}
	if n := s.complement(t); n != 0 {
		t.Fatalf("the complement offers %d transactions in the stem phase", n)
	}
}

// A transaction refused for no fault of the peer (m_no_drop_offense, monerod
// 0.18.2.2 on: a pool-only rule, a fee too low, a key image a pool
// transaction spends) leaves the peer connected and is neither pooled nor
// relayed; the valid transaction of the same message is.
func TestSoftTxOffenceKeepsPeer(t *testing.T) {
	s := &dandelionSetup{embargo: time.Hour}
	s.start(t)
	edit := func(f func(tx *cryptonote.Transaction)) []byte {
		tx, err := cryptonote.ParseTransaction(s.good)
		if err != nil {
			t.Fatal(err)
		}
		f(tx)
		return tx.Serialize()
	}
	locked := edit(func(tx *cryptonote.Transaction) { tx.UnlockTime = 1 })
	bigExtra := edit(func(tx *cryptonote.Transaction) {
		tx.Extra = append(tx.Extra, make([]byte, consensus.MaxTxExtraSize)...)
	})
	s.in.sendPayload(levin.KindNotification, levin.NotifyNewTransactions, portable.NewTransactions{Txs: [][]byte{locked, bigExtra, s.good}})
	var nt portable.NewTransactions
	s.w.expectNotification(levin.NotifyNewTransactions, &nt)
	if len(nt.Txs) != 1 || !bytes.Equal(nt.Txs[0], s.good) {
		t.Fatalf("the watcher got %d transactions, want the valid one alone", len(nt.Txs))
	}
	// The same key images again: a pool double spend, no offence either.
	spend := edit(func(tx *cryptonote.Transaction) { tx.Extra = append(tx.Extra, 0) })
	s.in.sendPayload(levin.KindNotification, levin.NotifyNewTransactions, portable.NewTransactions{Txs: [][]byte{spend}})
	// The sender is still served.
	s.in.sendPayload(levin.KindNotification, levin.NotifyGetTxpoolComplement, portable.GetTxpoolComplement{})
	s.in.expectNotification(levin.NotifyNewTransactions, &nt)
	if len(nt.Txs) != 1 || !bytes.Equal(nt.Txs[0], s.good) {
		t.Fatalf("complement holds %d transactions, want the valid one", len(nt.Txs))
	}
	if n := s.tn.node.pool.Len(); n != 1 {
		t.Fatalf("pool holds %d transactions, want 1", n)
	}
	// A transaction that breaks a consensus rule still drops the peer: a
	// ring listing one member twice (a semantic rule). Its key images are
	// new ones: the pool's key images come first (monerod 0.18.5.2 on), and
	// the pooled transaction's would make it a pool double spend, no
	// offence.
	broken := edit(func(tx *cryptonote.Transaction) {
		for i := range tx.Inputs {
			in := tx.Inputs[i].(cryptonote.TxInToKey)
			var x [32]byte
			x[0] = byte(7 + i)
			sc, err := edwards25519.NewScalar().SetCanonicalBytes(x[:])
			if err != nil {
				t.Fatal(err)
			}
			in.KeyImage = cryptonote.Key(new(edwards25519.Point).ScalarBaseMult(sc).Bytes())
			if i == 0 {
				in.KeyOffsets = append([]uint64(nil), in.KeyOffsets...)
				in.KeyOffsets[1] = 0
			}
			tx.Inputs[i] = in
		}
	})
	s.in.sendPayload(levin.KindNotification, levin.NotifyNewTransactions, portable.NewTransactions{Txs: [][]byte{broken}})
	s.in.expectClosed("a peer relaying a transaction with a duplicate ring member")
}

// A NOTIFY_NEW_TRANSACTIONS carrying the same blob twice drops the peer,
// before any verification and even before it synchronised, without a
// fail towards a ban (handle_notify_new_transactions, monerod 0.18.3.0 on).
func TestDuplicateTxInNotificationDropsPeer(t *testing.T) {
	s := &dandelionSetup{embargo: time.Hour}
	s.start(t)
	s.in.sendPayload(levin.KindNotification, levin.NotifyNewTransactions, portable.NewTransactions{Txs: [][]byte{s.good, s.good}})
	s.in.expectClosed("a peer sending the same transaction twice in one message")
	if n := s.tn.node.pool.Len(); n != 0 {
		t.Fatalf("pool holds %d transactions, want none", n)
	}
	b := s.tn.node.bans
	b.mu.Lock()
	fails := len(b.fails)
	b.mu.Unlock()
	if fails != 0 {
		t.Fatalf("%d hosts with fails, want none (monerod drops without a fail)", fails)
	}
	// The same transaction once from another peer is welcome.
	s.w.sendPayload(levin.KindNotification, levin.NotifyNewTransactions, portable.NewTransactions{Txs: [][]byte{s.good}})
	eventually(t, 5*time.Second, "the transaction to enter the pool", func() bool { return s.tn.node.pool.Has(s.goodID) })
}
