// Package txpool is the node's transaction pool: transactions that passed
// every rule monerod applies to a transaction entering its pool, indexed by
// id and by key image, waiting for a block. It follows the chain (a block's
// transactions and every transaction spending a key image the block spent
// leave; a popped block's transactions come back), picks transactions for
// the miner by fee per weight, and says which transactions to relay.
//
// Verification itself belongs to the chain manager (the rules need the
// chain); the pool reaches it through the small Verifier interface.
package txpool

import (
	"cmp"
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/gonero/gonero/chaindb"
	"github.com/gonero/gonero/consensus"
	"github.com/gonero/gonero/cryptonote"
	"github.com/gonero/gonero/internal/boundedcache"
)

// Limits, as monerod's defaults (cryptonote_config.h).
const (
	DefaultMaxWeight = 648_000_000        // DEFAULT_TXPOOL_MAX_WEIGHT
	Livetime         = 3 * 24 * time.Hour // CRYPTONOTE_MEMPOOL_TX_LIVETIME
	FromBlockLive    = 7 * 24 * time.Hour // CRYPTONOTE_MEMPOOL_TX_FROM_ALT_BLOCK_LIVETIME
)

// Verifier checks transactions against the main chain's top.
type Verifier interface {
	// CheckPoolTx applies every rule of a transaction entering the pool
	// (keptByBlock: it came back from a popped block, so the fee and the
	// pool's weight rule do not apply). inPool reports key images that
	// pool transactions already use. A refusal is a *consensus.TxError.
	CheckPoolTx(tx *cryptonote.Transaction, id cryptonote.Hash, blob []byte, keptByBlock bool, inPool func(cryptonote.Key) bool) (fee, weight uint64, err error)
	// HasTx reports a transaction on the main chain.
	HasTx(id cryptonote.Hash) bool
}

// Source says where a transaction came from, which decides its relaying.
type Source int

const (
	SourceRPC   Source = iota // sendrawtransaction: relayed unless do_not_relay
	SourceP2P                 // a peer relayed it
	SourceBlock               // it came back from a popped block
)

// Entry is one pool transaction.
type Entry struct {
	ID          cryptonote.Hash
	Tx          *cryptonote.Transaction
	Blob        []byte
	Fee         uint64
	Weight      uint64
	Received    time.Time
	Source      Source
	DoNotRelay  bool
	Relayed     bool      // handed to peers at least once
	LastRelayed time.Time // when
	KeptByBlock bool
	// Stem is set while the transaction is in its Dandelion++ stem phase
	// (monerod's relay_method::stem): it reached this node, or left it, on
	// a stem and has not been announced to every peer yet. Such a
	// transaction is private: it is neither offered in pool complements nor
	// used to complete fluffy blocks, and a peer sending it again is not
	// told it is known. EmbargoUntil is when this node fluffs it itself if
	// it has not seen it fluffed by then. Read them through StemPhase.
	Stem         bool
	EmbargoUntil time.Time
	// ArrivedOnStem: a peer sent it on a Dandelion++ stem (monerod's
	// relay_method::stem at arrival; MarkStem may set Stem later anyway).
	ArrivedOnStem bool
	// DoubleSpendSeen: a later transaction tried to spend one of this
	// one's key images (tx_memory_pool::mark_double_spend).
	DoubleSpendSeen bool
	// Broadcasted: the transaction is public, as far as this node knows:
	// it came fluffed from a peer or back from a popped block, or this
	// node fluffed it (monerod's relay_category::broadcasted, relay
	// methods fluff and block). It never goes back to false; OnBroadcast
	// hears it become true.
	Broadcasted bool
	// sortTime is the receive time, in whole seconds, the pool orders
	// equal payers by (monerod's m_txs_by_fee_and_receive_time key).
	// monerod re-keys an entry to the moment it becomes public after
	// arriving (set_relayed); gonero keeps the arrival, as an offline
	// monerod does (see docs/operations.md, the bounded pool).
	sortTime int64
	// reloaded: loaded from the store at start-up (Load), relayed before
	// the restart at a time gonero does not keep (relayDue).
	reloaded bool
}

// FeePerWeight orders entries for mining.
func (e *Entry) feePerWeight() float64 { return float64(e.Fee) / float64(max(e.Weight, 1)) }

// ErrAlreadyInChain and ErrAlreadyInPool describe a transaction that was
// not added because the node already has it; monerod answers these as a
// success that adds nothing.
var (
	ErrAlreadyInChain = errors.New("transaction already in the blockchain")
	ErrAlreadyInPool  = errors.New("transaction already in the pool")
)

// Pool is safe for concurrent use.
type Pool struct {
	v         Verifier
	now       func() time.Time
	maxWeight uint64

	store     Store
	mu        sync.Mutex
	txs       map[cryptonote.Hash]*Entry
	keyImages map[cryptonote.Key]cryptonote.Hash
	// timedOut remembers the transactions that aged out of the pool
	// (expire): they are refused if they come again, unless a popped block
	// brings them back (monerod's m_timed_out_transactions, which it keeps
	// until it stops; here bounded, arbitrary ones forgotten when full).
	timedOut  *boundedcache.Cache[cryptonote.Hash, struct{}]
	weight    uint64
	bytes     uint64 // the entries' blob sizes (Stats)
	observer  Observer
	listeners []func(*Entry)
	// broadcasters hear entries become Broadcasted after they entered.
	broadcasters []func(*Entry)
	// notFromPool is NotFromPool's answer for the latest chain change.
	notFromPool [][]*cryptonote.Transaction
	// relayers hear relay requests for transactions already in the pool
	// (relay_tx); fluff says the transaction was already public.
	relayers []func(e *Entry, fluff bool)
	// removed collects the ids removed under mu, deleted from the store
	// in one transaction before mu is released (flush).
	removed []cryptonote.Hash
	// changes are the recent additions and removals (Changes).
	changes changeLog
	// gen counts the chain changes the pool followed (BlockAdded,
	// Revalidate): an Add whose verification saw another generation
	// verifies again.
	gen uint64
	// verifying holds the ids an Add is verifying outside mu; the channel
	// closes when it is done.
	verifying map[cryptonote.Hash]chan struct{}
	// verifySlots bounds the Adds verifying at once to the cores but one
	// (verifySlotCount): under the lock they were one at a time; outside it
	// a flood of peers must not multiply the work in flight beyond what the
	// cores can run, nor take the core that RPC, P2P and the chain need.
	verifySlots chan struct{}
}

// Options configure a pool.
type Options struct {
	MaxWeight uint64           // default DefaultMaxWeight
	Now       func() time.Time // default time.Now
	// Store, when set, keeps the pool across restarts (Load reads it back).
	Store Store
	// Observer, when set, hears the outcome of every transaction Add
	// verified or refused (the node's metrics).
	Observer Observer
	// VerifySlots bounds the transactions verified at once (default
	// verifySlotCount: the cores but one).
	VerifySlots int
}

// Observer hears every Add's outcome: err nil for a transaction that
// entered the pool, else the refusal (ErrAlreadyInPool, ErrAlreadyInChain,
// a *consensus.TxError). It may be called with the pool's lock held, so it
// must be quick and must not call back into the pool.
type Observer interface {
	TxChecked(err error)
}

// Store is where the pool keeps its entries (chaindb's txpool bucket).
type Store interface {
	PutPoolTx(rec chaindb.PoolTxRecord) error
	DeletePoolTxs(hashes ...cryptonote.Hash) error
}

// New makes an empty pool that verifies through v.
func New(v Verifier, opts Options) *Pool {
	if opts.MaxWeight == 0 {
		opts.MaxWeight = DefaultMaxWeight
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &Pool{v: v, now: opts.Now, maxWeight: opts.MaxWeight, store: opts.Store, observer: opts.Observer,
		txs: map[cryptonote.Hash]*Entry{}, keyImages: map[cryptonote.Key]cryptonote.Hash{},
		timedOut:    boundedcache.New[cryptonote.Hash, struct{}](maxTimedOut, 0, nil),
		verifySlots: make(chan struct{}, cmp.Or(opts.VerifySlots, verifySlotCount()))}
}

// verifySlotCount leaves a core free of transaction verification: a flood
// of transactions with bad signatures (bench/abuse.sh p2p-bad-sig-txs,
// rpc-invalid-txs) otherwise took every core, and the cheap reads of the
// node's own clients waited behind it (legitimate client p99 1.2-1.6 s with
// a slot a core, 0.4-0.5 s with one fewer, on 2 cores under load; monerod
// verifies one message at a time).
func verifySlotCount() int { return max(1, runtime.GOMAXPROCS(0)-1) }

// maxTimedOut bounds the memory of timed-out transactions (2 MiB of ids).
const maxTimedOut = 1 << 16

// ErrTimedOut refuses a transaction that aged out of the pool before: its
// fee did not get it mined in three days (a week for one a popped block brought
// back), and monerod does not take it again (tx_memory_pool::add_tx, a
// verification failure: a peer relaying it is dropped).
var ErrTimedOut = &consensus.TxError{Rule: consensus.RuleTimedOut, Err: errors.New("txpool: timed out of the pool before")}

// OnAdd registers fn to be called (outside the pool's lock) with every
// transaction that enters the pool.
func (p *Pool) OnAdd(fn func(*Entry)) {
	p.mu.Lock()
	p.listeners = append(p.listeners, fn)
	p.unlock()
}

// OnBroadcast registers fn to be called (outside the pool's lock) when a
// pool transaction becomes Broadcasted after it entered the pool: fluffed
// by this node, at once or when its Dandelion++ embargo ran out, or seen
// fluffed while in its stem phase (tx_memory_pool::set_relayed's
// just_broadcasted).
func (p *Pool) OnBroadcast(fn func(*Entry)) {
	p.mu.Lock()
	p.broadcasters = append(p.broadcasters, fn)
	p.unlock()
}

// AddOptions qualify an Add.
type AddOptions struct {
	Source     Source
	DoNotRelay bool
	Stem       bool // SourceP2P: it came on a Dandelion++ stem
	loading    bool // Load: no listeners (nothing is relayed again)
}

// Add parses, verifies and stores a transaction blob. It returns the
// entry, or ErrAlreadyInPool with the entry already there, or
// ErrAlreadyInChain (nothing changed), or a refusal: a *consensus.TxError when a rule failed, another error when the
// blob does not parse.
func (p *Pool) Add(blob []byte, opts AddOptions) (*Entry, error) {
	if len(blob) > consensus.MaxTxSize {
		return nil, p.refused(&consensus.TxError{Rule: consensus.RuleTxTooBig, Flags: consensus.FlagTooBig,
			Err: fmt.Errorf("%d bytes, at most %d", len(blob), consensus.MaxTxSize)})
	}
	tx, err := cryptonote.ParseTransaction(blob)
	if err != nil {
		return nil, p.refused(&consensus.TxError{Rule: consensus.RuleParse, Err: err})
	}
	return p.AddParsed(tx, blob, opts)
}

// AddParsed is Add for a transaction already parsed from blob.
//
// The expensive checks (range proofs, ring look-ups, signatures) run
// without the pool's lock, so that the pool's cheap reads (get_info's
// count, the pool's size and weight, its hashes) never wait on them, as
// they would behind monerod's m_transactions_lock. Under the lock Add
// first refuses what it can cheaply (already in the pool or the chain,
// timed out), notes which of the transaction's key images the pool spends
// and the pool's chain generation, and marks the id as being verified
// (a second Add of the same id waits for the first, so a transaction sent
// by many peers at once is verified once). It then verifies, and takes the
// lock again to insert. What may have changed meanwhile is checked again
// there: a chain change the pool followed (the verdict was against an
// older top) sends it round again, with the verified caches making the
// second pass cheap; a transaction that entered meanwhile and spends one
// of its key images makes it checked again under the lock, where the
// pool's own key-image rule refuses it first, as monerod, which adds
// transactions one at a time, would. After maxUnlockedPasses chain
// changes it is verified under the lock, so that it always ends.
func (p *Pool) AddParsed(tx *cryptonote.Transaction, blob []byte, opts AddOptions) (*Entry, error) {
	id := tx.ID()
	keptByBlock := opts.Source == SourceBlock
	kis := keyImagesOf(tx)
	for pass := 0; ; pass++ {
		p.mu.Lock()
		if e, err, done := p.admissible(id, keptByBlock); done {
			p.unlock()
			return e, err
		}
		if ch, busy := p.verifying[id]; busy {
			p.unlock()
			<-ch
			pass--
			continue
		}
		if pass >= maxUnlockedPasses {
			fee, weight, err := p.v.CheckPoolTx(tx, id, blob, keptByBlock, p.inPool)
			return p.finishAdd(tx, id, blob, opts, fee, weight, err)
		}
		gen := p.gen
		spent := map[cryptonote.Key]bool{}
		for _, ki := range kis {
			if _, ok := p.keyImages[ki]; ok {
				spent[ki] = true
			}
		}
		done := make(chan struct{})
		if p.verifying == nil {
			p.verifying = map[cryptonote.Hash]chan struct{}{}
		}
		p.verifying[id] = done
		p.unlock()

		fee, weight, err := p.verifyOutside(tx, id, blob, keptByBlock, spent, done)

		p.mu.Lock()
		delete(p.verifying, id)
		close(done)
		if p.gen != gen {
			p.unlock()
			continue
		}
		if err == nil && slices.ContainsFunc(kis, p.inPool) {
			fee, weight, err = p.v.CheckPoolTx(tx, id, blob, keptByBlock, p.inPool)
		}
		return p.finishAdd(tx, id, blob, opts, fee, weight, err)
	}
}

// verifyOutside runs CheckPoolTx without mu, in one of the verification
// slots, spent standing for the pool's key images. A verifier that panics
// leaves the pool as it found it: the id no longer being verified (its
// waiters go on) and the slot free.
func (p *Pool) verifyOutside(tx *cryptonote.Transaction, id cryptonote.Hash, blob []byte, keptByBlock bool, spent map[cryptonote.Key]bool, done chan struct{}) (fee, weight uint64, err error) {
	p.verifySlots <- struct{}{}
	defer func() {
		<-p.verifySlots
		if r := recover(); r != nil {
			p.mu.Lock()
			delete(p.verifying, id)
			close(done)
			p.unlock()
			panic(r)
		}
	}()
	return p.v.CheckPoolTx(tx, id, blob, keptByBlock, func(ki cryptonote.Key) bool { return spent[ki] })
}

// maxUnlockedPasses bounds the verifications outside the pool's lock that
// a chain change can send round again (a block every few seconds at most:
// more than one is rare).
const maxUnlockedPasses = 3

// keyImagesOf lists the key images a transaction spends.
func keyImagesOf(tx *cryptonote.Transaction) []cryptonote.Key {
	var kis []cryptonote.Key
	for _, in := range tx.Inputs {
		if k, ok := in.(cryptonote.TxInToKey); ok {
			kis = append(kis, k.KeyImage)
		}
	}
	return kis
}

// inPool reports a key image a pool transaction spends; mu held.
func (p *Pool) inPool(ki cryptonote.Key) bool {
	_, ok := p.keyImages[ki]
	return ok
}

// admissible is the cheap part of an Add, mu held: done when the
// transaction is refused (or already held) without verification.
func (p *Pool) admissible(id cryptonote.Hash, keptByBlock bool) (*Entry, error, bool) {
	if e, ok := p.txs[id]; ok {
		p.observe(ErrAlreadyInPool)
		return e, ErrAlreadyInPool, true
	}
	if p.v.HasTx(id) {
		p.observe(ErrAlreadyInChain)
		return nil, ErrAlreadyInChain, true
	}
	if _, ok := p.timedOut.Get(id); ok && !keptByBlock {
		p.observe(ErrTimedOut)
		return nil, ErrTimedOut, true
	}
	return nil, nil, false
}

// finishAdd ends an Add with its verdict, mu held: a refusal is recorded
// (and flags the pool transactions it would double-spend), a transaction
// that passed enters the pool. It releases mu and tells the listeners.
func (p *Pool) finishAdd(tx *cryptonote.Transaction, id cryptonote.Hash, blob []byte, opts AddOptions, fee, weight uint64, err error) (*Entry, error) {
	keptByBlock := opts.Source == SourceBlock
	if err != nil {
		if consensus.FlagsOf(err)&consensus.FlagDoubleSpend != 0 {
			p.markDoubleSpend(tx)
		}
		p.observe(err)
		p.unlock()
		return nil, err
	}
	p.observe(nil)
	e := &Entry{ID: id, Tx: tx, Blob: append([]byte(nil), blob...), Fee: fee, Weight: weight,
		Received: p.now(), Source: opts.Source, DoNotRelay: opts.DoNotRelay, KeptByBlock: keptByBlock,
		ArrivedOnStem: opts.Stem,
		// One loaded back at start-up was relayed before, or never will be.
		Broadcasted: keptByBlock || (opts.Source == SourceP2P && !opts.Stem) || (opts.loading && !opts.DoNotRelay)}
	p.insert(e)
	p.changes.trackAdded(id, e.Received.Unix())
	p.expire()
	// Pruning runs after each transaction added (tx_memory_pool::add_tx),
	// not while the stored pool is loaded back (tx_memory_pool::init):
	// a pool over a lowered limit shrinks at the next addition.
	if !opts.loading {
		p.prune()
	}
	_, kept := p.txs[id]
	listeners := slices.Clone(p.listeners)
	p.unlock()
	if kept && !opts.loading {
		for _, fn := range listeners {
			fn(e)
		}
	}
	return e, nil
}

// markDoubleSpend flags every pool transaction spending one of tx's key
// images (tx_memory_pool::mark_double_spend, called when a transaction is
// refused for spending key images the pool already spends).
func (p *Pool) markDoubleSpend(tx *cryptonote.Transaction) {
	for _, in := range tx.Inputs {
		if k, ok := in.(cryptonote.TxInToKey); ok {
			if id, ok := p.keyImages[k.KeyImage]; ok {
				p.txs[id].DoubleSpendSeen = true
			}
		}
	}
}

func (p *Pool) insert(e *Entry) {
	if p.store != nil {
		rec := chaindb.PoolTxRecord{Hash: e.ID, Blob: e.Blob, Received: uint64(e.Received.Unix()),
			DoNotRelay: e.DoNotRelay, KeptByBlock: e.KeptByBlock}
		if err := p.store.PutPoolTx(rec); err != nil {
			slog.Warn("txpool: storing a transaction", "tx", e.ID, "err", err)
		}
	}
	e.sortTime = e.Received.Unix()
	p.txs[e.ID] = e
	p.weight += e.Weight
	p.bytes += uint64(len(e.Blob))
	for _, in := range e.Tx.Inputs {
		if k, ok := in.(cryptonote.TxInToKey); ok {
			p.keyImages[k.KeyImage] = e.ID
		}
	}
}

// remove takes e out of the pool and its store, and records the removal.
func (p *Pool) remove(e *Entry) {
	p.removed = append(p.removed, e.ID)
	p.detach(e)
	p.changes.trackRemoved(e.ID, !e.public(), p.now().Unix())
}

// detach takes e out of the pool's maps.
func (p *Pool) detach(e *Entry) {
	delete(p.txs, e.ID)
	p.weight -= e.Weight
	p.bytes -= uint64(len(e.Blob))
	for _, in := range e.Tx.Inputs {
		if k, ok := in.(cryptonote.TxInToKey); ok && p.keyImages[k.KeyImage] == e.ID {
			delete(p.keyImages, k.KeyImage)
		}
	}
}

// unlock deletes the entries removed under mu from the store, then
// releases mu. Every method that may remove entries ends with it.
func (p *Pool) unlock() {
	if len(p.removed) > 0 && p.store != nil {
		if err := p.store.DeletePoolTxs(p.removed...); err != nil {
			slog.Warn("txpool: deleting transactions from the store", "count", len(p.removed), "err", err)
		}
	}
	p.removed = p.removed[:0]
	p.mu.Unlock()
}

// expire drops the entries older than their lifetime (monerod's
// remove_stuck_transactions, which runs on its idle loop).
func (p *Pool) expire() {
	now := p.now()
	for _, e := range p.txs {
		live := Livetime
		if e.KeptByBlock {
			live = FromBlockLive
		}
		if now.Sub(e.Received) > live {
			p.remove(e)
			p.timedOut.Put(e.ID, struct{}{})
		}
	}
}

// prune keeps the pool within its weight limit as tx_memory_pool::prune
// does: while the pool weighs more than the limit it drops the entries
// paying the least per weight (among equals the later received, then the
// greater id), from the worst up. It never drops the best entry (monerod's
// loop stops at the front of its ordered set), nor one kept by block (it
// came back from a popped block and is likely to be mined again); whether
// an entry was relayed does not matter.
func (p *Pool) prune() {
	if p.weight <= p.maxWeight {
		return
	}
	entries := p.sorted()
	for i := len(entries) - 1; i >= 1 && p.weight > p.maxWeight; i-- {
		if entries[i].KeptByBlock {
			continue
		}
		p.remove(entries[i])
	}
}

// sorted returns the entries by fee per weight, best first, older first
// among equals (in whole seconds), then by id bytes (monerod's
// m_txs_by_fee_and_receive_time, whose txCompare this is).
func (p *Pool) sorted() []*Entry {
	entries := make([]*Entry, 0, len(p.txs))
	for _, e := range p.txs {
		entries = append(entries, e)
	}
	slices.SortFunc(entries, func(a, b *Entry) int {
		if c := cmp.Compare(b.feePerWeight(), a.feePerWeight()); c != 0 {
			return c
		}
		if c := cmp.Compare(a.sortTime, b.sortTime); c != 0 {
			return c
		}
		return slices.Compare(a.ID[:], b.ID[:])
	})
	return entries
}

// Get returns a pool transaction.
func (p *Pool) Get(id cryptonote.Hash) (*Entry, bool) {
	p.mu.Lock()
	defer p.unlock()
	e, ok := p.txs[id]
	return e, ok
}

// Has reports a pool transaction.
func (p *Pool) Has(id cryptonote.Hash) bool {
	_, ok := p.Get(id)
	return ok
}

// KeyImageInPool reports whether a pool transaction spends ki.
func (p *Pool) KeyImageInPool(ki cryptonote.Key) bool {
	p.mu.Lock()
	defer p.unlock()
	_, ok := p.keyImages[ki]
	return ok
}

// Len is the number of transactions in the pool.
func (p *Pool) Len() int {
	p.mu.Lock()
	defer p.unlock()
	return len(p.txs)
}

// Weight is the pool's total transaction weight.
func (p *Pool) Weight() uint64 {
	p.mu.Lock()
	defer p.unlock()
	return p.weight
}

// Stats are the pool's size in transactions and in bytes (the blobs'
// sizes), read together.
func (p *Pool) Stats() (count int, bytes uint64) {
	p.mu.Lock()
	defer p.unlock()
	return len(p.txs), p.bytes
}

// observe reports an Add's outcome to the observer, if any.
func (p *Pool) observe(err error) {
	if p.observer != nil {
		p.observer.TxChecked(err)
	}
}

// refused reports a refusal found before the pool's lock is taken.
func (p *Pool) refused(err error) error {
	if p.observer != nil {
		p.observer.TxChecked(err)
	}
	return err
}

// Entries returns every pool transaction, best fee per weight first.
func (p *Pool) Entries() []*Entry {
	p.mu.Lock()
	defer p.unlock()
	return p.sorted()
}

// Snapshot returns a copy of every pool entry, taken under the pool's lock
// (the entries Entries returns are shared and their relay state changes).
func (p *Pool) Snapshot() []Entry {
	p.mu.Lock()
	defer p.unlock()
	out := make([]Entry, 0, len(p.txs))
	for _, e := range p.txs {
		out = append(out, *e)
	}
	return out
}

// Hashes returns the ids of every pool transaction, best fee per weight first.
func (p *Pool) Hashes() []cryptonote.Hash {
	entries := p.Entries()
	ids := make([]cryptonote.Hash, len(entries))
	for i, e := range entries {
		ids[i] = e.ID
	}
	return ids
}

// BlockAdded removes the transactions a new main-chain block includes and
// every other pool transaction spending a key image the block spent.
func (p *Pool) BlockAdded(txs []*cryptonote.Transaction, ids []cryptonote.Hash) {
	p.mu.Lock()
	defer p.unlock()
	p.gen++
	for _, id := range ids {
		if e, ok := p.txs[id]; ok {
			p.remove(e)
		}
	}
	for _, tx := range txs {
		for _, in := range tx.Inputs {
			k, ok := in.(cryptonote.TxInToKey)
			if !ok {
				continue
			}
			if id, ok := p.keyImages[k.KeyImage]; ok {
				p.remove(p.txs[id])
			}
		}
	}
}

// Revalidate checks every pool transaction again against the chain (after
// a reorganisation) and drops those that no longer pass.
func (p *Pool) Revalidate() (dropped int) {
	p.mu.Lock()
	defer p.unlock()
	p.gen++
	for _, e := range p.sorted() {
		p.detach(e)
		if p.v.HasTx(e.ID) {
			p.dropDetached(e)
			dropped++
			continue
		}
		if _, _, err := p.v.CheckPoolTx(e.Tx, e.ID, e.Blob, true, func(ki cryptonote.Key) bool {
			_, ok := p.keyImages[ki]
			return ok
		}); err != nil {
			p.dropDetached(e)
			dropped++
			continue
		}
		p.insert(e)
	}
	return dropped
}

// dropDetached finishes removing an entry detach took out of the maps:
// from the store, and into the record of removals.
func (p *Pool) dropDetached(e *Entry) {
	p.removed = append(p.removed, e.ID)
	p.changes.trackRemoved(e.ID, !e.public(), p.now().Unix())
}

// Select picks transactions for a block template: best fee per weight
// first, each checked again against the chain (a transaction whose inputs
// no longer pass is dropped from the pool), until maxWeight is reached.
func (p *Pool) Select(maxWeight uint64) []*Entry {
	p.mu.Lock()
	defer p.unlock()
	var picked []*Entry
	var total uint64
	used := map[cryptonote.Key]bool{}
	for _, e := range p.sorted() {
		if total+e.Weight > maxWeight {
			continue
		}
		if p.v.HasTx(e.ID) {
			p.remove(e)
			continue
		}
		if _, _, err := p.v.CheckPoolTx(e.Tx, e.ID, e.Blob, true, func(ki cryptonote.Key) bool { return used[ki] }); err != nil {
			p.remove(e)
			continue
		}
		for _, in := range e.Tx.Inputs {
			used[in.(cryptonote.TxInToKey).KeyImage] = true
		}
		picked = append(picked, e)
		total += e.Weight
	}
	return picked
}

// MarkRelayed records that an entry was fluffed: announced to every peer
// (which ends a Dandelion++ stem phase).
func (p *Pool) MarkRelayed(id cryptonote.Hash) {
	p.mu.Lock()
	e, ok := p.txs[id]
	if ok {
		wasPublic := e.public()
		e.Relayed, e.LastRelayed = true, p.now()
		e.Stem, e.EmbargoUntil = false, time.Time{}
		p.trackPublic(e, wasPublic)
	}
	p.broadcast(e)
}

// broadcast makes the entries Broadcasted and releases the lock, then
// tells the broadcasters about those that were not (nil entries are
// skipped).
func (p *Pool) broadcast(entries ...*Entry) {
	var news []*Entry
	for _, e := range entries {
		if e != nil && !e.Broadcasted {
			e.Broadcasted = true
			news = append(news, e)
		}
	}
	fns := slices.Clone(p.broadcasters)
	p.unlock()
	for _, e := range news {
		for _, fn := range fns {
			fn(e)
		}
	}
}

// MarkStem records that an entry went to one peer in the Dandelion++ stem
// phase, and that this node fluffs it itself from embargoUntil on
// (tx_memory_pool::set_relayed with relay_method::stem). An entry already
// fluffed stays so: the relay state only moves forward.
func (p *Pool) MarkStem(id cryptonote.Hash, embargoUntil time.Time) {
	p.mu.Lock()
	defer p.unlock()
	if e, ok := p.txs[id]; ok && (e.Stem || !e.Relayed) {
		e.Relayed, e.LastRelayed = true, p.now()
		e.Stem, e.EmbargoUntil = true, embargoUntil
	}
}

// StemPhase reports whether the pool holds id, and whether it is in its
// Dandelion++ stem phase.
func (p *Pool) StemPhase(id cryptonote.Hash) (inPool, stem bool) {
	p.mu.Lock()
	defer p.unlock()
	e, ok := p.txs[id]
	return ok, ok && e.Stem
}

// EmbargoExpired returns the entries whose stem-phase embargo has run out,
// marked fluffed: the caller announces them to every peer
// (get_relayable_transactions for relay_method::stem).
func (p *Pool) EmbargoExpired() []*Entry {
	p.mu.Lock()
	now := p.now()
	var out []*Entry
	for _, e := range p.sorted() {
		if e.Stem && !now.Before(e.EmbargoUntil) {
			wasPublic := e.public()
			e.Relayed, e.LastRelayed = true, now
			e.Stem, e.EmbargoUntil = false, time.Time{}
			p.trackPublic(e, wasPublic)
			out = append(out, e)
		}
	}
	p.broadcast(out...)
	return out
}

// Public returns the pool transaction id if every peer may know this node
// has it (monerod's relay_category::broadcasted): neither do-not-relay nor
// in a stem phase.
func (p *Pool) Public(id cryptonote.Hash) (*Entry, bool) {
	p.mu.Lock()
	defer p.unlock()
	e, ok := p.txs[id]
	if !ok || e.DoNotRelay || e.Stem {
		return nil, false
	}
	return e, true
}

// PublicEntries returns the transactions Public reports, best fee per
// weight first.
func (p *Pool) PublicEntries() []*Entry {
	p.mu.Lock()
	defer p.unlock()
	var out []*Entry
	for _, e := range p.sorted() {
		if !e.DoNotRelay && !e.Stem {
			out = append(out, e)
		}
	}
	return out
}

// OnRelay registers fn to be called (outside the pool's lock) when Relay
// asks for a pool transaction to be relayed again.
func (p *Pool) OnRelay(fn func(e *Entry, fluff bool)) {
	p.mu.Lock()
	p.relayers = append(p.relayers, fn)
	p.unlock()
}

// Relay asks for a pool transaction to be relayed (relay_tx): a public one
// is fluffed again; with allowPrivate, one kept back (do_not_relay) or in
// its stem phase is released and relayed as a local transaction is. It
// reports whether the pool holds such a transaction.
func (p *Pool) Relay(id cryptonote.Hash, allowPrivate bool) bool {
	p.mu.Lock()
	e, ok := p.txs[id]
	public := ok && !e.DoNotRelay && !e.Stem
	if !ok || (!public && !allowPrivate) {
		p.unlock()
		return false
	}
	if e.DoNotRelay && p.store != nil {
		rec := chaindb.PoolTxRecord{Hash: e.ID, Blob: e.Blob, Received: uint64(e.Received.Unix()), KeptByBlock: e.KeptByBlock}
		if err := p.store.PutPoolTx(rec); err != nil {
			slog.Warn("txpool: storing a transaction", "tx", e.ID, "err", err)
		}
	}
	wasPublic := e.public()
	e.DoNotRelay = false
	p.trackPublic(e, wasPublic)
	relayers := slices.Clone(p.relayers)
	p.unlock()
	for _, fn := range relayers {
		fn(e, public)
	}
	return true
}

// Remove takes transactions out of the pool (flush_txpool); ids the pool
// does not hold are ignored.
func (p *Pool) Remove(ids []cryptonote.Hash) {
	p.mu.Lock()
	defer p.unlock()
	for _, id := range ids {
		if e, ok := p.txs[id]; ok {
			p.remove(e)
		}
	}
}

// Load adds the stored entries back (at start-up), each verified again
// against the chain as it is now; those that no longer pass are dropped
// from the store. It returns how many were kept.
func (p *Pool) Load(records []chaindb.PoolTxRecord) (kept int) {
	var gone []cryptonote.Hash
	for _, rec := range records {
		tx, err := cryptonote.ParseTransaction(rec.Blob)
		if err != nil || tx.ID() != rec.Hash {
			gone = append(gone, rec.Hash)
			continue
		}
		src := SourceRPC
		if rec.KeptByBlock {
			src = SourceBlock
		}
		e, err := p.AddParsed(tx, rec.Blob, AddOptions{Source: src, DoNotRelay: rec.DoNotRelay, loading: true})
		if err != nil {
			gone = append(gone, rec.Hash)
			continue
		}
		p.mu.Lock()
		e.Received = time.Unix(int64(rec.Received), 0)
		e.sortTime = e.Received.Unix()
		e.Relayed = true // it was handed on before the restart, or never will be
		e.reloaded = true
		p.unlock()
		kept++
	}
	if len(gone) > 0 && p.store != nil {
		if err := p.store.DeletePoolTxs(gone...); err != nil {
			slog.Warn("txpool: deleting stale transactions from the store", "count", len(gone), "err", err)
		}
	}
	return kept
}
