package miner

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"filippo.io/edwards25519"

	"github.com/gonero/gonero/address"
	"github.com/gonero/gonero/chain"
	"github.com/gonero/gonero/chaindb"
	"github.com/gonero/gonero/consensus"
	"github.com/gonero/gonero/crypto"
	"github.com/gonero/gonero/cryptonote"
	"github.com/gonero/gonero/params"
	"github.com/gonero/gonero/randomx"
)

func randomScalar(t testing.TB) *edwards25519.Scalar {
	var b [64]byte
	rand.Read(b[:])
	s, err := edwards25519.NewScalar().SetUniformBytes(b[:])
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func pub(s *edwards25519.Scalar) cryptonote.Key {
	return cryptonote.Key(new(edwards25519.Point).ScalarBaseMult(s).Bytes())
}

// account is a wallet's private side: view key a, spend key b.
type account struct{ a, b *edwards25519.Scalar }

// subaddress is the wallet's subaddress (major, minor): spend key
// D = B + Hs("SubAddr\0" ‖ a ‖ major ‖ minor)·G, view key C = a·D
// (device_default::get_subaddress_secret_key and get_subaddress).
func (acc account) subaddress(major, minor uint32) address.Address {
	var idx [8]byte
	binary.LittleEndian.PutUint32(idx[:], major)
	binary.LittleEndian.PutUint32(idx[4:], minor)
	m := crypto.HashToScalar([]byte("SubAddr\x00"), acc.a.Bytes(), idx[:])
	d := new(edwards25519.Point).ScalarBaseMult(m)
	d.Add(d, new(edwards25519.Point).ScalarBaseMult(acc.b))
	c := new(edwards25519.Point).ScalarMult(acc.a, d)
	return address.Address{Network: params.Mainnet, Kind: address.Subaddress, Spend: cryptonote.Key(d.Bytes()), View: cryptonote.Key(c.Bytes())}
}

// owns is what a wallet does with a miner output: from R in extra and its
// view key, derivation 8·a·R; the output is for spend key S if
// P - Hs(D ‖ 0)·G = S and the view tag matches.
func (acc account) owns(t *testing.T, tx *cryptonote.Transaction, spend cryptonote.Key) bool {
	if len(tx.Extra) < 33 || tx.Extra[0] != extraTagPubKey {
		t.Fatalf("extra %x has no tx public key first", tx.Extra)
	}
	r, err := decodePoint(cryptonote.Key(tx.Extra[1:33]))
	if err != nil {
		t.Fatal(err)
	}
	d := keyDerivation(r, acc.a)
	out := tx.Outputs[0].Target.(cryptonote.TxOutToTaggedKey)
	if out.ViewTag != viewTag(d, 0) {
		return false
	}
	p, err := decodePoint(out.Key)
	if err != nil {
		t.Fatal(err)
	}
	s := new(edwards25519.Point).Subtract(p, new(edwards25519.Point).ScalarBaseMult(derivationToScalar(d, 0)))
	return cryptonote.Key(s.Bytes()) == spend
}

// The recipient's computation, from its private keys, finds the output the
// miner built from the public address — for a main address and for
// subaddresses — and another wallet does not.
func TestRecipientFindsOutput(t *testing.T) {
	alice := account{randomScalar(t), randomScalar(t)}
	bob := account{randomScalar(t), randomScalar(t)}
	main := address.Address{Network: params.Mainnet, Kind: address.Standard, Spend: pub(alice.b), View: pub(alice.a)}
	for _, to := range []address.Address{main, alice.subaddress(0, 1), alice.subaddress(3, 7)} {
		key, err := newTxKey(nil)
		if err != nil {
			t.Fatal(err)
		}
		tx, err := buildMinerTx(10, 12345, to, 16, key, []byte{0})
		if err != nil {
			t.Fatal(err)
		}
		if !alice.owns(t, &tx, to.Spend) {
			t.Errorf("%s: the recipient does not find its output", to.Kind)
		}
		if bob.owns(t, &tx, to.Spend) {
			t.Errorf("%s: another wallet's view key matches", to.Kind)
		}
		if tx.UnlockTime != 70 || tx.Version != 2 || len(tx.Extra) != 36 || string(tx.Extra[33:]) != "\x02\x01\x00" {
			t.Errorf("shape: version %d unlock %d extra %x", tx.Version, tx.UnlockTime, tx.Extra)
		}
	}
	if _, err := buildMinerTx(10, 1, main, 11, txKey{randomScalar(t)}, nil); !errors.Is(err, ErrVersionTooOld) {
		t.Errorf("version 11: %v", err)
	}
}

func openChain(t testing.TB, fixed uint64, pow consensus.PoWHasher, now func() time.Time) *chain.Chain {
	t.Helper()
	db, err := chaindb.Open(filepath.Join(t.TempDir(), "chain.db"), chaindb.Options{Network: params.Regtest.String()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	c, err := chain.Open(db, chain.Config{Network: params.Regtest, FixedDifficulty: fixed, PoW: pow, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func testAddress(t testing.TB) address.Address {
	return address.Address{Network: params.Mainnet, Kind: address.Standard, Spend: pub(randomScalar(t)), View: pub(randomScalar(t))}
}

// Blocks mined with a clock that runs backwards: once 60 blocks exist the
// template's timestamp is raised to their median, and the chain (which
// applies the timestamp, version, reward and miner-tx rules) takes every
// block; each reward is the full base reward, as for an empty block.
func TestMineWithClockGoingBackwards(t *testing.T) {
	clock := time.Unix(1_800_000_000, 0)
	now := func() time.Time { return clock }
	c := openChain(t, 1, nil, now)
	m := New(c, Options{Now: now, Workers: 2})
	to := testAddress(t)
	for h := uint64(1); h <= 80; h++ {
		generated := c.Top().GeneratedCoins
		meta, err := m.MineBlock(context.Background(), to, 0)
		if err != nil {
			t.Fatalf("height %d: %v", h, err)
		}
		if want := consensus.BaseReward(generated, 16); meta.Reward != want {
			t.Fatalf("height %d: reward %d, base reward %d", h, meta.Reward, want)
		}
		if meta.Height != h || meta.MajorVersion != 16 || meta.MinorVersion != 16 {
			t.Fatalf("height %d: %+v", h, meta)
		}
		clock = clock.Add(-time.Minute)
	}
	// The last blocks carry the median, far above the clock.
	if top := c.Top(); top.Timestamp <= uint64(clock.Unix()) {
		t.Fatalf("top timestamp %d not raised above the clock %d", top.Timestamp, clock.Unix())
	}
}

// At difficulty 8 the nonce search hashes with RandomX and the chain, which
// verifies the proof of work, accepts the blocks; a cancelled search at a
// difficulty no nonce can meet in time returns the context's error.
func TestSolveWithRandomX(t *testing.T) {
	pow, err := randomx.New(randomx.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer pow.Close()
	c := openChain(t, 8, pow, nil)
	m := New(c, Options{})
	for range 3 {
		if _, err := m.MineBlock(context.Background(), testAddress(t), 0); err != nil {
			t.Fatal(err)
		}
	}
	if m.Hashes() < 3 {
		t.Fatalf("%d hashes", m.Hashes())
	}

	hard := openChain(t, 1<<40, pow, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err = New(hard, Options{}).MineBlock(ctx, testAddress(t), 0)
	if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 5*time.Second {
		t.Fatalf("cancelled search: %v after %v", err, time.Since(start))
	}
}

// Run mines until its context ends, pausing interval between blocks, and
// returns nil. The blocks are awaited as the chain announces them, and the
// pause is checked as a lower bound on the gap between two of them (without
// it the gaps would be a few milliseconds): a loaded machine only makes the
// gaps longer.
func TestRunHonoursIntervalAndStops(t *testing.T) {
	const interval = 100 * time.Millisecond
	c := openChain(t, 1, nil, nil)
	added := make(chan time.Time, 64)
	c.OnMainChainChange(func(ch chain.MainChainChange) {
		for range ch.Added {
			select {
			case added <- time.Now():
			default: // more blocks than the test waits for: not counted
			}
		}
	})
	m := New(c, Options{})
	to := testAddress(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	errc := make(chan error, 1)
	go func() { errc <- m.Run(ctx, to, interval) }()
	var at []time.Time
	for len(at) < 3 {
		select {
		case when := <-added:
			at = append(at, when)
		case <-time.After(time.Minute):
			t.Fatalf("%d blocks mined in a minute", len(at))
		}
	}
	cancel()
	select {
	case err := <-errc:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(time.Minute):
		t.Fatal("Run did not stop")
	}
	for i := 1; i < len(at); i++ {
		if gap := at[i].Sub(at[i-1]); gap < interval {
			t.Errorf("block %d came %v after block %d, under the %v interval", i+1, gap, i, interval)
		}
	}
	// Every block Run mined was announced, and none is being mined now.
	if h, heard := c.Height()-1, uint64(len(at)+len(added)); h != heard {
		t.Errorf("chain height %d after Run returned; %d blocks announced", h+1, heard)
	}
}
