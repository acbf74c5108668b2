package chain

import (
	"errors"
	"fmt"

	"github.com/gonero/gonero/chaindb"
	"github.com/gonero/gonero/consensus"
	"github.com/gonero/gonero/cryptonote"
	"github.com/gonero/gonero/internal/u128"
	"github.com/gonero/gonero/params"
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
	fail := func(rule string, err error) (chaindb.BlockMeta, chaindb.BlockRecord, error) {
		return chaindb.BlockMeta{}, chaindb.BlockRecord{}, &BlockError{Height: height, Hash: id, Rule: rule, Err: err}
	}
	if err != nil {
		return fail("block id", fmt.Errorf("%w: %v", ErrBadBlockID, err))
	}
	if height > 0 && blk.PrevID != v.top.Hash {
		return fail("previous block", fmt.Errorf("%w: prev_id %s, top %s at height %d", ErrPrevMismatch, blk.PrevID, v.top.Hash, v.top.Height))
	}
	if height == 0 && (blk.PrevID != cryptonote.Hash{} || id != c.cfg.Network.GenesisID()) {
		return fail("genesis", fmt.Errorf("%w: not %s's genesis block", ErrPrevMismatch, c.cfg.Network))
	}

	version := blk.MajorVersion
	if err := consensus.CheckVersion(blk.MajorVersion, blk.MinorVersion, c.cfg.Network.VersionAt(height)); err != nil {
		return fail("hard-fork version", err)
	}

	if rules == altRules {
		err = checkAltTimestamp(blk.Timestamp, v.timestamps(altTimestampRange(height)))
	} else {
		err = consensus.CheckTimestamp(blk.Timestamp, v.timestamps(consensus.TimestampCheckRange(height)), uint64(c.cfg.Now().Unix()))
	}
	if err != nil {
		return fail("timestamp", err)
	}

	difficulty := v.nextDifficulty(c.cfg.FixedDifficulty, version)
	if difficulty.IsZero() {
		return fail("difficulty", ErrDifficultyZero)
	}
	cumulative := difficulty
	if height > 0 {
		var over bool
		if cumulative, over = v.top.CumulativeDifficulty.Add(difficulty); over {
			return fail("difficulty", fmt.Errorf("cumulative difficulty overflows 128 bits"))
		}
	}
	if err := c.checkPoW(r, v, blk, height, difficulty); err != nil {
		return fail("proof of work", err)
	}

	if err := checkMinerTx(&blk.MinerTx, height, version); err != nil {
		return fail("miner transaction", err)
	}
	rec := chaindb.BlockRecord{Blob: blob}
	fees, txWeights, err := c.checkTxs(r, v, blk, txs, txBlobs, version, &rec)
	if err != nil {
		return fail("transactions", err)
	}

	// Weight and reward (validate_miner_transaction).
	minerBlob := blk.MinerTx.Serialize()
	weight := blk.MinerTx.Weight(len(minerBlob)) + txWeights
	shortTerm := v.shortTermMedian()
	longTerm := v.longTerm.Median()
	effective := consensus.EffectiveMedian(shortTerm, longTerm, version)
	reward, err := consensus.BlockReward(consensus.RewardMedian(shortTerm, effective, version), weight, v.top.GeneratedCoins, version)
	if err != nil {
		return fail("block weight", err)
	}
	outputs, _ := blk.MinerTx.OutputSum() // overflow refused by checkMinerTx
	generated, err := consensus.CheckMinerTxAmount(outputs, reward, fees, version)
	if err != nil {
		return fail("miner transaction amount", err)
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
	pow, err := consensus.BlockPoWHash(c.cfg.PoW, height, blk.MajorVersion, seed, blk.HashingBlob())
	if err != nil {
		return err
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
	if version >= minV2CoinbaseVersion {
		if tx.Version != 2 {
			return fmt.Errorf("%w: version %d, from hard fork %d it must be 2", ErrBadMinerTx, tx.Version, minV2CoinbaseVersion)
		}
		if tx.Rct == nil || tx.Rct.Type != cryptonote.RctTypeNull {
			return fmt.Errorf("%w: RingCT type must be 0 (null)", ErrBadMinerTx)
		}
	}
	if err := checkOutputTypes(tx, version); err != nil {
		return fmt.Errorf("%w: %v", ErrBadMinerTx, err)
	}
	return nil
}

// Hard-fork versions of the transaction rules checked here (cryptonote_config.h).
const (
	minV2CoinbaseVersion = 12 // HF_VERSION_MIN_V2_COINBASE_TX
	enableRctVersion     = 4  // v2 (RingCT) transactions allowed
	viewTagsVersion      = 15 // HF_VERSION_VIEW_TAGS
)

// checkOutputTypes is cryptonote_format_utils.cpp check_output_types.
func checkOutputTypes(tx *cryptonote.Transaction, version uint8) error {
	for i, o := range tx.Outputs {
		_, plain := o.Target.(cryptonote.TxOutToKey)
		_, tagged := o.Target.(cryptonote.TxOutToTaggedKey)
		switch {
		case version > viewTagsVersion && !tagged:
			return fmt.Errorf("output %d: from hard fork %d outputs must carry a view tag", i, viewTagsVersion+1)
		case version < viewTagsVersion && !plain:
			return fmt.Errorf("output %d: before hard fork %d outputs must be to_key", i, viewTagsVersion)
		case version == viewTagsVersion:
			if !plain && !tagged {
				return fmt.Errorf("output %d: unsupported output type", i)
			}
			if fmt.Sprintf("%T", o.Target) != fmt.Sprintf("%T", tx.Outputs[0].Target) {
				return fmt.Errorf("output %d: outputs of one transaction must all be of one type", i)
			}
		}
	}
	return nil
}

// rctTypeVersions are the hard-fork versions that admit each RingCT type
// (blockchain.cpp check_tx_outputs); 0 means no upper bound.
var rctTypeVersions = map[uint8][2]uint8{
	cryptonote.RctTypeFull:            {4, 8},
	cryptonote.RctTypeSimple:          {4, 8},
	cryptonote.RctTypeBulletproof:     {8, 10},
	cryptonote.RctTypeBulletproof2:    {10, 13},
	cryptonote.RctTypeCLSAG:           {13, 15},
	cryptonote.RctTypeBulletproofPlus: {15, 0},
}

// grandfatheredMLSAG are the two mainnet transactions of RingCT type <= 4
// that entered blocks after hard fork 13 (they were in the pool before the
// fork); monerod admits exactly these at hard forks 14 and 15.
var grandfatheredMLSAG = map[cryptonote.Hash]bool{
	cryptonote.MustParseHash("c5151944f0583097ba0c88cd0f43e7fabb3881278aa2f73b3b0a007c5d34e910"): true,
	cryptonote.MustParseHash("6f2f117cde6fbcf8d4a6ef8974fcac744726574ac38cf25d3322c996b21edd4c"): true,
}

// rctTypeAllowed applies rctTypeVersions and the grandfathering.
func rctTypeAllowed(net params.Network, id cryptonote.Hash, typ, version uint8) bool {
	span, ok := rctTypeVersions[typ]
	if !ok || version < span[0] {
		return false
	}
	if span[1] == 0 || version <= span[1] {
		return true
	}
	return net == params.Mainnet && typ <= cryptonote.RctTypeBulletproof2 && version <= 15 && grandfatheredMLSAG[id]
}

// checkTxs matches the transactions to the block's tx_hashes, applies the
// structural rules this node checks (ring signatures and RingCT proofs are
// not verified), fills rec.Txs, and returns the fees and the weight.
func (c *Chain) checkTxs(r *chaindb.Reader, v *chainView, blk *cryptonote.Block, txs []*cryptonote.Transaction, txBlobs [][]byte, version uint8, rec *chaindb.BlockRecord) (fees, weight uint64, err error) {
	if len(txs) != len(blk.TxHashes) || len(txBlobs) != len(txs) {
		return 0, 0, fmt.Errorf("%w: %d transactions supplied, the block lists %d", ErrTxMismatch, len(txs), len(blk.TxHashes))
	}
	seen := make(map[cryptonote.Hash]bool, len(txs))
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
		fee, err := checkTx(c.cfg.Network, id, tx, version)
		if err != nil {
			return 0, 0, fmt.Errorf("transaction %s: %w", id, err)
		}
		if fees+fee < fees {
			return 0, 0, fmt.Errorf("%w: fees overflow", ErrBadTx)
		}
		fees += fee
		weight += tx.Weight(len(txBlobs[i]))
		rec.Txs = append(rec.Txs, chaindb.TxRecord{Hash: id, Blob: txBlobs[i]})
	}
	return fees, weight, nil
}

func isNotFound(err error) bool { return errors.Is(err, chaindb.ErrNotFound) }

// checkTx applies the per-transaction rules and returns the fee.
func checkTx(net params.Network, id cryptonote.Hash, tx *cryptonote.Transaction, version uint8) (uint64, error) {
	if len(tx.Inputs) == 0 {
		return 0, fmt.Errorf("%w: no inputs", ErrBadTx)
	}
	var in uint64
	for i, txin := range tx.Inputs {
		k, ok := txin.(cryptonote.TxInToKey)
		if !ok {
			return 0, fmt.Errorf("%w: input %d is not a to_key input", ErrBadTx, i)
		}
		if len(k.KeyOffsets) == 0 {
			return 0, fmt.Errorf("%w: input %d has an empty ring", ErrBadTx, i)
		}
		if in+k.Amount < in {
			return 0, fmt.Errorf("%w: input amounts overflow", ErrBadTx)
		}
		in += k.Amount
	}
	if err := checkOutputTypes(tx, version); err != nil {
		return 0, fmt.Errorf("%w: %v", ErrBadTx, err)
	}
	out, over := tx.OutputSum()
	if over {
		return 0, fmt.Errorf("%w: output amounts overflow", ErrBadTx)
	}
	if tx.Version == 1 {
		if out > in {
			return 0, fmt.Errorf("%w: outputs (%d) exceed inputs (%d)", ErrBadTx, out, in)
		}
		return in - out, nil
	}
	if version < enableRctVersion {
		return 0, fmt.Errorf("%w: version 2 transactions are not allowed before hard fork %d", ErrBadTx, enableRctVersion)
	}
	if tx.Rct == nil {
		return 0, fmt.Errorf("%w: version 2 transaction without RingCT data", ErrBadTx)
	}
	if typ := tx.Rct.Type; !rctTypeAllowed(net, id, typ, version) {
		return 0, fmt.Errorf("%w: RingCT type %d is not allowed at hard fork %d", ErrBadTx, typ, version)
	}
	// Outputs hide their amounts; inputs may still name one: a RingCT
	// transaction spending a pre-RingCT output rings it with outputs of
	// that amount.
	if out != 0 {
		return 0, fmt.Errorf("%w: RingCT output amounts must be 0 in clear", ErrBadTx)
	}
	return tx.Rct.TxnFee, nil
}
