package chain

import (
	"errors"
	"fmt"

	"github.com/gonero/gonero/chaindb"
	"github.com/gonero/gonero/consensus"
	"github.com/gonero/gonero/cryptonote"
	"github.com/gonero/gonero/internal/u128"
)

// ruleSet says which variant of the rules applies.
type ruleSet int

const (
	// mainRules are handle_block_to_main_chain's: for a block extending the
	// main chain, and for every block of an alternative chain when the
	// chain manager switches to it.
	mainRules ruleSet = iota
	// altRules are handle_alternative_block's, for a block stored as an
	// alternative: no future-timestamp limit, and the timestamp median is
	// taken even while the chain is short (see altTimestampRange).
	altRules
)

// check applies the consensus rules to a block that claims to extend the
// chain v, in monerod's order (Blockchain::handle_block_to_main_chain), and
// returns what to store. It reads the store through r but never writes it.
func (c *Chain) check(r *chaindb.Reader, v *chainView, rules ruleSet, blk *cryptonote.Block, blob []byte, txs []*cryptonote.Transaction, txBlobs [][]byte) (chaindb.BlockMeta, chaindb.BlockRecord, error) {
	height := v.height
	id, err := blk.ID()
	fail := func(rule BlockRule, err error) (chaindb.BlockMeta, chaindb.BlockRecord, error) {
		return chaindb.BlockMeta{}, chaindb.BlockRecord{}, &BlockError{Height: height, Hash: id, Rule: rule, Err: err}
	}
	if err != nil {
		return fail(RuleBlockID, fmt.Errorf("%w: %v", ErrBadBlockID, err))
	}
	if height > 0 && blk.PrevID != v.top.Hash {
		return fail(RulePrevious, fmt.Errorf("%w: prev_id %s, top %s at height %d", ErrPrevMismatch, blk.PrevID, v.top.Hash, v.top.Height))
	}
	if height == 0 && (blk.PrevID != cryptonote.Hash{} || id != c.cfg.Network.GenesisID()) {
		return fail(RuleGenesis, fmt.Errorf("%w: not %s's genesis block", ErrPrevMismatch, c.cfg.Network))
	}

	version := blk.MajorVersion
	if err := consensus.CheckVersion(blk.MajorVersion, blk.MinorVersion, c.cfg.Network.VersionAt(height)); err != nil {
		return fail(RuleHardForkVersion, err)
	}

	if rules == altRules {
		err = checkAltTimestamp(blk.Timestamp, v.timestamps(altTimestampRange(height)))
	} else {
		err = consensus.CheckTimestamp(blk.Timestamp, v.timestamps(consensus.TimestampCheckRange(height)), uint64(c.cfg.Now().Unix()))
	}
	if err != nil {
		return fail(RuleTimestamp, err)
	}

	difficulty := v.nextDifficulty(c.cfg.FixedDifficulty, version)
	if difficulty.IsZero() {
		return fail(RuleDifficulty, ErrDifficultyZero)
	}
	cumulative := difficulty
	if height > 0 {
		var over bool
		if cumulative, over = v.top.CumulativeDifficulty.Add(difficulty); over {
			return fail(RuleDifficulty, fmt.Errorf("cumulative difficulty overflows 128 bits"))
		}
	}
	// Inside the fast-sync area a block whose id the block-hash list proved
	// skips its proof of work and its transactions' inputs and signatures
	// (handle_block_to_main_chain's fast_check); a different id is invalid.
	// The alternative-block path never skips (handle_alternative_block).
	fast := false
	if rules == mainRules {
		if fast, err = c.fastCheck(height, id); err != nil {
			return fail(RuleBlockHashList, err)
		}
	} else if err := c.checkpoints.check(height, id); err != nil {
		return fail(RuleCheckpoint, err) // monerod checks an alternative block's before its PoW
	}
	if !fast {
		if err := c.checkPoW(r, v, blk, height, difficulty); err != nil {
			return fail(RuleProofOfWork, err)
		}
	}
	if rules == mainRules {
		if err := c.checkpoints.check(height, id); err != nil {
			return fail(RuleCheckpoint, err)
		}
	}

	if err := checkMinerTx(&blk.MinerTx, height, version); err != nil {
		return fail(RuleMinerTx, err)
	}
	rec := chaindb.BlockRecord{Blob: blob}
	fees, txWeights, err := c.checkTxs(r, v, blk, txs, txBlobs, version, rules == mainRules, fast, &rec)
	if err != nil {
		return fail(RuleTransactions, err)
	}

	// Weight and reward (validate_miner_transaction).
	minerBlob := blk.MinerTx.Serialize()
	weight := blk.MinerTx.Weight(len(minerBlob)) + txWeights
	shortTerm := v.shortTermMedian()
	longTerm := v.longTerm.Median()
	effective := consensus.EffectiveMedian(shortTerm, longTerm, version)
	reward, err := consensus.BlockReward(consensus.RewardMedian(shortTerm, effective, version), weight, v.top.GeneratedCoins, version)
	if err != nil {
		return fail(RuleBlockWeight, err)
	}
	outputs, _ := blk.MinerTx.OutputSum() // overflow refused by checkMinerTx
	generated, err := consensus.CheckMinerTxAmount(outputs, reward, fees, version)
	if err != nil {
		return fail(RuleMinerTxAmount, err)
	}

	meta := chaindb.BlockMeta{
		Height:               height,
		Hash:                 id,
		PrevHash:             blk.PrevID,
		Timestamp:            blk.Timestamp,
		MajorVersion:         blk.MajorVersion,
		MinorVersion:         blk.MinorVersion,
		Nonce:                blk.Nonce,
		BlobSize:             uint64(len(blob)),
		Weight:               weight,
		LongTermWeight:       consensus.LongTermWeight(weight, longTerm, version),
		Difficulty:           difficulty,
		CumulativeDifficulty: cumulative,
		Reward:               outputs,
		GeneratedCoins:       consensus.AddGeneratedCoins(v.top.GeneratedCoins, generated),
		MinerTxHash:          blk.MinerTx.ID(),
		NumTxes:              uint64(len(blk.TxHashes)),
	}
	rec.Meta = meta
	return meta, rec, nil
}

// altTimestampRange is the window monerod checks an alternative block's
// timestamp against (build_alt_chain then complete_timestamps_vector): the
// last 60 blocks of its chain, or while the chain is shorter every block but
// the genesis block. Unlike the main-chain rule it applies a median even
// below 60 blocks.
func altTimestampRange(height uint64) (first, end uint64) {
	if height > consensus.TimestampCheckWindow {
		return height - consensus.TimestampCheckWindow, height
	}
	return min(1, height), height
}

// checkAltTimestamp is the vector form of check_block_timestamp: not below
// the median of previous (the median of none is 0).
func checkAltTimestamp(timestamp uint64, previous []uint64) error {
	if median := consensus.Median(previous); timestamp < median {
		return &consensus.TimestampError{Timestamp: timestamp, Bound: median, Err: consensus.ErrTimestampTooOld}
	}
	return nil
}

// checkPoW verifies the proof of work. Difficulty 1 is met by every hash
// (x * 1 < 2^256), so the RandomX computation is skipped there: it is the
// whole cost of adding a fixed-difficulty regtest block.
func (c *Chain) checkPoW(r *chaindb.Reader, v *chainView, blk *cryptonote.Block, height uint64, difficulty u128.U128) error {
	if difficulty.Cmp(u128.From64(1)) <= 0 {
		return nil
	}
	if c.cfg.PoW == nil {
		return ErrNoPoWHasher
	}
	// The seed block is this chain's, which for an alternative block deep
	// enough may itself be an alternative block.
	seed, err := v.hashAt(r, consensus.SeedHeight(height))
	if err != nil {
		return err
	}
	key := powKey{height: height, seed: seed}
	if blk.MajorVersion < consensus.RandomXVersion {
		key.seed = cryptonote.Hash{}
	}
	key.id, _ = blk.ID() // computed before check got here
	pow, ok := c.pow.Take(key)
	if !ok {
		if pow, err = consensus.BlockPoWHash(c.cfg.PoW, height, blk.MajorVersion, seed, blk.HashingBlob()); err != nil {
			return err
		}
	}
	if !consensus.CheckPoWHash(pow, difficulty) {
		return &consensus.PoWError{Height: height, Hash: pow, Difficulty: difficulty}
	}
	return nil
}

// checkMinerTx is prevalidate_miner_transaction plus the output-type rule.
func checkMinerTx(tx *cryptonote.Transaction, height uint64, version uint8) error {
	if len(tx.Inputs) != 1 {
		return fmt.Errorf("%w: %d inputs, want exactly one", ErrBadMinerTx, len(tx.Inputs))
	}
	gen, ok := tx.Inputs[0].(cryptonote.TxInGen)
	if !ok {
		return fmt.Errorf("%w: the input is not a coinbase (gen) input", ErrBadMinerTx)
	}
	if gen.Height != height {
		return fmt.Errorf("%w: gen input height %d, block height %d", ErrBadMinerTx, gen.Height, height)
	}
	if want := height + consensus.MinedMoneyUnlockWindow; tx.UnlockTime != want {
		return fmt.Errorf("%w: unlock time %d, want %d", ErrBadMinerTx, tx.UnlockTime, want)
	}
	if _, over := tx.OutputSum(); over {
		return fmt.Errorf("%w: output amounts overflow", ErrBadMinerTx)
	}
	if version >= consensus.VersionMinV2Coinbase {
		if tx.Version != 2 {
			return fmt.Errorf("%w: version %d, from hard fork %d it must be 2", ErrBadMinerTx, tx.Version, consensus.VersionMinV2Coinbase)
		}
		if tx.Rct == nil || tx.Rct.Type != cryptonote.RctTypeNull {
			return fmt.Errorf("%w: RingCT type must be 0 (null)", ErrBadMinerTx)
		}
	}
	if err := consensus.CheckOutputTypes(tx, version); err != nil {
		return fmt.Errorf("%w: %v", ErrBadMinerTx, err)
	}
	for i, o := range tx.Outputs {
		// A v1 output of amount 0 cannot be stored (the outputs index has no
		// commitment for it); monerod refuses it when adding the block.
		if tx.Version == 1 && o.Amount == 0 {
			return fmt.Errorf("%w: output %d has amount 0", ErrBadMinerTx, i)
		}
		// validate_miner_transaction at hard fork 3 exactly (version == 3).
		if version == 3 && !consensus.IsDecomposedAmount(o.Amount) {
			return fmt.Errorf("%w: output %d amount %d is not decomposed", ErrBadMinerTx, i, o.Amount)
		}
	}
	return nil
}

// checkTxs matches the transactions to the block's tx_hashes and applies
// every transaction rule in monerod's order (handle_block_to_main_chain):
// the non-input rules each transaction meets on entering the pool with its
// block, the RingCT semantics (range proofs of the whole block as one
// batch), then, for a block joining the main chain (withInputs), the inputs
// against the chain before the block, key images unique in the block, and
// the signatures on every core. It fills rec.Txs and returns the fees and
// the transactions' weight.
func (c *Chain) checkTxs(r *chaindb.Reader, v *chainView, blk *cryptonote.Block, txs []*cryptonote.Transaction, txBlobs [][]byte, version uint8, withInputs, fast bool, rec *chaindb.BlockRecord) (fees, weight uint64, err error) {
	if len(txs) != len(blk.TxHashes) || len(txBlobs) != len(txs) {
		return 0, 0, fmt.Errorf("%w: %d transactions supplied, the block lists %d", ErrTxMismatch, len(txs), len(blk.TxHashes))
	}
	seen := make(map[cryptonote.Hash]bool, len(txs))
	checks := make([]*txCheck, len(txs))
	for i, tx := range txs {
		id := tx.ID()
		if id != blk.TxHashes[i] {
			return 0, 0, fmt.Errorf("%w: transaction %d has id %s, the block lists %s", ErrTxMismatch, i, id, blk.TxHashes[i])
		}
		if seen[id] {
			return 0, 0, fmt.Errorf("%w: transaction %s is listed twice", ErrTxMismatch, id)
		}
		seen[id] = true
		if dup, err := v.hasTx(r, id); err != nil {
			return 0, 0, err
		} else if dup {
			return 0, 0, fmt.Errorf("%w: %s", ErrTxAlreadyInChain, id)
		}
		t := &txCheck{id: id, tx: tx, blob: txBlobs[i]}
		if err := c.checkTxNonInput(t, version); err != nil {
			return 0, 0, fmt.Errorf("transaction %s: %w", id, err)
		}
		checks[i] = t
	}
	// A fast-checked block (its id proved by the block-hash list) skips the
	// RingCT semantics and the inputs, as monerod does inside the list's
	// area ("Skipping semantics check for tx kept by block in embedded hash
	// area", and no check_tx_inputs under fast_check). monerod skips the
	// semantics for every block while its chain is inside the area; gonero
	// only for blocks whose id was proved.
	if fast {
		withInputs = false
	} else if err := c.rctSemantics(checks); err != nil {
		return 0, 0, err
	}
	if withInputs && len(checks) > 0 {
		if err := c.checkInputs(c.inputContext(r, v, version), checks); err != nil {
			return 0, 0, err
		}
	}
	for _, t := range checks {
		if fees+t.fee < fees {
			return 0, 0, fmt.Errorf("%w: fees overflow", ErrBadTx)
		}
		fees += t.fee
		weight += t.weight
		rec.Txs = append(rec.Txs, chaindb.TxRecord{Hash: t.id, Blob: t.blob})
	}
	return fees, weight, nil
}

func isNotFound(err error) bool { return errors.Is(err, chaindb.ErrNotFound) }
