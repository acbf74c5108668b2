package txpool

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/gonero/gonero/chain"
	"github.com/gonero/gonero/chaindb"
	"github.com/gonero/gonero/chainexport"
	"github.com/gonero/gonero/consensus"
	"github.com/gonero/gonero/cryptonote"
	"github.com/gonero/gonero/importer"
	"github.com/gonero/gonero/internal/testutil"
	"github.com/gonero/gonero/params"
)

// fakeVerifier accepts every transaction with fee = 10·(first byte of
// extra) and weight 100·(second byte), refuses one whose key images a
// pool transaction uses, and those it was told are invalid.
type fakeVerifier struct {
	invalid map[cryptonote.Hash]bool
	inChain map[cryptonote.Hash]bool
}

func (f *fakeVerifier) CheckPoolTx(tx *cryptonote.Transaction, id cryptonote.Hash, blob []byte, keptByBlock bool, inPool func(cryptonote.Key) bool) (uint64, uint64, error) {
	if f.invalid[id] {
		return 0, 0, &consensus.TxError{Rule: consensus.RuleSignatures, Flags: consensus.FlagInvalidInput}
	}
	for _, in := range tx.Inputs {
		if inPool(in.(cryptonote.TxInToKey).KeyImage) {
			return 0, 0, &consensus.TxError{Rule: consensus.RuleKeyImageInPool, Flags: consensus.FlagDoubleSpend}
		}
	}
	return 10 * uint64(tx.Extra[0]), 100 * uint64(tx.Extra[1]), nil
}

func (f *fakeVerifier) HasTx(id cryptonote.Hash) bool { return f.inChain[id] }

// fakeTx is a v1 transaction spending key images kis, with extra
// (fee/10, weight/100).
func fakeTx(fee10, weight100 byte, kis ...byte) (*cryptonote.Transaction, []byte) {
	tx := &cryptonote.Transaction{Version: 1, Extra: []byte{fee10, weight100}}
	for _, k := range kis {
		tx.Inputs = append(tx.Inputs, cryptonote.TxInToKey{KeyOffsets: []uint64{1}, KeyImage: cryptonote.Key{k}})
		tx.Signatures = append(tx.Signatures, []cryptonote.Signature{{}})
	}
	tx.Outputs = []cryptonote.TxOut{{Amount: 1, Target: cryptonote.TxOutToKey{Key: cryptonote.Key{9}}}}
	return tx, tx.Serialize()
}

type memStore struct {
	m map[cryptonote.Hash]chaindb.PoolTxRecord
}

func (s *memStore) PutPoolTx(r chaindb.PoolTxRecord) error { s.m[r.Hash] = r; return nil }
func (s *memStore) DeletePoolTxs(hs ...cryptonote.Hash) error {
	for _, h := range hs {
		delete(s.m, h)
	}
	return nil
}

func TestPoolRules(t *testing.T) {
	v := &fakeVerifier{invalid: map[cryptonote.Hash]bool{}, inChain: map[cryptonote.Hash]bool{}}
	store := &memStore{m: map[cryptonote.Hash]chaindb.PoolTxRecord{}}
	now := time.Unix(1_800_000_000, 0)
	p := New(v, Options{MaxWeight: 1000, Store: store, Now: func() time.Time { return now }})
	var added []cryptonote.Hash
	p.OnAdd(func(e *Entry) { added = append(added, e.ID) })

	a, ab := fakeTx(5, 2, 1)    // 50 per 200
	b, bb := fakeTx(9, 2, 2, 3) // 90 per 200: best
	c, cb := fakeTx(1, 4, 4)    // 10 per 400: worst
	for _, blob := range [][]byte{ab, bb, cb} {
		if _, err := p.Add(blob, AddOptions{Source: SourceRPC}); err != nil {
			t.Fatal(err)
		}
	}
	if p.Len() != 3 || p.Weight() != 800 || len(added) != 3 || len(store.m) != 3 {
		t.Fatalf("len %d weight %d listened %d stored %d", p.Len(), p.Weight(), len(added), len(store.m))
	}
	if _, err := p.Add(ab, AddOptions{}); !errors.Is(err, ErrAlreadyInPool) {
		t.Fatalf("second add: %v", err)
	}
	// A different transaction spending b's key image 3: the pool's double spend.
	d, db := fakeTx(8, 1, 3)
	if _, err := p.Add(db, AddOptions{}); consensus.FlagsOf(err) != consensus.FlagDoubleSpend {
		t.Fatalf("pool double spend: %v", err)
	}
	// Over the weight limit, the worst payer per weight goes.
	e, eb := fakeTx(7, 3, 5) // 70 per 300
	if _, err := p.Add(eb, AddOptions{}); err != nil {
		t.Fatal(err)
	}
	if p.Has(c.ID()) || p.Weight() != 700 {
		t.Fatalf("pruning kept the worst payer (weight %d)", p.Weight())
	}
	if _, ok := store.m[c.ID()]; ok {
		t.Fatal("a pruned transaction stays in the store")
	}
	// Best fee per weight first, within the weight asked for.
	got := p.Select(450)
	if len(got) != 2 || got[0].ID != b.ID() || got[1].ID != a.ID() {
		t.Fatalf("Select(450) = %v", ids(got))
	}
	// A block with b and a transaction spending e's key image: both leave.
	other, _ := fakeTx(1, 1, 5)
	p.BlockAdded([]*cryptonote.Transaction{b, other}, []cryptonote.Hash{b.ID(), other.ID()})
	if p.Len() != 1 || !p.Has(a.ID()) {
		t.Fatalf("after the block: %v", p.Hashes())
	}
	// Entries that stop verifying are dropped by Select and Revalidate.
	v.invalid[a.ID()] = true
	if got := p.Select(10_000); len(got) != 0 || p.Len() != 0 {
		t.Fatalf("an invalid entry was selected or kept: %v", ids(got))
	}
	_, _ = e, d
	// Expiry after three days.
	if _, err := p.Add(cb, AddOptions{}); err != nil {
		t.Fatal(err)
	}
	now = now.Add(Livetime + time.Second)
	if _, err := p.Add(eb, AddOptions{}); err != nil {
		t.Fatal(err)
	}
	if p.Has(c.ID()) {
		t.Fatal("an entry older than the pool's lifetime stayed")
	}
	// Timed out, it is refused if it comes again (monerod's
	// m_timed_out_transactions), unless a popped block brings it back.
	if _, err := p.Add(cb, AddOptions{}); !errors.Is(err, ErrTimedOut) {
		t.Fatalf("a timed-out transaction sent again: %v, want %v", err, ErrTimedOut)
	}
	if consensus.IsNoDropOffense(ErrTimedOut) {
		t.Fatal("a timed-out transaction is a no-drop offence; monerod drops the peer (a verification failure)")
	}
	if r := consensus.RuleOf(ErrTimedOut); r != consensus.RuleTimedOut {
		t.Fatalf("a timed-out transaction's rule: %q", r)
	}
	// A blob that is no transaction, or too big to be one.
	if _, err := p.Add([]byte{2, 0}, AddOptions{}); consensus.RuleOf(err) != consensus.RuleParse || consensus.FlagsOf(err) != 0 {
		t.Fatalf("a blob that does not parse: %v", err)
	}
	if _, err := p.Add(make([]byte, consensus.MaxTxSize+1), AddOptions{}); consensus.RuleOf(err) != consensus.RuleTxTooBig || consensus.FlagsOf(err) != consensus.FlagTooBig {
		t.Fatalf("a blob over the size limit: %v", err)
	}
	if _, err := p.Add(cb, AddOptions{Source: SourceBlock}); err != nil {
		t.Fatalf("a timed-out transaction from a popped block: %v", err)
	}
}

func ids(es []*Entry) []cryptonote.Hash {
	var out []cryptonote.Hash
	for _, e := range es {
		out = append(out, e.ID)
	}
	return out
}

// openChain imports an export file of the wallet captures (testdata) into a
// fresh verifying chain.
func openChain(t *testing.T, file string) (*chain.Chain, *chaindb.DB) {
	t.Helper()
	c, db := openChainIn(t, t.TempDir(), file)
	t.Cleanup(func() { db.Close() })
	return c, db
}

// openChainNoCleanup is openChain for a chain shared by a fuzz process.
func openChainNoCleanup(t testing.TB, file string) (*chain.Chain, *chaindb.DB) {
	dir, err := os.MkdirTemp("", "gonero-fuzz-pool-")
	if err != nil {
		t.Fatal(err)
	}
	c, db := openChainIn(t, dir, file)
	// A fuzz worker is killed, never cleaned up: the store stays usable
	// through its open file once its directory is gone.
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	return c, db
}

func openChainIn(t testing.TB, dir, file string) (*chain.Chain, *chaindb.DB) {
	t.Helper()
	db, err := chaindb.Open(filepath.Join(dir, "chain.db"), chaindb.Options{Network: params.Regtest.String()})
	if err != nil {
		t.Fatal(err)
	}
	c, err := chain.Open(db, chain.Config{Network: params.Regtest, FixedDifficulty: 1})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := importer.Import(context.Background(), c, file, 0, nil); err != nil {
		t.Fatal(err)
	}
	return c, db
}

// On the real chain: alice's transfer (valid on the 300-block chain) enters
// the pool, survives a restart through the store, and leaves when the block
// that mined it (monerod's block 300) arrives; when a heavier fork without
// that block wins, the transaction comes back to the pool, verified again.
func TestPoolFollowsTheChain(t *testing.T) {
	c, db := openChain(t, testutil.Path(t, "testdata", "regtest", "blockchain.raw"))
	p := NewForChain(c, Options{Store: db})
	blob := testutil.WalletTx(t, "2-transfer.jsonl", 14)
	e, err := p.Add(blob, AddOptions{Source: SourceRPC})
	if err != nil {
		t.Fatalf("alice's transfer refused: %v", err)
	}
	if e.Fee == 0 || e.Weight == 0 {
		t.Fatalf("fee %d weight %d", e.Fee, e.Weight)
	}
	var stored []chaindb.PoolTxRecord
	_ = db.View(func(r *chaindb.Reader) error { stored, err = r.PoolTxs(); return err })
	if len(stored) != 1 || stored[0].Hash != e.ID {
		t.Fatalf("store holds %d pool entries", len(stored))
	}
	restarted := New(c, Options{Store: db})
	if kept := restarted.Load(stored); kept != 1 || !restarted.Has(e.ID) {
		t.Fatalf("reloaded pool kept %d", kept)
	}
	// Relayed before the restart at a time the store does not keep: the
	// first relay pass sends it again, fluffed; the next leaves it to its
	// back-off. (The pool before the restart never relayed it: nothing.)
	if local, public := p.RelayDue(); len(local)+len(public) != 0 {
		t.Fatalf("a transaction never relayed is due: %d local, %d public", len(local), len(public))
	}
	if local, public := restarted.RelayDue(); len(local) != 0 || len(public) != 1 || public[0].ID != e.ID {
		t.Fatalf("after the restart the pass relays %d local and %d public transactions, want it public", len(local), len(public))
	}
	if local, public := restarted.RelayDue(); len(local)+len(public) != 0 {
		t.Fatal("relayed again at once")
	}

	// monerod's block 300 holds the transfer.
	after := testutil.Path(t, "testdata", "regtest", "wallet", "blockchain-after-transfer.raw")
	if _, err := importer.Import(context.Background(), c, after, 0, nil); err != nil {
		t.Fatal(err)
	}
	if p.Has(e.ID) || p.Len() != 0 {
		t.Fatal("the mined transaction stayed in the pool")
	}
	_ = db.View(func(r *chaindb.Reader) error { stored, err = r.PoolTxs(); return err })
	if len(stored) != 0 {
		t.Fatalf("store still holds %d pool entries", len(stored))
	}
	// The fork (three blocks mined elsewhere on top of 299) overtakes it.
	rd, err := chainexport.Open(testutil.Path(t, "testdata", "regtest", "wallet", "blockchain-fork.raw"))
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	if err := rd.Skip(300); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		rec, err := rd.Next()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Add(rec.Block, rec.BlockBlob, rec.Txs, rec.TxBlobs); err != nil {
			t.Fatal(err)
		}
	}
	if c.Height() != 303 {
		t.Fatalf("height %d after the fork, want 303", c.Height())
	}
	if !p.Has(e.ID) {
		t.Fatal("the popped block's transaction did not come back to the pool")
	}
}
