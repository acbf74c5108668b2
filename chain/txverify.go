package chain

import (
	"errors"
	"fmt"
	"runtime"
	"sync"

	"github.com/gonero/gonero/chaindb"
	"github.com/gonero/gonero/consensus"
	"github.com/gonero/gonero/crypto"
	"github.com/gonero/gonero/cryptonote"
	"github.com/gonero/gonero/internal/boundedcache"
	"github.com/gonero/gonero/params"
)

// ErrKeyImageTwiceInBlock: two transactions of one block spend the same key
// image (monerod's KEY_IMAGE_EXISTS while adding the block).
var ErrKeyImageTwiceInBlock = errors.New("key image spent twice in one block")

// storeState is consensus.TxChainState over a store snapshot: the main
// chain as the reader sees it.
type storeState struct{ r *chaindb.Reader }

func (s storeState) NumOutputs(amount uint64) (uint64, error) { return s.r.OutputCount(amount) }

func (s storeState) KeyImageSpent(ki cryptonote.Key) (bool, error) {
	_, spent, err := s.r.KeyImageSpent(ki)
	return spent, err
}

func (s storeState) Outputs(amount uint64, indexes []uint64) ([]consensus.RingOutput, error) {
	out := make([]consensus.RingOutput, len(indexes))
	err := s.r.EachRingMember(len(indexes), func(i int) (uint64, uint64) { return amount, indexes[i] },
		func(i int, e *chaindb.OutputEntry) error {
			out[i] = consensus.RingOutput{Key: e.Key, Commitment: e.Commitment, UnlockTime: e.UnlockTime, Height: e.Height}
			return nil
		})
	if err != nil {
		if isNotFound(err) {
			return nil, fmt.Errorf("%w: %v", consensus.ErrOutputNotFound, err)
		}
		return nil, err
	}
	return out, nil
}

// txCheck is one transaction of a block on its way through the rules.
type txCheck struct {
	id     cryptonote.Hash
	tx     *cryptonote.Transaction
	blob   []byte
	weight uint64
	fee    uint64
	rings  [][]consensus.RingOutput
}

// grandfathered reports the two MLSAG transactions mainnet admits late.
func grandfathered(net params.Network, id cryptonote.Hash) bool {
	return net == params.Mainnet && consensus.IsGrandfatheredMLSAG(id)
}

// checkTxNonInput applies the rules a transaction of a block passes before
// its inputs (ver_non_input_consensus but for the RingCT semantics, which
// the caller batches), and sets its fee and weight.
func (c *Chain) checkTxNonInput(t *txCheck, hf uint8) error {
	if err := consensus.CheckTxPre(t.tx, len(t.blob), hf); err != nil {
		return err
	}
	t.weight = t.tx.Weight(len(t.blob))
	if err := consensus.CheckTxWeight(t.weight, hf); err != nil {
		return err
	}
	if err := consensus.CheckTxSemantic(t.tx, hf); err != nil {
		return err
	}
	if err := consensus.CheckTxOutputs(t.tx, hf, grandfathered(c.cfg.Network, t.id)); err != nil {
		return err
	}
	fee, err := consensus.CheckTxPoolEntry(t.tx, consensus.PoolEntry{Weight: t.weight, KeptByBlock: true})
	if err != nil {
		return err
	}
	t.fee = fee
	return nil
}

// rctSemantics runs the RingCT semantics (sizes, balance, range proofs) of
// the transactions not verified before, range proofs as one batch, and
// remembers those that pass.
func (c *Chain) rctSemantics(checks []*txCheck) error {
	var todo []*cryptonote.Transaction
	var ids []cryptonote.Hash
	for _, t := range checks {
		if t.tx.Version < 2 || c.verified.rctKnown(t.id) {
			continue
		}
		todo = append(todo, t.tx)
		ids = append(ids, t.id)
	}
	if len(todo) == 0 {
		return nil
	}
	errs := consensus.CheckRctSemantics(todo)
	for i, err := range errs {
		if err != nil {
			c.logPanic(ids[i], err)
			return fmt.Errorf("transaction %s: %w", ids[i], err)
		}
	}
	for _, id := range ids {
		c.verified.rememberRct(id)
	}
	return nil
}

// inputContext is the InputContext for the block after the view's top.
func (c *Chain) inputContext(r *chaindb.Reader, v *chainView, hf uint8) *consensus.InputContext {
	now := uint64(c.cfg.Now().Unix())
	if hf >= consensus.VersionDeterministicUT {
		now = consensus.AdjustedTime(v.timestamps(adjustedTimeRange(v.height)), now)
	}
	return &consensus.InputContext{HF: hf, Height: v.height, Now: now, State: storeState{r}}
}

// adjustedTimeRange is the heights get_adjusted_time reads: the last 60.
func adjustedTimeRange(height uint64) (first, end uint64) {
	if height < consensus.TimestampCheckWindow {
		return height, height
	}
	return height - consensus.TimestampCheckWindow, height
}

// checkInputs is check_tx_inputs for every transaction of a block against
// the chain before it (earlier transactions of the block are not visible),
// then the key-image uniqueness across the block, then the signatures of
// all transactions on every core.
func (c *Chain) checkInputs(ctx *consensus.InputContext, checks []*txCheck) error {
	for _, t := range checks {
		rings, err := consensus.CheckTxInputs(t.tx, ctx)
		if err != nil {
			return fmt.Errorf("transaction %s: %w", t.id, err)
		}
		t.rings = rings
	}
	seen := map[cryptonote.Key]cryptonote.Hash{}
	for _, t := range checks {
		for _, in := range t.tx.Inputs {
			ki := in.(cryptonote.TxInToKey).KeyImage
			if other, dup := seen[ki]; dup {
				return fmt.Errorf("%w: key image %s in transactions %s and %s", ErrKeyImageTwiceInBlock, ki, other, t.id)
			}
			seen[ki] = t.id
		}
	}
	if c.deferred != nil {
		c.deferred.submit(checks)
		return nil
	}
	return c.verifySignatures(checks)
}

// verifySignatures checks every transaction's ring signatures, in parallel
// across transactions, skipping those verified before with the same rings,
// and returns the error of the first transaction (in block order) that
// fails.
func (c *Chain) verifySignatures(checks []*txCheck) error {
	for i, err := range c.checkSignatures(checks) {
		if err != nil {
			return fmt.Errorf("transaction %s: %w", checks[i].id, err)
		}
	}
	return nil
}

// checkSignatures verifies the signatures of every transaction over its
// rings (t.rings) on a worker pool, remembers each that passes, and returns
// one error per transaction. A verifier that panics refuses the
// transaction it was checking (consensus.Recovered), logged once here; the
// worker goes on with the others.
func (c *Chain) checkSignatures(checks []*txCheck) []error {
	errs := make([]error, len(checks))
	keys := make([][32]byte, len(checks))
	var todo []int
	for i, t := range checks {
		keys[i] = sigCacheKey(t.id, t.rings)
		if !c.verified.sigKnown(keys[i]) {
			todo = append(todo, i)
		}
	}
	if len(todo) == 0 {
		return errs
	}
	workers := min(runtime.GOMAXPROCS(0), len(todo))
	var wg sync.WaitGroup
	next := make(chan int)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				errs[i] = c.verifyTx(checks[i])
				if errs[i] == nil {
					c.verified.rememberSig(keys[i])
				}
				c.logPanic(checks[i].id, errs[i])
			}
		}()
	}
	for _, i := range todo {
		next <- i
	}
	close(next)
	wg.Wait()
	return errs
}

// verifyTx checks one transaction's signatures, a panic being its refusal.
func (c *Chain) verifyTx(t *txCheck) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = consensus.Recovered(r)
		}
	}()
	return c.cfg.verifySignatures(t.tx, t.rings)
}

// logPanic logs, with its stack, a verifier's panic that refused the
// transaction id (err from the verifying pools; anything else is not
// logged here).
func (c *Chain) logPanic(id cryptonote.Hash, err error) {
	if pe := consensus.PanicOf(err); pe != nil {
		c.cfg.Logger.Error("a verifier panicked: transaction refused", "tx", id, "panic", pe.Value, "stack", string(pe.Stack))
	}
}

// Preverify runs ahead of AddBlock the expensive checks of a block's
// transactions that depend on the transactions alone, and remembers those
// that pass in the verified cache, so that adding the block skips them: the
// RingCT semantics (range proofs as one batch) and, for transactions whose
// ring members the store already holds, the signatures over those rings.
// Only transactions that pass the non-input rules get that far, as in the
// block's own check. It never changes a verdict: a transaction that fails
// here, or whose rings cannot be read yet, is not remembered and is checked
// again when its block is added, where an error names the block and the
// rule. The importer calls it for the blocks after the one being added
// (their ring members are at least TxSpendableAge blocks older). Safe to
// call concurrently with AddBlock.
func (c *Chain) Preverify(blk *cryptonote.Block, txs []*cryptonote.Transaction, txBlobs [][]byte) {
	if len(txBlobs) != len(txs) {
		return
	}
	var checks []*txCheck
	for i, tx := range txs {
		t := &txCheck{id: tx.ID(), tx: tx, blob: txBlobs[i]}
		if c.checkTxNonInput(t, blk.MajorVersion) == nil {
			checks = append(checks, t)
		}
	}
	// The range proofs (one batch, one core) run beside the signatures (a
	// worker pool): a signature that verifies is valid whatever the proofs.
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		var todo []*cryptonote.Transaction
		var ids []cryptonote.Hash
		for _, t := range checks {
			if t.tx.Version >= 2 && !c.verified.rctKnown(t.id) {
				todo = append(todo, t.tx)
				ids = append(ids, t.id)
			}
		}
		if len(todo) == 0 {
			return
		}
		for i, err := range consensus.CheckRctSemantics(todo) {
			if err == nil {
				c.verified.rememberRct(ids[i])
			}
			c.logPanic(ids[i], err)
		}
	}()
	defer wg.Wait()
	var withRings []*txCheck
	_ = c.store.View(func(r *chaindb.Reader) error {
		st := storeState{r}
		for _, t := range checks {
			rings, err := consensus.ResolveRings(t.tx, st)
			if err != nil {
				continue
			}
			t.rings = rings
			withRings = append(withRings, t)
		}
		return nil
	})
	c.checkSignatures(withRings)
}

// sigCacheKey names a transaction's signatures over one set of rings, as
// monerod's ver_rct_non_semantics_simple_cached keys them: a hash of the id
// and every ring member's key and commitment.
func sigCacheKey(id cryptonote.Hash, rings [][]consensus.RingOutput) [32]byte {
	buf := make([]byte, 0, 32+64*16*len(rings))
	buf = append(buf, "txhash_and_mixring"...)
	buf = append(buf, id[:]...)
	for _, ring := range rings {
		for _, m := range ring {
			buf = append(buf, m.Key[:]...)
			buf = append(buf, m.Commitment[:]...)
		}
	}
	return crypto.Keccak256(buf)
}

// verifiedCache remembers transactions that passed the expensive checks, so
// that a transaction verified in the pool is not verified again when its
// block arrives: the ids whose RingCT semantics passed, and the signature
// keys (sigCacheKey) whose signatures did. Each set holds
// verifiedCacheSize entries, arbitrary ones leaving when it is full (a
// transaction is looked up once more, when its block comes, so which of
// the old ones goes matters little).
type verifiedCache struct {
	rct  *boundedcache.Cache[cryptonote.Hash, struct{}]
	sigs *boundedcache.Cache[[32]byte, struct{}]
}

const verifiedCacheSize = 8192 // monerod's RCT_VER_CACHE_SIZE

func newVerifiedCache() verifiedCache {
	return verifiedCache{rct: boundedcache.New[cryptonote.Hash, struct{}](verifiedCacheSize, 0, nil),
		sigs: boundedcache.New[[32]byte, struct{}](verifiedCacheSize, 0, nil)}
}

// reset forgets everything (for benchmarks).
func (v *verifiedCache) reset() {
	v.rct.Clear()
	v.sigs.Clear()
}

func (v *verifiedCache) rctKnown(id cryptonote.Hash) bool {
	_, ok := v.rct.Get(id)
	return ok
}

func (v *verifiedCache) rememberRct(id cryptonote.Hash) { v.rct.Put(id, struct{}{}) }

func (v *verifiedCache) sigKnown(k [32]byte) bool {
	_, ok := v.sigs.Get(k)
	return ok
}

func (v *verifiedCache) rememberSig(k [32]byte) { v.sigs.Put(k, struct{}{}) }

// CheckPoolTx verifies a transaction for the pool against the main chain's
// top, in the order monerod 0.18.5.3 applies the rules (tx_memory_pool::add_tx
// since 0.18.5.2, monero-project/monero PR #11304): first the pool's entry
// rules, whose refusals are no offence of the relaying peer (fee, tx extra
// size, unlock time, the pool's key images through inPool), then the size,
// version, weight, semantics, outputs and RingCT semantics (range proofs,
// balance) of ver_non_input_consensus, the inputs and signatures. So a
// version-1 transaction whose outputs match its inputs (or exceed them) is
// refused fee_too_low, not overspend or invalid_output. keptByBlock is set
// for a transaction coming back from a popped block (none of the pool's
// entry rules). It returns the fee and weight; a refusal is a
// *consensus.TxError whose flags are those monerod's pool reports (every
// input failure also sets invalid_input). A refusal costs the checks up to
// the first that fails.
//
// It never takes the writer's lock, and holds no store snapshot while the
// expensive checks run: a long read transaction would hold back a commit
// that grows the store's map, and every reader queued behind it. One
// snapshot gives the height (the hard fork of the checks), the range proofs
// run outside it, a second snapshot reads the inputs and rings (it goes
// round again if the hard fork changed in between, so the checks always
// agree with the fork of the rings), and the signatures are verified over
// those rings outside any snapshot.
func (c *Chain) CheckPoolTx(tx *cryptonote.Transaction, id cryptonote.Hash, blob []byte, keptByBlock bool, inPool func(cryptonote.Key) bool) (fee, weight uint64, err error) {
	weight = tx.Weight(len(blob))
	var height uint64
	if err := c.store.View(func(r *chaindb.Reader) (err error) {
		height, err = r.Height()
		return err
	}); err != nil {
		return 0, weight, err
	}
	for {
		// Right after a commit the published facts can be one block
		// behind the store until the writer publishes; they only set the
		// fee's median and reward and the clock of time locks, which one
		// block barely moves.
		facts := c.state.Load()
		hf := c.cfg.Network.VersionAt(height)
		t := &txCheck{id: id, tx: tx, blob: blob, weight: weight}
		if fee, err = c.checkPoolTxNonInput(t, hf, facts, keptByBlock, inPool); err != nil {
			return fee, weight, err
		}
		ctx := &consensus.InputContext{HF: hf, Now: facts.AdjustedTime(c.cfg.Now())}
		if hf < consensus.VersionDeterministicUT {
			ctx.Now = uint64(c.cfg.Now().Unix())
		}
		again := false
		err = c.store.View(func(r *chaindb.Reader) error {
			h, err := r.Height()
			if err != nil {
				return err
			}
			if c.cfg.Network.VersionAt(h) != hf {
				// A block of a new hard fork came meanwhile: the rules
				// before the inputs are those of the new one.
				height, again = h, true
				return nil
			}
			ctx.Height, ctx.State = h, storeState{r}
			t.rings, err = consensus.CheckTxInputs(tx, ctx)
			return err
		})
		if again {
			continue
		}
		if err == nil {
			err = errors.Unwrap(c.verifySignatures([]*txCheck{t}))
		}
		if err != nil {
			var te *consensus.TxError
			if errors.As(err, &te) {
				return fee, weight, &consensus.TxError{Rule: te.Rule, Flags: te.Flags | consensus.FlagInvalidInput, Err: te.Err}
			}
			return fee, weight, err
		}
		return fee, weight, nil
	}
}

// checkPoolTxNonInput is CheckPoolTx's rules before the inputs, which read
// no store: the pool's entry rules, then ver_non_input_consensus (the
// RingCT semantics last). It returns the fee.
func (c *Chain) checkPoolTxNonInput(t *txCheck, hf uint8, facts *NextBlock, keptByBlock bool, inPool func(cryptonote.Key) bool) (uint64, error) {
	limit := consensus.BlockWeightLimit(facts.EffectiveMedian)
	feeCtx := consensus.FeeContext{HF: hf, BlockWeightLimit: limit,
		LongTermEffective: facts.LongTermEffectiveMedian, AlreadyGenerated: facts.Top.GeneratedCoins}
	fee, err := consensus.CheckTxPoolEntry(t.tx, consensus.PoolEntry{Weight: t.weight, KeptByBlock: keptByBlock,
		FeeOK:          func(w, f uint64) bool { return consensus.CheckFee(w, f, feeCtx) },
		KeyImageInPool: inPool})
	if err != nil {
		return fee, err
	}
	if err := consensus.CheckTxPre(t.tx, len(t.blob), hf); err != nil {
		return fee, err
	}
	if err := consensus.CheckTxWeight(t.weight, hf); err != nil {
		return fee, err
	}
	if err := consensus.CheckTxSemantic(t.tx, hf); err != nil {
		return fee, err
	}
	if err := consensus.CheckTxOutputs(t.tx, hf, grandfathered(c.cfg.Network, t.id)); err != nil {
		return fee, err
	}
	if err := c.rctSemantics([]*txCheck{t}); err != nil {
		// invalid_input (ver_non_input_consensus rule 7).
		err = errors.Unwrap(err) // drop the "transaction <id>" prefix: the caller names it
		var te *consensus.TxError
		if errors.As(err, &te) {
			return fee, &consensus.TxError{Rule: te.Rule, Flags: te.Flags | consensus.FlagInvalidInput, Err: te.Err}
		}
		return fee, &consensus.TxError{Rule: consensus.RuleRctSemantics, Flags: consensus.FlagInvalidInput, Err: err}
	}
	return fee, nil
}

// HasTx reports a transaction on the main chain.
func (c *Chain) HasTx(id cryptonote.Hash) bool {
	found := false
	_ = c.store.View(func(r *chaindb.Reader) error {
		found = r.HasTx(id)
		return nil
	})
	return found
}

// MatureOutputs is get_num_mature_outputs: the outputs of an amount whose
// blocks are at least the spendable age deep (for the RPC's sanity check).
func (c *Chain) MatureOutputs(amount uint64) uint64 {
	var n uint64
	_ = c.store.View(func(r *chaindb.Reader) error {
		height, err := r.Height()
		if err != nil {
			return err
		}
		if n, err = r.OutputCount(amount); err != nil {
			return err
		}
		for n > 0 {
			o, err := r.Output(amount, n-1)
			if err != nil {
				return err
			}
			if o.Height+consensus.TxSpendableAge <= height {
				break
			}
			n--
		}
		return nil
	})
	return n
}
