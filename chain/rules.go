package chain

import "strconv"

// BlockRule names the step of a block's check that refused it. A
// BlockError carries one, so that callers compare codes, never error
// texts; its String is the text gonero has always printed for the step
// (BlockError.Error). docs/tx-verification.md §9 lists the codes.
type BlockRule uint8

// The steps, in the order check applies them (checks.go), then the
// refusals from outside check.
const (
	_ BlockRule = iota

	RuleBlockID          // the block id cannot be computed
	RulePrevious         // parent is not the top, or the block is known
	RuleGenesis          // not the network's genesis block
	RuleHardForkVersion  // major version or vote (HardFork::check)
	RuleTimestamp        // check_block_timestamp
	RuleDifficulty       // difficulty overflow
	RuleBlockHashList    // fast sync's block-hash list
	RuleCheckpoint       // a checkpoint, or an alternative block below one
	RuleProofOfWork      // check_hash
	RuleMinerTx          // prevalidate_miner_transaction
	RuleTransactions     // a transaction of the block (the error wraps its consensus.TxError)
	RuleBlockWeight      // the block weight limit
	RuleMinerTxAmount    // validate_miner_transaction
	RuleBlock            // a stored alternative block that no longer parses
	RuleAlternativeChain // reading the alternative chain failed
	RuleStore            // the store failed: the node's fault, not the block's
	// RuleVerifierPanic: a verifier panicked on the block ahead of the
	// writer (the P2P prep workers); the error wraps a
	// consensus.PanicError.
	RuleVerifierPanic
	numBlockRules
)

var blockRuleNames = [numBlockRules]string{
	RuleBlockID:          "block id",
	RulePrevious:         "previous block",
	RuleGenesis:          "genesis",
	RuleHardForkVersion:  "hard-fork version",
	RuleTimestamp:        "timestamp",
	RuleDifficulty:       "difficulty",
	RuleBlockHashList:    "block-hash list",
	RuleCheckpoint:       "checkpoint",
	RuleProofOfWork:      "proof of work",
	RuleMinerTx:          "miner transaction",
	RuleTransactions:     "transactions",
	RuleBlockWeight:      "block weight",
	RuleMinerTxAmount:    "miner transaction amount",
	RuleBlock:            "block",
	RuleAlternativeChain: "alternative chain",
	RuleStore:            "store",
	RuleVerifierPanic:    "verifier panicked",
}

// String is the step's name (empty for 0).
func (r BlockRule) String() string {
	if r < numBlockRules {
		return blockRuleNames[r]
	}
	return "block rule " + strconv.Itoa(int(r))
}
