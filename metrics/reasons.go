package metrics

import (
	"errors"

	"github.com/gonero/gonero/chain"
	"github.com/gonero/gonero/consensus"
	"github.com/gonero/gonero/txpool"
)

// A refusal's reason label comes from a fixed table of the rules' sentinel
// errors, never from an error's text, so that the label set is bounded
// whatever a peer sends. A refusal matching no entry is "other".
const reasonOther = "other"

// blockReasons are the rules a block can break, most specific first:
// consensus's sentinels before chain's (a consensus error may be wrapped
// in one of chain's).
var blockReasons = []struct {
	err    error
	reason string
}{
	{consensus.ErrInsufficientPoW, "insufficient_pow"},
	{consensus.ErrBlockTooBig, "block_too_big"},
	{consensus.ErrMinerTxOverspend, "miner_tx_overspend"},
	{consensus.ErrMinerTxNotExact, "miner_tx_not_exact"},
	{consensus.ErrMinerTxBelowFees, "miner_tx_below_fees"},
	{consensus.ErrWrongMajorVersion, "wrong_major_version"},
	{consensus.ErrVoteTooLow, "vote_too_low"},
	{consensus.ErrTimestampTooNew, "timestamp_too_new"},
	{consensus.ErrTimestampTooOld, "timestamp_too_old"},
	{chain.ErrAlreadyInChain, "already_known"},
	{chain.ErrOrphan, "orphan"},
	{chain.ErrPrevMismatch, "prev_mismatch"},
	{chain.ErrBadBlockID, "bad_block_id"},
	{chain.ErrTxMismatch, "tx_mismatch"},
	{chain.ErrTxAlreadyInChain, "tx_already_in_chain"},
	{chain.ErrBadMinerTx, "bad_miner_tx"},
	{chain.ErrBadTx, "bad_tx"},
	{chain.ErrDifficultyZero, "difficulty_overflow"},
	{chain.ErrNoPoWHasher, "no_pow_hasher"},
}

// BlockRefusalReasons are the values of gonero_blocks_refused_total's
// reason label.
func BlockRefusalReasons() []string {
	out := make([]string, 0, len(blockReasons)+2)
	for _, r := range blockReasons {
		out = append(out, r.reason)
	}
	return append(out, "store", reasonOther)
}

// blockReason names the rule a refused block broke.
func blockReason(err error) string {
	for _, r := range blockReasons {
		if errors.Is(err, r.err) {
			return r.reason
		}
	}
	// A transaction of the block broke a transaction rule.
	if consensus.FlagsOf(err) != 0 {
		return "bad_tx"
	}
	var be *chain.BlockError
	if errors.As(err, &be) && be.Rule == chain.RuleStore {
		return "store" // our disk, not the block
	}
	var te *consensus.TxError
	if errors.As(err, &te) {
		return "bad_tx"
	}
	return reasonOther
}

// TxRefusalReasons are the values of gonero_transactions_refused_total's
// reason label.
func TxRefusalReasons() []string {
	return append(consensus.AllTxFlags.Fields(), "already_in_pool", "already_in_chain", "verification_failed", reasonOther)
}

// txReason names why the pool refused a transaction.
func txReason(err error) string {
	switch {
	case errors.Is(err, txpool.ErrAlreadyInPool):
		return "already_in_pool"
	case errors.Is(err, txpool.ErrAlreadyInChain):
		return "already_in_chain"
	}
	// A refusal is counted under its first flag, in monerod's order.
	if fields := consensus.FlagsOf(err).Fields(); len(fields) > 0 {
		return fields[0]
	}
	var te *consensus.TxError
	if errors.As(err, &te) {
		// A rule without a flag: monerod's bare "verification failed"
		// (a bad signature, a blob that does not parse, ...).
		return "verification_failed"
	}
	return reasonOther
}
